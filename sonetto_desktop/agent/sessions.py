"""The chat session list and each session's display transcript, in SQLite (async). No Qt.

Lives in the same ``sessions.db`` as the LangGraph checkpoints, in tables of its own. The
checkpoints hold what the *model* sees (bounded); this store holds what the *person* sees: every
user message, every reply (also partial and failed ones), the memories recalled for each turn.

Temporary chats are the same store over a database in memory (``SessionStore.temporary()``): never
written anywhere, opened at the first temporary chat and forgotten whole by ``clear()`` (the engine's
close). Their sessions are listed as temporary with recall and writing off (nothing is recalled before
their replies and nothing is handed to the memory writer; see ``ChatEngine``), are named 临时对话 until
their first message names them, and ``ensure`` does not make one up. The engine routes a session's calls
to whichever store holds it (``session_id in store`` answers for a temporary store without waiting).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, AsyncIterator

import aiosqlite

from ..memory.files import private_dir, private_sqlite_file
from ..memory.unicode_text import storable
from .chat_events import SessionInfo

DEFAULT_TITLE = "新对话"
TEMPORARY_TITLE = "临时对话"
TITLE_LENGTH = 24

_SCHEMA = """
CREATE TABLE IF NOT EXISTS chat_sessions (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    auto_title INTEGER NOT NULL DEFAULT 1,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS chat_entries (
    session_id TEXT NOT NULL REFERENCES chat_sessions(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    role TEXT NOT NULL,
    content TEXT NOT NULL,
    memories TEXT NOT NULL DEFAULT '[]',
    turn_id TEXT NOT NULL DEFAULT '',
    error TEXT,
    created_at TEXT NOT NULL,
    PRIMARY KEY (session_id, seq)
);
CREATE TABLE IF NOT EXISTS chat_session_memory (
    session_id TEXT PRIMARY KEY REFERENCES chat_sessions(id) ON DELETE CASCADE,
    recall_on INTEGER NOT NULL,
    write_on INTEGER NOT NULL
);
"""


class SessionNotFound(KeyError):
    """No session with that id."""


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


def title_from(text: str, limit: int = TITLE_LENGTH) -> str:
    """A session title from its first message: first line, whitespace collapsed, shortened with …"""
    line = " ".join(text.strip().splitlines()[0].split()) if text.strip() else ""
    if not line:
        return DEFAULT_TITLE
    return line if len(line) <= limit else line[: limit - 1] + "…"


class SessionStore:
    """``await open()`` before use, ``await close()`` after (a temporary store opens itself at first use).
    Every method is a coroutine, but for a temporary store's ``in`` and ``clear()``."""

    def __init__(self, path: str | Path, *, _in_memory: bool = False) -> None:
        self.path = Path(path)
        self.is_temporary = _in_memory
        self._default_title = TEMPORARY_TITLE if _in_memory else DEFAULT_TITLE
        self._ids: set[str] = set()  # a temporary store's sessions, for ``in`` (routing) without waiting
        self._db: aiosqlite.Connection | None = None
        self._lock = asyncio.Lock()

    @classmethod
    def temporary(cls) -> SessionStore:
        """The temporary chats' store: a database in memory only (see the module docstring)."""
        return cls(":memory:", _in_memory=True)

    def __contains__(self, session_id: object) -> bool:
        """Whether this temporary store holds ``session_id`` (always False for the saved sessions' store)."""
        return session_id in self._ids

    async def open(self) -> None:
        if self._db is not None:
            return
        if self.is_temporary:
            connecting = aiosqlite.connect(":memory:")
            thread = getattr(connecting, "_thread", None)  # aiosqlite's connection thread (not started yet)
            if thread is not None:
                thread.daemon = True  # nothing to flush: an engine left open must not hold up the process's exit
            db = await connecting
        else:
            private_dir(self.path.parent)
            private_sqlite_file(self.path)  # owner-only (0600), an older file tightened
            db = await aiosqlite.connect(self.path)
        try:
            if self.is_temporary:
                await db.execute("PRAGMA temp_store=MEMORY")  # not even a sort spills to a file
            else:
                await db.execute("PRAGMA journal_mode=WAL")
                await db.execute("PRAGMA busy_timeout=5000")
            await db.execute("PRAGMA foreign_keys=ON")
            await db.executescript(_SCHEMA)
            await db.commit()
        except BaseException:
            await db.close()
            raise
        self._db = db

    async def close(self) -> None:
        db, self._db = self._db, None
        self._ids.clear()  # (a temporary store's sessions go with its database)
        if db is not None:
            await db.close()

    async def clear(self) -> list[str]:
        """A temporary store: forget every session (its database in memory is closed; a new one is opened
        at the next use); returns their ids."""
        ids = list(self._ids)
        await self.close()
        return ids

    def _info(self, sid: str, title: str, created_at: str, updated_at: str) -> SessionInfo:
        if self.is_temporary:
            return SessionInfo(sid, title, created_at, updated_at, recall=False, write=False, temporary=True)
        return SessionInfo(sid, title, created_at, updated_at)

    @property
    def db(self) -> aiosqlite.Connection:
        if self._db is None:
            raise RuntimeError("SessionStore is not open")
        return self._db

    # ── sessions ────────────────────────────────────────────────────────────────────────────

    async def create(self, title: str | None = None, session_id: str | None = None) -> SessionInfo:
        clean = (title or "").strip()
        sid = session_id or uuid.uuid4().hex
        stamp = _now()
        async with self._write() as db:
            await db.execute(
                "INSERT INTO chat_sessions (id, title, auto_title, created_at, updated_at) VALUES (?, ?, ?, ?, ?)",
                (sid, storable(clean) or self._default_title, 0 if clean else 1, stamp, stamp),
            )
        if self.is_temporary:
            self._ids.add(sid)
        return self._info(sid, storable(clean) or self._default_title, stamp, stamp)

    async def ensure(self, session_id: str) -> None:
        """Create the session ``session_id`` (untitled) unless it exists; safe when another process
        creates it at the same moment. A temporary store makes none up: SessionNotFound."""
        if self.is_temporary:
            if session_id not in self._ids:
                raise SessionNotFound(session_id)
            return
        stamp = _now()
        async with self._write() as db:
            await db.execute(
                "INSERT OR IGNORE INTO chat_sessions (id, title, auto_title, created_at, updated_at)"
                " VALUES (?, ?, 1, ?, ?)",
                (session_id, DEFAULT_TITLE, stamp, stamp),
            )

    async def get(self, session_id: str) -> SessionInfo | None:
        rows = await self._read("SELECT id, title, created_at, updated_at FROM chat_sessions WHERE id = ?", (session_id,))
        return self._info(*rows[0]) if rows else None

    async def list(self) -> list[SessionInfo]:
        """Newest activity first."""
        rows = await self._read(
            "SELECT id, title, created_at, updated_at FROM chat_sessions ORDER BY updated_at DESC, rowid DESC")
        return [self._info(*row) for row in rows]

    async def rename(self, session_id: str, title: str) -> SessionInfo:
        clean = (title or "").strip() if isinstance(title, str) else ""
        if not clean:
            raise ValueError("会话标题不能为空 / the session title must not be empty")
        async with self._write() as db:
            cur = await db.execute(
                "UPDATE chat_sessions SET title = ?, auto_title = 0 WHERE id = ?", (storable(clean), session_id)
            )
        if cur.rowcount == 0:
            raise SessionNotFound(session_id)
        info = await self.get(session_id)
        assert info is not None
        return info

    async def delete(self, session_id: str) -> bool:
        """Delete the session and its transcript; False if it did not exist."""
        async with self._write() as db:
            await db.execute("DELETE FROM chat_entries WHERE session_id = ?", (session_id,))
            await db.execute("DELETE FROM chat_session_memory WHERE session_id = ?", (session_id,))
            cur = await db.execute("DELETE FROM chat_sessions WHERE id = ?", (session_id,))
        self._ids.discard(session_id)
        return cur.rowcount > 0

    async def delete_rows_of(self, session_id: str, tables: tuple[str, ...]) -> None:
        """Delete the session's rows (``thread_id = session_id``) from other tables of this file that
        exist (LangGraph's checkpoint tables, without importing LangGraph); missing tables are skipped."""
        async with self._write() as db:
            present = {row[0] for row in await db.execute_fetchall(
                f"SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ({', '.join('?' for _ in tables)})",
                tables)}
            for table in tables:
                if table in present:  # a name from the caller's constant, checked against the schema
                    await db.execute(f'DELETE FROM "{table}" WHERE thread_id = ?', (session_id,))

    # ── memory switches ─────────────────────────────────────────────────────────────────────

    async def memory_switches(self) -> dict[str, tuple[bool, bool]]:
        """``{session_id: (recall, write)}`` for sessions whose switches were set (others: both on)."""
        rows = await self._read("SELECT session_id, recall_on, write_on FROM chat_session_memory")
        return {sid: (bool(recall), bool(write)) for sid, recall, write in rows}

    async def set_memory_switches(self, session_id: str, recall: bool, write: bool) -> None:
        async with self._write() as db:
            if not await db.execute_fetchall("SELECT 1 FROM chat_sessions WHERE id = ?", (session_id,)):
                raise SessionNotFound(session_id)
            await db.execute(
                "INSERT INTO chat_session_memory (session_id, recall_on, write_on) VALUES (?, ?, ?)"
                " ON CONFLICT(session_id) DO UPDATE SET recall_on = excluded.recall_on, write_on = excluded.write_on",
                (session_id, int(recall), int(write)),
            )

    # ── transcript ──────────────────────────────────────────────────────────────────────────

    async def append(
        self,
        session_id: str,
        role: str,
        content: str,
        *,
        memories: list[dict[str, Any]] | None = None,
        turn_id: str = "",
        error: dict[str, str] | None = None,
    ) -> None:
        """Add one transcript entry and mark the session active; the first user message names
        a session whose title was not chosen by the user.

        Safe across processes (two app instances in one session): the next ``seq`` is computed by
        the insert itself, inside a write transaction taken before anything is read. Text is stored
        as given, except lone surrogates (not encodable as UTF-8), which become U+FFFD.
        """
        if self.is_temporary and session_id not in self._ids:
            raise SessionNotFound(session_id)
        stamp = _now()
        row = (
            session_id,
            role,
            storable(content),
            storable(json.dumps(memories or [], ensure_ascii=False)),
            turn_id,
            storable(json.dumps(error, ensure_ascii=False)) if error else None,
            stamp,
        )
        async with self._write() as db:
            async with db.execute(
                "INSERT INTO chat_entries (session_id, seq, role, content, memories, turn_id, error, created_at)"
                " SELECT ?1, COALESCE(MAX(seq), -1) + 1, ?2, ?3, ?4, ?5, ?6, ?7 FROM chat_entries"
                " WHERE session_id = ?1 RETURNING seq",
                row,
            ) as cur:
                (seq,) = await cur.fetchone()
            if role == "user" and seq == 0:
                await db.execute(
                    "UPDATE chat_sessions SET title = ? WHERE id = ? AND auto_title = 1",
                    (self._title_from(row[2]), session_id),
                )
            await db.execute("UPDATE chat_sessions SET updated_at = ? WHERE id = ?", (stamp, session_id))

    async def truncate_from_turn(self, session_id: str, turn_id: str) -> int:
        """Delete the entries of turn ``turn_id`` and every later one (regenerate / edit); returns
        how many were deleted (0 when the turn is unknown)."""
        async with self._write() as db:
            cur = await db.execute(
                "DELETE FROM chat_entries WHERE session_id = ?1 AND seq >= (SELECT MIN(seq) FROM chat_entries"
                " WHERE session_id = ?1 AND turn_id = ?2 AND turn_id != '')",
                (session_id, turn_id),
            )
        return cur.rowcount

    def _title_from(self, text: str) -> str:
        title = title_from(text)
        return title if title != DEFAULT_TITLE else self._default_title

    async def _read(self, sql: str, params: tuple = ()) -> list[Any]:
        """The rows of one query, read whole in one call on the connection's thread, between
        write transactions (never inside another coroutine's, whose rows are not committed yet).

        A statement left open across an ``await`` holds a read snapshot on the shared connection;
        a write transaction begun meanwhile by another coroutine could then not wait for another
        process's write lock: SQLite answers "database is locked" at once, without the busy timeout.
        """
        async with self._lock:
            if self._db is None and self.is_temporary:
                return []  # no temporary chat yet (the first one opens the database): nothing to read
            return list(await self.db.execute_fetchall(sql, params))

    @contextlib.asynccontextmanager
    async def _write(self) -> AsyncIterator[aiosqlite.Connection]:
        """One write transaction that holds SQLite's write lock from its first statement on
        (``BEGIN IMMEDIATE``: waits up to the busy timeout for another process), committed at the
        end or rolled back on any error. Every write goes through here: the connection is shared
        by concurrent turns, and one transaction at a time may be open on it."""
        async with self._lock:
            if self._db is None and self.is_temporary:
                await self.open()
            db = self.db
            await db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    await db.rollback()
                raise
            await db.commit()

    async def transcript(self, session_id: str) -> list[dict[str, Any]]:
        """``[{role, content, memories, turn_id, created_at, error?}]`` oldest first.

        ``error`` (only on failed or cancelled replies) is ``{code, zh, en}``.
        """
        rows = await self._read(
            "SELECT role, content, memories, turn_id, error, created_at FROM chat_entries"
            " WHERE session_id = ? ORDER BY seq",
            (session_id,),
        )
        entries = []
        for role, content, memories, turn_id, error, created_at in rows:
            entry: dict[str, Any] = {
                "role": role,
                "content": content,
                "memories": json.loads(memories or "[]"),
                "turn_id": turn_id,
                "created_at": created_at,
            }
            if error:
                entry["error"] = json.loads(error)
            entries.append(entry)
        return entries
