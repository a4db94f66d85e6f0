"""The tray icon: 打开主窗口 / 快速对话 / 暂停记忆写入 / 退出.

Built even when the platform has no tray (offscreen, GNOME without AppIndicator): the menu and its
actions exist, ``available`` is False and the app then quits when the main window closes (never an
invisible process). Notifications go through ``notify`` and only appear while the window is hidden.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QRect, Signal
from PySide6.QtWidgets import QMenu, QSystemTrayIcon, QWidget

from ..widgets.icons import icon
from ..notices.status_indicator import WriterControl


class Tray(QObject):
    open_requested = Signal()
    quick_chat_requested = Signal()
    quit_requested = Signal()

    def __init__(self, writer_control: WriterControl, window: QWidget | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._window = window
        self.available = QSystemTrayIcon.isSystemTrayAvailable()
        self.icon = QSystemTrayIcon(icon("tray"), self)
        self.icon.setToolTip("Sonetto")
        self.menu = QMenu()
        self.open_action = self.menu.addAction(icon("app"), self.tr("打开主窗口"))
        self.open_action.triggered.connect(self.open_requested)
        self.quick_action = self.menu.addAction(icon("new_session"), self.tr("快速对话"))
        self.quick_action.triggered.connect(self.quick_chat_requested)
        self.pause_action = writer_control.pause_action
        self.menu.addAction(self.pause_action)
        self.menu.addSeparator()
        self.quit_action = self.menu.addAction(self.tr("退出"))
        self.quit_action.triggered.connect(self.quit_requested)
        self.icon.setContextMenu(self.menu)
        self.icon.activated.connect(self._on_activated)

    def contextMenu(self) -> QMenu:
        return self.menu

    def show(self) -> None:
        if self.available:
            self.icon.show()

    def hide(self) -> None:
        self.icon.hide()

    def geometry(self) -> QRect:
        return self.icon.geometry() if self.available else QRect()

    def notify(self, title: str, text: str) -> bool:
        """A tray bubble, only while the main window is hidden; True if one was shown."""
        if not self.available or not self.icon.isVisible():
            return False
        if self._window is not None and self._window.isVisible():
            return False
        self.icon.showMessage(title, text, icon("app"), 4000)
        return True

    def close(self) -> None:
        self.icon.hide()
        self.icon.setContextMenu(None)
        self.menu.deleteLater()

    def _on_activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason == QSystemTrayIcon.ActivationReason.Trigger:
            self.quick_chat_requested.emit()
        elif reason == QSystemTrayIcon.ActivationReason.DoubleClick:
            self.open_requested.emit()
