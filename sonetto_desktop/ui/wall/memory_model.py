"""Qt models of the card wall.

``MemoryCardModel`` adapts the memory store to Qt: it holds the rows the views paint (a cache of
the domain, never edited by widgets) and refreshes only the ids a ``MemoryChange`` names, reading
them in a worker through :class:`MemoryService`. ``ThemeCardList`` (theme_card_list.py) shows
one theme's cards, filtered and sorted.
"""

from __future__ import annotations

import asyncio
import json
import time
from enum import IntEnum
from typing import Any, Iterable

from PySide6.QtCore import (
    QAbstractListModel,
    QCoreApplication,
    QMimeData,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    QTimer,
    Signal,
)

from sonetto_desktop import ops
from sonetto_desktop.memory.events import MemoryChange
from sonetto_desktop.memory import kinds
from sonetto_desktop.memory.item import MemoryItem

from sonetto_desktop.presentation.cards import (ACTOR, DESCRIPTION, HIT, ID, LOCKED, THEME, TIME, WHEN, Card, CardIndex,
                                                card_from_item, card_from_state)
from ..widgets.deferred import alive
from ..widgets.tasks import app_scope
from ..widgets.tooltips import plain_tooltip
from ..memory_service import MemoryService
from sonetto_desktop.presentation.relative_time import relative_time
from sonetto_desktop.presentation.authors import author_tooltip, lock_tooltip

MIME_IDS = "application/x-sonetto-memory-ids"
FLASH_SECONDS = 1.6
# Changes applied one by one in one pass of the loop; more in the same pass (a bulk action's one change
# per memory, queued together) wait for the pass to end and are applied as one (``apply_cards``).
BURST_CARDS = 8


class CardRole(IntEnum):
    Id = Qt.ItemDataRole.UserRole + 1
    Description = Qt.ItemDataRole.UserRole + 2
    Theme = Qt.ItemDataRole.UserRole + 3
    Hit = Qt.ItemDataRole.UserRole + 4
    Time = Qt.ItemDataRole.UserRole + 5
    RelativeTime = Qt.ItemDataRole.UserRole + 6
    Flash = Qt.ItemDataRole.UserRole + 7
    Card = Qt.ItemDataRole.UserRole + 8
    Highlights = Qt.ItemDataRole.UserRole + 9  # [(start, length)] of the search in the card's text


def uses_template() -> str:
    return QCoreApplication.translate("CardDelegate", "用到 {0} 次")


def uses_text(hits: int) -> str:
    """A card's "用到 N 次": how many times Sonetto brought the memory into a conversation."""
    return uses_template().format(hits)


def uses_tooltip(hits: int) -> str:
    return QCoreApplication.translate(
        "CardDelegate", "用到 {0} 次：Sonetto 在对话中想起并用上这条记忆的次数（“用到最多”按它排序）。"
    ).format(hits)


def encode_ids(ids: Iterable[str]) -> QMimeData:
    """Memory ids as drag-and-drop data (``application/x-sonetto-memory-ids``, a JSON list)."""
    mime = QMimeData()
    ids = [str(i) for i in ids]
    mime.setData(MIME_IDS, json.dumps(ids).encode("utf-8"))
    mime.setText("\n".join(ids))
    return mime


def decode_ids(mime: QMimeData | None) -> list[str]:
    """The memory ids carried by ``mime``; ``[]`` for anything else (never raises on bad data)."""
    if mime is None or not mime.hasFormat(MIME_IDS):
        return []
    try:
        ids = json.loads(bytes(mime.data(MIME_IDS)).decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return []
    if not isinstance(ids, list):
        return []
    return [i for i in ids if isinstance(i, str) and i]


class MemoryCardModel(QAbstractListModel):
    """Every memory as a card row. Call ``reload()`` once; then changes keep it current."""

    themes_changed = Signal()  # a theme appeared or disappeared
    cards_changing = Signal(list)  # ids about to be inserted, changed or removed (before the rows change)
    change_arriving = Signal(object)  # a MemoryChange of memories, before the model applies it
    cards_applied = Signal(list)  # ids just inserted or changed (GUI thread, after the rows changed)
    cards_settled = Signal()  # the rows of one ``apply_cards`` all changed (before ``cards_applied``)
    load_failed = Signal()  # the store could not be read (the service has said why)
    card_updated = Signal(object, object)  # (old Card | None, new Card | None), after each row change

    def __init__(self, service: MemoryService | None = None, parent: QObject | None = None, *, lang: str = "zh"):
        super().__init__(parent)
        self._service = service
        self.lang = lang
        self._cards: list[Card] = []
        self._rows: dict[str, int] = {}
        self._theme_counts: dict[str, int] = {}
        self._by_theme: dict[str, dict[str, Card]] = {}
        self._flash_until: dict[str, float] = {}
        self._dirty: dict[str, bool] = {}
        self._reload_needed = False
        self.read_once = False  # the store was read (or could not be) at least once: an empty model means empty
        # the reads that refresh the cards: in the UI's scope, ended with the model (often made without a parent,
        # so no child QObject is hung on it: the collector may delete it with its children already gone)
        self._tasks = app_scope().child("card-model")
        self.destroyed.connect(lambda *_args, tasks=self._tasks: tasks.cancel_all())
        self._drain_task: asyncio.Task[None] | None = None
        self._flash_timer = QTimer(self)
        self._flash_timer.setInterval(40)
        self._flash_timer.timeout.connect(self._on_flash_tick)
        self._burst = 0  # changes applied one by one in this pass of the loop
        self._burst_cards: dict[str, Card | None] = {}  # and those past BURST_CARDS, applied when it ends
        self._burst_flash: set[str] = set()
        self._burst_timer = QTimer(self)
        self._burst_timer.setSingleShot(True)
        self._burst_timer.setInterval(0)
        self._burst_timer.timeout.connect(self._end_burst)
        if service is not None:
            service.memory_changed.connect(self._on_memory_changed)

    # ── Qt model API ──────────────────────────────────────────────────

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._cards)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._cards):
            return None
        card = self._cards[index.row()]
        if role == CardRole.Card:
            return card
        if role in (Qt.ItemDataRole.DisplayRole, CardRole.Description):
            return card[DESCRIPTION]
        if role == Qt.ItemDataRole.ToolTipRole:
            lines = [uses_tooltip(card[HIT]), author_tooltip(card[ACTOR])] + ([lock_tooltip()] if card[LOCKED] else [])
            return plain_tooltip(card[DESCRIPTION] + "\n\n" + "\n".join(lines))  # the memory as written, never markup
        if role == CardRole.Id:
            return card[ID]
        if role == CardRole.Theme:
            return card[THEME]
        if role == CardRole.Hit:
            return card[HIT]
        if role == CardRole.Time:
            return card[TIME]
        if role == CardRole.RelativeTime:
            return relative_time(card[WHEN], lang=self.lang)
        if role == CardRole.Flash:
            return self.flash_level(card[ID])
        return None

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        base = Qt.ItemFlag.ItemIsDropEnabled
        if not index.isValid():
            return base
        return base | Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsDragEnabled

    def mimeTypes(self) -> list[str]:
        return [MIME_IDS]

    def mimeData(self, indexes: Iterable[QModelIndex]) -> QMimeData:
        ids: list[str] = []
        for index in indexes:
            memory_id = self.data(index, CardRole.Id)
            if memory_id and memory_id not in ids:
                ids.append(memory_id)
        return encode_ids(ids)

    def supportedDragActions(self) -> Qt.DropAction:
        return Qt.DropAction.CopyAction | Qt.DropAction.MoveAction

    def supportedDropActions(self) -> Qt.DropAction:
        return Qt.DropAction.CopyAction | Qt.DropAction.MoveAction

    # ── queries ───────────────────────────────────────────────────────

    def card(self, memory_id: str) -> Card | None:
        row = self._rows.get(memory_id)
        return None if row is None else self._cards[row]

    def cards(self) -> list[Card]:
        return list(self._cards)

    def row_of(self, memory_id: str) -> int:
        return self._rows.get(memory_id, -1)

    def cards_in_theme(self, theme: str) -> list[Card]:
        return list(self._by_theme.get(theme, {}).values())

    def theme_counts(self) -> dict[str, int]:
        return dict(self._theme_counts)

    def themes(self) -> list[str]:
        return sorted(self._theme_counts)

    # ── applying domain state (GUI thread) ────────────────────────────

    def set_snapshot(self, items: dict[str, MemoryItem]) -> None:
        """Replace every row with ``items`` (id -> item)."""
        self.set_cards([card_from_item(mid, item) for mid, item in items.items()])

    def set_cards(self, cards: list[Card] | CardIndex) -> None:
        """Replace every row with ``cards`` (built in a worker by ``read_cards``; a ``CardIndex``,
        also built there, is taken over as it is: it must not be used elsewhere)."""
        index = cards if isinstance(cards, CardIndex) else CardIndex.build(cards)
        old_themes = set(self._theme_counts)
        self.beginResetModel()
        self._cards, self._rows = index.cards, index.rows
        self._theme_counts, self._by_theme = index.theme_counts, index.by_theme
        self._flash_until = {mid: t for mid, t in self._flash_until.items() if mid in self._rows}
        self.endResetModel()
        if set(self._theme_counts) != old_themes:
            self.themes_changed.emit()

    def apply_items(self, items: dict[str, MemoryItem | None], flash: Iterable[str] = ()) -> None:
        """Insert, change or remove only the rows of ``items`` (``None`` = gone); flash ``flash`` ids."""
        self.apply_cards({mid: card_from_item(mid, item) if item is not None else None
                          for mid, item in items.items()}, flash)

    def apply_cards(self, cards: dict[str, Card | None], flash: Iterable[str] = ()) -> None:
        """Insert, change or remove only the rows of ``cards`` (``None`` = gone); flash ``flash`` ids."""
        old_themes = set(self._theme_counts)
        flash = set(flash)
        touched: list[str] = []
        arriving: list[Card] = []  # inserted together (below): one insertion, not one per card
        self.cards_changing.emit(list(cards))
        for memory_id, card in cards.items():
            row = self._rows.get(memory_id)
            if card is None:
                if row is not None:
                    self._remove_row(row)
                continue
            if row is None:
                arriving.append(card)
            elif self._cards[row] != card:
                old = self._cards[row]
                self._forget(old)
                self._remember(card)
                self._cards[row] = card
                index = self.index(row, 0)
                self.dataChanged.emit(index, index)
                self.card_updated.emit(old, card)
            else:
                continue
            touched.append(memory_id)
        if arriving:
            self._insert_cards(arriving)
        self.cards_settled.emit()
        now = time.monotonic()
        for memory_id in touched:
            if memory_id in flash:
                self._flash_until[memory_id] = now + FLASH_SECONDS
        if self._flash_until and not self._flash_timer.isActive():
            self._flash_timer.start()
        if set(self._theme_counts) != old_themes:
            self.themes_changed.emit()
        if touched:
            self.cards_applied.emit(touched)

    def _insert_cards(self, cards: list[Card]) -> None:
        """New cards as one insertion at the end (the rows' order means nothing: see ``_remove_row``).
        3,000 cards another process imported, inserted one at a time, each worded the toolbar's total
        again: the window was held 1.7 s."""
        first = len(self._cards)
        self.beginInsertRows(QModelIndex(), first, first + len(cards) - 1)
        for row, card in enumerate(cards, first):
            self._cards.append(card)
            self._rows[card[ID]] = row
            self._remember(card)
        self.endInsertRows()
        for card in cards:
            self.card_updated.emit(None, card)

    def _remove_row(self, row: int) -> None:
        """The last card takes the row of the card that leaves, and the last row is removed: the rows'
        order means nothing (the sections sort by themselves), and shifting every later card's row
        was a loop over the whole model at each delete (100,000 cards: 50-70 ms)."""
        card = self._cards[row]
        last = len(self._cards) - 1
        if row != last:
            moved = self._cards[row] = self._cards[last]
            self._rows[moved[ID]] = row
            index = self.index(row, 0)
            self.dataChanged.emit(index, index, [CardRole.Id])  # (the same card, in another row)
            card_row = last
        else:
            card_row = row
        self.beginRemoveRows(QModelIndex(), card_row, card_row)
        self._cards.pop()
        del self._rows[card[ID]]
        self._forget(card)
        self._flash_until.pop(card[ID], None)
        self.endRemoveRows()
        self.card_updated.emit(card, None)

    def _remember(self, card: Card) -> None:
        self._theme_counts[card[THEME]] = self._theme_counts.get(card[THEME], 0) + 1
        self._by_theme.setdefault(card[THEME], {})[card[ID]] = card

    def _forget(self, card: Card) -> None:
        count = self._theme_counts.get(card[THEME], 0) - 1
        members = self._by_theme.get(card[THEME], {})
        members.pop(card[ID], None)
        if count > 0:
            self._theme_counts[card[THEME]] = count
        else:
            self._theme_counts.pop(card[THEME], None)
            self._by_theme.pop(card[THEME], None)

    # ── highlight of new / changed cards ─────────────────────────────

    def flash(self, memory_id: str) -> None:
        """Highlight a card for a moment (e.g. when it is revealed)."""
        row = self._rows.get(memory_id)
        if row is None:
            return
        self._flash_until[memory_id] = time.monotonic() + FLASH_SECONDS
        if not self._flash_timer.isActive():
            self._flash_timer.start()
        index = self.index(row, 0)
        self.dataChanged.emit(index, index, [CardRole.Flash])

    def flash_level(self, memory_id: str) -> float:
        """1.0 right after a change, fading to 0.0."""
        until = self._flash_until.get(memory_id)
        if until is None:
            return 0.0
        return max(0.0, min(1.0, (until - time.monotonic()) / FLASH_SECONDS))

    def _on_flash_tick(self) -> None:
        now = time.monotonic()
        rows: list[int] = []
        for memory_id in list(self._flash_until):
            row = self._rows.get(memory_id)
            if self._flash_until[memory_id] <= now:
                del self._flash_until[memory_id]
            if row is not None:
                rows.append(row)
        if len(rows) > BURST_CARDS:  # (an import's thousands: one signal a step, not one per card)
            self.dataChanged.emit(self.index(min(rows), 0), self.index(max(rows), 0), [CardRole.Flash])
        else:
            for row in rows:
                index = self.index(row, 0)
                self.dataChanged.emit(index, index, [CardRole.Flash])
        if not self._flash_until:
            self._flash_timer.stop()

    # ── the production path: reads in a worker, applied here ──────────

    @property
    def first_read_pending(self) -> bool:
        """No card yet because the store has not been read yet (not because it is empty)."""
        return not self.read_once and self._service is not None and not self.rowCount()

    def reload(self) -> "asyncio.Task[None]":
        """Re-read the whole store (in a worker) and reset the rows."""
        self._end_burst()
        self._reload_needed = True
        return self._schedule()

    def _on_memory_changed(self, change: MemoryChange) -> None:
        kind = kinds.kind(change.kind)
        if not kind.memories:
            return  # the trash only
        self.change_arriving.emit(change)
        idle = self._drain_task is None or self._drain_task.done()
        if idle and change.ids and all(mid in change.states for mid in change.ids):
            # The change carries the cards' new state: applied now, in order, without a store read
            # (so a toast about it can reveal its card at once).
            cards = {mid: (card_from_state(mid, st) if (st := change.states[mid]) is not None else None)
                     for mid in change.ids}
            flash = change.ids if kind.content else ()
            if self._burst < BURST_CARDS:
                self._burst += len(cards)
                self._burst_timer.start()
                self.apply_cards(cards, flash=flash)
            else:  # many in one pass: applied together when it ends (one placing of each theme's cards)
                for memory_id, card in cards.items():
                    self._burst_cards.pop(memory_id, None)  # (in the order of their last change)
                    self._burst_cards[memory_id] = card
                self._burst_flash.update(flash)
            return
        self._end_burst()  # (what came before is applied before what comes after)
        if not kind.names_memories or not change.ids:
            self._reload_needed = True
        for memory_id in change.ids:
            self._dirty[memory_id] = self._dirty.get(memory_id, False) or kind.content
        self._schedule()

    def _end_burst(self) -> None:
        """The loop's pass ended (or another change must follow): apply the changes kept back."""
        self._burst_timer.stop()
        self._burst = 0
        cards, self._burst_cards = self._burst_cards, {}
        flash, self._burst_flash = self._burst_flash, set()
        if cards:
            self.apply_cards(cards, flash=flash)

    def refresh(self, ids: Iterable[str]) -> "asyncio.Task[None]":
        """Read the cards ``ids`` again now, in order with the changes seen so far: the wall's copy may
        be behind the store (a write another process made a moment ago that the store said was there).
        ``settle()`` waits for it."""
        for memory_id in ids:
            self._dirty[memory_id] = True
        return self._schedule()

    def _schedule(self) -> "asyncio.Task[None]":
        if self._drain_task is None or self._drain_task.done():
            self._drain_task = self._tasks.spawn(self._drain(), name="refresh-cards")
        return self._drain_task

    async def _drain(self) -> None:
        # One reader at a time, so results are applied in the order the changes happened.
        assert self._service is not None, "MemoryCardModel needs a MemoryService to refresh itself"
        while self._reload_needed or self._dirty:
            if self._reload_needed:
                self._reload_needed = False
                self._dirty.clear()
                cards = await self._service.run(ops.Cards())
                if not alive(self):  # the wall went away during the read
                    return
                self.read_once = True
                if cards is None:
                    self.load_failed.emit()
                else:
                    self.set_cards(cards)
                continue
            batch, self._dirty = self._dirty, {}
            fetched = await self._service.run(ops.Fetch(ops.ids(batch)))
            if not alive(self):
                return
            if fetched is not None:
                self.apply_items(fetched, flash=[mid for mid, flash in batch.items() if flash])

    async def settle(self) -> None:
        """Wait until every change seen so far is applied."""
        self._end_burst()
        while self._drain_task is not None and not self._drain_task.done():
            await asyncio.shield(self._drain_task)
