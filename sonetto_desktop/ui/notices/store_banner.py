"""The banner under the window's header while the memory server cannot be reached: the wall shows
this device's copy, read-only; chatting goes on and new memories wait on this device. A server that
answers and refuses (a wrong password, a user or database it does not have) is said as such, with where to
mend it: waiting for it to "come back" would never end."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from sonetto_desktop.presentation.server_words import refusal_reason


class StoreBanner(QLabel):
    """Follows ``feed.store_status_changed`` (the app's ``AppFeed``), starting from ``status``."""

    def __init__(self, feed: Any, status: Any = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("StoreBanner")
        self.setWordWrap(True)
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground)  # its colours come from the theme (#StoreBanner)
        feed.store_status_changed.connect(self.show_status)  # Qt drops the connection with the banner
        self.show_status(status)

    @classmethod
    def attach(cls, window: Any, feed: Any, status: Any = None) -> "StoreBanner":
        """Put a banner under the header of ``window`` (a ``MainWindow``)."""
        central = window.centralWidget()
        banner = cls(feed, status, central)
        central.layout().insertWidget(1, banner)
        return banner

    def show_status(self, status: Any) -> None:
        """``status``: a ``StoreStatus`` (None: a local store, never offline)."""
        if status is None or status.online:
            self.hide()
            return
        reason = refusal_reason(status.detail)
        if reason is not None:
            text = self.refused_text(reason, status.copy_time)
        elif status.copy_time:
            text = self.tr("记忆服务器暂时连不上：现在显示的是本机副本（{0}），只能查看、不能修改。"
                           "聊天照常，新的记忆会在服务器恢复后自动写入。").format(status.copy_time.replace("T", " ")[:16])
        else:
            text = self.tr("记忆服务器暂时连不上，本机还没有副本：记忆暂时为空、只能查看。"
                           "聊天照常，新的记忆会在服务器恢复后自动写入。")
        self.setText("⚠ " + text)
        self.setToolTip(status.detail)
        self.show()

    def refused_text(self, reason: str, copy_time: str | None) -> str:
        """The banner of a server that refuses this computer: why, and where to mend it."""
        if copy_time:
            return self.tr("记忆服务器拒绝了这台电脑的连接：{0}。请在 设置 → 多设备 里改正。现在显示的是本机副本（{1}），"
                           "只能查看、不能修改；聊天照常，新的记忆先留在这台电脑上。").format(
                reason.rstrip("。"), copy_time.replace("T", " ")[:16])
        return self.tr("记忆服务器拒绝了这台电脑的连接：{0}。请在 设置 → 多设备 里改正。本机还没有副本：记忆暂时为空、"
                       "只能查看；聊天照常，新的记忆先留在这台电脑上。").format(reason.rstrip("。"))
