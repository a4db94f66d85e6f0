"""Before an undo the person is asked with what it will really do (undo16, item 1): ``preview_undo``
says which memories an undo keeps (changed since) and what it does to the rest, changes nothing, and
gives the numbers the undo then applies — for an import, a set of its batches with an undo among them
(one conversation undone on its own), on every backend."""

from __future__ import annotations

from pathlib import Path

from memory_stores import backend_store_fixture
from sonetto_desktop.memory import MemoryOperations, Turn
from sonetto_desktop.memory.undo import TurnSet, turn_texts

mm = backend_store_fixture()


def _state(ops: MemoryOperations) -> tuple[dict, set]:
    items = {mid: (i.description, i.theme, i.hit, i.locked, i.pinned, len(i.history)) for mid, i in ops.all_items().items()}
    return items, {row["id"] for row in ops.trash()}


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file() and "yaml" in p.name}


def test_the_preview_says_what_the_undo_then_does_and_changes_nothing(mm, tmp_path):
    ops = MemoryOperations(mm)
    home = ops.add("用户住在成都", "身份").ids[0]
    batch = [ops.as_actor("import:chatgpt", Turn(f"imp-0badc0de-{seq:06d}")) for seq in range(3)]
    made = [batch[n % 3].add(f"导入的第{n}条", "品味").ids[0] for n in range(6)]
    batch[1].update(home, description="用户住在杭州", reason="搬家")
    ops.update(made[0], description="导入的第0条（我改过）")  # the person, after the import
    before, files = _state(ops), _files(tmp_path)

    preview = ops.preview_undo("imp-0badc0de")
    assert [t.memory_id for t in preview.kept] == [made[0]]
    assert preview.kept[0].why == "edited" and preview.kept[0].description == "导入的第0条（我改过）"
    assert preview.effects == {"trashed": 5, "reverted": 1} and preview.rest == 6
    assert _state(ops) == before and _files(tmp_path) == files  # nothing written

    result = ops.undo_turn("imp-0badc0de", keep_touched=True)
    assert [t.memory_id for t in result.kept] == [t.memory_id for t in preview.kept]
    assert result.effects == preview.effects
    assert set(ops.all_items()) == {home, made[0]} and ops.get(home).description == "用户住在成都"


def test_a_set_of_batches_with_an_undo_among_them_is_previewed_as_undone(mm):
    """The import's undo after one conversation was undone on its own: its batches and that undo, as one."""
    ops = MemoryOperations(mm)
    batch = [ops.as_actor("import:chatgpt", Turn(f"imp-0badc0de-{seq:06d}")) for seq in range(12)]
    made = {seq: batch[seq].add(f"第{seq}批写的", "品味").ids[0] for seq in range(12)}
    first = ops.undo_turn(TurnSet("imp-0badc0de/c1", ["imp-0badc0de-000000", "imp-0badc0de-000011"]))
    ops.update(made[5], description="第5批写的（我改过）")
    whole = TurnSet("imp-0badc0de", [*(f"imp-0badc0de-{seq:06d}" for seq in range(12)), first.turn_id])
    assert turn_texts(whole) == ["imp-0badc0de-0000", first.turn_id]  # (not "": every memory)

    preview = ops.preview_undo(whole)
    assert [t.memory_id for t in preview.kept] == [made[5]] and preview.effects == {"trashed": 9}
    result = ops.undo_turn(whole, keep_touched=True)
    assert result.effects == preview.effects and set(ops.all_items()) == {made[5]}


def test_nothing_to_undo_previews_empty(mm):
    ops = MemoryOperations(mm)
    ops.add("用户住在成都", "身份")
    preview = ops.preview_undo("imp-00000000")
    assert preview.kept == [] and preview.effects == {} and preview.rest == 0
