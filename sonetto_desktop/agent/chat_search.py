"""Search across chats: which sessions mention every word of a query, and in which messages. No Qt.

Any session store works (``list()`` + ``transcript()``, both async: the SQLite store reads on
aiosqlite's thread, PostgreSQL on its pool). Matching ignores case and spacing; a query's words
are split at spaces and at punctuation (「咖啡，拿铁」 is two words); every word must appear in
the session (title or one message). Each hit names the messages that matched (the most words
first, up to ``MESSAGES_PER_CHAT``) with a snippet, so a person can jump to them. It runs in a
worker thread, never on the caller's (the UI's) loop thread.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..aio import run_blocking
from ..memory.unicode_text import query_words
from .chat_events import SessionInfo

SNIPPET_CHARS = 60
MAX_QUERY_CHARS = 200
MESSAGES_PER_CHAT = 3


@dataclass(frozen=True)
class MessageHit:
    """One message that matched: where it is (its turn, and its place in the transcript for an
    entry stored without a turn id), who said it, and the words around the match."""

    turn_id: str
    index: int
    role: str
    snippet: str


@dataclass(frozen=True)
class ChatHit:
    session_id: str
    title: str
    snippet: str  # the message around the first match ("" when only the title matched)
    updated_at: str
    messages: tuple[MessageHit, ...] = ()


def query_terms(query: str) -> list[str]:
    return [term.casefold() for term in query_words(str(query or "")[:MAX_QUERY_CHARS])]


def _fold(text: str) -> str:
    return " ".join(str(text or "").split()).casefold()


def snippet(text: str, term: str, width: int = SNIPPET_CHARS) -> str:
    flat = " ".join(str(text or "").split())
    at = flat.casefold().find(term)
    start = max(0, at - width // 3) if at >= 0 else 0
    piece = flat[start:start + width]
    return ("…" if start > 0 else "") + piece + ("…" if start + width < len(flat) else "")


def _messages(entries: list[dict[str, Any]], texts: list[str], terms: list[str]) -> tuple[MessageHit, ...]:
    """The messages with the most of ``terms`` (at least one), in the order they were said."""
    counted = [(sum(term in text for term in terms), i) for i, text in enumerate(texts)]
    best = sorted((c for c in counted if c[0]), key=lambda c: (-c[0], c[1]))[:MESSAGES_PER_CHAT]
    hits = []
    for _count, i in sorted(best, key=lambda c: c[1]):
        entry = entries[i]
        term = next(t for t in terms if t in texts[i])
        hits.append(MessageHit(str(entry.get("turn_id") or ""), i, str(entry.get("role") or ""),
                               snippet(entry.get("content", ""), term)))
    return tuple(hits)


def match_sessions(sessions: list[SessionInfo], transcripts: dict[str, list[dict[str, Any]]],
                   terms: list[str], limit: int) -> list[ChatHit]:
    hits = []
    for info in sessions:
        entries = transcripts.get(info.id, [])
        contents = [_fold(e.get("content", "")) for e in entries]
        texts = [_fold(info.title), *contents]
        if not all(any(term in text for text in texts) for term in terms):
            continue
        messages = _messages(entries, contents, terms)
        found = next((e for e in entries if terms[0] in _fold(e.get("content", ""))), None)
        hits.append(ChatHit(info.id, info.title, snippet(found["content"], terms[0]) if found else "",
                            info.updated_at, messages))
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
