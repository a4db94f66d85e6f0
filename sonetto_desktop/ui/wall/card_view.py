"""ThemeCardView: one theme's cards in a wrapping flow, each card sized to its text, the view as
tall as its content (the wall scrolls).

Drags carry memory ids (``application/x-sonetto-memory-ids``). Dropping anywhere on the view moves
the cards to its theme — on a card too — except in a card's merge zone (``card_delegate.merge_zone``,
shown while one card is dragged over another, with a preview): that merges. A drop is reported as
``ids_dropped(ids, theme, target_id)`` — ``target_id`` is the card to merge into, or "" for a move —
and the wall decides. While dragging, ``drag_moved`` reports the cursor so the wall can scroll.
Delete/Backspace asks to delete the selection. Card colours are Qt properties so QSS can set them
with ``qproperty-cardText`` etc.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from PySide6.QtCore import Property, QPoint, QRect, QSize, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QDrag,
    QDragEnterEvent,
    QDragLeaveEvent,
    QDragMoveEvent,
    QDropEvent,
    QKeyEvent,
    QPainter,
    QPixmap,
)
from PySide6.QtWidgets import QAbstractItemView, QFrame, QListView, QSizePolicy, QWidget

from .card_delegate import DENSITIES, CardDelegate, card_colors, merge_zone
from .card_rows import Flow, lay_out
from .memory_model import MIME_IDS, CardRole, decode_ids, encode_ids
from .theme_card_list import ThemeCardList
from .theme_colors import wall_tokens
from .theme_palette import ThemeColors

DRAG_WIDTH = 200  # px: the drag picture is at most this wide


def _color_property(name: str, token: str) -> Property:
    attr = f"_{name}"

    def getter(self: "ThemeCardView") -> QColor:
        return getattr(self, attr, None) or QColor(wall_tokens("light")[token])

    def setter(self: "ThemeCardView", value: QColor) -> None:
        setattr(self, attr, QColor(value))
        self._colors = None
        self.viewport().update()

    return Property(QColor, getter, setter)


@dataclass(frozen=True)
class DropHint:
    """A card dragged over card ``target``: ``merge`` when the cursor is in its merge zone;
    ``whole``: the whole card is that zone (a card of the dragged card's own theme, where a move
    would change nothing)."""

    target: str
    merge: bool
    preview: str = ""
    whole: bool = False


class ThemeCardView(QListView):
    """A non-scrolling icon-mode list of one :class:`ThemeCardList`."""

    ids_dropped = Signal(list, str, str)  # ids, theme of this view, card to merge into ("" = move here)
    delete_requested = Signal(list)  # ids
    context_requested = Signal(str, object)  # card id, global QPoint
    drag_moved = Signal(object)  # global QPoint of a drag over the view (the wall auto-scrolls)
    drag_hovered = Signal(bool)  # a drag of cards entered (True) / left (False) the view

    cardBackground = _color_property("cardBackground", "card_bg")
    cardBorder = _color_property("cardBorder", "card_border")
    cardText = _color_property("cardText", "card_text")
    cardMuted = _color_property("cardMuted", "card_muted")
    cardSelected = _color_property("cardSelected", "card_selected")
    cardFlash = _color_property("cardFlash", "card_flash")

    def __init__(self, proxy: ThemeCardList, parent: QWidget | None = None, *,
                 theme_colors: ThemeColors | None = None, density: str = "comfortable") -> None:
        super().__init__(parent)
        self.setObjectName("CardListView")
        self.theme_colors = theme_colors if theme_colors is not None else ThemeColors()
        self.density = density if density in DENSITIES else "comfortable"
        self.drop_hint: DropHint | None = None
        self.dragging: tuple[str, bool] | None = None  # (the one card dragged over this view, same theme)
        self.wall_selection: Callable[[], list[str]] | None = None  # the wall's whole selection (drags)
        self.setViewMode(QListView.ViewMode.IconMode)
        self.setFlow(QListView.Flow.LeftToRight)
        self.setWrapping(True)
        self.setResizeMode(QListView.ResizeMode.Adjust)
        self.setMovement(QListView.Movement.Static)
        self.setUniformItemSizes(False)  # each card sized to its text
        self.setSpacing(0)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setMouseTracking(True)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.setSelectionRectVisible(True)  # a rubber band from a gap selects the cards it touches
        self.setDragEnabled(True)
        self.setAcceptDrops(True)
        self.viewport().setAcceptDrops(True)  # drops arrive at the viewport, in its coordinates
        self.setDropIndicatorShown(False)
        self.setDragDropMode(QAbstractItemView.DragDropMode.DragDrop)
        self.setDefaultDropAction(Qt.DropAction.CopyAction)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.DefaultContextMenu)
        self._layout_sizes: list[QSize] | None = None
        self._delegate = CardDelegate(self)
        self.setItemDelegate(self._delegate)
        self.setModel(proxy)
        self._proxy = proxy
        self._laid: Flow | None = None  # the last layout (see _compute_layout)
        self._dirty: set[str] = set()  # cards changed since
        for signal in (proxy.rowsInserted, proxy.rowsRemoved, proxy.rowsMoved):
            signal.connect(self._on_rows_changed)
        for signal in (proxy.modelReset, proxy.layoutChanged):
            signal.connect(self.update_height)
        proxy.dataChanged.connect(self._on_data_changed)
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

    def set_density(self, density: str) -> None:
        if density not in DENSITIES:
            raise ValueError(f"density must be one of {tuple(DENSITIES)}, not {density!r}")
        if density != self.density:
            self.density = density
            self._delegate.clear_cache()
            self._layout_sizes = None
            self.update_height()
            self.viewport().update()

    # ── sizing: rows filled edge to edge, as tall as its content ──────

    def _compute_layout(self) -> None:
        """Each card's size in the flow (see :mod:`card_rows`); only what changed since the last
        layout is laid out again."""
        avail = max(1, self.viewport().width() - 2)  # QListView wraps at the viewport's last pixel
        font = self.font()
        dirty, self._dirty = self._dirty, set()
        self._laid = lay_out(self._proxy.ids(), self._proxy.source_card,
                             lambda cards: self._delegate.card_layout(cards, font, self),
                             avail, (avail, self.density, font.key()), self._laid, dirty)
        self._layout_sizes = self._laid.sizes

    def layout_size(self, row: int) -> QSize | None:
        """The size the flow gives card ``row`` (computed for all cards at the first ask after a
        change: QListView asks for every card in each layout pass)."""
        sizes = self._layout_sizes
        if sizes is None:
            self._compute_layout()
            sizes = self._layout_sizes
        return sizes[row] if 0 <= row < len(sizes) else None

    def _invalidate_layout(self, *, keep_rows: bool = False) -> None:
        """Sizes are computed again at the next ask; ``keep_rows``: rows were inserted, removed or
        moved (or cards changed, ``_dirty``): the rows they do not touch are kept."""
        self._layout_sizes = None
        if not keep_rows:
            self._laid = None

    def content_height(self) -> int:
        if self._proxy.rowCount() == 0:
            return 2 * self.frameWidth() + 4
        return self.contentsSize().height() + 2 * self.frameWidth() + 4

    def _on_rows_changed(self, *_: object) -> None:
        self.update_height(keep_rows=True)

    def update_height(self, *_: object, keep_rows: bool = False) -> None:
        self._invalidate_layout(keep_rows=keep_rows)
        if not self.isVisible():  # not sized yet (a new or hidden section): laid out once shown
            self.scheduleDelayedItemsLayout()
            return
        if self._proxy.rowCount():
            self.doItemsLayout()  # the heights of the rows depend on the cards in them
        self._fit_height()

    def resizeEvent(self, event) -> None:
        if event.size().width() != event.oldSize().width():
            self._invalidate_layout()  # before QListView lays the items out for the new width
        super().resizeEvent(event)

    def _fit_height(self) -> None:
        height = self.content_height()
        if height != self.height():
            self.setFixedHeight(height)

    def updateGeometries(self) -> None:  # after every item layout (e.g. a new width)
        super().updateGeometries()
        self._fit_height()

    def _on_data_changed(self, top, bottom, roles=()) -> None:
        if not roles or CardRole.Description in roles or CardRole.Hit in roles:
            # text or footer changed: the card's size may too (its rows are laid out again; the
            # view only when a size did change: QListView asks every card's size, ~5 µs each)
            before = self._laid.sizes if self._laid is not None else None
            self._dirty.update(self._proxy.ids()[top.row():bottom.row() + 1])
            self._invalidate_layout(keep_rows=True)
            if before is None or self.layout_size(0) is None or self._laid.sizes != before:
                self.scheduleDelayedItemsLayout()

    def sizeHint(self) -> QSize:
        return QSize(DENSITIES[self.density].max_width * 2, self.content_height())

    # ── drag and drop: move anywhere, merge in a card's merge zone ────

    def drop_target(self, pos: QPoint, ids: list[str]) -> DropHint | None:
        """What a drop of ``ids`` at ``pos`` (viewport coordinates) would hit: a card (with ``merge``
        when in its merge zone; only one card merges at a time) or None (a move to this theme)."""
        index = self.indexAt(pos)
        if not index.isValid():
            return None
        target = index.data(CardRole.Id)
        if not target or target in ids or len(ids) != 1:
            return None
        dragged = self._proxy.source_card(ids[0])
        same_theme = dragged is not None and dragged.theme == self.theme
        in_zone = same_theme or merge_zone(self.visualRect(index), self.density).contains(pos.toPointF())
        return DropHint(target, in_zone, dragged.description if dragged is not None else "", whole=same_theme)

    def _set_dragging(self, ids: list[str] | None) -> None:
        """Which card is being dragged over this view: every card shows where it would merge."""
        dragging = None
        if ids and len(ids) == 1:
            dragged = self._proxy.source_card(ids[0])
            dragging = (ids[0], dragged is not None and dragged.theme == self.theme)
        if dragging != self.dragging:
            self.dragging = dragging
            self.viewport().update()

    def _set_hint(self, hint: DropHint | None) -> None:
        if hint != self.drop_hint:
            self.drop_hint = hint
            self.viewport().update()

    def drag_ids(self, indexes: list) -> list[str]:
        """The ids a drag of ``indexes`` carries: these cards, and the rest of the wall's selection
        (``wall_selection``, set by the wall: cards selected in other sections) when they are part of it."""
        ids = [index.data(CardRole.Id) for index in indexes]
        everywhere = self.wall_selection() if self.wall_selection is not None else []
        if ids and set(ids) <= set(everywhere):
            ids += [mid for mid in everywhere if mid not in ids]
        return [mid for mid in ids if mid]

    def drag_pixmap(self, indexes: list, count: int | None = None) -> QPixmap:
        """A small, see-through picture of the dragged card (with the number when several), drawn
        beside the cursor so the card and merge zone under it stay visible."""
        rect = self.visualRect(indexes[0])
        card = self.viewport().grab(rect)
        scale = min(1.0, DRAG_WIDTH / max(1, card.width()))
        card = card.scaled(int(card.width() * scale), int(card.height() * scale),
                           Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation)
        pixmap = QPixmap(card.size())
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        painter.setOpacity(0.85)
        painter.drawPixmap(0, 0, card)
        count = len(indexes) if count is None else count
        if count > 1:
            painter.setOpacity(1.0)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            badge = QRect(pixmap.width() - 26, 2, 24, 18)
            painter.setBrush(self.card_colors()["cardSelected"])
            painter.setPen(Qt.PenStyle.NoPen)
            painter.drawRoundedRect(badge, 9, 9)
            painter.setPen(self.card_colors()["cardBackground"])
            painter.drawText(badge, Qt.AlignmentFlag.AlignCenter, str(count))
        painter.end()
        return pixmap

    def startDrag(self, supported: Qt.DropAction) -> None:
        indexes = sorted(self.selectedIndexes(), key=lambda i: i.row())
        if not indexes:
            return
        drag = QDrag(self)
        ids = self.drag_ids(indexes)
        drag.setMimeData(encode_ids(ids))
        drag.setPixmap(self.drag_pixmap(indexes, len(ids)))
        drag.setHotSpot(QPoint(-14, -14))  # the picture sits below-right of the cursor
        drag.exec(Qt.DropAction.CopyAction)  # copy: the domain moves the card, not Qt

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasFormat(MIME_IDS):
            event.setDropAction(Qt.DropAction.CopyAction)
            event.accept()
            self.drag_hovered.emit(True)
        else:
            event.ignore()

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        if not event.mimeData().hasFormat(MIME_IDS):
            event.ignore()
            return
        pos = event.position().toPoint()
        ids = decode_ids(event.mimeData())
        self._set_dragging(ids)
        self._set_hint(self.drop_target(pos, ids))
        event.setDropAction(Qt.DropAction.CopyAction)
        event.accept()
        self.drag_moved.emit(self.viewport().mapToGlobal(pos))

    def dragLeaveEvent(self, event: QDragLeaveEvent) -> None:
        self._set_hint(None)
        self._set_dragging(None)
        self.drag_hovered.emit(False)
        super().dragLeaveEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:
        self._set_hint(None)
        self._set_dragging(None)
        self.drag_hovered.emit(False)
        ids = decode_ids(event.mimeData())
        if not ids:
            event.ignore()
            return
        hint = self.drop_target(event.position().toPoint(), ids)
        # Copy, not move: the domain does the moving; Qt must not remove rows itself.
        event.setDropAction(Qt.DropAction.CopyAction)
        event.accept()
        self.ids_dropped.emit(ids, self.theme, hint.target if hint is not None and hint.merge else "")

    def indexAt(self, point: QPoint):
        """The card under ``point``; the gap around a painted card (its margin) belongs to no card,
        so a press there starts a rubber band instead of a drag."""
        index = super().indexAt(point)
        if index.isValid():
            margin = DENSITIES[self.density].margin
            if not self.visualRect(index).adjusted(margin, margin, -margin, -margin).contains(point):
                return type(index)()
        return index

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
