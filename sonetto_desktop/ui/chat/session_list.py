"""SessionList: the chat's list of sessions, renamed in place (double-click or F2).

The rename box sits in the row's text area, which the style sheet's item padding makes only as tall as
the row's text. Whether the box's own frame and padding fit in there depended on the font: with a CJK
font installed the rows are taller and it fitted; with Latin fallback fonts the box came out a pixel or
two shorter than its minimum and cut the text. The delegate gives the box at least its own minimum
height, centred on the row, whatever the font.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, Qt, Signal
from PySide6.QtWidgets import QAbstractItemDelegate, QAbstractItemView, QListWidget, QStyledItemDelegate, QStyleOptionViewItem, QWidget


class _RenameDelegate(QStyledItemDelegate):
    def updateEditorGeometry(self, editor: QWidget, option: QStyleOptionViewItem,
                             index: QModelIndex | QPersistentModelIndex) -> None:
        super().updateEditorGeometry(editor, option, index)
        needed = max(editor.minimumSizeHint().height(), editor.fontMetrics().height() + 2)
        geometry = editor.geometry()
        if geometry.height() < needed:
            top = option.rect.center().y() - needed // 2 + 1
            editor.setGeometry(QRect(geometry.left(), top, geometry.width(), needed))


class SessionList(QListWidget):
    """``rename_ended``: the rename box closed (committed or not): a refill held back meanwhile can run."""

    rename_ended = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("SessionList")
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.setItemDelegate(_RenameDelegate(self))

    @property
    def renaming(self) -> bool:
        """A chat's name is being typed in place (clearing the list now would throw it away)."""
        return self.state() == QAbstractItemView.State.EditingState

    def closeEditor(self, editor: QWidget, hint: QAbstractItemDelegate.EndEditHint) -> None:
        super().closeEditor(editor, hint)
        self.rename_ended.emit()
