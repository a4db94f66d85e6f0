"""A word-wrapped label whose words too long for a line are cut in their middle with "…".

Qt wraps a label's text only where a line may break (a space, between Chinese characters): a run with
no such place that is wider than the label (a file name of 80 characters, a long web address) was drawn
running out of the label's edge, cut with nothing to say so. This label shows such a run's beginning
and end around "…" at its width of now (again when it is resized), and says the whole text in its
tooltip (a tooltip given with ``set_whole_tip`` is said instead: the label's owner may know more)."""

from __future__ import annotations

from PySide6.QtCore import QRect, QTextBoundaryFinder, Qt
from PySide6.QtGui import QFontMetrics, QResizeEvent
from PySide6.QtWidgets import QLabel, QWidget


_JOINED_ELLIPSIS = "\u2060…\u2060"  # (word joiners: a line may break after "…", and the cut name would be split there)


def fitted_words(text: str, metrics: QFontMetrics, width: int) -> str:
    """``text`` with every run no line may break in that is wider than ``width`` cut in its middle with "…"
    (what follows a run, a space or a line's end, stays; the "…" is held to both halves by word joiners)."""
    if width <= 0 or metrics.horizontalAdvance(text) <= width and "\n" not in text:
        return text
    units = text.encode("utf-16-le")  # (the finder counts UTF-16 code units, as Qt's strings do)
    finder = QTextBoundaryFinder(QTextBoundaryFinder.BoundaryType.Line, text)
    pieces, start = [], 0
    while (end := finder.toNextBoundary()) != -1:
        piece = units[2 * start:2 * end].decode("utf-16-le")
        word = piece.rstrip()
        if metrics.horizontalAdvance(word) > width:
            cut = metrics.elidedText(word, Qt.TextElideMode.ElideMiddle, width)
            piece = cut.replace("…", _JOINED_ELLIPSIS) + piece[len(word):]
        pieces.append(piece)
        start = end
    return "".join(pieces) + units[2 * start:].decode("utf-16-le")


class LongWordsLabel(QLabel):
    """A plain-text, word-wrapped label: ``setText`` the whole text, ``whole()`` gives it back."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self._whole = ""
        self._tip = ""

    def whole(self) -> str:
        return self._whole

    def setText(self, text: str) -> None:
        self._whole = text
        self._fit()

    def set_whole_tip(self, tip: str) -> None:
        """The tooltip to say (else the whole text, when a word of it is cut)."""
        self._tip = tip
        self._fit()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def heightForWidth(self, width: int) -> int:
        """The height of the text as it is shown at ``width`` (a layout asks before the label has that width:
        the height of the text cut for another width would leave lines out or a gap)."""
        shown = fitted_words(self._whole, self.fontMetrics(), self._room(width))
        if shown == self.text():
            return super().heightForWidth(width)
        margins = self.contentsMargins()
        lines = self.fontMetrics().boundingRect(QRect(0, 0, max(self._room(width), 1), 1 << 20),
                                                int(self.alignment()) | Qt.TextFlag.TextWordWrap, shown)
        return lines.height() + margins.top() + margins.bottom() + 2 * self.margin()

    def _room(self, width: int) -> int:
        """The width a line of text has in a label ``width`` wide."""
        margins = self.contentsMargins()
        return width - margins.left() - margins.right() - 2 * self.margin() - max(self.indent(), 0) - 2  # (rounding)

    def _fit(self) -> None:
        width = self._room(self.width())
        shown = fitted_words(self._whole, self.fontMetrics(), width) if self.width() > 0 else self._whole
        if shown != self.text():
            super().setText(shown)
        self.setToolTip(self._tip or (self._whole if shown != self._whole else ""))
