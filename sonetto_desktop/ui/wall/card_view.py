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

from PySide6.QtCore import (
    QEvent,
    QItemSelection,
    QModelIndex,
    QPersistentModelIndex,
    QPoint,
    QRect,
    QSize,
    Qt,
    Signal,
)
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
    QRegion,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QListView,
    QRubberBand,
    QScrollArea,
    QSizePolicy,
    QStyle,
    QStyleOptionRubberBand,
    QStyleOptionViewItem,
    QWidget,
)

from sonetto_desktop.presentation.cards import DESCRIPTION, THEME
from .card_delegate import DENSITIES, CardDelegate, card_colors, merge_zone
from .card_rows import Flow, append, lay_out
from .memory_model import MIME_IDS, CardRole, decode_ids, encode_ids
from .theme_card_list import ThemeCardList
from .theme_colors import wall_tokens
from .theme_palette import ThemeColors
from ..widgets.color_property import color_property
from ..widgets.owner import Owner

DRAG_WIDTH = 200  # px: the drag picture is at most this wide


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
    edit_requested = Signal(str)  # card id: Enter on the current card
    edge_reached = Signal(int, int)  # an arrow key at the view's edge: ±1 down / up, ±2 right / left; the card's x
    focused = Signal()  # the view got the keyboard focus (it becomes the wall's one Tab stop)

    cardBackground = color_property("cardBackground", wall_tokens("light")["card_bg"])
    cardBorder = color_property("cardBorder", wall_tokens("light")["card_border"])
    cardText = color_property("cardText", wall_tokens("light")["card_text"])
    cardMuted = color_property("cardMuted", wall_tokens("light")["card_muted"])
    cardSelected = color_property("cardSelected", wall_tokens("light")["card_selected"])
    cardFlash = color_property("cardFlash", wall_tokens("light")["card_flash"])

    wall_selection = Owner()  # WallSections.selected_ids, held weakly (widgets/owner.py)

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
        self.setAutoScroll(False)  # the wall scrolls, not the view (keys bring the current card into view)
        self.viewport().setAttribute(Qt.WidgetAttribute.WA_StaticContents)  # growing taller repaints nothing old
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
        self._delegate = CardDelegate(self)
        self.setItemDelegate(self._delegate)
        self.setModel(proxy)
        self._proxy = proxy
        self._laid: Flow | None = None  # the last flow (see ``flow``)
        self._laid_revision = -1  # the list's revision it was made for
        self._dirty: set[str] = set()  # cards changed since
        self._appended_only = False  # since then, cards were only added after the last one
        self._hover: QPersistentModelIndex | None = None  # the card under the cursor
        self._press: QPoint | None = None  # where the mouse was pressed (the rubber band's corner)
        self._band: QRect | None = None  # the rubber band, while one is dragged
        proxy.rowsInserted.connect(self._on_rows_inserted)
        for signal in (proxy.rowsRemoved, proxy.rowsMoved):
            signal.connect(self._on_rows_changed)
        for signal in (proxy.modelReset, proxy.layoutChanged):
            signal.connect(self._on_reset)
        proxy.dataChanged.connect(self._on_data_changed)
        self.update_height()

    def _color_changed(self) -> None:
        """A ``card*`` colour was set (by the QSS): the cached colours go, the cards are painted again."""
        self._colors = None
        self.viewport().update()

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
            self.update_height()

    # ── the flow: rows filled edge to edge, as tall as its content ───────
    # The view lays its cards out itself (``card_rows``: each card measured once, rows flowed again
    # only where they changed) and paints, hit-tests and selects from that flow. QListView's own
    # item layout is never run: it asks every card's size through Python and starts over from the
    # first card whenever rows are inserted (quadratic while a section fills, issue 29).

    def flow(self) -> Flow:
        """The flow of the cards shown now (laid out again first if anything changed)."""
        return self._relayout(max(1, self.viewport().width() - 2))  # (wrapped at the viewport's last pixel)

    def _relayout(self, avail: int | None) -> Flow:
        """The flow, made again where the cards changed; ``avail`` None: only the cards are measured
        (a view not shown yet: it is flowed at its width once shown)."""
        proxy = self._proxy
        metrics = self._delegate.metrics(self)
        laid = self._laid
        same_width = avail is None or (laid is not None and laid.setting is not None and laid.setting[0] == avail)
        if laid is not None and self._laid_revision == proxy.revision and not self._dirty \
                and laid.metrics == metrics.setting and same_width:
            return laid
        if laid is not None and self._appended_only and not self._dirty and laid.metrics == metrics.setting \
                and same_width:  # cards only added at the end (a section filling): in place, O(new)
            flow = append(laid, proxy.ids(len(laid)), proxy.source_card, metrics)
        else:
            dirty, self._dirty = self._dirty, set()
            flow = self._laid = lay_out(proxy.ids(), proxy.source_card, metrics, avail, laid, dirty)
        self._laid_revision = proxy.revision
        self._appended_only = True
        if avail is not None:
            # repainted: from the first row that is not the old one down (Qt paints only what of it
            # is visible: cards appended below the visible part cost no paint)
            top = flow.tops[flow.kept_rows] if flow.kept_rows else 0
            bottom = max(flow.height(), laid.height() if laid is not None and laid.setting is not None else 0)
            if bottom > top:
                self.viewport().update(QRect(0, top, self.viewport().width(), bottom - top))
        return flow

    def layout_size(self, row: int) -> QSize | None:
        """The size the flow gives card ``row``."""
        flow = self.flow()
        if not 0 <= row < len(flow):
            return None
        return QSize(flow.widths[row], flow.heights[flow.row_of(row)])

    def content_height(self) -> int:
        if self._proxy.rowCount() == 0:
            return 2 * self.frameWidth() + 4
        return self.flow().height() + 2 * self.frameWidth() + 4

    def _on_rows_inserted(self, _parent, first: int, last: int) -> None:
        if first != self._proxy.rowCount() - (last - first + 1):  # not after the last card
            self._appended_only = False
        self.update_height()

    def _on_rows_changed(self, *_: object) -> None:
        self._appended_only = False
        self.update_height()

    def _on_reset(self) -> None:
        # every card may be another or have changed (a list emptied while the wall refills is not
        # told about its cards' changes): nothing of the old flow is kept
        self._laid, self._dirty, self._hover = None, set(), None
        self.update_height()

    def update_height(self, *_: object) -> None:
        """Flow the cards again (what changed) and fit the view's height to them; a view not shown
        yet (a new or collapsed section) flows when it is shown, at its width then."""
        if not self.isVisible():
            self._relayout(None)  # measured now, in the step that shows them (not all at once later)
            self.scheduleDelayedItemsLayout()
            return
        self._fit_height()

    def doItemsLayout(self) -> None:  # QListView's layout is replaced by the flow
        QAbstractItemView.doItemsLayout(self)  # (geometries: our height)

    def resizeEvent(self, event) -> None:
        # (also called for the viewport's resizes, from inside the scroll area's layout of it: the
        # view's height must not change in there, or the viewport keeps the old one)
        if event.size().width() != event.oldSize().width():
            self.scheduleDelayedItemsLayout()  # flowed again at the new width right after (as QListView)
            return
        QAbstractItemView.resizeEvent(self, event)  # not QListView's: it would lay items out

    def _fit_height(self) -> None:
        height = self.content_height()
        if height != self.height():
            self.setFixedHeight(height)

    def updateGeometries(self) -> None:  # after every (delayed) layout, e.g. when shown
        super().updateGeometries()
        self._fit_height()

    def _on_data_changed(self, top, bottom, roles=()) -> None:
        if not roles or CardRole.Description in roles or CardRole.Hit in roles:
            # text or footer changed: the card is measured again, and its rows flowed again
            self._dirty.update(self._proxy.ids()[top.row():bottom.row() + 1])
            self.update_height()

    def sizeHint(self) -> QSize:
        return QSize(DENSITIES[self.density].max_width * 2, self.content_height() if self.isVisible() else 0)

    # ── geometry, painting and selection from the flow ──────────────────

    def visualRect(self, index) -> QRect:
        if not index.isValid() or index.model() is not self._proxy:
            return QRect()
        flow = self.flow()
        row = index.row()
        if not 0 <= row < len(flow):
            return QRect()
        return QRect(*flow.rect(row))

    def _index_at(self, point: QPoint):
        row = self.flow().card_at(point.x(), point.y())
        return self._proxy.index(row, 0) if row >= 0 else QModelIndex()

    def indexAt(self, point: QPoint):
        """The card under ``point``; the gap around a painted card (its margin) belongs to no card,
        so a press there starts a rubber band instead of a drag."""
        index = self._index_at(point)
        if index.isValid():
            margin = DENSITIES[self.density].margin
            if not self.visualRect(index).adjusted(margin, margin, -margin, -margin).contains(point):
                return QModelIndex()
        return index

    def scrollTo(self, index, hint=QAbstractItemView.ScrollHint.EnsureVisible) -> None:
        """Bring the card into the wall's visible area (the view itself never scrolls: the scroll
        area around the sections does)."""
        rect = self.visualRect(index)
        if not rect.isValid():
            return
        area = self._scroll_area()
        if area is None:
            self.viewport().update(rect)
            return
        center = self.viewport().mapTo(area.widget(), rect.center())
        area.ensureVisible(center.x(), center.y(), rect.width() // 2 + 8, rect.height() // 2 + 8)

    def _scroll_area(self) -> QScrollArea | None:
        """The scroll area the view sits in (the wall's), if any."""
        parent = self.parentWidget()
        while parent is not None and not isinstance(parent, QScrollArea):
            parent = parent.parentWidget()
        return parent

    def moveCursor(self, action, modifiers):
        """Keyboard moves in reading order (left / right go on to the next row), up and down to the
        card nearest above or below, page up / down by the height of the wall's visible area."""
        count = self._proxy.rowCount()
        if count == 0:
            return QModelIndex()
        current = self.currentIndex()
        if not current.isValid():
            return self._proxy.index(0, 0)
        Action = QAbstractItemView.CursorAction
        row = current.row()
        if action in (Action.MoveLeft, Action.MovePrevious):
            return self._proxy.index(max(0, row - 1), 0)
        if action in (Action.MoveRight, Action.MoveNext):
            return self._proxy.index(min(count - 1, row + 1), 0)
        if action == Action.MoveHome:
            return self._proxy.index(0, 0)
        if action == Action.MoveEnd:
            return self._proxy.index(count - 1, 0)
        x, y, w, h = self.flow().rect(row)
        if action in (Action.MoveUp, Action.MoveDown):
            target = y - 1 if action == Action.MoveUp else y + h
        else:
            area = self._scroll_area()
            page = max(h, (area.viewport().height() if area is not None else self.height()) - h)
            target = y - page if action == Action.MovePageUp else y + page
        return self._proxy.index(self.nearest(x + w // 2, target), 0)

    def nearest(self, x: int, y: int) -> int:
        """The card of the row at ``y`` (clamped to the first and last row) nearest to ``x``."""
        flow = self.flow()
        left, best, distance = 0, -1, None
        for card in flow.row_cards(flow.row_at(y)):
            width = flow.widths[card]
            gap = 0 if left <= x < left + width else min(abs(x - left), abs(x - left - width))
            if distance is None or gap < distance:
                best, distance = card, gap
            left += width
        return best

    def setSelection(self, rect: QRect, command) -> None:
        """Select what a click, a shift-click / shift-key range or a rubber band covers."""
        flow = self.flow()
        selection = QItemSelection()
        if self.state() == QAbstractItemView.State.DragSelectingState:  # a rubber band: what it touches
            area = rect.normalized()
            for row in range(flow.row_at(area.top()), flow.row_at(area.bottom()) + 1):
                if row < 0:
                    break
                tops = flow.tops
                if tops[row] > area.bottom() or tops[row + 1] <= area.top():
                    continue
                left, first, last = 0, -1, -1
                for card in flow.row_cards(row):
                    right = left + flow.widths[card]
                    if left <= area.right() and right > area.left():
                        first = card if first < 0 else first
                        last = card
                    left = right
                if first >= 0:
                    selection.select(self._proxy.index(first, 0), self._proxy.index(last, 0))
        else:  # from the card at one corner to the card at the other, in reading order
            a = flow.card_at(rect.left(), rect.top())
            b = flow.card_at(rect.right(), rect.bottom())
            if a >= 0 and b >= 0:
                selection.select(self._proxy.index(min(a, b), 0), self._proxy.index(max(a, b), 0))
        self.selectionModel().select(selection, command)

    def visualRegionForSelection(self, selection: QItemSelection) -> QRegion:
        """The selected cards' rectangles where the view can be seen (thousands may be selected)."""
        flow = self.flow()
        shown = self.viewport().visibleRegion().boundingRect()
        if shown.isEmpty() or not len(flow):
            return QRegion()
        first = flow.starts[flow.row_at(shown.top())]
        last_row = flow.row_at(shown.bottom())
        last = flow.starts[last_row] + flow.counts[last_row] - 1
        region = QRegion()
        for part in selection:
            if part.parent().isValid() or part.model() is not self._proxy:
                continue
            for row in range(max(first, part.top()), min(last, part.bottom()) + 1):
                region += QRect(*flow.rect(row))
        return region

    def paintEvent(self, event) -> None:
        flow = self.flow()
        if not len(flow) and self._band is None:
            return
        painter = QPainter(self.viewport())
        option = QStyleOptionViewItem()
        self.initViewItemOption(option)
        state = option.state & ~(QStyle.StateFlag.State_Selected | QStyle.StateFlag.State_MouseOver
                                 | QStyle.StateFlag.State_HasFocus)
        proxy, selection, delegate = self._proxy, self.selectionModel(), self._delegate
        current = self.currentIndex() if self.hasFocus() else QModelIndex()
        hover = self._hover
        area = event.rect()
        if len(flow):
            tops, widths = flow.tops, flow.widths
            for row in range(flow.row_at(area.top()), flow.row_at(area.bottom()) + 1):
                y, height = tops[row], tops[row + 1] - tops[row]
                left = 0
                for card in flow.row_cards(row):
                    width = widths[card]
                    if left <= area.right() and left + width > area.left():
                        index = proxy.index(card, 0)
                        option.rect = QRect(left, y, width, height)
                        flags = state
                        if selection.isSelected(index):
                            flags |= QStyle.StateFlag.State_Selected
                        if index == current:
                            flags |= QStyle.StateFlag.State_HasFocus
                        if hover is not None and card == hover.row() and hover.isValid():
                            flags |= QStyle.StateFlag.State_MouseOver
                        option.state = flags
                        delegate.paint(painter, option, index)
                    left += width
        if self._band is not None:  # the rubber band (drawn by QListView's own paint, which is not used)
            band = QStyleOptionRubberBand()
            band.initFrom(self)
            band.shape = QRubberBand.Shape.Rectangle
            band.opaque = False
            band.rect = self._band.intersected(self.viewport().rect().adjusted(-16, -16, 16, 16))
            painter.save()
            self.style().drawControl(QStyle.ControlElement.CE_RubberBand, band, painter)
            painter.restore()
        painter.end()

    # ── mouse: the card under the cursor, the rubber band ─────────────────

    def _set_hover(self, index) -> None:
        hover = QPersistentModelIndex(index) if index is not None and index.isValid() else None
        if hover != self._hover:
            for old in (self._hover, hover):
                if old is not None and old.isValid():
                    self.viewport().update(self.visualRect(self._proxy.index(old.row(), 0)))
            self._hover = hover

    def viewportEvent(self, event) -> bool:
        kind = event.type()
        if kind in (QEvent.Type.HoverEnter, QEvent.Type.HoverMove):
            self._set_hover(self.indexAt(event.position().toPoint()))
        elif kind in (QEvent.Type.HoverLeave, QEvent.Type.Leave):
            self._set_hover(None)
        return super().viewportEvent(event)

    def mousePressEvent(self, event) -> None:
        self._press = event.position().toPoint()
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event) -> None:
        super().mouseMoveEvent(event)
        pos = event.position().toPoint()
        self._set_hover(self.indexAt(pos))
        if (self.state() == QAbstractItemView.State.DragSelectingState and self.isSelectionRectVisible()
                and self._press is not None):
            band = QRect(self._press, pos).normalized()
            margin = 2 * self.style().pixelMetric(QStyle.PixelMetric.PM_DefaultFrameWidth)
            self.viewport().update(band.united(self._band or band).adjusted(-margin, -margin, margin, margin))
            self._band = band

    def mouseReleaseEvent(self, event) -> None:
        super().mouseReleaseEvent(event)
        if self._band is not None:
            self.viewport().update(self._band.adjusted(-16, -16, 16, 16))
        self._band, self._press = None, None

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
        same_theme = dragged is not None and dragged[THEME] == self.theme
        in_zone = same_theme or merge_zone(self.visualRect(index), self.density).contains(pos.toPointF())
        return DropHint(target, in_zone, dragged[DESCRIPTION] if dragged is not None else "", whole=same_theme)

    def _set_dragging(self, ids: list[str] | None) -> None:
        """Which card is being dragged over this view: every card shows where it would merge."""
        dragging = None
        if ids and len(ids) == 1:
            dragged = self._proxy.source_card(ids[0])
            dragging = (ids[0], dragged is not None and dragged[THEME] == self.theme)
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

    # ── keys and menu ─────────────────────────────────────────────────

    _EDGES = {Qt.Key.Key_Up: (QAbstractItemView.CursorAction.MoveUp, -1),
              Qt.Key.Key_Down: (QAbstractItemView.CursorAction.MoveDown, 1),
              Qt.Key.Key_Left: (QAbstractItemView.CursorAction.MoveLeft, -1),
              Qt.Key.Key_Right: (QAbstractItemView.CursorAction.MoveRight, 1)}

    def focusInEvent(self, event) -> None:
        super().focusInEvent(event)
        self.focused.emit()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        if key in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace) and self.selected_ids():
            self.delete_requested.emit(self.selected_ids())
            event.accept()
            return
        current = self.currentIndex()
        if key == Qt.Key.Key_F10 and event.modifiers() == Qt.KeyboardModifier.ShiftModifier and current.isValid():
            # The card's menu, as the Menu key opens it (most laptops have none): at the card.
            where = self.viewport().mapToGlobal(self.visualRect(current).center())
            self.context_requested.emit(current.data(CardRole.Id), where)
            event.accept()
            return
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and current.isValid() \
                and not event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
            self.edit_requested.emit(current.data(CardRole.Id))  # Enter edits, as a double click does
            event.accept()
            return
        edge = self._EDGES.get(key)
        if edge is not None and current.isValid() and not event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier \
                and self.moveCursor(edge[0], event.modifiers()) == current:  # at the edge: the next theme
            self.edge_reached.emit(edge[1] if key in (Qt.Key.Key_Up, Qt.Key.Key_Down) else 2 * edge[1],
                                   self.visualRect(current).center().x())
            event.accept()
            return
        before = current
        super().keyPressEvent(event)
        if self.currentIndex() != before:  # moved by the keys: the card is brought into view
            self.scrollTo(self.currentIndex())

    def contextMenuEvent(self, event) -> None:
        index = self.indexAt(event.pos())
        if not index.isValid():
            return
        # (the wall decides what the menu acts on: ``Sections._on_context_requested``)
        self.context_requested.emit(index.data(CardRole.Id), event.globalPos())
