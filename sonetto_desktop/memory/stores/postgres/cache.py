"""The local copy of a PostgreSQL store, so the app opens (read-only) when the server is away.

It is an ordinary SQLite memory store file in the data dir (``memory.pgcache.db``), rewritten as a
whole from the server a moment after changes settle (``schedule``), at connection and at close.
It is never written by anything else and never becomes the source of truth: once the server
answers again, the server's content wins.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any, Callable

from ...item import MemoryItem, now_iso
from ..sqlite import SqliteMemoryManager

log = logging.getLogger(__name__)

DEBOUNCE = 2.0


class PgCache:
    def __init__(self, path: str | Path, debounce: float = DEBOUNCE) -> None:
        self.path = Path(path)
        self.debounce = debounce
        self._store: SqliteMemoryManager | None = None
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        self._closed = False

    def _sqlite(self) -> SqliteMemoryManager:
        if self._store is None:
            self._store = SqliteMemoryManager(self.path)
        return self._store

    @property
    def exists(self) -> bool:
        return self.path.exists()

    def saved_at(self) -> str | None:
        """When the copy was last written from the server (ISO time), or None if never."""
        if not self.exists:
            return None
        with self._lock:
            row = self._sqlite()._conn().execute("SELECT value FROM meta WHERE key = 'pg_saved_at'").fetchone()
        return row[0] if row else None

    def load(self) -> tuple[dict[str, MemoryItem], dict[str, dict[str, Any]]]:
        """The copy's memories and trash (empty when there is no copy yet)."""
        if not self.exists:
            return {}, {}
        with self._lock:
            store = self._sqlite()
            return store._load_all(), store._load_trash()

    def save(self, items: dict[str, MemoryItem], trash: dict[str, dict[str, Any]]) -> None:
        """Replace the copy with ``items`` and ``trash`` in one SQLite transaction."""
        with self._lock:
            if self._closed:
                return
            store = self._sqlite()
            with store._write_lock():
                store._save_all(items)
                store._save_trash(trash)
                store._conn().execute("INSERT OR REPLACE INTO meta VALUES ('pg_saved_at', ?)", (now_iso(),))

    def schedule(self, snapshot: Callable[[], tuple[dict, dict]]) -> None:
        """Save ``snapshot()`` after ``debounce`` seconds without another call (on a timer thread)."""
        with self._lock:
            if self._closed:
                return
            if self._timer is not None:
                self._timer.cancel()
            self._timer = threading.Timer(self.debounce, self._save_from, args=(snapshot,))
            self._timer.daemon = True
            self._timer.start()

    def _save_from(self, snapshot: Callable[[], tuple[dict, dict]]) -> None:
        try:
            items, trash = snapshot()
            self.save(items, trash)
        except Exception as exc:  # noqa: BLE001 - the copy is best effort; the server holds the truth
            log.info("could not refresh the local copy of the memories: %s", type(exc).__name__)

    def flush(self, snapshot: Callable[[], tuple[dict, dict]]) -> None:
        """Save now if a save is pending (at close)."""
        with self._lock:
            timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()
            self._save_from(snapshot)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            timer, self._timer = self._timer, None
            store, self._store = self._store, None
        if timer is not None:
            timer.cancel()
        if store is not None:
            store.close()
