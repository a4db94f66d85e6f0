"""Undo a whole turn: every change one chat turn (or one multi-change action) made, taken back as
one action (``TurnUndo``, a part of ``BaseMemoryManager``, which offers it as ``undo_turn``).

What a turn did is read from the store itself — the history entries and trash entries carrying its
turn id — so an undo works after a restart and for another process's turn. Every memory the turn
touched goes back to its state *before the turn's first change to it*, whatever the turn did to it
afterwards (updated then deleted: its first text comes back; created then updated: it goes; updated
then merged: both come back as they were):

- where it was: nowhere (the turn **created** it: it goes to the trash), on the wall (it comes back
  from the trash if the turn deleted it or merged it into another), or in the trash (the turn
  **restored** it: it goes back there);
- its text and theme: those before the turn's first change (the ``old_*`` of its first entry of the
  turn), recorded as a ``revert`` (or carried by the ``restore`` that brings it back);
- its lock: as before the turn's first lock or unlock (only the person may: see ``set_locked``);
  its pin likewise, as before the turn's first pin or unpin (``set_field``).

Hit counts are counters, not content, and the store does not keep which turn counted them: they
are taken back only when the caller says how many (``unhit``: the writer does, for a failed attempt,
from its change records). The undo runs in one transaction and carries a turn id of its own
(``undo-…``), so it is itself undoable as one: its entries are read the same way (a ``restore``
whose deletion was not its own says the memory was in the trash before it).

A memory a later change touched (edited, moved, merged, reverted, locked after it, deleted after it,
restored after the turn deleted it, locked against the actor) is the person's (or another app's)
now: taking the turn back would silently throw that later change away. By default the undo is then
refused — nothing changed, :class:`UndoConflict` naming each such memory (:class:`Touched`: which
card, why, who and when) and how much could still be undone. With ``keep_touched`` the rest is
undone and the touched memories are kept as they are (``UndoResult.kept``), together with what the
turn merged into a kept memory (restoring it beside the merged text would say the same thing twice).
A refusal says what such an undo would still do (``UndoConflict.preview``). (A restore records
which turn's deletion it took back: ``deleted_turn`` in its history entry.)

Some actions are written as several turns that are undone together: an imported history's batches
(``imp-<id>-<seq>``, ``history_import``) are all taken back by undoing ``imp-<id>`` (``in_turn``).
Within the group, one batch changing what an earlier one wrote is the group's own doing, not a
conflict; a single batch id still means that batch alone. A :class:`TurnSet` names some turns to be
undone together the same way (one conversation's batches of an import): a change of another turn
after them is a later change, as for any turn.
"""

from __future__ import annotations

import os
import uuid
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping

from . import kinds
from .changes import PERSON_ACTORS, MemoryChange, Turn, check_actor
from .record import card_state
from .stores.crud import record_change
from .errors import MemoryError_
from .item import MemoryItem, check_reason, clamp_hit, now_iso

if TYPE_CHECKING:
    from .stores.transaction import Transaction

UNDO_PREFIX = "undo-"
#: Turn ids that name a group: ``<id>`` undoes every turn ``<id>-…`` as well.
GROUP_PREFIXES = ("imp-",)

#: Why a memory of the turn is kept as it is (``Touched.why``), in words for logs and the command line
#: (front ends word them from the code: ``presentation/undo_words.py``).
WHY = {
    "edited": "edited later",
    "moved": "moved to another theme later",
    "merged": "another memory was merged into it later",
    "reverted": "an older version was brought back later",
    "restored": "restored later",
    "deleted": "deleted later",
    "merged_away": "merged into another memory later",
    "locked": "locked by the user",
    "lock_changed": "locked or unlocked later",
    "lock_only_user": "only the user may lock or unlock a memory",
    "pin_changed": "pinned or unpinned later",
    "pin_only_user": "only the user may pin or unpin a memory",
    "with": "the turn merged it into a memory that is kept",
    "exists": "a memory with this id exists again",
}

#: What an undo does to a memory (``UndoPreview.effects``): back to the trash (the turn created or
#: restored it), back from the trash (the turn deleted or merged it away), its text and theme back,
#: its lock back.
EFFECTS = ("trashed", "restored", "reverted", "lock", "pinned")

_LIVE, _TRASH, _ABSENT = "live", "trash", "absent"


@dataclass(frozen=True)
class Touched:
    """A memory of the turn that a later change touched, so an undo keeps it as it is. ``why``: a key
    of :data:`WHY`; ``description`` / ``theme``: the card as it is now (on the wall or in the trash);
    ``actor`` / ``time``: who made the later change and when (empty when not known); ``other``: for
    ``with``, the text of the kept memory the turn merged it into."""

    memory_id: str
    why: str
    description: str = ""
    theme: str = ""
    actor: str = ""
    time: str = ""
    other: str = ""

    @property
    def message(self) -> str:
        text = WHY.get(self.why, self.why)
        if self.actor:
            text += f" by {self.actor}"
        if self.time:
            text += f" at {self.time}"
        if self.other:
            text += f" ({self.other})"
        return text

    def to_json(self) -> dict[str, str]:
        return {"id": self.memory_id, "why": self.why, "description": self.description, "theme": self.theme,
                "actor": self.actor, "time": self.time, "other": self.other, "message": self.message}


@dataclass
class UndoPreview:
    """What undoing ``turn_id`` would do, changing nothing: ``kept``, the memories a later change
    touched (an undo keeps them, or is refused); ``effects``, for the rest, how many memories go back
    to the trash, come back from it, get their text back or their lock (keys of :data:`EFFECTS`)."""

    turn_id: str
    kept: list[Touched] = field(default_factory=list)
    effects: dict[str, int] = field(default_factory=dict)

    @property
    def rest(self) -> int:
        """How many memories an undo that keeps the touched ones would change."""
        return sum(self.effects.values())

    def to_json(self) -> dict[str, Any]:
        return {"turn_id": self.turn_id, "rest": self.rest, "effects": dict(self.effects),
                "kept": [t.to_json() for t in self.kept]}


class UndoConflict(MemoryError_):
    """A later change touched memories of the turn: nothing was undone. ``touched``: those memories
    (:class:`Touched`); ``conflicts``: id -> why, in words; ``preview``: what an undo that keeps the
    touched ones (``keep_touched``) would still do (``rest``: to how many memories)."""

    def __init__(self, turn_id: str, touched: Iterable[Touched], preview: UndoPreview | None = None) -> None:
        self.turn_id = turn_id
        self.touched = list(touched)
        self.preview = preview if preview is not None else UndoPreview(turn_id, self.touched)
        self.conflicts = {t.memory_id: t.message for t in self.touched}
        listed = "; ".join(f"{mid}: {why}" for mid, why in self.conflicts.items())
        super().__init__(f"cannot undo turn {turn_id!r}: later changes touched memories {sorted(self.conflicts)}"
                         f" ({listed}); nothing was changed")

    @property
    def rest(self) -> int:
        return self.preview.rest


class NothingToUndo(MemoryError_, LookupError):
    """No change of this turn is left in the store (unknown turn id, or only hits). ``withdrawn``:
    its changes that waited in the review inbox, withdrawn all the same (``MemoryOperations.undo_turn``)."""

    def __init__(self, turn_id: str) -> None:
        self.turn_id = turn_id
        self.withdrawn: list[Any] = []
        super().__init__(f"turn {turn_id!r} left no change to undo")


@dataclass
class UndoResult:
    """``turn_id``: the undo's own turn (undo it to redo); ``undone``: the turn taken back;
    ``changes``: what the undo changed (one record per write); ``kept``: the memories a later change
    touched, left as they are (``keep_touched``); ``effects``: how many memories went back to the
    trash, came back from it, got their text or their lock back (keys of :data:`EFFECTS`);
    ``withdrawn``: the turn's changes that waited in the review inbox, withdrawn with it;
    ``returned``: those an earlier undo withdrew, waiting again (this undo took that undo back).
    (The last two: ``review.Proposal``; filled by ``MemoryOperations.undo_turn``.)"""

    turn_id: str
    undone: str
    changes: list[MemoryChange] = field(default_factory=list)
    kept: list[Touched] = field(default_factory=list)
    effects: dict[str, int] = field(default_factory=dict)
    withdrawn: list[Any] = field(default_factory=list)
    returned: list[Any] = field(default_factory=list)

    @property
    def ids(self) -> list[str]:
        return list(dict.fromkeys(mid for change in self.changes for mid in change.ids))


def new_undo_turn(turn_id: str) -> Turn:
    return Turn(f"{UNDO_PREFIX}{uuid.uuid4().hex[:12]}", excerpt=f"撤销 {turn_id} 的记忆变化")


@dataclass
class _Step:
    kind: str  # "trash" | "restore" | "revert" | "lock" | "pin"
    memory_id: str
    description: str = ""
    theme: str = ""
    locked: bool = False
    pinned: bool = False
    deleted_turn: str = ""  # restore: the deletion it takes back


class TurnSet(str):
    """Some turns taken back together as one (``undo_turn(TurnSet(name, turn_ids))``): its text is the
    name the undo records (``undo_of``), ``members`` the turn ids it covers."""

    members: frozenset[str]

    def __new__(cls, name: str, members: Iterable[str]) -> "TurnSet":
        made = super().__new__(cls, name)
        made.members = frozenset(members)
        return made


def turn_text(turn_id: str) -> str:
    """What every turn id of ``turn_id`` contains (itself; a :class:`TurnSet`'s members' common start),
    for a store to find the memories it touched (``Transaction.ids_mentioning``); "" when they share
    nothing (then every memory is looked at)."""
    members = getattr(turn_id, "members", None)
    if members is None:
        return str(turn_id)
    return os.path.commonprefix(sorted(members)) if members else ""


def turn_texts(turn_id: str) -> list[str]:
    """What the turn ids of ``turn_id`` contain, one text per family of them (``turn_text``; a
    :class:`TurnSet` of an import's batches and of undos of some of its conversations: the batches'
    common start and each undo's id), so that no family makes every memory be looked at."""
    members = getattr(turn_id, "members", None)
    if members is None:
        return [str(turn_id)]
    families: dict[str, list[str]] = {}
    for member in sorted(members):
        head, _, tail = member.rpartition("-")
        families.setdefault(head if head and tail.isdigit() else member, []).append(member)
    return [os.path.commonprefix(family) for family in families.values()]


def in_turn(found: Any, turn_id: str) -> bool:
    """Whether a change recorded with turn id ``found`` belongs to ``turn_id`` (itself, a turn of its
    group, or one of a :class:`TurnSet`'s: see the module docstring)."""
    if not isinstance(found, str):
        return False
    members = getattr(turn_id, "members", None)
    if members is not None:
        return found in members
    return found == turn_id or (turn_id.startswith(GROUP_PREFIXES) and found.startswith(turn_id + "-"))


def _of(entry: Any, turn_id: str) -> bool:
    return isinstance(entry, dict) and in_turn(entry.get("turn_id"), turn_id)


def _later_kind(entry: dict[str, Any]) -> str:
    """What a later change of the text or theme did, for :class:`Touched`."""
    action = entry.get("action")
    if action in (kinds.MERGE, kinds.REVERT, kinds.RESTORE):
        return {kinds.MERGE: "merged", kinds.REVERT: "reverted", kinds.RESTORE: "restored"}[action]
    same_text = entry.get("old_description") == entry.get("new_description")
    return "moved" if same_text and entry.get("old_theme") != entry.get("new_theme") else "edited"


def _later_change(own: list[dict[str, Any]], turn_id: str) -> tuple[str, dict[str, Any]] | None:
    """The latest change by someone else that an undo of ``turn_id`` would throw away: of the text
    or theme after the turn's last change of them, of the lock after its last lock or unlock, of the
    pin after its last pin or unpin, or a lock after it changed the text (the person keeps that card).
    None if there is none. (A change between two of the turn's own was overwritten by the turn
    itself: a writer's rollback of a failed attempt, before the attempt that stood.)"""
    marks = [i for i, e in enumerate(own) if _of(e, turn_id)]
    last_content = max((i for i in marks if not kinds.flag(own[i].get("action"))), default=None)
    last_lock = max((i for i in marks if own[i].get("action") in kinds.LOCKING), default=None)
    last_pin = max((i for i in marks if own[i].get("action") in kinds.PINNING), default=None)
    found = None
    for i, entry in enumerate(own):
        if _of(entry, turn_id):
            continue
        action = entry.get("action")
        if not kinds.flag(action) and last_content is not None and i > last_content:
            found = (_later_kind(entry), entry)
        elif action in kinds.LOCKING and last_lock is not None and i > last_lock:
            found = ("lock_changed", entry)
        elif action in kinds.PINNING and last_pin is not None and i > last_pin:
            found = ("pin_changed", entry)
        elif action == kinds.LOCK and last_content is not None and i > last_content:
            found = ("locked", entry)
    return found


@dataclass
class UndoPlan:
    """What undoing ``turn_id`` takes: ``steps`` per memory, their ``effects`` (a key of
    :data:`EFFECTS` each), the memories a later change ``touched``, and what the turn merged into
    which memory (``absorbed``: kept id -> absorbed ids), read in one transaction."""

    turn_id: str
    steps: dict[str, list[_Step]] = field(default_factory=dict)
    effects: dict[str, str] = field(default_factory=dict)
    touched: dict[str, Touched] = field(default_factory=dict)
    absorbed: dict[str, list[str]] = field(default_factory=dict)
    cards: dict[str, tuple[str, str]] = field(default_factory=dict)

    def kept(self) -> dict[str, Touched]:
        """The touched memories, and those the turn merged into one of them (through chains of merges):
        an undo that keeps the one keeps the others in the trash too."""
        kept = dict(self.touched)
        queue, seen = list(kept), set(kept)
        while queue:
            target = queue.pop()
            for mid in self.absorbed.get(target, ()):
                if mid in seen:
                    continue
                seen.add(mid)
                queue.append(mid)
                if self.steps.get(mid):
                    description, theme = self.cards.get(mid, ("", ""))
                    kept[mid] = Touched(mid, "with", description, theme, other=self.cards.get(target, ("", ""))[0])
        return kept

    def preview(self) -> UndoPreview:
        kept = self.kept()
        effects: dict[str, int] = {}
        for mid, effect in self.effects.items():
            if mid not in kept:
                effects[effect] = effects.get(effect, 0) + 1
        return UndoPreview(self.turn_id, list(kept.values()), {k: effects[k] for k in EFFECTS if k in effects})

    def _touch(self, mid: str, item: MemoryItem, why: str, by: dict[str, Any] | None = None, *,
               actor_key: str = "actor", time_key: str = "time") -> None:
        by = by or {}
        self.touched[mid] = Touched(mid, why, item.description, item.theme, str(by.get(actor_key) or ""),
                                    str(by.get(time_key) or ""))

    def add(self, mid: str, item: MemoryItem, entry: dict[str, Any] | None, actor: str) -> None:
        """Plan ``mid``: ``item`` on the wall (``entry`` None) or in the trash (``entry``, its trash entry)."""
        turn_id = self.turn_id
        ours = entry is not None and in_turn(entry.get("turn_id"), turn_id)
        if not ours and not any(_of(e, turn_id) or in_turn(e.get("deleted_turn"), turn_id)
                                for e in item.history if isinstance(e, dict) and "from" not in e):
            return  # the turn never touched it (most of a big store: one pass over its history)
        own = item.own_history()
        self.cards[mid] = (item.description, item.theme)
        for e in own:
            if e.get("action") == kinds.MERGE and _of(e, turn_id) and isinstance(e.get("merged_id"), str):
                self.absorbed.setdefault(mid, []).append(e["merged_id"])
        if ours and isinstance(entry.get("merged_into"), str):
            self.absorbed.setdefault(entry["merged_into"], []).append(mid)
        marked = any(_of(e, turn_id) for e in own)
        revived = [e for e in own if e.get("action") == kinds.RESTORE and in_turn(e.get("deleted_turn"), turn_id)
                   and not _of(e, turn_id)]
        if entry is not None and not ours:
            if marked or revived:  # deleted (or merged away) after the turn changed it
                self._touch(mid, item, "merged_away" if entry.get("merged_into") else "deleted", entry,
                            time_key="deleted_at")
            return
        if revived and entry is None:  # the turn deleted it, and a later change brought it back
            self._touch(mid, item, "restored", revived[-1])
            return
        if not marked and entry is None:
            return  # not the turn's
        later = _later_change(own, turn_id)
        if later is not None:
            self._touch(mid, item, *later)
            return
        if item.locked and actor not in PERSON_ACTORS:
            self._touch(mid, item, "locked")
            return
        self._plan_steps(mid, item, own, entry, actor)

    def _plan_steps(self, mid: str, item: MemoryItem, own: list[dict[str, Any]], entry: dict[str, Any] | None,
                    actor: str) -> None:
        turn_id = self.turn_id
        mine = [e for e in own if _of(e, turn_id)]
        content = [e for e in mine if not kinds.flag(e.get("action"))]
        flags = [e for e in mine if kinds.flag(e.get("action"))]
        now = (item.description, item.theme)
        before_at, before = _LIVE, now
        if content:
            first = content[0]
            action = first.get("action")
            if action == kinds.CREATE:
                before_at = _ABSENT
            elif action == kinds.RESTORE and not in_turn(first.get("deleted_turn"), turn_id):
                before_at = _TRASH  # the turn brought it back from an earlier deletion
            before = (str(first.get("old_description", first.get("new_description", item.description))),
                      str(first.get("old_theme", first.get("new_theme", item.theme))))
        locks = [e for e in flags if e.get("action") in kinds.LOCKING]
        pins = [e for e in flags if e.get("action") in kinds.PINNING]
        was_locked = locks[0].get("action") == kinds.UNLOCK if locks else item.locked
        was_pinned = pins[0].get("action") == kinds.UNPIN if pins else item.pinned
        flags_back = [_Step(kinds.LOCK, mid, locked=was_locked)] if was_locked != item.locked else []
        flags_back += [_Step(kinds.PIN, mid, pinned=was_pinned)] if was_pinned != item.pinned else []
        deleted_turn = str(entry.get("turn_id") or turn_id) if entry is not None else ""
        revert = [_Step(kinds.REVERT, mid, *before)] if before != now else []
        trash = [_Step("trash", mid)]
        restore = [_Step(kinds.RESTORE, mid, *before, deleted_turn=deleted_turn)]
        live = entry is None
        if before_at == _ABSENT:
            steps, effect = (trash, "trashed") if live else ([], "")
        elif before_at == _LIVE:
            steps = (revert if live else restore) + flags_back
            effect = ("reverted" if revert and live else "restored" if not live
                      else "pinned" if flags_back and flags_back[0].kind == kinds.PIN else "lock")
        elif live:  # in the trash before the turn: back there, as it was
            steps, effect = revert + flags_back + trash, "trashed"
        else:
            steps, effect = (restore + flags_back + trash, "reverted") if revert or flags_back else ([], "")
        # Only the person locks, and pins: another actor may not take their lock or pin back (a pin a
        # merge carried over is the merge's actor's own change, taken back with the merge).
        theirs = [s for s in flags_back if s.kind == kinds.LOCK or any(e.get("actor") in PERSON_ACTORS for e in pins)]
        if theirs and actor not in PERSON_ACTORS:
            self._touch(mid, item, "lock_only_user" if theirs[0].kind == kinds.LOCK else "pin_only_user")
            return
        if steps:
            self.steps[mid] = steps
            self.effects[mid] = effect


def plan_undo(txn: Transaction, turn_id: str, actor: str, ids: Iterable[str] | None = None) -> UndoPlan:
    """What taking ``turn_id`` back takes, and which memories a later change touched. ``ids``: look
    only at these memories (a caller that knows what the turn touched); default: the whole store and
    trash."""
    plan = UndoPlan(turn_id)
    wanted = list(dict.fromkeys(ids)) if ids is not None else None
    live: set[str] = set()
    if wanted is None:  # the memories its turn ids name (indexed by a table store), not every one
        wanted_live = list(dict.fromkeys(mid for text in turn_texts(turn_id) for mid in txn.ids_mentioning(text)))
    for mid in wanted if wanted is not None else wanted_live:
        item = txn.get(mid)
        if item is not None:
            live.add(mid)
            plan.add(mid, item, None, actor)
    for mid in wanted if wanted is not None else list(txn.trash_ids()):
        entry = txn.trash_get(mid)
        if entry is None:
            continue
        item = MemoryItem.from_dict(entry.get("item") or {})
        if mid in live or txn.exists(mid):  # (cannot happen: a restore empties the trash entry)
            if in_turn(entry.get("turn_id"), turn_id):
                plan.touched[mid] = Touched(mid, "exists", item.description, item.theme)
            continue
        plan.add(mid, item, entry, actor)
    return plan


class TurnUndo:
    """``undo_turn`` (a part of ``BaseMemoryManager``) over the store's unit of work
    (``transaction()``) and change channel (``publish(change)``)."""

    def __init__(self, transaction: Callable[[], AbstractContextManager[Transaction]],
                 publish: Callable[[MemoryChange], Any]) -> None:
        self._transaction = transaction
        self._publish = publish
        #: What every history entry an undo writes keeps besides the turn's fields (``crud.provenance``).
        self.stamp: dict[str, str] = {}

    _change = staticmethod(record_change)

    def preview_undo(self, turn_id: str, *, actor: str = "user", ids: Iterable[str] | None = None) -> UndoPreview:
        """What ``undo_turn(turn_id, keep_touched=True)`` would do now, changing nothing: the memories
        it would keep (a later change touched them) and what it would do to the rest — the numbers an
        undo then applies, for a question asked before it. (Empty: nothing to undo.)"""
        actor = check_actor(actor)
        if not isinstance(turn_id, str) or not turn_id.strip():
            raise ValueError("turn_id must be a non-empty string")
        with self._transaction() as txn:
            return plan_undo(txn, turn_id, actor, ids).preview()

    def undo_turn(self, turn_id: str, *, actor: str = "user", reason: str = "", turn: Turn | None = None,
                  ids: Iterable[str] | None = None, unhit: Mapping[str, int] | None = None,
                  keep_touched: bool = False) -> UndoResult:
        """Take back every change of ``turn_id`` as one action (module docstring). ``turn``: the
        undo's own turn (default: a fresh ``undo-…`` one). ``ids``: only these memories (default: all).
        ``unhit``: memory id -> how many references the turn counted, to take back too (the writer
        knows them for a failed attempt; the store does not keep them). ``keep_touched``: keep the
        memories a later change touched and undo the rest (``UndoResult.kept``), instead of refusing.
        Raises :class:`UndoConflict` (nothing changed: touched memories without ``keep_touched``, or
        nothing but touched ones) or :class:`NothingToUndo`."""
        actor = check_actor(actor)
        if not isinstance(turn_id, str) or not turn_id.strip():
            raise ValueError("turn_id must be a non-empty string")
        group, turn_id = turn_id, str(turn_id)  # (a TurnSet plans; what is recorded is plain text)
        turn = turn or new_undo_turn(turn_id)
        why = check_reason(reason) or f"撤销轮次 {turn_id} 的改动"
        provenance = {**turn.history_fields(), **self.stamp}
        changes: list[MemoryChange] = []
        with self._transaction() as txn:
            plan = plan_undo(txn, group, actor, ids)
            kept = plan.kept()
            rest = {mid: steps for mid, steps in plan.steps.items() if mid not in kept}
            if kept and not keep_touched:
                raise UndoConflict(turn_id, kept.values(), plan.preview())
            hits = {mid: n for mid, n in (unhit or {}).items() if n > 0 and mid not in kept and txn.exists(mid)}
            if not rest and not hits:
                if kept:
                    raise UndoConflict(turn_id, kept.values(), plan.preview())
                raise NothingToUndo(turn_id)
            for step in (step for steps in rest.values() for step in steps):
                changes.append(self._apply(txn, step, turn_id, actor, why, turn, provenance))
            for mid, n in hits.items():
                item = txn.get(mid)
                item.hit = max(0, clamp_hit(item.hit) - n)
                txn.put(mid, item)
                changes.append(self._change(txn, kinds.HIT, (mid,), actor, why, turn,
                                            {mid: card_state(item)}, hit=item.hit, undo_of=turn_id))
        for change in changes:
            self._publish(change)
        return UndoResult(turn.turn_id, turn_id, changes, list(kept.values()), plan.preview().effects)

    def _apply(self, txn: Transaction, step: _Step, turn_id: str, actor: str, why: str, turn: Turn,
               provenance: dict[str, str]) -> MemoryChange:
        mid = step.memory_id
        if step.kind == "trash":
            item = txn.get(mid)
            txn.trash_put(mid, {"item": item.to_dict(), "deleted_at": now_iso(), "reason": why,
                                "actor": actor, **provenance})
            txn.remove(mid)
            return self._change(txn, kinds.DELETE, (mid,), actor, why, turn, {mid: None},
                                description=item.description, theme=item.theme, undo_of=turn_id)
        if step.kind == kinds.RESTORE:  # with the text and theme it had before the turn
            item = MemoryItem.from_dict(txn.trash_get(mid)["item"])
            item.record_restore(why, step.description, step.theme, actor=actor,
                                provenance={**provenance, "deleted_turn": step.deleted_turn})
            txn.put(mid, item)
            txn.trash_remove(mid)
            return self._change(txn, kinds.RESTORE, (mid,), actor, why, turn, {mid: card_state(item)}, undo_of=turn_id)
        item = txn.get(mid)
        if step.kind == kinds.PIN:
            item.pinned = step.pinned
            item.note_flag(kinds.PIN if step.pinned else kinds.UNPIN, actor=actor, reason=why, provenance=provenance)
            txn.put(mid, item)
            return self._change(txn, kinds.SET, (mid,), actor, why, turn, {mid: card_state(item)},
                                field="pinned", value=step.pinned, undo_of=turn_id)
        if step.kind == kinds.REVERT:
            item.update(why, step.description, step.theme, actor=actor, action=kinds.REVERT, provenance=provenance)
            txn.put(mid, item)
            return self._change(txn, kinds.REVERT, (mid,), actor, why, turn, {mid: card_state(item)}, undo_of=turn_id)
        item.set_locked(step.locked, actor=actor, reason=why, provenance=provenance)
        txn.put(mid, item)
        return self._change(txn, kinds.LOCK, (mid,), actor, why, turn, {mid: card_state(item)},
                            locked=step.locked, undo_of=turn_id)
