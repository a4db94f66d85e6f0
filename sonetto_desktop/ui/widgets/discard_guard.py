"""Closing a form with unsaved changes asks first.

A dialog that edits something calls ``guard_reject(dialog, is_dirty, really_reject)`` from its
``reject()``: Esc, the window's close button and 取消 all arrive there (``QDialog.closeEvent`` calls
``reject``). An unchanged form closes at once; a changed one asks "放弃修改？" with 继续编辑 as the
default and escape button, so an Enter or a second Esc never throws typed text away.

The question is one child box per dialog, reused (it goes when the dialog goes).
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QDialog, QMessageBox



def discard_question(dialog: QDialog, discard: Callable[[], None]) -> QMessageBox:
    """The dialog's "放弃修改？" box (made once); ``discard`` runs only when the person confirms."""
    box = dialog.findChild(QMessageBox, "DiscardQuestion")
    if box is not None:
        return box
    box = QMessageBox(QMessageBox.Icon.Question, QCoreApplication.translate("DiscardGuard", "放弃修改？"), QCoreApplication.translate("DiscardGuard", "你做的修改还没有保存，关闭后会丢失。"),
                      QMessageBox.StandardButton.NoButton, dialog)
    box.setObjectName("DiscardQuestion")
    drop = box.addButton(QCoreApplication.translate("DiscardGuard", "放弃修改"), QMessageBox.ButtonRole.DestructiveRole)
    drop.setObjectName("DiscardConfirm")
    keep = box.addButton(QCoreApplication.translate("DiscardGuard", "继续编辑"), QMessageBox.ButtonRole.RejectRole)
    keep.setObjectName("DiscardKeep")
    box.setDefaultButton(keep)
    box.setEscapeButton(keep)
    box.buttonClicked.connect(lambda button: discard() if button.objectName() == "DiscardConfirm" else None)
    return box


def guard_reject(dialog: QDialog, is_dirty: Callable[[], bool], really_reject: Callable[[], None]) -> bool:
    """From ``dialog.reject()``: reject now when nothing changed (returns True), else ask (False)."""
    if not is_dirty():
        really_reject()
        return True
    box = discard_question(dialog, really_reject)
    if not box.isVisible():
        box.open()
    return False
