"""ChatView: a scrolling column of message bubbles (user right, Sonetto left), following the stream."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QScrollArea, QVBoxLayout, QWidget

from .deferred import later
from .message_bubble import MessageBubble

BUBBLE_WIDTH_RATIO = 0.78


class ChatView(QScrollArea):
    memory_clicked = Signal(str)
    retry_requested = Signal(str)  # the user text to send again

    def __init__(self, parent: QWidget | None = None, *, compact: bool = False) -> None:
        super().__init__(parent)
        self.setObjectName("ChatScroll")
        self.setWidgetResizable(True)
        self._compact = compact
        self._area = QWidget()
        self._area.setObjectName("ChatArea")
        self._column = QVBoxLayout(self._area)
        self._column.setContentsMargins(10 if compact else 18, 12, 10 if compact else 18, 12)
        self._column.setSpacing(8 if compact else 12)
        self._column.addStretch(1)
        self.setWidget(self._area)
        self._bubbles: list[MessageBubble] = []
        self._rows: list[QWidget] = []
        self.verticalScrollBar().rangeChanged.connect(self._on_range_changed)
        self._follow = True
        self.verticalScrollBar().valueChanged.connect(self._on_scrolled)

    # ── content ────────────────────────────────────────────────────────

    @property
    def bubbles(self) -> list[MessageBubble]:
        return list(self._bubbles)

    def clear(self) -> None:
        for row in self._rows:
            # Keep the parent: the row is deleted on this (GUI) thread by deleteLater, never by
            # Python's garbage collector on whatever thread happens to run it.
            self._column.removeWidget(row)
            row.hide()
            row.deleteLater()
        self._rows.clear()
        self._bubbles.clear()
        self._follow = True

    def add_message(self, role: str, text: str = "") -> MessageBubble:
        bubble = MessageBubble(role, text)
        bubble.memory_clicked.connect(self.memory_clicked)
        row = QWidget(self._area)
        layout = QHBoxLayout(row)
        layout.setContentsMargins(0, 0, 0, 0)
        if role == "user":
            layout.addStretch(1)
            layout.addWidget(bubble)
        else:
            layout.addWidget(bubble)
            layout.addStretch(1)
        self._column.insertWidget(self._column.count() - 1, row)
        self._rows.append(row)
        self._bubbles.append(bubble)
        self._fit(bubble)
        self._follow = True
        return bubble

    def add_reply(self, user_text: str) -> MessageBubble:
        """An empty assistant bubble whose retry button re-sends ``user_text``."""
        bubble = self.add_message("assistant")
        bubble.retry_requested.connect(lambda text=user_text: self.retry_requested.emit(text))
        return bubble

    def load_transcript(self, entries: list[dict[str, Any]]) -> None:
        self.clear()
        last_user = ""
        for entry in entries:
            role = entry.get("role", "assistant")
            if role == "user":
                last_user = str(entry.get("content", ""))
                self.add_message("user", last_user)
                continue
            bubble = self.add_reply(last_user)
            bubble.set_text(str(entry.get("content", "")))
            bubble.set_memories(list(entry.get("memories") or []))
            error = entry.get("error")
            if error:
                message = error.get("en") if self.property("language") == "en" else error.get("zh")
                bubble.set_error(message or error.get("code", ""), retry=error.get("code") != "cancelled")
        later(self, self.scroll_to_bottom)

    def scroll_to_bottom(self) -> None:
        bar = self.verticalScrollBar()
        bar.setValue(bar.maximum())

    # ── layout ─────────────────────────────────────────────────────────

    def _fit(self, bubble: MessageBubble) -> None:
        bubble.setMaximumWidth(max(160, int(self.viewport().width() * BUBBLE_WIDTH_RATIO)))

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        for bubble in self._bubbles:
            self._fit(bubble)

    def _on_scrolled(self, value: int) -> None:
        bar = self.verticalScrollBar()
        self._follow = value >= bar.maximum() - 24

    def _on_range_changed(self, _low: int, high: int) -> None:
        if self._follow:
            self.verticalScrollBar().setValue(high)
