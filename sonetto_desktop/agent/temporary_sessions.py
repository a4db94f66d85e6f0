"""Temporary chats: sessions that live in memory only. No Qt.

A temporary chat is never written anywhere: its transcript is kept here, its model history in an
in-memory checkpointer (see ``ChatEngine``), nothing is recalled before its replies and nothing is
handed to the memory writer (so no journal entry either). Closing the session or the app forgets it.

``TemporarySessionStore`` has the methods of ``sessions.SessionStore`` the engine uses, so the engine
routes a session's calls to whichever store holds it.
"""

from __future__ import annotations

import copy
import uuid
from dataclasses import replace
from typing import Any

from ..memory.unicode_text import storable
from .chat_events import SessionInfo
from .sessions import DEFAULT_TITLE, SessionNotFound, _now, title_from

TEMPORARY_TITLE = "临时对话"


class TemporarySessionStore:
    def __init__(self) -> None:
        self._sessions: dict[str, SessionInfo] = {}
        self._entries: dict[str, list[dict[str, Any]]] = {}
        self._auto_title: dict[str, bool] = {}

    def __contains__(self, session_id: object) -> bool:
        return session_id in self._sessions

    async def create(self, title: str | None = None, session_id: str | None = None) -> SessionInfo:
        clean = storable((title or "").strip())
        sid = session_id or uuid.uuid4().hex
        stamp = _now()
        info = SessionInfo(sid, clean or TEMPORARY_TITLE, stamp, stamp, recall=False, write=False, temporary=True)
        self._sessions[sid] = info
        self._entries[sid] = []
        self._auto_title[sid] = not clean
        return info

    async def ensure(self, session_id: str) -> None:
        if session_id not in self._sessions:
            raise SessionNotFound(session_id)

    async def get(self, session_id: str) -> SessionInfo | None:
        return self._sessions.get(session_id)

    async def list(self) -> list[SessionInfo]:
        """Newest activity first."""
        return sorted(self._sessions.values(), key=lambda info: info.updated_at, reverse=True)

    async def rename(self, session_id: str, title: str) -> SessionInfo:
        clean = storable(title.strip()) if isinstance(title, str) else ""
        if not clean:
            raise ValueError("会话标题不能为空 / the session title must not be empty")
        info = self._require(session_id)
        self._auto_title[session_id] = False
        self._sessions[session_id] = info = replace(info, title=clean)
        return info

    async def delete(self, session_id: str) -> bool:
        self._entries.pop(session_id, None)
        self._auto_title.pop(session_id, None)
        return self._sessions.pop(session_id, None) is not None

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
        info = self._require(session_id)
        stamp = _now()
        entry: dict[str, Any] = {
            "role": role,
            "content": storable(content),
            "memories": copy.deepcopy(memories or []),
            "turn_id": turn_id,
            "created_at": stamp,
        }
        if error:
            entry["error"] = dict(error)
        entries = self._entries[session_id]
        entries.append(entry)
        title = info.title
        if role == "user" and len(entries) == 1 and self._auto_title[session_id]:
            named = title_from(entry["content"])
            title = named if named != DEFAULT_TITLE else TEMPORARY_TITLE
        self._sessions[session_id] = replace(info, title=title, updated_at=stamp)

    async def transcript(self, session_id: str) -> list[dict[str, Any]]:
        return copy.deepcopy(self._entries.get(session_id, []))

    async def truncate_from_turn(self, session_id: str, turn_id: str) -> int:
        """Drop the entries of turn ``turn_id`` and every later one (regenerate / edit)."""
        entries = self._entries.get(session_id, [])
        first = next((i for i, e in enumerate(entries) if turn_id and e.get("turn_id") == turn_id), None)
        if first is None:
            return 0
        dropped = len(entries) - first
        del entries[first:]
        return dropped

    def clear(self) -> list[str]:
        """Forget every temporary session; returns their ids."""
        ids = list(self._sessions)
        self._sessions.clear()
        self._entries.clear()
        self._auto_title.clear()
        return ids

    def _require(self, session_id: str) -> SessionInfo:
        info = self._sessions.get(session_id)
        if info is None:
            raise SessionNotFound(session_id)
        return info
