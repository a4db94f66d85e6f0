"""Other processes' writes reach this process's change channel (poll_external / StoreWatcher),
attributed to the actor that made them; this process's own writes are never reported twice."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from memory_stores import BACKENDS, open_store, store_path, use_backend
from sonetto_desktop.memory.changes import MemoryChange, Turn
from sonetto_desktop.memory.stores.watch import StoreWatcher

ROOT = Path(__file__).resolve().parent.parent


def other_process(kind: str, folder: Path, code: str) -> str:
    """Run ``code`` in a fresh Python process with ``mm`` open on the same store; returns stdout."""
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(ROOT)!r})
        sys.path.insert(0, {str(ROOT / 'tests')!r})
        from memory_stores import open_store
        from pathlib import Path
        from sonetto_desktop.memory.changes import Turn
        mm = open_store({kind!r}, Path({str(folder)!r}))
    """) + textwrap.dedent(code) + "\nmm.close()\n"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.fixture(params=BACKENDS)
def kind(request):
    return use_backend(request, request.param)


@pytest.fixture
def mm(kind, tmp_path):
    store = open_store(kind, tmp_path)
    yield store
    store.close()


def test_nothing_to_report_when_nobody_else_wrote(mm):
    seen: list[MemoryChange] = []
    mm.subscribe(seen.append)
    a = mm.add("小林喜欢猫", "品味")
    mm.update(a, "r", new_description="小林很喜欢猫")
    mm.all_items()
    assert mm.poll_external() == [] and mm.poll_external() == []
    assert [c.kind for c in seen] == ["add", "update"] and all(c.local for c in seen)


def test_another_process_add_update_delete_arrive_with_its_actor(mm, kind, tmp_path):
    keep = mm.add("小林住在成都", "身份")
    gone = mm.add("小林下周考试", "时效待办")
    mm.all_items()  # this instance has read the store (as the wall does at start)
    seen: list[MemoryChange] = []
    mm.subscribe(seen.append)
    new_id = other_process(kind, tmp_path, f"""
        new = mm.add("小林喜欢爵士乐", "音乐", actor="cli", reason="命令行添加")
        mm.update({keep!r}, "搬家了", new_description="小林搬到了上海", actor="mcp:cherry",
                  turn=Turn("t-42", "s-1", "我搬到上海了"))
        mm.delete({gone!r}, "考完了", actor="cli")
        print(new)
    """)
    found = mm.poll_external()
    # What the poll returns is what subscribers got from it. The YAML store's background rewrite of
    # memory.yaml (due 0.25 s after this process's writes) takes others' records in first when it runs
    # after theirs: then the poll finds only what came later, and subscribers still got each change once.
    assert found == (seen[len(seen) - len(found):] if kind == "yaml" else seen)
    by_kind = {c.kind: c for c in seen}
    assert len(seen) == 3 and set(by_kind) == {"add", "update", "delete"} and not any(c.local for c in seen)
    assert by_kind["add"].ids == (new_id,) and by_kind["add"].actor == "cli"
    assert by_kind["add"].state(new_id)["description"] == "小林喜欢爵士乐"
    update = by_kind["update"]
    assert (update.ids, update.actor, update.reason, update.turn_id) == ((keep,), "mcp:cherry", "搬家了", "t-42")
    assert update.state(keep)["description"] == "小林搬到了上海"
    assert by_kind["delete"].ids == (gone,) and by_kind["delete"].actor == "cli"
    assert by_kind["delete"].reason == "考完了"
    # the new state is what this instance now reads, and nothing is reported twice
    assert mm.get(keep).description == "小林搬到了上海" and new_id in mm.all_items()
    assert mm.poll_external() == []


def test_a_write_racing_another_process_loses_nothing(mm, kind, tmp_path):
    a = mm.add("甲", "瞬间")
    mm.all_items()
    seen: list[MemoryChange] = []
    mm.subscribe(seen.append)  # before the other process writes: whichever look takes its write in publishes it
    other_id = other_process(kind, tmp_path, 'print(mm.add("乙", "瞬间", actor="cli"))')
    b = mm.add("丙", "瞬间")  # before any poll: the write re-reads what the other process wrote
    mm.poll_external()
    assert set(mm.all_items()) == {a, other_id, b}
    assert [(c.kind, c.ids, c.local) for c in seen if c.ids != (b,)] == [("add", (other_id,), False)]


def test_many_foreign_changes_are_one_reload(mm, kind, tmp_path):
    mm.all_items()
    other_process(kind, tmp_path, """
        from sonetto_desktop.memory import MemoryItem
        mm.import_items({f"imp{i:05d}": MemoryItem(f"导入{i}", "瞬间") for i in range(300)}, actor="cli")
    """)
    found = mm.poll_external()
    # both stores keep a change log (SQLite's table, the YAML store's memory.yaml.log): one record
    # names every id of the import
    assert [c.kind for c in found] == ["import"] and len(found[0].ids) == 300
    assert mm.count() == 300


def test_a_foreign_trash_change_is_reported(mm, kind, tmp_path):
    a = mm.add("甲", "瞬间")
    mm.delete(a)
    mm.all_items()
    mm.list_trash()
    seen: list[MemoryChange] = []
    mm.subscribe(seen.append)
    other_process(kind, tmp_path, "mm.purge(actor='cli')")
    found = mm.poll_external()
    assert [c.kind for c in seen] == ["purge"]
    assert found == (seen[len(seen) - len(found):] if kind == "yaml" else seen)  # (see above)
    assert mm.list_trash() == []


def test_sqlite_commit_without_a_change_log_row_is_a_reload(tmp_path):
    import sqlite3

    mm = open_store("sqlite", tmp_path)
    try:
        a = mm.add("甲", "瞬间")
        assert mm.poll_external() == []  # our own write, already published
        conn = sqlite3.connect(store_path("sqlite", tmp_path))
        conn.execute("UPDATE memories SET description = '乙' WHERE id = ?", (a,))
        conn.commit()
        conn.close()
        assert [(c.kind, c.actor) for c in mm.poll_external()] == [("reload", "external")]
        assert mm.get(a).description == "乙"
    finally:
        mm.close()


def test_version_token_changes_with_every_write(mm, kind, tmp_path):
    first = mm.version_token()
    a = mm.add("甲", "瞬间")
    second = mm.version_token()
    mm.hit(a)
    third = mm.version_token()
    assert len({first, second, third}) == 3
    assert mm.version_token() == third  # and is stable while nothing changes
    other_process(kind, tmp_path, "mm.add('乙', '瞬间', actor='cli')")
    assert mm.version_token() != third


async def test_watcher_publishes_within_two_seconds(mm, kind, tmp_path):
    mm.all_items()
    seen: list[MemoryChange] = []
    mm.subscribe(seen.append)
    watcher = StoreWatcher(mm, interval=0.1)
    watcher.start()
    try:
        await asyncio.to_thread(other_process, kind, tmp_path, "mm.add('远方的记忆', '瞬间', actor='cli')")
        for _ in range(40):
            if seen:
                break
            await asyncio.sleep(0.05)
        assert [(c.kind, c.actor) for c in seen] == [("add", "cli")]
    finally:
        await watcher.stop()
    assert not watcher.running


def test_turn_provenance_is_kept_in_history_and_trash(mm):
    turn = Turn("turn-1", "sess-1", "我下周要考离散数学")
    a = mm.add("小林下周考离散数学", "时效待办", actor="agent", reason="用户提到考试", turn=turn)
    [created] = mm.get(a).history
    assert (created["turn_id"], created["session_id"], created["excerpt"]) == ("turn-1", "sess-1", "我下周要考离散数学")
    mm.delete(a, "考完了", actor="agent", turn=Turn("turn-2"))
    trash_entry = mm._load_trash()[a]
    assert trash_entry["turn_id"] == "turn-2" and trash_entry["actor"] == "agent"
