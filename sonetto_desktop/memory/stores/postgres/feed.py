"""PgFeed: how a PostgreSQL store follows the other devices' writes (a part the store owns).

A listener thread (:class:`PgListener`) ``LISTEN``s on the store's channel; on every notification,
every heartbeat and every (re)connection the feed reads the change log from the last ``seq`` it saw
and publishes the other devices' changes (``local`` False, the writing device in
``extra["device"]``) — typically milliseconds after the other device committed. A gap of any
length misses nothing (older than the log keeps -> one ``reload``). Until the listener is
connected, ``poll()`` reads the log itself; from then on it reports nothing (the listener did).

The listener also brings the store back after an outage: its reconnection (or, when only a write's
connection died, its next heartbeat) puts the connection online again, renews the pool when the
local copy was served meanwhile, and publishes one ``reload`` so every view re-reads.
"""

from __future__ import annotations

import json
import threading
from typing import Any, Callable

from ...changes import EXTERNAL, MemoryChange
from ... import kinds
from .connection import PgConnection
from .listener import HEARTBEAT, PgListener
from .log import PgChangeLog
from .problems import BadRecords
from .schema import ensure_schema


class PgFeed:
    """``publish(change)`` hands a change to the store's channel; ``on_changes(ids)`` is called after
    changes were published (the store refreshes its local copy: those memories, or all for None); ``problems``: where unreadable
    change records are noted. ``listen``: whether ``poll()`` starts the listener (an outage starts
    it in any case, to notice the server's return)."""

    def __init__(self, connection: PgConnection, log: PgChangeLog, *, publish: Callable[[MemoryChange], Any],
                 on_changes: Callable[[Any], None], problems: BadRecords, listen: bool = True,
                 heartbeat: float = HEARTBEAT) -> None:
        self.connection = connection
        self.log = log
        self.problems = problems
        self._reload_due = False
        self._publish = publish
        self._on_changes = on_changes
        self._listen = listen
        self._lock = threading.RLock()
        self._seen_seq: int | None = None  # None: not read yet (opened offline)
        self.listener = PgListener(connection.location, on_connect=self._on_connect, on_wake=self._on_wake,
                                   on_lost=connection.go_offline, heartbeat=heartbeat)

    def start_at(self, conn: Any) -> None:
        """Follow the log from its current end (the store was just opened on ``conn``)."""
        self._seen_seq = self.log.last_seq(conn)

    def poll(self) -> list[MemoryChange]:
        """Other devices' writes since the last look: read from the log here until the listener is
        connected, by the listener from then on (this call starts it)."""
        changes: list[MemoryChange] = []
        connection = self.connection
        if connection.closed:
            return changes
        if not self.listener.connected and connection.online and not connection.init_error:
            from psycopg import OperationalError

            try:
                with connection.pool.connection(timeout=connection.read_timeout) as conn:
                    changes = self.catch_up(conn)
            except OperationalError as exc:  # PoolTimeout is one too
                connection.go_offline(exc)
        if self._listen and not connection.init_error:
            self.listener.start()
        return changes

    def wait_listening(self, timeout: float = 10.0) -> bool:
        """Start the listener (if not yet) and wait until it is connected."""
        self.listener.start()
        return self.listener.wait_connected(timeout)

    def stop(self) -> None:
        self.listener.stop()

    # ── the listener's callbacks (on its thread, with its connection) ──

    def _on_connect(self, conn: Any) -> None:
        """The listener (re)connected: make sure the tables exist, catch up, tell the views."""
        if self._seen_seq is None:  # opened offline: the tables may not exist yet
            ensure_schema(conn, self.connection.location.schema)
        self._back_online(conn)

    def _on_wake(self, conn: Any) -> None:
        """A notification or the heartbeat: catch up. The listener's connection works, so a store that
        went offline meanwhile (a write's connection died, the listener's did not) is back as well."""
        if self.connection.online:
            self.catch_up(conn)
        else:
            conn.execute("SELECT 1")  # the listener's connection itself may be the next to go: ask it first
            self._back_online(conn)

    def _back_online(self, conn: Any) -> None:
        connection = self.connection
        came_back = connection.served_offline
        connection.served_offline = False
        if came_back:
            connection.renew_pool()
        connection.go_online()
        published = self.catch_up(conn)
        if came_back and not any(kinds.kind(c.kind).whole for c in published):
            with self._lock:
                self._publish(MemoryChange(kinds.RELOAD, (), EXTERNAL, "reconnected", local=False))
            self._on_changes(None)

    def _foreign_change(self, seq: int, record: Any, device: str) -> MemoryChange | None:
        """Another device's change from its log record. A record that is not one (another
        program's, a damaged row) is noted in ``problems`` and becomes one ``reload`` (None: one is
        already due in this catch-up), so views re-read instead of missing it."""
        try:
            change = MemoryChange.from_dict(json.loads(record), local=False)
        except Exception as exc:  # noqa: BLE001 - whatever the row holds, the feed goes on
            who = device or "an unknown device"
            self.problems.note("change", str(seq), f"change record {seq} from {who} could not be read"
                                                   f" ({type(exc).__name__}: {exc}); views re-read the memories")
            if self._reload_due:
                return None
            self._reload_due = True
            return MemoryChange(kinds.RELOAD, (), EXTERNAL, "unreadable change record", local=False,
                                extra={"device": device} if device else {})
        if device and not change.extra.get("device"):
            change.extra["device"] = device
        return change

    def catch_up(self, conn: Any) -> list[MemoryChange]:
        """Publish the log's records after the last ``seq`` seen (other devices' only)."""
        with self._lock:
            self._reload_due = False
            if self._seen_seq is None:  # opened offline: what is shown came from the local copy
                self._seen_seq = self.log.last_seq(conn)
                changes = [MemoryChange(kinds.RELOAD, (), EXTERNAL, "reconnected", local=False)]
            else:
                rows, pruned_through = self.log.since(conn, self._seen_seq)
                changes = []
                if rows and self._seen_seq < pruned_through:  # the log no longer reaches back that far
                    changes = [MemoryChange(kinds.RELOAD, (), EXTERNAL, "change log gap", local=False)]
                    self._seen_seq = rows[-1][0]
                for seq, origin, device, record in rows if not changes else ():
                    self._seen_seq = seq  # whatever it holds: a record is read once
                    if origin != self.log.origin:
                        change = self._foreign_change(seq, record, device)
                        if change is not None:
                            changes.append(change)
            for change in changes:
                self._publish(change)
        if changes:
            whole = any(kinds.kind(change.kind).whole or not change.ids for change in changes)
            self._on_changes(None if whole else {i for change in changes for i in change.ids})
        return changes
