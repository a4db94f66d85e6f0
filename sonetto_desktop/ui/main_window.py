"""MainWindow: chat (or the welcome panel) on the left, the memory card wall on the right.

The window is composed, not wired: ``app.py`` hands it the chat controller, the writer control and
the wall widget. Closing hides to the tray when there is one, otherwise asks the app to quit
(``quit_requested``); the app runs the ordered shutdown. Geometry and splitter live in QSettings.
The menus (``window_menus.py``) hold import / export, settings, quit and the shortcut list.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QByteArray, QSettings, QSize, Qt, Signal
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import QHBoxLayout, QLabel, QMainWindow, QSplitter, QStackedWidget, QToolButton, QVBoxLayout, QWidget

from .chat.controller import ChatController
from .chat.drafts import Drafts
from .qt_bridge import disconnect_quietly
from .chat.panel import ChatPanel
from .widgets.icons import icon
from .notices.status_indicator import StatusIndicator, WriterControl
from .widgets.accessible_names import name_icon_buttons
from .chat.welcome import WelcomePanel
from .widgets.focus import chain_tab_order, tab_buttons
from .window_menus import build_menus

DEFAULT_SIZE = QSize(1280, 800)
#: Room left for the window manager's border and title bar before the window has one.
FRAME_ALLOWANCE = QSize(16, 48)


class MainWindow(QMainWindow):
    settings_requested = Signal()
    quit_requested = Signal()
    import_requested = Signal()
    export_requested = Signal()
    history_import_requested = Signal()
    language_requested = Signal(str)  # the welcome panel's other language
    visibility_changed = Signal(bool)
    memory_missing = Signal(str)  # a memory asked for (a chip) is not on the wall: deleted or merged away

    def __init__(
        self,
        controller: ChatController,
        writer_control: WriterControl,
        wall: QWidget,
        *,
        ui_state: QSettings | None = None,
        configured: bool = True,
    ) -> None:
        super().__init__()
        self.setObjectName("MainWindow")
        # Ends with the app's display name, which Qt appends to any title that does not (on X11 and Windows:
        # "Sonetto · 记忆伙伴 — Sonetto" said the name twice).
        self.setWindowTitle(self.tr("记忆伙伴 · Sonetto"))
        self.setWindowIcon(icon("app"))
        self._ui_state = ui_state
        self.hide_to_tray = False
        self.controller = controller
        self._shown_once = False

        root = QWidget(self)
        column = QVBoxLayout(root)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self._build_header(writer_control))

        self.chat_panel = ChatPanel(controller, root)
        self.drafts = Drafts(controller, self.chat_panel.composer, ui_state) if ui_state is not None else None
        self.welcome = WelcomePanel(root)
        self.welcome.settings_requested.connect(self.settings_requested)
        self.welcome.import_requested.connect(self.import_requested)
        self.welcome.history_import_requested.connect(self.history_import_requested)
        self.welcome.language_requested.connect(self.language_requested)
        self.chat_stack = QStackedWidget(root)
        self.chat_stack.addWidget(self.welcome)
        self.chat_stack.addWidget(self.chat_panel)

        self.wall: QWidget | None = None
        self.wall_host = QWidget(root)
        self._wall_layout = QVBoxLayout(self.wall_host)
        self._wall_layout.setContentsMargins(0, 0, 0, 0)
        self.set_wall(wall)
        self.splitter = QSplitter(Qt.Orientation.Horizontal, root)
        self.splitter.setObjectName("MainSplitter")
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(self.chat_stack)
        self.splitter.addWidget(self.wall_host)
        self.splitter.setStretchFactor(0, 5)
        self.splitter.setStretchFactor(1, 6)
        column.addWidget(self.splitter, 1)
        self.setCentralWidget(root)

        self.chat_panel.memory_activated.connect(self.reveal_memory)
        new_chat = QShortcut(QKeySequence("Ctrl+N"), self, activated=lambda: self.chat_panel.request_new_session())
        new_chat.setWhatsThis(self.tr("新对话"))
        self.shortcuts_dialog = None
        self.menus = build_menus(self)
        self.set_configured(configured)
        self._order_tabs()
        self._restore_state()

    def _build_header(self, writer_control: WriterControl) -> QWidget:
        header = QWidget(self)
        header.setObjectName("HeaderBar")
        header.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        row = QHBoxLayout(header)
        row.setContentsMargins(12, 6, 8, 6)
        logo = QLabel(header)
        logo.setPixmap(icon("app").pixmap(22, 22))
        name = QLabel("Sonetto", header)
        name.setObjectName("AppName")
        row.addWidget(logo)
        row.addWidget(name)
        row.addStretch(1)
        self.status_indicator = StatusIndicator(writer_control, parent=header)
        row.addWidget(self.status_indicator)
        self.settings_button = QToolButton(header)
        self.settings_button.setIcon(icon("settings"))
        self.settings_button.setToolTip(self.tr("设置"))
        self.settings_button.setAccessibleName(self.tr("设置"))
        self.settings_button.clicked.connect(self.settings_requested)
        tab_buttons(self.settings_button)  # a click must not take the focus from the chat's input
        row.addWidget(self.settings_button)
        return header

    # ── state ──────────────────────────────────────────────────────────

    def set_configured(self, configured: bool) -> None:
        """Show the chat when a model is configured, else the welcome panel."""
        self.chat_stack.setCurrentWidget(self.chat_panel if configured else self.welcome)

    @property
    def showing_welcome(self) -> bool:
        return self.chat_stack.currentWidget() is self.welcome

    def set_wall(self, wall: QWidget) -> None:
        """Show ``wall`` on the right; the previous one is deleted on the GUI thread (the layout
        keeps it parented until then, so Python's garbage collector never owns a live widget)."""
        old = self.wall
        self._wall_layout.addWidget(wall)
        self.wall = wall
        if old is not None:
            self._wall_layout.removeWidget(old)
            old.hide()
            old.deleteLater()
        if hasattr(self, "chat_stack"):
            self._order_tabs()

    def _order_tabs(self) -> None:
        """Tab follows the layout: the header (left to right), the sessions (top to bottom), the chat
        (mode bar, transcript, input, send) or the welcome panel (打开设置, its two import links, the other language), then
        the wall in its own order."""
        welcome = self.welcome
        chain_tab_order([*self.status_indicator.tab_stops(), self.settings_button, *self.chat_panel.tab_stops(),
                         welcome.settings_button, welcome.import_button, welcome.history_button,
                         welcome.language_button, self.wall])  # the wall moves with all of its controls

    def attach_undo(self, undo: Any) -> None:
        """编辑 ▸ 撤销 / 重做 act on ``undo`` (a ``MemoryUndo``) and name what they would do."""
        menus = self.menus
        menus.undo_action.triggered.connect(undo.undo)
        menus.redo_action.triggered.connect(undo.redo)

        def follow() -> None:
            label, again = undo.undo_label, undo.redo_label
            menus.undo_action.setEnabled(label is not None)
            menus.undo_action.setText(self.tr("撤销：%1").replace("%1", label) if label else self.tr("撤销"))
            menus.redo_action.setEnabled(again is not None)
            menus.redo_action.setText(self.tr("重做：%1").replace("%1", again) if again else self.tr("重做"))

        undo.changed.connect(follow)
        self.destroyed.connect(lambda *_: disconnect_quietly(undo.changed, follow))
        follow()

    def focus_home(self) -> QWidget:
        """Where typing should go: the chat's input (the settings button while there is no model)."""
        return self.welcome.settings_button if self.showing_welcome else self.chat_panel.composer.input

    def reveal_memory(self, memory_id: str) -> None:
        """Show the memory's card; one that is gone (a recalled memory since forgotten) is said to be."""
        reveal = getattr(self.wall, "reveal", None)
        if not callable(reveal) or reveal(memory_id):
            return
        model = getattr(self.wall, "model", None)
        if model is not None and model.card(memory_id) is None and not model.first_read_pending \
                and not self.wall.loading():
            self.memory_missing.emit(memory_id)

    def bring_to_front(self) -> None:
        if self.isMinimized():
            self.showNormal()
        self.show()
        self.raise_()
        self.activateWindow()

    # ── geometry ───────────────────────────────────────────────────────

    def _restore_state(self) -> None:
        geometry = self._ui_state.value("main/geometry", QByteArray(), type=QByteArray) if self._ui_state else None
        if not geometry or not self.restoreGeometry(geometry):
            self.resize(DEFAULT_SIZE)
        self._fit_to_screen()
        splitter = self._ui_state.value("main/splitter", QByteArray(), type=QByteArray) if self._ui_state else None
        if not splitter or not self.splitter.restoreState(splitter):
            self.splitter.setSizes([700, 580])

    def _fit_to_screen(self) -> None:
        """Keep the window on the screen it opens on: the default size, or one saved on a larger
        screen (a laptop undocked from its monitor), shrinks to the screen's free area, and a window
        left partly off it moves back in."""
        screen = self.screen()
        if screen is None or self.isMaximized() or self.isFullScreen():
            return
        free = screen.availableGeometry()
        if free.isEmpty():
            return
        frame = self.frameGeometry().size() - self.geometry().size()  # the window manager's border and title
        if frame.isNull():  # not shown yet: leave room for a usual border and title bar
            frame = FRAME_ALLOWANCE
        room = (free.size() - frame).expandedTo(self.minimumSizeHint())
        if self.width() > room.width() or self.height() > room.height():
            self.resize(self.size().boundedTo(room))
        place = self.frameGeometry()
        x = min(max(place.x(), free.left()), max(free.left(), free.right() + 1 - place.width()))
        y = min(max(place.y(), free.top()), max(free.top(), free.bottom() + 1 - place.height()))
        if (x, y) != (place.x(), place.y()):
            self.move(x, y)

    def save_state(self) -> None:
        if self._ui_state is None:
            return
        if self.drafts is not None:
            self.drafts.save()
        self._ui_state.setValue("main/geometry", self.saveGeometry())
        self._ui_state.setValue("main/splitter", self.splitter.saveState())
        self._ui_state.sync()

    # ── closing ────────────────────────────────────────────────────────

    def closeEvent(self, event: QCloseEvent) -> None:
        self.save_state()
        event.ignore()
        if self.hide_to_tray:
            self.hide()
        else:
            self.quit_requested.emit()

    def showEvent(self, event) -> None:
        super().showEvent(event)
        name_icon_buttons(self)  # icon-only buttons (chat, wall, header) get their tooltip as a name
        if not self._shown_once:  # typing at once goes to the chat, not to the first header button
            self._shown_once = True
            self.focus_home().setFocus(Qt.FocusReason.ActiveWindowFocusReason)
        self.visibility_changed.emit(True)

    def hideEvent(self, event) -> None:
        super().hideEvent(event)
        self.visibility_changed.emit(False)


