"""Changes to many memories as one action: move, delete, lock, rename or merge themes, and "forget
everything Sonetto wrote since …". Each action gets a turn id of its own (``bulk-…``), shared by all
its changes, so the change channel shows it as one unit and ``undo_turn`` takes it back as one.

A memory that cannot take part (gone meanwhile, locked against this actor) is skipped and reported;
the rest of the action goes on. Blocking: front ends call it from a worker thread.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Callable, Iterable

from .changes import MemoryChange, Turn
from . import kinds
from .errors import MemoryLocked, MemoryNotFound
from .item import parse_time

if TYPE_CHECKING:
    from .operations import MemoryOperations


@dataclass
class BulkResult:
    """``turn_id``: the action's id (``undo_turn(turn_id)`` takes it back); ``changes`` made;
    ``skipped``: memory id -> why it was left alone."""

    turn_id: str
    changes: list[MemoryChange] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)

    @property
    def ids(self) -> list[str]:
        return [mid for change in self.changes for mid in change.ids[:1]]


def new_action_turn(what: str) -> Turn:
    return Turn(f"bulk-{uuid.uuid4().hex[:12]}", excerpt=what)


#: Steps of one action committed together: one write of the store's files per this many memories, not one
#: per memory (the YAML store's log is made durable at each commit: 2,100 memories deleted one commit each
#: took 3.7 s of a quiet machine at 5,000 memories, most of it waiting for the disk).
STEPS_PER_COMMIT = 256


def run_bulk(ops: MemoryOperations, ids: Iterable[str], what: str,
             step: Callable[[MemoryOperations, str], MemoryChange | None]) -> BulkResult:
    """Apply ``step`` to each memory of ``ids`` as one action (see the module docstring). The steps are
    committed ``STEPS_PER_COMMIT`` at a time, each group whole or not at all; a step reads what is
    committed, so each memory's step must not depend on another's (each memory is named once)."""
    turn = new_action_turn(what)
    acting = ops.as_actor(ops.actor, turn)
    result = BulkResult(turn.turn_id)
    unique = list(dict.fromkeys(ids))
    for start in range(0, len(unique), STEPS_PER_COMMIT):
        with ops.store.group():
            for memory_id in unique[start:start + STEPS_PER_COMMIT]:
                try:
                    change = step(acting, memory_id)
                except MemoryNotFound:
                    result.skipped[memory_id] = "not found"
                    continue
                except MemoryLocked:
                    result.skipped[memory_id] = "locked"
                    continue
                if change is not None:
                    result.changes.append(change)
    return result


def ids_in_theme(ops: MemoryOperations, theme: str) -> list[str]:
    return [card["id"] for card in ops.grouped().get(theme, [])]


def _local(when: datetime | None) -> datetime | None:
    """A stored time as the local wall-clock time ``since`` is in (a time written with its offset, by
    hand or another program, is converted rather than compared with a naive one, which raises)."""
    if when is None or when.tzinfo is None:
        return when
    try:
        return when.astimezone().replace(tzinfo=None)
    except (OverflowError, ValueError):  # at the calendar's edge (0001-01-01T00:00+01:00): as written
        return when.replace(tzinfo=None)


def ids_written_by(ops: MemoryOperations, actor: str, since: datetime) -> list[str]:
    """Memories whose creation was by ``actor`` at or after ``since`` (e.g. "what Sonetto wrote today").
    A memory is last updated no earlier than it was created, so only those updated since ``since``
    (one column of the store) are read whole and checked: at 100,000 memories "today" reads a few
    memories, not every one with its history."""
    since = _local(since)
    ids, (stamps,) = ops.store.columns_of_all(("latest_update_time",))
    recent = [mid for mid, stamp in zip(ids, stamps, strict=True)
              if (when := _local(parse_time(stamp))) is None or when >= since]
    found = []
    for memory_id, item in ops.store.items_of(recent).items():
        if item is None:  # gone since
            continue
        created = next((e for e in item.own_history() if e.get("action") == kinds.CREATE), None)
        when = _local(parse_time(created.get("time"))) if created else None
        if created and created.get("actor") == actor and when is not None and when >= since:
            found.append(memory_id)
    return found
