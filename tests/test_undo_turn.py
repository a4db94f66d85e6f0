"""Undo a whole turn (issue 12, capability 2): ``services.memory.undo_turn(turn_id)`` takes back every
change a writer turn made as one action (its own ``undo-…`` turn), is itself undoable, and refuses —
naming the memories — when a later change touched them. Through AppServices, every backend."""

from __future__ import annotations

import pytest

from ltm_helpers import until
from sonetto_desktop.config.settings import Settings
from sonetto_desktop.memory import MemoryOperations, Turn
from sonetto_desktop.memory.undo import NothingToUndo, UndoConflict
from sonetto_desktop.services import AppServices

from memory_stores import backend_store_fixture

mm = backend_store_fixture()


def settings_for(request, tmp_path, backend: str, base_url: str) -> Settings:
    values = dict(data_dir=str(tmp_path / "data"), retrieval_mode="mechanical", store_backend=backend,
                  base_url=base_url, model="test-model", api_key="sk-test")
    if backend == "postgres":
        values |= dict(postgres_url=request.getfixturevalue("pg_url"),
                       postgres_schema=request.getfixturevalue("pg_schema"), device_name="desk")
    return Settings(**values)


def snapshot(ops: MemoryOperations) -> tuple[dict, set]:
    """What the person sees: every memory's text and theme, and what is in the trash."""
    items = {mid: (item.description, item.theme) for mid, item in ops.all_items().items()}
    return items, {row["id"] for row in ops.trash()}


@pytest.fixture(params=["yaml", "sqlite", "postgres"])
async def services(request, tmp_path, llm_server):
    opened = await AppServices.open(settings=settings_for(request, tmp_path, request.param, llm_server.base_url),
                                    watch=False)
    yield opened
    await opened.close()


async def test_undo_turn_restores_the_exact_pre_turn_store_and_is_itself_undoable(services, llm_server):
    ops = services.memory
    keep = ops.add("用户住在成都", "身份").ids[0]
    old = ops.add("用户周五要交报告", "时效待办").ids[0]
    dup_a = ops.add("用户喜欢猫", "品味").ids[0]
    dup_b = ops.add("用户很喜欢猫咪", "品味").ids[0]
    before = snapshot(ops)
    await services.start_agents()
    llm_server.add_tool_calls([
        ("update_memory", {"id": keep, "content": "用户搬到了上海", "reason": "用户说搬家了"}),
        ("create_memory", {"content": "用户在上海的新公司上班", "section": "身份"}),
        ("delete_memory", {"id": old, "reason": "报告已交"}),
        ("merge_memories", {"id1": dup_a, "id2": dup_b, "content": "用户非常喜欢猫", "section": "品味",
                            "reason": "重复"}),
    ])
    await services.writer.send_history([{"role": "user", "content": "我搬到上海了，报告也交了"}], turn_id="t-1")
    await until(lambda: services.writer.pending == 0 and not services.writer.busy and ops.count() == 3)
    after = snapshot(ops)
    [created] = set(after[0]) - set(before[0])
    assert after[1] == {old, dup_b}
    # Undone: the same memories with the same text and themes; what the turn created waits in the trash.
    undone = (before[0], before[1] | {created})

    result = ops.undo_turn("t-1")
    assert result.turn_id.startswith("undo-") and result.undone == "t-1"
    assert snapshot(ops) == undone
    assert {c.turn_id for c in result.changes} == {result.turn_id} and {c.actor for c in result.changes} == {"user"}
    assert ops.history(keep)[0]["turn_id"] == result.turn_id  # recorded, with its own turn

    redo = ops.undo_turn(result.turn_id)  # the undo is itself undoable
    assert snapshot(ops) == after
    ops.undo_turn(redo.turn_id)
    assert snapshot(ops) == undone


async def test_undo_is_refused_naming_the_memories_a_later_change_touched(services, llm_server):
    ops = services.memory
    keep = ops.add("用户住在成都", "身份").ids[0]
    await services.start_agents()
    llm_server.add_tool_calls([
        ("update_memory", {"id": keep, "content": "用户搬到了上海", "reason": "用户说搬家了"}),
        ("create_memory", {"content": "用户养了一只猫", "section": "身份"}),
    ])
    await services.writer.send_history([{"role": "user", "content": "我搬到上海了，还养了猫"}], turn_id="t-2")
    await until(lambda: services.writer.pending == 0 and not services.writer.busy and ops.count() == 2)
    created = next(mid for mid in ops.all_items() if mid != keep)
    ops.update(created, description="用户养了一只橘猫", reason="手动编辑")
    before = snapshot(ops)
    with pytest.raises(UndoConflict) as refused:
        ops.undo_turn("t-2")
    assert set(refused.value.conflicts) == {created} and created in str(refused.value)
    assert snapshot(ops) == before  # nothing changed
    with pytest.raises(NothingToUndo):
        ops.undo_turn("never-was")


def test_undo_of_a_bulk_action_and_a_lock_on_every_store(mm):
    person = MemoryOperations(mm)
    ids = [person.add(t, "品味").ids[0] for t in ("用户喜欢猫", "用户喜欢狗")]
    before = snapshot(person)
    locked = person.lock_many(ids)
    gone = person.delete_many([ids[0]])
    assert person.undo_turn(gone.turn_id).changes and snapshot(person) == before
    person.undo_turn(locked.turn_id)
    assert not mm.get(ids[0]).locked and not mm.get(ids[1]).locked
    # The agent may not undo around the person's lock.
    person.set_locked(ids[1], True)
    agent = person.as_actor("agent")
    moved = agent.move_many([ids[0]], "动物")
    assert agent.undo_turn(moved.turn_id).changes and mm.get(ids[0]).theme == "品味"


def test_undo_is_refused_when_a_later_change_deleted_or_restored_a_memory_of_the_turn(mm):
    person = MemoryOperations(mm)
    kept = person.add("用户住在成都", "身份").ids[0]
    agent = person.as_actor("agent", Turn("t-9"))
    made = agent.add("用户养了一只猫", "身份").ids[0]
    agent.delete(kept, reason="搬家了")
    person.delete(made, reason="不对")  # the person deleted what the turn made ...
    person.restore(kept)  # ... and brought back what it deleted
    with pytest.raises(UndoConflict) as refused:
        person.undo_turn("t-9")
    assert set(refused.value.conflicts) == {made, kept}
    assert "deleted later" in refused.value.conflicts[made]
    assert mm.count() == 1 and {row["id"] for row in mm.list_trash()} == {made}  # nothing changed


def test_the_command_line_undoes_a_turn_and_names_the_memories_when_it_refuses(tmp_path, capsys, english_terminal):
    from sonetto_desktop.cli import main as cli_main
    from sonetto_desktop.memory import YamlMemoryManager

    path = tmp_path / "memory.yaml"
    store = YamlMemoryManager(path)
    kept = store.add("用户住在成都", "身份")
    agent = MemoryOperations(store).as_actor("agent", Turn("t-cli"))
    agent.update(kept, description="用户搬到了上海", reason="搬家")
    made = agent.add("用户养了一只猫", "身份").ids[0]
    store.close()
    assert cli_main(["--store", str(path), "undo", "t-cli"]) == 0
    out = capsys.readouterr().out
    assert "undid 2 changes of t-cli" in out and "sonetto memory undo undo-" in out
    reopened = YamlMemoryManager(path)
    assert [i.description for i in reopened.all_items().values()] == ["用户住在成都"]
    reopened.close()
    assert cli_main(["--store", str(path), "undo", "t-cli"]) == 2  # already undone: later changes touched them
    err = capsys.readouterr().err
    assert err.startswith("error: cannot undo turn 't-cli'") and kept in err and made in err


def test_a_refusal_names_the_cards_by_their_text_and_a_card_locked_since_is_kept(mm):
    from sonetto_desktop.presentation.errors import describe_error

    person = MemoryOperations(mm)
    agent = person.as_actor("agent", Turn("t-7"))
    made = agent.add("用户养了一只猫", "品味").ids[0]
    agent.add("用户喜欢跑步", "品味")
    person.set_locked(made)  # the person keeps that one
    before = snapshot(person)
    with pytest.raises(UndoConflict) as refused:
        person.undo_turn("t-7")
    assert [(t.memory_id, t.why, t.actor) for t in refused.value.touched] == [(made, "locked", "user")]
    assert snapshot(person) == before
    said = describe_error(refused.value)
    assert "「用户养了一只猫」" in said and made not in said  # the card, not its id
    result = person.undo_turn("t-7", keep_touched=True)  # the rest goes; the locked card stays
    assert [t.memory_id for t in result.kept] == [made] and set(person.all_items()) == {made}


def test_the_command_line_lists_the_cards_changed_since_and_undoes_the_rest_with_rest(tmp_path, capsys,
                                                                                    english_terminal):
    from sonetto_desktop.cli import main as cli_main
    from sonetto_desktop.memory import YamlMemoryManager

    path = tmp_path / "memory.yaml"
    store = YamlMemoryManager(path)
    agent = MemoryOperations(store).as_actor("agent", Turn("t-rest"))
    cat = agent.add("用户养了一只猫", "身份").ids[0]
    agent.add("用户喜欢跑步", "身份")
    MemoryOperations(store).update(cat, description="用户养了一只橘猫")
    store.close()
    assert cli_main(["--store", str(path), "undo", "t-rest"]) == 2
    out, err = capsys.readouterr()
    assert f"  {cat}  “用户养了一只橘猫”: You edited it afterwards (just now)" in out.splitlines()
    assert "sonetto memory undo t-rest --rest" in out and err.startswith("error: cannot undo turn 't-rest'")
    assert cli_main(["--store", str(path), "undo", "t-rest", "--rest"]) == 0
    out = capsys.readouterr().out
    assert "undid 1 changes of t-rest" in out and "1 card was changed afterwards; it was kept as it is:" in out
    reopened = YamlMemoryManager(path)
    assert [i.description for i in reopened.all_items().values()] == ["用户养了一只橘猫"]
    reopened.close()


def test_the_words_for_kept_cards_in_both_languages():
    from datetime import datetime

    from sonetto_desktop.memory.undo import Touched
    from sonetto_desktop.presentation.undo_words import effects_text, kept_line

    now = datetime(2026, 5, 4, 12, 0)
    moved = Touched("m1", "moved", "用户住在杭州", "地点", "cli", "2026-05-01T09:00:00")
    assert kept_line(moved, "zh", now) == "「用户住在杭州」：你之后把它移到了「地点」（3天前）"
    assert kept_line(moved, "en", now) == "“用户住在杭州”: You moved it to “地点” afterwards (3 days ago)"
    by_app = Touched("m2", "deleted", "用户" + "很长的一段话" * 10, "身份", "mcp:cursor")
    assert kept_line(by_app, "zh").endswith("…」：cursor 之后删除了它（在回收站里）")
    assert kept_line(Touched("m3", "edited", "x", "t", "agent"), "zh") == "「x」：Sonetto 之后改过它"
    went = Touched("m4", "with", "用户喜欢猫咪", "品味", other="用户非常喜欢猫，也喜欢狗")
    assert kept_line(went, "zh") == "「用户喜欢猫咪」：它被合并进了保留的「用户非常喜欢猫，也喜欢狗」"
    assert kept_line(went, "en") == "“用户喜欢猫咪”: It was merged into “用户非常喜欢猫，也喜欢狗”, which is kept"
    # a theme holding a direction override is set apart, as a card's text is: the override ends with it
    # instead of running on into our words after it (the quote's end and the time shown backwards)
    turned = Touched("m5", "moved", "用户住在杭州", "地点\u202eMoved", "cli", "2026-05-01T09:00:00")
    assert kept_line(turned, "zh", now) == "「用户住在杭州」：你之后把它移到了「\u2068地点\u202eMoved\u2069」（3天前）"
    assert kept_line(turned, "en", now) == ("“用户住在杭州”: You moved it to “\u2068地点\u202eMoved\u2069” afterwards "
                                            "(3 days ago)")
    assert effects_text({"reverted": 2, "trashed": 3}, "zh") == "3 条移到回收站、2 条恢复原来的内容"
    assert effects_text({"restored": 1, "reverted": 2}, "en") == "1 comes back from the trash, 2 get their earlier text back"


def test_the_turn_reads_benchmark_runs_and_a_turns_undo_reads_less_than_the_store():
    """bench/turn_reads.py end to end on a small store: the import's count and the undos are right (it
    asserts them) and each reads a small part of what reading every memory does."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    # In a process of its own, as the bench runs: the peaks are tracemalloc's, and in a test worker the
    # interpreter's intern table, grown by earlier tests, may be rebuilt (megabytes) inside the measured
    # call (``memory/shared_text.py``), which says nothing about the call.
    code = "import json, bench.turn_reads as b; print(json.dumps(b.measure(3000, 'sqlite')))"
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout.strip().splitlines()[-1])["rows"]
    whole = rows.pop("read every memory (what each did before)")["peak_mb"]
    assert len(rows) == 5 and all(row["peak_mb"] * 5 < whole for row in rows.values()), rows

