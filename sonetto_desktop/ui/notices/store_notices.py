"""StoreNotices: what the memory store says about its files (``AppFeed.store_notice``), told once as a
toast — memory.yaml gone and written again, restored at start, unreadable (with where), saved from an
older copy, memory.yaml that cannot be saved (a full disk: taken down once it saves again), a conflict between a hand edit and Sonetto (a click opens the memory) — and a write that
waits long for another process holding the store (``memory/stores/lock_wait.py``, told from the
waiting worker thread: the toast is shown on the Qt thread). The wording is
``presentation/store_notices.py``'s."""

from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import QObject, Signal

from sonetto_desktop.memory.stores.lock_wait import on_wait
from sonetto_desktop.memory.stores.notices import ENDS
from sonetto_desktop.presentation.store_notices import lock_wait_text, notice_level, notice_text

from .toasts import ToastOverlay

#: Notices that stay up long enough to be read (they are rare and worth reading).
TIMEOUT_MS = 12000


class StoreNotices(QObject):
    _lock_waited = Signal(str)  # emitted on the waiting worker thread: queued to this object's (Qt) thread

    def __init__(self, overlay: ToastOverlay, feed: Any, *, reveal: Callable[[str], Any] | None = None,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._overlay = overlay
        self._reveal = reveal
        self._feed = feed
        feed.store_notice.connect(self._on_notice)
        self._lock_waited.connect(self._on_lock_wait)
        self._forget_wait = on_wait(lambda path: self._lock_waited.emit(str(path)))

    def close(self) -> None:
        self._forget_wait()
        try:
            self._feed.store_notice.disconnect(self._on_notice)
        except (RuntimeError, TypeError):
            pass

    def _on_lock_wait(self, path: str) -> None:
        self._overlay.show_toast(lambda: lock_wait_text(path), key="store:lock_wait", kind="info", timeout_ms=TIMEOUT_MS)

    def _on_notice(self, notice: Any) -> None:
        if notice.kind in ENDS:  # the condition it ends is over: its notice goes
            for toast in self._overlay.toasts():
                if toast.key == f"store:{ENDS[notice.kind]}":
                    toast.dismiss()
        on_click = None
        if notice.ids and self._reveal is not None:
            reveal, memory_id = self._reveal, notice.ids[0]
            on_click = lambda: reveal(memory_id)  # noqa: E731
        level = notice_level(notice)
        self._overlay.show_toast(lambda: notice_text(notice), key=f"store:{notice.kind}", kind=level, on_click=on_click,
                                 repeat=False, timeout_ms=None if level == "error" else TIMEOUT_MS)
