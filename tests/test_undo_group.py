"""An imported history is written as many turns (``imp-<id>-<seq>``, one per batch) and undone as
one (``undo_turn("imp-<id>")``): changes between its own batches are not conflicts, a later edit by
someone else is, a single batch id still means that batch alone, and other turn ids keep exact
matching. Every backend."""

from __future__ import annotations

import pytest

from memory_stores import backend_store_fixture
from sonetto_desktop.memory import MemoryOperations, Turn
from sonetto_desktop.memory.undo import NothingToUndo, UndoConflict, in_turn

mm = backend_store_fixture()


def _state(ops: MemoryOperations) -> tuple[dict, set]:
    items = {mid: (i.description, i.theme, i.hit, i.locked) for mid, i in ops.all_items().items()}
    return items, {row["id"] for row in ops.trash()}


def _batch(ops: MemoryOperations, seq: int) -> MemoryOperations:
    return ops.as_actor("import:chatgpt", Turn(f"imp-0badc0de-{seq:06d}"))


def test_in_turn_groups_only_import_ids():
    assert in_turn("imp-0badc0de-000003", "imp-0badc0de")
    assert in_turn("imp-0badc0de", "imp-0badc0de")
    assert not in_turn("imp-0badc0de-000003", "imp-0badc0d")
    assert not in_turn("imp-0badc0de-000003", "imp-0badc0de-00000")
    assert not in_turn("abc-1", "abc")  # a chat turn id is never a group
    assert not in_turn(None, "imp-0badc0de")


def test_an_import_is_undone_as_one_and_restores_the_store_exactly(mm):
    ops = MemoryOperations(mm)
    home = ops.add("用户住在成都", "身份").ids[0]
    todo = ops.add("用户周五交报告", "时效待办").ids[0]
    ops.set_locked(ops.add("用户的生日是3月2日", "身份").ids[0])
    before = _state(ops)
    first = _batch(ops, 0)
    cat = first.add("用户养了一只叫年糕的柯基", "品味").ids[0]
    first.update(home, description="用户在2024年5月搬到杭州", reason="搬家")
    second = _batch(ops, 1)
    second.update(cat, description="用户养了一只叫年糕的柯基，三岁", reason="补充")  # the group's own earlier memory
    second.delete(todo, reason="已过期")
    third = _batch(ops, 2)
    gone = third.add("用户喜欢跑步", "品味").ids[0]
    third.merge(cat, gone, "用户养了一只叫年糕的柯基，常一起晨跑", "品味", reason="合并")
    result = ops.undo_turn("imp-0badc0de")
    live, trash = _state(ops)
    assert live == before[0]  # every memory as it was, hit counts and locks included
    assert trash == {cat, gone}  # what the import created waits in the trash; the deleted to-do is back
    redo = ops.undo_turn(result.turn_id)  # undoing the undo brings the import back
    assert ops.get(home).description == "用户在2024年5月搬到杭州" and ops.get(cat).description.endswith("常一起晨跑")
    assert redo.undone == result.turn_id


def test_a_later_edit_blocks_the_group_undo_and_changes_nothing(mm):
    ops = MemoryOperations(mm)
    home = ops.add("用户住在成都", "身份").ids[0]
    _batch(ops, 0).update(home, description="用户住在杭州", reason="搬家")
    _batch(ops, 1).add("用户在学日语", "身份")
    ops.update(home, description="用户住在杭州西溪", reason="手动编辑")
    after = _state(ops)
    with pytest.raises(UndoConflict) as caught:
        ops.undo_turn("imp-0badc0de")
    assert list(caught.value.conflicts) == [home]
    assert _state(ops) == after


def test_one_batch_alone_is_still_one_turn(mm):
    ops = MemoryOperations(mm)
    a = _batch(ops, 0).add("用户在学日语", "身份").ids[0]
    b = _batch(ops, 1).add("用户在学吉他", "身份").ids[0]
    ops.undo_turn("imp-0badc0de-000001")
    assert ops.get(a).description == "用户在学日语"
    assert b in {row["id"] for row in ops.trash()}
    with pytest.raises(NothingToUndo):
        ops.undo_turn("imp-0badc0de-000002")  # no such batch
