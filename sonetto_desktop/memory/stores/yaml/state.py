"""What a YAML store instance holds in memory: the committed memories and trash (:class:`MemoryState`)
and what it knows of the files on disk (:class:`DiskState`).

The committed dicts are changed in place by each commit (under the store's mutex); the items in them
are never changed in place (a write stores a new object), so a reader may keep an item it got. A
reader that iterates gets a *snapshot*: a shallow copy made at most once per version, on the first
full read after a write, so a write costs what it touches, not the store's size.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...errors import StoreCorrupt
from ...item import MemoryItem
from ..transaction import OverlayTransaction
from .format import Layout


class MemoryState:
    """The committed state (``items`` is ``None`` until the files were read)."""

    def __init__(self) -> None:
        self.items: dict[str, MemoryItem] | None = None
        self.trash: dict[str, dict[str, Any]] | None = None  # None: the trash file is damaged
        self.trash_error: StoreCorrupt | None = None
        self.seq = 0
        self.version = 0  # every change of items or trash
        self.trash_version = 0
        self._view: dict[str, MemoryItem] = {}
        self._view_version = -1
        self._trash_view: dict[str, dict[str, Any]] = {}
        self._trash_view_version = -1
        #: The ids whose state changed since memory.yaml was last written (in the order they changed).
        self.changed: dict[str, None] = {}

    def replace(self, items: dict[str, MemoryItem], trash: dict[str, dict[str, Any]] | None,
                trash_error: StoreCorrupt | None, changed: dict[str, None]) -> None:
        """Everything read anew; ``changed``: the ids the file does not hold as they are now."""
        self.items, self.trash, self.trash_error = items, trash, trash_error
        self.changed = changed
        self.version += 1
        self.trash_version += 1

    def take_changed(self) -> dict[str, MemoryItem | None]:
        """The state of every id changed since the last call (``None``: gone), in order of change."""
        assert self.items is not None
        changed, self.changed = self.changed, {}
        return {memory_id: self.items.get(memory_id) for memory_id in changed}

    def give_back(self, changed: dict[str, MemoryItem | None]) -> None:
        """A rewrite that did not happen: its ids are still to be written."""
        self.changed = {**dict.fromkeys(changed), **self.changed}

    def view(self) -> dict[str, MemoryItem]:
        """A snapshot of the items (never changed afterwards; the caller holds the mutex)."""
        if self._view_version != self.version:
            self._view = dict(self.items or {})
            self._view_version = self.version
        return self._view

    def trash_view(self) -> dict[str, dict[str, Any]]:
        if self._trash_view_version != self.trash_version:
            self._trash_view = dict(self.trash or {})
            self._trash_view_version = self.trash_version
        return self._trash_view

    def transaction(self) -> OverlayTransaction:
        assert self.items is not None and self.trash is not None
        return OverlayTransaction(self.items, self.trash)

    def apply(self, txn: OverlayTransaction, seq: int) -> None:
        """Make ``txn``'s writes the committed state (they are in the log)."""
        txn.apply()
        self.changed.update(dict.fromkeys(txn.items))
        self.seq = seq
        self.version += 1
        if txn.trash:
            self.trash_version += 1

    def put(self, memory_id: str, item: MemoryItem | None) -> None:
        """One memory's state as another writer recorded it (``None``: it left)."""
        assert self.items is not None
        if item is None:
            self.items.pop(memory_id, None)
        else:
            self.items[memory_id] = item
        self.changed[memory_id] = None
        self.version += 1

    def put_trash(self, memory_id: str, entry: dict[str, Any] | None) -> None:
        if self.trash is None:
            return  # damaged trash file: left as it is
        if entry is None:
            self.trash.pop(memory_id, None)
        else:
            self.trash[memory_id] = entry
        self.trash_version += 1


@dataclass
class DiskState:
    """What this instance knows of the files: the text of memory.yaml as it last read or wrote it
    (``layout``, ``sha1``, ``ids``), the trash file's SHA-1, the lineage and the seq the files hold
    (``base_seq``: records after it are in the log only; ``None`` when unknown), and what the next
    rewrite owes (the trash, entries repaired when read)."""

    layout: Layout = field(default_factory=Layout)
    sha1: str = ""
    size: int = 0
    ids: frozenset[str] | None = None  # the ids the file holds (None: those of the layout's chunks)
    trash_sha1: str | None = None
    lineage: str = ""
    base_seq: int | None = 0
    trash_written: int = 0  # MemoryState.trash_version the trash file holds
    needs_rewrite: bool = False
    folded: set[str] = field(default_factory=set)  # SHA-1s of hand-edited files another instance took in
    #: Whether memory.yaml on disk holds the text ``layout`` describes (False while it is gone, emptied or
    #: a link: what a rewrite displaces then is no copy worth keeping).
    file_known: bool = True

    def known_ids(self) -> Any:
        """The ids memory.yaml held when we last read or wrote it."""
        return self.ids if self.ids is not None else self.layout.chunks.keys()
