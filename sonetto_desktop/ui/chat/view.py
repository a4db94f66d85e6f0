"""ChatView: a scrolling column of message bubbles (user right, Sonetto left), following the stream."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QScrollArea, QVBoxLayout, QWidget

from ..widgets.deferred import later
from ..i18n import ui_language
from .message_bubble import MessageBubble

BUBBLE_WIDTH_RATIO = 0.78
NARROW, NARROW_RATIO = 520, 0.94


class ChatView(QScrollArea):
    memory_clicked = Signal(str)
    retry_requested = Signal(str)  # the user text to send again
    regenerate_requested = Signal(str, str)  # the user text and the turn to answer again
    edit_requested = Signal(str, str)  # a user message and its turn, to edit and send again
    undo_memory_requested = Signal(str)  # a turn id: take back what the writer did for it
    forget_turn_requested = Signal(str, str)  # "别记住这个": the user's text, its turn id
    forget_memory_requested = Signal(str)  # "忘掉这条" on a chip: the memory id
    link_activated = Signal(str)

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
        self.empty_state = self._build_empty_state()
        self._column.insertWidget(0, self.empty_state, 2)  # about a third of the way down
        self.setWidget(self._area)
        self._bubbles: list[MessageBubble] = []
        self._rows: list[QWidget] = []
        self.verticalScrollBar().rangeChanged.connect(self._on_range_changed)
        self._follow = True
        self._target: int | None = None  # a position to come back to once laid out (keep_position)
        self.verticalScrollBar().valueChanged.connect(self._on_scrolled)

    def _build_empty_state(self) -> QLabel:
        label = QLabel(self._area)
        label.setObjectName("ChatEmptyState")
        label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        label.setWordWrap(True)
        label.setText(self.tr("嗨，我是 Sonetto。\n想聊什么都可以——我会记住对你重要的事。"))
        return label

    def _update_empty_state(self) -> None:
        self.empty_state.setVisible(not self._bubbles)

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
        self._target = None
        self._update_empty_state()

    def add_message(self, role: str, text: str = "", turn_id: str = "") -> MessageBubble:
        bubble = MessageBubble(role, text, max_width=self._bubble_width())
        bubble.turn_id = turn_id
        bubble.memory_clicked.connect(self.memory_clicked)
        bubble.link_activated.connect(self.link_activated)
        bubble.edit_requested.connect(self.edit_requested)
        bubble.undo_memory_requested.connect(self.undo_memory_requested)
        bubble.forget_turn_requested.connect(self.forget_turn_requested)
        bubble.forget_memory_requested.connect(self.forget_memory_requested)
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
        self._follow = True
        self._target = None
        self._update_empty_state()
        return bubble

    def remove_from_turn(self, turn_id: str) -> None:
        """Remove the messages of turn ``turn_id`` and everything after them (it is being replaced)."""
        index = next((i for i, b in enumerate(self._bubbles) if turn_id and b.turn_id == turn_id), None)
        if index is None:
            return
        for row in self._rows[index:]:
            self._column.removeWidget(row)
            row.hide()
            row.deleteLater()
        del self._rows[index:]
        del self._bubbles[index:]
        self._update_empty_state()

    def add_reply(self, user_text: str, turn_id: str = "") -> MessageBubble:
        """An empty assistant bubble whose retry button re-sends ``user_text``. A new reply answers
        everything before it: no earlier failed reply can be retried any more."""
        self.retire_retries()
        bubble = self.add_message("assistant", turn_id=turn_id)
        bubble.retry_requested.connect(lambda text=user_text: self.retry_requested.emit(text))
        bubble.regenerate_requested.connect(
            lambda text=user_text, b=bubble: self.regenerate_requested.emit(text, b.turn_id))
        return bubble

    def retire_retries(self) -> None:
        for bubble in self._bubbles:
            bubble.retire_retry()

    def load_transcript(self, entries: list[dict[str, Any]]) -> None:
        self.clear()
        last_user = ""
        for index, entry in enumerate(entries):
            role = entry.get("role", "assistant")
            turn_id = str(entry.get("turn_id") or "")
            if role == "user":
                last_user = str(entry.get("content", ""))
                self.add_message("user", last_user, turn_id)
                continue
            bubble = self.add_reply(last_user, turn_id)
            bubble.set_text(str(entry.get("content", "")))
            bubble.set_memories(list(entry.get("memories") or []))
            error = entry.get("error")
            if error and error.get("code") == "cancelled":
                bubble.set_stopped()
            elif error:
                message = error.get("en") if ui_language() == "en" else error.get("zh")
                # only the last reply can be retried: anything later already moved the chat on
                bubble.set_error(message or error.get("code", ""), retry=index == len(entries) - 1)
        later(self, self._scroll_after_load)

    def _scroll_after_load(self) -> None:
        if self._target is None:
            self.scroll_to_bottom()

    def reading_position(self) -> int | None:
        """Where the person is reading (the scroll bar's value), or None while the view follows the
        end of the chat: the argument :meth:`keep_position` takes back."""
        return None if self._follow and self._target is None else self.verticalScrollBar().value()

    def keep_position(self, value: int) -> None:
        """Scroll to ``value`` and stay there while the transcript is still being laid out (a view
        rebuilt for a language switch: where the person was reading)."""
        self._follow = False
        bar = self.verticalScrollBar()
        self._target = value if bar.maximum() < value else None  # not laid out that far yet
        bar.setValue(value)

    def scroll_to_turn(self, turn_id: str) -> bool:
        """Bring turn ``turn_id``'s user message into view and give it focus; False if not shown."""
        bubble = next((b for b in self._bubbles if turn_id and b.turn_id == turn_id and b.role == "user"), None)
        if bubble is None:
            return False
        self._follow = False
        self.ensureWidgetVisible(bubble, 0, 40)
        bubble.setFocus()
        return True

    def scroll_to_bottom(self) -> None:
        bar = self.verticalScrollBar()
        bar.setValue(bar.maximum())

    # ── layout ─────────────────────────────────────────────────────────

    def _bubble_width(self) -> int:
        margins = self._column.contentsMargins()
        usable = self.viewport().width() - margins.left() - margins.right()
        ratio = BUBBLE_WIDTH_RATIO if usable > NARROW else NARROW_RATIO  # a narrow pane: use it all
        return max(160, int(usable * ratio))

    def viewportEvent(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:  # the window, or a scroll bar coming and going
            width = self._bubble_width()
            for bubble in self._bubbles:
                bubble.set_max_width(width)
        return super().viewportEvent(event)

    def _on_scrolled(self, value: int) -> None:
        if self._target is not None:
            return  # still laying out towards keep_position's place
        bar = self.verticalScrollBar()
        self._follow = value >= bar.maximum() - 24

    def _on_range_changed(self, _low: int, high: int) -> None:
        if self._target is not None:
            self.verticalScrollBar().setValue(min(self._target, high))
            if high >= self._target:
                self._target = None  # there: from now on the person scrolls
        elif self._follow:
            self.verticalScrollBar().setValue(high)
