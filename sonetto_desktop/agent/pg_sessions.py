"""Chat sessions on the memory server, so a conversation started on one device goes on on another.

``PgSessionDatabase`` is the PostgreSQL counterpart of the local ``sessions.db``: the session list
and transcripts (``PgSessionStore``, same methods as ``sessions.SessionStore``) and LangGraph's
checkpointer (``AsyncPostgresSaver``, with the app's strict checkpoint serializer) in the store's
schema. The memory writer's turn journal is not here: it stays on each device, so an offline
device keeps its turns. No Qt.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any, Callable, Iterable

from ..aio import import_off_loop
from ..memory.stores.postgres.location import PgLocation
from ..memory.unicode_text import server_storable
from .chat_events import SessionInfo
from .sessions import DEFAULT_TITLE, SessionNotFound, _now, title_from


#: Imported off the loop when the checkpointer is first used (LangGraph comes with them).
CHECKPOINT_MODULES = ("langgraph.checkpoint.postgres.aio", "sonetto_desktop.agent.checkpoint_serde")
#: LangGraph's PostgreSQL checkpoint tables (its ``AsyncPostgresSaver.setup``), keyed by ``thread_id``.
CHECKPOINT_TABLES = ("checkpoints", "checkpoint_blobs", "checkpoint_writes")
_storable = server_storable  # text PostgreSQL accepts (memory/unicode_text.py)


def _schema_sql(schema: str) -> list[str]:
    s = f'"{schema}"'
    return [
        f"CREATE SCHEMA IF NOT EXISTS {s}",
        f"""CREATE TABLE IF NOT EXISTS {s}.chat_sessions (
            id TEXT PRIMARY KEY, title TEXT NOT NULL, auto_title BOOLEAN NOT NULL DEFAULT TRUE,
            created_at TEXT NOT NULL, updated_at TEXT NOT NULL)""",
        f"""CREATE TABLE IF NOT EXISTS {s}.chat_entries (
            session_id TEXT NOT NULL REFERENCES {s}.chat_sessions(id) ON DELETE CASCADE,
            seq INTEGER NOT NULL, role TEXT NOT NULL, content TEXT NOT NULL,
            memories TEXT NOT NULL DEFAULT '[]', turn_id TEXT NOT NULL DEFAULT '', error TEXT,
            created_at TEXT NOT NULL, PRIMARY KEY (session_id, seq))""",
        f"""CREATE TABLE IF NOT EXISTS {s}.chat_session_memory (
            session_id TEXT PRIMARY KEY REFERENCES {s}.chat_sessions(id) ON DELETE CASCADE,
            recall_on BOOLEAN NOT NULL, write_on BOOLEAN NOT NULL)""",
    ]


def _info(row: dict[str, Any]) -> SessionInfo:
    return SessionInfo(row["id"], row["title"], row["created_at"], row["updated_at"])


class PgSessionStore:
    """The session list and transcripts in ``<schema>.chat_sessions`` / ``chat_entries``. Every
    method is a coroutine; ``pool`` is an open ``psycopg_pool.AsyncConnectionPool`` whose
    connections return dict rows (it is shared with LangGraph's saver, which needs them)."""

    def __init__(self, pool: Any, schema: str) -> None:
        self._pool = pool
        self._s = f'"{schema}"'
        self.schema = schema

    async def open(self) -> None:
        """Create the tables if missing (the caller serialises devices; see PgSessionDatabase)."""
        async with self._pool.connection() as conn:
            async with conn.transaction():
                for statement in _schema_sql(self.schema):
                    await conn.execute(statement)

    async def close(self) -> None:  # the pool belongs to PgSessionDatabase
        return None

    async def _one(self, sql: str, args: tuple = ()) -> Any:
        async with self._pool.connection() as conn:
            cur = await conn.execute(sql, args)
            return await cur.fetchone()

    async def create(self, title: str | None = None, session_id: str | None = None) -> SessionInfo:
        clean = _storable((title or "").strip())
        sid = session_id or uuid.uuid4().hex
        stamp = _now()
        await self._one(f"INSERT INTO {self._s}.chat_sessions (id, title, auto_title, created_at, updated_at)"
                        " VALUES (%s, %s, %s, %s, %s) RETURNING id",
                        (sid, clean or DEFAULT_TITLE, not clean, stamp, stamp))
        return SessionInfo(sid, clean or DEFAULT_TITLE, stamp, stamp)

    async def ensure(self, session_id: str) -> None:
        """Create ``session_id`` unless it exists (two devices may both try)."""
        stamp = _now()
        async with self._pool.connection() as conn:
            await conn.execute(f"INSERT INTO {self._s}.chat_sessions (id, title, auto_title, created_at, updated_at)"
                               " VALUES (%s, %s, TRUE, %s, %s) ON CONFLICT (id) DO NOTHING",
                               (session_id, DEFAULT_TITLE, stamp, stamp))

    async def get(self, session_id: str) -> SessionInfo | None:
        row = await self._one(f"SELECT id, title, created_at, updated_at FROM {self._s}.chat_sessions WHERE id = %s",
                              (session_id,))
        return _info(row) if row else None

    async def list(self) -> list[SessionInfo]:
        """Newest activity first."""
        async with self._pool.connection() as conn:
            cur = await conn.execute(f"SELECT id, title, created_at, updated_at FROM {self._s}.chat_sessions"
                                     " ORDER BY updated_at DESC, created_at DESC")
            return [_info(row) for row in await cur.fetchall()]

    async def rename(self, session_id: str, title: str) -> SessionInfo:
        clean = _storable(title.strip()) if isinstance(title, str) else ""
        if not clean:
            raise ValueError("会话标题不能为空 / the session title must not be empty")
        row = await self._one(f"UPDATE {self._s}.chat_sessions SET title = %s, auto_title = FALSE WHERE id = %s"
                              " RETURNING id, title, created_at, updated_at", (clean, session_id))
        if row is None:
            raise SessionNotFound(session_id)
        return _info(row)

    async def delete(self, session_id: str) -> bool:
        """Delete the session and its transcript; False if it did not exist."""
        row = await self._one(f"DELETE FROM {self._s}.chat_sessions WHERE id = %s RETURNING id", (session_id,))
        return row is not None

    async def memory_switches(self) -> dict[str, tuple[bool, bool]]:
        """``{session_id: (recall, write)}`` for sessions whose switches were set (others: both on)."""
        async with self._pool.connection() as conn:
            cur = await conn.execute(f"SELECT session_id, recall_on, write_on FROM {self._s}.chat_session_memory")
            return {row["session_id"]: (bool(row["recall_on"]), bool(row["write_on"])) for row in await cur.fetchall()}

    async def set_memory_switches(self, session_id: str, recall: bool, write: bool) -> None:
        async with self._pool.connection() as conn:
            async with conn.transaction():
                cur = await conn.execute(f"SELECT id FROM {self._s}.chat_sessions WHERE id = %s", (session_id,))
                if await cur.fetchone() is None:
                    raise SessionNotFound(session_id)
                await conn.execute(
                    f"INSERT INTO {self._s}.chat_session_memory (session_id, recall_on, write_on) VALUES (%s, %s, %s)"
                    " ON CONFLICT (session_id) DO UPDATE SET recall_on = EXCLUDED.recall_on, write_on = EXCLUDED.write_on",
                    (session_id, bool(recall), bool(write)))

    async def append(self, session_id: str, role: str, content: str, *,
                     memories: list[dict[str, Any]] | None = None, turn_id: str = "",
                     error: dict[str, str] | None = None) -> None:
        """Add one transcript entry (its ``seq`` computed by the insert, under a row lock on the
        session, so two devices appending at once never collide) and mark the session active."""
        stamp = _now()
        text = _storable(content)
        async with self._pool.connection() as conn:
            async with conn.transaction():
                locked = await conn.execute(f"SELECT id FROM {self._s}.chat_sessions WHERE id = %s FOR UPDATE",
                                            (session_id,))
                if await locked.fetchone() is None:
                    raise SessionNotFound(session_id)
                cur = await conn.execute(
                    f"INSERT INTO {self._s}.chat_entries (session_id, seq, role, content, memories, turn_id, error,"
                    f" created_at) SELECT %s, COALESCE(MAX(seq), -1) + 1, %s, %s, %s, %s, %s, %s"
                    f" FROM {self._s}.chat_entries WHERE session_id = %s RETURNING seq",
                    (session_id, role, text, _storable(json.dumps(memories or [], ensure_ascii=False)), turn_id,
                     _storable(json.dumps(error, ensure_ascii=False)) if error else None, stamp, session_id))
                seq = (await cur.fetchone())["seq"]
                if role == "user" and seq == 0:
                    await conn.execute(f"UPDATE {self._s}.chat_sessions SET title = %s WHERE id = %s AND auto_title",
                                       (title_from(text), session_id))
                await conn.execute(f"UPDATE {self._s}.chat_sessions SET updated_at = %s WHERE id = %s",
                                   (stamp, session_id))

    async def truncate_from_turn(self, session_id: str, turn_id: str) -> int:
        """Delete the entries of turn ``turn_id`` and every later one (regenerate / edit)."""
        async with self._pool.connection() as conn:
            cur = await conn.execute(
                f"DELETE FROM {self._s}.chat_entries WHERE session_id = %s AND seq >= (SELECT MIN(seq)"
                f" FROM {self._s}.chat_entries WHERE session_id = %s AND turn_id = %s AND turn_id <> '')",
                (session_id, session_id, turn_id))
            return cur.rowcount

    async def transcript(self, session_id: str) -> list[dict[str, Any]]:
        """``[{role, content, memories, turn_id, created_at, error?}]`` oldest first."""
        async with self._pool.connection() as conn:
            cur = await conn.execute(f"SELECT role, content, memories, turn_id, error, created_at"
                                     f" FROM {self._s}.chat_entries WHERE session_id = %s ORDER BY seq", (session_id,))
            rows = await cur.fetchall()
        entries = []
        for row in rows:
            entry: dict[str, Any] = {"role": row["role"], "content": row["content"],
                                     "memories": json.loads(row["memories"] or "[]"), "turn_id": row["turn_id"],
                                     "created_at": row["created_at"]}
            if row["error"]:
                entry["error"] = json.loads(row["error"])
            entries.append(entry)
        return entries


class PgSessionDatabase:
    """Sessions + checkpoints on the server (see the module docstring). ``await open()`` raises
    ``psycopg.OperationalError`` when the server cannot be reached (the caller then keeps the
    local ``sessions.db``)."""

    recovered_from = None  # nothing is ever moved aside on a server
    generation = 0

    def __init__(self, location: PgLocation, *, secrets: Callable[[], Iterable[str]] = tuple,
                 connect_timeout: float = 5.0) -> None:
        from psycopg.rows import dict_row
        from psycopg_pool import AsyncConnectionPool

        self.location = location
        self._secrets = secrets
        self._timeout = connect_timeout
        kwargs = {**location.connect_kwargs(), "autocommit": True, "prepare_threshold": 0, "row_factory": dict_row,
                  "options": f"-c search_path={location.schema}"}
        self._pool = AsyncConnectionPool(location.url, kwargs=kwargs, min_size=1, max_size=4, open=False,
                                         name=f"sonetto-chat-{location.schema}")
        self.store = PgSessionStore(self._pool, location.schema)
        self.saver: Any = None  # set up by checkpointer()
        self._saver_lock = asyncio.Lock()

    async def open(self) -> None:
        """Connect and set up the session tables. LangGraph's checkpointer is set up later, at the
        first turn (:meth:`checkpointer`), so listing sessions never imports LangGraph."""
        await self._pool.open(wait=True, timeout=self._timeout)
        self._saver_lock = asyncio.Lock()
        try:
            await self._one_device_at_a_time(self.store.open)
        except BaseException:
            await self.close()
            raise

    async def checkpointer(self) -> Any:
        """LangGraph's ``AsyncPostgresSaver`` in this schema, set up on first use (LangGraph is
        imported on a worker thread)."""
        async with self._saver_lock:
            if self.saver is None:
                await import_off_loop(CHECKPOINT_MODULES)
                from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

                from .checkpoint_serde import CheckpointSerializer

                saver = AsyncPostgresSaver(self._pool, serde=CheckpointSerializer(secrets=self._secrets))
                await self._one_device_at_a_time(saver.setup)
                self.saver = saver
            return self.saver

    async def delete_checkpoints(self, session_id: str) -> None:
        """A session's checkpoints; before the checkpointer is set up (no turn yet since start), with
        plain SQL on LangGraph's tables in this schema, so deleting a chat does not import LangGraph."""
        async with self._saver_lock:
            if self.saver is not None:
                await self.saver.adelete_thread(session_id)
                return
            schema = f'"{self.location.schema}"'
            async with self._pool.connection() as conn, conn.transaction():
                for table in CHECKPOINT_TABLES:
                    row = await (await conn.execute("SELECT to_regclass(%s) IS NOT NULL AS found",
                                                    (f'{schema}."{table}"',))).fetchone()
                    if row["found"]:  # a name from the constant above, checked against the schema
                        await conn.execute(f'DELETE FROM {schema}."{table}" WHERE thread_id = %s', (session_id,))

    async def _one_device_at_a_time(self, step: Callable[[], Any]) -> None:
        key = f"sonetto-chat-setup:{self.location.schema}"
        async with self._pool.connection() as conn:  # two devices setting up at once: one at a time
            # Polled, not waited for in a statement: LangGraph's CREATE INDEX CONCURRENTLY waits for
            # every running statement, a waiting lock call included (that would be a deadlock).
            while not (await (await conn.execute("SELECT pg_try_advisory_lock(hashtext(%s)) AS got",
                                                 (key,))).fetchone())["got"]:
                await asyncio.sleep(0.05)
            try:
                await step()
            finally:
                await conn.execute("SELECT pg_advisory_unlock(hashtext(%s))", (key,))

    async def close(self) -> None:
        self.saver = None
        await self._pool.close()

    async def recover(self, exc: BaseException, generation: int) -> None:
        return None  # a server error is not a damaged file: nothing to move aside


