"""RecallNotices: a local model's context is cutting recall (``AppFeed.recall_notice``), told once per
endpoint, model and context as a toast that says what to change on the server — once, not at every
start: what was told is kept in ``ui-state.ini`` (a context that changes is told again). The wording
is ``presentation/recall_notices.py``'s."""

from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import QObject, QSettings, Signal

from sonetto_desktop.presentation.recall_notices import context_notice_text

#: The line stays long enough to be read (it is said once).
TIMEOUT_MS = 20000
#: Where what was told is kept (``ui-state.ini``), and how many of those lines.
TOLD_KEY = "notices/recall_context"
TOLD_KEPT = 20


class RecallNotices(QObject):
    """``feed``: the app's ``AppFeed``; ``toasts()``: the window's toast overlay (None: not shown yet);
    ``ui_state``: where what was told is kept (None: for this run only)."""

    said = Signal(str)  # the toast's text

    def __init__(self, feed: Any, *, toasts: Callable[[], Any], ui_state: QSettings | None = None,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._feed = feed
        self._toasts = toasts
        self._ui_state = ui_state
        self._told: set[str] = set()
        feed.recall_notice.connect(self._on_notice)

    def close(self) -> None:
        try:
            self._feed.recall_notice.disconnect(self._on_notice)
        except (RuntimeError, TypeError):
            pass

    def _kept(self) -> list[str]:
        if self._ui_state is None:
            return []
        value = self._ui_state.value(TOLD_KEY, [])
        return [str(v) for v in value] if isinstance(value, (list, tuple)) else [str(value)] if value else []

    def _on_notice(self, notice: Any) -> None:
        key = f"{notice.base_url}|{notice.model}|{notice.context}"
        kept = self._kept()
        if key in self._told or key in kept:
            return
        self._told.add(key)
        if self._ui_state is not None:
            self._ui_state.setValue(TOLD_KEY, [*kept, key][-TOLD_KEPT:])
        text = context_notice_text(notice)
        toasts = self._toasts()
        if toasts is not None:
            toasts.show_toast(lambda: context_notice_text(notice), key=f"recall-context:{notice.base_url}|{notice.model}", kind="info",
                              timeout_ms=TIMEOUT_MS, repeat=False)
        self.said.emit(text)
