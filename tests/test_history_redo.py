"""Undo you can steer (issue 38, item 4), below the window: an import undone can be redone, and undone
again, as often as the person changes their mind; one conversation of it can be undone alone; the
ledger follows every step (the chats count as imported exactly while their memories are there),
whether the window or ``sonetto memory undo`` took the step."""

from __future__ import annotations

import pytest

from sonetto_desktop.history_import.ledger import DONE, UNDONE, ImportLedger, ImportState, batch_turn_id
from sonetto_desktop.history_import.runner import (conversation_turns, count_by_conversation, count_changes, redo_import, undo_conversation,
                                                   undo_import)
from sonetto_desktop.memory.undo import UndoConflict
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
    ledger.save_batches(state.id, [{"seq": 0, "conversation": "c-move", "title": "搬家"},
                                   {"seq": 1, "conversation": "c-run", "title": "跑步"}])
    ledger.record(state.id, 0, ["k-move"])
    ledger.record(state.id, 1, ["k-run"])
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


def test_one_conversation_is_undone_alone_and_its_undo_taken_back(imported):
    ops, ledger, import_id = imported
    after = _texts(ops)
    assert [(cid, title) for cid, title, _ in ledger.conversations(import_id)] == [("c-move", "搬家"), ("c-run", "跑步")]
    assert count_by_conversation(ops, ledger, import_id) == {"c-move": (1, 1, 0), "c-run": (1, 0, 0)}
    # one conversation's count, as count_changes takes it (a TurnSet of its batches; was (0, 0, 0))
    assert count_changes(ops, conversation_turns(ledger, import_id, "c-move")) == (1, 1, 0)
    assert count_changes(ops, conversation_turns(ledger, import_id, "c-run")) == (1, 0, 0)

    result = undo_conversation(ops, ledger, import_id, "c-move")
    assert _texts(ops) == ["用户住在成都", "用户每天早上跑步"]  # its new memory gone, its change taken back
    state = ledger.get(import_id)
    assert state.status == DONE and state.undone_conversations == {"c-move": result.turn_id}
    assert ledger.imported_keys() == {"k-run"}  # its chats can be imported again

    back = ops.undo_turn(result.turn_id)  # ``sonetto memory undo <id>``, then the ledger is told
    ledger.note_undo(result.turn_id, back.turn_id)
    assert _texts(ops) == after and ledger.imported_keys() == {"k-move", "k-run"}
    assert ledger.get(import_id).undone_conversations == {}


def test_a_conversation_whose_memory_a_later_conversation_changed_asks_first(imported):
    ops, ledger, import_id = imported
    dog = next(mid for mid, i in ops.all_items().items() if i.description == "用户养了一只柯基")
    ops.as_actor("import:chatgpt", Turn(batch_turn_id(import_id, 1))).update(dog, description="用户养了两只柯基")
    with pytest.raises(UndoConflict) as refused:
        undo_conversation(ops, ledger, import_id, "c-move")
    assert [t.memory_id for t in refused.value.touched] == [dog] and ledger.get(import_id).undone_conversations == {}
    undo_conversation(ops, ledger, import_id, "c-move", rest=True)
    assert _texts(ops) == ["用户住在成都", "用户养了两只柯基", "用户每天早上跑步"]
    undone = undo_import(ops, ledger, import_id, rest=True)  # the whole import after: the rest goes
    assert _texts(ops) == ["用户住在成都"] and ledger.get(import_id).status == UNDONE and undone.turn_id


def test_an_import_made_before_conversations_were_kept_has_none_to_offer(tmp_path):
    ledger = ImportLedger(tmp_path / "memory.imports")
    ledger.save(ImportState("imp-00000000", "chatgpt", "ChatGPT", "old.zip", "e" * 64, status=DONE))
    assert ledger.conversations("imp-00000000") == []
    store = YamlMemoryManager(tmp_path / "memory.yaml")
    try:
        with pytest.raises(LookupError):
            undo_conversation(MemoryOperations(store), ledger, "imp-00000000", "c")
    finally:
        store.close()


def test_counting_what_an_import_left_reads_its_memories_not_the_whole_store(tmp_path):
    """Issue 37: counting an import's work (at its end, and for the dialog's "undo" confirmation) built
    every memory of the store (at 100,000: ~87 MB of Python objects and seconds holding the GIL); it
    reads the memories whose history names the import. Same counts, a small part of the memory."""
    import tracemalloc

    from sonetto_desktop.memory.item import MemoryItem
    from sonetto_desktop.memory.stores.sqlite import SqliteMemoryManager

    mm = SqliteMemoryManager(tmp_path / "memory.db")
    try:
        mm.import_items({f"m{i:05d}": MemoryItem(f"第{i}条：小林记下了一件关于第{i % 17}个朋友的小事。" * 3, "瞬间")
                         for i in range(4000)})
        ops = MemoryOperations(mm)
        for n in range(5):
            mm.add(f"导入的第{n}条", "品味", actor="import:chatgpt", turn=Turn(f"imp-aaaa1111-{n:06d}"))
        mm.update("m00007", "导入改的", new_description="改过的一条", actor="import:chatgpt",
                  turn=Turn("imp-aaaa1111-000001"))
        mm.delete("m00008", "导入删的", actor="import:chatgpt", turn=Turn("imp-aaaa1111-000002"))
        tracemalloc.start()
        try:
            counted = count_changes(ops, "imp-aaaa1111")
            _now, peak = tracemalloc.get_traced_memory()
            tracemalloc.reset_peak()
            everything = ops.all_items()
            _now, whole = tracemalloc.get_traced_memory()
            del everything
        finally:
            tracemalloc.stop()
        assert counted == (5, 1, 1)
        assert peak * 10 < whole, f"{peak / 1024:.0f} KB counting against {whole / 1024:.0f} KB for every memory"
    finally:
        mm.close()


def test_the_whole_import_undone_after_one_of_its_conversations_asks_nothing_and_counts_what_is_left(imported):
    """One conversation undone, then the whole import: what that undo had already put back was taken
    for cards the person changed since (UndoConflict naming them as "by user"), and the confirmation
    counted that conversation's memories still."""
    from sonetto_desktop.history_import.runner import preview_undo_import

    ops, ledger, import_id = imported
    undo_conversation(ops, ledger, import_id, "c-move")
    preview = preview_undo_import(ops, ledger, import_id)  # what the window's question says (undo16)
    assert preview.effects == {"trashed": 1} and not preview.kept  # 跑步's one memory
    undone = undo_import(ops, ledger, import_id)
    assert not undone.kept and _texts(ops) == ["用户住在成都"]
    assert ledger.get(import_id).status == UNDONE and ledger.imported_keys() == set()
    redo_import(ops, ledger, import_id)  # the import back as it was before its undo: c-move still undone
    assert _texts(ops) == ["用户住在成都", "用户每天早上跑步"] and ledger.imported_keys() == {"k-run"}


def test_the_reasons_an_undo_and_a_redo_keep_read_in_the_readers_language(imported):
    """The history dialog and the trash show a reason in the reader's language when it is one of the
    app's (memory/reasons.py): an English window showed "重做导入 imp-…" for an import redone."""
    from sonetto_desktop.memory.reasons import parse_reason
    from sonetto_desktop.presentation.reasons import render_reason

    ops, ledger, import_id = imported
    undo_conversation(ops, ledger, import_id, "c-run")
    undo_import(ops, ledger, import_id)
    redo_import(ops, ledger, import_id)
    reasons = {entry["reason"] for item in ops.all_items().values() for entry in item.history
               if import_id in str(entry.get("reason"))}
    reasons |= {row["reason"] for row in ops.trash() if import_id in str(row.get("reason"))}
    assert {r.split(" ")[0] for r in reasons} >= {"撤销导入", "重做导入"}, reasons  # (stored as before)
    for reason in reasons:
        assert parse_reason(reason) is not None, reason
        assert render_reason(reason, "en").startswith(("Undid", "Redid")), render_reason(reason, "en")
