"""``sessions.db``: the chat session store and LangGraph's checkpointer, two connections to one
SQLite file, and what happens when that file is damaged. No Qt.

``open()`` opens only the session store (listing sessions, transcripts): LangGraph is imported,
off the event loop, and the checkpointer opened when a turn first needs it (:meth:`checkpointer`).

A file that cannot be used as a database (at start, or a damaged page found while chatting) is
moved aside as ``sessions.db.broken-<time>`` — kept for the person, never deleted — and a new
database is started, so one damaged page does not fail every later message. An operational error
(locked by another program, read-only, disk full) leaves the file where it is: the file is fine.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Callable, Iterable
from pathlib import Path

from typing import TYPE_CHECKING

import aiosqlite

from ..aio import import_off_loop, run_blocking
from ..memory.files import move_aside as move_file_aside
from .sessions import SessionStore

if TYPE_CHECKING:  # LangGraph: imported by checkpointer(), on a worker thread
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

CHECKPOINT_MODULES = ("langgraph.checkpoint.sqlite.aio", "sonetto_desktop.agent.checkpoint_serde")
#: LangGraph's SQLite checkpoint tables (its ``AsyncSqliteSaver.setup``), keyed by ``thread_id``.
CHECKPOINT_TABLES = ("checkpoints", "writes")

log = logging.getLogger(__name__)


class SessionDatabase:
    """``await open()`` before use, ``await close()`` after. ``store`` is the same object for the
    whole life of this instance (reopened in place); ``saver`` (``None`` until :meth:`checkpointer`
    first opens it) is replaced when the file is."""

    def __init__(self, path: str | Path, *, secrets: Callable[[], Iterable[str]] = tuple) -> None:
        self.path = Path(path)
        self.store = SessionStore(self.path)
        self.saver: AsyncSqliteSaver | None = None
        self.recovered_from: Path | None = None  # where the last damaged file was kept
        self.generation = 0  # +1 each time the file is replaced by a new one
        self._secrets = secrets
        self._conn: aiosqlite.Connection | None = None
        self._lock = asyncio.Lock()
        self._saver_lock = asyncio.Lock()
        self._opened = False

    async def open(self) -> None:
        try:
            await self._open()
        except sqlite3.OperationalError:
            await self.close()
            raise
        except sqlite3.DatabaseError as exc:
            await self.start_afresh(exc)

    async def _open(self) -> None:
        await self.store.open()
        self._opened = True

    async def checkpointer(self) -> AsyncSqliteSaver:
        """LangGraph's checkpointer on this file, opened on first use (importing LangGraph on a
        worker thread). A file found damaged here is moved aside and a new one started, as in
        :meth:`open`; an operational error is raised as is."""
        async with self._saver_lock:
            if self.saver is not None:
                return self.saver
            if not self._opened:
                raise RuntimeError("SessionDatabase.open() has not been awaited (or it is closed)")
            await import_off_loop(CHECKPOINT_MODULES)
            try:
                await self._open_saver()
            except sqlite3.OperationalError:  # locked or unreadable: not a damaged file
                raise
            except sqlite3.DatabaseError as exc:
                await self.start_afresh(exc)
                await self._open_saver()
            assert self.saver is not None
            return self.saver

    async def delete_checkpoints(self, session_id: str) -> None:
        """A session's checkpoints. When no turn has opened the checkpointer yet (deleting an old
        chat right after start), its tables are cleared with plain SQL: LangGraph is not imported."""
        async with self._saver_lock:
            if self.saver is not None:
                await self.saver.adelete_thread(session_id)
            else:
                await self.store.delete_rows_of(session_id, CHECKPOINT_TABLES)

    async def _open_saver(self) -> None:
        from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

        from .checkpoint_serde import CheckpointSerializer

        conn = await aiosqlite.connect(self.path)
        try:
            saver = AsyncSqliteSaver(conn, serde=CheckpointSerializer(secrets=self._secrets))
            await saver.setup()
        except BaseException:
            await conn.close()
            raise
        self._conn, self.saver = conn, saver

    async def close(self) -> None:
        conn, self._conn, self.saver = self._conn, None, None
        self._opened = False
        if conn is not None:
            await conn.close()
        await self.store.close()

    async def start_afresh(self, exc: BaseException) -> Path:
        """Close, move the file (and its -wal / -shm) aside, open a new one; returns the kept file."""
        await self.close()
        aside = await run_blocking(move_aside, self.path)
        log.error("%s is damaged (%s); moved aside to %s, starting a new one", self.path.name, exc, aside.name)
        self.recovered_from = aside
        self.generation += 1
        await self._open()
        return aside

    async def recover(self, exc: BaseException, generation: int) -> Path | None:
        """Damage found while in use by a caller that opened at ``generation``: start afresh once
        (callers that saw the same damage get the same answer). ``None`` if it could not be done."""
        async with self._lock:
            if generation != self.generation:
                return self.recovered_from
            try:
                return await self.start_afresh(exc)
            except Exception:
                log.exception("could not move the damaged %s aside", self.path.name)
                return None




def move_aside(path: Path) -> Path:
    """Rename ``path`` (with its -wal / -shm) to an unused ``<name>.broken-<time>[-n]``; returns it."""
    return move_file_aside(path, "broken")
