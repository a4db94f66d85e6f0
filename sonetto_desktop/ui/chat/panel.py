"""ChatPanel: the session list (new / rename / delete) beside the conversation and the composer.

Holds no chat data: sessions and turns come from the :class:`ChatController`'s signals.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Awaitable

from PySide6.QtCore import QCoreApplication, QPoint, Qt, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QListWidgetItem,
    QMenu,
    QMessageBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from sonetto_desktop.presentation.errors import error_detail
from sonetto_desktop.presentation.i18n import Worded
from sonetto_desktop.agent.sessions import DEFAULT_TITLE
from sonetto_desktop.agent.sessions import TEMPORARY_TITLE

from .controller import ChatController
from .memory_bar import ChatMemoryBar
from .search_box import ChatSearchBox
from .session_list import SessionList
from .view import ChatView
from .composer import Composer
from .conversation import Conversation
from ..widgets.icons import icon
from ..widgets.file_dialogs import translated
from ..widgets.deferred import later
from ..widgets.tooltips import plain_tooltip
from ..widgets.tasks import task_scope

log = logging.getLogger(__name__)

SESSION_PANE_WIDTH = 210
ID_ROLE = Qt.ItemDataRole.UserRole  # a chat's row: its session id
MESSAGE_ROLE = Qt.ItemDataRole.UserRole + 1  # a search hit's row: (session id, turn id, index)


class ChatPanel(QWidget):
    memory_activated = Signal(str)
    undo_memory_requested = Signal(str)  # a turn id (from a user message's 这轮的记忆 menu)
    forget_turn_requested = Signal(str, str)  # the user's text, its turn id ("别记住这个")
    forget_memory_requested = Signal(str)  # a recalled memory's id ("忘掉这条" on its chip)
    exported = Signal(str)  # a chat was written to this Markdown file

    def __init__(self, controller: ChatController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self._delete_box: QMessageBox | None = None
        self._export_dialog: QFileDialog | None = None
        self._filling = False
        self._refill = False  # the list changed while a name was typed in place: filled when it is done
        self._sessions: list = []
        self._tasks = task_scope(self, "chat-panel")  # session operations started from clicks
        keeper = self._tasks
        self.destroyed.connect(lambda *_: keeper.cancel_all())

        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self._build_session_pane())

        conversation = QWidget(self)
        column = QVBoxLayout(conversation)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        self.memory_bar = ChatMemoryBar(controller, self._spawn, conversation)
        column.addWidget(self.memory_bar)
        self.view = ChatView(conversation)
        self.view.set_empty_mode(self.memory_bar.mode)
        self.memory_bar.mode_changed.connect(self.view.set_empty_mode)
        self.view.memory_clicked.connect(self.memory_activated)
        self.view.undo_memory_requested.connect(self.undo_memory_requested)
        self.view.forget_turn_requested.connect(self.forget_turn_requested)
        self.view.forget_memory_requested.connect(self.forget_memory_requested)
        self.composer = Composer(conversation)
        self.conversation = Conversation(controller, self.view, self.composer, parent=self)
        column.addWidget(self.view, 1)
        column.addWidget(self.composer)
        layout.addWidget(conversation, 1)

        c = controller
        c.sessions_changed.connect(self._on_sessions_changed)
        c.current_session_changed.connect(self._on_current_session_changed)

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
        new_menu = QMenu(self.new_button)
        new_menu.addAction(icon("new_session"), self.tr("新对话"), lambda: self._spawn(self.new_session()))
        self.temporary_action = new_menu.addAction(self.tr("新建临时对话（不回忆、不记住、不保存）"),
                                                   lambda: self._spawn(self.new_session(temporary=True)))
        self.new_button.setMenu(new_menu)
        self.new_button.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)
        self.rename_button = self._tool_button(pane, "rename", self.tr("重命名"), self.start_rename)
        self.delete_button = self._tool_button(pane, "delete", self.tr("删除对话"), self.confirm_delete)
        self.export_button = self._tool_button(pane, "folder", self.tr("导出为 Markdown…"), self.choose_export_file)
        for button in (self.new_button, self.rename_button, self.export_button, self.delete_button):
            header.addWidget(button)
        column.addLayout(header)
        self.search_box = ChatSearchBox(self.controller, pane)
        self.search_box.results_changed.connect(lambda _hits: self._fill_sessions())
        self.search_box.returnPressed.connect(self.open_first_hit)
        column.addWidget(self.search_box)
        self.no_hits = QLabel(self.tr("没有找到"), pane)
        self.no_hits.setObjectName("HintLabel")
        self.no_hits.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.no_hits.hide()
        column.addWidget(self.no_hits)
        self.session_list = SessionList(pane)
        self.session_list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.session_list.customContextMenuRequested.connect(self._on_session_menu)
        self.session_list.currentItemChanged.connect(self._on_current_item_changed)
        self.session_list.itemClicked.connect(self._on_item_clicked)
        self.session_list.itemChanged.connect(self._on_item_changed)
        self.session_list.rename_ended.connect(lambda: later(self, self._refill_after_rename))
        column.addWidget(self.session_list, 1)
        return pane

    def tab_stops(self) -> list[QWidget]:
        """The panel's controls in the order they are laid out (the window chains them)."""
        composer = self.composer
        return [self.new_button, self.rename_button, self.export_button, self.delete_button, self.search_box,
                self.session_list, self.memory_bar.menu_button, self.view, composer.input,
                composer.send_button, composer.stop_button]

    def _tool_button(self, parent: QWidget, name: str, tip: str, slot: Any) -> QToolButton:
        button = QToolButton(parent)
        button.setFocusPolicy(Qt.FocusPolicy.TabFocus)  # a click leaves the focus where it was
        button.setIcon(icon(name))
        button.setToolTip(tip)
        button.setAccessibleName(tip)
        button.clicked.connect(lambda _=False: self._run(slot))
        return button

    def _spawn(self, coro: Any) -> Any:
        return self._tasks.spawn(coro, name="chat-panel")

    def _run(self, slot: Any, *args: Any) -> Any:
        """Call ``slot``; a coroutine it returns runs as a kept task (session operations are async)."""
        result = slot(*args)
        return self._spawn(result) if asyncio.iscoroutine(result) else result

    # ── sessions ───────────────────────────────────────────────────────

    def session_ids(self) -> list[str]:
        items = (self.session_list.item(i) for i in range(self.session_list.count()))
        return [item.data(ID_ROLE) for item in items if item.data(ID_ROLE) is not None]

    def message_hits(self) -> list[QListWidgetItem]:
        """The search's message rows (under their chats), in the list's order."""
        items = (self.session_list.item(i) for i in range(self.session_list.count()))
        return [item for item in items if item.data(MESSAGE_ROLE) is not None]

    def _item_for(self, session_id: str) -> QListWidgetItem | None:
        for i in range(self.session_list.count()):
            if self.session_list.item(i).data(ID_ROLE) == session_id:
                return self.session_list.item(i)
        return None

    def _on_sessions_changed(self, sessions: list) -> None:
        self._sessions = list(sessions)
        self._fill_sessions()

    def _refill_after_rename(self) -> None:
        if self._refill and not self.session_list.renaming:
            self._fill_sessions()

    def _fill_sessions(self) -> None:
        """The sessions, or while searching only those that match, each with the messages that
        matched under it (a click jumps to the message). Not while a name is typed in place (a reply
        ending refreshes the list): then once the rename box closes."""
        if self.session_list.renaming:
            self._refill = True
            return
        self._refill = False
        hits = self.search_box.hits
        snippets = {hit.session_id: hit.snippet for hit in hits} if hits is not None else {}
        messages = {hit.session_id: hit.messages for hit in hits} if hits is not None else {}
        shown = [info for info in self._sessions if hits is None or info.id in snippets]
        self.no_hits.setVisible(hits is not None and not shown)
        self._filling = True
        try:
            self.session_list.clear()
            for info in shown:
                title = (self.tr("新对话") if info.title == DEFAULT_TITLE
                         else self.tr("临时对话") if info.temporary and info.title == TEMPORARY_TITLE else info.title)
                item = QListWidgetItem(self.tr("（临时）%1").replace("%1", title) if info.temporary else title)
                if info.temporary:
                    font = item.font()
                    font.setItalic(True)
                    item.setFont(font)
                item.setData(ID_ROLE, info.id)
                item.setToolTip(plain_tooltip(f"{title}\n{snippets[info.id]}" if snippets.get(info.id) else title))
                if not info.temporary:  # a temporary chat keeps its marker; it is gone when closed anyway
                    item.setFlags(item.flags() | Qt.ItemFlag.ItemIsEditable)
                self.session_list.addItem(item)
                for hit in messages.get(info.id, ()):
                    self.session_list.addItem(self._message_item(info.id, hit))
            current = self._item_for(self.controller.current_session_id)
            if current is not None:
                self.session_list.setCurrentItem(current)
        finally:
            self._filling = False

    def _message_item(self, session_id: str, hit: Any) -> QListWidgetItem:
        who = self.tr("你") if hit.role == "user" else "Sonetto"
        item = QListWidgetItem("    " + self.tr("%1：%2").replace("%1", who).replace("%2", hit.snippet))
        font = item.font()
        font.setItalic(True)
        font.setPointSizeF(max(7.0, font.pointSizeF() - 1) if font.pointSizeF() > 0 else 9.0)
        item.setFont(font)
        item.setToolTip(plain_tooltip(hit.snippet))  # the chat's words as written, never markup
        item.setData(MESSAGE_ROLE, (session_id, hit.turn_id, hit.index))
        return item

    def open_first_hit(self) -> None:
        """Enter in the search box: to the first message found."""
        hits = self.message_hits()
        if hits:
            self.session_list.setCurrentItem(hits[0])

    async def open_message(self, session_id: str, turn_id: str, index: int) -> bool:
        """Show a search hit: its chat, scrolled to the message and highlighted."""
        if session_id != self.controller.current_session_id:
            await self.select_session(session_id)
        if session_id != self.controller.current_session_id:
            return False
        return bool(turn_id and self.view.scroll_to_turn(turn_id)) or self.view.scroll_to_entry(index)

    def _on_current_session_changed(self, session_id: str) -> None:
        item = self._item_for(session_id)
        if item is None and self.search_box.hits is not None and any(s.id == session_id for s in self._sessions):
            self.search_box.clear()  # the chat shown is always listed: one the search hides ends it (filled again)
            return
        if item is not None and self.session_list.currentItem() is not item:
            self._filling = True
            self.session_list.setCurrentItem(item)
            self._filling = False

    def _on_current_item_changed(self, item: QListWidgetItem | None, _previous: Any) -> None:
        if self._filling or item is None:
            return
        message = item.data(MESSAGE_ROLE)
        if message is not None:
            self._spawn(self.open_message(*message))
            return
        session_id = item.data(ID_ROLE)
        if session_id != self.controller.wanted_session_id:  # (back to the chat shown while another is read: shown)
            self._spawn(self.select_session(session_id))

    def _on_item_clicked(self, item: QListWidgetItem) -> None:
        """A click on the search hit already current shows it again (scrolled back to it)."""
        message = item.data(MESSAGE_ROLE)
        if message is not None and item is self.session_list.currentItem():
            self._spawn(self.open_message(*message))

    async def _reported(self, operation: Awaitable[Any]) -> None:
        """Run a session operation; a failure (e.g. the session database is locked) is told to the
        person through the controller's ``operation_failed``, never only logged."""
        try:
            await operation
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("session operation failed", exc_info=True)
            failure = exc  # (``exc`` is gone after the clause; the panel may be gone when said again)
            self.controller.operation_failed.emit(Worded(
                lambda: QCoreApplication.translate("ChatPanel", "对话操作失败：{0}").format(error_detail(failure))))

    async def select_session(self, session_id: str) -> None:
        await self._reported(self.controller.select_session(session_id))

    def request_new_session(self, *, temporary: bool = False) -> Any:
        """A new chat from a shortcut or menu (runs in the background; returns its task)."""
        return self._spawn(self.new_session(temporary=temporary))

    async def new_session(self, *, temporary: bool = False) -> None:
        await self._reported(self.controller.new_session(temporary=temporary))
        if self.isVisible():
            self.composer.input.setFocus(Qt.FocusReason.OtherFocusReason)  # a new chat: type at once

    def start_rename(self) -> None:
        item = self._item_for(self.controller.current_session_id)
        if item is not None:
            self.session_list.editItem(item)

    def _on_item_changed(self, item: QListWidgetItem) -> None:
        if self._filling:
            return
        self._refill = False  # the rename lists the sessions again (with the new name, or the old one if refused)
        self._spawn(self.rename_session(item.data(ID_ROLE), item.text()))

    async def rename_session(self, session_id: str, title: str) -> None:
        await self._reported(self.controller.rename_session(session_id, title))

    def confirm_delete(self, session_id: str | None = None) -> QMessageBox:
        """Ask before deleting (non-blocking); 删除 deletes the session and its transcript."""
        session_id = session_id or self.controller.current_session_id
        item = self._item_for(session_id)
        title = item.text() if item is not None else ""
        box = QMessageBox(QMessageBox.Icon.Question, self.tr("删除对话"),
                          self.tr("删除对话“%1”？聊天记录会被删除，已经记住的记忆不受影响。").replace("%1", title),
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel, self)
        box.button(QMessageBox.StandardButton.Yes).setText(self.tr("删除"))  # names the action, not 是 / Yes
        cancel = box.button(QMessageBox.StandardButton.Cancel)
        cancel.setText(QCoreApplication.translate("Dialogs", "取消"))
        box.setDefaultButton(cancel)
        box.setEscapeButton(cancel)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.accepted.connect(lambda: self._spawn(self.delete_session(session_id)))
        self._delete_box = box
        box.open()
        return box

    async def delete_session(self, session_id: str) -> None:
        await self._reported(self.controller.delete_session(session_id))

    def _on_session_menu(self, pos: QPoint) -> None:
        item = self.session_list.itemAt(pos)
        if item is not None and item.data(ID_ROLE) is None:  # a search hit's message row
            item = None
        menu = QMenu(self)
        menu.addAction(icon("new_session"), self.tr("新对话"), lambda: self._spawn(self.new_session()))
        menu.addAction(self.tr("新建临时对话（不回忆、不记住、不保存）"),
                       lambda: self._spawn(self.new_session(temporary=True)))
        if item is not None:
            sid = item.data(ID_ROLE)
            menu.addAction(icon("rename"), self.tr("重命名"), lambda: self.session_list.editItem(item))
            menu.addAction(icon("folder"), self.tr("导出为 Markdown…"), lambda: self.choose_export_file(sid))
            menu.addAction(icon("delete"), self.tr("删除"), lambda: self.confirm_delete(sid))
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        menu.popup(self.session_list.viewport().mapToGlobal(pos))

    # ── export ─────────────────────────────────────────────────────────

    def choose_export_file(self, session_id: str | None = None) -> QFileDialog:
        """Ask (non-blocking) where to save the chat as Markdown; the file is written off this thread."""
        session_id = session_id or self.controller.current_session_id
        item = self._item_for(session_id)
        name = "".join(c for c in (item.text() if item is not None else "") if c not in '\\/:*?"<>|').strip()
        dialog = translated(QFileDialog(self, self.tr("导出对话"), (name or "chat") + ".md", self.tr("Markdown 文件 (*.md)")))
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setDefaultSuffix("md")
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.fileSelected.connect(lambda path: self._spawn(self.export_chat(session_id, path)))
        self._export_dialog = dialog
        dialog.open()
        return dialog

    async def export_chat(self, session_id: str, path: str) -> None:
        written: list[Any] = []

        async def export() -> None:
            written.append(await self.controller.export_chat(session_id, path))

        await self._reported(export())
        if written:
            self.exported.emit(str(written[0] or path))  # said, with a way to the file
