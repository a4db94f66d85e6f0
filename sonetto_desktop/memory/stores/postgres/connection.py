"""PgConnection: a PostgreSQL store's way to its server (a part the store owns).

It holds the connection pool and whether the server answers (``online``, ``status``,
``subscribe_status``), and runs the two kinds of work a store does there: a read, served from the
local copy when the server is away (``read``), and a write, in a transaction holding the store's
advisory lock (``locked``; it waits out a restart: up to ``write_wait`` seconds from the moment a
server that answered went away, then fails with :class:`~...errors.StoreOffline`; a server away
longer, or never reached since the store opened, fails a write at once: nobody waits seconds for
an outage that is not a restart).

A failed read or write takes the store offline and calls ``on_outage`` (the store starts its
listener there, which keeps trying to reconnect); the listener brings the store back
(``go_online``) when it reconnects, or at its next heartbeat when its own connection never broke,
and the pool is renewed then (``renew_pool``: an old one may sit in its reconnect backoff).
"""

from __future__ import annotations

import logging
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from ....redaction import scrub
from ...errors import StoreOffline, StoreWriteFailed
from ...events import EventFeed
from .location import PgLocation
from .schema import KEEPS_DERIVED
from .transaction import DeferredWrites

log = logging.getLogger(__name__)

POOL_WAIT = 10.0  # seconds a write waits for a free connection of the pool
WRITE_WAIT = 5.0  # seconds a write waits for the server to come back (a restart) before failing
READ_TIMEOUT = 3.0  # seconds a read waits for a connection before it is served from the local copy


@dataclass(frozen=True)
class StoreStatus:
    """Whether the server answers. ``detail``: why not; ``copy_time``: when the local copy shown
    while offline was saved (None: there is none)."""

    online: bool
    detail: str = ""
    copy_time: str | None = None

    @property
    def read_only(self) -> bool:
        return not self.online


#: SQLSTATE classes of a connection the server ended or lost: connection exceptions (08) and the
#: server shutting down or ending the session (57P01 admin shutdown, 57P02 crash, 57P03 cannot connect now).
_LOST_STATES = ("08", "57P")


def connection_lost(conn: Any, exc: BaseException) -> bool:
    """Whether ``exc`` (raised by a write on ``conn``) means the connection is gone, not that a
    statement failed: ``conn`` broken, or an error in the chain saying so. A server shutting down
    while a pipelined COMMIT waits answers "terminating connection" (57P01) and psycopg then fails to
    leave pipeline mode ("cannot exit pipeline mode while busy") before it marks the connection
    broken: that is the server going away (the write is retried when it is back), not a failed write."""
    if conn.broken:
        return True
    seen: BaseException | None = exc
    for _ in range(8):  # (a chain is short; never follow a cycle)
        if seen is None:
            break
        if str(getattr(seen, "sqlstate", "") or "").startswith(_LOST_STATES):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


class PgConnection:
    """See the module docstring. ``lock_key``: the advisory lock that serialises the store's writes;
    ``copy_time()``: when the local copy was saved (for ``status``); ``on_outage()``: called whenever
    a read or a write finds the server gone."""

    def __init__(self, location: PgLocation, *, lock_key: int, copy_time: Callable[[], str | None],
                 on_outage: Callable[[], None], pool_size: int = 4, write_wait: float = WRITE_WAIT,
                 read_timeout: float = READ_TIMEOUT) -> None:
        self.location = location
        self.lock_key = lock_key
        self.write_wait = write_wait
        self.read_timeout = read_timeout
        self._copy_time = copy_time
        self._on_outage = on_outage
        self._state_lock = threading.Lock()
        self._online = threading.Event()
        self._closed = False
        self._offline_detail = ""
        #: When a server that answered went away (time.monotonic()); None while online, or when it
        #: was never reached since the store opened.
        self._away_since: float | None = None
        #: Why the server, though reachable, cannot hold this store (permissions, a foreign table layout).
        self.init_error = ""
        #: Something was served from the local copy since the store was last online (views re-read then).
        self.served_offline = False
        self._status_feed: EventFeed[StoreStatus] = EventFeed()
        self._retiring: list[tuple[threading.Timer, Any]] = []  # pools replaced after an outage
        self._local = threading.local()  # the connection of the write this thread is inside
        self._pool_size = max(1, pool_size)
        self.pool = self._make_pool()

    def open(self, setup: Callable[[Any], None]) -> None:
        """Connect once and run ``setup(conn)`` (tables, the change log's position): online after it,
        offline (the local copy) when the server is away, unusable when it refuses the store."""
        import psycopg

        try:
            with psycopg.connect(self.location.url, autocommit=True, **self.location.connect_kwargs()) as conn:
                setup(conn)
            self.go_online()
        except psycopg.OperationalError as exc:
            self.go_offline(exc)
        except psycopg.Error as exc:  # reachable but unusable (permissions, a foreign table layout)
            self.init_error = self.describe(exc)

    # ── state ─────────────────────────────────────────────────────────

    @property
    def online(self) -> bool:
        return self._online.is_set()

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def status(self) -> StoreStatus:
        if self.online:
            return StoreStatus(True)
        return StoreStatus(False, self._offline_detail or self.init_error, self._copy_time())

    @property
    def offline_detail(self) -> str:
        return self._offline_detail

    def subscribe_status(self, callback: Callable[[StoreStatus], None]) -> Callable[[], None]:
        """``callback(status)`` whenever the server goes away or comes back (on a worker thread)."""
        return self._status_feed.subscribe(callback)

    def describe(self, exc: BaseException) -> str:
        """An error's text as shown and logged: one line, no password."""
        text = " ".join(str(exc).split()) or type(exc).__name__
        return scrub(text, [self.location.password])[:300]

    def unavailable(self, detail: str = "") -> StoreOffline:
        return StoreOffline(self.location.display(), detail or self._offline_detail or self.init_error)

    def go_online(self) -> None:
        with self._state_lock:
            if self._closed:
                return
            self.pool.open(wait=False)
            changed = not self._online.is_set()
            self._online.set()
            self._offline_detail = ""
            self._away_since = None
        if changed:
            self._status_feed.publish(self.status)

    def go_offline(self, exc: BaseException) -> None:
        """The server (or the way to it) failed a read or a write: serve the local copy until the
        listener says it is back (reconnecting, or at its next heartbeat when its own connection
        never broke)."""
        with self._state_lock:
            if self._closed:
                return
            changed = self._online.is_set() or not self._offline_detail
            if self._online.is_set():
                self._away_since = time.monotonic()
            self._online.clear()
            self._offline_detail = self.describe(exc)
            self.served_offline = True
            self._on_outage()  # keeps trying to reconnect, whoever noticed the outage
        if changed:
            log.warning("memory server %s unreachable (%s); read-only until it is back",
                        self.location.display(), self._offline_detail)
            self._status_feed.publish(self.status)

    def _make_pool(self) -> Any:
        from psycopg_pool import ConnectionPool

        return ConnectionPool(self.location.url, kwargs={"autocommit": True, **self.location.connect_kwargs()},
                              min_size=1, max_size=self._pool_size, open=False,
                              name=f"sonetto-{self.location.schema}",
                              timeout=POOL_WAIT)

    def renew_pool(self) -> None:
        """A fresh pool, connecting now. After an outage the old pool can sit in its reconnect backoff
        (1, 2, 4, 8… seconds between attempts) for a while after the server is back, and every read
        would be served from the local copy meanwhile. The old pool is closed once whoever still waits
        on it has given up (``POOL_WAIT``): closing it at once would fail them as if the server were away."""
        fresh = self._make_pool()
        fresh.open(wait=False)
        with self._state_lock:
            if self._closed:
                fresh.close(timeout=0)
                return
            old, self.pool = self.pool, fresh
            timer = threading.Timer(POOL_WAIT + 1.0, old.close, kwargs={"timeout": 2.0})
            timer.daemon = True
            timer.start()
            self._retiring = [(t, p) for t, p in self._retiring if t.is_alive()] + [(timer, old)]

    # ── work on the server ────────────────────────────────────────────

    @property
    def write_conn(self) -> Any:
        """The connection of the write this thread is inside (RuntimeError outside one)."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            raise RuntimeError("the caller must hold the write lock")
        return conn

    @contextmanager
    def connection(self, timeout: float) -> Iterator[Any]:
        """The connection of the write this thread is inside, else one from the pool."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            yield conn
            return
        with self.pool.connection(timeout=timeout) as conn:
            yield conn

    def read(self, online: Callable[[Any], Any], offline: Callable[[], Any]) -> Any:
        """``online(conn)`` against the server, or ``offline()`` from the local copy when it is away."""
        if self.init_error:
            raise self.unavailable()
        inside_write = getattr(self._local, "conn", None) is not None
        if inside_write or self.online:
            from psycopg import OperationalError

            for attempt in range(1 if inside_write else self._pool_size + 1):
                conn = None
                try:
                    with self.connection(self.read_timeout) as conn:
                        return online(conn)
                except OperationalError as exc:  # PoolTimeout is one too
                    if inside_write:
                        raise self.unavailable(self.describe(exc)) from exc
                    lost = conn is None or connection_lost(conn, exc)
                    if conn is not None and lost and attempt < self._pool_size:
                        continue  # a pooled connection the server dropped (a restart): a read can go again
                    if lost:  # no connection, or it died: an outage
                        self.go_offline(exc)
                    else:  # the statement failed on a sound connection: this one read comes from the copy
                        log.info("memory server %s: a read failed (%s)", self.location.display(),
                                 self.describe(exc))
                    break
        self.served_offline = True
        return offline()

    @contextmanager
    def locked(self, prelude: str = "", *, defer: bool = False) -> Iterator[Any]:
        """A connection in a transaction holding the store's lock; StoreOffline when the server
        is away (after waiting ``write_wait`` seconds for it to come back). ``prelude``: one more
        statement (no parameters) sent with the start, after the lock; its rows are ``prelude_rows()``.
        ``defer``: the connection is a :class:`~.transaction.DeferredWrites` (what the transaction
        queues goes with the COMMIT; reads on this thread meanwhile go through it and see the writes).

        The transaction's start and the lock go in one round trip; a pooled connection found dead
        by it (the server restarted since it was last used) is dropped and the start tried on
        another: nothing was done on it, and the pool does not ping every connection it hands out
        (a round trip per write)."""
        from psycopg import OperationalError

        if self._closed:
            raise RuntimeError("memory store is closed")
        if self.init_error:
            raise self.unavailable()
        if getattr(self._local, "conn", None) is not None:
            raise RuntimeError("nested write transaction")
        if not self._online.wait(self._restart_wait()):
            raise self.unavailable()
        conn = None
        try:
            for attempt in range(self._pool_size + 1):
                with self.pool.connection(timeout=POOL_WAIT) as conn:
                    try:  # no parameters: one simple query, every statement
                        begun = conn.execute(self._begin + (f"; {prelude}" if prelude else ""))
                        rows: list[tuple] = []
                        while prelude and begun.nextset():
                            rows = begun.fetchall() if begun.description else []
                    except OperationalError:
                        if conn.broken and attempt < self._pool_size:
                            continue  # a stale connection (the pool drops it): the next one
                        raise
                    handle = DeferredWrites(conn) if defer else conn
                    self._local.conn, self._local.prelude_rows = handle, rows
                    try:
                        yield handle
                        if defer:
                            handle.commit()  # what waits and the COMMIT, in one round trip
                    except BaseException:
                        self._end(conn, "ROLLBACK")
                        raise
                    finally:
                        self._local.conn = None
                    if not defer:
                        conn.execute("COMMIT")
                    return
        except OperationalError as exc:  # PoolTimeout is one too
            # a statement failed on a live connection (cancelled, deadlock): the server is there
            if conn is not None and not connection_lost(conn, exc):
                raise StoreWriteFailed(self.location.display(), self.describe(exc)) from exc
            self.go_offline(exc)
            raise self.unavailable(self.describe(exc)) from exc

    def prelude_rows(self) -> list[tuple]:
        """The rows of the ``prelude`` of this thread's ``locked()`` transaction."""
        return list(getattr(self._local, "prelude_rows", None) or [])

    @property
    def _begin(self) -> str:
        """The transaction, what its writes keep (``schema.KEEPS_DERIVED``) and the store's lock."""
        return f"BEGIN; {KEEPS_DERIVED}; SELECT pg_advisory_xact_lock({int(self.lock_key)})"

    @staticmethod
    def _end(conn: Any, statement: str) -> None:
        """End a failed write's transaction (the error that failed it is what the caller sees)."""
        from psycopg import Error

        if conn.broken:
            return
        try:
            conn.execute(statement)
        except Error:
            log.debug("memory server: %s after a failed write failed too", statement)

    def _restart_wait(self) -> float:
        """How long a write may still wait for the server: the rest of ``write_wait`` since a server
        that answered went away (a restart takes seconds), nothing for a longer outage or a server
        never reached since the store opened."""
        if self._online.is_set():  # (wait() returns at once while it stays so; gone meanwhile: a restart's start)
            return self.write_wait
        away_since = self._away_since
        if away_since is None:
            return 0.0
        return max(0.0, self.write_wait - (time.monotonic() - away_since))

    @contextmanager
    def session_lock(self, key: int) -> Iterator[None]:
        """Hold advisory lock ``key`` on a connection of its own for the block (writes go on)."""
        with self.pool.connection(timeout=POOL_WAIT) as conn:
            conn.execute("SELECT pg_advisory_lock(%s)", (key,))
            try:
                yield
            finally:
                conn.execute("SELECT pg_advisory_unlock(%s)", (key,))

    # ── closing ───────────────────────────────────────────────────────

    def shut(self) -> bool:
        """No more state changes or writes from now on; False when it was shut already."""
        with self._state_lock:
            if self._closed:
                return False
            self._closed = True
            return True

    def close(self) -> None:
        """Close the pools (after ``shut``; the store saves its local copy in between)."""
        self.shut()
        self.pool.close(timeout=2.0)
        with self._state_lock:
            retiring, self._retiring = self._retiring, []
        for timer, pool in retiring:
            timer.cancel()
            pool.close(timeout=2.0)
