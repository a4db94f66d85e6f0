"""StoreNotices: what the memory store says about its files (``AppFeed.store_notice``), told once as a
toast — memory.yaml gone and written again, restored at start, unreadable (with where), saved from an
older copy, a conflict between a hand edit and Sonetto (a click opens the memory). The wording is
``presentation/store_notices.py``'s."""

from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import QObject

from sonetto_desktop.presentation.store_notices import notice_level, notice_text

from .toasts import ToastOverlay

#: Notices that stay up long enough to be read (they are rare and worth reading).
TIMEOUT_MS = 12000


class StoreNotices(QObject):
    def __init__(self, overlay: ToastOverlay, feed: Any, *, reveal: Callable[[str], Any] | None = None,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._overlay = overlay
        self._reveal = reveal
        self._feed = feed
        feed.store_notice.connect(self._on_notice)

    def close(self) -> None:
        try:
            self._feed.store_notice.disconnect(self._on_notice)
        except (RuntimeError, TypeError):
            pass

    def _on_notice(self, notice: Any) -> None:
        on_click = None
        if notice.ids and self._reveal is not None:
            reveal, memory_id = self._reveal, notice.ids[0]
            on_click = lambda: reveal(memory_id)  # noqa: E731
        level = notice_level(notice)
        self._overlay.show_toast(notice_text(notice), key=f"store:{notice.kind}", kind=level, on_click=on_click,
                                 repeat=False, timeout_ms=None if level == "error" else TIMEOUT_MS)
