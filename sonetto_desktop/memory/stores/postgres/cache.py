"""PgCache: the local copy of a PostgreSQL store (a part the store owns), so the app opens
(read-only) when the server is away.

It is an ordinary SQLite memory store file in the data dir (``memory.pgcache.db``), written from the
server a moment after changes settle (``schedule``): the rows of the memories that changed
(``rows(ids)``), or the whole ``snapshot()`` when which ones is not known (a reload, a reconnection,
a copy never saved) — at 100,000 memories a whole snapshot is seconds of work, a turn's changes a
few milliseconds. Whole at connection (``refresh``); what is pending at close. It is never written by anything else and never becomes the source of
truth: once the server answers again, the server's content wins. A store without a copy (no path)
has an empty one that is never saved.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any, Callable, Iterable

from ...item import MemoryItem, now_iso
from ..sqlite import SqliteMemoryManager
from ....aio import start_thread

log = logging.getLogger(__name__)

DEBOUNCE = 2.0
#: More changed memories than this are copied with one whole snapshot (as cheap by then).
ROWS_MAX = 20_000


Snapshot = Callable[[], tuple[dict[str, MemoryItem], dict[str, dict[str, Any]]]]
#: The memories and trash entries of some ids (those neither has are gone from both).
Rows = Callable[[list[str]], tuple[dict[str, MemoryItem], dict[str, dict[str, Any]]]]


class PgCache:
    """``snapshot()``: the server's memories and trash as of one moment; ``rows(ids)``: those of some
    memories; ``online()``: whether the server answers (a copy is saved only then)."""

    def __init__(self, path: str | Path | None, snapshot: Snapshot, *, rows: Rows | None = None,
                 online: Callable[[], bool] = lambda: True, debounce: float = DEBOUNCE) -> None:
        self.path = Path(path) if path else None
        self.debounce = debounce
        self._snapshot = snapshot
        self._rows = rows
        self._changed: set[str] = set()  # the memories to copy at the next save
        self._whole = True  # the next save copies everything (nothing saved yet, or which changed is unknown)
        self._online = online
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
        return self.path is not None and self.path.exists()

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
            if self._closed or self.path is None:
                return
            store = self._sqlite()
            with store._write_lock():
                store._save_all(items)
                store._save_trash(trash)
                store._conn().execute("INSERT OR REPLACE INTO meta VALUES ('pg_saved_at', ?)", (now_iso(),))

    def save_rows(self, ids: Iterable[str], items: dict[str, MemoryItem], trash: dict[str, dict[str, Any]]) -> None:
        """Bring ``ids`` in the copy to ``items`` / ``trash`` (an id in neither is gone from both)."""
        with self._lock:
            if self._closed or self.path is None:
                return
            store = self._sqlite()
            with store._transaction() as txn:
                for memory_id in ids:
                    item, entry = items.get(memory_id), trash.get(memory_id)
                    if item is not None:
                        txn.put(memory_id, item)
                    else:
                        txn.remove(memory_id)
                    if entry is not None:
                        txn.trash_put(memory_id, entry)
                    else:
                        txn.trash_remove(memory_id)
                store._conn().execute("INSERT OR REPLACE INTO meta VALUES ('pg_saved_at', ?)", (now_iso(),))

    def schedule(self, ids: Iterable[str] | None = None) -> None:
        """Save ``ids``' rows (None: everything) after ``debounce`` seconds without another call (on a
        timer thread)."""
        if self.path is None or not self._online():
            return
        with self._lock:
            if self._closed:
                return
            if ids is None or self._rows is None:
                self._whole = True
            else:
                self._changed.update(ids)
            if self._timer is not None:
                self._timer.cancel()
            self._timer = threading.Timer(self.debounce, self._save_snapshot)
            self._timer.daemon = True
            self._timer.start()

    def refresh(self) -> None:
        """Save a snapshot now, on a thread of its own (the store was just opened)."""
        if self.path is not None:
            with self._lock:
                self._whole = True
            start_thread(self._save_snapshot, daemon=True, name="sonetto-pg-copy")

    def _save_snapshot(self) -> None:
        with self._lock:
            whole, changed = self._whole or len(self._changed) > ROWS_MAX, sorted(self._changed)
            self._whole, self._changed = False, set()
        if not whole and not changed:
            return
        try:
            if whole or self._rows is None:
                items, trash = self._snapshot()
                self.save(items, trash)
            else:
                items, trash = self._rows(changed)
                self.save_rows(changed, items, trash)
        except Exception as exc:  # noqa: BLE001 - the copy is best effort; the server holds the truth
            with self._lock:  # copied next time, whole: what failed here is not known
                self._whole = True
            log.info("could not refresh the local copy of the memories: %s", type(exc).__name__)

    def close(self) -> None:
        """Save a pending snapshot while the server answers, then close the copy."""
        with self._lock:
            timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()
            if self._online():
                self._save_snapshot()
        with self._lock:
            self._closed = True
            store, self._store = self._store, None
        if store is not None:
            store.close()
