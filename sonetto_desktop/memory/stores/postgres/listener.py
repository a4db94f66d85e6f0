"""PgListener: one thread, one connection, ``LISTEN`` on a store's channel; reconnects with backoff.

The listener does not interpret notifications: it calls ``on_wake(conn)`` when one arrived (and
every ``heartbeat`` seconds, which also notices a dead connection), ``on_connect(conn)`` after
every (re)connection — the store catches up from its change log by sequence there, so a gap of
any length misses nothing — and ``on_lost(error)`` once per outage. An outage begins whenever
``on_connect`` has been called and the connection then fails, even inside ``on_connect`` (it may have
told the store the server was back before its catch-up failed). Callbacks run on the listener
thread with its connection (autocommit); an exception from one is logged and treated as a lost
connection (the thread reconnects).
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any, Callable

from ...backoff import Backoff
from .location import PgLocation
from ....aio import start_thread

log = logging.getLogger(__name__)

#: Seconds between reconnection attempts: doubling from the first, capped at the last, ±20% jitter so
#: that many devices coming back at once do not knock on the server in step.
BACKOFF = Backoff((0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0), jitter=0.2)
HEARTBEAT = 5.0
_POLL = 0.25  # how often the thread looks at its stop flag while waiting for notifications


class PgListener:
    def __init__(self, location: PgLocation, *, on_connect: Callable[[Any], None],
                 on_wake: Callable[[Any], None], on_lost: Callable[[BaseException], None],
                 heartbeat: float = HEARTBEAT, backoff: Backoff | tuple[float, ...] = BACKOFF) -> None:
        self.location = location
        self._on_connect = on_connect
        self._on_wake = on_wake
        self._on_lost = on_lost
        self.heartbeat = heartbeat
        self.backoff = backoff if isinstance(backoff, Backoff) else Backoff(tuple(backoff), BACKOFF.jitter)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._connected = threading.Event()
        self.reconnects = 0  # successful connections after the first (tests, diagnostics)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    def start(self) -> None:
        if self.running:
            return
        self._stop.clear()
        self._thread = start_thread(self._run, name=f"sonetto-pg-listen-{self.location.schema}",
                                        daemon=True)

    def wait_connected(self, timeout: float) -> bool:
        return self._connected.wait(timeout)

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    # ── the thread ────────────────────────────────────────────────────

    def _run(self) -> None:
        import psycopg

        attempt = 0
        connections = 0
        in_outage = False
        while not self._stop.is_set():
            try:
                conn = psycopg.connect(self.location.url, autocommit=True, **self.location.connect_kwargs())
            except psycopg.Error as exc:
                if not in_outage:
                    in_outage = True
                    self._call_lost(exc)
                self._stop.wait(self.backoff.delay(attempt))
                attempt += 1
                continue
            try:
                conn.execute(f'LISTEN "{self.location.channel}"')
                in_outage = False  # on_connect may say the server is back: a failure from here is news
                self._on_connect(conn)
                self._connected.set()
                if connections:
                    self.reconnects += 1
                connections += 1
                attempt = 0
                self._listen(conn)
            except Exception as exc:  # noqa: BLE001 - a lost connection (or a failing callback): reconnect
                self._connected.clear()
                if not self._stop.is_set():
                    log.info("memory server connection lost (%s); reconnecting", type(exc).__name__)
                    if not in_outage:
                        in_outage = True
                        self._call_lost(exc)
                    self._stop.wait(self.backoff.delay(attempt))
                    attempt += 1
            finally:
                self._connected.clear()
                try:
                    conn.close()
                except Exception:  # noqa: BLE001 - closing a broken connection
                    pass

    def _listen(self, conn: Any) -> None:
        last = time.monotonic()
        while not self._stop.is_set():
            woke = False
            for _ in conn.notifies(timeout=_POLL, stop_after=1):
                woke = True
            if woke or time.monotonic() - last >= self.heartbeat:
                self._on_wake(conn)
                last = time.monotonic()

    def _call_lost(self, exc: BaseException) -> None:
        try:
            self._on_lost(exc)
        except Exception:  # the listener keeps trying whatever a subscriber does
            log.exception("memory server: on_lost callback failed")
