"""BaseMemoryManager: the store-agnostic memory API of the 湾流 design.

A backend implements three primitives — ``_load_all()``, ``_save_all(items)`` and
``_write_lock()`` — plus ``self_check()`` and the two trash primitives, and gets the whole API:
queries, CRUD, trash / restore / revert and a change feed. Every write is
lock -> load -> modify -> save, expressed once against a :class:`Transaction`; a backend with
point operations overrides ``_transaction()`` so a write touches only its rows.

After a write commits (and only then) subscribers receive a :class:`MemoryChange`.
"""

from __future__ import annotations

import secrets
from abc import ABC, abstractmethod
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from .errors import MemoryNotFound
from .events import EventFeed, MemoryChange
from .item import MemoryItem, now_iso
from .transaction import SnapshotTransaction, Transaction
from .validation import validate_items


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


def _require(name: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{name} must be a non-empty string")
    return value.strip()


class BaseMemoryManager(ABC):
    """Memory manager over some store. See the module docstring for the contract."""

    def __init__(self) -> None:
        self._changes: EventFeed[MemoryChange] = EventFeed()

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

    def close(self) -> None:  # noqa: B027 - a backend without resources needs nothing here
        """Release resources (connections, handles). Safe to call twice."""

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

    def _publish(self, kind: str, ids: tuple[str, ...], actor: str = "user", reason: str = "", **extra: Any) -> None:
        self._changes.publish(MemoryChange(kind, tuple(ids), actor, reason, dict(extra)))

    def subscribe(self, callback: Callable[[MemoryChange], None]) -> Callable[[], None]:
        """Call ``callback(change)`` after every committed write; returns an unsubscribe function."""
        return self._changes.subscribe(callback)

    # ── queries ───────────────────────────────────────────────────────

    def all_items(self) -> dict[str, MemoryItem]:
        """A snapshot of every item, id -> item (copies the caller may keep)."""
        return {mid: item.copy() for mid, item in self._load_all().items()}

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
        """theme -> its memories (for the card wall), most recently updated first."""
        groups: dict[str, list[dict[str, Any]]] = {}
        for mid, item in self._load_all().items():
            groups.setdefault(item.theme, []).append(
                {
                    "id": mid,
                    "description": item.description,
                    "theme": item.theme,
                    "hit": item.hit,
                    "latest_update_time": item.latest_update_time,
                }
            )
        for cards in groups.values():
            cards.sort(key=lambda card: str(card["latest_update_time"] or ""), reverse=True)
        return groups

    def list_trash(self) -> list[dict[str, Any]]:
        """Deleted memories, newest deletion first: ``{id, description, theme, deleted_at, reason, actor}``."""
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

    @staticmethod
    def _require_item(txn: Transaction, memory_id: str) -> MemoryItem:
        item = txn.get(memory_id)
        if item is None:
            raise MemoryNotFound(memory_id)
        return item

    def _new_id(self, txn: Transaction) -> str:
        while True:
            memory_id = self._generate_id()
            if not txn.exists(memory_id) and txn.trash_get(memory_id) is None:
                return memory_id

    # ── CRUD ──────────────────────────────────────────────────────────

    def add(self, description: str, theme: str, *, actor: str = "user", reason: str = "") -> str:
        """Add a memory; returns its new id."""
        item = MemoryItem(_require("description", description), _require("theme", theme))
        with self._transaction() as txn:
            memory_id = self._new_id(txn)
            txn.put(memory_id, item)
        self._publish("add", (memory_id,), actor, reason, description=item.description, theme=item.theme)
        return memory_id

    def delete(self, memory_id: str, reason: str = "", *, actor: str = "user") -> str:
        """Move a memory to the trash (history kept); returns its description."""
        with self._transaction() as txn:
            item = self._require_item(txn, memory_id)
            txn.trash_put(
                memory_id,
                {"item": item.to_dict(), "deleted_at": now_iso(), "reason": reason or "", "actor": actor},
            )
            txn.remove(memory_id)
        self._publish("delete", (memory_id,), actor, reason, description=item.description, theme=item.theme)
        return item.description

    def update(
        self,
        memory_id: str,
        reason: str,
        new_description: str | None = None,
        new_theme: str | None = None,
        *,
        actor: str = "user",
    ) -> None:
        """Change a memory's description and/or theme, recording why."""
        if new_description is None and new_theme is None:
            raise ValueError("update needs a new description or a new theme")
        with self._transaction() as txn:
            item = self._require_item(txn, memory_id)
            item.update(reason, new_description, new_theme, actor=actor)
            txn.put(memory_id, item)
        self._publish("update", (memory_id,), actor, reason, description=item.description, theme=item.theme)

    def merge(
        self,
        id1: str,
        id2: str,
        merged_description: str,
        merged_theme: str,
        reason: str,
        *,
        actor: str = "user",
    ) -> None:
        """Merge two memories: ``id1`` is kept with both histories, ``id2`` goes to the trash."""
        if id1 == id2:
            raise ValueError("cannot merge a memory with itself")
        with self._transaction() as txn:
            keep = self._require_item(txn, id1)
            gone = self._require_item(txn, id2)
            absorbed = gone.to_dict()
            keep.merge(gone, reason, merged_description, merged_theme, actor=actor, another_id=id2)
            txn.trash_put(
                id2,
                {"item": absorbed, "deleted_at": now_iso(), "reason": f"合并到 {id1}：{reason}", "actor": actor,
                 "merged_into": id1},
            )
            txn.put(id1, keep)
            txn.remove(id2)
        self._publish("merge", (id1, id2), actor, reason, description=keep.description, theme=keep.theme)

    def hit(self, memory_id: str, *, actor: str = "agent") -> int:
        """Count one more reference to the memory; returns the new count."""
        with self._transaction() as txn:
            item = self._require_item(txn, memory_id)
            item.hit = int(item.hit or 0) + 1
            txn.put(memory_id, item)
        self._publish("hit", (memory_id,), actor, "", hit=item.hit)
        return item.hit

    def revert(self, memory_id: str, version: int, reason: str, *, actor: str = "user") -> None:
        """Bring back version ``version`` (see ``versions``) as a new change in the history."""
        with self._transaction() as txn:
            item = self._require_item(txn, memory_id)
            states = item.versions()
            if not isinstance(version, int) or not 0 <= version < len(states):
                raise ValueError(f"memory {memory_id!r} has versions 0..{len(states) - 1}, not {version!r}")
            target = states[version]
            item.update(reason, target["description"], target["theme"], actor=actor, action="revert")
            txn.put(memory_id, item)
        self._publish("revert", (memory_id,), actor, reason, version=version, description=item.description)

    def restore(self, memory_id: str, *, actor: str = "user") -> str:
        """Bring a memory back from the trash under its old id; returns the id."""
        with self._transaction() as txn:
            entry = txn.trash_get(memory_id)
            if entry is None:
                raise MemoryNotFound(memory_id, "trash")
            if txn.exists(memory_id):
                raise ValueError(f"a memory with id {memory_id!r} already exists")
            item = MemoryItem.from_dict(entry["item"])
            item.update("从回收站恢复", actor=actor, action="restore")
            txn.put(memory_id, item)
            txn.trash_remove(memory_id)
        self._publish("restore", (memory_id,), actor, "", description=item.description, theme=item.theme)
        return memory_id

    def purge(self, memory_id: str | None = None) -> int:
        """Delete for good: one trash entry, or the whole trash with ``None``. Returns how many."""
        with self._transaction() as txn:
            if memory_id is None:
                ids = list(txn.trash_ids())
            elif txn.trash_get(memory_id) is None:
                raise MemoryNotFound(memory_id, "trash")
            else:
                ids = [memory_id]
            for mid in ids:
                txn.trash_remove(mid)
        if ids:
            self._publish("purge", tuple(ids))
        return len(ids)

    def import_items(self, items: dict[str, MemoryItem], *, actor: str = "user") -> tuple[list[str], list[str]]:
        """Merge ``items`` in by id in one write. Exact duplicates (same description and theme as a
        stored memory) are skipped; an id collision with different content gets a fresh id.
        Returns (added ids, skipped ids)."""
        added: list[str] = []
        skipped: list[str] = []
        with self._transaction() as txn:
            existing = {(it.description, it.theme) for it in (txn.get(i) for i in txn.ids()) if it}
            for mid, item in items.items():
                key = (item.description, item.theme)
                if key in existing:
                    skipped.append(mid)
                    continue
                new_id = mid if (mid and not txn.exists(mid) and txn.trash_get(mid) is None) else self._new_id(txn)
                txn.put(new_id, item.copy())
                existing.add(key)
                added.append(new_id)
        if added:
            self._publish("import", tuple(added), actor)
        return added, skipped
