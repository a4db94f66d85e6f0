""""别记住这个" on a chat message (issue 12, capability 3): take back what its turn wrote, keep the
writer from writing it (if it has not yet), and add the message to the don't-remember list so that
neither this turn nor a later one stores it again. No Qt.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..aio import run_blocking
from .dont_remember import DontRemember, DontRememberList
from .operations import MemoryOperations
from .undo import NothingToUndo, UndoConflict, UndoResult

REASON = "用户说：别记住这个"


@dataclass
class ForgetResult:
    """``entry``: the don't-remember entry added (None without text); ``writer``: what the writer did
    with the turn (``MemoryWriter.forget_turn``: dropped / written / writing / elsewhere / unknown, or
    ``"none"`` without a writer); ``undo``: the undo of what the turn had written (None if nothing);
    ``conflicts``: memories a later change touched, so nothing of the turn was undone (id -> why)."""

    entry: DontRemember | None
    writer: str
    undo: UndoResult | None = None
    conflicts: dict[str, str] = field(default_factory=dict)

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
    except NothingToUndo:
        pass
    except UndoConflict as exc:
        result.conflicts = exc.conflicts
    return result
