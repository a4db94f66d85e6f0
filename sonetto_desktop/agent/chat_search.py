"""Search across chats: which sessions mention every word of a query, with a snippet. No Qt.

Any session store works (``list()`` + ``transcript()``, both async: the SQLite store reads on
aiosqlite's thread, PostgreSQL on its pool). Matching ignores case and spacing, every word of the
query must appear in the session (title or one message); it runs in a worker thread, never on the
caller's (the UI's) loop thread.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..aio import run_blocking
from .chat_events import SessionInfo

SNIPPET_CHARS = 60
MAX_QUERY_CHARS = 200


@dataclass(frozen=True)
class ChatHit:
    session_id: str
    title: str
    snippet: str  # the message around the first match ("" when only the title matched)
    updated_at: str


def query_terms(query: str) -> list[str]:
    return [term.casefold() for term in str(query or "")[:MAX_QUERY_CHARS].split()]


def _fold(text: str) -> str:
    return " ".join(str(text or "").split()).casefold()


def snippet(text: str, term: str, width: int = SNIPPET_CHARS) -> str:
    flat = " ".join(str(text or "").split())
    at = flat.casefold().find(term)
    start = max(0, at - width // 3) if at >= 0 else 0
    piece = flat[start:start + width]
    return ("…" if start > 0 else "") + piece + ("…" if start + width < len(flat) else "")


def match_sessions(sessions: list[SessionInfo], transcripts: dict[str, list[dict[str, Any]]],
                   terms: list[str], limit: int) -> list[ChatHit]:
    hits = []
    for info in sessions:
        entries = transcripts.get(info.id, [])
        texts = [_fold(info.title)] + [_fold(e.get("content", "")) for e in entries]
        if not all(any(term in text for text in texts) for term in terms):
            continue
        found = next((e for e in entries if terms[0] in _fold(e.get("content", ""))), None)
        hits.append(ChatHit(info.id, info.title, snippet(found["content"], terms[0]) if found else "", info.updated_at))
        if len(hits) >= limit:
            break
    return hits


async def search_chats(store: Any, query: str, *, limit: int = 100) -> list[ChatHit]:
    """Sessions (newest first) whose title or messages contain every word of ``query``."""
    terms = query_terms(query)
    if not terms:
        return []
    sessions = await store.list()
    transcripts = {info.id: await store.transcript(info.id) for info in sessions}
    return await run_blocking(match_sessions, sessions, transcripts, terms, limit)
