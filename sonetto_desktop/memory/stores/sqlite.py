"""SqliteMemoryManager: point reads and writes in WAL transactions.

Every CRUD operation runs in one ``BEGIN IMMEDIATE`` transaction that touches only its own rows
(see :class:`_SqlTransaction`), so a write costs the same at 10 items or 100,000. The three seed
primitives still exist (``_load_all`` / ``_save_all`` / ``_write_lock``) for bulk work.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
import uuid
import weakref
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterable, Iterator

from .base import BaseMemoryManager, SelfCheckReport
from ..changes import EXTERNAL, MemoryChange
from .. import kinds
from ..errors import (MemoryNotFound, StoreBusy, StoreCorrupt, StoreReadOnly, StoreWriteFailed, describe_os_error)
from ..files import private_dir, private_files
from ..item import MemoryItem, now_iso
from ..record import (COLUMNS, DERIVED_CARD, DERIVED_COLUMNS, ROW_COLUMNS, column_definitions, item_row,
                      missing_columns, row_values)
from . import lock_wait
from .columns import LIGHT, Columns, fill, read_columns
from .transaction import Transaction, mentions
from .validation import (Finding, item_from_fields, item_from_raw, not_saved, oversize_fields, read_only, said_once,
                         sound_row, validate_item)

_SCHEMA = f"""
CREATE TABLE IF NOT EXISTS memories (
    {", ".join(column_definitions())}
);
CREATE TABLE IF NOT EXISTS trash (
    id TEXT PRIMARY KEY,
    entry TEXT NOT NULL,
    deleted_at TEXT
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
INSERT OR IGNORE INTO meta VALUES ('schema_version', '1');
CREATE TABLE IF NOT EXISTS changes (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    time TEXT NOT NULL,
    origin TEXT NOT NULL,
    kind TEXT NOT NULL,
    turn_id TEXT,
    record TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS changes_by_turn ON changes (turn_id);
"""

#: A history changed by anything but a whole-row write (this store writes rows whole: ``INSERT OR
#: REPLACE``, which fires no update trigger) leaves the row's derived card values not known: a hand
#: edit, another program. (An older release writes whole rows without them: NULL, as the columns'
#: default.) ``record.DERIVED_COLUMNS``.
_DERIVED_TRIGGER = f"""
CREATE TRIGGER IF NOT EXISTS memories_derived_unknown AFTER UPDATE OF history ON memories
WHEN NEW.history IS NOT OLD.history
BEGIN UPDATE memories SET {", ".join(f"{name} = NULL" for name in DERIVED_CARD)} WHERE id = NEW.id; END;
"""
#: The rows whose derived card values are not what a write keeps (``record.derived_sound``).
_DERIVED_UNKNOWN = ("NOT (typeof(locked) = 'integer' AND locked IN (0, 1) AND typeof(last_actor) = 'text'"
                    " AND last_actor <> '' AND typeof(author) = 'text' AND author <> '')")

#: The change log keeps this many recent records (for other processes' watchers to catch up).
CHANGES_KEPT = 20_000
_PRUNE_EVERY = 500

_COLUMNS = ", ".join(ROW_COLUMNS)  # a write writes the derived card values too
_PLACES = ", ".join("?" * len(ROW_COLUMNS))
#: Rows read whole per query (a light read's rows it cannot give from their columns).
_CHUNK = 500


def _busy(exc: sqlite3.OperationalError) -> bool:
    """Another connection holds the write lock (SQLITE_BUSY: "database is locked")."""
    return getattr(exc, "sqlite_errorname", "") == "SQLITE_BUSY" or "database is locked" in str(exc)


def _row_to_item(row: tuple, columns: tuple[str, ...] = COLUMNS, *, shared: bool = True) -> MemoryItem:
    """A row as an item; a damaged row is repaired in the item read (``self_check`` writes repairs).
    ``shared``: its texts shared with the other readers' (``record.row_values``)."""
    return item_from_fields(*row_values(row, columns, shared=shared))[0]


#: The rows whose history may name a turn id (a superset: ``transaction.mentions`` checks exactly).
MENTIONING = "instr(history, ?) > 0"


class _SqlTransaction(Transaction):
    def __init__(self, conn: sqlite3.Connection, origin: str = "", columns: tuple[str, ...] = COLUMNS) -> None:
        self.conn = conn
        self.origin = origin
        self.columns = columns

    def record(self, change: MemoryChange) -> None:
        """The change log row, committed with the write (other processes' watchers read it)."""
        self.conn.execute(
            "INSERT INTO changes (time, origin, kind, turn_id, record) VALUES (?,?,?,?,?)",
            (now_iso(), self.origin, change.kind, change.turn_id,
             json.dumps(change.to_dict(), ensure_ascii=False, default=str)),
        )

    def get(self, memory_id: str) -> MemoryItem | None:
        row = self.conn.execute(f"SELECT {', '.join(self.columns)} FROM memories WHERE id = ?",
                                (memory_id,)).fetchone()
        # A point read's texts are not shared: most are dropped at once (the writer's listing of a batch,
        # a tool's check), and interning each would add to the process-wide intern table and take out
        # again, whose churn makes it resize to what it holds at that moment (a 1,000-turn import: 1.9 ->
        # 3.8 MB now and then, never given back). A change carries its texts to every reader anyway.
        return _row_to_item(row, self.columns, shared=False) if row else None

    def exists(self, memory_id: str) -> bool:
        return self.conn.execute("SELECT 1 FROM memories WHERE id = ?", (memory_id,)).fetchone() is not None

    def put(self, memory_id: str, item: MemoryItem) -> None:
        self.conn.execute(f"INSERT OR REPLACE INTO memories ({_COLUMNS}) VALUES ({_PLACES})", item_row(memory_id, item))

    def remove(self, memory_id: str) -> None:
        self.conn.execute("DELETE FROM memories WHERE id = ?", (memory_id,))

    def ids(self) -> Iterable[str]:
        return [r[0] for r in self.conn.execute("SELECT id FROM memories")]

    def ids_mentioning(self, text: str) -> Iterable[str]:
        return [r[0] for r in self.conn.execute(f"SELECT id FROM memories WHERE {MENTIONING}", (text,))]

    def trash_get(self, memory_id: str) -> dict[str, Any] | None:
        row = self.conn.execute("SELECT entry FROM trash WHERE id = ?", (memory_id,)).fetchone()
        return json.loads(row[0]) if row else None

    def trash_put(self, memory_id: str, entry: dict[str, Any]) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO trash (id, entry, deleted_at) VALUES (?,?,?)",
            (memory_id, json.dumps(entry, ensure_ascii=False, default=str), entry.get("deleted_at")),
        )

    def trash_remove(self, memory_id: str) -> None:
        self.conn.execute("DELETE FROM trash WHERE id = ?", (memory_id,))

    def trash_ids(self) -> Iterable[str]:
        return [r[0] for r in self.conn.execute("SELECT id FROM trash")]


class _ThreadConnection:
    """A thread's connection, held by the thread's local storage only: when the thread ends (a
    background index build, a tidy-up pass), it is let go and closes the connection, with its page
    cache (up to ~2 MB), at once (the connection alone would wait for a full collection: it is in a
    cycle with its statement cache). The store finds the live ones through weak references to close
    them."""

    __slots__ = ("conn", "__weakref__")

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __del__(self) -> None:
        try:
            self.conn.close()
        except sqlite3.Error:
            pass


class SqliteMemoryManager(BaseMemoryManager):
    """Memories in an SQLite database (WAL, one connection per thread, closed when the thread ends)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        super().__init__()
        self.path = Path(path)
        private_dir(self.path.parent)
        folder_writable = os.access(self.path.parent, os.W_OK)
        #: Opened read-only (a read-only file, folder or mount): reads work, writes raise StoreReadOnly.
        self.read_only = self.path.exists() and not (folder_writable and os.access(self.path, os.W_OK))
        self._immutable = self.read_only and not folder_writable  # nobody can write it: no -shm needed
        self._local = threading.local()
        self._connections: weakref.WeakSet[_ThreadConnection] = weakref.WeakSet()  # the threads' (see _conn)
        self._conn_lock = threading.Lock()
        self._closed = False
        self._init_error: str | None = None
        self._origin = uuid.uuid4().hex  # marks this instance's rows in the change log
        self._writes = 0
        self._watch_lock = threading.Lock()
        self._watch_held: _ThreadConnection | None = None
        self._watch_conn: sqlite3.Connection | None = None
        self._watch_version: int | None = None
        self._watch_seq = 0
        self._columns: tuple[str, ...] = COLUMNS  # the memories table's columns (fewer: an older read-only file)
        #: The table keeps the derived card values (``record.DERIVED_COLUMNS``; not an older read-only file).
        self._derived = True
        try:
            conn = self._conn()
            if not self._has_schema(conn):
                conn.executescript(_SCHEMA + _DERIVED_TRIGGER)
            self._columns, self._derived = self._columns_of(conn)
            self._start_watching()
        except sqlite3.DatabaseError as exc:
            self._init_error = describe_os_error(exc) if "disk is full" in str(exc) else str(exc)
        if not self.read_only:
            private_files(self.path, self.path.with_name(self.path.name + "-wal"),
                          self.path.with_name(self.path.name + "-shm"))

    def _columns_of(self, conn: sqlite3.Connection) -> tuple[tuple[str, ...], bool]:
        """Bring an older file up to this release: the columns of fields newer than it (``record.FIELDS``)
        and of the derived card values (NULL in every row until the self-check fills them in; a read
        derives them meanwhile), and the trigger that keeps those honest. A read-only file is read
        with the columns it has (the others read as their defaults). Returns the columns an item is
        read from and whether the table has the derived ones."""
        def state() -> tuple[list[str], bool]:
            present = [r[1] for r in conn.execute("PRAGMA table_info(memories)")]
            trigger = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'trigger'"
                                   " AND name = 'memories_derived_unknown'").fetchone()
            return present, trigger is not None

        present, trigger = state()
        if not missing_columns(present) and trigger:
            return COLUMNS, True
        if self.read_only:
            return tuple(name for name in COLUMNS if name in present), set(DERIVED_COLUMNS) <= set(present)
        conn.execute("BEGIN IMMEDIATE")
        try:
            present, trigger = state()  # another process may have upgraded it meanwhile
            for clause in missing_columns(present):
                conn.execute(f"ALTER TABLE memories ADD COLUMN {clause}")
            if not trigger:
                conn.execute(_DERIVED_TRIGGER)
                if set(DERIVED_COLUMNS) <= set(present):  # the trigger was dropped: what was written meanwhile is not known
                    conn.execute(f"UPDATE memories SET {', '.join(f'{name} = NULL' for name in DERIVED_CARD)}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return COLUMNS, True

    @staticmethod
    def _has_schema(conn: sqlite3.Connection) -> bool:
        names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        return {"memories", "trash", "meta", "changes"} <= names

    # ── connections ───────────────────────────────────────────────────

    def _conn(self) -> sqlite3.Connection:
        held = getattr(self._local, "held", None)
        if held is None:
            if self._closed:
                raise RuntimeError("memory store is closed")
            conn = self._connect()
            if not self.read_only:
                conn.execute("PRAGMA journal_mode = WAL")
                conn.execute("PRAGMA synchronous = FULL")
            held = self._local.held = _ThreadConnection(conn)
            with self._conn_lock:
                self._connections.add(held)
        return held.conn

    def _connect(self) -> sqlite3.Connection:
        if self.read_only:
            target = f"{self.path.resolve().as_uri()}?mode=ro{'&immutable=1' if self._immutable else ''}"
            conn = sqlite3.connect(target, uri=True, timeout=60, isolation_level=None, check_same_thread=False)
        else:
            conn = sqlite3.connect(self.path, timeout=60, isolation_level=None, check_same_thread=False)
        conn.execute(f"PRAGMA busy_timeout = {int(lock_wait.LIMIT * 1000)}")
        return conn

    def _begin(self, conn: sqlite3.Connection) -> None:
        """``BEGIN IMMEDIATE``, waiting for another process's write in SQLite's busy handler: up to
        ``NOTICE_AFTER``, then, said (``lock_wait.say_waiting``), up to ``LIMIT`` in all, a second at a
        time (``lock_wait.stop_waiting``, a command line's Ctrl+C, or ``stop_waiting``, the store closing,
        ends it between two);
        ``StoreBusy`` after that."""
        closing = self._stop_waits.is_set()  # (the store is closing: a moment's hold is waited out, no more)
        deadline = time.monotonic() + (lock_wait.closing_left(self._stop_waits) if closing else lock_wait.LIMIT)
        step, said = min(lock_wait.NOTICE_AFTER, deadline - time.monotonic()), False
        try:
            while True:
                conn.execute(f"PRAGMA busy_timeout = {int(max(0.0, step) * 1000)}")
                try:
                    conn.execute("BEGIN IMMEDIATE")
                    return
                except sqlite3.OperationalError as exc:
                    if not _busy(exc):
                        raise self._write_error(exc) from exc
                    if lock_wait.stopped(None if closing else self._stop_waits) or time.monotonic() >= deadline:
                        raise StoreBusy(str(self.path), lock_wait.LIMIT) from exc
                if not said:
                    lock_wait.say_waiting(f"{self.path} (SQLite)", self.path)
                    said = True
                step = min(1.0, deadline - time.monotonic())
        finally:
            conn.execute(f"PRAGMA busy_timeout = {int(lock_wait.LIMIT * 1000)}")

    def _write_error(self, exc: sqlite3.Error) -> Exception:
        text = str(exc)
        if "readonly" in text or "read-only" in text:
            return StoreReadOnly(str(self.path), text)
        return StoreWriteFailed(str(self.path), describe_os_error(exc))

    def _checked_conn(self) -> sqlite3.Connection:
        if self._init_error:
            raise StoreCorrupt(str(self.path), self._init_error)
        return self._conn()

    def close(self) -> None:
        with self._watch_lock:
            self._watch_conn = None
        with self._conn_lock:
            for held in list(self._connections):
                try:
                    held.conn.close()
                except sqlite3.Error:
                    pass
            self._connections.clear()
            self._watch_held = None
            self._closed = True
        self._local = threading.local()

    # ── primitives ────────────────────────────────────────────────────

    @contextmanager
    def _write_lock(self) -> Iterator[None]:
        """One ``BEGIN IMMEDIATE`` transaction. SQLite's write failures (disk full, read-only, I/O)
        become :class:`StoreWriteFailed` / :class:`StoreReadOnly`; the transaction is rolled back."""
        if self.read_only:
            raise StoreReadOnly(str(self.path))
        conn = self._checked_conn()
        self._begin(conn)
        try:
            yield
        except BaseException as exc:
            try:
                conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass
            if isinstance(exc, sqlite3.OperationalError):
                raise self._write_error(exc) from exc
            raise
        try:
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            try:
                conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass
            raise self._write_error(exc) from exc

    @contextmanager
    def _transaction(self) -> Iterator[Transaction]:
        with self._write_lock():
            conn = self._conn()
            yield _SqlTransaction(conn, self._origin)
            self._writes += 1
            if self._writes % _PRUNE_EVERY == 0:
                conn.execute("DELETE FROM changes WHERE seq <= (SELECT MAX(seq) FROM changes) - ?", (CHANGES_KEPT,))

    # ── other processes ───────────────────────────────────────────────

    def _start_watching(self) -> None:
        """A connection of its own (``PRAGMA data_version`` is per connection) and the baseline."""
        conn = self._connect()
        self._watch_held = _ThreadConnection(conn)  # any thread's, for the store's life
        with self._conn_lock:
            self._connections.add(self._watch_held)
        self._watch_conn = conn
        self._watch_version = conn.execute("PRAGMA data_version").fetchone()[0]
        self._watch_seq = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM changes").fetchone()[0]

    def version_token(self) -> str | None:
        conn = self._checked_conn()
        row = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'changes'").fetchone()
        count = conn.execute("SELECT COUNT(*) FROM memories").fetchone()[0]
        return f"sqlite:{self.path.name}:{row[0] if row else 0}:{count}"

    def poll_external(self) -> list[MemoryChange]:
        """Other processes' committed writes since the last poll, from the change log (their actors,
        reasons and turns as they wrote them). A commit that left no change-log row (a program that
        is not Sonetto) is reported as one ``reload`` — unless this instance also committed in the
        same interval, which hides it until the next such commit (rows tell whose writes they were;
        ``data_version`` only that something changed)."""
        with self._watch_lock:
            conn = self._watch_conn
            if conn is None:
                return []
            version = conn.execute("PRAGMA data_version").fetchone()[0]
            if version == self._watch_version:
                return []
            self._watch_version = version
            rows = conn.execute("SELECT seq, origin, record FROM changes WHERE seq > ? ORDER BY seq",
                                (self._watch_seq,)).fetchall()
            if rows:
                self._watch_seq = rows[-1][0]
                changes = []
                for _, origin, record in rows:
                    if origin == self._origin:
                        continue
                    try:
                        changes.append(MemoryChange.from_dict(json.loads(record), local=False))
                    except (ValueError, TypeError):
                        changes.append(MemoryChange(kinds.RELOAD, (), EXTERNAL, local=False))
            else:
                changes = [MemoryChange(kinds.RELOAD, (), EXTERNAL, local=False)]
        for change in changes:
            self._publish(change)
        return changes

    def catch_up(self) -> None:
        """``poll_external``: one ``PRAGMA data_version`` when nothing changed."""
        self.poll_external()

    def _load_all(self) -> dict[str, MemoryItem]:
        rows = self._checked_conn().execute(f"SELECT {', '.join(self._columns)} FROM memories").fetchall()
        items = {}
        for row in rows:
            mid, fields = row_values(row, self._columns)  # the id shared with the other readers' copies
            items[mid] = item_from_fields(mid, fields)[0]
        return items

    def _save_all(self, items: dict[str, MemoryItem]) -> None:
        conn = self._conn()
        conn.execute("DELETE FROM memories")
        conn.executemany(f"INSERT INTO memories ({_COLUMNS}) VALUES ({_PLACES})",
                         [item_row(mid, item) for mid, item in items.items()])

    def _load_trash(self) -> dict[str, dict[str, Any]]:
        rows = self._checked_conn().execute("SELECT id, entry FROM trash").fetchall()
        return {mid: json.loads(entry) for mid, entry in rows}

    def _save_trash(self, trash: dict[str, dict[str, Any]]) -> None:
        conn = self._conn()
        conn.execute("DELETE FROM trash")
        txn = _SqlTransaction(conn, self._origin)
        for mid, entry in trash.items():
            txn.trash_put(mid, entry)

    # ── point queries (no full load) ──────────────────────────────────

    def all_items(self) -> dict[str, MemoryItem]:
        return self._load_all()

    def items_of(self, ids: Iterable[str]) -> dict[str, MemoryItem | None]:
        """Those rows only, ``_CHUNK`` ids a query (their texts shared: a view keeps them)."""
        wanted = list(dict.fromkeys(ids))
        found: dict[str, MemoryItem] = {}
        conn = self._checked_conn()
        select = f"SELECT {', '.join(self._columns)} FROM memories WHERE id IN "
        for start in range(0, len(wanted), _CHUNK):
            chunk = wanted[start:start + _CHUNK]
            for row in conn.execute(select + f"({', '.join('?' * len(chunk))})", chunk):
                found[row[0]] = _row_to_item(row, self._columns)
        return {mid: found.get(mid) for mid in wanted}

    def items_mentioning(self, text: str) -> dict[str, MemoryItem]:
        """The rows whose history holds ``text`` (SQLite's ``instr``, no item built for the others),
        then checked exactly (``mentions``); their texts not shared, as a point read's (dropped soon)."""
        rows = self._checked_conn().execute(f"SELECT {', '.join(self._columns)} FROM memories WHERE {MENTIONING}",
                                            (text,)).fetchall()
        items = {}
        for row in rows:
            mid = row[0]
            item = _row_to_item(row, self._columns, shared=False)
            if mentions(item, text):
                items[mid] = item
        return items

    def columns_of_all(self, names: Iterable[str]) -> Columns:
        """The columns of ``names`` only (see the base class; the derived card values too, from their
        columns); a row whose values would be repaired by a read (a damaged row, written by another
        program) or whose derived values are not known is read whole, as ``get`` reads it."""
        names = tuple(names)
        available = (*self._columns, *(DERIVED_CARD if self._derived else ()))
        if not all(name in LIGHT and name in available for name in names):
            return super().columns_of_all(names)  # an older table without the column: the items' defaults
        conn = self._checked_conn()
        columns, others = read_columns(conn.execute(f"SELECT id, {', '.join(names)} FROM memories").fetchall(), names)
        read = self.items_of(columns[0][i] for i in others)  # whole, as a read repairs them
        whole = {mid: tuple(getattr(item, name) for name in names) for mid, item in read.items() if item is not None}
        return fill(columns, others, whole)

    def get(self, memory_id: str) -> MemoryItem:
        item = _SqlTransaction(self._checked_conn(), columns=self._columns).get(memory_id)
        if item is None:
            raise MemoryNotFound(memory_id)
        return item

    def count(self) -> int:
        return self._checked_conn().execute("SELECT COUNT(*) FROM memories").fetchone()[0]

    def show(self) -> list[dict[str, Any]]:
        rows = self._checked_conn().execute("SELECT id, description, theme FROM memories").fetchall()
        return [{"id": r[0], "description": r[1], "theme": r[2]} for r in rows]

    # ── self check ────────────────────────────────────────────────────

    def self_check(self) -> SelfCheckReport:
        """The integrity check, every row's fields (``validation.sound_row`` passes a sound row at once;
        the others go through ``validate_item``: repairs written, the rest reported) and the derived
        card values filled in where they are not known (an upgraded file, a row an older release wrote)."""
        if self._init_error:
            return SelfCheckReport("FAIL", [f"{self.path} cannot be opened as a database: {self._init_error}"], [], 0)
        issues: list[str] = []
        repaired: list[str] = []
        try:
            conn = self._conn()
            result = conn.execute("PRAGMA quick_check").fetchone()[0]
            if result != "ok":
                return SelfCheckReport("FAIL", [Finding(f"{self.path} failed the integrity check: {result}",
                                                        f"{self.path} 没有通过完整性检查：{result}")], [], 0)
            select = f"SELECT {', '.join(self._columns)} FROM memories"
            unknown_flag = f", {_DERIVED_UNKNOWN}" if self._derived else ", 0"
            rows = conn.execute(select.replace(" FROM", unknown_flag + " FROM", 1)).fetchall()
            sound = sound_row(self._columns)
            fixes: list[str] = []
            unknown = False
            for row in rows:
                unknown = unknown or bool(row[-1])
                if sound(row):
                    continue
                item, _ = item_from_raw(*row_values(row[:-1], self._columns, shared=False, extra=False))  # as stored: repairs seen
                i, r = validate_item(row[0], item)
                issues += i + oversize_fields(row[0], item)
                repaired += r
                if r:
                    fixes.append(row[0])
            if self.read_only:
                issues.append(read_only(self.path))
                repaired = []
            elif fixes or unknown:
                with self._write_lock():  # re-read under the lock: another process may have written since
                    txn = _SqlTransaction(conn)
                    for memory_id in fixes:
                        row = conn.execute(f"{select} WHERE id = ?", (memory_id,)).fetchone()
                        if row is None:
                            continue
                        current, _ = item_from_raw(*row_values(row, self._columns))
                        if validate_item(memory_id, current)[1]:
                            txn.put(memory_id, current)
                    if unknown:
                        self._fill_derived(conn, select)
        except (StoreWriteFailed, StoreReadOnly) as exc:
            issues.append(not_saved(exc))
            repaired = []
        except sqlite3.DatabaseError as exc:
            return SelfCheckReport("FAIL", [Finding(f"{self.path} cannot be read: {exc}", f"{self.path} 无法读取：{exc}")], [], 0)
        return SelfCheckReport("WARN" if issues else "OK", issues, said_once(repaired), len(rows))

    def _fill_derived(self, conn: sqlite3.Connection, select: str) -> None:
        """Write the derived card values of the rows that do not have them, as a read of each row gives
        them (the write lock held). Not a change of any memory: no change record, nothing to report."""
        rows = conn.execute(f"{select} WHERE {_DERIVED_UNKNOWN}").fetchall()
        values = []
        for row in rows:
            item = _row_to_item(row, self._columns)
            values.append((*(getattr(item, name) for name in DERIVED_CARD), row[0]))
        conn.executemany(f"UPDATE memories SET {', '.join(f'{name} = ?' for name in DERIVED_CARD)} WHERE id = ?",
                         values)
