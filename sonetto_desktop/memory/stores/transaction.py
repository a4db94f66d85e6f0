"""The unit of work every manager write runs in.

``BaseMemoryManager`` writes each operation once, against this small interface. The default
implementation (:class:`SnapshotTransaction`) is the seed's lock -> load all -> modify -> save all;
a backend with point operations (SQLite) supplies its own transaction that reads and writes only
the rows an operation touches, and one that keeps its state in memory (YAML) records its writes
beside the state (:class:`OverlayTransaction`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from datetime import datetime, timedelta
from typing import Any, Iterable, Mapping

from ..changes import MemoryChange
from ..item import MemoryItem, parse_time


class Transaction(ABC):
    """Reads and writes inside one locked write. Items handed out may be modified and ``put`` back."""

    @abstractmethod
    def get(self, memory_id: str) -> MemoryItem | None: ...

    @abstractmethod
    def put(self, memory_id: str, item: MemoryItem) -> None: ...

    @abstractmethod
    def remove(self, memory_id: str) -> None: ...

    @abstractmethod
    def ids(self) -> Iterable[str]: ...

    def ids_mentioning(self, text: str) -> Iterable[str]:
        """The ids of the memories whose history may name ``text`` (a turn id, or the start its group's
        turn ids share): a superset, which the caller checks exactly (``mentions``). By default every
        id; a table store asks its database, without building an item for each row (an import's undo
        at 100,000 memories read all of them to find its few hundred)."""
        return self.ids()

    @abstractmethod
    def trash_get(self, memory_id: str) -> dict[str, Any] | None: ...

    @abstractmethod
    def trash_put(self, memory_id: str, entry: dict[str, Any]) -> None: ...

    @abstractmethod
    def trash_remove(self, memory_id: str) -> None: ...

    @abstractmethod
    def trash_ids(self) -> Iterable[str]: ...

    def exists(self, memory_id: str) -> bool:
        return self.get(memory_id) is not None

    def record(self, change: MemoryChange) -> None:  # noqa: B027 - optional for a backend
        """Keep ``change`` with the write (a backend with a change log writes it in this transaction).
        The default keeps nothing: the change is still published once the write commits."""

    # ── bulk work (an import, a migration): per item here, in one round trip where a backend can ──

    def content_keys(self) -> set[tuple[Any, Any]]:
        """``(description, theme)`` of every stored memory."""
        return {(item.description, item.theme) for item in (self.get(i) for i in self.ids()) if item is not None}

    def taken_ids(self, ids: Iterable[str]) -> set[str]:
        """Those of ``ids`` that a stored memory or a trash entry has."""
        return {i for i in ids if self.exists(i) or self.trash_get(i) is not None}

    def put_new(self, items: Mapping[str, MemoryItem]) -> None:
        """Store ``items`` under ids no memory or trash entry has (the caller checked them in this
        transaction: ``taken_ids``)."""
        for memory_id, item in items.items():
            self.put(memory_id, item)

    def trash_put_many(self, entries: Mapping[str, dict[str, Any]]) -> None:
        for memory_id, entry in entries.items():
            self.trash_put(memory_id, entry)

    def expire_trash(self, max_age_days: float, now: datetime | None = None) -> list[str]:
        """Remove the trash entries deleted more than ``max_age_days`` ago; returns their ids. Ages
        by this store's clock: for a store in a file, this computer's (``now``, default the current
        time); a store shared by several computers judges them by its server's instead."""
        cutoff = (now or datetime.now()) - timedelta(days=max_age_days)
        expired = []
        for memory_id in list(self.trash_ids()):
            deleted = parse_time((self.trash_get(memory_id) or {}).get("deleted_at"))
            if deleted is not None and deleted.replace(tzinfo=None) < cutoff:
                expired.append(memory_id)
        for memory_id in expired:
            self.trash_remove(memory_id)
        return expired


class SnapshotTransaction(Transaction):
    """In-memory view of a full snapshot; the manager saves what changed when the block ends.

    The snapshot handed in is never modified: the transaction works on a shallow copy and hands out
    copies of items, so a reader iterating a published snapshot on another thread is never disturbed.
    """

    def __init__(self, items: dict[str, MemoryItem], trash: dict[str, dict[str, Any]]) -> None:
        self.items = dict(items)
        self.trash = dict(trash)
        self.items_changed = False
        self.trash_added = False
        self.trash_changed = False

    def get(self, memory_id: str) -> MemoryItem | None:
        item = self.items.get(memory_id)
        return item.copy() if item is not None else None

    def put(self, memory_id: str, item: MemoryItem) -> None:
        self.items[memory_id] = item
        self.items_changed = True

    def remove(self, memory_id: str) -> None:
        self.items.pop(memory_id, None)
        self.items_changed = True

    def ids(self) -> Iterable[str]:
        return list(self.items)

    def exists(self, memory_id: str) -> bool:
        return memory_id in self.items

    def trash_get(self, memory_id: str) -> dict[str, Any] | None:
        return self.trash.get(memory_id)

    def trash_put(self, memory_id: str, entry: dict[str, Any]) -> None:
        self.trash[memory_id] = entry
        self.trash_changed = self.trash_added = True

    def trash_remove(self, memory_id: str) -> None:
        self.trash.pop(memory_id, None)
        self.trash_changed = True

    def trash_ids(self) -> Iterable[str]:
        return list(self.trash)


class OverlayTransaction(Transaction):
    """Writes recorded beside a committed state that it never touches: ``items`` / ``trash`` map each
    touched id to its new state (``None``: removed), so a write costs what it touches whatever the
    store's size (no copy of the state). ``apply`` makes them the committed state in place (the
    store holds the lock its readers take their snapshots under)."""

    def __init__(self, items: dict[str, MemoryItem], trash: dict[str, dict[str, Any]]) -> None:
        self._items = items
        self._trash = trash
        self.items: dict[str, MemoryItem | None] = {}
        self.trash: dict[str, dict[str, Any] | None] = {}
        self.changes: list[MemoryChange] = []

    @property
    def touched(self) -> bool:
        return bool(self.items or self.trash)

    def get(self, memory_id: str) -> MemoryItem | None:
        item = self.items[memory_id] if memory_id in self.items else self._items.get(memory_id)
        return item.copy() if item is not None else None

    def put(self, memory_id: str, item: MemoryItem) -> None:
        self.items[memory_id] = item

    def remove(self, memory_id: str) -> None:
        self.items[memory_id] = None

    def exists(self, memory_id: str) -> bool:
        if memory_id in self.items:
            return self.items[memory_id] is not None
        return memory_id in self._items

    def ids(self) -> Iterable[str]:
        kept = [mid for mid in self._items if self.items.get(mid, True) is not None]
        return kept + [mid for mid, item in self.items.items() if item is not None and mid not in self._items]

    def trash_get(self, memory_id: str) -> dict[str, Any] | None:
        return self.trash[memory_id] if memory_id in self.trash else self._trash.get(memory_id)

    def trash_put(self, memory_id: str, entry: dict[str, Any]) -> None:
        self.trash[memory_id] = entry

    def trash_remove(self, memory_id: str) -> None:
        self.trash[memory_id] = None

    def trash_ids(self) -> Iterable[str]:
        kept = [mid for mid in self._trash if self.trash.get(mid, True) is not None]
        return kept + [mid for mid, entry in self.trash.items() if entry is not None and mid not in self._trash]

    def record(self, change: MemoryChange) -> None:
        self.changes.append(change)

    def apply(self) -> None:
        """Make the writes the committed state (in place)."""
        for memory_id, item in self.items.items():
            if item is None:
                self._items.pop(memory_id, None)
            else:
                self._items[memory_id] = item
        for memory_id, entry in self.trash.items():
            if entry is None:
                self._trash.pop(memory_id, None)
            else:
                self._trash[memory_id] = entry


def mentions(item: MemoryItem, text: str) -> bool:
    """Whether an entry of ``item``'s history has a turn id containing ``text`` (``ids_mentioning``'s
    exact check, and the whole of it for a store kept in memory)."""
    return any(text in str(entry.get("turn_id") or "") for entry in item.history if isinstance(entry, dict))
