"""Undo a whole turn: every change one chat turn (or one multi-change action) made, taken back as
one action (``TurnUndo``, a part of ``BaseMemoryManager``, which offers it as ``undo_turn``).

What a turn did is read from the store itself — the history entries and trash entries carrying its
turn id — so an undo works after a restart and for another process's turn:

- a memory the turn **created** (or brought back from the trash) goes to the trash;
- a memory the turn **updated, reverted or merged into** gets its text and theme from before the
  turn's first change to it (a ``revert`` entry in its history);
- a memory the turn **deleted or absorbed in a merge** comes back from the trash;
- a memory the turn locked or unlocked gets its flag back (only the person may: see ``set_locked``).

Hit counts are counters, not content, and the store does not keep which turn counted them: they
are taken back only when the caller says how many (``unhit``: the writer does, for a failed attempt,
from its change records). The undo runs in one transaction
and carries a turn id of its own (``undo-…``), so it is itself undoable as one. It is refused —
nothing changed, :class:`UndoConflict` naming each memory and why — when a later change touched a
memory of the turn (edited after it, deleted after it, restored after the turn deleted it, locked
against the actor), because taking the turn back would silently throw that later change away. (A
restore records which turn's deletion it took back: ``deleted_turn`` in its history entry.)

Some actions are written as several turns that are undone together: an imported history's batches
(``imp-<id>-<seq>``, ``history_import``) are all taken back by undoing ``imp-<id>`` (``in_turn``).
Within the group, one batch changing what an earlier one wrote is the group's own doing, not a
conflict; a single batch id still means that batch alone.
"""

from __future__ import annotations

import uuid
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping

from .changes import PERSON_ACTORS, MemoryChange, Turn, check_actor
from .record import card_state
from .stores.crud import record_change
from .errors import MemoryError_
from .item import FLAG_ACTIONS, MemoryItem, check_reason, clamp_hit, now_iso

if TYPE_CHECKING:
    from .stores.transaction import Transaction

UNDO_PREFIX = "undo-"
#: Turn ids that name a group: ``<id>`` undoes every turn ``<id>-…`` as well.
GROUP_PREFIXES = ("imp-",)


class UndoConflict(MemoryError_):
    """A later change touched memories of the turn: nothing was undone. ``conflicts``: id -> why."""

    def __init__(self, turn_id: str, conflicts: dict[str, str]) -> None:
        self.turn_id = turn_id
        self.conflicts = dict(conflicts)
        listed = "; ".join(f"{mid}: {why}" for mid, why in self.conflicts.items())
        super().__init__(f"cannot undo turn {turn_id!r}: later changes touched memories {sorted(self.conflicts)}"
                         f" ({listed}); nothing was changed")


class NothingToUndo(MemoryError_, LookupError):
    """No change of this turn is left in the store (unknown turn id, or only hits)."""

    def __init__(self, turn_id: str) -> None:
        self.turn_id = turn_id
        super().__init__(f"turn {turn_id!r} left no change to undo")


@dataclass
class UndoResult:
    """``turn_id``: the undo's own turn (undo it to redo); ``undone``: the turn taken back;
    ``changes``: what the undo changed, one record per memory."""

    turn_id: str
    undone: str
    changes: list[MemoryChange] = field(default_factory=list)

    @property
    def ids(self) -> list[str]:
        return [mid for change in self.changes for mid in change.ids]


def new_undo_turn(turn_id: str) -> Turn:
    return Turn(f"{UNDO_PREFIX}{uuid.uuid4().hex[:12]}", excerpt=f"撤销 {turn_id} 的记忆变化")


@dataclass
class _Step:
    kind: str  # "trash" | "restore" | "revert" | "lock"
    memory_id: str
    description: str = ""
    theme: str = ""
    locked: bool = False


def in_turn(found: Any, turn_id: str) -> bool:
    """Whether a change recorded with turn id ``found`` belongs to ``turn_id`` (itself, or a turn of
    its group: see the module docstring)."""
    if not isinstance(found, str):
        return False
    return found == turn_id or (turn_id.startswith(GROUP_PREFIXES) and found.startswith(turn_id + "-"))


def _of(entry: Any, turn_id: str) -> bool:
    return isinstance(entry, dict) and in_turn(entry.get("turn_id"), turn_id)


def _live_steps(mid: str, item: MemoryItem, turn_id: str, actor: str, conflicts: dict[str, str]) -> list[_Step]:
    own = item.own_history()
    revived = [e for e in own if e.get("action") == "restore" and in_turn(e.get("deleted_turn"), turn_id)]
    if revived:  # the turn deleted it, and a later change brought it back
        conflicts[mid] = f"restored later by {revived[-1].get('actor', '?')} at {revived[-1].get('time', '?')}"
        return []
    marks = [i for i, entry in enumerate(own) if _of(entry, turn_id)]
    if not marks:
        return []
    mine = [own[i] for i in marks]
    content = [e for e in mine if e.get("action") not in FLAG_ACTIONS]
    # A later change of the same kind (text/theme, or the lock flag) would be thrown away: refuse.
    flag_kind = not content
    after = [e for e in own[marks[-1] + 1:] if (e.get("action") in FLAG_ACTIONS) == flag_kind]
    if after:
        who = after[-1].get("actor", "?")
        conflicts[mid] = f"changed later by {who} at {after[-1].get('time', '?')}"
        return []
    if item.locked and actor not in PERSON_ACTORS:
        conflicts[mid] = "locked by the user"
        return []
    if content and content[0].get("action") in ("create", "restore"):
        return [_Step("trash", mid)]  # it did not exist (outside the trash) before the turn
    steps = []
    if content:
        first = content[0]
        before = (first.get("old_description", item.description), first.get("old_theme", item.theme))
        if before != (item.description, item.theme):
            steps.append(_Step("revert", mid, str(before[0]), str(before[1])))
    flags = [e for e in mine if e.get("action") in FLAG_ACTIONS]
    if flags:
        was_locked = flags[0]["action"] == "unlock"  # the flag before the turn's first lock/unlock
        if was_locked != item.locked:
            if actor not in PERSON_ACTORS:
                conflicts[mid] = "only the user may lock or unlock a memory"
                return []
            steps.append(_Step("lock", mid, locked=was_locked))
    return steps


def _trash_steps(mid: str, entry: dict[str, Any], turn_id: str, live: bool, conflicts: dict[str, str]) -> list[_Step]:
    item = MemoryItem.from_dict(entry.get("item") or {})
    own = item.own_history()
    touched = any(_of(e, turn_id) for e in own)
    if not in_turn(entry.get("turn_id"), turn_id):
        if touched:
            conflicts[mid] = f"deleted later by {entry.get('actor', '?')} at {entry.get('deleted_at', '?')}"
        return []
    if live:
        conflicts[mid] = "a memory with this id exists again"  # (cannot happen: restore empties the trash entry)
        return []
    created = next((e for e in own if _of(e, turn_id)), None)
    if created is not None and created.get("action") == "create":
        return []  # created and deleted by the same turn: it did not exist before either
    return [_Step("restore", mid)]


def plan_undo(txn: Transaction, turn_id: str, actor: str, ids: Iterable[str] | None = None) -> tuple[
        list[_Step], dict[str, str]]:
    """The steps that take ``turn_id`` back, and the conflicts that forbid it. ``ids``: look only at
    these memories (a caller that knows what the turn touched); default: the whole store and trash."""
    conflicts: dict[str, str] = {}
    steps: list[_Step] = []
    wanted = list(dict.fromkeys(ids)) if ids is not None else None
    live_ids = wanted if wanted is not None else list(txn.ids())
    live: set[str] = set()
    for mid in live_ids:
        item = txn.get(mid)
        if item is None:
            continue
        live.add(mid)
        steps += _live_steps(mid, item, turn_id, actor, conflicts)
    trash_ids = wanted if wanted is not None else list(txn.trash_ids())
    for mid in trash_ids:
        entry = txn.trash_get(mid)
        if entry is not None:
            steps += _trash_steps(mid, entry, turn_id, mid in live or txn.exists(mid), conflicts)
    return steps, conflicts


class TurnUndo:
    """``undo_turn`` (a part of ``BaseMemoryManager``) over the store's unit of work
    (``transaction()``) and change channel (``publish(change)``)."""

    def __init__(self, transaction: Callable[[], AbstractContextManager[Transaction]],
                 publish: Callable[[MemoryChange], Any]) -> None:
        self._transaction = transaction
        self._publish = publish

    _change = staticmethod(record_change)

    def undo_turn(self, turn_id: str, *, actor: str = "user", reason: str = "", turn: Turn | None = None,
                  ids: Iterable[str] | None = None, unhit: Mapping[str, int] | None = None) -> UndoResult:
        """Take back every change of ``turn_id`` as one action (module docstring). ``turn``: the
        undo's own turn (default: a fresh ``undo-…`` one). ``ids``: only these memories (default: all).
        ``unhit``: memory id -> how many references the turn counted, to take back too (the writer
        knows them for a failed attempt; the store does not keep them). Raises :class:`UndoConflict`
        (nothing changed) or :class:`NothingToUndo`."""
        actor = check_actor(actor)
        if not isinstance(turn_id, str) or not turn_id.strip():
            raise ValueError("turn_id must be a non-empty string")
        turn = turn or new_undo_turn(turn_id)
        why = check_reason(reason) or f"撤销轮次 {turn_id} 的改动"
        provenance = turn.history_fields()
        changes: list[MemoryChange] = []
        with self._transaction() as txn:
            steps, conflicts = plan_undo(txn, turn_id, actor, ids)
            if conflicts:
                raise UndoConflict(turn_id, conflicts)
            hits = {mid: n for mid, n in (unhit or {}).items() if n > 0 and txn.exists(mid)}
            if not steps and not hits:
                raise NothingToUndo(turn_id)
            for step in steps:
                mid = step.memory_id
                if step.kind == "trash":
                    item = txn.get(mid)
                    txn.trash_put(mid, {"item": item.to_dict(), "deleted_at": now_iso(), "reason": why,
                                        "actor": actor, **provenance})
                    txn.remove(mid)
                    change = self._change(txn, "delete", (mid,), actor, why, turn,
                                          {mid: None}, description=item.description, theme=item.theme,
                                          undo_of=turn_id)
                elif step.kind == "restore":
                    item = MemoryItem.from_dict(txn.trash_get(mid)["item"])
                    item.update(why, actor=actor, action="restore", provenance={**provenance, "deleted_turn": turn_id})
                    txn.put(mid, item)
                    txn.trash_remove(mid)
                    change = self._change(txn, "restore", (mid,), actor, why, turn,
                                          {mid: card_state(item)}, undo_of=turn_id)
                elif step.kind == "revert":
                    item = txn.get(mid)
                    item.update(why, step.description, step.theme, actor=actor, action="revert",
                                provenance=provenance)
                    txn.put(mid, item)
                    change = self._change(txn, "revert", (mid,), actor, why, turn,
                                          {mid: card_state(item)}, undo_of=turn_id)
                else:
                    item = txn.get(mid)
                    item.set_locked(step.locked, actor=actor, reason=why, provenance=provenance)
                    txn.put(mid, item)
                    change = self._change(txn, "lock", (mid,), actor, why, turn,
                                          {mid: card_state(item)}, locked=step.locked, undo_of=turn_id)
                changes.append(change)
            for mid, n in hits.items():
                item = txn.get(mid)
                item.hit = max(0, clamp_hit(item.hit) - n)
                txn.put(mid, item)
                changes.append(self._change(txn, "hit", (mid,), actor, why, turn,
                                            {mid: card_state(item)}, hit=item.hit, undo_of=turn_id))
        for change in changes:
            self._publish(change)
        return UndoResult(turn.turn_id, turn_id, changes)
