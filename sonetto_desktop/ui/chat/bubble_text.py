"""BubbleText: a word-wrapped label sized to its text, never cut off.

QLabel's own size hint for wrapped text is a guess (it picks a "nice" shape, often ~150 px wide)
and a layout that trusts it clips the last lines when the real width differs. Here the width is
what the text needs unwrapped, capped by a limit the chat view sets from its own width, and the
height is exactly what the label needs at that width (QLabel's own ``heightForWidth``, the same
layout it paints). Both are fixed on the widget, so no layout can squeeze it.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

QWIDGETSIZE_MAX = (1 << 24) - 1
SLACK_PX = 2  # rounding between our measuring document and the label's own
LONG_TEXT = 600  # text this long fills the width limit anyway: not worth measuring unwrapped


class BubbleText(QLabel):
    def __init__(self, parent: QWidget | None = None, *, limit: int = 480) -> None:
        super().__init__(parent)
        self._limit = max(1, limit)
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
        width = max(1, min(self.natural_width(), self._limit))
        # QLabel clamps the width it measures at to its own minimum / maximum: free them first
        self.setMinimumSize(0, 0)
        self.setMaximumSize(QWIDGETSIZE_MAX, QWIDGETSIZE_MAX)
        height = max(0, self.heightForWidth(width)) if self.text() else 0
        self.setFixedSize(width, height)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self.refit()
