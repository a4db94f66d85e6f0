"""Bulk and theme operations (issue 12, capability 6): many memories as one action with one turn id,
skipping (and saying so) what cannot take part."""

from __future__ import annotations

from datetime import datetime, timedelta

from memory_stores import backend_store_fixture
from sonetto_desktop.memory import MemoryChange, MemoryOperations
from sonetto_desktop.memory.item import MemoryItem

mm = backend_store_fixture()


def test_move_and_delete_many_are_one_action_each(mm):
    ops = MemoryOperations(mm)
    ids = [ops.add(f"用户喜欢{x}", "品味").ids[0] for x in ("猫", "狗", "鸟")]
    seen: list[MemoryChange] = []
    mm.subscribe(seen.append)
    moved = ops.move_many([*ids, "gone0000"], "动物")
    assert {c.kind for c in moved.changes} == {"update"} and moved.skipped == {"gone0000": "not found"}
    assert {c.turn_id for c in seen} == {moved.turn_id} and moved.turn_id.startswith("bulk-")
    assert {mm.get(i).theme for i in ids} == {"动物"}
    gone = ops.delete_many(ids[:2])
    assert len(gone.changes) == 2 and gone.turn_id != moved.turn_id
    assert {row["id"] for row in mm.list_trash()} == set(ids[:2])
    assert all(row["turn_id"] == gone.turn_id for row in mm.list_trash())


def test_an_app_skips_locked_memories_and_the_person_can_lock_many(mm):
    person = MemoryOperations(mm)
    a, b = (person.add(t, "身份").ids[0] for t in ("用户对花生过敏", "用户住在杭州"))
    locked = person.lock_many([a, b])
    assert len(locked.changes) == 2 and mm.get(a).locked and mm.get(b).locked
    result = person.as_actor("mcp:cherry").delete_many([a, b])
    assert result.changes == [] and result.skipped == {a: "locked", b: "locked"}
    assert mm.count() == 2


def test_rename_and_merge_themes(mm):
    ops = MemoryOperations(mm)
    ops.add("用户喜欢周杰伦", "音乐")
    ops.add("用户喜欢爵士乐", "歌曲")
    ops.add("用户住在杭州", "身份")
    renamed = ops.rename_theme("歌曲", "音乐")  # into an existing theme: the two merge
    assert len(renamed.changes) == 1
    groups = mm.get_memories_grouped()
    assert set(groups) == {"音乐", "身份"} and len(groups["音乐"]) == 2
    assert ops.rename_theme("不存在", "别的").changes == []


def test_forget_what_sonetto_wrote_today(mm):
    person = MemoryOperations(mm)
    mine = person.add("用户住在杭州", "身份").ids[0]
    agent = person.as_actor("agent")
    written = [agent.add(t, "瞬间").ids[0] for t in ("2026年12月2日用户在喝咖啡", "用户最近在学吉他")]
    today = datetime.now().replace(hour=0, minute=0, second=0, microsecond=0)
    result = person.forget_written_by("agent", today)
    assert set(result.ids) == set(written) and set(mm.all_items()) == {mine}
    assert person.forget_written_by("agent", today + timedelta(days=1)).changes == []


def _written(text: str, actor: str, when: str) -> MemoryItem:
    return MemoryItem(text, "瞬间", history=[{"action": "create", "actor": actor, "time": when, "turn_id": "t-old",
                                             "description": text, "theme": "瞬间"}], latest_update_time=when)


def test_forget_what_sonetto_wrote_today_reads_only_the_memories_updated_since(mm, monkeypatch):
    """A memory is last updated no earlier than it was created: only those updated today are read whole
    (at 100,000 memories, "today" was every memory with its history)."""
    earlier = (datetime.now() - timedelta(days=3)).isoformat(timespec="seconds")
    mm.import_items({f"old{i:05d}": _written(f"用户三天前提到的第{i}件事", "agent", earlier) for i in range(300)})
    agent = MemoryOperations(mm).as_actor("agent")
    written = [agent.add(t, "瞬间").ids[0] for t in ("用户今天在喝咖啡", "用户最近在学吉他")]
    asked: list[str] = []
    real = mm.items_of

    def items_of(ids):
        ids = list(ids)
        asked.extend(ids)
        return real(ids)

    monkeypatch.setattr(mm, "items_of", items_of)
    monkeypatch.setattr(mm, "all_items", lambda: (_ for _ in ()).throw(AssertionError("read every memory")))
    today = datetime.now().replace(hour=0, minute=0, second=0, microsecond=0)
    result = MemoryOperations(mm).forget_written_by("agent", today)
    assert set(result.ids) == set(written) and sorted(asked) == sorted(written)
    assert mm.count() == 300


def test_forget_today_reads_times_written_with_their_offset(mm):
    """A memory.yaml edited by hand or written by another program may give its times an offset: they
    are compared as local times, not refused (a naive and an aware time do not compare)."""
    now = datetime.now().astimezone()
    mm.import_items({"aware001": _written("用户今天去了西湖", "agent", now.isoformat(timespec="seconds")),
                     "aware002": _written("用户上周去了灵隐寺", "agent",
                                          (now - timedelta(days=7)).isoformat(timespec="seconds"))})
    today = datetime.now().replace(hour=0, minute=0, second=0, microsecond=0)
    assert MemoryOperations(mm).forget_written_by("agent", today).ids == ["aware001"]


def test_forget_today_reads_a_time_at_the_calendars_edge(mm):
    """A time of year 1 with an offset cannot be moved to local time (OverflowError): the whole
    'delete what Sonetto wrote today' failed over it."""
    now = datetime.now().astimezone()
    mm.import_items({"aware001": _written("用户今天去了西湖", "agent", now.isoformat(timespec="seconds")),
                     "edge0001": _written("很久以前的一条", "agent", "0001-01-01T00:00:00+01:00")})
    today = datetime.now().replace(hour=0, minute=0, second=0, microsecond=0)
    assert MemoryOperations(mm).forget_written_by("agent", today).ids == ["aware001"]


def test_a_bulk_of_hundreds_is_one_action_across_its_commits_and_skips_only_what_cannot_take_part(mm):
    """600 memories (more than one commit's worth), a locked one and a gone one among them: the rest all
    go, under one turn id, and one undo brings every one back."""
    from sonetto_desktop.memory.bulk import STEPS_PER_COMMIT

    person = MemoryOperations(mm)
    ids = [person.add(f"用户的第{n}条记忆", "导入").ids[0] for n in range(600)]
    assert len(ids) > 2 * STEPS_PER_COMMIT
    person.lock_many([ids[300]])
    result = person.as_actor("mcp:cherry").delete_many([*ids[:400], "gone0000", *ids[400:]])
    assert result.skipped == {ids[300]: "locked", "gone0000": "not found"}
    assert len(result.changes) == 599 and {c.turn_id for c in result.changes} == {result.turn_id}
    assert mm.count() == 1 and len(mm.list_trash()) == 599
    person.undo_turn(result.turn_id)
    assert mm.count() == 600 and mm.list_trash() == []


def test_a_bulk_action_on_the_yaml_store_waits_for_the_disk_once_per_commit_not_once_per_memory(tmp_path, monkeypatch):
    """Each commit of the YAML store's log is made durable (fsync): one per memory made deleting 2,100
    take 3.7 s of a quiet machine at 5,000 memories; the steps are committed a few hundred at a time."""
    import os

    from sonetto_desktop.memory.stores.yaml.store import YamlMemoryManager

    store = YamlMemoryManager(tmp_path / "memory.yaml", flush_delay=None)
    try:
        ops = MemoryOperations(store)
        ids = [ops.add(f"用户的第{n}条记忆", "导入").ids[0] for n in range(600)]
        synced: list[int] = []
        real_fsync = os.fsync
        monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd))[1])
        result = ops.delete_many(ids)
        assert len(result.changes) == 600 and store.count() == 0
        assert len(synced) <= 12, f"{len(synced)} waits for the disk for one action of 600"
    finally:
        store.close()
