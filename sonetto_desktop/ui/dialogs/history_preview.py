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

from PySide6.QtCore import QAbstractTableModel, QCoreApplication, QEvent, QModelIndex, QObject, Qt, Signal
from PySide6.QtWidgets import (QAbstractItemView, QComboBox, QHeaderView, QMenu, QTableView, QTreeWidget,
                               QTreeWidgetItem, QWidget)

from sonetto_desktop.history_import.model import SavedMemory
from sonetto_desktop.history_import.plan import ConversationRow, Plan
from sonetto_desktop.history_import.saved_memories import too_long
from sonetto_desktop.memory.theme_guess import DEFAULT_THEME, HOUSE_THEMES
from sonetto_desktop.presentation.i18n import counted

from ..i18n import ui_language
from ..widgets.tooltips import plain_tooltip

_ID = Qt.ItemDataRole.UserRole



def amount(n: int) -> str:
    """A count as people read it: 21.3万 / 21.3k once it is large."""
    if n < 10_000:
        return counted(n) if ui_language() == "en" else str(n)
    return f"{n / 1000:.1f}k" if ui_language() == "en" else f"{n / 10_000:.1f}万"


def summary_text(plan: Plan, model: str) -> str:
    """The line under the list: what will be imported and about what it costs."""
    cost = plan.estimated_cost
    if cost is not None and plan.price is not None:
        priced = QCoreApplication.translate("HistoryPreview", "约 {0}{1}").format(plan.price.currency, f"{cost:.2f}")
    else:
        priced = QCoreApplication.translate("HistoryPreview", "费用：未设置单价")
    conversations, turns = plan.conversations, plan.turns  # (plain names: lupdate reads only those as counts)
    counts = (QCoreApplication.translate("HistoryPreview", "%Ln 个对话", "", conversations) + " · "
              + QCoreApplication.translate("HistoryPreview", "%Ln 轮", "", turns))
    text = QCoreApplication.translate("HistoryPreview", "{0} · {1} 字 · 约 {2} tokens · {3}").format(
        counts, amount(plan.characters), amount(plan.estimated_tokens), priced)
    return f"{text}（{model}）" if model and ui_language() != "en" else f"{text} ({model})" if model else text


def _state_text(row: ConversationRow) -> str:
    if row.state == "imported":
        return QCoreApplication.translate("HistoryPreview", "已导入")
    if row.state == "waiting":
        return QCoreApplication.translate("HistoryPreview", "在未完成的导入里（继续那次导入即可）")
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


_BLOCKED = ("imported", "waiting", "dont_import", "out_of_range")  # states whose row cannot be ticked
_COLUMNS = 5  # title, days, turns, characters, state (``_headers``)


def _headers() -> tuple[str, ...]:
    """The columns' titles in the UI's language (each spelled out for lupdate)."""
    return (QCoreApplication.translate("HistoryPreview", "对话"), QCoreApplication.translate("HistoryPreview", "日期"),
            QCoreApplication.translate("HistoryPreview", "轮数"), QCoreApplication.translate("HistoryPreview", "字数"),
            QCoreApplication.translate("HistoryPreview", "状态"))
_RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
_NO_FLAGS = Qt.ItemFlag.NoItemFlags
_IMPORTED_FLAGS = Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren
_SHOWN_FLAGS = _IMPORTED_FLAGS | Qt.ItemFlag.ItemIsEnabled
_TICK_FLAGS = _SHOWN_FLAGS | Qt.ItemFlag.ItemIsUserCheckable


class ConversationModel(QAbstractTableModel):
    """The plan's conversations as a table: each row's texts made when it is first drawn, its tick
    kept by id, sorted and filtered in Python over plain lists (a 2 GB export has ~100,000
    conversations: items per row, sorted by Python comparisons and hidden one by one, took seconds
    per click or keystroke). ``ticked``: the person ticked or unticked a row."""

    ticked = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._rows: list[ConversationRow] = []  # the plan's, in its order
        self._shown: list[int] = []  # indices into _rows: filtered, sorted
        self._unticked: set[str] = set()
        self._texts: dict[int, tuple[str, ...]] = {}
        self._filter = ""
        self._sort = (1, Qt.SortOrder.AscendingOrder)  # oldest first: the order the import reads them in

    def set_plan(self, rows: list[ConversationRow], unticked: set[str]) -> None:
        self.beginResetModel()
        self._rows, self._texts = list(rows), {}
        self._unticked = {row.id for row in rows if row.id in unticked and row.state not in _BLOCKED}
        self._arrange()
        self.endResetModel()

    def row_at(self, index: QModelIndex) -> ConversationRow | None:
        return self._rows[self._shown[index.row()]] if index.isValid() and index.row() < len(self._shown) else None

    def shown(self) -> list[ConversationRow]:
        return [self._rows[i] for i in self._shown]

    def ids(self) -> set[str]:
        return {row.id for row in self._rows}

    def unticked(self) -> set[str]:
        return set(self._unticked)

    def is_ticked(self, row: ConversationRow) -> bool:
        return row.state not in _BLOCKED and row.id not in self._unticked

    def tick(self, row: ConversationRow, ticked: bool, at: int | None = None) -> None:
        """Tick or untick ``row`` (``at``: where it is shown, if known)."""
        if row.state in _BLOCKED or self.is_ticked(row) == ticked:
            return
        (self._unticked.discard if ticked else self._unticked.add)(row.id)
        at = self._position(row) if at is None else at
        if at is not None:
            self.dataChanged.emit(self.index(at, 0), self.index(at, 0), [Qt.ItemDataRole.CheckStateRole])
        self.ticked.emit()

    def tick_shown(self, ticked: bool) -> None:
        """Every row the filter shows, at once (one signal)."""
        for i in self._shown:
            row = self._rows[i]
            if row.state not in _BLOCKED:
                (self._unticked.discard if ticked else self._unticked.add)(row.id)
        if self._shown:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self._shown) - 1, 0), [Qt.ItemDataRole.CheckStateRole])
        self.ticked.emit()

    def set_filter(self, text: str) -> None:
        if text == self._filter:
            return
        self.beginResetModel()
        self._filter = text
        self._arrange()
        self.endResetModel()

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        self.layoutAboutToBeChanged.emit()
        # the view's selection and current row follow their conversation to its new place
        kept = self.persistentIndexList()
        sources = [(self._shown[index.row()], index.column()) if index.row() < len(self._shown) else (-1, 0)
                   for index in kept]
        self._sort = (column, order)
        self._arrange()
        if kept:
            wanted = {source for source, _ in sources}
            place: dict[int, int] = {}
            for at, i in enumerate(self._shown):
                if i in wanted:
                    place[i] = at
                    if len(place) == len(wanted):
                        break
            self.changePersistentIndexList(kept, [self.index(place[source], column) if source in place else QModelIndex()
                                                  for source, column in sources])
        self.layoutChanged.emit()

    def _arrange(self) -> None:
        wanted = self._filter.strip().casefold()
        rows = self._rows
        shown = [i for i, row in enumerate(rows) if not wanted or wanted in row.title.casefold()]
        column, order = self._sort
        shown.sort(key=lambda i: _sort_key(rows[i], column), reverse=order == Qt.SortOrder.DescendingOrder)
        self._shown = shown

    def _position(self, row: ConversationRow) -> int | None:
        for at, i in enumerate(self._shown):
            if self._rows[i] is row:
                return at
        return None

    def retranslate(self) -> None:
        self._texts = {}
        self.headerDataChanged.emit(Qt.Orientation.Horizontal, 0, _COLUMNS - 1)
        if self._shown:
            self.dataChanged.emit(self.index(0, 0), self.index(len(self._shown) - 1, _COLUMNS - 1))

    # ── QAbstractTableModel ──────────────────────────────────────────────

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._shown)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else _COLUMNS

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole and 0 <= section < _COLUMNS:
            return _headers()[section]
        return None

    def flags(self, index: QModelIndex) -> Qt.ItemFlag:
        # called for every row whenever the view lays the list out: a lookup, no enum arithmetic
        at = index.row()
        if not 0 <= at < len(self._shown):
            return _NO_FLAGS
        state = self._rows[self._shown[at]].state
        if state == "imported":  # imported before: greyed
            return _IMPORTED_FLAGS
        if state in _BLOCKED or index.column():  # not to be ticked; its menu still opens
            return _SHOWN_FLAGS
        return _TICK_FLAGS

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        row = self.row_at(index)
        if row is None:
            return None
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            i = self._shown[index.row()]
            texts = self._texts.get(i)
            if texts is None:
                texts = self._texts[i] = (row.title, _days(row), str(row.exchanges), amount(row.characters),
                                          _state_text(row))
            return texts[column]
        if role == Qt.ItemDataRole.CheckStateRole and column == 0:
            return Qt.CheckState.Checked if self.is_ticked(row) else Qt.CheckState.Unchecked
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (2, 3):
            return _RIGHT
        if role == Qt.ItemDataRole.ToolTipRole and column == 0:
            return row.title
        if role == _ID and column == 0:
            return row.id
        return None

    def setData(self, index: QModelIndex, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        row = self.row_at(index)
        if row is None or role != Qt.ItemDataRole.CheckStateRole or index.column() != 0 or row.state in _BLOCKED:
            return False
        self.tick(row, value in (Qt.CheckState.Checked, Qt.CheckState.Checked.value), index.row())
        return True


class ConversationRowView:
    """One shown row of a :class:`ConversationList`, read and ticked as a person sees it."""

    def __init__(self, model: ConversationModel, row: ConversationRow, at: int) -> None:
        self._model, self.row, self.index = model, row, model.index(at, 0)

    def text(self, column: int) -> str:
        return str(self._model.data(self._model.index(self.index.row(), column)))

    def data(self, column: int, role: int) -> Any:
        return self._model.data(self._model.index(self.index.row(), column), role)

    def checkState(self, column: int = 0) -> Qt.CheckState:
        return Qt.CheckState.Checked if self._model.is_ticked(self.row) else Qt.CheckState.Unchecked

    def setCheckState(self, column: int, state: Qt.CheckState) -> None:
        self._model.tick(self.row, state == Qt.CheckState.Checked, self.index.row())

    def flags(self) -> Qt.ItemFlag:
        return self._model.flags(self.index)


class ConversationList(QTableView):
    """See the module docstring. ``selection_changed``: the person ticked or unticked something;
    ``dont_import_requested(title)`` / ``allow_requested(entry text)``: the context menu's choices."""

    selection_changed = Signal()
    dont_import_requested = Signal(str)
    allow_requested = Signal(str)

    COLUMNS = _COLUMNS

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("HistoryConversations")
        # a table, not a tree: a tree view lays out every row whenever the rows change (three calls
        # into Python per row: ~0.7 s at 100,000 conversations); a table draws only the rows on screen
        self.setShowGrid(False)
        self.setWordWrap(False)
        self.setAlternatingRowColors(True)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setTabKeyNavigation(False)  # Tab leaves the list (a table's Tab walks its cells); Space ticks
        self.verticalHeader().hide()
        self.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.horizontalHeader().setResizeContentsPrecision(0)  # a column's width: measured on the rows on screen
        self.horizontalHeader().setStretchLastSection(True)
        self.horizontalHeader().setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        self._fit_rows()
        self._model = ConversationModel(self)
        self.setModel(self._model)
        self.setAccessibleName(QCoreApplication.translate("HistoryPreview", "要导入的对话"))
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.customContextMenuRequested.connect(self._menu)
        self._model.ticked.connect(self.selection_changed)
        self.setColumnWidth(0, 260)
        self.setSortingEnabled(True)  # the model sorts its lists (one Python sort per click)
        self.sortByColumn(1, Qt.SortOrder.AscendingOrder)
        self._fit_columns()
        self.menu: QMenu | None = None

    def show_plan(self, plan: Plan, unticked: set[str]) -> None:
        """Rows for ``plan``; ``unticked``: conversations the person left out."""
        self._model.set_plan(plan.rows, unticked)
        self._fit_columns()

    def clear(self) -> None:
        self._model.set_plan([], set())

    def header(self) -> QHeaderView:
        """The column headers (a click sorts by that column)."""
        return self.horizontalHeader()

    def _fit_rows(self) -> None:
        """Rows as tall as a line of Chinese and a little air, as a list's are."""
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)

    def _fit_columns(self) -> None:
        """Dates, turns and characters as wide as their header or their widest value, whichever is
        wider (in either language: "Characters" is wider than "字数"); the title keeps its width,
        the state takes the rest. Only the rows on screen are measured (``sizeHintForColumn``)."""
        header = self.header()
        for column in (1, 2, 3):
            self.setColumnWidth(column, max(header.sectionSizeHint(column), self.sizeHintForColumn(column)))

    def changeEvent(self, event: Any) -> None:  # a new language or font: the headers' widths change
        super().changeEvent(event)
        if event.type() == QEvent.Type.LanguageChange:
            self._model.retranslate()
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._fit_rows()
        if event.type() in (QEvent.Type.LanguageChange, QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._fit_columns()

    def keyPressEvent(self, event: Any) -> None:
        """Space ticks or unticks the current row, whichever of its cells is current (rows are
        selected whole; a table's own Space toggles only a checkable cell, the title's)."""
        if event.key() == Qt.Key.Key_Space and not event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
            current = self.currentIndex()
            row = self._model.row_at(current)
            if row is not None:
                self._model.tick(row, not self._model.is_ticked(row), current.row())
                event.accept()
                return
        super().keyPressEvent(event)

    def rows(self) -> list[ConversationRowView]:
        """The rows the filter shows, in the order shown."""
        return [ConversationRowView(self._model, row, at) for at, row in enumerate(self._model.shown())]

    def ids(self) -> set[str]:
        """Every conversation of the plan (shown or filtered out)."""
        return self._model.ids()

    def unticked(self) -> set[str]:
        """Conversations the person can tick but did not."""
        return self._model.unticked()

    def set_all(self, checked: bool) -> None:
        """Tick or untick every row the filter shows."""
        self._model.tick_shown(checked)

    def filter(self, text: str) -> None:
        self._model.set_filter(text)

    def _menu(self, pos: Any) -> None:
        row = self._model.row_at(self.indexAt(pos))
        if row is None:
            return
        menu = QMenu(self)
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        if row.blocked_by:
            blocked_by = row.blocked_by
            menu.addAction(QCoreApplication.translate("HistoryPreview", "从不导入列表里移除“{0}”").format(blocked_by),
                           lambda: self.allow_requested.emit(blocked_by))
        else:
            title = row.title
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
            item.setToolTip(0, plain_tooltip(entry.text))  # the person's words as written, never markup
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
            combo.addItems(HOUSE_THEMES)
            combo.setCurrentText(entry.theme or DEFAULT_THEME)  # (guessed as it was read: ``with_themes``)
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
