"""ThemeCardView: one theme's cards in a wrapping grid, sized to its content (the wall scrolls).

Drags carry memory ids (``application/x-sonetto-memory-ids``); a drop is reported as
``ids_dropped(ids, theme, target_id)`` — ``target_id`` is the card under the cursor, if any — and
the wall decides what it means (move to this theme, or merge). Delete/Backspace asks to delete
the selection. Card colours are Qt properties so QSS can set them with ``qproperty-cardText`` etc.
"""

from __future__ import annotations

import math

from PySide6.QtCore import Property, QSize, Qt, Signal
from PySide6.QtGui import QColor, QDragEnterEvent, QDragMoveEvent, QDropEvent, QKeyEvent, QResizeEvent
from PySide6.QtWidgets import QAbstractItemView, QFrame, QListView, QSizePolicy, QWidget

from .card_delegate import CARD_SIZE, CardDelegate, card_colors
from .memory_model import MIME_IDS, CardRole, decode_ids
from .theme_card_list import ThemeCardList
from .theme_colors import wall_tokens


def _color_property(name: str, token: str) -> Property:
    attr = f"_{name}"

    def getter(self: "ThemeCardView") -> QColor:
        return getattr(self, attr, None) or QColor(wall_tokens("light")[token])

    def setter(self: "ThemeCardView", value: QColor) -> None:
        setattr(self, attr, QColor(value))
        self._colors = None
        self.viewport().update()

    return Property(QColor, getter, setter)


class ThemeCardView(QListView):
    """A non-scrolling icon-mode list of one :class:`ThemeCardList`."""

    ids_dropped = Signal(list, str, str)  # ids, theme of this view, target card id ("" = none)
    delete_requested = Signal(list)  # ids
    context_requested = Signal(str, object)  # card id, global QPoint

    cardBackground = _color_property("cardBackground", "card_bg")
    cardBorder = _color_property("cardBorder", "card_border")
    cardText = _color_property("cardText", "card_text")
    cardMuted = _color_property("cardMuted", "card_muted")
    cardSelected = _color_property("cardSelected", "card_selected")
    cardFlash = _color_property("cardFlash", "card_flash")

    def __init__(self, proxy: ThemeCardList, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("CardListView")
        self.setViewMode(QListView.ViewMode.IconMode)
        self.setFlow(QListView.Flow.LeftToRight)
        self.setWrapping(True)
        self.setResizeMode(QListView.ResizeMode.Adjust)
        self.setMovement(QListView.Movement.Static)
        self.setUniformItemSizes(True)
        self.setGridSize(CARD_SIZE)
        self.setSpacing(0)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setMouseTracking(True)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.setDragEnabled(True)
        self.setAcceptDrops(True)
        self.viewport().setAcceptDrops(True)  # drops arrive at the viewport, in its coordinates
        self.setDropIndicatorShown(False)
        self.setDragDropMode(QAbstractItemView.DragDropMode.DragDrop)
        self.setDefaultDropAction(Qt.DropAction.CopyAction)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.DefaultContextMenu)
        self.setItemDelegate(CardDelegate(self))
        self.setModel(proxy)
        self._proxy = proxy
        for signal in (proxy.rowsInserted, proxy.rowsRemoved, proxy.modelReset, proxy.layoutChanged):
            signal.connect(self.update_height)
        self.update_height()

    def card_colors(self) -> dict[str, QColor]:
        """The card colours (the ``card*`` properties), cached until QSS changes one."""
        if getattr(self, "_colors", None) is None:
            self._colors = card_colors(self)
        return self._colors

    @property
    def proxy(self) -> ThemeCardList:
        return self._proxy

    @property
    def theme(self) -> str:
        return self._proxy.theme

    def selected_ids(self) -> list[str]:
        return [index.data(CardRole.Id) for index in self.selectionModel().selectedIndexes()]

    # ── sizing: as tall as its rows, so only the wall scrolls ─────────

    def columns(self) -> int:
        return max(1, self._row_width() // CARD_SIZE.width())

    def _row_width(self) -> int:
        # QListView wraps an item whose right edge passes the viewport's last pixel (width - 1)
        return max(0, self.viewport().width() - 1)

    def content_height(self) -> int:
        rows = math.ceil(self._proxy.rowCount() / self.columns())
        return rows * CARD_SIZE.height() + 2 * self.frameWidth() + 4

    def update_height(self, *_: object) -> None:
        height = self.content_height()
        if height != self.height():
            self.setFixedHeight(height)

    def sizeHint(self) -> QSize:
        return QSize(CARD_SIZE.width() * 3, self.content_height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.fit_grid()
        self.update_height()

    def fit_grid(self) -> None:
        """Widen the grid cells so the cards of a row fill the width (no ragged gap on the right)."""
        columns = self.columns()
        cell = QSize(max(CARD_SIZE.width(), self._row_width() // columns), CARD_SIZE.height())
        if cell != self.gridSize():
            self.setGridSize(cell)

    # ── drag and drop: ids in, the wall decides ───────────────────────

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasFormat(MIME_IDS):
            event.setDropAction(Qt.DropAction.CopyAction)
            event.accept()
        else:
            event.ignore()

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        if event.mimeData().hasFormat(MIME_IDS):
            event.setDropAction(Qt.DropAction.CopyAction)
            event.accept()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:
        ids = decode_ids(event.mimeData())
        if not ids:
            event.ignore()
            return
        index = self.indexAt(event.position().toPoint())
        target = index.data(CardRole.Id) if index.isValid() else ""
        # Copy, not move: the domain does the moving; Qt must not remove rows itself.
        event.setDropAction(Qt.DropAction.CopyAction)
        event.accept()
        self.ids_dropped.emit(ids, self.theme, target or "")

    # ── keys and menu ─────────────────────────────────────────────────

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace) and self.selected_ids():
            self.delete_requested.emit(self.selected_ids())
            event.accept()
            return
        super().keyPressEvent(event)

    def contextMenuEvent(self, event) -> None:
        index = self.indexAt(event.pos())
        if not index.isValid():
            return
        if not self.selectionModel().isSelected(index):
            self.setCurrentIndex(index)
        self.context_requested.emit(index.data(CardRole.Id), event.globalPos())
