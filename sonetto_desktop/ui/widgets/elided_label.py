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
        self._short = ""  # a shorter way to say the text ("10万 条" for "100,000 条"), shown when it does not fit
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
        """The text as shown at the current width: the whole of it, else its short form, else the
        short form (or the text) cut with "…"."""
        rect = self.contentsRect().adjusted(self.margin(), 0, -self.margin(), 0)
        width = max(0, rect.width())
        metrics = self.fontMetrics()
        text = self.text()
        if self._short and metrics.horizontalAdvance(text) > width:
            text = self._short
        return metrics.elidedText(text, Qt.TextElideMode.ElideRight, width)

    def setText(self, text: str) -> None:
        self._short = ""
        super().setText(text)
        self._sync_tooltip()

    def set_texts(self, text: str, short: str) -> None:
        """Show ``text``, or ``short`` when ``text`` does not fit (the tooltip then says ``text``)."""
        super().setText(text)
        self._short = short if short != text else ""
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
