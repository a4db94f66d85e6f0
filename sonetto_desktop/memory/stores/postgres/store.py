"""PostgresMemoryManager: one memory on every device, in a PostgreSQL database they share.

The store is the memory API (``BaseMemoryManager``) over four parts it owns:

- ``connection`` (:class:`PgConnection`): the pool, whether the server answers, reads that fall back
  to the local copy, writes in a transaction holding the store's advisory lock (writes are
  serialised across devices, as SQLite's ``BEGIN IMMEDIATE`` serialises processes);
- ``log`` (:class:`PgChangeLog`): the ``changes`` table every write adds its record to, in its own
  transaction, with a ``NOTIFY`` summary (kind, ids, actor, device, turn id, seq);
- ``feed`` (:class:`PgFeed`): the other devices' writes, published (``local`` False, the writing
  device in ``extra["device"]``) typically milliseconds after they committed — once
  ``poll_external()`` has been called (``StoreWatcher`` does, every half second); after a lost
  connection it reconnects with backoff and catches up by ``seq``;
- ``copy`` (:class:`PgCache`): the local copy (``cache_path``) the store reads while the server is
  away. Writes are then refused with :class:`~.errors.StoreOffline` (within ``write_wait`` seconds
  of the outage they wait for the server first: a restart); ``status`` / ``subscribe_status`` say
  so, and once the server is back one ``reload`` tells every view to re-read.

A write touches only its rows (``PgTransaction``).
"""

from __future__ import annotations

import logging
import re
import uuid
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Container, Iterable, Iterator

from ..base import BaseMemoryManager, SelfCheckReport
from ...changes import MemoryChange
from ... import kinds
from ...errors import MemoryNotFound, StoreOffline
from ...item import MemoryItem
from .cache import PgCache
from .connection import READ_TIMEOUT, WRITE_WAIT, PgConnection, StoreStatus
from .feed import PgFeed
from .listener import HEARTBEAT
from .location import DEFAULT_SCHEMA, PgLocation, default_device_name
from .log import CHANGES_KEPT, PRUNE_EVERY, PgChangeLog
from .problems import BadRecords
from .schema import ensure_schema, lock_key
from .transaction import PgTransaction, Tables
from ..transaction import Transaction, mentions
from ..columns import LIGHT, Columns, items_columns
from ..validation import Finding, validate_item


#: The id generator's first ids, looked up with each write transaction's start (an add takes the
#: first free one; an import goes on with the generator as any store does).
FREE_IDS = 2
_PLAIN_ID = re.compile(r"[0-9a-f]{8}")

log = logging.getLogger(__name__)


def _psycopg() -> Any:
    try:
        import psycopg
    except ImportError as exc:  # pragma: no cover - the optional extra is missing
        raise ImportError("the PostgreSQL store needs psycopg: pip install 'sonetto-desktop[postgres]'") from exc
    return psycopg


class PostgresMemoryManager(BaseMemoryManager):
    """Memories in a schema of a PostgreSQL database. See the module docstring."""

    def __init__(self, location: PgLocation | str, *, schema: str | None = None, password: str | None = None,
                 sslmode: str | None = None, device: str | None = None, cache_path: Any = None,
                 pool_size: int = 4, listen: bool = True, write_wait: float = WRITE_WAIT,
                 heartbeat: float = HEARTBEAT, changes_kept: int = CHANGES_KEPT,
                 prune_every: int = PRUNE_EVERY) -> None:
        super().__init__()
        _psycopg()
        if not isinstance(location, PgLocation):
            location = PgLocation(location, schema or DEFAULT_SCHEMA)
        overrides = {k: v for k, v in (("schema", schema), ("password", password), ("sslmode", sslmode)) if v}
        self.location = self.path = replace(location, **overrides) if overrides else location
        self.device = (device or default_device_name()).strip()[:64] or "device"
        self.writes.stamp = self.undo.stamp = {"device": self.device}  # the history says which computer
        self._t = Tables.of(self.location.schema)
        #: Rows read from the server that had to be skipped or repaired (``self_check`` lists them).
        self.problems = BadRecords(self.location.display())
        #: The memory writer's turn journal stays on this device, beside the local copy.
        self.journal_path = Path(cache_path).with_name("memory.journal") if cache_path else None
        self.copy = PgCache(cache_path, self._snapshot, rows=self._rows, online=lambda: self.connection.online)
        self.connection = PgConnection(self.location, lock_key=lock_key(self.location.schema),
                                       copy_time=self.copy.saved_at, on_outage=lambda: self.feed.listener.start(),
                                       pool_size=pool_size, write_wait=write_wait, read_timeout=READ_TIMEOUT)
        self.log = PgChangeLog(self._t.changes, self._t.meta, origin=uuid.uuid4().hex, device=self.device,
                               channel=self.location.channel, kept=changes_kept, prune_every=prune_every)
        self.feed = PgFeed(self.connection, self.log, publish=self._publish, on_changes=self.copy.schedule,
                           problems=self.problems, listen=listen, heartbeat=heartbeat)
        self.connection.open(self._setup)
        if self.connection.online:
            self.copy.refresh()

    def _setup(self, conn: Any) -> None:
        ensure_schema(conn, self.location.schema)
        self.feed.start_at(conn)

    # ── the parts' state, as the app asks for it ──────────────────────

    @property
    def online(self) -> bool:
        return self.connection.online

    @property
    def status(self) -> StoreStatus:
        return self.connection.status

    def subscribe_status(self, callback: Callable[[StoreStatus], None]) -> Callable[[], None]:
        """``callback(status)`` whenever the server goes away or comes back (on a worker thread)."""
        return self.connection.subscribe_status(callback)

    def poll_external(self) -> list[MemoryChange]:
        return self.feed.poll()

    def wait_listening(self, timeout: float = 10.0) -> bool:
        """Start following the other devices (if not yet) and wait until the listener is connected."""
        return self.feed.wait_listening(timeout)

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        """Hold the store's migration lock (a session lock on a connection of its own; writes go
        on): for a check-then-copy that two devices must not both do."""
        with self.connection.session_lock(self.connection.lock_key + 1):
            yield

    # ── primitives ────────────────────────────────────────────────────

    def _read(self, online: Callable[[PgTransaction], Any], offline: Callable[[], Any]) -> Any:
        """``online(txn)`` against the server, or ``offline()`` from the local copy when it is away."""
        return self.connection.read(lambda conn: online(self._txn(conn)), offline)

    def _txn(self, conn: Any, log: PgChangeLog | None = None) -> PgTransaction:
        return PgTransaction(conn, self._t, log, self.problems)

    @contextmanager
    def _write_lock(self) -> Iterator[None]:
        with self.connection.locked():
            yield

    @contextmanager
    def _transaction(self) -> Iterator[PgTransaction]:
        # ids for what the transaction may add, checked free with its start: an add needs no round
        # trip of its own to find one (``_new_id``; the store's lock is held from the check on)
        candidates = [self._generate_id() for _ in range(FREE_IDS)]
        plain = [mid for mid in candidates if _PLAIN_ID.fullmatch(mid)]  # (written into the statement)
        listed = ", ".join(f"'{mid}'" for mid in plain)
        prelude = (f"SELECT id FROM {self._t.memories} WHERE id IN ({listed})"
                   f" UNION SELECT id FROM {self._t.trash} WHERE id IN ({listed})") if plain else ""
        with self.connection.locked(prelude, defer=True) as conn:  # (its writes go with the COMMIT)
            txn = PgTransaction(conn, self._t, self.log, self.problems, candidates=candidates, checked=plain,
                                taken=(row[0] for row in self.connection.prelude_rows()))
            yield txn
            self.log.written(txn.write_statement)
        self.copy.schedule(txn.changed or None)  # a write that names no memory: the whole copy

    def _new_id(self, txn: Transaction, planned: Container[str] = ()) -> str:
        """As any store finds one (the generator's first id no memory, trash entry or ``planned`` id
        has), its first ids looked up with the transaction's start (``PgTransaction.fresh_id``)."""
        fresh = txn.fresh_id(planned) if isinstance(txn, PgTransaction) else None
        return fresh if fresh is not None else super()._new_id(txn, planned)

    def _load_all(self) -> dict[str, MemoryItem]:
        return self._read(lambda txn: txn.load_all(), lambda: self.copy.load()[0])

    def _save_all(self, items: dict[str, MemoryItem]) -> None:
        self._txn(self.connection.write_conn).save_all(items)

    def _load_trash(self) -> dict[str, dict[str, Any]]:
        return self._read(lambda txn: txn.load_trash(), lambda: self.copy.load()[1])

    def _save_trash(self, trash: dict[str, dict[str, Any]]) -> None:
        self._txn(self.connection.write_conn).save_trash(trash)

    # ── point queries ─────────────────────────────────────────────────

    def all_items(self) -> dict[str, MemoryItem]:
        return self._load_all()

    def items_of(self, ids: Iterable[str]) -> dict[str, MemoryItem | None]:
        """One round trip for the memories (``PgTransaction.load_some``); the local copy while away."""
        wanted = list(dict.fromkeys(ids))
        found = self._read(lambda txn: txn.load_some(wanted)[0], lambda: self.copy.load()[0]) if wanted else {}
        return {mid: found.get(mid) for mid in wanted}

    def items_mentioning(self, text: str) -> dict[str, MemoryItem]:
        """The server finds them (``PgTransaction.items_mentioning``); the local copy while it is away."""
        found = self._read(lambda txn: txn.items_mentioning(text), lambda: self.copy.load()[0])
        return {mid: item for mid, item in found.items() if mentions(item, text)}

    def columns_of_all(self, names: Iterable[str]) -> Columns:
        """Those columns only (see the base class; the derived card values too), the rows a read would
        repair or whose derived values are not known read whole; the local copy's while the server is away."""
        names = tuple(names)
        if not all(name in LIGHT for name in names):
            return super().columns_of_all(names)
        return self._read(lambda txn: txn.light(names), lambda: items_columns(self.copy.load()[0], names))

    def get(self, memory_id: str) -> MemoryItem:
        item = self._read(lambda txn: txn.get(memory_id), lambda: self.copy.load()[0].get(memory_id))
        if item is None:
            raise MemoryNotFound(memory_id)
        return item

    def count(self) -> int:
        return self._read(lambda txn: txn.conn.execute(f"SELECT COUNT(*) FROM {self._t.memories}").fetchone()[0],
                          lambda: len(self.copy.load()[0]))

    def show(self) -> list[dict[str, Any]]:
        def online(txn: PgTransaction) -> list[dict[str, Any]]:
            rows = txn.conn.execute(f"SELECT id, description, theme FROM {self._t.memories}").fetchall()
            return [{"id": r[0], "description": r[1], "theme": r[2]} for r in rows]

        return self._read(online, lambda: [{"id": k, "description": v.description, "theme": v.theme}
                                           for k, v in self.copy.load()[0].items()])

    def version_token(self) -> str | None:
        def online(txn: PgTransaction) -> str:
            seq, count = txn.conn.execute(f"SELECT (SELECT COALESCE(MAX(seq), 0) FROM {self._t.changes}),"
                                          f" (SELECT COUNT(*) FROM {self._t.memories})").fetchone()
            return f"pg:{self.location.schema}:{seq}:{count}"

        return self._read(online, lambda: None)

    # ── the local copy ────────────────────────────────────────────────

    def _rows(self, ids: list[str]) -> tuple[dict[str, MemoryItem], dict[str, dict[str, Any]]]:
        """Some memories and their trash entries as of one moment (the local copy's changed rows)."""
        with self.connection.pool.connection(timeout=READ_TIMEOUT) as conn:
            with conn.transaction():
                conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                return self._txn(conn).load_some(ids)

    def _snapshot(self) -> tuple[dict[str, MemoryItem], dict[str, dict[str, Any]]]:
        """Memories and trash as of one moment (one repeatable-read transaction)."""
        with self.connection.pool.connection(timeout=READ_TIMEOUT) as conn:
            with conn.transaction():
                conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                txn = self._txn(conn)
                return txn.load_all(), txn.load_trash()

    # ── self check / close ────────────────────────────────────────────

    def self_check(self) -> SelfCheckReport:
        where = self.location.display()
        if self.connection.init_error:
            error = self.connection.init_error
            return SelfCheckReport("FAIL", [Finding(f"{where} cannot be used: {error}", f"{where} 无法使用：{error}")], [], 0)
        if not self.online:
            copy_time = self.copy.saved_at()
            note = f"the local copy of {copy_time}" if copy_time else "no local copy yet"
            note_zh = f"用的是 {copy_time} 的本机副本" if copy_time else "还没有本机副本"
            detail = self.connection.offline_detail
            return SelfCheckReport("WARN", [Finding(f"{where} is unreachable ({detail}); read-only, {note}",
                                                    f"{where} 连不上（{detail}）：只读，{note_zh}")],
                                   [], len(self.copy.load()[0]))
        issues: list[str] = []
        repaired: list[str] = []
        try:
            with self._transaction() as txn:
                count, rows = txn.load_checked()
                for memory_id, item, read_issues, read_repairs in rows:
                    more_issues, more_repairs = validate_item(memory_id, item)  # what a read lets pass
                    issues += read_issues + more_issues
                    repaired += read_repairs + more_repairs
                    if read_repairs or more_repairs:
                        txn.put(memory_id, item)
                issues += [Finding(f"trash entry {mid} cannot be used ({why}); it is left as it is on the server",
                                   f"回收站里的 {mid} 无法使用（{why}），服务器上的它保持原样")
                           for mid, why in txn.bad_trash().items()]
                filled = txn.fill_derived()  # (after the repairs: their rows were written with them)
                if filled:
                    log.info("memory server %s: derived card values filled in for %d memories", where, filled)
                if repaired:  # other devices re-read what was repaired
                    txn.record(MemoryChange(kinds.RELOAD, (), "user", "self-check repair"))
        except StoreOffline as exc:
            return SelfCheckReport("WARN", [Finding(str(exc), exc.zh)], [], len(self.copy.load()[0]))
        issues += self.problems.messages("change")
        return SelfCheckReport("WARN" if issues else "OK", issues, repaired, count)

    def close(self) -> None:
        """Stop listening, save the local copy if a save is pending, close the connections."""
        if not self.connection.shut():
            return
        self.feed.stop()
        self.copy.close()
        self.connection.close()


__all__ = ["PostgresMemoryManager", "StoreStatus"]
