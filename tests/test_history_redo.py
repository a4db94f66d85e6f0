"""Undo you can steer (issue 38, item 4), below the window: an import undone can be redone, and undone
again, as often as the person changes their mind; the ledger follows every step (the import's chats
count as imported exactly while its memories are there), whether the window or ``sonetto memory undo``
took the step."""

from __future__ import annotations

import pytest

from sonetto_desktop.history_import.ledger import DONE, UNDONE, ImportLedger, ImportState, batch_turn_id
from sonetto_desktop.history_import.runner import count_changes, redo_import, undo_import
from sonetto_desktop.memory import YamlMemoryManager
from sonetto_desktop.memory.changes import Turn
from sonetto_desktop.memory.operations import MemoryOperations


@pytest.fixture
def imported(tmp_path):
    store = YamlMemoryManager(tmp_path / "memory.yaml")
    ops = MemoryOperations(store)
    mine = ops.add("用户住在成都", "地点与路径").ids[0]
    ledger = ImportLedger(tmp_path / "memory.imports")
    state = ImportState("imp-0123abcd", "chatgpt", "ChatGPT", "export.zip", "d" * 64, status=DONE)
    ledger.save(state)
    first = ops.as_actor("import:chatgpt", Turn(batch_turn_id(state.id, 0), origin="ChatGPT「搬家」· 2024-05-01"))
    first.add("用户养了一只柯基", "品味")
    first.update(mine, description="用户住在杭州")
    ops.as_actor("import:chatgpt", Turn(batch_turn_id(state.id, 1))).add("用户每天早上跑步", "身份")
    yield ops, ledger, state.id
    store.close()


def _texts(ops) -> list[str]:
    return sorted(i.description for i in ops.all_items().values())


def test_an_import_is_undone_redone_and_undone_again(imported):
    ops, ledger, import_id = imported
    after = _texts(ops)
    assert count_changes(ops, import_id) == (2, 1, 0)

    undone = undo_import(ops, ledger, import_id)
    assert _texts(ops) == ["用户住在成都"]
    assert ledger.get(import_id).status == UNDONE and ledger.get(import_id).undone_by == undone.turn_id

    redone = redo_import(ops, ledger, import_id)
    assert _texts(ops) == after
    state = ledger.get(import_id)
    assert state.status == DONE and state.undone_by is None and state.redone_by == redone.turn_id
    assert count_changes(ops, import_id) == (2, 1, 0)  # what the next confirmation will say

    again = undo_import(ops, ledger, import_id)  # (the import's own turn is touched by the redo: its redo is undone)
    assert _texts(ops) == ["用户住在成都"]
    assert ledger.get(import_id).status == UNDONE and ledger.get(import_id).undone_by == again.turn_id
    redo_import(ops, ledger, import_id)
    assert _texts(ops) == after and ledger.get(import_id).status == DONE


def test_redo_of_an_import_not_undone_is_refused(imported):
    ops, ledger, import_id = imported
    with pytest.raises(LookupError):
        redo_import(ops, ledger, import_id)
    assert ledger.get(import_id).status == DONE


def test_the_command_lines_undo_of_a_redo_keeps_the_ledger_right(imported, tmp_path):
    """``sonetto memory undo <the redo's id>`` (what the window's redo prints) marks the import undone."""
    ops, ledger, import_id = imported
    undo_import(ops, ledger, import_id)
    redone = redo_import(ops, ledger, import_id)
    result = ops.undo_turn(redone.turn_id)  # as ``sonetto memory undo`` does, then it tells the ledger
    state = ImportLedger(ledger.folder).note_undo(redone.turn_id, result.turn_id)
    assert state is not None and state.status == UNDONE and _texts(ops) == ["用户住在成都"]
