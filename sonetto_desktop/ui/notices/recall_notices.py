"""RecallNotices: a local model's context is cutting recall (``AppFeed.recall_notice``), told once per
endpoint and model as a toast that says what to change on the server. The wording is
``presentation/recall_notices.py``'s."""

from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import QObject, Signal

from sonetto_desktop.presentation.recall_notices import context_notice_text

#: The line stays long enough to be read (it is said once).
TIMEOUT_MS = 20000


class RecallNotices(QObject):
    """``feed``: the app's ``AppFeed``; ``toasts()``: the window's toast overlay (None: not shown yet)."""

    said = Signal(str)  # the toast's text

    def __init__(self, feed: Any, *, toasts: Callable[[], Any], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._feed = feed
        self._toasts = toasts
        self._told: set[tuple[str, str]] = set()
        feed.recall_notice.connect(self._on_notice)

    def close(self) -> None:
        try:
            self._feed.recall_notice.disconnect(self._on_notice)
        except (RuntimeError, TypeError):
            pass

    def _on_notice(self, notice: Any) -> None:
        key = (notice.base_url, notice.model)
        if key in self._told:
            return
        self._told.add(key)
        text = context_notice_text(notice)
        toasts = self._toasts()
        if toasts is not None:
            toasts.show_toast(text, key=f"recall-context:{notice.base_url}|{notice.model}", kind="info",
                              timeout_ms=TIMEOUT_MS, repeat=False)
        self.said.emit(text)
