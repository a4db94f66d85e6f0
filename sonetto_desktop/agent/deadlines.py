"""Default deadlines of a streamed reply (seconds; settings ``first_token_timeout`` and
``stream_idle_timeout``). Enforced by ``stall_guard.StallGuard``; kept apart so the chat engine
reads them without importing LangChain (which ``stall_guard`` needs).

``deadline_left`` is how the HTTP side learns what is left of a reply's running deadline: a turn's
``StallGuard.watch`` sets it (for the turn's task and what it starts), and the model's HTTP client
(``llm.build_llm``) reads it to not wait out a Retry-After the deadline would cut short."""

from __future__ import annotations

from contextvars import ContextVar
from typing import Callable

DEFAULT_FIRST_TOKEN_TIMEOUT = 30.0
DEFAULT_IDLE_TIMEOUT = 30.0

#: Seconds left of the deadline of the reply being streamed here, or None when none is running.
deadline_left: ContextVar[Callable[[], float | None] | None] = ContextVar("sonetto_deadline_left", default=None)


def seconds_left() -> float | None:
    """What is left of the running reply deadline in this context (None: no deadline runs)."""
    left = deadline_left.get()
    return left() if left is not None else None
