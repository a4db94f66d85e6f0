"""QuickChat: a small frameless popup near the tray on the same engine and current session."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSettings, QSize, Qt, Signal
from PySide6.QtGui import QCursor, QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QVBoxLayout, QWidget

from sonetto_desktop.agent.sessions import DEFAULT_TITLE
from sonetto_desktop.agent.sessions import TEMPORARY_TITLE

from ..chat.controller import ChatController
from ..chat.view import ChatView
from ..chat.composer import Composer
from ..chat.conversation import Conversation
from ..chat.drafts import QUICK_LONG_DRAFTS, QUICK_PREFIX, Drafts
from ..chat.memory_bar import memory_mode
from ..notices.toasts import ToastOverlay
from ..widgets.elided_label import ElidedLabel
from ..widgets.icons import icon

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
    memory_activated = Signal(str)  # a recalled-memory chip was clicked: the app opens its card

    def __init__(self, controller: ChatController, parent: QWidget | None = None, *,
                 ui_state: QSettings | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Tool | Qt.WindowType.FramelessWindowHint | Qt.WindowType.WindowStaysOnTopHint)
        self.setObjectName("QuickChat")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.setWindowTitle(self.tr("快速对话"))
        self.controller = controller
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
        # The chat's title gives way (cut with "…", whole in its tooltip): a long one must not widen the
        # popup past the screen's edge beside a tray in the corner, taking its ✕ and send button along.
        self.session_label = ElidedLabel(self, min_text="")
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
        self.conversation = Conversation(controller, self.view, self.composer, recent=RECENT_ENTRIES, parent=self)
        self.conversation.transcript_shown.connect(self._update_title)
        self.view.memory_clicked.connect(self.memory_activated)
        column.addWidget(self.view, 1)
        column.addWidget(self.composer)
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self, activated=self.hide)
        # What was typed and not sent is kept per chat across a restart, as in the main window (its own).
        self.drafts = (Drafts(controller, self.composer, ui_state, prefix=QUICK_PREFIX, long_folder=QUICK_LONG_DRAFTS)
                       if ui_state is not None else None)
        self.toasts = ToastOverlay(self)  # what its messages' actions did, while the window is in the tray

        controller.sessions_changed.connect(self._on_controller_changed)  # bound: dropped with this popup
        controller.current_session_changed.connect(self._on_controller_changed)
        self._on_controller_changed()

    def show_near(self, anchor: QRect | None = None) -> None:
        """Show beside the tray icon (``anchor``), else in the corner of the screen under the cursor."""
        screen = QGuiApplication.screenAt(QCursor.pos()) or QGuiApplication.primaryScreen()
        area = screen.availableGeometry() if screen is not None else QRect(0, 0, 1280, 800)
        self.move(popup_position(self.size(), anchor, area))
        self.show()
        self.raise_()
        self.activateWindow()
        self.composer.input.setFocus()

    def save_state(self) -> None:
        """Write the input's draft now (at quit)."""
        if self.drafts is not None:
            self.drafts.save()

    def focus_home(self) -> QWidget:
        """Where the focus goes back to (a toast's button reached with Tab, gone): the input."""
        return self.composer.input

    def _on_controller_changed(self, *_: object) -> None:
        self._update_title()
        self.view.set_empty_mode(memory_mode(self.controller.current_session))

    def _update_title(self) -> None:
        current = self.controller.current_session_id
        title = next((s.title for s in self.controller.sessions if s.id == current), "")
        self.session_label.setText(self.tr("新对话") if title == DEFAULT_TITLE
                                   else self.tr("临时对话") if title == TEMPORARY_TITLE else title)
