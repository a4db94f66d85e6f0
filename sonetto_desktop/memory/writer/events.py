"""What the background writer's pipeline reports: its state, never the memory changes themselves
(those travel on the store's change channel, with the turn id)."""

from __future__ import annotations

from dataclasses import dataclass

#: queued: a turn was journaled and queued; started: an attempt began; done: the turn was written;
#: failed: an attempt failed (will retry); gave_up: moved to the failed list; status: the status
#: sentence changed (``detail``); tidied: a memory hygiene pass changed or flagged something
#: (``turn_id``: the pass's own turn, undoable as one; ``detail``: its summary); locked: a turn wanted
#: to change a memory the person locked and was refused (``memory_id``; ``detail``: its text), once per
#: turn and memory.
WRITER_EVENT_KINDS = ("queued", "started", "done", "failed", "gave_up", "status", "tidied", "locked")


@dataclass(frozen=True)
class WriterEvent:
    kind: str
    turn_id: str | None = None
    session_id: str | None = None
    detail: str = ""
    attempt: int = 0  # failed: which attempt of the turn failed (1, 2, …); the text is the UI's
    memory_id: str | None = None  # locked: the memory
    #: failed: why, in Chinese and in English (``detail`` is the one in the UI's language of the moment)
    zh: str = ""
    en: str = ""
