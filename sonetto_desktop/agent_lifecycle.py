"""Agents: the running agents of ``AppServices`` over one open store, and the HTTP pool they share. Qt-free.

Starting: the agents' modules imported off the loop (not the LLM stack), one HTTP pool for every
model (made, with httpx imported, by the first model built: an app nobody chats with holds neither,
~9 MB), lazy models (``LazyModel``: built, and the stack imported, where first used), recall's model,
the memory writer with its daily tidy-up pass (paused when the store failed its self-check: a store
we cannot read is never written), and the chat engine. Stopping: chat, then the writer (drained,
bounded), then the pool. ``AppServices`` makes a new ``Agents`` whenever the store is opened again.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from .aio import import_off_loop, run_blocking
from .config.settings import Settings
from .memory.lazy_model import LazyModel
from .redaction import register_secret
from .store_lifecycle import StoreHandle

if TYPE_CHECKING:  # imported by start(), never at import time
    from .agent.engine import ChatEngine
    from .memory.writer.hygiene import MemoryHygiene
    from .memory.writer.pipeline import MemoryWriter

log = logging.getLogger(__name__)

#: Imported off the event loop by ``start``; none of them imports the LLM stack (see
#: tests/test_lazy_llm.py), which comes with the first use of a model.
AGENT_MODULES = ("sonetto_desktop.memory.retrieval.recall", "sonetto_desktop.memory.writer.pipeline",
                 "sonetto_desktop.memory.writer.hygiene", "sonetto_desktop.agent.engine",
                 "sonetto_desktop.agent.llm", "sonetto_desktop.memory.ltm", "sonetto_desktop.postgres_setup",
                 "sonetto_desktop.agent.recall_setup", "sonetto_desktop.memory.retrieval.vector_sync")


def lazy_model(settings: Settings, http: Callable[[], Any], **options: Any) -> LazyModel | None:
    """The one way a model is made (chat's writer and recall over the agents' pool, a history import
    without agents over a client of its own): built, importing the LLM stack, where it is first used,
    over the HTTP client ``http()`` gives then; None without a configured endpoint. ``options``:
    ``build_llm``'s (e.g. ``streaming``)."""
    if not settings.is_llm_configured:
        return None
    key = settings.api_key.strip()
    register_secret(key)  # hidden from the log before the model exists

    def build() -> Any:
        from .agent.llm import build_llm

        return build_llm(settings, http_async_client=http(), **options)

    return LazyModel(build, api_key=key)


def make_writer(memory: Any, llm: Any, settings: Callable[[], Settings], recall: Any, **options: Any) -> MemoryWriter:
    """The one way a memory writer is made, for chat's turns and for a history import: ``memory``
    (operations, as the actor its turns are written as), ``llm`` (the model, or None), the settings
    it follows live (the user's name, the UI's language, the limits), ``recall`` (its offline
    retriever lists the memories). ``options``: the rest of ``MemoryWriter`` (the journal, the events
    feed, ``on_written``, pacing)."""
    from .agent.llm_errors import describe_llm_error
    from .memory.writer.pipeline import MemoryWriter

    def describe(exc: BaseException, api_key: str, language: str) -> str:  # in the language asked (the UI's)
        info = describe_llm_error(exc, api_key=api_key)
        return f"{info.en} ({info.code})" if language == "en" else f"{info.zh}（{info.code}）"

    now = settings()
    return MemoryWriter(memory, llm, retriever=lambda: recall.mechanical, describe_error=describe,
                        user_name=lambda: settings().user_name, language=lambda: settings().language,
                        max_tool_calls=now.writer_max_tool_calls, max_changed=now.writer_max_changed_memories,
                        **options)


@dataclass(frozen=True)
class AgentsStarted:
    """New agents run (at start, or after the store was opened again): views drop the old chat engine
    and writer and follow these (``chat`` is None for a front end without chat, or when it failed)."""

    chat: Any
    writer: Any


class Agents:
    """See the module docstring. ``settings``: the services' current settings (they change in place);
    ``publish_writer``: the services' event feed for the writer's pipeline events."""

    def __init__(self, handle: StoreHandle, settings: Callable[[], Settings], *,
                 publish_writer: Callable[[object], None], drain_timeout: float, embeddings: Any = None) -> None:
        """``embeddings``: options of the embeddings model's sync (``RecallVectors``' ``builtin`` and
        ``start_delay``; default: what is installed)."""
        self._handle = handle
        self._embeddings = dict(embeddings or {})
        self._settings = settings
        self._publish_writer = publish_writer
        self._drain_timeout = drain_timeout
        self.writer: MemoryWriter | None = None
        self.hygiene: MemoryHygiene | None = None
        self.chat: ChatEngine | None = None
        self.ltm: Any = None  # LongTermMemory: recall + writer, as the graph sees them
        self.started = False
        self.with_chat = True
        self.shutdown_steps: list[str] = []
        self._http: Any = None  # httpx.AsyncClient of the models: made by the first model built (_http_pool)
        self._http_lock = threading.Lock()
        self._http_closed = False  # stop closed the pool: no other is made
        self._events: Any = None  # the writer's own feed, relayed onto the services' one
        self._paused_offline = False  # the writer was paused because the memory server went away
        self.vectors: Any = None  # RecallVectors: the embeddings model's sync (app only), made by start()

    async def start(self, *, chat: bool = True) -> None:
        """Import the agents' modules off the loop (not the LLM stack: see the module docstring), then
        start the writer (paused when the store failed its self-check: a store we cannot read is
        never written; turns wait in the journal) and the chat engine. ``chat=False`` (the MCP
        server): recall's model and the writer only, no chat engine and no daily tidy-up pass (the
        app runs that one). Idempotent."""
        if self.started:
            return
        self.with_chat = chat
        await import_off_loop(AGENT_MODULES)
        handle = self._handle
        assert handle.memory is not None, "the store is not open"
        recall = await run_blocking(lambda: handle.recall)
        recall.llm = self.model(self._settings())
        if chat:
            from .agent.recall_setup import RecallVectors  # imported off the loop above

            self.vectors = RecallVectors(self._publish_writer, **self._embeddings)  # on the services' feed
            self.vectors.apply(self._settings(), handle.store, recall)
        self._start_writer(recall, tidy_up=chat)
        self.started = True  # the writer runs: a failed chat start must not make a second one
        if chat:
            await self._start_chat()

    def _http_pool(self) -> Any:
        """One HTTP connection pool for every model, owned here and closed at stop: made by the first
        model built, in the worker thread that builds it (never on the loop: httpx's import and the
        TLS context, which reads the CA bundle, take ~0.1-0.2 s). After stop, none is made."""
        with self._http_lock:
            if self._http is not None:
                return self._http
        import httpx  # (made outside the lock: stop, on the loop, never waits for it)

        made = httpx.AsyncClient(limits=httpx.Limits(max_connections=20, max_keepalive_connections=5))
        with self._http_lock:
            if self._http_closed:
                raise RuntimeError("the agents have stopped: no model is built over their connections")
            if self._http is None:  # (else another model's build made it meanwhile: ours, unused, is dropped)
                self._http = made
            return self._http

    def model(self, settings: Settings, **options: Any) -> LazyModel | None:
        """The model for ``settings`` over the shared pool, built (importing the LLM stack and making
        the pool) where it is first used; None without a configured endpoint."""
        return lazy_model(settings, self._http_pool, **options)

    def _start_writer(self, recall: Any, *, tidy_up: bool) -> None:
        """The memory writer (and, for the app, its daily tidy-up pass): running when the store
        passed its check, else paused; offline (a memory server away), its turns wait in the journal."""
        from .memory.events import EventFeed
        from .memory.ltm import LongTermMemory
        from .memory.writer.hygiene import STATE_FILE, MemoryHygiene

        handle = self._handle
        assert handle.memory is not None
        settings = self._settings
        self._events = EventFeed()
        self._events.subscribe(self._publish_writer)
        self.writer = make_writer(handle.memory.as_actor("agent"), self.model(settings()), settings, recall,
                                  journal_path=getattr(handle.store, "journal_path", None),  # a server: kept here
                                  events=self._events)
        self.ltm = LongTermMemory(recall, self.writer)
        if tidy_up:
            self.hygiene = MemoryHygiene(self.writer, handle.data_dir / STATE_FILE,
                                         retriever=lambda: recall.mechanical, user_name=lambda: settings().user_name)
        if handle.ok:
            self.writer.start()
            if self.hygiene is not None:
                self.hygiene.start()
        else:
            self.writer.pause()
        status = handle.status
        if status is not None and not status.online:  # offline: turns wait in the journal
            self.follow_store_status(status)

    def follow_store_status(self, status: Any) -> None:
        """The memory server went away (the writer pauses, turns wait in the journal) or came back
        (it resumes, unless the person paused it)."""
        writer = self.writer
        if writer is None:
            return
        if not status.online and not writer.paused:
            writer.pause()
            self._paused_offline = True
        elif status.online and self._paused_offline:
            self._paused_offline = False
            writer.resume()

    async def _start_chat(self) -> None:
        """The chat engine, its sessions on the memory server when there is one (falling back to this
        device's ``sessions.db`` when the server's are unavailable)."""
        from .agent.engine import ChatEngine
        from .agent.llm import build_llm
        from .postgres_setup import chat_session_db

        handle, settings, http = self._handle, self._settings, self._http_pool

        def chat_model() -> Any:  # called by the engine at the first turn, on a worker thread
            return build_llm(settings(), http_async_client=http(), streaming=True)

        remote = chat_session_db(settings(), handle.store, secrets=lambda: (settings().api_key,))
        self.chat = ChatEngine(self.ltm, data_dir=handle.data_dir, settings_provider=settings,
                               llm_factory=chat_model, session_db=remote)
        try:
            await self.chat.start()
        except Exception:
            if remote is None:
                raise
            log.warning("chat sessions on the memory server are unavailable; using this device's", exc_info=True)
            self.chat = ChatEngine(self.ltm, data_dir=handle.data_dir, settings_provider=settings,
                                   llm_factory=chat_model)
            await self.chat.start()

    def apply_settings(self, new: Settings) -> None:
        """The models, recall mode and timeouts follow ``new`` (same store)."""
        if not self.started:
            return
        if self.chat is not None:
            self.chat.reload_settings()
        if self.writer is not None:
            self.writer.set_llm(self.model(new))
        self._handle.recall.llm = self.model(new)
        if self.vectors is not None:
            self.vectors.apply(new, self._handle.store, self._handle.recall)

    async def warm_up(self) -> None:
        """Load the tokenizer and build the offline recall index now rather than at the first message."""
        handle = self._handle
        await run_blocking(lambda: handle.recall.mechanical.warm_up())

    async def warm_up_writer(self) -> None:
        """With a model configured: build the writer's index now (a full read, ~1 s of Python at
        50,000 memories) rather than in its first turn, which follows the first reply."""
        writer = self.writer
        if writer is not None and self._handle.ok and writer.status().configured:
            await run_blocking(writer.warm_up)

    async def stop(self) -> None:
        """Chat, then writer (the objects stay readable, stopped). Safe to call twice."""
        if not self.started:
            return
        self.started = False
        if self.chat is not None:
            await self.chat.close()
        if self.hygiene is not None:
            await self.hygiene.stop()
            self.hygiene.close()
        if self.writer is not None:
            drained = await self.writer.stop(self._drain_timeout)
            self.shutdown_steps.append("writer_drained" if drained else "writer_journaled")
            self.writer.close()
        if self.vectors is not None:
            await run_blocking(self.vectors.stop)
        with self._http_lock:  # (a model built from now on gets none: see _http_pool)
            http, self._http, self._http_closed = self._http, None, True
        if http is not None:
            await http.aclose()
