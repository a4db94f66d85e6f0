"""A one-line label that gives way: it asks for its whole text's width but accepts less, showing the
text cut with "…" (the whole of it in the tooltip). For counts and progress in toolbars, whose text
grows ("正在载入记忆… 3,000 / 10,000", "Memories: 8") and must never push a panel's minimum width up
(a wider wall toolbar squeezed the chat beside it until its bubbles were clipped)."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPainter
from PySide6.QtWidgets import QLabel, QSizePolicy, QStyleOption, QWidget


class ElidedLabel(QLabel):
    def __init__(self, parent: QWidget | None = None, *, min_text: str = "0,000") -> None:
        super().__init__(parent)
        self._min_text = min_text  # the narrowest it may become: this much text, then "…"
        self._reserved: tuple[str, ...] = ()
        self._shorter: tuple[str, ...] = ()  # shorter ways to say the text ("10万 条", "10万"), the first that fits shown
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)

    def reserve(self, texts: list[str] | tuple[str, ...]) -> None:
        """Ask for room for the widest of ``texts`` whatever the text: a text that comes and goes
        (a progress) then moves nothing beside the label."""
        texts = tuple(texts)
        if texts != self._reserved:
            self._reserved = texts
            self.updateGeometry()

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        if not self._reserved:
            return hint
        margins = self.contentsMargins().left() + self.contentsMargins().right() + 2 * self.margin()
        # (+4: QLabel's own hint of a text runs a pixel or two over its advance)
        widest = max(self.fontMetrics().horizontalAdvance(t) for t in self._reserved) + margins + 4
        return QSize(max(hint.width(), widest), hint.height())

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        narrow = self.fontMetrics().horizontalAdvance(self._min_text + "…") + self.contentsMargins().left() \
            + self.contentsMargins().right() + 2 * self.margin()
        return QSize(min(hint.width(), narrow), hint.height())

    def elided(self) -> str:
        """The text as shown at the current width: the whole of it, else the first of its shorter forms
        that fits, else the shortest cut with "…"."""
        rect = self.contentsRect().adjusted(self.margin(), 0, -self.margin(), 0)
        width = max(0, rect.width())
        metrics = self.fontMetrics()
        text = self.text()
        for shorter in self._shorter:  # (fits as Qt's eliding measures it: a rounded advance can say so wrongly)
            if metrics.elidedText(text, Qt.TextElideMode.ElideRight, width) == text:
                break
            text = shorter
        return metrics.elidedText(text, Qt.TextElideMode.ElideRight, width)

    def setText(self, text: str) -> None:
        self._shorter = ()
        super().setText(text)
        self._sync_tooltip()

    def set_texts(self, text: str, *shorter: str) -> None:
        """Show ``text``, or the first of ``shorter`` that fits when it does not (the tooltip then says
        ``text``): a count's short number, then the number without its word."""
        super().setText(text)
        self._shorter = tuple(dict.fromkeys(s for s in shorter if s != text))
        self._sync_tooltip()
        self.update()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._sync_tooltip()

    def _sync_tooltip(self) -> None:
        self.setToolTip(self.text() if self.elided() != self.text() else "")

    def paintEvent(self, event) -> None:
        shown = self.elided()
        if shown == self.text():
            super().paintEvent(event)
            return
        painter = QPainter(self)
        option = QStyleOption()
        option.initFrom(self)
        self.style().drawItemText(painter, self.contentsRect().adjusted(self.margin(), 0, -self.margin(), 0),
                                  int(self.alignment()), option.palette, self.isEnabled(), shown,
                                  self.foregroundRole())
        painter.end()
