"""ChatView: a scrolling column of message bubbles (user right, Sonetto left), following the stream.

The empty state says what this chat does with memory (``set_empty_mode``; nothing while no chat is
open yet, so a start-up never flashes a greeting). ``scroll_to_turn`` brings a message into view
and keeps it there while the transcript is still being laid out, and highlights it for a moment.
"""

from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import QEvent, QPoint, Qt, QTimer, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QScrollArea, QVBoxLayout, QWidget

from ..widgets.deferred import alive, later
from ..widgets.focus import focus_within, give_focus
from ..i18n import ui_language
from .message_bubble import MessageBubble

BUBBLE_WIDTH_RATIO = 0.78
NARROW, NARROW_RATIO = 520, 0.94
#: The bubbles' least width, in a column that has it; a narrower one (the window at its smallest: the
#: session list and the wall at their own minimum leave the chat 130-160 px) gets bubbles as wide as
#: it is, inside margins of SQUEEZED_MARGIN, rather than a floor that hides them behind a sideways scroll.
MIN_BUBBLE = 160
SIDE_MARGIN, COMPACT_MARGIN, SQUEEZED_MARGIN = 18, 10, 6
HIGHLIGHT_MS = 3000  # a message found for the person (打开这段对话, a search hit) stays marked this long
ANCHOR_MARGIN = 48  # a found message sits this far below the top of the view


class ChatView(QScrollArea):
    memory_clicked = Signal(str)
    retry_requested = Signal(str, str)  # the user text to send again, the failed turn it replaces
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
        # A Tab stop (arrows and PgUp/PgDn read the chat) that a click inside does not take: clicking a
        # message's copy or 重试 leaves the focus in the input.
        self.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self._compact = compact
        self._area = QWidget()
        self._area.setObjectName("ChatArea")
        self._column = QVBoxLayout(self._area)
        self._side = COMPACT_MARGIN if compact else SIDE_MARGIN
        self._column.setContentsMargins(self._side, 12, self._side, 12)
        self._column.setSpacing(8 if compact else 12)
        self._column.addStretch(1)
        self.empty_state = self._build_empty_state()
        self._column.insertWidget(0, self.empty_state, 2)  # about a third of the way down
        self.setWidget(self._area)
        self._bubbles: list[MessageBubble] = []
        self._rows: list[QWidget] = []
        self._waiting = False  # a reply is coming: the replies' 重试 / 重新生成 wait (set_waiting)
        self.verticalScrollBar().rangeChanged.connect(self._on_range_changed)
        self._follow = True
        self._target: int | None = None  # a position to come back to once laid out (keep_position)
        self._anchor: MessageBubble | None = None  # a message to keep in view while laid out (scroll_to_turn)
        self._scrolling = False  # the view itself is moving the scroll bar
        self.verticalScrollBar().valueChanged.connect(self._on_scrolled)
        self.verticalScrollBar().sliderPressed.connect(self._drop_anchor)
        self._highlighted: list[MessageBubble] = []
        self._unhighlight = QTimer(self)
        self._unhighlight.setSingleShot(True)
        self._unhighlight.setInterval(HIGHLIGHT_MS)
        self._unhighlight.timeout.connect(self._clear_highlight)
        self.focus_fallback: Callable[[], QWidget | None] | None = None  # where focus goes when a focused control goes

    def _build_empty_state(self) -> QLabel:
        label = QLabel(self._area)
        label.setObjectName("ChatEmptyState")
        label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        label.setWordWrap(True)
        self._empty_mode = "on"
        label.setText(self._empty_text("on"))
        return label

    def _empty_text(self, mode: str) -> str:
        if mode == "temporary":
            return self.tr("这是临时对话。\n我不会回忆以前的事，也不会记住这里说的话；关闭后对话不保存。")
        if mode == "off":
            return self.tr("这个对话不使用记忆。\n我不会回忆以前的事，也不会记住这里说的话。")
        if mode == "no_write":
            return self.tr("嗨，我是 Sonetto。\n这个对话不会写进记忆，但我会回忆以前聊过的事。")
        if mode == "no_recall":
            return self.tr("嗨，我是 Sonetto。\n这个对话里我不回忆以前的事，但会记住对你重要的事。")
        if mode == "none":
            return ""  # no chat open yet (starting): nothing to promise
        return self.tr("嗨，我是 Sonetto。\n想聊什么都可以——我会记住对你重要的事。")

    @property
    def empty_mode(self) -> str:
        return self._empty_mode

    def set_empty_mode(self, mode: str) -> None:
        """What the empty chat says: the chat's memory mode (temporary | off | no_recall | no_write |
        on), or "none" while no chat is open (a neutral, empty view)."""
        self._empty_mode = mode
        self.empty_state.setText(self._empty_text(mode))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.empty_state.setText(self._empty_text(self._empty_mode))
        super().changeEvent(event)

    def _update_empty_state(self) -> None:
        self.empty_state.setVisible(not self._bubbles)

    # ── content ────────────────────────────────────────────────────────

    @property
    def bubbles(self) -> list[MessageBubble]:
        return list(self._bubbles)

    def clear(self) -> None:
        if any(focus_within(row) for row in self._rows):
            self._rehome_focus()
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
        self._anchor = None
        self._highlighted.clear()
        self._update_empty_state()

    def add_message(self, role: str, text: str = "", turn_id: str = "") -> MessageBubble:
        bubble = MessageBubble(role, text, max_width=self._bubble_width())
        bubble.turn_id = turn_id
        bubble.set_waiting(self._waiting)
        bubble.memory_clicked.connect(self.memory_clicked)
        bubble.link_activated.connect(self.link_activated)
        bubble.edit_requested.connect(self.edit_requested)
        bubble.undo_memory_requested.connect(self.undo_memory_requested)
        bubble.forget_turn_requested.connect(self.forget_turn_requested)
        bubble.forget_memory_requested.connect(self.forget_memory_requested)
        bubble.focus_leaving.connect(self._rehome_focus)
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
        self._anchor = None
        self._update_empty_state()
        return bubble

    def remove_from_turn(self, turn_id: str) -> None:
        """Remove the messages of turn ``turn_id`` and everything after them (it is being replaced)."""
        index = next((i for i, b in enumerate(self._bubbles) if turn_id and b.turn_id == turn_id), None)
        if index is None:
            return
        if any(focus_within(row) for row in self._rows[index:]):
            self._rehome_focus()
        for row in self._rows[index:]:
            self._column.removeWidget(row)
            row.hide()
            row.deleteLater()
        gone = self._bubbles[index:]
        del self._rows[index:]
        del self._bubbles[index:]
        if self._anchor in gone:
            self._anchor = None
        self._highlighted = [b for b in self._highlighted if b not in gone]
        self._update_empty_state()

    def add_reply(self, user_text: str, turn_id: str = "") -> MessageBubble:
        """An empty assistant bubble whose retry button re-sends ``user_text``. A new reply answers
        everything before it: no earlier failed reply can be retried any more."""
        self.retire_retries()
        bubble = self.add_message("assistant", turn_id=turn_id)
        QWidget.setTabOrder(self, bubble.retry_button)  # a failed reply's 重试: the stop after the transcript
        bubble.retry_requested.connect(lambda text=user_text, b=bubble: self.retry_requested.emit(text, b.turn_id))
        bubble.regenerate_requested.connect(
            lambda text=user_text, b=bubble: self.regenerate_requested.emit(text, b.turn_id))
        return bubble

    def _rehome_focus(self) -> None:
        """A focused control of the transcript is going away: the focus goes to the fallback (the
        input), else to the transcript, never on to whatever comes next in the window."""
        give_focus(self.focus_fallback() if self.focus_fallback is not None else None, lambda: self)

    def mark_memory_gone(self, memory_id: str) -> None:
        """A recalled memory was forgotten since: its chips say so (struck through, a tooltip)."""
        for bubble in self._bubbles:
            bubble.mark_memory_gone(memory_id)

    def set_waiting(self, waiting: bool) -> None:
        """A reply is coming (one at a time): the replies' 重试 / 重新生成 wait until it has ended."""
        self._waiting = waiting
        for bubble in self._bubbles:
            bubble.set_waiting(waiting)

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
        if self._target is None and self._anchor is None:
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

    def turns_after(self, turn_id: str) -> int:
        """How many turns the view shows after turn ``turn_id`` (0: it is the last, or not shown)."""
        index = next((i for i, b in enumerate(self._bubbles) if turn_id and b.turn_id == turn_id), None)
        if index is None:
            return 0
        return len({b.turn_id or id(b) for b in self._bubbles[index:] if b.turn_id != turn_id and b.role == "user"})

    def bubble_of_turn(self, turn_id: str, role: str = "user") -> MessageBubble | None:
        return next((b for b in self._bubbles if turn_id and b.turn_id == turn_id and b.role == role), None)

    def scroll_to_turn(self, turn_id: str) -> bool:
        """Bring turn ``turn_id``'s user message near the top of the view, keep it there while the
        transcript is still being laid out (long replies render a few pieces per loop turn) until
        the person scrolls, and highlight it and its reply for a moment. False if not shown."""
        bubble = self.bubble_of_turn(turn_id)
        if bubble is None:
            return False
        self._anchor_on(bubble, [b for b in (bubble, self.bubble_of_turn(turn_id, "assistant")) if b is not None])
        return True

    def scroll_to_entry(self, index: int) -> bool:
        """The same for the transcript's ``index``-th message (an entry stored without a turn id)."""
        if not 0 <= index < len(self._bubbles):
            return False
        self._anchor_on(self._bubbles[index], [self._bubbles[index]])
        return True

    def _anchor_on(self, bubble: MessageBubble, highlighted: list[MessageBubble]) -> None:
        self._follow = False
        self._target = None
        self._anchor = bubble
        self._apply_anchor()
        self.highlight(highlighted)

    @property
    def anchored(self) -> bool:
        """A message is being kept in view (scroll_to_turn) until the person scrolls."""
        return self._anchor is not None

    def highlight(self, bubbles: list[MessageBubble]) -> None:
        self._clear_highlight()
        self._highlighted = list(bubbles)
        for bubble in bubbles:
            _set_highlighted(bubble, True)
        self._unhighlight.start()

    def _clear_highlight(self) -> None:
        for bubble in self._highlighted:
            if alive(bubble):
                _set_highlighted(bubble, False)
        self._highlighted = []

    def _apply_anchor(self) -> None:
        bubble = self._anchor
        if bubble is None or not alive(bubble):
            self._anchor = None
            return
        self._column.activate()
        top = bubble.mapTo(self._area, QPoint(0, 0)).y()
        bar = self.verticalScrollBar()
        self._scrolling = True
        try:
            bar.setValue(max(0, min(top - ANCHOR_MARGIN, bar.maximum())))
        finally:
            self._scrolling = False

    def _drop_anchor(self) -> None:
        self._anchor = None

    def wheelEvent(self, event) -> None:
        self._drop_anchor()  # the person scrolls: from here on the view is theirs
        super().wheelEvent(event)

    def keyPressEvent(self, event) -> None:
        self._drop_anchor()
        super().keyPressEvent(event)

    def scroll_to_bottom(self) -> None:
        bar = self.verticalScrollBar()
        bar.setValue(bar.maximum())

    # ── layout ─────────────────────────────────────────────────────────

    def _bubble_width(self) -> int:
        margins = self._column.contentsMargins()
        usable = self.viewport().width() - margins.left() - margins.right()
        ratio = BUBBLE_WIDTH_RATIO if usable > NARROW else NARROW_RATIO  # a narrow pane: use it all
        return max(min(MIN_BUBBLE, usable), int(usable * ratio))

    def _fit_margins(self) -> None:
        """The column's side margins: its own, or SQUEEZED_MARGIN where they would leave a bubble less
        than MIN_BUBBLE."""
        side = self._side if self.viewport().width() - 2 * self._side >= MIN_BUBBLE else SQUEEZED_MARGIN
        margins = self._column.contentsMargins()
        if margins.left() != side:
            self._column.setContentsMargins(side, margins.top(), side, margins.bottom())

    def viewportEvent(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:  # the window, or a scroll bar coming and going
            self._fit_margins()
            width = self._bubble_width()
            for bubble in self._bubbles:
                bubble.set_max_width(width)
        return super().viewportEvent(event)

    def _on_scrolled(self, value: int) -> None:
        if self._target is not None or self._anchor is not None:
            return  # still laying out towards keep_position's place, or keeping a message in view
        bar = self.verticalScrollBar()
        self._follow = value >= bar.maximum() - 24

    def _on_range_changed(self, _low: int, high: int) -> None:
        if self._anchor is not None:
            self._apply_anchor()
            if self._highlighted:
                self._unhighlight.start()  # the highlight lasts from when the message settled in view
        elif self._target is not None:
            self.verticalScrollBar().setValue(min(self._target, high))
            if high >= self._target:
                self._target = None  # there: from now on the person scrolls
        elif self._follow:
            self.verticalScrollBar().setValue(high)


def _set_highlighted(bubble: MessageBubble, on: bool) -> None:
    bubble.setProperty("highlighted", on)
    bubble.style().unpolish(bubble)
    bubble.style().polish(bubble)
