"""One chat message: Markdown text, tool activity, recalled-memory chips, an inline error or a calm
"stopped" marker, and the message's actions (copy; regenerate a reply; edit and resend a message).

Every text part is a :class:`BubbleText`, sized to its content within the width the chat view
gives (``set_max_width``), so nothing is cut off at any width, while streaming or after a resize.
"""

from __future__ import annotations

import html
import os
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QFrame,
    QGraphicsOpacityEffect,
    QHBoxLayout,
    QMenu,
    QPushButton,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from .bubble_text import BubbleText
from ..widgets.flow_layout import FlowLayout
from ..widgets.icons import icon
from .markdown_render import render_markdown
from .reply_text import ReplyText
from ..widgets.deferred import later

CHIP_CHARS = 16
RENDER_DELAY_MS = 40  # streaming re-renders at most ~25 times a second
MARGIN_X, MARGIN_Y = 12, 8
ERROR_MARGINS = (10, 6, 6, 6)
QUIET_OPACITY = 0.45
COPIED_MS = 1500

__all__ = ["MessageBubble", "chip_text", "chip_texts", "render_markdown"]


def chip_text(description: str, limit: int = CHIP_CHARS) -> str:
    text = " ".join((description or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


#: A chip that must show where its memory differs from another's keeps this much of its start.
CHIP_HEAD = 6
#: ... and steps back at most this far to start the part that differs at a word's start.
_WORD_BACK = 8


def chip_texts(descriptions: list[str], limit: int = CHIP_CHARS) -> list[str]:
    """``chip_text`` of each, except where two would read the same ("User allergic t…" twice for two
    near-identical memories): those keep their first words and show, after "…", where they differ from
    the others ("User a…peanuts" / "User a…penicillin", each cut to about ``limit`` characters again).
    The same memory text twice stays the same (nothing differs)."""
    flat = [" ".join((d or "").split()) for d in descriptions]
    short = [chip_text(text, limit) for text in flat]
    shown = list(short)
    for i, text in enumerate(flat):
        twins = [other for j, other in enumerate(flat) if j != i and short[j] == short[i] and other != text]
        if not twins or len(text) <= limit:
            continue
        room = max(2, limit - 2)  # (a little more than a plain chip: enough to tell them apart)
        # where it differs from the twin it is most like (its end, when it is the start of a longer one)
        differs = min(max(len(os.path.commonprefix([text, other])) for other in twins), len(text) - room // 2)
        space = text.rfind(" ", max(CHIP_HEAD, differs - _WORD_BACK), differs)
        start = max(CHIP_HEAD, space + 1 if space != -1 else differs)
        tail = text[start:]
        tail = tail if len(tail) <= room else tail[: room - 1] + "…"
        shown[i] = text[:CHIP_HEAD].rstrip() + "…" + tail
    return shown


USER_ACTION_COLOR = "#f4f6ff"


class MessageBubble(QFrame):
    """``role`` is "user" or "assistant". Assistant bubbles stream (``append_token``)."""

    memory_clicked = Signal(str)
    retry_requested = Signal()
    regenerate_requested = Signal()
    edit_requested = Signal(str, str)  # the user's text and its turn, to edit and send again
    link_activated = Signal(str)
    undo_memory_requested = Signal(str)  # "撤销这轮的记忆变化": the turn id
    forget_turn_requested = Signal(str, str)  # "别记住这个": the user's text and its turn id
    forget_memory_requested = Signal(str)  # "忘掉这条" on a recalled-memory chip: the memory id
    focus_leaving = Signal()  # the focused control of this bubble is going away (the view re-homes the focus)

    def __init__(self, role: str, text: str = "", parent: QWidget | None = None, *, max_width: int = 480) -> None:
        super().__init__(parent)
        self.role = role
        self._turn_id = ""  # the engine's turn this message belongs to ("" until known)
        self._answering = False  # a user message whose reply is still coming
        self._text = text
        self._stopped = False
        self._waiting = False  # another reply is coming: 重试 / 重新生成 wait until it has ended
        self._memories: list[dict[str, Any]] = []
        self.setObjectName("UserBubble" if role == "user" else "AssistantBubble")
        self.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Fixed)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(MARGIN_X, MARGIN_Y, MARGIN_X, MARGIN_Y)
        layout.setSpacing(6)
        layout.setSizeConstraint(QVBoxLayout.SizeConstraint.SetMinimumSize)

        if role == "user":
            self.label: BubbleText | ReplyText = BubbleText(self)
            self.label.setObjectName("BubbleText")
            self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        else:  # Markdown in pieces; links go through a confirmation (link_activated)
            self.label = ReplyText(self)
            self.label.link_activated.connect(self.link_activated)
        layout.addWidget(self.label)

        self.tool_label = BubbleText(self)
        self.tool_label.setObjectName("ToolLine")
        # selectable: laid out as a document, so a long tool name breaks instead of being cut off
        self.tool_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.tool_label.hide()
        layout.addWidget(self.tool_label)

        self.chips = QWidget(self)
        self.chip_layout = FlowLayout(self.chips)
        self.chips.hide()
        layout.addWidget(self.chips)

        self.stopped_label = BubbleText(self)
        self.stopped_label.setObjectName("StoppedMarker")
        self.stopped_label.hide()
        layout.addWidget(self.stopped_label)

        self.error_box = QFrame(self)
        self.error_box.setObjectName("ErrorBox")
        error_layout = QVBoxLayout(self.error_box)  # the message over its retry button: the message
        error_layout.setContentsMargins(*ERROR_MARGINS)  # keeps the bubble's width even when narrow
        error_layout.setSpacing(4)
        self.error_label = BubbleText(self.error_box)
        # selectable (the person may copy what went wrong), and so a long URL in it breaks, not cut off
        self.error_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.retry_button = QPushButton(icon("retry"), self.tr("重试"), self.error_box)
        self.retry_button.setFocusPolicy(Qt.FocusPolicy.TabFocus)  # a click leaves the focus where it was
        self.retry_button.clicked.connect(self._on_retry_clicked)
        error_layout.addWidget(self.error_label)
        error_layout.addWidget(self.retry_button, 0, Qt.AlignmentFlag.AlignRight)
        self.error_box.hide()
        layout.addWidget(self.error_box)

        layout.addWidget(self._build_actions())

        self._render_timer = QTimer(self)
        self._render_timer.setSingleShot(True)
        self._render_timer.setInterval(RENDER_DELAY_MS)
        self._render_timer.timeout.connect(self._render)
        self._max_width = 0
        self.set_max_width(max_width)
        self._render()

    def _build_actions(self) -> QWidget:
        self.actions = QWidget(self)
        self.actions.setObjectName("BubbleActions")
        row = QHBoxLayout(self.actions)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(2)
        row.addStretch(1)
        self._actions_fade = QGraphicsOpacityEffect(self.actions)
        self._actions_fade.setOpacity(QUIET_OPACITY)  # quiet until the pointer or focus is on the bubble
        self.actions.setGraphicsEffect(self._actions_fade)
        self.copy_button = self._action("copy", self.tr("复制"), self.copy_text)
        row.addWidget(self.copy_button)
        if self.role == "user":
            self.edit_button = self._action("edit", self.tr("编辑后重新发送"), lambda: self.edit_requested.emit(self._text, self.turn_id))
            row.addWidget(self.edit_button)
            self._update_edit_button()
            self.memory_button = self._action("memory", self.tr("这轮的记忆"), lambda: None)
            memory_menu = QMenu(self.memory_button)
            self.undo_memory_action = memory_menu.addAction(
                self.tr("撤销这轮的记忆变化"), lambda: self.undo_memory_requested.emit(self.turn_id))
            self.forget_turn_action = memory_menu.addAction(
                self.tr("别记住这个"), lambda: self.forget_turn_requested.emit(self._text, self.turn_id))
            memory_menu.aboutToShow.connect(self._update_memory_menu)
            self.memory_button.setMenu(memory_menu)
            self.memory_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
            row.addWidget(self.memory_button)
        else:
            self.regenerate_button = self._action("retry", self.tr("重新生成"), self.regenerate_requested.emit)
            row.addWidget(self.regenerate_button)
        return self.actions

    @property
    def turn_id(self) -> str:
        return self._turn_id

    @turn_id.setter
    def turn_id(self, turn_id: str) -> None:
        self._turn_id = turn_id
        if self.role == "user":
            self._update_edit_button()

    def set_answering(self, answering: bool) -> None:
        """This (user) message's reply is coming (True) or has ended (False)."""
        self._answering = answering
        if self.role == "user":
            self._update_edit_button()

    def _update_edit_button(self) -> None:
        """A message is edited by replacing its turn: not while its reply is still coming (an edit then
        would only overwrite what is being typed), nor without a turn to replace (a message that was
        not stored)."""
        editable = bool(self._turn_id) and not self._answering
        self.edit_button.setEnabled(editable)
        tip = (self.tr("编辑后重新发送") if editable else self.tr("回复结束后才能编辑这条消息") if self._answering
               else self.tr("这条消息不能编辑"))
        self.edit_button.setToolTip(tip)
        self.edit_button.setAccessibleName(tip)

    def enterEvent(self, event) -> None:
        self._actions_fade.setOpacity(1.0)
        super().enterEvent(event)

    def leaveEvent(self, event) -> None:
        self._actions_fade.setOpacity(QUIET_OPACITY)
        super().leaveEvent(event)

    def _action(self, name: str, tip: str, slot: Any) -> QToolButton:
        button = QToolButton(self.actions)
        button.setObjectName("BubbleAction")
        # On the user's accent-coloured bubble the icons are drawn light (both themes' user bubble
        # text is near white), so they stay visible; on replies they keep their own colour.
        button.setIcon(icon(name, USER_ACTION_COLOR) if self.role == "user" else icon(name))
        button.setToolTip(tip)
        button.setAccessibleName(tip)
        button.setAutoRaise(True)
        # Not a Tab stop (a long chat would be dozens of them between the transcript and the input)
        # and never taking the focus from the input on a click.
        button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        button.clicked.connect(lambda _=False: slot())
        return button

    # ── size ───────────────────────────────────────────────────────────

    def set_max_width(self, width: int) -> None:
        """The widest this bubble may be (the chat view's share of its width)."""
        width = max(120, int(width))
        if width == self._max_width:
            return
        self._max_width = width
        self.setMaximumWidth(width)
        inner = width - 2 * MARGIN_X - 2  # 2: the assistant bubble's border
        for part in (self.label, self.tool_label, self.stopped_label):
            part.set_width_limit(inner)
        left, _top, right, _bottom = ERROR_MARGINS
        self.error_label.set_width_limit(max(40, inner - left - right - 2))
        self._fit_chips()

    def _fit_chips(self) -> None:
        inner = self._max_width - 2 * MARGIN_X - 2
        for chip in self.chip_buttons():  # a chip wider than the bubble is shortened (…), not cut at its edge
            full = chip.property("full_text")
            chip.setText(full)
            wide = chip.sizeHint().width()
            if wide > inner:
                room = inner - (wide - chip.fontMetrics().horizontalAdvance(full))  # less its icon and padding
                # a chip that shows where it differs from another gives up its start first (the part it shares)
                text = "…" + full.split("…", 1)[1] if chip.property("differs") else full
                chip.setText(chip.fontMetrics().elidedText(text, Qt.TextElideMode.ElideRight, max(0, room)))
        chips = [self.chip_layout.itemAt(i).sizeHint().width() for i in range(self.chip_layout.count())]
        natural = sum(chips) + 6 * max(0, len(chips) - 1)
        width = max(1, min(natural, inner))
        self.chips.setFixedSize(width, self.chip_layout.heightForWidth(width) if chips else 0)

    # ── content ────────────────────────────────────────────────────────

    @property
    def text(self) -> str:
        return self._text

    @property
    def memories(self) -> list[dict[str, Any]]:
        return list(self._memories)

    @property
    def stopped(self) -> bool:
        return self._stopped

    def set_text(self, text: str) -> None:
        self._text = text
        self._render()

    def append_token(self, token: str) -> None:
        self._text += token
        if not self._render_timer.isActive():
            self._render_timer.start()

    def flush(self) -> None:
        """Render now (end of a stream)."""
        self._render_timer.stop()
        self._render()

    def _render(self) -> None:
        if isinstance(self.label, BubbleText):
            self.label.setText(self._text)
        elif self._text:
            self.label.set_markdown(self._text)
        elif self._stopped or self.error_box.isVisibleTo(self):
            self.label.set_pieces([])
        else:
            thinking = self.tr("思考中…")
            self.label.set_pieces(["<span>" + html.escape(thinking) + "</span>"])
        self.label.setVisible(bool(self.label.text()))
        self.copy_button.setVisible(bool(self._text))
        if self.role != "user":  # a failed reply has its retry; a stopped or finished one can be redone
            self.regenerate_button.setVisible(not self.error_box.isVisibleTo(self))

    def copy_text(self) -> None:
        """Copy the message as written; the button says so for a moment (a check, "已复制")."""
        QGuiApplication.clipboard().setText(self._text)
        button = self.copy_button
        button.setIcon(icon("check"))
        button.setToolTip(self.tr("已复制"))
        button.setAccessibleName(self.tr("已复制"))
        later(button, self._copied_done, COPIED_MS)

    def _copied_done(self) -> None:
        button = self.copy_button
        button.setIcon(icon("copy", USER_ACTION_COLOR) if self.role == "user" else icon("copy"))
        button.setToolTip(self.tr("复制"))
        button.setAccessibleName(self.tr("复制"))

    @property
    def copied(self) -> bool:
        """The copy button is saying "已复制"."""
        return self.copy_button.toolTip() == self.tr("已复制")

    def set_tool_activity(self, text: str) -> None:
        self.tool_label.setText(text)
        self.tool_label.setVisible(bool(text))

    def set_memories(self, memories: list[dict[str, Any]]) -> None:
        while self.chip_layout.count():
            item = self.chip_layout.takeAt(0)
            if item is not None and item.widget() is not None:
                item.widget().deleteLater()
        self._memories = [m for m in memories if m.get("id")]
        texts = chip_texts([str(m.get("description", "")) for m in self._memories])
        for memory, text in zip(self._memories, texts, strict=True):
            chip = QPushButton(icon("memory"), text, self.chips)
            chip.setObjectName("MemoryChip")
            chip.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            chip.setCursor(Qt.CursorShape.PointingHandCursor)
            chip.setToolTip(self.tr("{0}：{1}").format(memory.get("theme", ""), memory.get("description", "")))
            chip.setProperty("memory_id", memory["id"])
            chip.setProperty("full_text", chip.text())
            chip.setProperty("differs", text != chip_text(str(memory.get("description", ""))))
            chip.clicked.connect(lambda _=False, mid=memory["id"]: self.memory_clicked.emit(mid))
            chip.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
            chip.customContextMenuRequested.connect(
                lambda pos, c=chip, mid=memory["id"]: self.chip_menu(c, mid).popup(c.mapToGlobal(pos)))
            self.chip_layout.addWidget(chip)
            chip.ensurePolished()  # measured with the style sheet's padding, as it will be drawn
        self._fit_chips()
        self.chips.setVisible(bool(self._memories))

    def mark_memory_gone(self, memory_id: str) -> None:
        for chip in self.chip_buttons():
            if chip.property("memory_id") == memory_id and not chip.property("gone"):
                chip.setProperty("gone", True)
                chip.setToolTip(self.tr("这条记忆已不在了（已忘掉或合并）"))
                chip.style().unpolish(chip)
                chip.style().polish(chip)

    def chip_menu(self, chip: QPushButton, memory_id: str) -> QMenu:
        """A recalled memory's menu (right-click on its chip): find its card, or forget it."""
        menu = QMenu(chip)
        menu.addAction(self.tr("在记忆墙上查看"), lambda: self.memory_clicked.emit(memory_id))
        menu.addAction(self.tr("忘掉这条"), lambda: self.forget_memory_requested.emit(memory_id))
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        return menu

    def _update_memory_menu(self) -> None:
        known = bool(self.turn_id)  # a message not yet answered has no turn to undo
        self.undo_memory_action.setEnabled(known)
        self.forget_turn_action.setEnabled(known)

    def chip_buttons(self) -> list[QPushButton]:
        return [self.chip_layout.itemAt(i).widget() for i in range(self.chip_layout.count())]

    def set_waiting(self, waiting: bool) -> None:
        """A reply is coming (in this chat or another: one at a time): 重试 and 重新生成 could not send
        now, so they wait, saying why, instead of being used up for nothing."""
        self._waiting = waiting
        if self.role == "user":
            return
        if not self.retry_button.isHidden():  # (a retired 重试 stays retired)
            self.retry_button.setEnabled(not waiting)
        self.retry_button.setToolTip(self.tr("等正在进行的回复结束后才能重试") if waiting else "")
        tip = self.tr("等正在进行的回复结束后才能重新生成") if waiting else self.tr("重新生成")
        self.regenerate_button.setEnabled(not waiting)
        self.regenerate_button.setToolTip(tip)
        self.regenerate_button.setAccessibleName(tip)

    def set_error(self, message: str, *, retry: bool = True) -> None:
        self.flush()
        self.error_label.setText(message)
        self.retry_button.setVisible(retry)
        self.retry_button.setEnabled(retry and not self._waiting)
        self.error_box.setVisible(bool(message))
        self._render()

    def set_stopped(self) -> None:
        """The person stopped this reply: a calm marker, not an error (whatever streamed stays)."""
        self.flush()
        self._stopped = True
        self.error_box.hide()
        self.stopped_label.setText(self.tr("已停止"))
        self.stopped_label.show()
        self._render()

    def retire_retry(self) -> None:
        """This failed reply was answered by a later turn: its retry can never send again."""
        if self.retry_button.hasFocus():
            self.focus_leaving.emit()
        self.retry_button.setEnabled(False)
        self.retry_button.hide()

    @property
    def can_retry(self) -> bool:
        return self.error_box.isVisibleTo(self) and self.retry_button.isEnabled() and not self.retry_button.isHidden()

    def _on_retry_clicked(self) -> None:
        if self.can_retry:
            self.retire_retry()  # one click, one send
            self.retry_requested.emit()

    @property
    def error_text(self) -> str:
        return self.error_label.text() if self.error_box.isVisibleTo(self) else ""
