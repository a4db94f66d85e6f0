""""别记住这个" on a chat message (issue 12, capability 3): take back what its turn wrote, keep the
writer from writing it (if it has not yet), and add the message to the don't-remember list so that
neither this turn nor a later one stores it again. And the same without the list for turns an
edit-and-resend replaced (``withdraw_turns``): what they wrote no longer stands. No Qt.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..aio import run_blocking
from .dont_remember import DontRemember, DontRememberList
from . import kinds
from .operations import MemoryOperations
from .reasons import reason_text
from .undo import NothingToUndo, Touched, UndoConflict, UndoResult, new_undo_turn

REASON = reason_text("chat.dont_remember")
WITHDRAW_REASON = reason_text("chat.edit_replaced")
STOPPED_REASON = reason_text("chat.stopped")  # a turn its chat did not keep (``LongTermMemory.take_back``)
WITHDRAW_WAIT = 15.0  # seconds to let a turn the writer is writing finish before taking it back


@dataclass
class ForgetResult:
    """``entry``: the don't-remember entry added (None without text); ``writer``: what the writer did
    with the turn (``MemoryWriter.forget_turn``: dropped / written / writing / elsewhere / unknown, or
    ``"none"`` without a writer); ``undo``: the undo of what the turn had written (None if nothing);
    ``conflicts``: memories a later change touched, so nothing of the turn was undone (id -> why;
    ``touched``: the same memories with their text, for a person); ``withdrawn``: its changes that
    waited in the review inbox, withdrawn with it (``MemoryOperations.undo_turn``)."""

    entry: DontRemember | None
    writer: str
    undo: UndoResult | None = None
    conflicts: dict[str, str] = field(default_factory=dict)
    touched: list[Touched] = field(default_factory=list)
    withdrawn: list[Any] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return not self.conflicts and self.writer not in ("writing", "elsewhere")


async def forget_turn(memory: MemoryOperations, writer: Any, dont_remember: DontRememberList | None,
                      turn_id: str, text: str = "") -> ForgetResult:
    """See the module docstring. ``text``: the user's message (its gist goes on the list)."""
    entry = None
    if text.strip() and dont_remember is not None:
        entry = await run_blocking(dont_remember.add, text, turn_id=turn_id)
    state = await writer.forget_turn(turn_id) if writer is not None else "none"
    result = ForgetResult(entry, state)
    try:
        result.undo = await run_blocking(lambda: memory.undo_turn(turn_id, reason=REASON))
        result.withdrawn = result.undo.withdrawn
    except NothingToUndo as exc:  # in review mode its changes may only have waited in the inbox
        result.withdrawn = exc.withdrawn
    except UndoConflict as exc:
        result.conflicts, result.touched = exc.conflicts, exc.touched
    return result


@dataclass
class WithdrawResult:
    """What became of the changes of turns an edit replaced. ``undo_turn``: the one action that took
    them back (undo it to bring them back), None when there was nothing to take back; ``changes``:
    how many memories it changed; ``conflicts``: memories a later change touched (id -> why;
    ``touched``: the same with their text), left as they are; ``writing``: turns still being written
    after the wait (their changes come later)."""

    undo_turn: str | None = None
    changes: int = 0
    conflicts: dict[str, str] = field(default_factory=dict)
    touched: list[Touched] = field(default_factory=list)
    writing: list[str] = field(default_factory=list)


async def withdraw_turns(memory: MemoryOperations, writer: Any, turn_ids: list[str], *,
                         reason: str = WITHDRAW_REASON, wait: float = WITHDRAW_WAIT) -> WithdrawResult:
    """Take back what ``turn_ids`` wrote (an edit-and-resend replaced them), newest first, as one
    undoable action; the writer drops those still waiting. The don't-remember list is not touched:
    the person did not say the words should not be remembered, only that they changed them."""
    result = WithdrawResult()
    ids = [turn_id for turn_id in dict.fromkeys(turn_ids) if turn_id]
    if not ids:
        return result
    undo = new_undo_turn(ids[0])
    acting = memory.as_actor(memory.actor, undo)
    for turn_id in reversed(ids):
        state = await writer.forget_turn(turn_id, wait=wait) if writer is not None else "none"
        if state in ("writing", "elsewhere"):
            result.writing.append(turn_id)
        try:
            done = await run_blocking(lambda turn_id=turn_id: acting.undo_turn(turn_id, reason=reason))
        except NothingToUndo:
            continue
        except UndoConflict as exc:
            result.conflicts.update(exc.conflicts)
            result.touched += exc.touched
            continue
        result.undo_turn = undo.turn_id
        result.changes += len([c for c in done.changes if kinds.changes(c.kind)])
    return result
