"""WallToolbar: the wall's row of controls — view options (outline, density), search, sort, count,
add, trash — and, under it while a filter is on, a slim bar that says which and shows all again.
It only reports what the person chose; the wall acts on it."""

from __future__ import annotations

from PySide6.QtCore import QObject, QSize, Qt, Signal
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QLineEdit, QMenu, QToolButton, QVBoxLayout, QWidget

from ..widgets.elided_label import ElidedLabel
from ..widgets.focus import enter_clicks
from ..widgets.icons import icon
from .memory_model import uses_tooltip
from sonetto_desktop.presentation.authors import FILTERS, filter_label

SEARCH_MIN_WIDTH = 96  # the least, whatever the placeholder; the window stays under 760 px wide
#: Around the placeholder: the border, padding and search icon before it, the clear button's room after it
#: (the × appears where the placeholder ends), and a pixel between.
SEARCH_CHROME = 62
SEARCH_MAX_WIDTH = 420  # at 2560 px it stops here (a search box across a whole wide wall reads as a banner)


class _SearchEdit(QLineEdit):
    """The search box: never narrower than its whole placeholder with its icon and the clear button's room,
    in the font it is shown in (a narrow window squeezed it to "搜索记", the last stroke under the edge)."""

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        placeholder = self.fontMetrics().horizontalAdvance(self.placeholderText())
        return QSize(max(SEARCH_MIN_WIDTH, placeholder + SEARCH_CHROME), hint.height())


class WallToolbar(QWidget):
    sort_changed = Signal(str)
    density_toggled = Signal(bool)  # compact
    outline_toggled = Signal(bool)  # shown
    filter_changed = Signal(str)  # a name of wall_filters.FILTERS
    forget_today_requested = Signal()

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("WallToolbar")
        self._build_search()
        self._build_sort()
        self.count_label = ElidedLabel(self)  # its text grows while loading: it must not widen the wall
        self.count_label.setObjectName("WallCount")
        self.count_label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.view_button = self._button("WallView", "outline", self.tr("显示方式"), named=True)
        self.view_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)  # one button: the wall stays narrow
        self.view_button.setMenu(self._build_view_menu())
        self.add_button = self._button("WallAdd", "add", self.tr("新建一条记忆"), text=self.tr("新建"))
        self.add_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.trash_button = self._button("WallTrash", "trash", self.tr("回收站"), named=True)
        self._build_filter_bar()
        self._lay_out()

    def _button(self, name: str, icon_name: str, tooltip: str, *, text: str = "", named: bool = False) -> QToolButton:
        """A tool button of the row; ``named``: its tooltip is also its accessible name (an icon alone)."""
        button = QToolButton(self)
        button.setObjectName(name)
        button.setIcon(icon(icon_name))
        button.setToolTip(tooltip)
        if text:
            button.setText(text)
        if named:
            button.setAccessibleName(tooltip)
        return button

    def _build_search(self) -> None:
        self.search_edit = _SearchEdit(self)
        self.search_edit.setObjectName("WallSearch")
        self.search_edit.setPlaceholderText(self.tr("搜索记忆"))  # short: the wall can be narrow (Ctrl+F: the tooltip)
        self.search_edit.setToolTip(self.tr("搜索记忆（Ctrl+F）：空格和标点不影响结果，中文可以用拼音或拼音首字母（如 kf）；Esc 清空"))
        self.search_edit.setClearButtonEnabled(True)
        self.search_edit.setMaximumWidth(SEARCH_MAX_WIDTH)
        self.search_edit.addAction(icon("search"), QLineEdit.ActionPosition.LeadingPosition)

    def _build_sort(self) -> None:
        self.sort_combo = QComboBox(self)
        self.sort_combo.setObjectName("WallSort")
        self.sort_combo.addItem(self.tr("最近更新"), "recent")
        self.sort_combo.addItem(self.tr("用到最多"), "hits")
        self.sort_combo.setItemData(1, uses_tooltip(0).split("：", 1)[-1], Qt.ItemDataRole.ToolTipRole)
        self.sort_combo.currentIndexChanged.connect(lambda _: self.sort_changed.emit(self.sort_combo.currentData()))

    def _build_view_menu(self) -> QMenu:
        """The view button's menu: outline, density, jump to a theme, the filters, forget today's."""
        menu = QMenu(self.view_button)
        menu.setObjectName("WallViewMenu")
        self.outline_action = self._toggle(menu, "outline", self.tr("主题目录（点击跳转）"))
        self.outline_action.toggled.connect(self.outline_toggled)
        self.density_action = self._toggle(menu, "compact", self.tr("紧凑显示（卡片更小，最多两行）"))
        self.density_action.toggled.connect(self.density_toggled)
        menu.addSeparator()
        self.jump_menu = menu.addMenu(self.tr("跳到主题"))  # filled by the wall when it opens
        self.jump_menu.setObjectName("WallJumpMenu")
        menu.addSeparator()
        self.filter_menu = menu.addMenu(self.tr("筛选"))
        self.filter_menu.setObjectName("WallFilterMenu")
        self.filter_actions: dict[str, QAction] = {}
        group = QActionGroup(self.filter_menu)
        for name in FILTERS:
            action = self.filter_menu.addAction(filter_label(name))
            action.setObjectName(f"filter-{name}")
            action.setCheckable(True)
            action.setChecked(name == "all")
            group.addAction(action)
            action.triggered.connect(lambda _=False, n=name: self.filter_changed.emit(n))
            self.filter_actions[name] = action
        self.forget_today_action = menu.addAction(icon("trash"), self.tr("删除 Sonetto 今天写的…"))
        self.forget_today_action.setObjectName("forget-today")
        self.forget_today_action.triggered.connect(self.forget_today_requested)
        return menu

    def _build_filter_bar(self) -> None:
        """The filter on, said in its own row: the filter menu is folded into the view button, and the
        filter's name beside the count took the search box's room ("其他应用写的 · 0 / 100000 条")."""
        self.filter_bar = QWidget(self)
        self.filter_bar.setObjectName("WallFilterBar")
        self.filter_text = QLabel(self.filter_bar)
        self.filter_text.setObjectName("WallFilterText")
        self.filter_clear = QToolButton(self.filter_bar)
        self.filter_clear.setObjectName("WallFilterClear")
        self.filter_clear.setText(self.tr("显示全部"))
        self.filter_clear.setToolTip(self.tr("取消筛选，显示全部记忆"))
        self.filter_clear.clicked.connect(lambda: self.filter_changed.emit("all"))
        enter_clicks(self.filter_clear)  # (a link-like button: followed with Enter too)
        bar = QHBoxLayout(self.filter_bar)
        bar.setContentsMargins(10, 0, 6, 4)
        bar.setSpacing(6)
        bar.addWidget(self.filter_text, 1)
        bar.addWidget(self.filter_clear)
        self.filter_bar.hide()

    def _lay_out(self) -> None:
        row = QHBoxLayout()
        row.setContentsMargins(4, 8, 4, 4)  # (narrow: the search box keeps its placeholder at 760 px)
        row.setSpacing(4)
        for widget, stretch in ((self.view_button, 0), (self.search_edit, 1), (self.sort_combo, 0)):
            row.addWidget(widget, stretch)
        row.addStretch(0)  # what the search box leaves at its widest: the count and the buttons stay right
        for widget in (self.count_label, self.add_button, self.trash_button):
            row.addWidget(widget)
        rows = QVBoxLayout(self)
        rows.setContentsMargins(0, 0, 0, 0)
        rows.setSpacing(0)
        rows.addLayout(row)
        rows.addWidget(self.filter_bar)
        # Tab in reading order of what the row is for: find, then how to look (view, sort), then act
        chain = (self.search_edit, self.view_button, self.sort_combo, self.add_button, self.trash_button,
                 self.filter_clear)
        for first, second in zip(chain, chain[1:], strict=False):
            QWidget.setTabOrder(first, second)

    @staticmethod
    def _toggle(menu: QMenu, icon_name: str, text: str) -> QAction:
        action = menu.addAction(icon(icon_name), text)
        action.setObjectName(icon_name)
        action.setCheckable(True)
        return action

    @staticmethod
    def _quietly(widget: QObject, fn) -> None:
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
        self._quietly(self.density_action, lambda: self.density_action.setChecked(compact))

    def set_filter(self, name: str) -> None:
        self._quietly(self.filter_actions[name], lambda: self.filter_actions[name].setChecked(True))
        self.filter_text.setText(self.tr("筛选：{0}").format(filter_label(name)))
        self.filter_bar.setVisible(name != "all")

    def set_outline(self, shown: bool) -> None:
        self._quietly(self.outline_action, lambda: self.outline_action.setChecked(shown))
