"""The preview of a history import (File → 导入聊天记录…): what the file holds and what will be imported.

- :class:`ConversationList`: one row per conversation — its title, days, turns within the dates,
  characters and state — with a check box to import it or not; oldest first (the order the import
  reads them in), sorted by any column its header is clicked on (numbers as numbers), the order kept
  when the plan changes. Conversations imported before are
  shown 已导入 and cannot be ticked; one on the "don't import" list is unticked and says which entry
  keeps it out; its context menu adds the title to that list, or takes the entry off it.
- :class:`SavedMemoryList`: ChatGPT's saved memories, each with a check box, its theme (a guess
  the person can change) and its date; an entry too long to be a memory cannot be ticked.
- :func:`summary_text`: the line under the list ("38 个对话 · 640 轮 · 21.3 万字 · 约 14 万 tokens · …").

Both lists hold only what the plan says (ids and titles); the dialog asks for a new plan when the
person changes something.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from PySide6.QtCore import QCoreApplication, QEvent, Qt, Signal
from PySide6.QtWidgets import QComboBox, QMenu, QTreeWidget, QTreeWidgetItem, QWidget

from sonetto_desktop.history_import.model import SavedMemory
from sonetto_desktop.history_import.plan import ConversationRow, Plan
from sonetto_desktop.history_import.saved_import import guess_theme
from sonetto_desktop.history_import.saved_memories import too_long

from ..i18n import ui_language

_ID = Qt.ItemDataRole.UserRole
THEMES = ("身份", "品味", "地点与路径", "音乐", "瞬间", "时效待办")



def amount(n: int) -> str:
    """A count as people read it: 21.3万 / 21.3k once it is large."""
    if n < 10_000:
        return f"{n:,}" if ui_language() == "en" else str(n)
    return f"{n / 1000:.1f}k" if ui_language() == "en" else f"{n / 10_000:.1f}万"


def summary_text(plan: Plan, model: str) -> str:
    """The line under the list: what will be imported and about what it costs."""
    cost = plan.estimated_cost
    if cost is not None and plan.price is not None:
        priced = QCoreApplication.translate("HistoryPreview", "约 {0}{1}").format(plan.price.currency, f"{cost:.2f}")
    else:
        priced = QCoreApplication.translate("HistoryPreview", "费用：未设置单价")
    conversations, turns = plan.conversations, plan.turns  # (plain names: lupdate reads only those as counts)
    counts = (QCoreApplication.translate("HistoryPreview", "%n 个对话", "", conversations) + " · "
              + QCoreApplication.translate("HistoryPreview", "%n 轮", "", turns))
    text = QCoreApplication.translate("HistoryPreview", "{0} · {1} 字 · 约 {2} tokens · {3}").format(
        counts, amount(plan.characters), amount(plan.estimated_tokens), priced)
    return f"{text}（{model}）" if model and ui_language() != "en" else f"{text} ({model})" if model else text


def _state_text(row: ConversationRow) -> str:
    if row.state == "imported":
        return QCoreApplication.translate("HistoryPreview", "已导入")
    if row.state == "partly":
        return QCoreApplication.translate("HistoryPreview", "已导入 {0} 轮，其余待导入").format(row.already)
    if row.state == "dont_import":
        return QCoreApplication.translate("HistoryPreview", "不导入（列表里的“{0}”）").format(row.blocked_by)
    if row.state == "out_of_range":
        return QCoreApplication.translate("HistoryPreview", "不在日期范围内")
    if row.state == "unselected":
        return QCoreApplication.translate("HistoryPreview", "不导入")
    return QCoreApplication.translate("HistoryPreview", "推断的分支") if row.guessed_branch else QCoreApplication.translate("HistoryPreview", "待导入")


def _days(row: ConversationRow) -> str:
    if row.first_day is None:
        return ""
    if row.last_day is None or row.last_day == row.first_day:
        return row.first_day.isoformat()
    return f"{row.first_day.isoformat()} – {row.last_day.isoformat()}"


def _sort_key(row: ConversationRow, column: int) -> Any:
    """What a column sorts by: numbers as numbers ("9" before "11", "9800" before "2.1万"), days by date."""
    if column == 1:
        return (row.first_day or date.min, row.last_day or date.min)
    if column == 2:
        return row.exchanges
    if column == 3:
        return row.characters
    if column == 4:
        return _state_text(row)
    return row.title.casefold()


class ConversationList(QTreeWidget):
    """See the module docstring. ``selection_changed``: the person ticked or unticked something;
    ``dont_import_requested(title)`` / ``allow_requested(entry text)``: the context menu's choices."""

    selection_changed = Signal()
    dont_import_requested = Signal(str)
    allow_requested = Signal(str)

    COLUMNS = 5

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("HistoryConversations")
        self.setRootIsDecorated(False)
        self.setUniformRowHeights(True)
        self.setAlternatingRowColors(True)
        self.setHeaderLabels([QCoreApplication.translate("HistoryPreview", "对话"), QCoreApplication.translate("HistoryPreview", "日期"), QCoreApplication.translate("HistoryPreview", "轮数"), QCoreApplication.translate("HistoryPreview", "字数"), QCoreApplication.translate("HistoryPreview", "状态")])
        self.setAccessibleName(QCoreApplication.translate("HistoryPreview", "要导入的对话"))
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._menu)
        self.itemChanged.connect(self._on_item_changed)
        self.setColumnWidth(0, 260)
        # Sorted here, not by QTreeWidget (whose sort would call back into Python per comparison: seconds
        # for the ~100,000 conversations of a 2 GB export): a click on a header flips its indicator,
        # and the rows are put in order in one pass. Oldest first: the order the import reads them in.
        header = self.header()
        header.setSectionsClickable(True)
        header.setSortIndicatorShown(True)
        header.setSortIndicator(1, Qt.SortOrder.AscendingOrder)
        header.sortIndicatorChanged.connect(self._sort)
        self._rows: dict[str, ConversationRow] = {}
        self._filter = ""
        self._fit_columns()
        self._filling = False
        self.menu: QMenu | None = None

    def show_plan(self, plan: Plan, unticked: set[str]) -> None:
        """Rows for ``plan``; ``unticked``: conversations the person left out."""
        self._filling = True
        self._rows = {row.id: row for row in plan.rows}
        items: list[QTreeWidgetItem] = []
        try:
            self.clear()
            for row in self._in_order(plan.rows):
                item = QTreeWidgetItem([row.title, _days(row), str(row.exchanges), amount(row.characters),
                                        _state_text(row)])
                item.setData(0, _ID, row.id)
                item.setToolTip(0, row.title)
                item.setData(4, _ID, row.blocked_by)
                blocked = row.state in ("imported", "dont_import", "out_of_range")
                flags = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
                if not blocked:
                    flags |= Qt.ItemFlag.ItemIsUserCheckable
                item.setFlags(flags)
                checked = not blocked and row.id not in unticked
                item.setCheckState(0, Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
                if blocked:
                    item.setDisabled(row.state == "imported")
                for column in (2, 3):
                    item.setTextAlignment(column, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                items.append(item)
            self.addTopLevelItems(items)
        finally:
            self._filling = False
        self._fit_columns()

    def _in_order(self, rows: list[ConversationRow]) -> list[ConversationRow]:
        """``rows`` in the order the header's indicator says (a stable sort: ties keep the file's order)."""
        header = self.header()
        column = header.sortIndicatorSection()
        descending = header.sortIndicatorOrder() == Qt.SortOrder.DescendingOrder
        return sorted(rows, key=lambda row: _sort_key(row, column), reverse=descending)

    def _sort(self, *_: Any) -> None:
        """The rows in the order the person clicked for, moved in one pass (ticks and hidden rows kept)."""
        if not self._rows:
            return
        items = self.invisibleRootItem().takeChildren()
        by_id = {item.data(0, _ID): item for item in items}
        self.addTopLevelItems([by_id[row.id] for row in self._in_order(list(self._rows.values()))])
        if self._filter.strip():
            self.filter(self._filter)  # the title filter, applied again to the rows as they are now

    def _fit_columns(self) -> None:
        """Dates, turns and characters as wide as their header or their widest value, whichever is
        wider (in either language: "Characters" is wider than "字数"); the title keeps its width,
        the state takes the rest. Only the rows on screen are measured (``sizeHintForColumn``)."""
        header = self.header()
        for column in (1, 2, 3):
            self.setColumnWidth(column, max(header.sectionSizeHint(column), self.sizeHintForColumn(column)))

    def changeEvent(self, event: Any) -> None:  # a new language or font: the headers' widths change
        super().changeEvent(event)
        if event.type() in (QEvent.Type.LanguageChange, QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._fit_columns()

    def rows(self) -> list[QTreeWidgetItem]:
        return [self.topLevelItem(i) for i in range(self.topLevelItemCount())]

    def unticked(self) -> set[str]:
        """Conversations the person can tick but did not."""
        return {item.data(0, _ID) for item in self.rows()
                if item.flags() & Qt.ItemFlag.ItemIsUserCheckable and item.checkState(0) != Qt.CheckState.Checked}

    def set_all(self, checked: bool) -> None:
        self._filling = True
        try:
            for item in self.rows():
                if item.flags() & Qt.ItemFlag.ItemIsUserCheckable and not item.isHidden():
                    item.setCheckState(0, Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)
        finally:
            self._filling = False
        self.selection_changed.emit()

    def filter(self, text: str) -> None:
        self._filter = text
        wanted = text.strip().casefold()
        for item in self.rows():
            hide = bool(wanted) and wanted not in item.text(0).casefold()
            if item.isHidden() != hide:  # (setHidden relays the view out: 100,000 of them took 1.3 s)
                item.setHidden(hide)

    def _on_item_changed(self, _item: QTreeWidgetItem, column: int) -> None:
        if column == 0 and not self._filling:
            self.selection_changed.emit()

    def _menu(self, pos: Any) -> None:
        item = self.itemAt(pos)
        if item is None:
            return
        menu = QMenu(self)
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        blocked_by = item.data(4, _ID)
        if blocked_by:
            menu.addAction(QCoreApplication.translate("HistoryPreview", "从不导入列表里移除“{0}”").format(blocked_by),
                           lambda: self.allow_requested.emit(blocked_by))
        else:
            title = item.text(0)
            menu.addAction(QCoreApplication.translate("HistoryPreview", "以后都不导入这个标题"), lambda: self.dont_import_requested.emit(title))
        self.menu = menu
        menu.popup(self.viewport().mapToGlobal(pos))


class SavedMemoryList(QTreeWidget):
    """ChatGPT's saved memories to import: tick, theme, date (see the module docstring)."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("HistorySavedMemories")
        self.setRootIsDecorated(False)
        self.setAlternatingRowColors(True)
        self.setHeaderLabels([QCoreApplication.translate("HistoryPreview", "记忆"), QCoreApplication.translate("HistoryPreview", "主题"), QCoreApplication.translate("HistoryPreview", "日期")])
        self.setAccessibleName(QCoreApplication.translate("HistoryPreview", "要导入的已保存记忆"))
        self.setColumnWidth(0, 420)
        self.setColumnWidth(1, 130)
        self.itemChanged.connect(lambda _item, column: self.changed.emit() if column == 0 else None)
        self._entries: list[SavedMemory] = []

    def show_entries(self, entries: list[SavedMemory]) -> None:
        self.clear()
        self._entries = list(entries)
        for entry in entries:
            item = QTreeWidgetItem([entry.text, "", entry.day.isoformat() if entry.day else ""])
            item.setToolTip(0, entry.text)
            long = too_long(entry)
            flags = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
            if not long:
                flags |= Qt.ItemFlag.ItemIsUserCheckable
            item.setFlags(flags)
            item.setCheckState(0, Qt.CheckState.Unchecked if long else Qt.CheckState.Checked)
            if long:
                item.setToolTip(0, QCoreApplication.translate("HistoryPreview", "太长了（{0} 字），一条记忆最多 500 字").format(len(entry.text)))
            self.addTopLevelItem(item)
            combo = QComboBox(self)
            combo.setEditable(True)
            combo.addItems(THEMES)
            combo.setCurrentText(guess_theme(entry.text))
            combo.setAccessibleName(QCoreApplication.translate("HistoryPreview", "主题"))
            self.setItemWidget(item, 1, combo)

    def chosen(self) -> tuple[list[SavedMemory], dict[str, str]]:
        """The ticked entries and the theme chosen for each."""
        picked: list[SavedMemory] = []
        themes: dict[str, str] = {}
        for i, entry in enumerate(self._entries):
            item = self.topLevelItem(i)
            if item is None or item.checkState(0) != Qt.CheckState.Checked:
                continue
            picked.append(entry)
            combo = self.itemWidget(item, 1)
            if isinstance(combo, QComboBox) and combo.currentText().strip():
                themes[entry.text] = combo.currentText().strip()
        return picked, themes
