"""The input box with an input method composing (pinyin): Enter confirms the candidate, never sends."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QInputMethodEvent

from sonetto_desktop.ui.chat.composer import Composer


def test_enter_while_an_input_method_composes_does_not_send(qtbot):
    """Enter (or Shift+Enter) reaching the input while pinyin is being composed neither sends nor
    breaks the line under the candidate: the message was '我想说\n你好'."""
    composer = Composer()
    qtbot.addWidget(composer)
    composer.show()
    sent = []
    composer.send_requested.connect(sent.append)
    box = composer.input
    box.setFocus()
    box.setPlainText("我想说")
    cursor = box.textCursor()
    cursor.movePosition(cursor.MoveOperation.End)
    box.setTextCursor(cursor)
    QCoreApplication.sendEvent(box, QInputMethodEvent("nihao", []))  # composing "nihao"
    qtbot.keyClick(box, Qt.Key.Key_Return)
    qtbot.keyClick(box, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    assert sent == []
    commit = QInputMethodEvent("", [])
    commit.setCommitString("你好")
    QCoreApplication.sendEvent(box, commit)
    assert box.toPlainText() == "我想说你好"
    qtbot.keyClick(box, Qt.Key.Key_Return)
    assert sent == ["我想说你好"]
