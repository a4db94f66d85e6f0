"""CardDelegate: paints one memory card (no widget per card, so thousands stay cheap).

A card: a rounded surface with the theme's colour stripe on the left, the description elided to
a few lines, and a footer with the hit count and the relative time. A new or changed card glows
for a moment (``CardRole.Flash`` fades from 1 to 0). Colours come from the view's ``card*``
properties (set by the shared QSS through ``qproperty-…``), never from literals here.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QModelIndex, QPersistentModelIndex, QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPen, QTextLayout, QTextOption
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem, QWidget

from .cards import Card
from .memory_model import CardRole
from .theme_colors import theme_color, wall_tokens

CARD_SIZE = QSize(228, 118)
MARGIN = 5
PADDING = 10
STRIPE = 4
RADIUS = 8
MAX_LINES = 3

_DEFAULTS = {
    "cardBackground": "card_bg",
    "cardBorder": "card_border",
    "cardText": "card_text",
    "cardMuted": "card_muted",
    "cardSelected": "card_selected",
    "cardFlash": "card_flash",
}


def card_colors(widget: QWidget | None) -> dict[str, QColor]:
    """The view's card colours (its ``card*`` properties), falling back to the light tokens."""
    tokens = wall_tokens("light")
    colors: dict[str, QColor] = {}
    for prop, token in _DEFAULTS.items():
        value = widget.property(prop) if widget is not None else None
        colors[prop] = value if isinstance(value, QColor) and value.isValid() else QColor(tokens[token])
    return colors


def elide_lines(text: str, metrics: QFontMetricsF, font, width: float, max_lines: int) -> list[str]:
    """``text`` wrapped to ``width``; at most ``max_lines`` lines, the last elided with "…"."""
    layout = QTextLayout(" ".join(text.split()), font)
    option = QTextOption()
    option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
    layout.setTextOption(option)
    lines: list[str] = []
    full = layout.text()
    layout.beginLayout()
    while True:
        line = layout.createLine()
        if not line.isValid():
            break
        line.setLineWidth(width)
        start, length = line.textStart(), line.textLength()
        if len(lines) == max_lines - 1:
            rest = full[start:]
            lines.append(metrics.elidedText(rest, Qt.TextElideMode.ElideRight, width))
            break
        lines.append(full[start : start + length].rstrip())
    layout.endLayout()
    return lines


class CardDelegate(QStyledItemDelegate):
    """Paints cards of a :class:`MemoryCardModel` (or a per-theme list of it).

    Wrapped lines are cached by (text, width, font): text layout is the costly part of a paint.
    """

    CACHE_LIMIT = 5000

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._lines: dict[tuple[str, float, str], list[str]] = {}

    def _wrapped(self, text: str, metrics: QFontMetricsF, font: QFont, width: float) -> list[str]:
        key = (text, width, font.key())
        lines = self._lines.get(key)
        if lines is None:
            if len(self._lines) >= self.CACHE_LIMIT:
                self._lines.clear()
            lines = self._lines[key] = elide_lines(text, metrics, font, width, MAX_LINES)
        return lines

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        grid = getattr(option.widget, "gridSize", None)
        size = grid() if callable(grid) else QSize()
        return QSize(size) if size.isValid() and not size.isEmpty() else QSize(CARD_SIZE)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex):
        card: Card | None = index.data(CardRole.Card)
        if card is None:
            return
        cached = getattr(option.widget, "card_colors", None)
        colors = cached() if callable(cached) else card_colors(option.widget)
        dark = colors["cardBackground"].lightness() < 128
        rect = QRectF(option.rect).adjusted(MARGIN, MARGIN, -MARGIN, -MARGIN)
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        hovered = bool(option.state & QStyle.StateFlag.State_MouseOver)

        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        path = QPainterPath()
        path.addRoundedRect(rect, RADIUS, RADIUS)
        painter.fillPath(path, colors["cardBackground"])

        flash = float(index.data(CardRole.Flash) or 0.0)
        if flash > 0:
            glow = QColor(colors["cardFlash"])
            glow.setAlphaF(0.45 * flash)
            painter.fillPath(path, glow)

        border = colors["cardSelected"] if selected else colors["cardBorder"]
        if hovered and not selected:
            border = colors["cardMuted"]
        painter.setPen(QPen(border, 2.0 if selected else 1.0))
        painter.drawPath(path)

        painter.setClipPath(path)
        stripe = QRectF(rect.left(), rect.top(), STRIPE, rect.height())
        painter.fillRect(stripe, QColor(theme_color(card.theme, "dark" if dark else "light")))
        painter.setClipping(False)

        font = option.font
        metrics = QFontMetricsF(font)
        text_left = rect.left() + STRIPE + PADDING
        text_width = rect.right() - PADDING - text_left
        painter.setFont(font)
        painter.setPen(colors["cardText"])
        y = rect.top() + PADDING + metrics.ascent()
        for line in self._wrapped(card.description, metrics, font, text_width):
            painter.drawText(QPointF(text_left, y), line)
            y += metrics.lineSpacing()

        small = QFont(option.font)
        small.setPointSizeF(max(7.0, small.pointSizeF() * 0.85))
        small_metrics = QFontMetricsF(small)
        painter.setFont(small)
        painter.setPen(colors["cardMuted"])
        baseline = rect.bottom() - PADDING + 2
        hits = QCoreApplication.translate("CardDelegate", "命中 {0}").format(card.hit)
        painter.drawText(QPointF(text_left, baseline), hits)
        when = str(index.data(CardRole.RelativeTime) or "")  # the model's words, through any proxy
        painter.drawText(QPointF(rect.right() - PADDING - small_metrics.horizontalAdvance(when), baseline), when)
        painter.restore()
