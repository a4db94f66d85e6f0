"""Limits of ``sonetto mcp --http`` against a client that opens connections and never finishes them,
and against more clients at once than it serves.

uvicorn's h11 protocol times a connection only after a response (keep-alive) and checks its
concurrency limit only once a request's headers are in, so half-sent requests were held for ever:
1,100 of them locked legitimate clients out, and past the file limit every refused ``accept()``
logged a traceback (199 MB in 40 s). Then the cap closed a new connection whenever every served one
was busy: 100 SDK clients adding 5 memories each stored 75-164 of 500 (issue 35). Here
(:class:`Admission`, one per server run):

- at most ``MAX_CONNECTIONS`` connections are served at once; one more **waits in a queue** (it is
  not read: its request stays in the socket) and is served, first come first served, when a
  served connection closes, or makes room for it by being *stale*: waiting ``STALE_AFTER`` seconds
  or more for its next request's headers (half-sent, or idle between requests). A connection
  waiting less is never closed for another (a client that has just connected is about to send);
- while connections wait, a response ends with ``Connection: close``: the client opens a new
  connection for its next call (it waits its turn) instead of holding a place between calls;
- the queue holds at most ``MAX_QUEUED`` connections and each for at most ``QUEUE_TIMEOUT``
  seconds; beyond that a connection's request is answered **503 with ``Retry-After``** (never a
  reset: the client reads why and when to try again);
- a served connection must complete a request's headers within ``HEADER_TIMEOUT`` seconds of
  being served (or of its previous response), else it is closed — trickling bytes does not extend it;
- and the request's whole body within ``BODY_TIMEOUT`` seconds of its headers, else it is answered
  **408** and closed (its place goes to the next connection): a body that never ends held its place,
  and the server's shutdown, for ever;
- at shutdown (SIGTERM) a connection still sending its request is closed at once, and the requests
  under way get ``GRACEFUL_SHUTDOWN`` seconds to finish (uvicorn's ``timeout_graceful_shutdown``);
- the soft limit of open files is raised to the hard one, the cap and the queue kept well below it;
- an ``accept()`` failing for lack of resources is said in one line per minute, without a traceback.

The SDK's client keeps one more connection per session for ever, the standalone ``GET`` event
stream, which would hold a place each: this server sends nothing on it (no notifications, no
requests to the client), so the gate answers that ``GET`` 405 as the MCP specification allows
(``http_auth``), and 100 sessions need no 100 places.

``SONETTO_MCP_HEADER_TIMEOUT``, ``SONETTO_MCP_BODY_TIMEOUT`` and ``SONETTO_MCP_MAX_CONNECTIONS`` override
these limits (tests).
"""

from __future__ import annotations

import asyncio
import collections
import json
import logging
import os
import time
from typing import Any

from uvicorn.protocols.http.flow_control import CLOSE_HEADER
from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger(__name__)

HEADER_TIMEOUT = 10.0
BODY_TIMEOUT = 30.0
GRACEFUL_SHUTDOWN = 3.0
MAX_CONNECTIONS = 64
MAX_QUEUED = 1024
QUEUE_TIMEOUT = 30.0
STALE_AFTER = 1.0
RETRY_AFTER = 2
KEEP_ALIVE = 5
ACCEPT_WARNING_EVERY = 60.0
BUSY = ("Sonetto 正忙，连接太多；请 {0} 秒后重试 / Sonetto is busy (too many connections): "
        "try again in {0} s")


def _env_number(name: str, default: float) -> float:
    try:
        value = float(os.environ.get(name, ""))
    except ValueError:
        return default
    return value if value > 0 else default


def header_timeout() -> float:
    return _env_number("SONETTO_MCP_HEADER_TIMEOUT", HEADER_TIMEOUT)


def body_timeout() -> float:
    return _env_number("SONETTO_MCP_BODY_TIMEOUT", BODY_TIMEOUT)


def max_connections(open_files: int | None = None) -> int:
    """The cap: ``MAX_CONNECTIONS`` (or the environment's), at most a quarter of the open-file limit."""
    cap = int(_env_number("SONETTO_MCP_MAX_CONNECTIONS", MAX_CONNECTIONS))
    if open_files:
        cap = min(cap, max(4, open_files // 4))
    return cap


def max_queued(open_files: int | None = None) -> int:
    """The queue's bound: ``MAX_QUEUED``, at most a quarter of the open-file limit."""
    return min(MAX_QUEUED, max(4, open_files // 4)) if open_files else MAX_QUEUED


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


TOO_SLOW = ("请求正文在 {0:g} 秒内没有发完，连接已关闭 / the request's body did not arrive within {0:g} s: "
            "connection closed")


def request_timeout_response(seconds: float) -> bytes:
    """The raw 408 a connection whose body never finished is answered (the app never saw a request)."""
    body = json.dumps({"error": TOO_SLOW.format(seconds)}, ensure_ascii=False).encode("utf-8")
    return (b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json; charset=utf-8\r\n"
            b"content-length: " + str(len(body)).encode() + b"\r\nconnection: close\r\n\r\n" + body)


async def retry_later(scope: dict, receive: Any, send: Any) -> None:
    """What a connection the queue cannot hold is answered: 503, when to try again, and close."""
    body = json.dumps({"error": BUSY.format(RETRY_AFTER)}, ensure_ascii=False).encode("utf-8")
    await send({"type": "http.response.start", "status": 503, "headers": [
        (b"content-type", b"application/json; charset=utf-8"), (b"content-length", str(len(body)).encode()),
        (b"retry-after", str(RETRY_AFTER).encode()), CLOSE_HEADER]})
    await send({"type": "http.response.body", "body": body})


class Admission:
    """Which connections are served, which wait, and which are told to come back (module docstring).
    Runs on the server's event loop only (the protocol's callbacks)."""

    def __init__(self, cap: int = MAX_CONNECTIONS, *, queued: int = MAX_QUEUED, queue_timeout: float = QUEUE_TIMEOUT,
                 stale_after: float = STALE_AFTER) -> None:
        self.cap, self.max_queued = max(1, int(cap)), max(0, int(queued))
        self.queue_timeout, self.stale_after = queue_timeout, stale_after
        self.served: set[GuardedH11Protocol] = set()
        self.queue: collections.deque[GuardedH11Protocol] = collections.deque()
        self._timer: asyncio.TimerHandle | None = None
        self.waited = self.refused = self.evicted = 0  # counts (tests, the log at the end)

    @property
    def pressed(self) -> bool:
        """Connections are waiting for a place."""
        return bool(self.queue)

    def arrive(self, conn: GuardedH11Protocol) -> None:
        if len(self.served) < self.cap or self._evict_stale():
            self._serve(conn)
        elif len(self.queue) < self.max_queued:
            conn.flow.pause_reading()  # its request waits in the socket
            conn._queued_at = time.monotonic()
            self.queue.append(conn)
            self.waited += 1
            for other in self.served:  # the places in use now are freed after their responses
                other._close_after_response()
            self._schedule(conn.loop)
        else:
            self._refuse(conn)

    def leave(self, conn: GuardedH11Protocol) -> None:
        self.served.discard(conn)
        if conn._queued_at is not None:
            try:
                self.queue.remove(conn)
            except ValueError:
                pass
        self.pump(conn.loop)

    def pump(self, loop: asyncio.AbstractEventLoop) -> None:
        """Serve waiting connections while there is room (or a stale one to close for them); answer 503
        to the ones that waited too long; look again when the next served one turns stale."""
        self._timer = None
        now = time.monotonic()
        while self.queue and now - self.queue[0]._queued_at >= self.queue_timeout:
            self._refuse(self.queue.popleft())
        while self.queue and (len(self.served) < self.cap or self._evict_stale()):
            self._serve(self.queue.popleft())
        if self.queue:
            self._schedule(loop)

    def _serve(self, conn: GuardedH11Protocol) -> None:
        queued = conn._queued_at is not None
        conn._queued_at = None
        if conn.transport.is_closing():
            return
        self.served.add(conn)
        conn._arm()
        if queued:
            conn.flow.resume_reading()

    def _refuse(self, conn: GuardedH11Protocol) -> None:
        """Read the request and answer it 503 + Retry-After (a reset would lose the reason)."""
        self.refused += 1
        conn._queued_at = None
        conn.app = retry_later  # the request's app, for this connection only
        conn._arm()
        conn.flow.resume_reading()

    def _stale(self, now: float) -> list[GuardedH11Protocol]:
        return [c for c in self.served if c._header_timer is not None and not c.transport.is_closing()
                and now - c._waiting_since >= self.stale_after]

    def _evict_stale(self) -> bool:
        """Close the served connection that has waited longest for its headers, if it waited long enough."""
        stale = self._stale(time.monotonic())
        if not stale:
            return False
        oldest = min(stale, key=lambda c: c._waiting_since)
        self.served.discard(oldest)
        oldest._disarm()
        oldest.transport.close()
        self.evicted += 1
        return True

    def _schedule(self, loop: asyncio.AbstractEventLoop) -> None:
        """A look at the queue when a served connection turns stale or the oldest waiting times out."""
        if self._timer is not None or not self.queue:
            return
        waiting = [c._waiting_since for c in self.served if c._header_timer is not None]
        moments = [self.queue[0]._queued_at + self.queue_timeout]
        if waiting:
            moments.append(min(waiting) + self.stale_after)
        delay = max(0.0, min(moments) - time.monotonic()) + 0.005
        self._timer = loop.call_later(delay, self.pump, loop)


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with the header timeout and the admission (module docstring)."""

    header_timeout = HEADER_TIMEOUT
    body_timeout = BODY_TIMEOUT
    admission: Admission | None = None  # one per run: ``protocol_class``

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._header_timer: asyncio.TimerHandle | None = None
        self._body_timer: asyncio.TimerHandle | None = None
        self._waiting_since = time.monotonic()
        self._queued_at: float | None = None
        self._armed_for: Any = None
        super().connection_made(transport)
        if self.admission is None:
            type(self).admission = Admission()
        self.admission.arrive(self)

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
            self._disarm()  # a request's headers are in: the app's time now (its body within body_timeout)
            if self._reading_body():
                self._body_timer = self.loop.call_later(self.body_timeout, self._body_too_slow)
            if self.admission is not None and self.admission.pressed:
                self._close_after_response()
        if self._body_timer is not None and not self._reading_body():
            self._body_timer.cancel()
            self._body_timer = None

    def _reading_body(self) -> bool:
        """The request under way has not sent its whole body yet."""
        cycle = self.cycle
        return cycle is not None and cycle.more_body and not cycle.disconnected

    def _body_too_slow(self) -> None:
        """408 (unless the app has begun its answer) and close: the place goes to the next connection."""
        self._body_timer = None
        if self.transport.is_closing() or not self._reading_body():
            return
        cycle = self.cycle
        if cycle is not None and not cycle.response_started:  # (the app, waiting for the body, is told
            self.transport.write(request_timeout_response(self.body_timeout))  # it is gone: http.disconnect)
        self.transport.close()

    def shutdown(self) -> None:
        """The server is stopping: a connection still sending its request is closed now (else it would
        hold the shutdown until the graceful timeout); the others as uvicorn does."""
        if self._reading_body() and self.cycle is not None and not self.cycle.response_started:
            self._disarm()
            self.transport.close()
            return
        super().shutdown()

    def _close_after_response(self) -> None:
        """The response to the request under way says ``Connection: close`` (uvicorn adds it when the
        request's headers hold it) and the connection closes after it: the client knows not to reuse it."""
        cycle = self.cycle
        if cycle is not None and not cycle.response_started and CLOSE_HEADER not in cycle.scope["headers"]:
            cycle.scope["headers"].append(CLOSE_HEADER)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and (self.cycle is None or self.cycle.response_complete):
            self._arm()  # the next request's headers have the same time
            if self.admission is not None and self.admission.pressed:
                self.admission.pump(self.loop)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self._body_timer is not None:
            self._body_timer.cancel()
            self._body_timer = None
        super().connection_lost(exc)
        if self.admission is not None:
            self.admission.leave(self)


def protocol_class(open_files: int | None, *, cap: int | None = None, queued: int | None = None,
                   queue_timeout: float = QUEUE_TIMEOUT) -> type[GuardedH11Protocol]:
    """The protocol with this run's limits (``cap``: the connections served at once, default
    :func:`max_connections`; ``queued``: how many may wait, default :func:`max_queued`)."""
    admission = Admission(cap or max_connections(open_files),
                          queued=max_queued(open_files) if queued is None else queued, queue_timeout=queue_timeout)
    return type("SonettoH11Protocol", (GuardedH11Protocol,),
                {"header_timeout": header_timeout(), "body_timeout": body_timeout(), "admission": admission})


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
