"""LangChain callback that turns the writer's tool calls into ``MemoryEvent``s and counts the run.

Callbacks of sync tools arrive on worker threads; ``EventFeed.publish`` is thread-safe and the
counters are guarded by a lock. The UI hops to its own thread when it receives an event.
"""

from __future__ import annotations

import threading
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import ToolMessage

from ..events import EventFeed, MemoryEvent


class MemoryToolCallback(BaseCallbackHandler):
    """Publishes one event per finished tool call: its kind (create/update/delete/merge/hit/read)
    on success, ``tool_error`` (with the message the model received) on a handled failure."""

    def __init__(self, events: EventFeed[MemoryEvent] | None, session_id: str | None, turn_id: str | None) -> None:
        self._events = events
        self._session_id = session_id
        self._turn_id = turn_id
        self._lock = threading.Lock()
        self.tool_calls = 0
        self.tool_errors = 0
        self.published: list[MemoryEvent] = []

    def _publish(self, event: MemoryEvent) -> None:
        with self._lock:
            self.published.append(event)
        if self._events is not None:
            self._events.publish(event)

    def on_tool_end(self, output: Any, **kwargs: Any) -> None:
        with self._lock:
            self.tool_calls += 1
        if not isinstance(output, ToolMessage):
            return
        if output.status == "error" or not isinstance(output.artifact, dict):
            with self._lock:
                self.tool_errors += 1
            self._publish(
                MemoryEvent("tool_error", session_id=self._session_id, turn_id=self._turn_id,
                            detail=f"{output.name}: {output.content}")
            )
            return
        art = output.artifact
        self._publish(
            MemoryEvent(
                str(art.get("kind", output.name)),
                tuple(art.get("ids", ())),
                str(art.get("description", "")),
                str(art.get("reason", "")),
                self._session_id,
                self._turn_id,
            )
        )

    def on_tool_error(self, error: BaseException, **kwargs: Any) -> None:
        # Only unhandled errors get here (store failures); the run aborts and the turn is retried.
        with self._lock:
            self.tool_calls += 1
            self.tool_errors += 1
        self._publish(
            MemoryEvent("tool_error", session_id=self._session_id, turn_id=self._turn_id,
                        detail=f"{type(error).__name__}: {error}")
        )
