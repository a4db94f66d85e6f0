"""History import through the app's one writer (issue 39, item 3): each batch's text is written
once, into the import writer's journal (no ``batches.jsonl`` beside it), the import's writer is made
by the factory chat's writer is made by (``agent_lifecycle.make_writer``: the same settings reach
it), its progress comes from the writer's reports onto the services' one feed, and an import begun by
the older version (its batches in ``batches.jsonl``) still goes on. Real stores, the scripted model
over real HTTP. (Kill -9 in the middle of an import: test_history_cli.py.)"""

from __future__ import annotations

import dataclasses
import json
import threading

import pytest

from history_helpers import fixture, is_writer, remember_each_line, services_fixture, shanghai  # noqa: F401
from sonetto_desktop.history_import.ledger import ImportState, new_import_id
from sonetto_desktop.history_import.runner import ImportProgress, safe_title
from sonetto_desktop.memory.writer import prompts
from sonetto_desktop.memory.writer.journal import TurnJournal

pytestmark = pytest.mark.usefixtures("shanghai")


def _files_holding(folder, text: str) -> dict[str, int]:
    """Every file under ``folder`` whose bytes hold ``text`` (as stored: JSON keeps Chinese as is), with
    how many times."""
    needle = text.encode("utf-8")
    found = {}
    for path in folder.rglob("*"):
        if path.is_file() and (n := path.read_bytes().count(needle)):
            found[str(path.relative_to(folder))] = n
    return found


async def test_each_batch_is_written_once_into_the_writers_journal(services, llm_server, monkeypatch):
    appended: list[str] = []
    append = TurnJournal.append

    def counted(self, turn_id, *args, **kwargs):
        appended.append(turn_id)
        return append(self, turn_id, *args, **kwargs)

    monkeypatch.setattr(TurnJournal, "append", counted)
    gate = threading.Event()

    def held(body):  # the first batch waits at the model while the test reads the disk
        if is_writer(body):
            gate.wait(30)
        return remember_each_line(body)

    llm_server.responder = held
    imports = services.imports
    history = await imports.read(fixture("history.jsonl"))
    plan = await imports.plan(history)
    state = await imports.start(plan, history, file_name="history.jsonl")
    try:
        folder = imports.ledger.folder_of(state.id)
        assert not (folder / "batches.jsonl").exists()
        assert sorted(appended) == sorted(f"{state.id}-{b.seq:06d}" for b in plan.batches)  # once each
        index = json.loads((folder / "conversations.json").read_text(encoding="utf-8"))
        assert [r["keys"] for _, r in sorted(index["records"].items())] == [list(b.keys) for b in plan.batches]
        for batch in plan.batches:  # its text: in the journal, once, and nowhere else in the import's folder
            text = batch.loaded().messages()[0]["content"]
            where = _files_holding(folder, text)
            assert list(where.values()) == [1] and next(iter(where)).startswith("journal/pending/"), where
    finally:
        gate.set()
    result = await imports.wait()
    assert result.turns_written == plan.turns and result.memories_created == plan.turns
    assert len(appended) == len(plan.batches)  # nothing journaled again while it was written
    assert sorted(imports.ledger.written_batches(state.id)) == [b.seq for b in plan.batches]
    assert not imports.ledger.journal_path(state.id).exists()


async def test_the_imports_writer_is_made_as_chats_is(services, llm_server):
    """The settings chat's writer follows reach the import's: the person's name and the UI's language
    (the reasons in English), through the one factory."""
    await services.apply_settings(dataclasses.replace(services.settings, language="en", user_name="小林"))
    llm_server.responder = remember_each_line
    imports = services.imports
    history = await imports.read(fixture("history.jsonl"))
    await imports.start(await imports.plan(history), history, file_name="history.jsonl")
    await imports.wait()
    users = [body["messages"][-1]["content"] for body in llm_server.requests if is_writer(body)]
    assert users and all(prompts.ENGLISH_REASONS in u and "## 用户的称呼\n小林（" in u for u in users)


async def test_why_a_turn_failed_is_said_in_the_uis_language(services, llm_server):
    """English UI, a model that refuses the key: the status bar said "Memory writing failed:
    模型服务拒绝了 API Key（认证失败）…", and a failed import "None of the 2 batches could be written;
    nothing was written: 模型服务返回了无法理解的内容…" (the writer's reason was always the Chinese one)."""
    from llm_server import error

    reason = await _first_failure_in_english(services, llm_server, lambda body: error(401, "invalid api key"))
    assert reason.startswith("The model server rejected the API key"), reason
    assert not any("\u4e00" <= ch <= "\u9fff" for ch in reason), reason


async def _first_failure_in_english(services, llm_server, responder) -> str:
    """The UI in English, the model answering with ``responder``: why the writer's first turn failed."""
    from waiting import until

    await services.apply_settings(dataclasses.replace(services.settings, language="en"))
    llm_server.responder = responder
    await services.start_agents(chat=False)
    writer = services.writer
    await writer.send_history([{"role": "user", "content": "我养了一只猫"}, {"role": "assistant", "content": "好呀"}])
    await until(lambda: writer.status().last_error, what="the first failure")
    return writer.status().last_error


async def test_the_writers_own_reasons_are_said_in_the_uis_language(services, llm_server):
    """English UI, a model whose server passes tool calls on as text: the status bar said "Memory
    writing failed: 模型把工具调用写成了文字…" (the writer's own reasons, and the store's, were only
    Chinese; only the model server's followed the UI's language)."""
    reason = await _first_failure_in_english(
        services, llm_server, lambda body: '<tool_call>{"name": "create_memory", "arguments": {}}</tool_call>')
    assert reason.startswith("the model wrote its tool calls as text"), reason
    assert not any("\u4e00" <= ch <= "\u9fff" for ch in reason), reason


async def test_progress_is_on_the_services_one_feed(services, llm_server):
    seen: list[ImportProgress] = []
    services.subscribe_events(lambda event: seen.append(event) if isinstance(event, ImportProgress) else None)
    llm_server.responder = remember_each_line
    imports = services.imports
    history = await imports.read(fixture("history.jsonl"))
    plan = await imports.plan(history)
    await imports.start(plan, history, file_name="history.jsonl")
    result = await imports.wait()
    running = [p for p in seen if p.status == "running"]
    assert running and max(p.created for p in running) == result.memories_created == plan.turns
    assert seen[-1].status == "done" and seen[-1].turns_done == plan.turns


async def test_an_import_begun_by_the_older_version_goes_on_from_its_batches_file(services, llm_server):
    """Before this change the batches waited in ``batches.jsonl`` (text and all) and went into the
    journal two at a time; such an import, stopped after its first batch, goes on: the rest are
    journaled once, written in order, and the file goes."""
    llm_server.responder = remember_each_line
    imports = services.imports
    history = await imports.read(fixture("history.jsonl"))
    plan = await imports.plan(history)
    assert len(plan.batches) == 2
    ledger, state_id = imports.ledger, new_import_id()
    old = [{"seq": b.seq, "conversation": b.conversation_id, "title": safe_title(b.title), "now": b.now.isoformat(),
            "keys": list(b.keys), "turns": len(b.exchanges), "messages": b.loaded().messages()} for b in plan.batches]
    folder = ledger.folder_of(state_id)
    folder.mkdir(parents=True)
    (folder / "batches.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in old),
                                          encoding="utf-8")
    (folder / "conversations.json").write_text(json.dumps(
        {"batches": {str(r["seq"]): r["conversation"] for r in old},
         "titles": {r["conversation"]: r["title"] for r in old}}, ensure_ascii=False), encoding="utf-8")
    ledger.record(state_id, 0, old[0]["keys"])  # the first batch was written before it stopped
    ledger.save(ImportState(state_id, "jsonl", "JSON Lines", "history.jsonl", history.digest, status="paused",
                            batches=2, turns=plan.turns))
    await imports.resume(state_id)
    result = await imports.wait()
    written = [b for b in plan.batches if b.seq == 1]
    assert result.turns_written == plan.turns and result.memories_created == len(written[0].exchanges)
    assert [body for body in llm_server.requests if is_writer(body)][0]["messages"][-1]["content"].count(
        written[0].loaded().messages()[0]["content"]) == 1  # only the batch not written was asked
    assert len([b for b in llm_server.requests if is_writer(b)]) == 1
    assert not (folder / "batches.jsonl").exists() and ledger.get(state_id).status == "done"


async def test_an_import_whose_batches_cannot_all_be_journaled_does_not_begin(services, llm_server, monkeypatch):
    """The journal refuses the batches (here its folder for them is a file, as a broken disk would):
    the import says so and leaves nothing behind — no state, no index, no half journal — so the same
    chats can be imported once the disk is fine."""
    from sonetto_desktop.history_import import runner

    monkeypatch.setattr(runner, "new_import_id", lambda: "imp-0badd15c")
    imports = services.imports
    history = await imports.read(fixture("history.jsonl"))
    plan = await imports.plan(history)
    pending = imports.ledger.journal_path("imp-0badd15c") / "pending"
    pending.parent.mkdir(parents=True)
    pending.write_text("not a folder", encoding="utf-8")
    with pytest.raises(OSError):
        await imports.start(plan, history, file_name="history.jsonl")
    assert not imports.ledger.folder_of("imp-0badd15c").exists() and await imports.unfinished() == []
    assert imports.runner.running is None and not [b for b in llm_server.requests if is_writer(b)]
    llm_server.responder = remember_each_line
    monkeypatch.setattr(runner, "new_import_id", lambda: "imp-600dd15c")
    await imports.start(plan, history, file_name="history.jsonl")
    assert (await imports.wait()).turns_written == plan.turns


async def test_the_progress_counts_what_the_toast_counts_as_each_memory_lands(services, llm_server):
    """Progress said 新记忆 1 while the toast said 新增 2: the toast counts each memory the import writes as it
    lands in the store (the change channel), the progress counted a batch's memories only once the batch
    was done (from what its writer reported). Driven in that order: batch 2 has written its memory and
    waits at the model for its last answer. The progress says what the store holds, as the finished
    import does (one count: ``count_changes``)."""
    from sonetto_desktop.history_import.runner import count_changes
    from sonetto_desktop.memory import kinds
    from sonetto_desktop.presentation.others import SourceTally, from_elsewhere
    from waiting import until

    from history_helpers import said
    from llm_server import tool_calls

    firsts, follow_ups, gate = [], [], threading.Event()

    def held(body):  # batch 2 writes its memories, then reads the list: its next call waits at the model
        if not is_writer(body):
            return remember_each_line(body)
        if any(m["role"] == "tool" for m in body["messages"]):
            follow_ups.append(1)
            gate.wait(30)
            return "好的"
        firsts.append(1)
        calls = [("create_memory", {"content": f"用户说过：{text[:40]}", "section": "身份"}) for _, text in said(body)]
        return tool_calls(calls + ([("read_memories", {})] if len(firsts) == 2 else []))

    llm_server.responder = held
    imports = services.imports
    history = await imports.read(fixture("history.jsonl"))
    plan = await imports.plan(history)
    assert len(plan.batches) >= 2
    tallies: dict[str, SourceTally] = {}  # as the window's quiet notice tallies an import's changes

    def seen(change):
        if from_elsewhere(change) and change.actor.startswith("import:"):
            tallies.setdefault(change.actor, SourceTally.of(change)).add(change)

    unsubscribe = services.subscribe(seen)
    state = await imports.start(plan, history, file_name="history.jsonl")
    try:
        first_two = sum(b.turns for b in plan.batches[:2])
        added = lambda: sum(t.counts[kinds.ADDED] for t in tallies.values())  # noqa: E731
        await until(lambda: follow_ups and added() == first_two, what="batch 2's memories in the store")
        assert count_changes(imports.runner.ops, state.id)[0] == first_two
        await until(lambda: imports.runner.last is not None and imports.runner.last.created == first_two,
                    what=f"the progress saying {first_two} new memories, as the toast does")
    finally:
        gate.set()
    result = await imports.wait()
    unsubscribe()
    assert result.memories_created == imports.runner.last.created == added() == plan.turns
