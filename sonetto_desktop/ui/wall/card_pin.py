"""The mark of a pinned card: its top right corner folded over in the theme's colour (drawn inside
the card's padding, so pinning changes no card's size)."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF
from PySide6.QtGui import QColor, QPainter, QPainterPath


def paint_pin(painter: QPainter, card: QRectF, size: float, color: QColor) -> None:
    """A triangle of ``size`` in the top right corner of ``card`` (the caller clips to the card's shape)."""
    corner = QPainterPath()
    corner.moveTo(QPointF(card.right() - size, card.top()))
    corner.lineTo(QPointF(card.right(), card.top()))
    corner.lineTo(QPointF(card.right(), card.top() + size))
    corner.closeSubpath()
    painter.fillPath(corner, color)
