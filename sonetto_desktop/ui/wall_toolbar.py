"""WallToolbar: the wall's row of controls — search, sort, count, density, outline, add, trash.
It only reports what the person chose; the wall acts on it."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QLineEdit, QToolButton, QWidget

from .icons import icon
from .memory_model import uses_tooltip

SEARCH_MIN_WIDTH = 120


class WallToolbar(QWidget):
    sort_changed = Signal(str)
    density_toggled = Signal(bool)  # compact
    outline_toggled = Signal(bool)  # shown

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("WallToolbar")
        self.search_edit = QLineEdit(self)
        self.search_edit.setObjectName("WallSearch")
        self.search_edit.setPlaceholderText(self.tr("搜索记忆…（Ctrl+F；可用拼音，如 kf）"))
        self.search_edit.setToolTip(self.tr("搜索记忆：空格和标点不影响结果，中文可以用拼音或拼音首字母；Esc 清空"))
        self.search_edit.setClearButtonEnabled(True)
        self.search_edit.setMinimumWidth(SEARCH_MIN_WIDTH)  # a narrow window must not squeeze it to "搜…"
        self.search_edit.addAction(icon("search"), QLineEdit.ActionPosition.LeadingPosition)
        self.sort_combo = QComboBox(self)
        self.sort_combo.setObjectName("WallSort")
        self.sort_combo.addItem(self.tr("最近更新"), "recent")
        self.sort_combo.addItem(self.tr("用到最多"), "hits")
        self.sort_combo.setItemData(1, uses_tooltip(0).split("：", 1)[-1], Qt.ItemDataRole.ToolTipRole)
        self.sort_combo.currentIndexChanged.connect(lambda _: self.sort_changed.emit(self.sort_combo.currentData()))
        self.count_label = QLabel(self)
        self.count_label.setObjectName("WallCount")
        self.density_button = self._toggle("WallDensity", "compact", self.tr("紧凑显示：卡片更小，每张最多两行"))
        self.density_button.toggled.connect(self.density_toggled)
        self.outline_button = self._toggle("WallOutlineToggle", "outline", self.tr("显示主题目录（点击跳转）"))
        self.outline_button.toggled.connect(self.outline_toggled)
        self.add_button = QToolButton(self)
        self.add_button.setObjectName("WallAdd")
        self.add_button.setIcon(icon("add"))
        self.add_button.setText(self.tr("新建"))
        self.add_button.setToolTip(self.tr("新建一条记忆"))
        self.add_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.trash_button = QToolButton(self)
        self.trash_button.setObjectName("WallTrash")
        self.trash_button.setIcon(icon("trash"))
        self.trash_button.setToolTip(self.tr("回收站"))
        self.trash_button.setAccessibleName(self.tr("回收站"))
        row = QHBoxLayout(self)
        row.setContentsMargins(8, 8, 8, 4)
        row.setSpacing(6)
        row.addWidget(self.outline_button)
        row.addWidget(self.search_edit, 1)
        row.addWidget(self.sort_combo)
        row.addWidget(self.count_label)
        row.addWidget(self.density_button)
        row.addWidget(self.add_button)
        row.addWidget(self.trash_button)

    def _toggle(self, name: str, icon_name: str, tip: str) -> QToolButton:
        button = QToolButton(self)
        button.setObjectName(name)
        button.setIcon(icon(icon_name))
        button.setCheckable(True)
        button.setToolTip(tip)
        button.setAccessibleName(tip)
        return button

    @staticmethod
    def _quietly(widget: QWidget, fn) -> None:
        widget.blockSignals(True)
        try:
            fn()
        finally:
            widget.blockSignals(False)

    def set_sort(self, mode: str) -> None:
        index = self.sort_combo.findData(mode)
        if index != self.sort_combo.currentIndex():
            self._quietly(self.sort_combo, lambda: self.sort_combo.setCurrentIndex(index))

    def set_density(self, compact: bool) -> None:
        self._quietly(self.density_button, lambda: self.density_button.setChecked(compact))

    def set_outline(self, shown: bool) -> None:
        self._quietly(self.outline_button, lambda: self.outline_button.setChecked(shown))
