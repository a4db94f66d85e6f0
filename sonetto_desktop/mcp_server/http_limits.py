"""Limits of ``sonetto mcp --http`` against a client that opens connections and never finishes them.

uvicorn's h11 protocol times a connection only after a response (keep-alive) and checks its
concurrency limit only once a request's headers are in, so half-sent requests were held for ever:
1,100 of them locked legitimate clients out, and past the file limit every refused ``accept()``
logged a traceback (199 MB in 40 s). Here:

- a connection must complete a request's headers within ``HEADER_TIMEOUT`` seconds of opening (or
  of its previous response), else it is closed — trickling bytes does not extend it;
- at most ``MAX_CONNECTIONS`` are open; a new one beyond that closes the one that has waited longest
  for its headers (a legitimate client always gets in), or itself when every one is in a request;
- the soft limit of open files is raised to the hard one, and the connection cap kept well below it;
- an ``accept()`` failing for lack of resources is said in one line per minute, without a traceback.

``SONETTO_MCP_HEADER_TIMEOUT`` and ``SONETTO_MCP_MAX_CONNECTIONS`` override the two limits (tests).
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger(__name__)

HEADER_TIMEOUT = 10.0
MAX_CONNECTIONS = 64
KEEP_ALIVE = 5
ACCEPT_WARNING_EVERY = 60.0


def _env_number(name: str, default: float) -> float:
    try:
        value = float(os.environ.get(name, ""))
    except ValueError:
        return default
    return value if value > 0 else default


def header_timeout() -> float:
    return _env_number("SONETTO_MCP_HEADER_TIMEOUT", HEADER_TIMEOUT)


def max_connections(open_files: int | None = None) -> int:
    """The cap: ``MAX_CONNECTIONS`` (or the environment's), at most a quarter of the open-file limit."""
    cap = int(_env_number("SONETTO_MCP_MAX_CONNECTIONS", MAX_CONNECTIONS))
    if open_files:
        cap = min(cap, max(4, open_files // 4))
    return cap


def raise_open_files() -> int | None:
    """The soft open-file limit raised to the hard one (POSIX); returns the limit (None: unknown)."""
    try:
        import resource
    except ImportError:  # Windows
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            pass
    return None if soft == resource.RLIM_INFINITY else soft


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with the header timeout and the connection cap (module docstring)."""

    header_timeout = HEADER_TIMEOUT
    max_connections = MAX_CONNECTIONS

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._header_timer: asyncio.TimerHandle | None = None
        self._waiting_since = 0.0
        self._armed_for: Any = None
        super().connection_made(transport)
        if len(self.connections) > self.max_connections and not self._make_room():
            transport.close()
            return
        self._arm()

    def _make_room(self) -> bool:
        """Close the connection that has waited longest for its headers; False when none waits."""
        waiting = [c for c in self.connections
                   if c is not self and getattr(c, "_header_timer", None) is not None and not c.transport.is_closing()]
        if not waiting:
            return False
        oldest = min(waiting, key=lambda c: c._waiting_since)
        oldest.transport.close()
        return True

    def _arm(self) -> None:
        self._disarm()
        self._waiting_since = time.monotonic()
        self._armed_for = self.cycle
        self._header_timer = self.loop.call_later(self.header_timeout, self._headers_too_slow)

    def _disarm(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _headers_too_slow(self) -> None:
        self._header_timer = None
        if not self.transport.is_closing():
            self.transport.close()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self._header_timer is not None and self.cycle is not self._armed_for:
            self._disarm()  # a request's headers are in: the app's time now

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and (self.cycle is None or self.cycle.response_complete):
            self._arm()  # the next request's headers have the same time

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)


def protocol_class(open_files: int | None) -> type[GuardedH11Protocol]:
    """The protocol with this run's limits."""
    return type("SonettoH11Protocol", (GuardedH11Protocol,),
                {"header_timeout": header_timeout(), "max_connections": max_connections(open_files)})


def quiet_accept_errors(loop: asyncio.AbstractEventLoop) -> None:
    """``accept()`` failing for lack of resources: one line a minute, no traceback; the rest as before."""
    last = [float("-inf")]
    dropped = [0]

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if "accept" not in str(context.get("message", "")):
            loop.default_exception_handler(context)
            return
        now = time.monotonic()
        dropped[0] += 1
        if now - last[0] >= ACCEPT_WARNING_EVERY:
            exc = context.get("exception")
            log.warning("cannot accept connections (%s); %d refused since the last note", exc or "out of resources",
                        dropped[0])
            last[0], dropped[0] = now, 0

    loop.set_exception_handler(handler)
