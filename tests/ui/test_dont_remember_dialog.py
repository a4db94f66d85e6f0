"""The don't-remember list in the window (issue 12, capability 3): add, edit, remove, persisted."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication, QInputDialog

from sonetto_desktop.memory.dont_remember import DontRememberList
from sonetto_desktop.services import AppServices
from sonetto_desktop.ui.dialogs.dont_remember import DontRememberDialog
from test_services import settings_for


@pytest.fixture
async def services(tmp_path):
    opened = await AppServices.open(settings=settings_for(tmp_path), watch=False)
    yield opened
    await opened.close()


def runner(services):
    """The UI's operation runner over the services, as the app gives it to the dialog."""
    from sonetto_desktop.ui.memory_service import MemoryService

    return MemoryService(services)


async def answer(wait, dialog, task, text: str | None) -> None:
    await wait(lambda: isinstance(QApplication.activeModalWidget(), QInputDialog), message="the input box")
    box = QApplication.activeModalWidget()
    if text is None:
        box.reject()
    else:
        box.setTextValue(text)
        box.accept()
    await task


async def test_add_edit_remove_and_it_is_kept(qtbot, services, wait):
    services.dont_remember.add("我前任的名字", turn_id="t1")
    dialog = DontRememberDialog(runner(services))
    qtbot.addWidget(dialog)
    dialog.show()
    await dialog.loading
    assert [dialog.list.item(i).text() for i in range(dialog.list.count())] == ["我前任的名字"]

    await answer(wait, dialog, dialog._spawn(dialog.add_entry()), "  我的体重  ")
    dialog.list.setCurrentRow(0)
    await answer(wait, dialog, dialog._spawn(dialog.edit_entry()), "我前任的名字和联系方式")
    await answer(wait, dialog, dialog._spawn(dialog.add_entry()), None)  # cancelled: nothing added
    on_disk = [e.text for e in DontRememberList(services.dont_remember.path).entries()]
    assert on_disk == ["我前任的名字和联系方式", "我的体重"]

    dialog.list.setCurrentRow(1)
    await dialog.remove_entry()
    assert [e.text for e in DontRememberList(services.dont_remember.path).entries()] == ["我前任的名字和联系方式"]
    assert dialog.list.count() == 1


async def test_a_damaged_file_is_said_and_left_alone(qtbot, services):
    services.dont_remember.path.write_text("{not json", encoding="utf-8")
    dialog = DontRememberDialog(runner(services))
    qtbot.addWidget(dialog)
    await dialog.loading
    assert "dont_remember.json" in dialog.status.text() and dialog.list.count() == 0
    assert services.dont_remember.path.read_text(encoding="utf-8") == "{not json"


async def test_removing_an_entry_asks_first_naming_it(qtbot, services, wait):
    """移除 cannot be undone (the entry's text, from a chat message, is gone, and Sonetto may store it
    again): it asks first, naming the entry, with 取消 as the default answer."""
    from PySide6.QtWidgets import QMessageBox, QPushButton

    services.dont_remember.add("我前任的名字", turn_id="t1")
    services.dont_remember.add("我的体重")
    dialog = DontRememberDialog(runner(services))
    qtbot.addWidget(dialog)
    dialog.show()
    await dialog.loading
    dialog.list.setCurrentRow(0)
    dialog.remove_button.click()
    box = next(b for b in dialog.findChildren(QMessageBox, "DestructiveQuestion") if b.isVisible())
    assert "我前任的名字" in box.text()
    assert box.defaultButton() is box.button(QMessageBox.StandardButton.Cancel)
    assert len(services.dont_remember.entries()) == 2  # nothing removed yet
    box.findChild(QPushButton, "DestructiveConfirm").click()
    await wait(lambda: dialog.list.count() == 1)
    assert [e.text for e in DontRememberList(services.dont_remember.path).entries()] == ["我的体重"]
