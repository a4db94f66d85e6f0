"""Going back before a turn, to answer it again (regenerate) or to replace it (edit and resend). No Qt.

The display transcript drops the turn and everything after it; the model's history forks from the
last checkpoint of the turn before it (LangGraph keeps every checkpoint; the next run continues
from the fork, and the thread's latest checkpoint is then the fork's). That checkpoint may be a
failed turn's, left with a pending step (a failure with nothing streamed writes no closing one):
its message is kept for the model, as it is for the next message after a failure (the engine's
contract: the person's message survives every failure), and a new input discards the pending step.
Only the current branch is followed (parent by parent): turns an earlier rewind replaced are not
taken. A turn that was the first of its session leaves no checkpoint to fork from: the session's
checkpoints are cleared instead.

What cannot be taken back: the replaced turn was already handed to the memory writer when it
finished; memories it wrote stay (the person can undo them on the wall).
"""

from __future__ import annotations

from typing import Any


class TurnNotFound(LookupError):
    """No such turn in this session's transcript."""


async def checkpoint_before(graph: Any, thread_config: dict, turn_id: str) -> dict | None:
    """Configurable of the last checkpoint before turn ``turn_id`` started, on the thread's current
    branch (finished, or a failed turn's last, with a pending step); None when the turn was the first
    (or its checkpoints are gone)."""
    seen = False
    expected: str | None = None  # the parent of the last snapshot on the branch (None: the newest, its head)
    async for snapshot in graph.aget_state_history(thread_config):
        configurable = snapshot.config["configurable"]
        if expected is not None and configurable.get("checkpoint_id") != expected:
            continue  # another branch (a turn an earlier rewind replaced)
        expected = ((snapshot.parent_config or {}).get("configurable") or {}).get("checkpoint_id")
        if snapshot.values.get("turn_id") == turn_id:
            seen = True
        elif seen and (snapshot.metadata or {}).get("source") != "input":  # (not the turn's own input step)
            return dict(configurable)
        if expected is None:
            return None
    return None


async def rewind(graph: Any, saver: Any, store: Any, session_id: str, turn_id: str) -> dict:
    """Drop turn ``turn_id`` and what followed; returns the configurable to run the new turn with."""
    thread = {"configurable": {"thread_id": session_id}}
    entries = await store.transcript(session_id)
    if not turn_id or not any(entry.get("turn_id") == turn_id for entry in entries):
        raise TurnNotFound(turn_id)
    fork = await checkpoint_before(graph, thread, turn_id)
    await store.truncate_from_turn(session_id, turn_id)
    if fork is None:
        await saver.adelete_thread(session_id)
        return {"thread_id": session_id}
    return fork
