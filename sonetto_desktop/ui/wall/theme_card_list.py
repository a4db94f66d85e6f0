"""ThemeCardList: one theme's cards of a :class:`MemoryCardModel`, filtered by the search (see
:mod:`search_text`: spaces, punctuation and pinyin tolerated) and sorted by recency or hits — the wall's per-theme "proxy".

A ``QSortFilterProxyModel`` per theme would ask Python about every card of every theme on each
keystroke; this list reads only its own theme's cards (the source keeps them grouped), filters and
sorts them with plain Python, and follows single changes incrementally (insert / remove / move /
dataChanged of one row), so selection and scroll position survive live updates.

Loading in slices (issue 14): a list made with ``deferred=True`` does not follow the source's
resets itself; after one it is *stale* (empty) until its owner calls ``load(limit)``, and it can
show only the first ``limit`` of its sorted cards, growing with ``show_more``. Changes to cards
past the limit are kept (in ``all_ids``) without telling the view. A stale list can also be
*scanned* in slices (``scan(count)``: its cards tested against the search and filter a few at a
time, for a search over a big theme) before ``load`` sorts what matched; a card that changes during
the scan is tested again at the end, so it is counted exactly once.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any, Callable, Iterable

from PySide6.QtCore import QAbstractListModel, QMimeData, QModelIndex, QObject, QPersistentModelIndex, Qt

from sonetto_desktop.presentation.cards import DESCRIPTION, HIT, ID, PINNED, THEME, TIME, Card
from .memory_model import CardRole, MemoryCardModel, encode_ids
from .search_text import SearchQuery, Span

SORT_MODES = ("recent", "hits")
#: A change of more cards than this (a bulk action: lock, move or delete a whole theme) is applied to a
#: list as one placing of its cards (``_place_all``), not card by card: each card placed alone is a
#: pass over the theme, and its view's layout another (650 cards: 1-2 s of the window held).
BATCH_CARDS = 32


def _sort_key(mode: str):
    """Pinned cards first, then by the mode (the list sorts in reverse)."""
    if mode == "hits":
        return itemgetter(PINNED, HIT, TIME, ID)
    return itemgetter(PINNED, TIME, HIT, ID)


_HIT_OFFSET = 1 << 46  # hit counts as 15 digits that sort as the numbers do (also below zero)


def _flat_key(mode: str):
    """The same order as ``_sort_key`` in one string per card (times and ids hold no NUL, which
    sorts before every other character, as a shorter string before a longer one it starts): a
    theme's sorted slices are merged comparing strings, about five times faster than tuples."""
    if mode == "hits":
        return lambda card: f"{card[PINNED]:d}\0{card[HIT] + _HIT_OFFSET:015d}\0{card[TIME]}\0{card[ID]}"
    return lambda card: f"{card[PINNED]:d}\0{card[TIME]}\0{card[HIT] + _HIT_OFFSET:015d}\0{card[ID]}"


class ThemeCardList(QAbstractListModel):
    """Cards of ``theme`` matching the search, pinned ones first, then most recent / most hit first; ``CardRole.Highlights``
    gives where each card matched."""

    def __init__(self, source: MemoryCardModel, theme: str, parent: QObject | None = None, *,
                 deferred: bool = False) -> None:
        super().__init__(parent)
        self._source = source
        self._theme = theme
        self._query = SearchQuery("")
        self._filter: Callable[[Card], bool] | None = None
        self._spans: dict[str, list[Span]] = {}
        self._sort_mode = "recent"
        self._key = _sort_key("recent")
        self._ids: list[str] = []  # every card of the theme that matches, sorted
        self._rows: dict[str, int] = {}
        self._shown = 0  # the first ``_shown`` of ``_ids`` are the rows the view sees
        self._limit: int | None = None  # at most this many shown (None: all)
        self._stale = deferred
        self._scan: list[str] | None = None  # a sliced rebuild: the theme's ids, tested up to _scan_at
        self._scan_at = 0
        self._matched: dict[str, bool] = {}  # the scan's matches so far
        self._order: list[str] = []  # and their sort keys, in order
        self._owner: dict[str, str] = {}  # sort key -> id
        self._recheck: set[str] = set()  # changed during the scan: tested again at its end
        self._revision = 0  # goes up whenever the rows shown change (a view's layout follows it)
        self._batch: bool | None = None  # during a big change (BATCH_CARDS): whether it touched this list
        if not deferred:
            source.modelReset.connect(self.rebuild)
        source.card_updated.connect(self._on_card_updated)
        source.dataChanged.connect(self._on_source_data_changed)
        source.cards_changing.connect(self._on_cards_changing)
        source.cards_settled.connect(self._on_cards_settled)
        self.rebuild()

    # ── settings ──────────────────────────────────────────────────────

    @property
    def theme(self) -> str:
        return self._theme

    @property
    def revision(self) -> int:
        """Goes up whenever the rows shown change (inserted, removed, moved, reset)."""
        return self._revision

    @property
    def sort_mode(self) -> str:
        return self._sort_mode

    def set_search(self, text: str | SearchQuery, *, force: bool = False) -> None:
        """Filter by ``text``; ``force`` filters again with the same text (pinyin became ready)."""
        query = text if isinstance(text, SearchQuery) else SearchQuery(text)
        if force or (query.words, query.text) != (self._query.words, self._query.text):
            self._query = query
            self.rebuild()

    def set_filter(self, predicate: Callable[[Card], bool] | None) -> None:
        """Show only cards ``predicate`` accepts (``None``: all; see :mod:`wall_filters`)."""
        if predicate is not self._filter:
            self._filter = predicate
            self.rebuild()

    @property
    def query(self) -> SearchQuery:
        return self._query

    def set_sort_mode(self, mode: str) -> None:
        if mode not in SORT_MODES:
            raise ValueError(f"sort mode must be 'recent' or 'hits', not {mode!r}")
        if mode != self._sort_mode:
            self._sort_mode = mode
            self._key = _sort_key(mode)
            self.rebuild()

    # ── content ───────────────────────────────────────────────────────

    def accepts(self, card: Card | None) -> bool:
        """Whether ``card`` belongs here. Where the search matched it is found when it is asked for
        (``highlights``: the cards painted), not here for every card a search tests."""
        if card is None or card[THEME] != self._theme:
            return False
        self._spans.pop(card[ID], None)
        if self._filter is not None and not self._filter(card):
            return False
        return not self._query or self._query.matches(card[DESCRIPTION], card[THEME])

    def highlights(self, memory_id: str) -> list[Span]:
        """Where the search matched the card (kept until the card or the search changes)."""
        spans = self._spans.get(memory_id)
        if spans is None:
            card = self._source.card(memory_id)
            spans = (self._query.spans(card[DESCRIPTION], card[THEME]) or []) if card is not None and self._query else []
            self._spans[memory_id] = spans
        return list(spans)

    def rebuild(self) -> None:
        """Recompute the whole list (search, sort or a source reset); a stale list stays empty
        until ``load``."""
        if self._stale:
            self._scan = None  # the search or filter changed: a scan so far is of no use
            return
        ids = self._scan_result() if self.scanned() else self._sorted_ids()  # (a scan: sorted as it was scanned)
        self._scan = None
        self.beginResetModel()
        self._ids = ids
        self._shown = len(self._ids) if self._limit is None else min(self._limit, len(self._ids))
        self._reindex()
        self._revision += 1
        self.endResetModel()

    def _sorted_ids(self) -> list[str]:
        """The theme's cards that match, in order, from the source."""
        self._spans = {}
        cards = [c for c in self._source.cards_in_theme(self._theme) if self.accepts(c)]
        cards.sort(key=self._key, reverse=True)
        return [c[ID] for c in cards]

    def _place_all(self) -> None:
        """Place every card again after a big change (a batch): one layout change, in which the rows
        that stay keep their selection and current index (a reset would lose them)."""
        self.layoutAboutToBeChanged.emit()
        before = self.persistentIndexList()
        held = [self._ids[index.row()] if 0 <= index.row() < self._shown else None for index in before]
        self._ids = self._sorted_ids()
        self._shown = len(self._ids) if self._limit is None else min(self._limit, len(self._ids))
        self._reindex()
        self._revision += 1
        rows = [self._rows.get(memory_id, self._shown) if memory_id is not None else self._shown for memory_id in held]
        self.changePersistentIndexList(before, [self.index(row, 0) if row < self._shown else QModelIndex()
                                                for row in rows])
        self.layoutChanged.emit()

    # ── loading in slices ─────────────────────────────────────────────

    @property
    def stale(self) -> bool:
        """Emptied by a source reset, waiting for ``load``."""
        return self._stale

    def mark_stale(self) -> None:
        """Forget the rows (the source was reset); ``load`` builds them again."""
        self.beginResetModel()
        self._stale = True
        self._ids, self._rows, self._spans, self._shown = [], {}, {}, 0
        self._scan = None
        self._revision += 1
        self.endResetModel()

    def scan(self, count: int) -> int:
        """Test up to ``count`` more of the theme's cards against the search and filter (a stale
        list, before ``load``); returns how many were tested."""
        if not self._stale:
            return 0
        if self._scan is None:
            self._scan = [c[ID] for c in self._source.cards_in_theme(self._theme)]
            self._scan_at, self._matched, self._order, self._recheck, self._spans = 0, {}, [], set(), {}
            self._owner = {}
        start = self._scan_at
        end = min(len(self._scan), start + max(0, count))
        card_of, matched, owner, key = self._source.card, self._matched, self._owner, _flat_key(self._sort_mode)
        found = []
        for memory_id in self._scan[start:end]:
            card = card_of(memory_id)
            if self.accepts(card):
                matched[memory_id] = True
                flat = key(card)
                owner[flat] = memory_id
                found.append(flat)
        if found:  # sorted as they come: a slice sorted, then merged into the rest (two sorted runs,
            found.sort(reverse=True)  # which list.sort merges in linear time), so that a theme of
            self._order += found  # 100,000 cards is never sorted in one step
            self._order.sort(reverse=True)
        self._scan_at = end
        return end - start

    def scanned(self) -> bool:
        """Every card of the theme tested (``load`` then only sorts)."""
        return self._scan is not None and self._scan_at >= len(self._scan)

    def scan_matched(self) -> int:
        """Cards found by the scan so far."""
        return len(self._matched) if self._scan is not None else 0

    def scanned_count(self) -> int:
        """Cards tested so far by the scan (0 when none runs)."""
        return 0 if self._scan is None else self._scan_at

    def _scan_result(self) -> list[str]:
        """The ids that matched, in order."""
        order, owner = self._order, self._owner
        if self._recheck:  # changed (added, edited, moved away, gone) during the scan: tested again
            recheck, key = self._recheck, _flat_key(self._sort_mode)
            order = [k for k in order if owner[k] not in recheck]
            for memory_id in recheck:
                self._spans.pop(memory_id, None)
                card = self._source.card(memory_id)
                if self.accepts(card):
                    flat = key(card)
                    owner[flat] = memory_id
                    order.append(flat)
            order.sort(reverse=True)
        self._matched, self._order, self._owner, self._recheck = {}, [], {}, set()
        return [owner[k] for k in order]

    def load(self, limit: int | None) -> int:
        """Build the rows from the source, showing at most ``limit`` (None: all); returns how many
        are shown."""
        self._stale = False
        self._limit = limit
        self.rebuild()
        if self._shown == len(self._ids):
            self._limit = None
        return self._shown

    def show_more(self, count: int) -> int:
        """Show up to ``count`` more rows (appended at the end); returns how many were added."""
        if self._stale:
            return 0
        end = min(len(self._ids), self._shown + max(0, count))
        added = end - self._shown
        if added:
            self.beginInsertRows(QModelIndex(), self._shown, end - 1)
            self._shown = end
            self._revision += 1
            self.endInsertRows()
        if self._shown == len(self._ids):
            self._limit = None
        else:
            self._limit = self._shown
        return added

    def complete(self) -> bool:
        """Built and showing every matching card."""
        return not self._stale and self._shown == len(self._ids)

    def all_ids(self) -> list[str]:
        """Every matching card, shown or not yet."""
        return list(self._ids)

    def matched_count(self) -> int:
        """How many cards match, shown or not yet (``len(all_ids())`` without the copy)."""
        return len(self._ids)

    def _reindex(self, start: int = 0) -> None:
        if start == 0:
            self._rows = dict(zip(self._ids, range(len(self._ids)), strict=True))
        else:
            self._rows.update(zip(self._ids[start:], range(start, len(self._ids)), strict=True))

    def _position_for(self, card: Card) -> int:
        """Where ``card`` belongs among the current rows (``card`` itself not among them)."""
        key = self._key(card)
        for row, memory_id in enumerate(self._ids):
            other = self._source.card(memory_id)
            if other is not None and self._key(other) < key:
                return row
        return len(self._ids)

    def _remove_at(self, row: int) -> None:
        memory_id = self._ids[row]
        self._spans.pop(memory_id, None)
        shown = row < self._shown
        if shown:
            self.beginRemoveRows(QModelIndex(), row, row)
        del self._ids[row]
        del self._rows[memory_id]
        self._reindex(row)
        if shown:
            self._shown -= 1
            self._revision += 1
            self.endRemoveRows()

    def _insert_at(self, target: int, memory_id: str) -> None:
        shown = target < self._shown or self._shown == len(self._ids)  # a complete list grows
        if shown:
            self.beginInsertRows(QModelIndex(), target, target)
        self._ids.insert(target, memory_id)
        self._reindex(target)
        if shown:
            self._shown += 1
            self._revision += 1
            self.endInsertRows()

    def _on_cards_changing(self, ids: list[str]) -> None:
        if len(ids) > BATCH_CARDS and not self._stale:
            self._batch = False

    def _on_cards_settled(self) -> None:
        touched, self._batch = self._batch, None
        if touched and not self._stale:
            self._place_all()

    def _on_card_updated(self, old: Card | None, new: Card | None) -> None:
        if self._stale:
            if self._scan is not None:
                self._recheck.add((new or old)[ID])
            return  # rebuilt from the source when loaded
        memory_id = (new or old)[ID]
        if self._batch is not None:  # placed with the others once the change is applied
            self._batch = self._batch or memory_id in self._rows or self.accepts(new)
            return
        row = self._rows.get(memory_id)
        wanted = self.accepts(new)
        if row is None and not wanted:
            return
        if row is not None and not wanted:
            self._remove_at(row)
            return
        if row is None:
            self._insert_at(self._position_for(new), memory_id)
            return
        # still here: same place, or move it (a move keeps selection and current index)
        del self._ids[row]
        target = self._position_for(new)
        self._ids.insert(row, memory_id)
        if target != row:
            if row < self._shown and target < self._shown:
                self.beginMoveRows(QModelIndex(), row, row, QModelIndex(), target + 1 if target > row else target)
                del self._ids[row]
                self._ids.insert(target, memory_id)
                self._reindex(min(row, target))
                self._revision += 1
                self.endMoveRows()
            else:  # across the end of what is shown (loading in slices)
                self._remove_at(row)
                self._insert_at(target, memory_id)
            row = target
        if row < self._shown:
            index = self.index(row, 0)
            self.dataChanged.emit(index, index)

    def _on_source_data_changed(self, top: QModelIndex, bottom: QModelIndex, roles: Iterable[int] = ()) -> None:
        if not roles or self._batch is not None:
            return  # a card's content: ``card_updated`` follows and places it (one change, one signal)
        if bottom.row() - top.row() >= BATCH_CARDS:  # (many cards lit at once: the rows shown, once)
            if self._shown:
                self.dataChanged.emit(self.index(0, 0), self.index(self._shown - 1, 0), list(roles))
            return
        for source_row in range(top.row(), bottom.row() + 1):
            data = self._source.data(self._source.index(source_row, 0), CardRole.Id)
            row = self._rows.get(data) if data else None
            if row is not None and row < self._shown:
                index = self.index(row, 0)
                self.dataChanged.emit(index, index, list(roles))

    # ── Qt model API (data comes from the source, by id) ──────────────

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else self._shown

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < self._shown:
            return None
        if role == CardRole.Highlights:
            return self.highlights(self._ids[index.row()])
        source_row = self._source.row_of(self._ids[index.row()])
        if source_row < 0:
            return None
        return self._source.data(self._source.index(source_row, 0), role)

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        return self._source.flags(index)

    def mimeTypes(self) -> list[str]:
        return self._source.mimeTypes()

    def mimeData(self, indexes: Iterable[QModelIndex]) -> QMimeData:
        ids: list[str] = []
        for index in indexes:
            if index.isValid() and 0 <= index.row() < self._shown and self._ids[index.row()] not in ids:
                ids.append(self._ids[index.row()])
        return encode_ids(ids)

    def supportedDragActions(self) -> Qt.DropAction:
        return self._source.supportedDragActions()

    def supportedDropActions(self) -> Qt.DropAction:
        return self._source.supportedDropActions()

    # ── helpers ───────────────────────────────────────────────────────

    def source_card(self, memory_id: str) -> Card | None:
        """Any card of the wall (not only this theme's), e.g. one dragged in from elsewhere."""
        return self._source.card(memory_id)

    def ids(self, start: int = 0) -> list[str]:
        """The cards shown, in order (from the ``start``-th)."""
        return self._ids[start:self._shown]

    def index_of(self, memory_id: str) -> QModelIndex:
        row = self._rows.get(memory_id)
        return QModelIndex() if row is None or row >= self._shown else self.index(row, 0)
