"""The writes every memory store gets for free (``MemoryWrites``, a part of ``BaseMemoryManager``):
the seed's add / delete / update / merge / hit, plus lock, set a field, revert, restore, purge and import.

Each write runs in one transaction, records who made it, why and for which turn (in the item's
history or the trash entry), writes its :class:`~.changes.MemoryChange` inside the same transaction
(``txn.record``: a backend with a change log keeps it atomically with the write) and publishes it
once the transaction has committed. Return values are the seed's (an id, a description, a count);
``capture()`` gives a caller the change records too (see ``operations.MemoryOperations``).
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from datetime import datetime
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping

from .. import kinds
from ..changes import PERSON_ACTORS, MemoryChange, Turn, check_actor
from ..errors import ChangedMeanwhile, FieldNotSettable, MemoryLocked, MemoryNotFound
from ..item import MAX_HIT, EmptyText, MemoryItem, check_length, check_reason, now_iso
from ..record import card_state, field

if TYPE_CHECKING:
    from .transaction import Transaction

#: A change of more memories than this carries no per-memory states (views re-read instead).
STATES_MAX = 64

#: The fields a write may say it expects a memory to hold (``update`` / ``merge``'s ``expect``).
EXPECTABLE = ("description", "theme")


def require_text(name: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise EmptyText(name)
    return check_length(name, value.strip())


def _changeable(item: MemoryItem, memory_id: str, actor: str) -> MemoryItem:
    """``item``, unless it is locked and ``actor`` is not the person (then ``MemoryLocked``)."""
    if item.locked and actor not in PERSON_ACTORS:
        raise MemoryLocked(memory_id, actor)
    return item


def provenance(turn: Turn | None, stamp: Mapping[str, str]) -> dict[str, str]:
    """The fields a history (or trash) entry keeps of who and where: the turn's, and the store's
    ``stamp`` (a shared store's: the device that wrote it)."""
    return {**(turn.history_fields() if turn is not None else {}), **stamp}


def _deleted_by(trash_entry: dict[str, Any]) -> dict[str, str]:
    """For a restore's history entry: the turn whose deletion it takes back (``undo`` checks it)."""
    turn_id = trash_entry.get("turn_id")
    return {"deleted_turn": str(turn_id)} if turn_id else {}


def record_change(txn: Transaction, kind: str, ids: tuple[str, ...], actor: str, reason: str,
                  turn: Turn | None, states: dict[str, Any] | None = None, **extra: Any) -> MemoryChange:
    """The change record of a write, kept with it in ``txn`` (published once it committed)."""
    change = MemoryChange(kind, ids, actor, reason or "", turn.turn_id if turn else None,
                          turn.session_id if turn else None, states or {}, extra)
    txn.record(change)
    return change


def check_expected(items: Mapping[str, MemoryItem], expect: Mapping[str, Mapping[str, str]] | None) -> None:
    """Raise ``ChangedMeanwhile`` (naming every field that differs, with its value now) unless each
    memory of ``expect`` (id -> field -> value) still holds the values the caller expects: the texts it
    last saw. ``items``: those memories as the write's transaction reads them, so the check and the write
    are one step (no other write comes in between). Whitespace at either end does not count (the texts
    are stored, and shown, without it)."""
    if not expect:
        return
    clashes = []
    for memory_id, fields in expect.items():
        if memory_id not in items:
            raise ValueError(f"an expectation for memory {memory_id!r}, which this write does not change")
        for name, expected in fields.items():
            if name not in EXPECTABLE:
                raise ValueError(f"cannot expect the {name!r} of a memory (only {', '.join(EXPECTABLE)})")
            if not isinstance(expected, str):
                raise ValueError(f"the expected {name} must be a string")
            now = getattr(items[memory_id], name)
            now = now if isinstance(now, str) else ""
            if now.strip() != expected.strip():
                clashes.append((memory_id, name, now, expected))
    if clashes:
        raise ChangedMeanwhile(clashes)


def require_item(txn: Transaction, memory_id: str) -> MemoryItem:
    item = txn.get(memory_id)
    if item is None:
        raise MemoryNotFound(memory_id)
    return item


class MemoryWrites:
    """The writes (module docstring), over what a store gives them: its unit of work
    (``transaction()``, a context manager yielding a :class:`Transaction`), its change channel
    (``publish(change)``) and a source of new ids (``new_id(txn, planned)``)."""

    def __init__(self, transaction: Callable[[], AbstractContextManager[Transaction]],
                 publish: Callable[[MemoryChange], Any], new_id: Callable[..., str]) -> None:
        self._transaction = transaction
        self._publish = publish
        self._new_id = new_id
        #: What every history entry this store writes keeps besides the turn's fields (``provenance``).
        self.stamp: dict[str, str] = {}

    _change = staticmethod(record_change)
    _require_item = staticmethod(require_item)

    def add(self, description: str, theme: str, *, actor: str = "user", reason: str = "",
            turn: Turn | None = None) -> str:
        """Add a memory; returns its new id. Its history starts with a ``create`` entry."""
        actor = check_actor(actor)
        item = MemoryItem(require_text("description", description), require_text("theme", theme))
        item.record_creation(actor, reason, provenance(turn, self.stamp))
        with self._transaction() as txn:
            memory_id = self._new_id(txn)
            txn.put(memory_id, item)
            change = self._change(txn, kinds.ADD, (memory_id,), actor, reason, turn, {memory_id: card_state(item)})
        self._publish(change)
        return memory_id

    def delete(self, memory_id: str, reason: str = "", *, actor: str = "user", turn: Turn | None = None) -> str:
        """Move a memory to the trash (history kept); returns its description."""
        actor = check_actor(actor)
        reason = check_reason(reason)
        with self._transaction() as txn:
            item = _changeable(self._require_item(txn, memory_id), memory_id, actor)
            txn.trash_put(memory_id, {"item": item.to_dict(), "deleted_at": now_iso(), "reason": reason or "",
                                      "actor": actor, **provenance(turn, self.stamp)})
            txn.remove(memory_id)
            change = self._change(txn, kinds.DELETE, (memory_id,), actor, reason, turn, {memory_id: None},
                                  description=item.description, theme=item.theme)
        self._publish(change)
        return item.description

    def update(
        self,
        memory_id: str,
        reason: str,
        new_description: str | None = None,
        new_theme: str | None = None,
        *,
        actor: str = "user",
        turn: Turn | None = None,
        expect: Mapping[str, str] | None = None,
    ) -> None:
        """Change a memory's description and/or theme, recording why. ``expect`` (field -> value:
        ``{"description": the text the person saw}``): write only if the memory still holds these values,
        checked in the same transaction; else ``ChangedMeanwhile`` (with the values now) and nothing is
        written."""
        if new_description is None and new_theme is None:
            raise ValueError("update needs a new description or a new theme")
        with self._transaction() as txn:
            item = _changeable(self._require_item(txn, memory_id), memory_id, actor)
            check_expected({memory_id: item}, {memory_id: expect} if expect else None)
            item.update(reason, new_description, new_theme, actor=actor, provenance=provenance(turn, self.stamp))
            txn.put(memory_id, item)
            change = self._change(txn, kinds.UPDATE, (memory_id,), actor, reason, turn, {memory_id: card_state(item)})
        self._publish(change)

    def merge(
        self,
        id1: str,
        id2: str,
        merged_description: str,
        merged_theme: str,
        reason: str,
        *,
        actor: str = "user",
        turn: Turn | None = None,
        expect: Mapping[str, Mapping[str, str]] | None = None,
    ) -> None:
        """Merge two memories: ``id1`` is kept with both histories, ``id2`` goes to the trash.
        ``expect`` (memory id -> field -> value, for ``id1`` and / or ``id2``: the texts the person saw):
        merge only if both still hold these values, checked in the same transaction; else
        ``ChangedMeanwhile`` and nothing is written."""
        if id1 == id2:
            raise ValueError("cannot merge a memory with itself")
        with self._transaction() as txn:
            keep = _changeable(self._require_item(txn, id1), id1, actor)
            gone = _changeable(self._require_item(txn, id2), id2, actor)
            check_expected({id1: keep, id2: gone}, expect)
            absorbed = gone.to_dict()
            keep.merge(gone, reason, merged_description, merged_theme, actor=actor, another_id=id2,
                       provenance=provenance(turn, self.stamp))
            txn.trash_put(id2, {"item": absorbed, "deleted_at": now_iso(), "reason": f"合并到 {id1}：{reason}",
                                "actor": actor, "merged_into": id1, **provenance(turn, self.stamp)})
            txn.put(id1, keep)
            txn.remove(id2)
            change = self._change(txn, kinds.MERGE, (id1, id2), actor, reason, turn,
                                  {id1: card_state(keep), id2: None})
        self._publish(change)

    def set_locked(self, memory_id: str, locked: bool, *, actor: str = "user", reason: str = "",
                   turn: Turn | None = None) -> bool:
        """Lock (or unlock) a memory: locked, only the person (``user``, ``cli``) may change or delete
        it. Recorded in its history; returns False (and publishes nothing) when it already was so."""
        actor = check_actor(actor)
        if actor not in PERSON_ACTORS:  # an app may neither lock nor unlock what the person decides
            raise MemoryLocked(memory_id, actor)
        reason = check_reason(reason)
        with self._transaction() as txn:
            item = self._require_item(txn, memory_id)
            if not item.set_locked(locked, actor=actor, reason=reason, provenance=provenance(turn, self.stamp)):
                return False
            txn.put(memory_id, item)
            change = self._change(txn, kinds.LOCK, (memory_id,), actor, reason, turn, {memory_id: card_state(item)},
                                  locked=bool(locked))
        self._publish(change)
        return True

    def set_field(self, memory_id: str, name: str, value: Any, *, actor: str = "user", reason: str = "",
                  turn: Turn | None = None) -> bool:
        """Set a field that its schema lets ``actor`` set (``Field.set_by``, e.g. ``pinned`` by the
        person); others get ``FieldNotSettable``. The text and update time stay as they are; a flag field's
        change (``Field.flag``: a pin) is a history entry.
        Returns False (and publishes nothing) when it already had that value."""
        actor = check_actor(actor)
        spec = field(name)
        if actor not in spec.set_by:
            raise FieldNotSettable(memory_id, name, actor)
        value = spec.read(value)
        reason = check_reason(reason)
        with self._transaction() as txn:
            item = self._require_item(txn, memory_id)
            if getattr(item, name) == value:
                return False
            setattr(item, name, value)
            if spec.flag:  # a pin: in the history, so its action can be undone
                item.note_flag(spec.flag[0] if value else spec.flag[1], actor=actor, reason=reason,
                               provenance=provenance(turn, self.stamp))
            txn.put(memory_id, item)
            change = self._change(txn, kinds.SET, (memory_id,), actor, reason, turn, {memory_id: card_state(item)},
                                  field=name, value=value)
        self._publish(change)
        return True

    def hit(self, memory_id: str, *, actor: str = "agent", turn: Turn | None = None) -> int:
        """Count one more reference to the memory; returns the new count."""
        actor = check_actor(actor)
        with self._transaction() as txn:
            item = self._require_item(txn, memory_id)
            item.hit = min(int(item.hit or 0) + 1, MAX_HIT)
            txn.put(memory_id, item)
            change = self._change(txn, kinds.HIT, (memory_id,), actor, "", turn, {memory_id: card_state(item)},
                                  hit=item.hit)
        self._publish(change)
        return item.hit

    def revert(self, memory_id: str, version: int, reason: str, *, actor: str = "user",
               turn: Turn | None = None) -> None:
        """Bring back version ``version`` (see ``versions``) as a new change in the history."""
        with self._transaction() as txn:
            item = _changeable(self._require_item(txn, memory_id), memory_id, actor)
            states = item.versions()
            if not isinstance(version, int) or not 0 <= version < len(states):
                raise ValueError(f"memory {memory_id!r} has versions 0..{len(states) - 1}, not {version!r}")
            target = states[version]
            item.update(reason, target["description"], target["theme"], actor=actor, action=kinds.REVERT,
                        provenance=provenance(turn, self.stamp))
            txn.put(memory_id, item)
            change = self._change(txn, kinds.REVERT, (memory_id,), actor, reason, turn, {memory_id: card_state(item)},
                                  version=version)
        self._publish(change)

    def restore(self, memory_id: str, *, actor: str = "user", reason: str = "从回收站恢复",
                turn: Turn | None = None) -> str:
        """Bring a memory back from the trash under its old id; returns the id."""
        with self._transaction() as txn:
            entry = txn.trash_get(memory_id)
            if entry is None:
                raise MemoryNotFound(memory_id, "trash")
            if txn.exists(memory_id):
                raise ValueError(f"a memory with id {memory_id!r} already exists")
            item = MemoryItem.from_dict(entry["item"])
            item.record_restore(reason or "从回收站恢复", actor=actor, provenance={**provenance(turn, self.stamp), **_deleted_by(entry)})
            txn.put(memory_id, item)
            txn.trash_remove(memory_id)
            change = self._change(txn, kinds.RESTORE, (memory_id,), actor, reason, turn, {memory_id: card_state(item)})
        self._publish(change)
        return memory_id

    def purge(self, memory_id: str | None = None, *, actor: str = "user", among: Iterable[str] | None = None) -> int:
        """Delete for good: one trash entry, or the whole trash with ``None`` — with ``among``, only its
        entries still in the trash (what the person saw there: not one deleted since). Returns how many."""
        actor = check_actor(actor)
        with self._transaction() as txn:
            if memory_id is None:
                shown = None if among is None else set(among)
                ids = [mid for mid in txn.trash_ids() if shown is None or mid in shown]
            elif txn.trash_get(memory_id) is None:
                raise MemoryNotFound(memory_id, "trash")
            else:
                ids = [memory_id]
            for mid in ids:
                txn.trash_remove(mid)
            change = self._change(txn, kinds.PURGE, tuple(ids), actor, "", None) if ids else None
        if change is not None:
            self._publish(change)
        return len(ids)

    def purge_expired(self, max_age_days: float, *, actor: str = "user", now: datetime | None = None) -> int:
        """Delete for good the trash entries deleted more than ``max_age_days`` ago (the trash's
        retention; ``0`` or less keeps everything). One ``purge`` change; returns how many. Ages are
        the store's (``Transaction.expire_trash``): ``now`` stands for this computer's clock, which a
        store on a server shared by several computers does not use."""
        if not max_age_days or max_age_days <= 0:
            return 0
        actor = check_actor(actor)
        with self._transaction() as txn:
            ids = txn.expire_trash(max_age_days, now)
            change = (self._change(txn, kinds.PURGE, tuple(ids), actor, f"回收站超过 {max_age_days:g} 天的记忆已清除",
                                   None) if ids else None)
        if change is not None:
            self._publish(change)
        return len(ids)

    def import_trash(self, entries: Mapping[str, dict[str, Any]]) -> list[str]:
        """Put an export's trash entries (``{"item": …, "deleted_at", "reason", "actor"}``) into the trash,
        as they were deleted, in one write: restorable, never on the wall. An entry whose description and
        theme equal a stored memory's or a trash entry's is left out (the same backup imported twice does
        not fill the trash twice); an id taken by a memory or a trash entry gets a fresh one. Returns the
        ids put into the trash."""
        put: dict[str, dict[str, Any]] = {}
        with self._transaction() as txn:
            existing = txn.content_keys()
            for mid in list(txn.trash_ids()):
                held = (txn.trash_get(mid) or {}).get("item") or {}
                existing.add((held.get("description"), held.get("theme")))
            taken = txn.taken_ids([mid for mid in entries if mid])
            for mid, entry in entries.items():
                item = entry.get("item") or {}
                key = (item.get("description"), item.get("theme"))
                if key in existing:
                    continue
                new_id = mid if (mid and mid not in taken and mid not in put) else self._new_id(txn, put)
                put[new_id] = dict(entry)
                existing.add(key)
            if put:
                txn.trash_put_many(put)
        return list(put)

    def import_items(self, items: dict[str, MemoryItem], *, actor: str = "user", reason: str = "",
                     turn: Turn | None = None) -> tuple[list[str], list[str]]:
        """Merge ``items`` in by id in one write. Exact duplicates (same description and theme as a
        stored memory) are skipped; an id collision with different content gets a fresh id. With a
        ``turn`` (an import as an action: ``ops.ImportItems``), each added memory's history gets a
        ``create`` entry of it (actor, reason, turn), so undoing the turn takes the import back;
        without, the items are stored as given. Returns (added ids, skipped ids)."""
        actor = check_actor(actor)
        reason = check_reason(reason)
        added: list[str] = []
        skipped: list[str] = []
        change = None
        with self._transaction() as txn:  # a few round trips whatever the size (see Transaction's bulk part)
            existing = txn.content_keys()
            taken = txn.taken_ids([mid for mid in items if mid])
            planned: dict[str, MemoryItem] = {}
            states: dict[str, Any] = {}
            for mid, item in items.items():
                key = (item.description, item.theme)
                if key in existing:
                    skipped.append(mid)
                    continue
                new_id = mid if (mid and mid not in taken and mid not in planned) else self._new_id(txn, planned)
                planned[new_id] = item.copy()
                if turn is not None:  # an import as an action: the undo finds its memories by this entry
                    planned[new_id].record_import(actor, reason, provenance(turn, self.stamp))
                existing.add(key)
                added.append(new_id)
                if len(states) <= STATES_MAX:
                    states[new_id] = card_state(planned[new_id])
            txn.put_new(planned)
            if added:
                change = self._change(txn, kinds.IMPORT, tuple(added), actor, reason, turn,
                                      states if len(states) <= STATES_MAX else None)
        if change is not None:
            self._publish(change)
        return added, skipped
