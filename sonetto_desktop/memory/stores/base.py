"""BaseMemoryManager: the store-agnostic memory API of the 湾流 design.

A backend implements three primitives — ``_load_all()``, ``_save_all(items)`` and
``_write_lock()`` — plus ``self_check()`` and the two trash primitives, and gets the whole API:
queries, the writes (``crud.py``), undoing a whole turn (``undo.py``) — parts it holds, over its
transaction and its change channel — trash / restore / revert and the change channel. Every write is
lock -> load -> modify -> save, expressed once against a :class:`Transaction`; a backend with
point operations overrides ``_transaction()`` so a write touches only its rows.

The change channel: after a write commits (and only then) subscribers receive one
:class:`~.changes.MemoryChange` naming the actor, the reason and the turn. A backend that can see
other processes' writes reports them through ``poll_external()`` (called by ``watch.StoreWatcher``)
on the same channel, so every view follows one feed.
"""

from __future__ import annotations

import secrets
import threading
from abc import ABC, abstractmethod
from contextlib import AbstractContextManager, contextmanager
from copy import deepcopy
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable, Container, Iterable, Iterator, Mapping

from ..changes import MemoryChange, Turn
from .crud import MemoryWrites
from ..errors import MemoryNotFound
from ..events import EventFeed
from ..item import MemoryItem
from ..record import CARD
from .columns import Columns, items_columns
from .notices import StoreNotice
from .transaction import SnapshotTransaction, Transaction, mentions
from ..undo import TurnUndo, UndoPreview, UndoResult
from . import lock_wait
from .validation import validate_items


#: How many notices a store keeps for subscribers that arrive later.
_NOTICES_KEPT = 20


@dataclass
class SelfCheckReport:
    """Result of ``self_check()``: ``status`` is "OK", "WARN" or "FAIL"."""

    status: str
    issues: list[str] = field(default_factory=list)
    repaired: list[str] = field(default_factory=list)
    item_count: int = 0

    @property
    def ok(self) -> bool:
        return self.status != "FAIL"


class BaseMemoryManager(ABC):
    """Memory manager over some store. See the module docstring for the contract. Its parts: the
    writes (``writes``: ``crud.MemoryWrites``) and undoing a turn (``undo``: ``undo.TurnUndo``), both
    over this store's ``_transaction`` and ``_publish``."""

    def __init__(self) -> None:
        self._changes: EventFeed[MemoryChange] = EventFeed()
        self._notices: EventFeed[StoreNotice] = EventFeed()
        self._said: list[StoreNotice] = []  # the last notices (a subscriber arriving later hears them)
        self._captured = threading.local()
        self._grouped = threading.local()  # this thread's ``group()``: its transaction and held changes
        self._stop_waits = threading.Event()  # ``stop_waiting``: the store is closing
        self.writes = MemoryWrites(self._unit, self._publish, self._new_id)
        self.undo = TurnUndo(self._unit, self._publish)

    # ── writes (see ``crud.MemoryWrites``) ────────────────────────────

    def add(self, description: str, theme: str, *, actor: str = "user", reason: str = "",
            turn: Turn | None = None) -> str:
        """Add a memory; returns its new id."""
        return self.writes.add(description, theme, actor=actor, reason=reason, turn=turn)

    def delete(self, memory_id: str, reason: str = "", *, actor: str = "user", turn: Turn | None = None) -> str:
        """Move a memory to the trash (history kept); returns its description."""
        return self.writes.delete(memory_id, reason, actor=actor, turn=turn)

    def update(self, memory_id: str, reason: str, new_description: str | None = None, new_theme: str | None = None,
               *, actor: str = "user", turn: Turn | None = None, expect: Mapping[str, str] | None = None) -> None:
        """Change a memory's description and/or theme, recording why; with ``expect`` (field -> value),
        only if it still holds those values (else ``ChangedMeanwhile``, nothing written)."""
        self.writes.update(memory_id, reason, new_description, new_theme, actor=actor, turn=turn, expect=expect)

    def merge(self, id1: str, id2: str, merged_description: str, merged_theme: str, reason: str, *,
              actor: str = "user", turn: Turn | None = None,
              expect: Mapping[str, Mapping[str, str]] | None = None) -> None:
        """Merge two memories: ``id1`` is kept with both histories, ``id2`` goes to the trash; with
        ``expect`` (memory id -> field -> value), only if they still hold those values (else
        ``ChangedMeanwhile``, nothing written)."""
        self.writes.merge(id1, id2, merged_description, merged_theme, reason, actor=actor, turn=turn, expect=expect)

    def set_locked(self, memory_id: str, locked: bool, *, actor: str = "user", reason: str = "",
                   turn: Turn | None = None) -> bool:
        """Lock (or unlock) a memory against the agent and other apps; False when it already was so."""
        return self.writes.set_locked(memory_id, locked, actor=actor, reason=reason, turn=turn)

    def set_field(self, memory_id: str, name: str, value: Any, *, actor: str = "user", reason: str = "",
                  turn: Turn | None = None) -> bool:
        """Set a field its schema lets ``actor`` set (``record.Field.set_by``); False when it had that value."""
        return self.writes.set_field(memory_id, name, value, actor=actor, reason=reason, turn=turn)

    def hit(self, memory_id: str, *, actor: str = "agent", turn: Turn | None = None) -> int:
        """Count one more reference to the memory; returns the new count."""
        return self.writes.hit(memory_id, actor=actor, turn=turn)

    def revert(self, memory_id: str, version: int, reason: str, *, actor: str = "user",
               turn: Turn | None = None) -> None:
        """Bring back version ``version`` (see ``versions``) as a new change in the history."""
        self.writes.revert(memory_id, version, reason, actor=actor, turn=turn)

    def restore(self, memory_id: str, *, actor: str = "user", reason: str = "从回收站恢复",
                turn: Turn | None = None) -> str:
        """Bring a memory back from the trash under its old id; returns the id."""
        return self.writes.restore(memory_id, actor=actor, reason=reason, turn=turn)

    def purge(self, memory_id: str | None = None, *, actor: str = "user", among: Iterable[str] | None = None) -> int:
        """Delete for good: one trash entry, or the whole trash with ``None`` (with ``among``: only those of
        its entries). Returns how many."""
        return self.writes.purge(memory_id, actor=actor, among=among)

    def purge_expired(self, max_age_days: float, *, actor: str = "user", now: datetime | None = None) -> int:
        """Delete for good the trash entries older than ``max_age_days``; returns how many."""
        return self.writes.purge_expired(max_age_days, actor=actor, now=now)

    def import_items(self, items: dict[str, MemoryItem], *, actor: str = "user", reason: str = "",
                     turn: Turn | None = None) -> tuple[list[str], list[str]]:
        """Merge ``items`` in by id in one write; returns (added ids, skipped ids)."""
        return self.writes.import_items(items, actor=actor, reason=reason, turn=turn)

    def import_trash(self, entries: Mapping[str, dict[str, Any]]) -> list[str]:
        """Put an export's trash entries into the trash in one write; returns their ids (see ``crud``)."""
        return self.writes.import_trash(entries)

    def undo_turn(self, turn_id: str, *, actor: str = "user", reason: str = "", turn: Turn | None = None,
                  ids: Iterable[str] | None = None, unhit: Mapping[str, int] | None = None,
                  keep_touched: bool = False) -> UndoResult:
        """Take back every change of ``turn_id`` as one action (see ``undo.py``); ``keep_touched``:
        keep the memories a later change touched and undo the rest, instead of refusing."""
        return self.undo.undo_turn(turn_id, actor=actor, reason=reason, turn=turn, ids=ids, unhit=unhit,
                                   keep_touched=keep_touched)

    def preview_undo(self, turn_id: str, *, actor: str = "user", ids: Iterable[str] | None = None) -> UndoPreview:
        """What ``undo_turn(turn_id, keep_touched=True)`` would do now, changing nothing (see ``undo.py``)."""
        return self.undo.preview_undo(turn_id, actor=actor, ids=ids)

    # ── primitives a backend provides ─────────────────────────────────

    @abstractmethod
    def _load_all(self) -> dict[str, MemoryItem]:
        """All items, id -> item. The caller holds the write lock when it will save."""

    @abstractmethod
    def _save_all(self, items: dict[str, MemoryItem]) -> None:
        """Persist all items, replacing what was stored. The caller holds the write lock."""

    @abstractmethod
    def _write_lock(self) -> AbstractContextManager[None]:
        """Exclusive write lock across threads and processes."""

    @abstractmethod
    def self_check(self) -> SelfCheckReport:
        """Check the store, repair what is repairable, report the rest."""

    @abstractmethod
    def _load_trash(self) -> dict[str, dict[str, Any]]:
        """Trash entries, id -> {"item": item dict, "deleted_at", "reason", "actor"}."""

    @abstractmethod
    def _save_trash(self, trash: dict[str, dict[str, Any]]) -> None:
        """Persist the trash. The caller holds the write lock."""

    def close(self) -> None:  # noqa: B027 - optional for a backend
        """Release resources (connections, handles). Safe to call twice."""

    def stop_waiting(self) -> None:
        """The store is about to close (the app quits): a write waiting for another process's lock on
        its files gives up now, and later ones after a moment (``lock_wait.CLOSING_LIMIT``), with
        ``StoreBusy``, nothing of them written — a process that holds the lock and never lets go must
        not hold up the quit for minutes. A free lock is taken as ever. (A server store waits on its
        own terms: nothing to do.)"""
        lock_wait.stop_waiting(self._stop_waits)

    # ── the unit of work ──────────────────────────────────────────────

    @contextmanager
    def _transaction(self) -> Iterator[Transaction]:
        """Default: lock, load everything, let the caller modify, save what changed."""
        with self._write_lock():
            txn = SnapshotTransaction(self._load_all(), self._load_trash())
            yield txn
            # Whatever gains an entry is saved first: a crash in between leaves a duplicate, never a loss.
            if txn.trash_added:
                self._save_trash(txn.trash)
            if txn.items_changed:
                self._save_all(txn.items)
            if txn.trash_changed and not txn.trash_added:
                self._save_trash(txn.trash)

    @contextmanager
    def _unit(self) -> Iterator[Transaction]:
        """The transaction a write runs in: this thread's ``group()``'s, else a new one."""
        txn = getattr(self._grouped, "txn", None)
        if txn is not None:
            yield txn
            return
        with self._transaction() as txn:
            yield txn

    @contextmanager
    def group(self) -> Iterator[None]:
        """Run every write this thread makes inside the block in one transaction: all of them commit
        together or, when the block raises, none does (each backend's own rollback: the YAML store's
        overlay is dropped, SQLite and PostgreSQL roll back). Their changes are published once the
        group committed, in order (``capture()`` sees them as they are made). A group inside a group
        is part of the outer one. Reads through the store inside the block see the writes made so far
        on SQLite and PostgreSQL, the committed state on YAML: a group's writes should not depend on
        reading each other back (the writer's plans do not)."""
        if getattr(self._grouped, "txn", None) is not None:
            yield
            return
        held: list[MemoryChange] = []
        self._grouped.held = held
        try:
            with self._transaction() as txn:
                self._grouped.txn = txn
                try:
                    yield
                finally:
                    self._grouped.txn = None
        finally:
            self._grouped.held = None
        for change in held:
            self._changes.publish(change)

    def _publish(self, change: MemoryChange) -> MemoryChange:
        """Hand a committed change to the channel (and to an active ``capture()`` on this thread);
        inside a ``group()`` the channel hears it when the group has committed."""
        captured = getattr(self._captured, "changes", None)
        if captured is not None:
            captured.append(change)
        held = getattr(self._grouped, "held", None)
        if held is not None:
            held.append(change)
        else:
            self._changes.publish(change)
        return change

    def subscribe(self, callback: Callable[[MemoryChange], None]) -> Callable[[], None]:
        """Call ``callback(change)`` after every committed write — this process's and, through
        ``poll_external``, other processes'; returns an unsubscribe function. Callbacks run on the
        writing thread and must be quick (note what changed, hop threads, return)."""
        return self._changes.subscribe(callback)

    def subscribe_notices(self, callback: Callable[[StoreNotice], None], *, replay: bool = True) -> Callable[[], None]:
        """Call ``callback(notice)`` for what the store says about its files (``notices.StoreNotice``),
        on whichever thread found it; ``replay``: first the notices said before (e.g. while opening)."""
        if replay:
            for notice in list(self._said):
                callback(notice)
        return self._notices.subscribe(callback)

    @property
    def notices(self) -> list[StoreNotice]:
        """The last notices the store said (the command line prints those of its opening)."""
        return list(self._said)

    def _notice(self, notice: StoreNotice) -> None:
        self._said.append(notice)
        del self._said[:-_NOTICES_KEPT]
        self._notices.publish(notice)

    @contextmanager
    def capture(self) -> Iterator[list[MemoryChange]]:
        """Collect the changes this thread's writes publish inside the block (nested blocks each see
        their own). The operations layer uses it to return the change record of each write."""
        outer = getattr(self._captured, "changes", None)
        mine: list[MemoryChange] = []
        self._captured.changes = mine
        try:
            yield mine
        finally:
            self._captured.changes = outer
            if outer is not None:
                outer.extend(mine)

    # ── other processes ───────────────────────────────────────────────

    def version_token(self) -> str | None:
        """An opaque string that changes whenever the stored content changes (for caches kept beside
        the store, such as a persisted recall index); ``None`` when the backend cannot tell."""
        return None

    def poll_external(self) -> list[MemoryChange]:
        """Look for writes made by other processes since the last look; publish them (``local``
        False) and return them. Blocking and cheap when nothing changed: call it from a worker."""
        return []

    def catch_up(self) -> None:  # noqa: B027 - optional for a backend
        """Before a query that must not answer from before another process's write (a recall: a
        ``sonetto memory add`` in a terminal, then a chat message at once): take in what other processes
        committed since the last look (``poll_external``), when asking costs next to nothing — a local
        file store's ``stat`` or one pragma; the watcher looks only every half second. A server store's
        writes come through its own listener: nothing here."""

    # ── queries ───────────────────────────────────────────────────────

    def all_items(self) -> dict[str, MemoryItem]:
        """A snapshot of every item, id -> item (copies the caller may keep)."""
        return {mid: item.copy() for mid, item in self._load_all().items()}

    def items_of(self, ids: Iterable[str]) -> dict[str, MemoryItem | None]:
        """The memories ``ids`` as ``get`` reads them (copies), ``None`` for one that does not exist:
        the state of the memories a change named, for a view that follows (a table store reads those
        rows only, whatever their number)."""
        items = self._load_all()
        return {mid: (items[mid].copy() if mid in items else None) for mid in ids}

    def items_mentioning(self, text: str) -> dict[str, MemoryItem]:
        """The memories whose history has a turn id containing ``text`` (a turn, or an import's
        batches: ``imp-<id>``), as copies: what counting or listing one turn's work reads instead of
        every memory (a table store finds them in its database: at 100,000 memories a few ms instead of
        building 100,000 items)."""
        return {mid: item.copy() for mid, item in self._load_all().items() if mentions(item, text)}

    def columns_of_all(self, names: Iterable[str]) -> Columns:
        """The values of the fields ``names`` (of ``record.FIELDS``, not ``history``; or of the derived
        ``record.DERIVED_CARD``) of every memory, as ``get`` would give them: ``(ids, [values of each
        name])``, for a part that keeps a few fields of each memory (the wall's cards, the embeddings
        model's sync, the writer's index). A table store reads those columns only, without building
        every item and parsing its history (at 100,000 memories: ~0.3 s instead of ~3 s, and none of
        the transient items that leave the heap fragmented)."""
        return items_columns(self._load_all(), tuple(names))

    def fields_of_all(self, names: Iterable[str]) -> dict[str, tuple[Any, ...]]:
        """id -> the values of ``names`` (``columns_of_all`` as a mapping)."""
        ids, columns = self.columns_of_all(names)
        if not columns:
            return dict.fromkeys(ids, ())
        return dict(zip(ids, zip(*columns, strict=True), strict=True))

    def get(self, memory_id: str) -> MemoryItem:
        item = self._load_all().get(memory_id)
        if item is None:
            raise MemoryNotFound(memory_id)
        return item.copy()

    def count(self) -> int:
        return len(self._load_all())

    def show(self) -> list[dict[str, Any]]:
        """Every memory as ``{id, description, theme}`` (the LLM-facing shape)."""
        return [
            {"id": mid, "description": item.description, "theme": item.theme}
            for mid, item in self._load_all().items()
        ]

    def show_description_history(self, memory_id: str) -> list[dict[str, Any]]:
        """The memory's changes, newest first."""
        return self.get(memory_id).show_description_history()

    def versions(self, memory_id: str) -> list[dict[str, str]]:
        """Every state the memory had, version 0 (as first written) first. See ``revert``."""
        return self.get(memory_id).versions()

    def get_memories_grouped(self) -> dict[str, list[dict[str, Any]]]:
        """theme -> its memories as ``{id, **card_state}`` (for the card wall), most recently updated
        first. Read with ``fields_of_all`` (a table store: its columns, no history parsed)."""
        groups: dict[str, list[dict[str, Any]]] = {}
        theme = CARD.index("theme")
        for mid, values in self.fields_of_all(CARD).items():
            groups.setdefault(values[theme], []).append({"id": mid, **dict(zip(CARD, values, strict=True))})
        for cards in groups.values():
            cards.sort(key=lambda card: str(card["latest_update_time"] or ""), reverse=True)
        return groups

    def trash_entries(self) -> dict[str, dict[str, Any]]:
        """The trash as stored: id -> ``{"item": item dict, "deleted_at", "reason", "actor", …}`` (copies
        the caller may keep; an export's, restorable by ``import_trash``)."""
        return {mid: deepcopy(entry) for mid, entry in self._load_trash().items()}

    def list_trash(self) -> list[dict[str, Any]]:
        """Deleted memories, newest deletion first: ``{id, description, theme, deleted_at, reason, actor,
        turn_id, merged_into}`` (the last two ``None`` when unknown)."""
        rows = []
        for mid, entry in self._load_trash().items():
            item = entry.get("item", {})
            rows.append(
                {
                    "id": mid,
                    "description": item.get("description"),
                    "theme": item.get("theme"),
                    "deleted_at": entry.get("deleted_at"),
                    "reason": entry.get("reason", ""),
                    "actor": entry.get("actor", "user"),
                    "turn_id": entry.get("turn_id"),
                    "merged_into": entry.get("merged_into"),
                }
            )
        rows.sort(key=lambda row: str(row["deleted_at"] or ""), reverse=True)
        return rows

    # ── helpers ───────────────────────────────────────────────────────

    def _generate_id(self) -> str:
        return secrets.token_hex(4)

    def _validate_all_items(self, items: dict[str, Any]) -> tuple[list[str], list[str]]:
        """Check (and repair in place) every item's fields. Returns (issues, repaired)."""
        return validate_items(items)

    def _new_id(self, txn: Transaction, planned: Container[str] = ()) -> str:
        """An id no memory, trash entry or ``planned`` id (of a bulk write not stored yet) has."""
        while True:
            memory_id = self._generate_id()
            if memory_id not in planned and not txn.taken_ids((memory_id,)):  # one look at memories and trash
                return memory_id
