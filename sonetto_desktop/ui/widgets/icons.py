"""SVG icons from ``resources/icons`` as QIcons (cached), rendered crisp at every size."""

from __future__ import annotations

from functools import lru_cache

from PySide6.QtCore import QByteArray, Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPixmap
from PySide6.QtSvg import QSvgRenderer

from sonetto_desktop.resources import read_bytes

_SIZES = (16, 20, 24, 32, 48, 64, 128, 256)


@lru_cache(maxsize=None)
def icon(name: str, color: str | None = None) -> QIcon:
    """``icon("app")`` renders ``resources/icons/app.svg``; a missing icon raises FileNotFoundError.
    ``color`` paints the icon's shape in one colour (e.g. white on an accent-coloured button)."""
    renderer = QSvgRenderer(QByteArray(read_bytes(f"icons/{name}.svg")))
    if not renderer.isValid():
        raise ValueError(f"icons/{name}.svg is not a valid SVG")
    result = QIcon()
    for size in _SIZES:
        pixmap = QPixmap(size, size)
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        renderer.render(painter)
        if color is not None:
            painter.setCompositionMode(QPainter.CompositionMode.CompositionMode_SourceIn)
            painter.fillRect(pixmap.rect(), QColor(color))
        painter.end()
        result.addPixmap(pixmap)
    return result
