"""PostgresMemoryManager: one memory on every device, in a PostgreSQL database they share.

Every write is one transaction holding the store's advisory lock (writes are serialised across
devices, as SQLite's ``BEGIN IMMEDIATE`` serialises processes) that touches only its rows and adds
its change record to the ``changes`` log, whose ``seq`` therefore grows in commit order. The same
statement sends ``NOTIFY`` with a summary (kind, ids, actor, device, turn id, seq).

Other devices' writes: once ``poll_external()`` has been called (``StoreWatcher`` does, every half
second), a listener thread ``LISTEN``s on the store's channel and, on every notification, reads
the log from the last ``seq`` it saw and publishes those changes (``local`` False, the writing
device in ``extra["device"]``) — typically milliseconds after the other device committed. After a
lost connection it reconnects with backoff and catches up by ``seq``: a gap of any length misses
nothing (older than the log keeps -> one ``reload``). While the listener is connected a poll
reports nothing (the listener already did).

Offline: when the server cannot be reached the store serves reads from its local copy
(``cache_path``, see ``pg_cache``), refuses writes with :class:`~.errors.StoreOffline` after
waiting ``write_wait`` seconds for the server, reports ``status`` (``subscribe_status``), and
keeps trying to reconnect; once back it publishes ``reload`` so every view re-reads.
"""

from __future__ import annotations

import logging
import threading
import uuid
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Iterator

from ..base import BaseMemoryManager, SelfCheckReport
from ...changes import MemoryChange
from ...errors import MemoryNotFound, StoreOffline, StoreWriteFailed
from ...events import EventFeed
from ...item import MemoryItem
from .cache import PgCache
from .connection import POOL_WAIT, PgConnectionState, StoreStatus
from .feed import PgChangeFeed
from .listener import HEARTBEAT, PgListener
from .location import DEFAULT_SCHEMA, PgLocation, default_device_name
from .schema import ensure_schema, lock_key
from .transaction import PgTransaction, Tables
from ..validation import item_from_raw, validate_item

log = logging.getLogger(__name__)

#: The change log keeps this many recent records (a device away for longer re-reads everything).
CHANGES_KEPT = 20_000
PRUNE_EVERY = 500
WRITE_WAIT = 5.0  # seconds a write waits for the server to come back (a restart) before failing
READ_TIMEOUT = 3.0  # seconds a read waits for a connection before it is served from the local copy


def _psycopg() -> Any:
    try:
        import psycopg
    except ImportError as exc:  # pragma: no cover - the optional extra is missing
        raise ImportError("the PostgreSQL store needs psycopg: pip install 'sonetto-desktop[postgres]'") from exc
    return psycopg


class PostgresMemoryManager(PgConnectionState, PgChangeFeed, BaseMemoryManager):
    """Memories in a schema of a PostgreSQL database. See the module docstring."""

    def __init__(self, location: PgLocation | str, *, schema: str | None = None, password: str | None = None,
                 sslmode: str | None = None, device: str | None = None, cache_path: Any = None,
                 pool_size: int = 4, listen: bool = True, write_wait: float = WRITE_WAIT,
                 heartbeat: float = HEARTBEAT, changes_kept: int = CHANGES_KEPT,
                 prune_every: int = PRUNE_EVERY) -> None:
        super().__init__()
        psycopg = _psycopg()
        if not isinstance(location, PgLocation):
            location = PgLocation(location, schema or DEFAULT_SCHEMA)
        overrides = {k: v for k, v in (("schema", schema), ("password", password), ("sslmode", sslmode)) if v}
        self.location = self.path = replace(location, **overrides) if overrides else location
        self.device = (device or default_device_name()).strip()[:64] or "device"
        self.write_wait = write_wait
        self.read_timeout = READ_TIMEOUT
        self.changes_kept = changes_kept
        self.prune_every = prune_every
        self._t = Tables.of(self.location.schema)
        self._lock_key = lock_key(self.location.schema)
        self._origin = uuid.uuid4().hex  # marks this instance's rows in the change log
        self._local = threading.local()  # the connection of the write this thread is inside
        self._watch_lock = threading.RLock()
        self._state_lock = threading.Lock()
        self._seen_seq: int | None = None
        self._writes = 0
        self._closed = False
        self._init_error = ""
        self._online = threading.Event()
        self._offline_detail = ""
        self._served_offline = False
        self._listen = listen
        self._status_feed: EventFeed[StoreStatus] = EventFeed()
        self._retiring: list[tuple[threading.Timer, Any]] = []  # pools replaced after an outage
        self._cache = PgCache(cache_path) if cache_path else None
        #: The memory writer's turn journal stays on this device, beside the local copy.
        self.journal_path = Path(cache_path).with_name("memory.journal") if cache_path else None
        self._pool_size = max(1, pool_size)
        self._pool = self._make_pool()
        self._listener = PgListener(self.location, on_connect=self._on_connect, on_wake=self._on_wake,
                                    on_lost=self._go_offline, heartbeat=heartbeat)
        try:
            with psycopg.connect(self.location.url, autocommit=True, **self.location.connect_kwargs()) as conn:
                ensure_schema(conn, self.location.schema)
                self._seen_seq = self._max_seq(conn)
            self._go_online()
            self._refresh_copy()
        except psycopg.OperationalError as exc:
            self._go_offline(exc)
        except psycopg.Error as exc:  # reachable but unusable (permissions, a foreign table layout)
            self._init_error = self._describe(exc)

    # ── connections ───────────────────────────────────────────────────

    def _unavailable(self, detail: str = "") -> StoreOffline:
        return StoreOffline(self.location.display(), detail or self._offline_detail or self._init_error)

    @contextmanager
    def _connection(self, timeout: float) -> Iterator[Any]:
        """The connection of the write this thread is inside, else one from the pool."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            yield conn
            return
        with self._pool.connection(timeout=timeout) as conn:
            yield conn

    def _read(self, online: Callable[[PgTransaction], Any], offline: Callable[[], Any]) -> Any:
        """``online(txn)`` against the server, or ``offline()`` from the local copy when it is away."""
        if self._init_error:
            raise self._unavailable()
        if getattr(self._local, "conn", None) is not None or self.online:
            from psycopg import OperationalError

            conn = None
            try:
                with self._connection(READ_TIMEOUT) as conn:
                    return online(PgTransaction(conn, self._t))
            except OperationalError as exc:  # PoolTimeout is one too
                if getattr(self._local, "conn", None) is not None:
                    raise self._unavailable(self._describe(exc)) from exc
                if conn is None or conn.broken:  # no connection, or it died: an outage
                    self._go_offline(exc)
                else:  # the statement failed on a sound connection: this one read comes from the copy
                    log.info("memory server %s: a read failed (%s)", self.location.display(), self._describe(exc))
        self._served_offline = True
        return offline()

    @contextmanager
    def _locked(self) -> Iterator[Any]:
        """A connection in a transaction holding the store's lock; StoreOffline when the server
        is away (after waiting ``write_wait`` seconds for it to come back)."""
        from psycopg import OperationalError

        if self._closed:
            raise RuntimeError("memory store is closed")
        if self._init_error:
            raise self._unavailable()
        if getattr(self._local, "conn", None) is not None:
            raise RuntimeError("nested write transaction")
        if not self._online.wait(self.write_wait):
            raise self._unavailable()
        conn = None
        try:
            with self._pool.connection(timeout=POOL_WAIT) as conn:
                self._local.conn = conn
                try:
                    with conn.transaction():
                        conn.execute("SELECT pg_advisory_xact_lock(%s)", (self._lock_key,))
                        yield conn
                finally:
                    self._local.conn = None
        except OperationalError as exc:  # PoolTimeout is one too
            if conn is not None and not conn.broken:  # a statement failed (cancelled, deadlock): the server is there
                raise StoreWriteFailed(self.location.display(), self._describe(exc)) from exc
            self._go_offline(exc)
            raise self._unavailable(self._describe(exc)) from exc

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        """Hold the store's migration lock (a session lock on a connection of its own; writes go
        on): for a check-then-copy that two devices must not both do."""
        with self._pool.connection(timeout=POOL_WAIT) as conn:
            conn.execute("SELECT pg_advisory_lock(%s)", (self._lock_key + 1,))
            try:
                yield
            finally:
                conn.execute("SELECT pg_advisory_unlock(%s)", (self._lock_key + 1,))

    # ── primitives ────────────────────────────────────────────────────

    @contextmanager
    def _write_lock(self) -> Iterator[None]:
        with self._locked():
            yield

    @contextmanager
    def _transaction(self) -> Iterator[PgTransaction]:
        with self._locked() as conn:
            yield PgTransaction(conn, self._t, self._origin, self.device, self.location.channel)
            self._writes += 1
            if self._writes % self.prune_every == 0:
                self._prune(conn)
        self._schedule_copy()

    def _prune(self, conn: Any) -> None:
        conn.execute(
            f"WITH gone AS (DELETE FROM {self._t.changes} WHERE seq <= (SELECT MAX(seq) FROM {self._t.changes}) - %s"
            " RETURNING seq)"
            f" UPDATE {self._t.meta} SET value = GREATEST(value::bigint, COALESCE((SELECT MAX(seq) FROM gone), 0))::text"
            " WHERE key = 'pruned_through'", (self.changes_kept,))

    def _load_all(self) -> dict[str, MemoryItem]:
        return self._read(lambda txn: txn.load_all(), lambda: self._copy()[0])

    def _save_all(self, items: dict[str, MemoryItem]) -> None:
        PgTransaction(self._require_write_conn(), self._t).save_all(items)

    def _load_trash(self) -> dict[str, dict[str, Any]]:
        return self._read(lambda txn: txn.load_trash(), lambda: self._copy()[1])

    def _save_trash(self, trash: dict[str, dict[str, Any]]) -> None:
        PgTransaction(self._require_write_conn(), self._t).save_trash(trash)

    def _require_write_conn(self) -> Any:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            raise RuntimeError("the caller must hold the write lock")
        return conn

    # ── point queries ─────────────────────────────────────────────────

    def all_items(self) -> dict[str, MemoryItem]:
        return self._load_all()

    def get(self, memory_id: str) -> MemoryItem:
        item = self._read(lambda txn: txn.get(memory_id), lambda: self._copy()[0].get(memory_id))
        if item is None:
            raise MemoryNotFound(memory_id)
        return item

    def count(self) -> int:
        return self._read(lambda txn: txn.conn.execute(f"SELECT COUNT(*) FROM {self._t.memories}").fetchone()[0],
                          lambda: len(self._copy()[0]))

    def show(self) -> list[dict[str, Any]]:
        def online(txn: PgTransaction) -> list[dict[str, Any]]:
            rows = txn.conn.execute(f"SELECT id, description, theme FROM {self._t.memories}").fetchall()
            return [{"id": r[0], "description": r[1], "theme": r[2]} for r in rows]

        return self._read(online, lambda: [{"id": k, "description": v.description, "theme": v.theme}
                                           for k, v in self._copy()[0].items()])

    def version_token(self) -> str | None:
        def online(txn: PgTransaction) -> str:
            seq, count = txn.conn.execute(f"SELECT (SELECT COALESCE(MAX(seq), 0) FROM {self._t.changes}),"
                                          f" (SELECT COUNT(*) FROM {self._t.memories})").fetchone()
            return f"pg:{self.location.schema}:{seq}:{count}"

        return self._read(online, lambda: None)

    # ── the local copy ────────────────────────────────────────────────

    def _copy(self) -> tuple[dict[str, MemoryItem], dict[str, dict[str, Any]]]:
        return self._cache.load() if self._cache is not None else ({}, {})

    def _snapshot(self) -> tuple[dict[str, MemoryItem], dict[str, dict[str, Any]]]:
        """Memories and trash as of one moment (one repeatable-read transaction)."""
        with self._pool.connection(timeout=READ_TIMEOUT) as conn:
            with conn.transaction():
                conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                txn = PgTransaction(conn, self._t)
                return txn.load_all(), txn.load_trash()

    def _schedule_copy(self) -> None:
        if self._cache is not None and self.online:
            self._cache.schedule(self._snapshot)

    def _refresh_copy(self) -> None:
        if self._cache is not None:
            threading.Thread(target=self._cache._save_from, args=(self._snapshot,), daemon=True,
                             name="sonetto-pg-copy").start()

    # ── self check / close ────────────────────────────────────────────

    def self_check(self) -> SelfCheckReport:
        where = self.location.display()
        if self._init_error:
            return SelfCheckReport("FAIL", [f"{where} cannot be used: {self._init_error}"], [], 0)
        if not self.online:
            copy_time = self._cache.saved_at() if self._cache is not None else None
            note = f"the local copy of {copy_time}" if copy_time else "no local copy yet"
            return SelfCheckReport("WARN", [f"{where} is unreachable ({self._offline_detail}); read-only, {note}"],
                                   [], len(self._copy()[0]))
        issues: list[str] = []
        repaired: list[str] = []
        try:
            with self._transaction() as txn:
                items = txn.load_all()
                for memory_id, item in items.items():
                    raw = {"description": item.description, "theme": item.theme, "history": item.history,
                           "latest_update_time": item.latest_update_time, "hit": item.hit}
                    fixed, _ = item_from_raw(memory_id, raw)
                    i, r = validate_item(memory_id, fixed)
                    issues += i
                    repaired += r
                    if r:
                        txn.put(memory_id, fixed)
                if repaired:  # other devices re-read what was repaired
                    txn.record(MemoryChange("reload", (), "user", "self-check repair"))
        except StoreOffline as exc:
            return SelfCheckReport("WARN", [str(exc)], [], len(self._copy()[0]))
        return SelfCheckReport("WARN" if issues else "OK", issues, repaired, len(items))

    def close(self) -> None:
        """Stop listening, save the local copy if a save is pending, close the connections."""
        with self._state_lock:
            if self._closed:
                return
            self._closed = True
        self._listener.stop()
        if self._cache is not None:
            if self.online:
                self._cache.flush(self._snapshot)
            self._cache.close()
        self._pool.close(timeout=2.0)
        with self._state_lock:
            retiring, self._retiring = self._retiring, []
        for timer, pool in retiring:
            timer.cancel()
            pool.close(timeout=2.0)


__all__ = ["PostgresMemoryManager", "StoreStatus"]
