"""BubbleText: a word-wrapped label sized to its text, never cut off.

QLabel's own size hint for wrapped text is a guess (it picks a "nice" shape, often ~150 px wide)
and a layout that trusts it clips the last lines when the real width differs. Here the width is
what the text needs unwrapped, capped by a limit the chat view sets from its own width, and the
height is exactly what the label needs at that width (QLabel's own ``heightForWidth``, the same
layout it paints). Both are fixed on the widget, so no layout can squeeze it.

A word wider than the label (a URL, a pasted hash) breaks anywhere instead of running past the
edge: QLabel lays its document out with plain word wrap each time its text changes, so once it has,
the document's option says "at word boundaries, or anywhere when a word does not fit" and the label
is measured again — only when the text may hold such a word (``_has_long_word``: the extra layout is
not paid for ordinary text while a reply streams). Only the layout changes: the text, what is
selected and copied, stays as written.
"""

from __future__ import annotations

import math
import re

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QResizeEvent, QTextDocument, QTextOption
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

QWIDGETSIZE_MAX = (1 << 24) - 1
SLACK_PX = 2  # rounding between our measuring document and the label's own
LONG_TEXT = 600  # text this long fills the width limit anyway: not worth measuring unwrapped
ANYWHERE = QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere
# runs of characters a line cannot break inside (Chinese, Japanese and Korean text breaks between characters)
NO_BREAK = re.compile(r"[^\s\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]+")
TAG = re.compile(r"<[^>]*>")


class BubbleText(QLabel):
    def __init__(self, parent: QWidget | None = None, *, limit: int = 480, break_words: bool = True) -> None:
        super().__init__(parent)
        self._limit = max(1, limit)
        self._break_words = break_words  # False: a word wider than the limit makes the label wider (WideText scrolls)
        self._wraps = False  # the text wraps and may hold a word wider than the label: it breaks anywhere
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)  # rich text only when asked for (Markdown replies)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)

    @property
    def width_limit(self) -> int:
        return self._limit

    def set_width_limit(self, limit: int) -> None:
        limit = max(1, int(limit))
        if limit != self._limit:
            self._limit = limit
            self.refit()

    def setText(self, text: str) -> None:
        super().setText(text)
        self.refit()

    def natural_width(self) -> int:
        """Width of the text laid out without wrapping (plus the label's margins)."""
        if not self.text():
            return 0
        if len(self.text()) > LONG_TEXT:
            return self._limit
        doc = QTextDocument()
        doc.setDefaultFont(self.font())
        doc.setDocumentMargin(0)
        if self._is_rich():
            doc.setHtml(self.text())
        else:
            doc.setPlainText(self.text())
        margins = self.contentsMargins()
        extra = margins.left() + margins.right() + 2 * self.margin()
        return math.ceil(doc.idealWidth()) + extra + SLACK_PX

    def _is_rich(self) -> bool:
        return self.textFormat() == Qt.TextFormat.RichText

    def refit(self) -> None:
        natural = self.natural_width()
        width = max(1, min(natural, self._limit))
        # QLabel clamps the width it measures at to its own minimum / maximum: free them first
        self.setMinimumSize(0, 0)
        self.setMaximumSize(QWIDGETSIZE_MAX, QWIDGETSIZE_MAX)
        # (a long text is taken to fill the limit: it wraps)
        self._wraps = natural >= self._limit and self._has_long_word(width)
        height = 0
        if self.text():
            height = self.heightForWidth(width)  # (lays the text out: QLabel sets its wrap mode then)
            if self._wraps and self._break_long_words():
                height = self.heightForWidth(width)
        self.setFixedSize(width, max(0, height))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self._wraps and self.text():  # a resized label lays its text out again, with plain word wrap:
            self.heightForWidth(self.width())  # now, not when it paints,
            self._break_long_words()  # so that it is laid out once more, breaking long words

    def _has_long_word(self, width: int) -> bool:
        """Whether a run of characters no line breaks inside (no space, no Chinese: a URL, a hash, a long
        word) may be wider than ``width``: only then is the text laid out again to break it. A cheap,
        generous guess (a markup's tags left out; bold or code may be wider: a margin)."""
        text = self.text()
        if self._is_rich():
            text = TAG.sub(" ", text)
        metrics = self.fontMetrics()
        shortest = max(1, int(width / (1.3 * metrics.horizontalAdvance("W"))))  # fewer characters always fit
        return any(1.3 * metrics.horizontalAdvance(run) > width for run in NO_BREAK.findall(text)
                   if len(run) > shortest)

    def _break_long_words(self) -> bool:
        """Let a word too wide for a line break anywhere (it is cut off at the label's edge otherwise).
        True when the layout changed (the label is to be measured again)."""
        if not self._break_words:
            return False
        document = self.findChild(QTextDocument)  # the label's own (selectable or rich text)
        if document is None:
            return False
        option = document.defaultTextOption()
        if option.wrapMode() == ANYWHERE:
            return False
        option.setWrapMode(ANYWHERE)
        document.setDefaultTextOption(option)
        return True

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        # (a changed contents rect or direction has the label lay its text out again, with plain word wrap)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange, QEvent.Type.ContentsRectChange,
                            QEvent.Type.LayoutDirectionChange):
            self.refit()
