"""ThemeSection: one theme of the wall — a header (colour swatch, name, count) over its cards.

Dropping cards on the header moves them to this theme, like dropping on an empty spot of the grid.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QColor, QDragEnterEvent, QDropEvent, QPainter, QPaintEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

from .card_view import ThemeCardView
from .memory_model import MIME_IDS, MemoryCardModel, decode_ids
from .theme_card_list import ThemeCardList
from .theme_colors import theme_color


class ThemeSwatch(QWidget):
    """A small dot in the theme's colour (the same colour as the cards' stripes)."""

    def __init__(self, theme: str, view: ThemeCardView, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ThemeSwatch")
        self._theme = theme
        self._view = view
        self.setFixedSize(QSize(10, 10))

    def paintEvent(self, event: QPaintEvent) -> None:
        dark = self._view.cardBackground.lightness() < 128
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(theme_color(self._theme, "dark" if dark else "light")))
        painter.drawEllipse(self.rect())
        painter.end()


class _Header(QFrame):
    ids_dropped = Signal(list)

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("ThemeSectionHeader")
        self.setAcceptDrops(True)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasFormat(MIME_IDS):
            event.setDropAction(Qt.DropAction.CopyAction)
            event.accept()
            self.setProperty("dropTarget", True)
            self.style().polish(self)
        else:
            event.ignore()

    def dragLeaveEvent(self, event) -> None:
        self.setProperty("dropTarget", False)
        self.style().polish(self)

    def dropEvent(self, event: QDropEvent) -> None:
        self.setProperty("dropTarget", False)
        self.style().polish(self)
        ids = decode_ids(event.mimeData())
        if not ids:
            event.ignore()
            return
        event.setDropAction(Qt.DropAction.CopyAction)
        event.accept()
        self.ids_dropped.emit(ids)


class ThemeSection(QFrame):
    """Header + card grid for ``theme``; hidden by the wall when no card matches the search."""

    ids_dropped = Signal(list, str, str)  # ids, theme, target card id ("" = the section itself)

    def __init__(self, model: MemoryCardModel, theme: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ThemeSection")
        self.theme = theme
        self.proxy = ThemeCardList(model, theme, self)
        self.view = ThemeCardView(self.proxy, self)
        self._model = model

        self.header = _Header(self)
        self.title = QLabel(theme, self.header)
        self.title.setObjectName("ThemeSectionTitle")
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.count_label = QLabel(self.header)
        self.count_label.setObjectName("ThemeSectionCount")
        self.swatch = ThemeSwatch(theme, self.view, self.header)
        row = QHBoxLayout(self.header)
        row.setContentsMargins(6, 4, 6, 0)
        row.setSpacing(8)
        row.addWidget(self.swatch, 0, Qt.AlignmentFlag.AlignVCenter)
        row.addWidget(self.title)
        row.addWidget(self.count_label)
        row.addStretch(1)

        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 8)
        column.setSpacing(2)
        column.addWidget(self.header)
        column.addWidget(self.view)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

        self.header.ids_dropped.connect(lambda ids: self.ids_dropped.emit(ids, self.theme, ""))
        self.view.ids_dropped.connect(self.ids_dropped)
        for signal in (self.proxy.rowsInserted, self.proxy.rowsRemoved, self.proxy.modelReset, self.proxy.layoutChanged):
            signal.connect(self.refresh_count)
        self.refresh_count()

    def shown_count(self) -> int:
        return self.proxy.rowCount()

    def total_count(self) -> int:
        return self._model.theme_counts().get(self.theme, 0)

    def refresh_count(self, *_: object) -> None:
        shown, total = self.shown_count(), self.total_count()
        self.count_label.setText(str(total) if shown == total else f"{shown} / {total}")
