"""CodeBlock: one fenced code block of a reply, drawn as code, never cut off.

A read-only monospace editor that does not wrap: a line wider than the bubble scrolls sideways
(its own horizontal scroll bar, shown only when needed), while the block is as tall as its lines,
so the chat scrolls it vertically like any text. A header names the language (the fence's info
string) and holds a copy button that copies exactly this block's code and says so ("已复制").
While a reply streams, the block grows by appending what came in (linear in the code).

WideText: a rich text piece (a table) that is as wide as it must be and scrolls sideways when
that is wider than the bubble, instead of being painted past the bubble's edge.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QEvent, QObject, Qt, QTimer, Signal
from PySide6.QtGui import QFontDatabase, QGuiApplication, QTextCursor, QTextDocument, QTextOption
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QScrollArea,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ..widgets.icons import icon
from .bubble_text import QWIDGETSIZE_MAX, BubbleText

COPIED_MS = 1500
EDITOR_MARGIN = 6  # the document's margin inside the editor


def _horizontal_bar_height(area: QScrollArea | QPlainTextEdit) -> int:
    bar = area.horizontalScrollBar()
    bar.ensurePolished()
    return max(bar.sizeHint().height(), 8)


class CodeBlock(QFrame):
    copied = Signal(str)  # the code that was put on the clipboard

    def __init__(self, parent: QWidget | None = None, *, limit: int = 480) -> None:
        super().__init__(parent)
        self.setObjectName("CodeBlock")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self._limit = max(80, limit)
        self._language = ""
        self._code = ""
        column = QVBoxLayout(self)
        column.setContentsMargins(1, 1, 1, 1)
        column.setSpacing(0)

        header = QWidget(self)
        header.setObjectName("CodeHeader")
        row = QHBoxLayout(header)
        row.setContentsMargins(10, 2, 4, 2)
        row.setSpacing(4)
        self.language_label = QLabel(header)
        self.language_label.setObjectName("CodeLanguage")
        self.copy_button = QToolButton(header)
        self.copy_button.setObjectName("CodeCopy")
        self.copy_button.setIcon(icon("copy"))
        self.copy_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.copy_button.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # like the bubble's own actions
        self.copy_button.clicked.connect(self.copy_code)
        row.addWidget(self.language_label, 1)
        row.addWidget(self.copy_button)
        column.addWidget(header)

        self.editor = QPlainTextEdit(self)
        self.editor.setObjectName("CodeText")
        self.editor.setReadOnly(True)
        self.editor.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse
                                            | Qt.TextInteractionFlag.TextSelectableByKeyboard)
        self.editor.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.editor.setWordWrapMode(QTextOption.WrapMode.NoWrap)
        self.editor.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.editor.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.editor.setFrameShape(QFrame.Shape.NoFrame)
        self.editor.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        self.editor.document().setDocumentMargin(EDITOR_MARGIN)
        self.editor.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.editor.installEventFilter(self)  # a style sheet may change its font: measure again
        column.addWidget(self.editor)

        self._copied = QTimer(self)
        self._copied.setSingleShot(True)
        self._copied.setInterval(COPIED_MS)
        self._copied.timeout.connect(self._retranslate)
        self._widest = 0  # the widest line's advance so far (lines only ever grow while streaming)
        self._retranslate()

    # ── content ────────────────────────────────────────────────────────

    @property
    def code(self) -> str:
        return self._code

    @property
    def language(self) -> str:
        return self._language

    def text(self) -> str:
        return self._code

    def set_code(self, language: str, code: str) -> None:
        """Show ``code``; when it only grew at its end (streaming), just the new part is added."""
        if language != self._language:
            self._language = language
            self._retranslate()
        if code == self._code:
            return
        if code.startswith(self._code) and self._code:
            cursor = QTextCursor(self.editor.document())
            cursor.movePosition(QTextCursor.MoveOperation.End)
            cursor.insertText(code[len(self._code):])
            self._measure(self._code.rsplit("\n", 1)[-1] + code[len(self._code):])
        else:
            self.editor.setPlainText(code)
            self._widest = 0
            self._measure(code)
        self._code = code
        self.refit()

    def _measure(self, text: str) -> None:
        self.editor.ensurePolished()
        metrics = self.editor.fontMetrics()
        for line in text.split("\n"):
            self._widest = max(self._widest, metrics.horizontalAdvance(line))

    def copy_code(self) -> None:
        QGuiApplication.clipboard().setText(self._code)
        self.copy_button.setText(self.tr("已复制"))
        self.copy_button.setAccessibleName(self.tr("已复制"))
        self._copied.start()
        self.copied.emit(self._code)

    # ── size ───────────────────────────────────────────────────────────

    def set_width_limit(self, limit: int) -> None:
        limit = max(80, int(limit))
        if limit != self._limit:
            self._limit = limit
            self.refit()

    @property
    def width_limit(self) -> int:
        return self._limit

    @property
    def content_width(self) -> int:
        """How wide the code is (its widest line, with the document's margins)."""
        return self._widest + 2 * EDITOR_MARGIN + 2

    def refit(self) -> None:
        """As wide as the bubble allows (the widest scroll area), as tall as every line."""
        width = self._limit
        margins = self.contentsMargins()
        inner = width - margins.left() - margins.right()
        editor = self.editor
        editor.ensurePolished()
        document = editor.document()
        chrome = 2 * editor.frameWidth() + editor.contentsMargins().top() + editor.contentsMargins().bottom()
        # QPlainTextEdit scrolls unless the last line ends a pixel above the bottom margin: 3 px spare
        height = math.ceil(self._lines_height() + 2 * document.documentMargin()) + chrome + 3
        if self.content_width > inner - 2 * editor.frameWidth():
            height += _horizontal_bar_height(editor)
        self.editor.setFixedHeight(height)
        self.setMinimumSize(0, 0)
        self.setMaximumSize(QWIDGETSIZE_MAX, QWIDGETSIZE_MAX)
        header = self.layout().itemAt(0).widget().sizeHint().height()
        self.setFixedSize(width, header + height + margins.top() + margins.bottom())

    def _lines_height(self) -> float:
        """The height of every line as laid out: a line whose characters come from a fallback font (Chinese in
        a comment, with no CJK monospace font installed) is taller than the others, so the lines are
        measured one by one, never as the first one's height times their number."""
        document = self.editor.document()
        layout = document.documentLayout()
        spacing = self.editor.fontMetrics().lineSpacing()
        total, block = 0.0, document.firstBlock()
        while block.isValid():
            total += max(layout.blockBoundingRect(block).height(), spacing)
            block = block.next()
        return max(total, spacing)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self._retranslate()
        elif event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._remeasure()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.editor and event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._remeasure()
        return False

    def _remeasure(self) -> None:
        self._widest = 0
        self._measure(self._code)
        self.refit()

    def _retranslate(self) -> None:
        if not self._copied.isActive():
            self.copy_button.setText(self.tr("复制"))
            self.copy_button.setAccessibleName(self.tr("复制代码"))
        self.copy_button.setToolTip(self.tr("复制代码"))
        self.language_label.setText(self._language or self.tr("代码"))


class WideText(QScrollArea):
    """A rich text piece (a table) that may be wider than the bubble: shown whole, scrolled sideways.

    The text wraps where it can (a table's cells); what cannot wrap makes it wider than
    ``limit``, and then this scroll area, ``limit`` wide, scrolls it."""

    link_activated = Signal(str)

    def __init__(self, parent: QWidget | None = None, *, limit: int = 480) -> None:
        super().__init__(parent)
        self.setObjectName("WideText")
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setWidgetResizable(False)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self._limit = max(1, limit)
        self.label = BubbleText(self, limit=self._limit, break_words=False)  # a table too wide scrolls
        self.label.setObjectName("BubbleText")
        self.label.setTextFormat(Qt.TextFormat.RichText)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse
                                           | Qt.TextInteractionFlag.LinksAccessibleByMouse)
        self.label.setOpenExternalLinks(False)
        self.label.linkActivated.connect(self.link_activated)
        self.setWidget(self.label)
        self.viewport().setAutoFillBackground(False)

    def text(self) -> str:
        return self.label.text()

    def setText(self, text: str) -> None:
        self.label.setText(text)
        self.refit()

    @property
    def width_limit(self) -> int:
        return self._limit

    def set_width_limit(self, limit: int) -> None:
        limit = max(1, int(limit))
        if limit != self._limit:
            self._limit = limit
            self.refit()

    def needed_width(self) -> int:
        """The narrowest the text can be laid out at this limit (wider than it when cells cannot wrap)."""
        doc = QTextDocument()
        doc.setDefaultFont(self.label.font())
        doc.setDocumentMargin(0)
        doc.setHtml(self.label.text())
        doc.setTextWidth(self._limit)
        needed = math.ceil(doc.size().width())
        return needed + 2 if needed > self._limit else self._limit

    def refit(self) -> None:
        needed = self.needed_width()
        self.label.set_width_limit(needed)
        width = min(self.label.width(), self._limit)
        bar = _horizontal_bar_height(self) if self.label.width() > self._limit else 0
        self.setFixedSize(width, self.label.height() + bar)
