"""Going back before a turn, to answer it again (regenerate) or to replace it (edit and resend). No Qt.

The display transcript drops the turn and everything after it; the model's history forks from the
last finished checkpoint before the turn (LangGraph keeps every checkpoint; the next run continues
from the fork, and the thread's latest checkpoint is then the fork's). A turn that was the first of
its session leaves no checkpoint to fork from: the session's checkpoints are cleared instead.

What cannot be taken back: the replaced turn was already handed to the memory writer when it
finished; memories it wrote stay (the person can undo them on the wall).
"""

from __future__ import annotations

from typing import Any


class TurnNotFound(LookupError):
    """No such turn in this session's transcript."""


async def checkpoint_before(graph: Any, thread_config: dict, turn_id: str) -> dict | None:
    """Configurable of the last finished checkpoint before turn ``turn_id`` started; None when the
    turn was the first (or its checkpoints are gone)."""
    seen = False
    async for snapshot in graph.aget_state_history(thread_config):
        if snapshot.values.get("turn_id") == turn_id:
            seen = True
            continue
        if not seen:
            continue
        source = (snapshot.metadata or {}).get("source")
        if source != "input" and not snapshot.next:  # a finished state, not a run's pending input
            return dict(snapshot.config["configurable"])
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
