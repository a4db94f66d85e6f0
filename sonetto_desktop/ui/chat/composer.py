"""Composer: the message input (Enter sends, Shift+Enter is a new line) with a send / stop button."""

from __future__ import annotations

import math

from PySide6.QtCore import QEvent, QObject, QSize, Qt, Signal
from PySide6.QtGui import QFont, QFontMetrics, QKeyEvent, QTextLayout, QTextOption
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPlainTextEdit, QToolButton, QVBoxLayout, QWidget

from ..widgets.icons import icon


def _line_height(font: QFont) -> float:
    """The height of a line of text in ``font``, a Chinese one included (set in the fallback CJK font,
    taller than the font's own line spacing)."""
    tallest = 0.0
    for sample in ("Sonetto", "和 Sonetto 说点什么"):
        layout = QTextLayout(sample, font)
        layout.beginLayout()
        line = layout.createLine()
        layout.endLayout()
        tallest = max(tallest, line.height())
    return max(tallest, float(QFontMetrics(font).lineSpacing()))


def placeholder_lines(editor: QPlainTextEdit) -> int:
    """How many lines ``editor``'s placeholder takes at the editor's width."""
    width = editor.viewport().width() - 2 * editor.document().documentMargin()
    layout = QTextLayout(editor.placeholderText(), editor.font())
    option = QTextOption()
    option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
    layout.setTextOption(option)
    layout.beginLayout()
    lines = 0
    while (line := layout.createLine()).isValid():
        line.setLineWidth(max(1.0, width))
        lines += 1
    layout.endLayout()
    return lines


class Composer(QWidget):
    send_requested = Signal(str)
    stop_requested = Signal()
    typing = Signal()  # the text changed and is not empty (the chat gets ready for a turn)

    def __init__(self, parent: QWidget | None = None, *, max_lines: int = 6) -> None:
        super().__init__(parent)
        self.setObjectName("Composer")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        column = QVBoxLayout(self)
        column.setContentsMargins(12, 10, 12, 10)
        column.setSpacing(6)
        column.addWidget(self._build_editing_bar())
        layout = QHBoxLayout()
        layout.setSpacing(8)
        column.addLayout(layout)
        self.input = QPlainTextEdit(self)
        self.input.setObjectName("ComposerInput")
        # The hint with its keys, or where the input is too narrow for it in its lines (the window at its
        # smallest) the first half alone: cut mid-sentence it read as a fault.
        self.hints = (self.tr("和 Sonetto 说点什么…（Enter 发送，Shift+Enter 换行）"), self.tr("和 Sonetto 说点什么…"))
        self.input.setPlaceholderText(self.hints[0])
        self.input.setTabChangesFocus(True)
        self.input.installEventFilter(self)
        self.input.viewport().installEventFilter(self)
        self._lines = min(max_lines, 3)
        self._fit_input()
        self.input.textChanged.connect(self._on_text_changed)
        layout.addWidget(self.input, 1)

        self.send_button = QToolButton(self)
        self.send_button.setObjectName("SendButton")
        self.send_button.setIcon(icon("send"))
        self.send_button.setIconSize(QSize(18, 18))
        self.send_button.setToolTip(self.tr("发送 (Enter)"))
        self.send_button.clicked.connect(self.submit)
        self.stop_button = QToolButton(self)
        self.stop_button.setObjectName("StopButton")
        self.stop_button.setIcon(icon("stop"))
        self.stop_button.setIconSize(QSize(16, 16))
        self.stop_button.setToolTip(self.tr("停止回复"))
        self.stop_button.clicked.connect(self.stop_requested)
        self.stop_button.hide()
        for button in (self.send_button, self.stop_button):  # a click leaves the focus in the input
            button.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        layout.addWidget(self.send_button, 0, Qt.AlignmentFlag.AlignBottom)
        layout.addWidget(self.stop_button, 0, Qt.AlignmentFlag.AlignBottom)
        self._busy = False
        self._waiting = False
        self._enabled = True
        self._update_buttons()

    def _build_editing_bar(self) -> QWidget:
        self.editing_bar = QWidget(self)
        self.editing_bar.setObjectName("EditingBar")
        row = QHBoxLayout(self.editing_bar)
        row.setContentsMargins(0, 0, 0, 0)
        hint = QLabel(self.tr("正在编辑一条消息：发送后会替换它和之后的对话，那几轮让 Sonetto 记下的变化也会撤销（可以再恢复）"),
                      self.editing_bar)
        hint.setObjectName("HintLabel")
        hint.setWordWrap(True)
        cancel = QToolButton(self.editing_bar)
        cancel.setText(self.tr("取消编辑"))
        cancel.clicked.connect(self.cancel_editing)
        row.addWidget(hint, 1)
        row.addWidget(cancel)
        self.editing_bar.hide()
        self._editing = ""
        self._before_edit = ""  # what was typed before an earlier message was put here to edit
        return self.editing_bar

    @property
    def editing_turn(self) -> str:
        """The turn a send will replace ("" for a new message)."""
        return self._editing

    def set_editing(self, turn_id: str) -> None:
        if turn_id and not self._editing:
            self._before_edit = self.text()
        self._editing = turn_id
        self.editing_bar.setVisible(bool(turn_id))

    def cancel_editing(self) -> None:
        """Stop editing: what was typed before the edit comes back."""
        if self._editing:
            self.set_editing("")
            self.input.setPlainText(self._before_edit)
            self._before_edit = ""

    def finish_editing(self) -> None:
        """The edited message was sent: an empty input gets back what was typed before the edit."""
        if self._editing:
            self.set_editing("")
            if not self.text():
                self.input.setPlainText(self._before_edit)
            self._before_edit = ""

    def draft_text(self) -> str:
        """The unsent text of this chat (while editing an earlier message: what was there before)."""
        return self._before_edit if self._editing else self.text()

    def text(self) -> str:
        return self.input.toPlainText()

    def set_text(self, text: str) -> None:
        self.input.setPlainText(text)

    def put_before_draft(self, text: str) -> None:
        """``text`` (a chat's draft that arrived late) goes before what was typed meanwhile (or put aside
        while an earlier message is edited), where it would have been had it shown at once; the cursor
        stays where it was in what was typed, at the end when nothing was."""
        if not text:
            return
        if self._editing:
            self._before_edit = text + self._before_edit
            return
        typed = self.text()
        cursor = self.input.textCursor()
        position, anchor = cursor.position(), cursor.anchor()
        self.input.setPlainText(text + typed)
        cursor = self.input.textCursor()
        if typed:
            shift = len(text.encode("utf-16-le")) // 2  # (the document counts UTF-16 units)
            cursor.setPosition(anchor + shift)
            cursor.setPosition(position + shift, cursor.MoveMode.KeepAnchor)
        else:
            cursor.movePosition(cursor.MoveOperation.End)
        self.input.setTextCursor(cursor)

    def set_busy(self, busy: bool) -> None:
        self._busy = busy
        self.send_button.setVisible(not busy)
        self.stop_button.setVisible(busy)
        self._update_buttons()

    def set_waiting(self, waiting: bool) -> None:
        """Another chat's reply is coming: sending waits until it has ended (the button says so)."""
        self._waiting = waiting
        self.send_button.setToolTip(self.tr("另一个对话还在回复，结束后就能发送") if waiting else self.tr("发送 (Enter)"))
        self._update_buttons()

    def set_ready(self, ready: bool) -> None:
        self._enabled = ready
        self._update_buttons()

    def submit(self) -> None:
        text = self.text()
        if self._busy or self._waiting or not self._enabled or not text.strip():
            return
        self.send_requested.emit(text)

    def clear_if(self, text: str) -> None:
        """Clear the input after a send, unless the person already typed something else."""
        if self.text() == text:
            self.input.clear()

    def _on_text_changed(self) -> None:
        self._update_buttons()
        if self.text().strip():
            self.typing.emit()

    def _update_buttons(self) -> None:
        self.send_button.setEnabled(self._enabled and not self._busy and not self._waiting and bool(self.text().strip()))

    def _fit_input(self) -> None:
        """The input as tall as its lines of Chinese, its document's margins and what the style sheet's
        border and padding take (the font's line spacing plus 18 px was short: a Chinese line, in the
        CJK fallback font, is taller than a Latin one, and the third line was cut)."""
        editor = self.input
        editor.ensurePolished()
        margins = editor.contentsMargins()
        # (+ 1: QPlainTextEdit counts a line as shown when it ends a pixel inside the viewport)
        height = (self._lines * _line_height(editor.font()) + 2 * editor.document().documentMargin() + 1
                  + margins.top() + margins.bottom())
        editor.setFixedHeight(math.ceil(height))

    def _fit_hint(self) -> None:
        editor = self.input
        editor.setPlaceholderText(self.hints[0])
        if placeholder_lines(editor) > self._lines:
            editor.setPlaceholderText(self.hints[1])

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.input and event.type() in (QEvent.Type.StyleChange, QEvent.Type.FontChange):
            self._fit_input()
        if watched is self.input.viewport() and event.type() == QEvent.Type.Resize:
            self._fit_hint()  # (the viewport's: the input's own comes before the viewport has its width)
        if watched is self.input and event.type() == QEvent.Type.KeyPress:
            key_event: QKeyEvent = event  # type: ignore[assignment]
            if key_event.key() == Qt.Key.Key_Escape and self._editing:
                self.cancel_editing()
                return True
            if key_event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
                if self.input.textCursor().block().layout().preeditAreaText():
                    # An input method is composing: Enter is its to confirm the candidate (it commits
                    # the text itself); the editor must not break the line under it, nor send.
                    return True
                if key_event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
                    return False  # Shift+Enter: the editor inserts a new line
                self.submit()
                return True
        return super().eventFilter(watched, event)
