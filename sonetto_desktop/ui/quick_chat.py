"""QuickChat: a small frameless popup near the tray on the same engine and current session."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtGui import QCursor, QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from sonetto_desktop.agent.sessions import DEFAULT_TITLE

from .chat_controller import ChatController
from .chat_view import ChatView
from .composer import Composer
from .icons import icon
from .message_bubble import MessageBubble

POPUP_SIZE = QSize(380, 460)
MARGIN = 12
RECENT_ENTRIES = 6


def popup_position(size: QSize, anchor: QRect | None, screen: QRect) -> QPoint:
    """Top-left for a popup of ``size``: beside ``anchor`` (the tray icon) when known, kept inside
    ``screen``; otherwise the screen's bottom-right corner."""
    if anchor is not None and anchor.isValid() and not anchor.isNull():
        x = anchor.center().x() - size.width() // 2
        above = anchor.top() - size.height() - MARGIN
        y = above if above >= screen.top() else anchor.bottom() + MARGIN
    else:
        x = screen.right() - size.width() - MARGIN
        y = screen.bottom() - size.height() - MARGIN
    x = max(screen.left() + MARGIN, min(x, screen.right() - size.width() - MARGIN))
    y = max(screen.top() + MARGIN, min(y, screen.bottom() - size.height() - MARGIN))
    return QPoint(x, y)


class QuickChat(QWidget):
    def __init__(self, controller: ChatController, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Tool | Qt.WindowType.FramelessWindowHint | Qt.WindowType.WindowStaysOnTopHint)
        self.setObjectName("QuickChat")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.setWindowTitle(self.tr("快速对话"))
        self.controller = controller
        self._reply: MessageBubble | None = None
        self.resize(POPUP_SIZE)

        column = QVBoxLayout(self)
        column.setContentsMargins(1, 1, 1, 1)
        column.setSpacing(0)
        header = QHBoxLayout()
        header.setContentsMargins(12, 8, 6, 4)
        header.setSpacing(8)
        logo = QLabel(self)
        logo.setPixmap(icon("app").pixmap(18, 18))
        title = QLabel(self.tr("快速对话"), self)
        title.setObjectName("QuickChatTitle")
        self.session_label = QLabel(self)
        self.session_label.setObjectName("HintLabel")
        close = QToolButton(self)
        close.setText("✕")
        close.setToolTip(self.tr("关闭 (Esc)"))
        close.clicked.connect(self.hide)
        header.addWidget(logo)
        header.addWidget(title)
        header.addWidget(self.session_label, 1)
        header.addWidget(close)
        column.addLayout(header)

        self.view = ChatView(self, compact=True)
        self.composer = Composer(self, max_lines=3)
        self.composer.send_requested.connect(self._on_send_requested)
        self.composer.stop_requested.connect(controller.stop)
        column.addWidget(self.view, 1)
        column.addWidget(self.composer)
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self, activated=self.hide)

        c = controller
        c.transcript_loaded.connect(self._on_transcript_loaded)
        c.sessions_changed.connect(lambda _s: self._update_title())
        c.current_session_changed.connect(lambda _s: self._update_title())
        c.turn_started.connect(self._on_turn_started)
        c.memories_recalled.connect(lambda sid, m: self._reply_do(sid, lambda r: r.set_memories(m)))
        c.token_received.connect(lambda sid, t: self._reply_do(sid, lambda r: r.append_token(t)))
        c.reply_finished.connect(self._on_reply_finished)
        c.reply_failed.connect(self._on_reply_failed)
        c.busy_changed.connect(self.composer.set_busy)
        c.ready_changed.connect(self.composer.set_ready)
        self.composer.set_ready(c.ready)

    def show_near(self, anchor: QRect | None = None) -> None:
        """Show beside the tray icon (``anchor``), else in the corner of the screen under the cursor."""
        screen = QGuiApplication.screenAt(QCursor.pos()) or QGuiApplication.primaryScreen()
        area = screen.availableGeometry() if screen is not None else QRect(0, 0, 1280, 800)
        self.move(popup_position(self.size(), anchor, area))
        self.show()
        self.raise_()
        self.activateWindow()
        self.composer.input.setFocus()

    def _update_title(self) -> None:
        current = self.controller.current_session_id
        title = next((s.title for s in self.controller.sessions if s.id == current), "")
        self.session_label.setText(self.tr("新对话") if title == DEFAULT_TITLE else title)

    def _mine(self, session_id: str) -> bool:
        return session_id == self.controller.current_session_id

    def _on_transcript_loaded(self, session_id: str, entries: list) -> None:
        if self._mine(session_id):
            self._reply = None
            self.view.setProperty("language", self.controller.language)
            self.view.load_transcript(entries[-RECENT_ENTRIES:])
            self._update_title()

    def _on_send_requested(self, text: str) -> None:
        if self.controller.send(text) is not None:
            self.composer.clear_if(text)

    def _on_turn_started(self, session_id: str, text: str) -> None:
        if self._mine(session_id):
            self.view.add_message("user", text)
            self._reply = self.view.add_reply(text)

    def _reply_do(self, session_id: str, action) -> None:
        if self._mine(session_id) and self._reply is not None:
            action(self._reply)

    def _on_reply_finished(self, session_id: str, text: str) -> None:
        if self._mine(session_id) and self._reply is not None:
            self._reply.set_text(text)
            self._reply.flush()
            self._reply = None

    def _on_reply_failed(self, session_id: str, code: str, message: str, text: str) -> None:
        if self._mine(session_id) and self._reply is not None:
            self._reply.set_error(message, retry=False)
            self._reply = None
        if self._mine(session_id) and code == "input" and not self.composer.text().strip():
            self.composer.set_text(text)
