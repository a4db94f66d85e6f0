"""ChatPanel: the session list (new / rename / delete) beside the conversation and the composer.

Holds no chat data: sessions and turns come from the :class:`ChatController`'s signals.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QMessageBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)
from qasync import asyncSlot

from sonetto_desktop.agent.sessions import DEFAULT_TITLE

from .chat_controller import ChatController
from .chat_view import ChatView
from .composer import Composer
from .icons import icon
from .message_bubble import MessageBubble

SESSION_PANE_WIDTH = 210
ID_ROLE = Qt.ItemDataRole.UserRole


class ChatPanel(QWidget):
    memory_activated = Signal(str)

    def __init__(self, controller: ChatController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self._reply: MessageBubble | None = None
        self._delete_box: QMessageBox | None = None
        self._filling = False

        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self._build_session_pane())

        conversation = QWidget(self)
        column = QVBoxLayout(conversation)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        self.view = ChatView(conversation)
        self.view.memory_clicked.connect(self.memory_activated)
        self.view.retry_requested.connect(self._on_retry_requested)
        self.composer = Composer(conversation)
        self.composer.send_requested.connect(self._on_send_requested)
        self.composer.stop_requested.connect(self.controller.stop)
        column.addWidget(self.view, 1)
        column.addWidget(self.composer)
        layout.addWidget(conversation, 1)

        c = controller
        c.sessions_changed.connect(self._on_sessions_changed)
        c.current_session_changed.connect(self._on_current_session_changed)
        c.transcript_loaded.connect(self._on_transcript_loaded)
        c.turn_started.connect(self._on_turn_started)
        c.memories_recalled.connect(self._on_memories_recalled)
        c.token_received.connect(self._on_token_received)
        c.tool_started.connect(self._on_tool_started)
        c.tool_finished.connect(self._on_tool_finished)
        c.reply_finished.connect(self._on_reply_finished)
        c.reply_failed.connect(self._on_reply_failed)
        c.busy_changed.connect(self.composer.set_busy)
        c.ready_changed.connect(self.composer.set_ready)
        self.composer.set_ready(c.ready)

    def _build_session_pane(self) -> QWidget:
        pane = QWidget(self)
        pane.setObjectName("SessionPane")
        pane.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        pane.setFixedWidth(SESSION_PANE_WIDTH)
        column = QVBoxLayout(pane)
        column.setContentsMargins(8, 10, 8, 8)
        column.setSpacing(6)
        header = QHBoxLayout()
        title = QLabel(self.tr("对话"), pane)
        title.setObjectName("PaneTitle")
        header.addWidget(title, 1)
        self.new_button = self._tool_button(pane, "new_session", self.tr("新对话"), self.new_session)
        self.rename_button = self._tool_button(pane, "rename", self.tr("重命名"), self.start_rename)
        self.delete_button = self._tool_button(pane, "delete", self.tr("删除对话"), self.confirm_delete)
        for button in (self.new_button, self.rename_button, self.delete_button):
            header.addWidget(button)
        column.addLayout(header)
        self.session_list = QListWidget(pane)
        self.session_list.setObjectName("SessionList")
        self.session_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.session_list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.session_list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.session_list.customContextMenuRequested.connect(self._on_session_menu)
        self.session_list.currentItemChanged.connect(self._on_current_item_changed)
        self.session_list.itemChanged.connect(self._on_item_changed)
        column.addWidget(self.session_list, 1)
        return pane

    @staticmethod
    def _tool_button(parent: QWidget, name: str, tip: str, slot: Any) -> QToolButton:
        button = QToolButton(parent)
        button.setIcon(icon(name))
        button.setToolTip(tip)
        button.setAccessibleName(tip)
        button.clicked.connect(lambda _=False: slot())
        return button

    # ── sessions ───────────────────────────────────────────────────────

    def session_ids(self) -> list[str]:
        return [self.session_list.item(i).data(ID_ROLE) for i in range(self.session_list.count())]

    def _item_for(self, session_id: str) -> QListWidgetItem | None:
        for i in range(self.session_list.count()):
            if self.session_list.item(i).data(ID_ROLE) == session_id:
                return self.session_list.item(i)
        return None

    def _on_sessions_changed(self, sessions: list) -> None:
        self._filling = True
        try:
            self.session_list.clear()
            for info in sessions:
                title = self.tr("新对话") if info.title == DEFAULT_TITLE else info.title
                item = QListWidgetItem(title)
                item.setData(ID_ROLE, info.id)
                item.setToolTip(title)
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsEditable)
                self.session_list.addItem(item)
            current = self._item_for(self.controller.current_session_id)
            if current is not None:
                self.session_list.setCurrentItem(current)
        finally:
            self._filling = False

    def _on_current_session_changed(self, session_id: str) -> None:
        item = self._item_for(session_id)
        if item is not None and self.session_list.currentItem() is not item:
            self._filling = True
            self.session_list.setCurrentItem(item)
            self._filling = False

    def _on_current_item_changed(self, item: QListWidgetItem | None, _previous: Any) -> None:
        if self._filling or item is None:
            return
        session_id = item.data(ID_ROLE)
        if session_id != self.controller.current_session_id:
            self.select_session(session_id)

    @asyncSlot()
    async def select_session(self, session_id: str) -> None:
        await self.controller.select_session(session_id)

    @asyncSlot()
    async def new_session(self) -> None:
        await self.controller.new_session()

    def start_rename(self) -> None:
        item = self._item_for(self.controller.current_session_id)
        if item is not None:
            self.session_list.editItem(item)

    def _on_item_changed(self, item: QListWidgetItem) -> None:
        if self._filling:
            return
        self.rename_session(item.data(ID_ROLE), item.text())

    @asyncSlot()
    async def rename_session(self, session_id: str, title: str) -> None:
        await self.controller.rename_session(session_id, title)

    def confirm_delete(self, session_id: str | None = None) -> QMessageBox:
        """Ask before deleting (non-blocking); Yes deletes the session and its transcript."""
        session_id = session_id or self.controller.current_session_id
        item = self._item_for(session_id)
        title = item.text() if item is not None else ""
        box = QMessageBox(QMessageBox.Icon.Question, self.tr("删除对话"),
                          self.tr("删除对话“%1”？聊天记录会被删除，已经记住的记忆不受影响。").replace("%1", title),
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel, self)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.accepted.connect(lambda: self.delete_session(session_id))
        self._delete_box = box
        box.open()
        return box

    @asyncSlot()
    async def delete_session(self, session_id: str) -> None:
        await self.controller.delete_session(session_id)

    def _on_session_menu(self, pos: QPoint) -> None:
        item = self.session_list.itemAt(pos)
        menu = QMenu(self)
        menu.addAction(icon("new_session"), self.tr("新对话"), self.new_session)
        if item is not None:
            sid = item.data(ID_ROLE)
            menu.addAction(icon("rename"), self.tr("重命名"), lambda: self.session_list.editItem(item))
            menu.addAction(icon("delete"), self.tr("删除"), lambda: self.confirm_delete(sid))
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        menu.popup(self.session_list.viewport().mapToGlobal(pos))

    # ── turns ──────────────────────────────────────────────────────────

    def _mine(self, session_id: str) -> bool:
        return session_id == self.controller.current_session_id

    def _on_transcript_loaded(self, session_id: str, entries: list) -> None:
        if self._mine(session_id):
            self._reply = None
            self.view.setProperty("language", self.controller.language)
            self.view.load_transcript(entries)

    def _on_send_requested(self, text: str) -> None:
        if self.controller.send(text) is not None:
            self.composer.clear_if(text)

    def _on_retry_requested(self, text: str) -> None:
        if text.strip():
            self.controller.send(text)

    def _on_turn_started(self, session_id: str, text: str) -> None:
        if self._mine(session_id):
            self.view.add_message("user", text)
            self._reply = self.view.add_reply(text)

    def _on_memories_recalled(self, session_id: str, memories: list) -> None:
        if self._mine(session_id) and self._reply is not None:
            self._reply.set_memories(memories)

    def _on_token_received(self, session_id: str, token: str) -> None:
        if self._mine(session_id) and self._reply is not None:
            self._reply.append_token(token)

    def _on_tool_started(self, session_id: str, tool: str, _input: str) -> None:
        if self._mine(session_id) and self._reply is not None:
            self._reply.set_tool_activity(self.tr("正在使用工具：%1…").replace("%1", tool))

    def _on_tool_finished(self, session_id: str, tool: str, _output: str) -> None:
        if self._mine(session_id) and self._reply is not None:
            self._reply.set_tool_activity(self.tr("用过工具：%1").replace("%1", tool))

    def _on_reply_finished(self, session_id: str, text: str) -> None:
        if self._mine(session_id) and self._reply is not None:
            self._reply.set_text(text)
            self._reply.flush()
            self._reply = None

    def _on_reply_failed(self, session_id: str, code: str, message: str, text: str) -> None:
        if not self._mine(session_id):
            return
        if self._reply is not None:
            self._reply.set_error(message, retry=code not in ("cancelled", "input"))
            self._reply = None
        if code == "input" and not self.composer.text().strip():
            self.composer.set_text(text)  # nothing was stored: give the text back
