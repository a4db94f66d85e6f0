"""ChatEngine: what the UI drives. Streams a turn as ChatEvents; persists sessions. No Qt.

Life cycle: ``await start()`` -> ``send`` / sessions API -> ``await close()``.

A turn (``send(session_id, text)``) yields, in order: one ``memories`` event (possibly empty), then
``token`` / ``tool_start`` / ``tool_end`` events, then exactly one ``done`` or ``error``.

Decisions (documented contract):
- The user's message is written to the transcript and to the checkpointed history *before* the
  model is called, so it survives every failure; the next message works normally.
- Failure -> one ``error`` event (code, Chinese, English); the transcript gets an assistant entry
  with whatever text had streamed (maybe "") and ``error`` = {code, zh, en}. Failed turns are not
  handed to the memory writer.
- ``cancel(session_id)`` mid-reply -> an ``error`` event with code ``cancelled``; the partial reply
  is kept in the transcript *and* in the model's history, so the conversation continues from it.
  Cancelled turns, like failed ones, are not handed to the memory writer: one stopped (or failed)
  after ``ltm_write`` handed it over (while it was journaled, or later: the app closing) is taken
  back before its stream ends (``LongTermMemory.take_back``), never written, not even at the next start.
- Empty / whitespace text -> ``error`` code ``input``; nothing is stored. Text longer than
  ``max_input_chars`` (default 20,000) -> ``error`` code ``input``, nothing is stored and nothing is
  truncated: the UI keeps the text in the input box so nothing is lost.
- A second ``send`` to a session that is still replying -> ``error`` code ``input`` (busy).
- An unknown ``session_id`` is created on first use.
- No model configured -> recall still runs (``memories`` event), then ``error`` code ``unconfigured``.
- The session database cannot be written -> ``error`` code ``storage``, whose message names the
  reason (disk full, read-only, busy, damaged). A damaged ``sessions.db`` (at start or found while
  chatting) is moved aside, kept as ``sessions.db.broken-<time>`` (``recovered_from``), and a new
  one is started: the error says so and the next message works.
- A streamed reply with no first chunk within ``first_token_timeout`` seconds, or no next chunk
  within ``idle_timeout``, ends with ``error`` code ``timeout`` (whatever streamed is kept, as on
  cancel); a slow reply that keeps streaming is never cut off.
- A reply that stops before its end — its stream closed with no finish (a server that went away
  mid-reply), or cut at the model's length limit (``finish_reason`` "length") — ends with ``error``
  code ``cut_off``, whatever streamed kept as at a stall; before, the half sentence was the answer.
- The engine does not own ``ltm``: the app starts it before and stops it after the engine.
- The LLM stack (LangChain, LangGraph, the OpenAI client: ~100 MB) is imported when the first
  turn starts, on a worker thread, and the model and the graph are built then (``start`` opens only
  the session list): listing sessions and reading transcripts never import it.
- Parts the engine owns: the session database (``SessionDatabase``, or the memory server's), the
  temporary chats (``SessionStore.temporary()``), the model and its graphs (``ChatModel``) and the running
  turns (``TurnRunner``).
- Memory switches per session (``set_session_memory``): with recall off nothing is recalled (and
  the search tool declines); with writing off the turn is not handed to the writer (not journaled).
  A temporary chat (``new_session(temporary=True)``) has both off and is kept in memory only: no
  transcript, no checkpoint on disk; it is gone when deleted or when the engine closes.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..memory.retrieval.modes import RetrievalMode
from .chat_events import ChatEvent, SessionInfo
from .chat_export import export_chat
from .chat_model import ChatModel, LLMFactory
from .chat_search import ChatHit, search_chats
from .session_db import SessionDatabase
from .sessions import SessionNotFound, SessionStore
from .turn_runner import TurnLimits, TurnRunner

if TYPE_CHECKING:  # the LLM stack: imported by the first turn, on a worker thread (TURN_MODULES)
    from collections.abc import AsyncIterator, Awaitable, Callable

    from langchain_core.language_models import BaseChatModel


log = logging.getLogger(__name__)

MAX_INPUT_CHARS = 20_000
DB_NAME = "sessions.db"


class ChatEngine:
    """Sonetto's chat engine over a LongTermMemory ``ltm``.

    The model comes from ``llm_factory()`` (returns a chat model or None) or, if not given, from
    ``build_llm(settings_provider(), streaming=True)``; the retrieval mode from the settings unless
    ``retrieval_mode`` overrides the
    settings' retrieval mode (default MECHANICAL). ``graph_options`` go to :func:`build_graph`
    (``tools``, ``now``, history limits). ``ltm`` is a ``LongTermMemory`` (recall + writer).

    A streamed reply fails with ``timeout`` when no first chunk arrives within
    ``first_token_timeout`` seconds, or no next chunk within ``idle_timeout`` (settings
    ``first_token_timeout`` / ``stream_idle_timeout``; see ``stall_guard``).
    """

    def __init__(
        self,
        ltm: Any,
        *,
        data_dir: str | Path,
        settings_provider: Callable[[], Any] | None = None,
        llm_factory: LLMFactory | None = None,
        retrieval_mode: RetrievalMode | str | None = None,
        max_input_chars: int = MAX_INPUT_CHARS,
        recursion_limit: int = 25,
        session_db: Any = None,
        **graph_options: Any,
    ) -> None:
        self.ltm = ltm
        self.data_dir = Path(data_dir)
        self._settings_provider = settings_provider
        self._started = False
        self.model = ChatModel(ltm, settings=self._settings, llm_factory=llm_factory, retrieval_mode=retrieval_mode,
                               graph_options=graph_options)
        # sessions + checkpoints: sessions.db here, or ``session_db`` elsewhere (the memory server: pg_sessions)
        self._db = session_db or SessionDatabase(self.data_dir / DB_NAME, secrets=lambda: (self.model.secret,))
        self._temporary = SessionStore.temporary()
        self.turns = TurnRunner(self._db, self._temporary, self.model, self.session,
                                TurnLimits(max_input_chars, recursion_limit))

    # ── limits (the runner's; kept as attributes for callers and tests) ──

    @property
    def max_input_chars(self) -> int:
        return self.turns.limits.max_input_chars

    @property
    def recursion_limit(self) -> int:
        return self.turns.limits.recursion_limit

    @property
    def first_token_timeout(self) -> float:
        return self.turns.limits.first_token_timeout

    @first_token_timeout.setter
    def first_token_timeout(self, seconds: float) -> None:
        self.turns.limits.first_token_timeout = float(seconds)

    @property
    def idle_timeout(self) -> float:
        return self.turns.limits.idle_timeout

    @idle_timeout.setter
    def idle_timeout(self, seconds: float) -> None:
        self.turns.limits.idle_timeout = float(seconds)

    @property
    def retrieval_mode(self) -> RetrievalMode:
        return self.model.retrieval_mode

    @property
    def _store(self) -> Any:
        """The saved sessions' store (the session database's)."""
        return self._db.store

    @property
    def _llm(self) -> BaseChatModel | None:
        return self.model.llm

    # ── life cycle ──────────────────────────────────────────────────────────────────────────

    async def start(self) -> None:
        """Open ``<data_dir>/sessions.db``'s session list (the checkpointer, the model and the graph
        come with the first turn).

        A database file that is not readable as SQLite is moved aside (``sessions.db.broken-<time>``,
        kept for the user, path in ``recovered_from``) and a fresh one is started. An operational
        error (locked by another program, read-only, disk full) is raised as is: the file is fine.
        """
        if self._started:
            return
        await self._db.open()
        self._started = self.turns.accepting = True
        self.reload_settings()

    @property
    def recovered_from(self) -> Path | None:
        """Where a damaged ``sessions.db`` was kept when it was replaced by a new one (else None)."""
        return self._db.recovered_from

    @property
    def _saver(self) -> Any:
        """LangGraph's checkpointer, ``None`` until the first turn (or ``delete_session``) opened it."""
        return self._db.saver

    async def close(self) -> None:
        """Cancel running turns (their partial replies are kept), then close the databases."""
        self.turns.accepting = False
        await self.turns.stop_all()
        for session_id in await self._temporary.clear():  # temporary chats end with the engine
            self.model.forget_temporary(session_id)
        self._started = False
        try:
            await self._db.close()
        finally:
            await self.model.close()

    @property
    def started(self) -> bool:
        return self._started

    @property
    def prepared(self) -> bool:
        """What a turn needs is imported (or being imported)."""
        return self.model.prepared

    async def prepare(self) -> None:
        """The person started typing: import what a turn needs now (see ``ChatModel.prepare``)."""
        await self.model.prepare()

    @property
    def configured(self) -> bool:
        """A model is configured (see ``ChatModel.configured``)."""
        return self.model.configured

    def _settings(self) -> Any:
        try:
            return self._settings_provider() if self._settings_provider is not None else None
        except Exception as exc:  # noqa: BLE001 - treated as "no settings"
            log.warning("could not read the settings: %s", type(exc).__name__)
            return None

    def reload_settings(self) -> None:
        """Take the retrieval mode and timeouts from the settings now, and build the model from the
        factory / settings at the next turn (off the event loop); never raises."""
        settings = self._settings()
        if settings is not None:
            try:
                self.first_token_timeout = float(getattr(settings, "first_token_timeout", self.first_token_timeout))
                self.idle_timeout = float(getattr(settings, "stream_idle_timeout", self.idle_timeout))
            except (TypeError, ValueError) as exc:  # keep the previous timeouts
                log.warning("could not apply the settings: %s", type(exc).__name__)
        self.model.reload(settings)

    def set_llm(self, llm: BaseChatModel | None) -> None:
        """Use ``llm`` from the next turn on (None: not configured). Running turns keep their model."""
        self.model.set_llm(llm)

    def set_retrieval_mode(self, mode: RetrievalMode | str) -> None:
        self.model.set_retrieval_mode(mode)

    # ── turns (the runner's) ───────────────────────────────────────────────────────────────

    def send(self, session_id: str, text: str, *, replace_turn: str = "",
             hold: Callable[[], Awaitable[Any]] | None = None) -> AsyncIterator[ChatEvent]:
        """Run one turn; see the module docstring for the event contract. ``replace_turn``: first
        drop that turn and everything after it (regenerate, edit and resend; see turn_rewind).
        ``hold()``: awaited after the message is stored, before the model is asked; a ``cancel``
        meanwhile stops the turn with its message kept and nothing asked."""
        return self.turns.send(session_id, text, replace_turn=replace_turn, hold=hold)

    def cancel(self, session_id: str) -> bool:
        """Stop the reply running in ``session_id``; False if none was running."""
        return self.turns.cancel(session_id)

    def is_busy(self, session_id: str) -> bool:
        return self.turns.is_busy(session_id)

    # ── sessions ────────────────────────────────────────────────────────────────────────────

    async def list_sessions(self) -> list[SessionInfo]:
        """Temporary chats first, then the saved sessions, newest activity first."""
        switches = await self._store.memory_switches()
        saved = [_with_switches(info, switches) for info in await self._store.list()]
        return [*await self._temporary.list(), *saved]

    async def create_session(self, title: str | None = None, *, temporary: bool = False) -> SessionInfo:
        if temporary:
            return await self._temporary.create(title)
        return await self._store.create(title)

    async def new_session(self, *, temporary: bool = False, title: str | None = None) -> SessionInfo:
        """A new chat; ``temporary``: not remembered, not recalled, not saved (see the module doc)."""
        return await self.create_session(title, temporary=temporary)

    async def rename_session(self, session_id: str, title: str) -> SessionInfo:
        info = await self._store_for(session_id).rename(session_id, title)
        return await self.session(info.id) or info

    async def set_session_memory(
        self, session_id: str, *, recall: bool | None = None, write: bool | None = None
    ) -> SessionInfo:
        """Switch recall and/or writing on or off for one saved session (None: leave as is); the
        next turn follows. A temporary chat never uses memory: switching it on raises ValueError;
        an unknown session raises SessionNotFound."""
        if session_id in self._temporary:
            if recall or write:
                raise ValueError("临时对话不使用记忆 / a temporary chat does not use memory")
            return await self._temporary.get(session_id)  # type: ignore[return-value]
        info = await self.session(session_id)
        if info is None:
            raise SessionNotFound(session_id)
        new_recall = info.recall if recall is None else bool(recall)
        new_write = info.write if write is None else bool(write)
        await self._store.set_memory_switches(session_id, new_recall, new_write)
        return replace(info, recall=new_recall, write=new_write)

    async def delete_session(self, session_id: str) -> bool:
        """Delete the session, its transcript and its checkpoints (a running reply is cancelled)."""
        await self.turns.stop(session_id)
        if session_id in self._temporary:
            self.model.forget_temporary(session_id)
            return await self._temporary.delete(session_id)
        existed = await self._store.delete(session_id)
        await self._db.delete_checkpoints(session_id)  # LangGraph's, without importing it if unused yet
        return existed

    async def transcript(self, session_id: str) -> list[dict[str, Any]]:
        """``[{role, content, memories, turn_id, created_at, error?}]``, oldest first ([] if unknown)."""
        return await self._store_for(session_id).transcript(session_id)

    async def session(self, session_id: str) -> SessionInfo | None:
        if session_id in self._temporary:
            return await self._temporary.get(session_id)
        info = await self._store.get(session_id)
        return _with_switches(info, await self._store.memory_switches()) if info is not None else None

    def _store_for(self, session_id: str) -> Any:
        return self.turns.store_for(session_id)

    async def search_chats(self, query: str, *, limit: int = 100) -> list[ChatHit]:
        """Sessions whose title or messages contain every word of ``query`` (see chat_search)."""
        return await search_chats(self._store, query, limit=limit)

    async def export_chat(self, session_id: str, path: str | Path, *, language: str = "zh_CN") -> Path:
        """Write a session as Markdown, atomically, off the loop thread (see chat_export)."""
        return await export_chat(self._store_for(session_id), session_id, path, language=language)


def _with_switches(info: SessionInfo, switches: dict[str, tuple[bool, bool]]) -> SessionInfo:
    recall, write = switches.get(info.id, (True, True))
    return info if (recall and write) else replace(info, recall=recall, write=write)


__all__ = ["ChatEngine", "MAX_INPUT_CHARS", "SessionNotFound"]
