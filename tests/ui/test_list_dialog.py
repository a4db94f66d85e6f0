"""The list dialogs' one skeleton (issue 39, item 5): trash, review inbox, "don't remember" and contradictions
each own a ``ListDialogFrame`` and keep only their texts, rows and actions; the frame lays them out the
same way, lets only a default button answer Enter, and ends the dialog's tasks when it closes."""

from __future__ import annotations

import asyncio
import gc
import weakref

from PySide6.QtWidgets import QDialog, QLabel

from sonetto_desktop.ui.widgets.list_dialog import ListDialogFrame


def _order(dialog: QDialog) -> list[object]:
    layout = dialog.layout()
    items = []
    for index in range(layout.count()):
        item = layout.itemAt(index)
        if item.widget() is not None:
            items.append(item.widget())
        else:  # the button row: its buttons, the stretch as "|"
            row = item.layout()
            items.append([row.itemAt(i).widget() or "|" for i in range(row.count())])
    return items


async def test_the_frame_lays_out_heading_list_notes_buttons_status_close(qapp):
    dialog = QDialog()
    frame = ListDialogFrame(dialog, scope="test-list", heading="加载中…", list_name="Rows", status="RowsStatus")
    restore = frame.action("恢复", default=True)
    purge = frame.action("永久删除", name="Purge")
    empty = frame.action("清空", whole_list=True)
    note = QLabel("提示", dialog)
    frame.lay_out(notes=[note])
    assert _order(dialog) == [frame.heading, frame.list, note, [restore, purge, "|", empty], frame.status,
                              frame.close_box]
    assert frame.list.objectName() == "Rows" and frame.status.objectName() == "RowsStatus"
    assert purge.objectName() == "Purge"
    assert restore.isDefault() and restore.autoDefault()
    assert not any(button.isDefault() or button.autoDefault() for button in (purge, empty))  # Enter never purges
    frame.say("出错了")
    assert frame.status.text() == "出错了" and frame.heading.text() == "加载中…"
    dialog.deleteLater()


async def test_without_a_status_line_say_writes_the_heading(qapp):
    dialog = QDialog()
    frame = ListDialogFrame(dialog, scope="test-list", heading="加载中…")
    frame.lay_out()
    assert frame.status is None
    frame.say("读不了")
    assert frame.heading.text() == "读不了"
    dialog.deleteLater()


async def test_closing_the_dialog_ends_its_tasks(qapp):
    dialog = QDialog()
    frame = ListDialogFrame(dialog, scope="test-list", heading="")
    frame.lay_out()
    task = frame.spawn(asyncio.Event().wait())
    await asyncio.sleep(0)
    dialog.reject()
    await asyncio.gather(task, return_exceptions=True)
    assert task.cancelled()
    dialog.deleteLater()


def test_the_frame_does_not_hold_its_dialog(qapp):
    """The dialog owns the frame; the frame holds the dialog weakly, so the two make no cycle: they go by
    reference counting alone, with the collector off."""
    gc.disable()
    try:
        dialog = QDialog()
        dialog.frame = ListDialogFrame(dialog, scope="test-list", heading="")
        dialog.frame.lay_out()
        gone = weakref.ref(dialog.frame)
        del dialog
        assert gone() is None
    finally:
        gc.enable()


def test_the_four_list_dialogs_are_built_on_the_frame():
    import inspect

    from sonetto_desktop.ui.dialogs import conflicts, dont_remember, review, trash

    for module in (conflicts, dont_remember, review, trash):
        source = inspect.getsource(module)
        assert "ListDialogFrame(" in source, module.__name__
        assert "QDialogButtonBox" not in source and "QHBoxLayout" not in source, module.__name__  # no own skeleton
