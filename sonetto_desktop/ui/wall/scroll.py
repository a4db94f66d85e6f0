"""The wall's scrolling helpers: ``AutoScroller`` scrolls while a drag of cards nears the top or
bottom edge (so every theme is reachable by dragging), and ``StickyHeader`` keeps the name of the
theme being read at the top of the view once its own header has scrolled away."""

from __future__ import annotations

from PySide6.QtCore import QObject, QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QDragEnterEvent, QDragMoveEvent, QDropEvent, QMouseEvent, QPainter
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QScrollArea, QToolButton, QWidget

from ..widgets.direction_marks import marked
from ..widgets.elided_label import ElidedLabel
from .memory_model import MIME_IDS, decode_ids

EDGE = 48  # px from the viewport's top / bottom where a drag scrolls
MAX_STEP = 28  # px per tick at the very edge
TICK_MS = 30
LEAVE_GRACE_MS = 150  # a drag leaving one part of the wall usually enters the next at once


class AutoScroller(QObject):
    """Scroll ``area`` while a drag is near its edges; faster the closer it is."""

    def __init__(self, area: QScrollArea) -> None:
        super().__init__(area)
        self._area = area
        self._pos: QPoint | None = None
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._tick)
        self._leave = QTimer(self)
        self._leave.setSingleShot(True)
        self._leave.setInterval(LEAVE_GRACE_MS)
        self._leave.timeout.connect(self.stop)

    @property
    def active(self) -> bool:
        return self._timer.isActive()

    def step(self) -> int:
        """Pixels the next tick scrolls (negative: up); 0 outside the edge zones."""
        if self._pos is None:
            return 0
        viewport = self._area.viewport()
        y = viewport.mapFromGlobal(self._pos).y()
        height = viewport.height()
        edge = min(EDGE, height // 4)
        if edge <= 0:
            return 0
        if y < edge:
            return -max(1, round(MAX_STEP * (edge - max(y, 0)) / edge))
        if y > height - edge:
            return max(1, round(MAX_STEP * (min(y, height) - (height - edge)) / edge))
        return 0

    def drag_at(self, global_pos: QPoint) -> None:
        """A drag moved to ``global_pos``: scroll while it stays near an edge."""
        self._leave.stop()
        self._pos = QPoint(global_pos)
        if self.step() and not self._timer.isActive():
            self._timer.start()
        elif not self.step():
            self._timer.stop()

    def drag_hovered(self, inside: bool) -> None:
        if inside:
            self._leave.stop()
        else:
            self._leave.start()

    def stop(self) -> None:
        self._timer.stop()
        self._leave.stop()
        self._pos = None

    def _tick(self) -> None:
        step = self.step()
        bar = self._area.verticalScrollBar()
        before = bar.value()
        bar.setValue(before + step)
        if not step or bar.value() == before:  # left the edge, or at the end
            self._timer.stop()


class _Dot(QWidget):
    """The theme's colour dot (as the section header's swatch)."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("ThemeSwatch")
        self.setFixedSize(10, 10)
        self.color = QColor()

    def set_color(self, color: str) -> None:
        self.color = QColor(color) if color else QColor()
        self.update()

    def paintEvent(self, event) -> None:
        if not self.color.isValid():
            return
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(self.color)
        painter.drawEllipse(self.rect())
        painter.end()


class StickyHeader(QFrame):
    """The current theme's name over the top of the wall's viewport (shown by the wall only while
    that theme's own header is scrolled out of view). A click collapses or expands the theme;
    cards dropped on it move to the theme; a drag over it scrolls up."""

    toggled = Signal(str)
    ids_dropped = Signal(list, str, str)
    drag_moved = Signal(object)
    drag_hovered = Signal(bool)

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("WallStickyHeader")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        self.setAcceptDrops(True)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.theme = ""
        self.arrow = QToolButton(self)
        self.arrow.setObjectName("ThemeSectionArrow")
        self.arrow.setAutoRaise(True)
        self.arrow.setArrowType(Qt.ArrowType.DownArrow)
        self.arrow.clicked.connect(lambda: self.toggled.emit(self.theme))
        self.swatch = _Dot(self)
        self.title = ElidedLabel(self, min_text="")  # (a long name gives way to the count)
        self.title.setObjectName("ThemeSectionTitle")
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.count_label = QLabel(self)
        self.count_label.setObjectName("ThemeSectionCount")
        row = QHBoxLayout(self)
        row.setContentsMargins(10, 3, 6, 3)
        row.setSpacing(6)
        row.addWidget(self.arrow)
        row.addWidget(self.swatch)
        row.addWidget(self.title)
        row.addWidget(self.count_label)
        row.addStretch(1)
        self.hide()

    def show_theme(self, theme: str, count: str, width: int, color: str = "") -> None:
        self.theme = theme
        self.swatch.set_color(color)
        self.title.setText(marked(theme))
        self.count_label.setText(count)
        self.setGeometry(0, 0, width, self.sizeHint().height())
        self.show()
        self.raise_()

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self.toggled.emit(self.theme)
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasFormat(MIME_IDS):
            event.setDropAction(Qt.DropAction.CopyAction)
            event.accept()
            self.drag_hovered.emit(True)
        else:
            event.ignore()

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        event.setDropAction(Qt.DropAction.CopyAction)
        event.accept()
        self.drag_moved.emit(self.mapToGlobal(event.position().toPoint()))

    def dragLeaveEvent(self, event) -> None:
        self.drag_hovered.emit(False)

    def dropEvent(self, event: QDropEvent) -> None:
        self.drag_hovered.emit(False)
        ids = decode_ids(event.mimeData())
        if ids and self.theme:
            event.setDropAction(Qt.DropAction.CopyAction)
            event.accept()
            self.ids_dropped.emit(ids, self.theme, "")
        else:
            event.ignore()
