"""The lock sign of a locked card, drawn with the painter (no icon file), sized to the card's small text."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen


def lock_width(small_height: float) -> float:
    """Room the lock sign takes beside the small text (the sign and a gap)."""
    return small_height * 0.8 + 4


def paint_lock(painter: QPainter, x: float, baseline: float, small_height: float, color: QColor) -> None:
    """A small padlock standing on ``baseline`` at ``x`` (drawn, so it needs no icon file)."""
    size = small_height * 0.8
    body = QRectF(x, baseline - size * 0.62, size, size * 0.62)
    shackle = QRectF(x + size * 0.2, baseline - size, size * 0.6, size * 0.7)
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    pen = QPen(color, max(1.2, size / 8))
    painter.setPen(pen)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawArc(shackle, 0, 180 * 16)
    painter.drawLine(QPointF(shackle.left(), shackle.center().y()), QPointF(shackle.left(), body.top()))
    painter.drawLine(QPointF(shackle.right(), shackle.center().y()), QPointF(shackle.right(), body.top()))
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(color)
    painter.drawRoundedRect(body, 1.5, 1.5)
    painter.restore()
