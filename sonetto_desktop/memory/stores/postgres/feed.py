"""How a PostgreSQL store follows the other devices (mixed into ``PostgresMemoryManager``): the
listener's (re)connection, catching up from the change log by ``seq``, and ``poll_external``.
See ``postgres_store`` for the whole picture."""

from __future__ import annotations

import json
from typing import Any

from ...changes import EXTERNAL, MemoryChange
from .schema import ensure_schema


class PgChangeFeed:
    """Needs the store's ``_watch_lock``, ``_seen_seq``, ``_origin``, ``_t``, ``_pool``, ``_listener``,
    ``_publish``, ``_go_online`` / ``_go_offline``, ``_renew_pool``, ``online``, ``_schedule_copy`` and the state flags."""

    def _on_connect(self, conn: Any) -> None:
        """The listener (re)connected: make sure the tables exist, catch up, tell the views."""
        if self._seen_seq is None:  # opened offline: the tables may not exist yet
            ensure_schema(conn, self.location.schema)
        self._back_online(conn)

    def _on_wake(self, conn: Any) -> None:
        """A notification or the heartbeat: catch up. The listener's connection works, so a store that
        went offline meanwhile (a write's connection died, the listener's did not) is back as well."""
        if self.online:
            self._catch_up(conn)
        else:
            conn.execute("SELECT 1")  # the listener's connection itself may be the next to go: ask it first
            self._back_online(conn)

    def _back_online(self, conn: Any) -> None:
        came_back = self._served_offline
        self._served_offline = False
        if came_back:
            self._renew_pool()
        self._go_online()
        published = self._catch_up(conn)
        if came_back and not any(c.kind == "reload" for c in published):
            with self._watch_lock:
                self._publish(MemoryChange("reload", (), EXTERNAL, "reconnected", local=False))
            self._schedule_copy()

    def _max_seq(self, conn: Any) -> int:
        return conn.execute(f"SELECT COALESCE(MAX(seq), 0) FROM {self._t.changes}").fetchone()[0]

    def _catch_up(self, conn: Any) -> list[MemoryChange]:
        """Publish the log's records after the last ``seq`` seen (other devices' only)."""
        with self._watch_lock:
            if self._seen_seq is None:  # opened offline: what is shown came from the local copy
                self._seen_seq = self._max_seq(conn)
                changes = [MemoryChange("reload", (), EXTERNAL, "reconnected", local=False)]
            else:
                rows = conn.execute(
                    f"SELECT seq, origin, device, record, (SELECT value FROM {self._t.meta}"
                    f" WHERE key = 'pruned_through') FROM {self._t.changes} WHERE seq > %s ORDER BY seq",
                    (self._seen_seq,)).fetchall()
                changes = []
                if rows and self._seen_seq < int(rows[0][4]):  # the log no longer reaches back that far
                    changes = [MemoryChange("reload", (), EXTERNAL, "change log gap", local=False)]
                else:
                    for _, origin, device, record in (row[:4] for row in rows):
                        if origin != self._origin:
                            changes.append(_foreign_change(record, device))
                if rows:
                    self._seen_seq = rows[-1][0]
            for change in changes:
                self._publish(change)
        if changes:
            self._schedule_copy()
        return changes

    def poll_external(self) -> list[MemoryChange]:
        """Other devices' writes since the last look (see the module docstring): read from the log
        here until the listener is connected, by the listener from then on (this call starts it)."""
        changes: list[MemoryChange] = []
        if self._closed:
            return changes
        if not self._listener.connected and self.online and not self._init_error:
            from psycopg import OperationalError

            try:
                with self._pool.connection(timeout=self.read_timeout) as conn:
                    changes = self._catch_up(conn)
            except OperationalError as exc:  # PoolTimeout is one too
                self._go_offline(exc)
        if self._listen and not self._init_error:
            self._listener.start()
        return changes

    def wait_listening(self, timeout: float = 10.0) -> bool:
        """Start the listener (if not yet) and wait until it is connected."""
        self._listener.start()
        return self._listener.wait_connected(timeout)


def _foreign_change(record: str, device: str) -> MemoryChange:
    try:
        change = MemoryChange.from_dict(json.loads(record), local=False)
    except (ValueError, TypeError):
        return MemoryChange("reload", (), EXTERNAL, local=False, extra={"device": device})
    if device and not change.extra.get("device"):
        change.extra["device"] = device
    return change
