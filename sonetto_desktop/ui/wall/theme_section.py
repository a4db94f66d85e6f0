"""ThemeSection: one theme of the wall — a header (collapse arrow, colour swatch, name, count) over
its cards.

Dropping cards anywhere in the section — the header, a gap, or a card outside its merge zone —
moves them to this theme. The header collapses the section (the wall remembers it) and its menu
changes the theme's colour. While a drag of cards is over the section it is marked as the target.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QSize, Qt, Signal
from PySide6.QtGui import QColor, QDragEnterEvent, QDragMoveEvent, QDropEvent, QMouseEvent, QPainter, QPaintEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QSizePolicy, QToolButton, QVBoxLayout, QWidget

from sonetto_desktop.presentation.i18n import counted

from ..widgets.direction_marks import marked
from ..widgets.elided_label import ElidedLabel
from .card_view import ThemeCardView
from .memory_model import MIME_IDS, MemoryCardModel, decode_ids
from .theme_card_list import ThemeCardList
from .theme_palette import ThemeColors


class ThemeSwatch(QWidget):
    """A small dot in the theme's colour (the same colour as the cards' stripes)."""

    def __init__(self, theme: str, view: ThemeCardView, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ThemeSwatch")
        self._theme = theme
        self._view = view
        self.setFixedSize(QSize(10, 10))

    def color(self) -> QColor:
        dark = self._view.cardBackground.lightness() < 128
        return QColor(self._view.theme_colors.color(self._theme, "dark" if dark else "light"))

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(self.color())
        painter.drawEllipse(self.rect())
        painter.end()


class ThemeHeader(QFrame):
    """A theme's header: accepts drops (a move to the theme), clicks toggle collapse, right-click
    asks for the theme's menu."""

    ids_dropped = Signal(list)
    toggled = Signal()
    menu_requested = Signal(object)  # global QPoint
    drag_moved = Signal(object)  # global QPoint
    drag_hovered = Signal(bool)

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("ThemeSectionHeader")
        self.setAcceptDrops(True)
        self.setCursor(Qt.CursorShape.PointingHandCursor)

    def _mark(self, on: bool) -> None:
        self.setProperty("dropTarget", on)
        self.style().polish(self)
        self.drag_hovered.emit(on)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasFormat(MIME_IDS):
            event.setDropAction(Qt.DropAction.CopyAction)
            event.accept()
            self._mark(True)
        else:
            event.ignore()

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        if event.mimeData().hasFormat(MIME_IDS):
            event.setDropAction(Qt.DropAction.CopyAction)
            event.accept()
            self.drag_moved.emit(self.mapToGlobal(event.position().toPoint()))
        else:
            event.ignore()

    def dragLeaveEvent(self, event) -> None:
        self._mark(False)

    def dropEvent(self, event: QDropEvent) -> None:
        self._mark(False)
        ids = decode_ids(event.mimeData())
        if not ids:
            event.ignore()
            return
        event.setDropAction(Qt.DropAction.CopyAction)
        event.accept()
        self.ids_dropped.emit(ids)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self.rect().contains(event.position().toPoint()):
            self.toggled.emit()
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def contextMenuEvent(self, event) -> None:
        self.menu_requested.emit(event.globalPos())


class ThemeSection(QFrame):
    """Header + cards for ``theme``; hidden by the wall when no card matches the search."""

    ids_dropped = Signal(list, str, str)  # ids, theme, card to merge into ("" = move to the theme)
    collapse_toggled = Signal(str, bool)  # theme, collapsed now
    menu_requested = Signal(str, object)  # theme, global QPoint
    drag_moved = Signal(object)  # global QPoint of a drag over the section

    def __init__(self, model: MemoryCardModel, theme: str, parent: QWidget | None = None, *,
                 theme_colors: ThemeColors | None = None, density: str = "comfortable",
                 collapsed: bool = False, deferred: bool = False) -> None:
        super().__init__(parent)
        self.setObjectName("ThemeSection")
        self.theme = theme
        self.proxy = ThemeCardList(model, theme, self, deferred=deferred)  # deferred: the wall loads it
        self.view = ThemeCardView(self.proxy, self, theme_colors=theme_colors, density=density)
        self._model = model

        self.header = ThemeHeader(self)
        self.arrow = QToolButton(self.header)
        self.arrow.setObjectName("ThemeSectionArrow")
        self.arrow.setAutoRaise(True)
        self.arrow.setFocusPolicy(Qt.FocusPolicy.ClickFocus)  # (the wall is one Tab stop: its cards)
        self.arrow.clicked.connect(self.toggle)
        self.title = ElidedLabel(self.header, min_text="")  # a long name gives way: it must not widen the wall
        self.title.setText(marked(theme))  # (a direction control as a mark: it turns nothing around)
        self.title.setObjectName("ThemeSectionTitle")
        self.title.setTextFormat(Qt.TextFormat.PlainText)
        self.count_label = QLabel(self.header)
        self.count_label.setObjectName("ThemeSectionCount")
        self.swatch = ThemeSwatch(theme, self.view, self.header)
        row = QHBoxLayout(self.header)
        row.setContentsMargins(2, 4, 6, 0)
        row.setSpacing(6)
        row.addWidget(self.arrow, 0, Qt.AlignmentFlag.AlignVCenter)
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
        self.header.toggled.connect(self.toggle)
        self.header.menu_requested.connect(lambda pos: self.menu_requested.emit(self.theme, pos))
        self.view.ids_dropped.connect(self.ids_dropped)
        for source in (self.header, self.view):
            source.drag_moved.connect(self.drag_moved)
            source.drag_hovered.connect(self._mark_target)
        for signal in (self.proxy.rowsInserted, self.proxy.rowsRemoved, self.proxy.modelReset, self.proxy.layoutChanged):
            signal.connect(self.refresh_count)
        self._collapsed = False
        self.set_collapsed(collapsed, notify=False)
        self.refresh_count()

    # ── collapse ──────────────────────────────────────────────────────

    def is_collapsed(self) -> bool:
        return self._collapsed

    def set_collapsed(self, collapsed: bool, *, notify: bool = True) -> None:
        self._collapsed = bool(collapsed)
        self.view.setVisible(not self._collapsed)
        self.arrow.setArrowType(Qt.ArrowType.RightArrow if self._collapsed else Qt.ArrowType.DownArrow)
        self.arrow.setToolTip(self.tr("展开") if self._collapsed else self.tr("折叠"))
        self.arrow.setAccessibleName(self.tr("展开「{0}」").format(self.theme) if self._collapsed
                                     else self.tr("折叠「{0}」").format(self.theme))
        if notify:
            self.collapse_toggled.emit(self.theme, self._collapsed)

    def toggle(self) -> None:
        self.set_collapsed(not self._collapsed)

    # ── drag target mark and counts ───────────────────────────────────

    def _mark_target(self, on: bool) -> None:
        if self.property("dropTarget") != on:
            self.setProperty("dropTarget", on)
            self.style().polish(self)

    def header_rect_in(self, widget: QWidget):
        """The header's rectangle in ``widget``'s coordinates."""
        return self.header.rect().translated(self.header.mapTo(widget, QPoint(0, 0)))

    def shown_count(self) -> int:
        return self.proxy.rowCount()

    def total_count(self) -> int:
        return self._model.theme_counts().get(self.theme, 0)

    def refresh_count(self, *_: object) -> None:
        shown, total = self.shown_count(), self.total_count()
        self.count_label.setText(counted(total) if shown == total else f"{shown:,} / {total:,}")  # as the toolbar's
