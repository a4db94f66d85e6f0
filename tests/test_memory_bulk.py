"""Bulk and theme operations (issue 12, capability 6): many memories as one action with one turn id,
skipping (and saying so) what cannot take part."""

from __future__ import annotations

from datetime import datetime, timedelta

from memory_stores import backend_store_fixture
from sonetto_desktop.memory import MemoryChange, MemoryOperations

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
