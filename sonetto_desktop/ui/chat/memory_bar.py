"""ChatMemoryBar: above the conversation, which memory mode the current chat is in (issue 12, item 5).

Always says it: a temporary chat ("临时对话：不回忆、不记住，关闭后不保存"), a chat with recall or writing
switched off, or — quietly — that memory is on. Its 记忆 menu switches recall and writing for this chat
(kept by the engine in the session database); a temporary chat cannot be switched on.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QHBoxLayout, QLabel, QMenu, QToolButton, QWidget

from ..widgets.owner import Owner
from .controller import ChatController


def memory_mode(info: Any) -> str:
    """temporary | off | no_recall | no_write | on for a session (``SessionInfo``); none: no chat."""
    if info is None:
        return "none"
    if info.temporary:
        return "temporary"
    if not info.recall and not info.write:
        return "off"
    if not info.recall:
        return "no_recall"
    return "no_write" if not info.write else "on"


class ChatMemoryBar(QWidget):
    mode_changed = Signal(str)  # the current chat's memory mode (see memory_mode)
    _spawn = Owner()  # the panel's method, held weakly: the panel and its bar form no cycle (widgets/owner.py)

    def __init__(self, controller: ChatController, spawn: Callable[[Coroutine[Any, Any, Any]], Any],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ChatMemoryBar")
        self._controller = controller
        self._spawn = spawn
        row = QHBoxLayout(self)
        row.setContentsMargins(12, 4, 8, 4)
        self.label = QLabel(self)
        self.label.setObjectName("ChatMemoryMode")
        self.label.setWordWrap(True)
        self.menu_button = QToolButton(self)
        self.menu_button.setText(self.tr("记忆"))
        self.menu_button.setAccessibleName(self.tr("这个对话如何使用记忆"))
        self.menu_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.menu_button.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        menu = QMenu(self.menu_button)
        self.recall_action = QAction(self.tr("回复前回忆相关的记忆"), menu)
        self.recall_action.setCheckable(True)
        self.write_action = QAction(self.tr("把这次对话写进记忆"), menu)
        self.write_action.setCheckable(True)
        self.recall_action.toggled.connect(lambda on: self._switch(recall=on))
        self.write_action.toggled.connect(lambda on: self._switch(write=on))
        menu.addAction(self.recall_action)
        menu.addAction(self.write_action)
        self.menu_button.setMenu(menu)
        row.addWidget(self.label, 1)
        row.addWidget(self.menu_button)
        controller.sessions_changed.connect(self._on_controller_changed)  # bound: dropped with this bar
        controller.current_session_changed.connect(self._on_controller_changed)
        self.refresh()

    @property
    def mode(self) -> str:
        """temporary | off | no_recall | no_write | on | none (no chat yet)."""
        return str(self.property("mode") or "")

    def _on_controller_changed(self, *_: object) -> None:
        self.refresh()

    def refresh(self) -> None:
        info = self._controller.current_session
        mode = memory_mode(info)
        text = {
            "none": "",
            "temporary": self.tr("临时对话：不回忆、不记住，关闭后不保存"),
            "off": self.tr("这个对话不使用记忆：不回忆，也不写入"),
            "no_recall": self.tr("这个对话不回忆记忆（仍会记住新内容）"),
            "no_write": self.tr("这个对话不写入记忆（仍会回忆）"),
            "on": self.tr("记忆已开启"),
        }[mode]
        changed = mode != self.mode
        self.setProperty("mode", mode)
        self.label.setText(text)
        for action, on in ((self.recall_action, info.recall if info else True),
                           (self.write_action, info.write if info else True)):
            action.blockSignals(True)
            action.setChecked(bool(on))
            action.setEnabled(info is not None and not info.temporary)
            action.blockSignals(False)
        self.menu_button.setEnabled(info is not None and not info.temporary)
        self.setVisible(info is not None)
        if changed:
            self.mode_changed.emit(mode)

    def _switch(self, *, recall: bool | None = None, write: bool | None = None) -> None:
        session_id = self._controller.current_session_id
        if session_id:
            self._spawn(self._controller.set_memory(session_id, recall=recall, write=write))
