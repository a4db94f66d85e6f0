"""WallOutline: the wall's table of contents — every theme with its count, in the wall's order.
A click jumps to the theme; dropping cards on a theme moves them there (so a theme far down the
wall is one short drag away). A row is as wide as the outline: a long name is cut, never the count or
the gap before it ("English  1 / 188", not "English…1 / 188"), and the name is set apart so that a
right-to-left one ("עברית") keeps the count on its right like every other."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QModelIndex, QPersistentModelIndex, QSize, Qt, Signal
from PySide6.QtGui import QColor, QDragEnterEvent, QDragMoveEvent, QDropEvent, QIcon, QPainter, QPixmap
from PySide6.QtWidgets import (QAbstractItemView, QFrame, QListView, QListWidget, QListWidgetItem, QStyle,
                               QStyledItemDelegate, QStyleOptionViewItem, QWidget)

from sonetto_desktop.presentation.undo_words import set_apart

from ..widgets.direction_marks import marked
from .memory_model import MIME_IDS, decode_ids

THEME_ROLE = Qt.ItemDataRole.UserRole + 1
COLOR_ROLE = Qt.ItemDataRole.UserRole + 2  # the colour its dot was drawn in
COUNT_ROLE = Qt.ItemDataRole.UserRole + 3  # the count's text ("17", "1 / 188")
GAP = "  "  # between the name and its count


def _dot(color: str) -> QIcon:
    pixmap = QPixmap(QSize(10, 10))
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor(color))
    painter.drawEllipse(0, 0, 10, 10)
    painter.end()
    return QIcon(pixmap)


class _RowDelegate(QStyledItemDelegate):
    """A row as wide as the outline, painting the name (set apart, cut in the middle when long), the gap
    and the count: the style's own elision cut the middle of the whole text, gap and all."""

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        size = super().sizeHint(option, index)
        view = self.parent()
        return QSize(view.viewport().width(), size.height()) if isinstance(view, QListView) else size

    def initStyleOption(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> None:
        super().initStyleOption(option, index)
        theme, count = index.data(THEME_ROLE), index.data(COUNT_ROLE)
        if theme is None or count is None:
            return
        widget = option.widget  # type: ignore[attr-defined]
        style = widget.style() if widget is not None else None
        if style is None:
            return
        room = style.subElementRect(QStyle.SubElement.SE_ItemViewItemText, option, widget).width()
        room -= 2 * (style.pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, widget) + 1)
        tail = GAP + count
        metrics = option.fontMetrics  # type: ignore[attr-defined]
        name = metrics.elidedText(marked(theme), Qt.TextElideMode.ElideMiddle, max(room - metrics.horizontalAdvance(tail), 0))
        option.text = set_apart(name) + tail  # type: ignore[attr-defined]


class WallOutline(QListWidget):
    theme_activated = Signal(str)
    ids_dropped = Signal(list, str, str)  # ids, theme, "" (always a move)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("WallOutline")
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setIconSize(QSize(10, 10))
        self.setUniformItemSizes(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.setResizeMode(QListView.ResizeMode.Adjust)  # (rows follow the outline's width)
        self.setItemDelegate(_RowDelegate(self))
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setAcceptDrops(True)
        self.viewport().setAcceptDrops(True)
        self.setDragDropMode(QAbstractItemView.DragDropMode.DropOnly)
        self.itemClicked.connect(lambda item: self.theme_activated.emit(item.data(THEME_ROLE)))
        self.itemActivated.connect(lambda item: self.theme_activated.emit(item.data(THEME_ROLE)))
        self.setAccessibleName(self.tr("主题目录"))

    def set_themes(self, rows: list[tuple[str, str, str]]) -> None:
        """``rows``: (theme, count text, colour) in display order."""
        current = self.currentItem().data(THEME_ROLE) if self.currentItem() else None
        if [self.item(i).data(THEME_ROLE) for i in range(self.count())] != [r[0] for r in rows]:
            self.clear()
            for theme, _, _ in rows:
                item = QListWidgetItem(self)
                item.setData(THEME_ROLE, theme)
        for i, (theme, count, color) in enumerate(rows):
            item = self.item(i)
            if item.text() != f"{theme}{GAP}{count}":  # (called at every step of a load: only changes)
                item.setText(f"{theme}{GAP}{count}")
                item.setData(COUNT_ROLE, count)
                item.setToolTip(QCoreApplication.translate("WallOutline", "{0}（{1}）").format(set_apart(theme), count))
            if item.data(COLOR_ROLE) != color:
                item.setData(COLOR_ROLE, color)
                item.setIcon(_dot(color))
            if theme == current:
                self.setCurrentItem(item)

    def themes(self) -> list[str]:
        return [self.item(i).data(THEME_ROLE) for i in range(self.count())]

    def item_for(self, theme: str) -> QListWidgetItem | None:
        for i in range(self.count()):
            if self.item(i).data(THEME_ROLE) == theme:
                return self.item(i)
        return None

    def mark_current(self, theme: str) -> None:
        item = self.item_for(theme)
        if item is not None and item is not self.currentItem():
            self.blockSignals(True)
            self.setCurrentItem(item)
            self.blockSignals(False)

    # ── drops: a move to the theme under the cursor ───────────────────

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if event.mimeData().hasFormat(MIME_IDS):
            event.setDropAction(Qt.DropAction.CopyAction)
            event.accept()
        else:
            event.ignore()

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:
        item = self.itemAt(event.position().toPoint())
        if item is not None and event.mimeData().hasFormat(MIME_IDS):
            event.setDropAction(Qt.DropAction.CopyAction)
            event.accept()
        else:
            event.ignore()

    def dropEvent(self, event: QDropEvent) -> None:
        item = self.itemAt(event.position().toPoint())
        ids = decode_ids(event.mimeData())
        if item is None or not ids:
            event.ignore()
            return
        event.setDropAction(Qt.DropAction.CopyAction)
        event.accept()
        self.ids_dropped.emit(ids, item.data(THEME_ROLE), "")
