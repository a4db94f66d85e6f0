"""Awaitable dialogs: ``result = await execute_dialog(dialog)`` opens the dialog window-modal (``open()``,
never a nested ``exec()`` loop under qasync) and resumes the coroutine when it is finished.

A coroutine reads straight through ("ask, then act on the answer") instead of a chain of callbacks,
each guarded against the dialog having been deleted meanwhile. ``destructive_question`` asks before
what cannot be undone, with the safe answer as the default; ``Question`` asks, awaitably, before a
change that can be taken back.
"""

from __future__ import annotations

import asyncio
from typing import Callable

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QDialog, QMessageBox, QPushButton, QWidget


async def execute_dialog(dialog: QDialog) -> int:
    """Open ``dialog`` and return its result code once it is finished (``QDialog.Rejected`` if it is
    destroyed first). The dialog is not deleted here; give it ``WA_DeleteOnClose`` if it should be."""
    future: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    def finished(code: int) -> None:
        if not future.done():
            future.set_result(int(code))

    def destroyed(*_: object) -> None:
        if not future.done():
            future.set_result(int(QDialog.DialogCode.Rejected))

    dialog.finished.connect(finished)
    dialog.destroyed.connect(destroyed)
    dialog.open()
    return await future


def destructive_question(parent: QWidget, title: str, text: str, confirm: str,
                         on_confirm: Callable[[], object]) -> QMessageBox:
    """Ask before something that cannot be undone. The safe answer (取消) is the default and the
    escape button, so Enter or Esc never confirms; ``on_confirm`` runs only on an explicit click of
    ``confirm``. The box is opened window-modal; it is one child of ``parent``, reused, and goes
    when ``parent`` goes."""
    box = parent.findChild(QMessageBox, "DestructiveQuestion")
    if box is None:
        box = QMessageBox(QMessageBox.Icon.Warning, "", "", QMessageBox.StandardButton.NoButton, parent)
        box.setObjectName("DestructiveQuestion")
        box.setTextFormat(Qt.TextFormat.PlainText)  # the question may quote memory text: data, never markup
        yes = box.addButton("", QMessageBox.ButtonRole.DestructiveRole)
        yes.setObjectName("DestructiveConfirm")
        yes.setAutoDefault(False)
        cancel = box.addButton(QMessageBox.StandardButton.Cancel)
        cancel.setText(QCoreApplication.translate("Dialogs", "取消"))
        box.setDefaultButton(cancel)
        box.setEscapeButton(cancel)
    else:
        box.buttonClicked.disconnect()
    box.setWindowTitle(title)
    box.setText(text)
    box.findChild(QPushButton, "DestructiveConfirm").setText(confirm)
    box.setDefaultButton(box.button(QMessageBox.StandardButton.Cancel))
    box.buttonClicked.connect(lambda button: on_confirm() if button.objectName() == "DestructiveConfirm" else None)
    box.open()
    return box


class Question:
    """Ask before a change (``await question.answer()``: True only on a click of ``confirm``). 取消 is
    the default and the escape button, so Enter or Esc never confirms. ``box`` and ``confirm`` are
    public (tests click them); the box deletes itself when it closes."""

    def __init__(self, parent: QWidget, title: str, text: str, confirm: str,
                 icon: QMessageBox.Icon = QMessageBox.Icon.Question) -> None:
        self.box = QMessageBox(icon, title, "", QMessageBox.StandardButton.NoButton, parent)
        self.box.setTextFormat(Qt.TextFormat.PlainText)  # the question may quote memory text: data, never markup
        self.box.setText(text)
        self.confirm = self.box.addButton(confirm, QMessageBox.ButtonRole.DestructiveRole)
        cancel = self.box.addButton(QCoreApplication.translate("Dialogs", "取消"), QMessageBox.ButtonRole.RejectRole)
        self.box.setDefaultButton(cancel)
        self.box.setEscapeButton(cancel)
        self.box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self._chosen: list[bool] = []  # the box may be gone when it returns: its answer is kept here
        self.confirm.clicked.connect(lambda: self._chosen.append(True))

    async def answer(self) -> bool:
        await execute_dialog(self.box)
        return bool(self._chosen)
