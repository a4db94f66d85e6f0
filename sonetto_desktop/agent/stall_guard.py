"""Deadlines for a streamed reply: time to the first chunk, and time between chunks. No Qt.

The HTTP client's own timeout applies per request and per retry (60 s × 2 by default), which
leaves a person looking at a silent reply for two minutes when an endpoint hangs. A turn instead
runs under :meth:`StallGuard.watch`, and the guard (a LangChain callback handler, passed in the
run's config) keeps one deadline while the companion's model call runs:

- from the call's start until its first streamed chunk: ``first_token`` seconds (retries included);
- after each chunk: ``idle`` seconds until the next one.

Any chunk counts, also one without visible text (tool-call pieces, a reasoning model's thinking),
so a slow reply that keeps streaming is never cut off. Time spent outside the model call (memory
recall, tools) is not counted. When a deadline passes the turn ends with :class:`ReplyStalled`.

While it watches, what is left of the running deadline is published (``deadlines.deadline_left``):
the model's HTTP client does not sleep out a Retry-After longer than that (``llm.build_llm``), so a
rate limit reads as one instead of as a model that did not start replying.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any
from uuid import UUID

from langchain_core.callbacks import AsyncCallbackHandler

from .deadlines import DEFAULT_FIRST_TOKEN_TIMEOUT, DEFAULT_IDLE_TIMEOUT, deadline_left

__all__ = ["DEFAULT_FIRST_TOKEN_TIMEOUT", "DEFAULT_IDLE_TIMEOUT", "ReplyStalled", "StallGuard"]


class ReplyStalled(TimeoutError):
    """The model sent nothing for too long: ``phase`` is ``first_token`` or ``idle``."""

    def __init__(self, phase: str, seconds: float) -> None:
        self.phase = phase
        self.seconds = seconds
        what = "no first chunk" if phase == "first_token" else "no new chunk"
        super().__init__(f"{what} from the model within {seconds:g} s")


class StallGuard(AsyncCallbackHandler):
    """One per turn: ``async with guard.watch(): <stream the graph with callbacks=[guard]>``.

    Only model calls made by the graph node ``node`` are watched (memory recall may call a model
    too, under its own timeout)."""

    run_inline = True

    def __init__(self, first_token: float, idle: float, *, node: str = "agent") -> None:
        self.first_token = float(first_token)
        self.idle = float(idle)
        self.node = node
        self._calls: set[UUID] = set()
        self._timeout: asyncio.Timeout | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._phase = "first_token"

    @contextlib.asynccontextmanager
    async def watch(self) -> AsyncIterator[None]:
        self._loop = asyncio.get_running_loop()
        published = deadline_left.set(self.seconds_left)
        try:
            async with asyncio.timeout(None) as timeout:
                self._timeout = timeout
                yield
        except TimeoutError as exc:
            if self._timeout is not None and self._timeout.expired():
                phase = self._phase
                raise ReplyStalled(phase, self.first_token if phase == "first_token" else self.idle) from exc
            raise
        finally:
            deadline_left.reset(published)
            self._timeout = None
            self._calls.clear()

    def seconds_left(self) -> float | None:
        """Seconds until the running deadline passes; None while no watched model call runs (or
        when asked from another loop)."""
        timeout, loop = self._timeout, self._loop
        if timeout is None or loop is None or not self._calls or timeout.when() is None:
            return None
        try:
            if asyncio.get_running_loop() is not loop:
                return None
        except RuntimeError:
            return None
        return max(0.0, timeout.when() - loop.time())

    # ── deadlines ───────────────────────────────────────────────────────────────────────────

    def _set(self, seconds: float | None, phase: str = "") -> None:
        loop = self._loop
        if loop is None:
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is not loop:  # a callback from another thread's loop: hand it over
            loop.call_soon_threadsafe(self._set, seconds, phase)
            return
        timeout = self._timeout
        if timeout is None or timeout.expired():
            return
        if phase:
            self._phase = phase
        timeout.reschedule(None if seconds is None else loop.time() + seconds)

    # ── callbacks ───────────────────────────────────────────────────────────────────────────

    async def on_chat_model_start(
        self, serialized: dict[str, Any], messages: list, *, run_id: UUID, metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        if (metadata or {}).get("langgraph_node") != self.node:
            return
        self._calls.add(run_id)
        self._set(self.first_token, "first_token")

    async def on_llm_new_token(self, token: Any, *, run_id: UUID, **kwargs: Any) -> None:
        if run_id in self._calls:
            self._set(self.idle, "idle")

    async def on_llm_end(self, response: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self._finished(run_id)

    async def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        self._finished(run_id)

    def _finished(self, run_id: UUID) -> None:
        if run_id in self._calls:
            self._calls.discard(run_id)
            if not self._calls:
                self._set(None)
