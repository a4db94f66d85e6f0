"""AgentLifecycle: starting and stopping the agents of ``AppServices`` (a part of it). Qt-free.

Starting: the agents' modules imported off the loop (not the LLM stack), one HTTP pool for every
model, lazy models (``LazyModel``: built, and the stack imported, where first used), recall's model,
the memory writer with its daily tidy-up pass (paused when the store failed its self-check: a store
we cannot read is never written), and the chat engine. Stopping: chat, then the writer (drained,
bounded), then the pool.
"""

from __future__ import annotations

import logging
from typing import Any

from .aio import import_off_loop, run_blocking
from .config.settings import Settings
from .memory.lazy_model import LazyModel
from .redaction import register_secret

log = logging.getLogger(__name__)

#: Imported off the event loop by ``start_agents``; none of them imports the LLM stack (see
#: tests/test_lazy_llm.py), which comes with the first use of a model.
AGENT_MODULES = ("sonetto_desktop.memory.retrieval.recall", "sonetto_desktop.memory.writer.pipeline",
                 "sonetto_desktop.memory.writer.hygiene", "sonetto_desktop.agent.engine",
                 "sonetto_desktop.agent.llm", "sonetto_desktop.memory.ltm", "sonetto_desktop.postgres_setup",
                 "httpx")  # httpx brings httpcore, h11, click, rich…: ~0.1-0.2 s of imports


class AgentLifecycle:
    """Needs the services' ``settings``, ``data_dir``, ``store``, ``memory``, ``recall``, ``ltm``, feeds and
    agent fields (``AppServices``)."""

    async def start_agents(self, *, chat: bool = True) -> None:
        """Import the agents' modules off the loop (not the LLM stack: see the module docstring), then
        start the writer (paused when the store failed its self-check: a store we cannot read is
        never written; turns wait in the journal) and the chat engine. ``chat=False`` (the MCP
        server): recall's model and the writer only, no chat engine and no daily tidy-up pass (the
        app runs that one). Idempotent."""
        if self._agents_started:
            return
        await self.checked()  # the writer starts paused when the store failed its check
        self._agents_chat = chat
        await import_off_loop(AGENT_MODULES)
        assert self.memory is not None, "AppServices is not open"
        await self._open_http()
        recall = await run_blocking(lambda: self.recall)
        recall.llm = self._model(self.settings)
        self._start_writer(recall, tidy_up=chat)
        self._agents_started = True  # the writer runs: a failed chat start must not make a second one
        if chat:
            await self._start_chat()

    async def _open_http(self) -> None:
        """One HTTP connection pool for every model, owned here and closed at shutdown; built in a
        worker (its TLS context reads the CA bundle: ~0.1 s that the loop would stall for)."""
        import httpx

        self._http = await run_blocking(httpx.AsyncClient,
                                        limits=httpx.Limits(max_connections=20, max_keepalive_connections=5))

    def _model(self, settings: Settings, **options: Any) -> LazyModel | None:
        """The model for ``settings`` over the shared pool, built (importing the LLM stack) where it
        is first used; None without a configured endpoint."""
        from .agent.llm import build_llm

        if not settings.is_llm_configured:
            return None
        key = settings.api_key.strip()
        register_secret(key)  # hidden from the log before the model exists
        return LazyModel(lambda: build_llm(settings, http_async_client=self._http, **options), api_key=key)

    def _start_writer(self, recall: Any, *, tidy_up: bool) -> None:
        """The memory writer (and, for the app, its daily tidy-up pass): running when the store
        passed its check, else paused; offline (a memory server away), its turns wait in the journal."""
        from .agent.llm_errors import describe_llm_error
        from .memory.writer.hygiene import STATE_FILE, MemoryHygiene
        from .memory.writer.pipeline import MemoryWriter

        assert self.memory is not None

        def describe(exc: BaseException, api_key: str) -> str:
            info = describe_llm_error(exc, api_key=api_key)
            return f"{info.zh}（{info.code}）"

        self.writer = MemoryWriter(self.memory.as_actor("agent"), self._model(self.settings),
                                   journal_path=getattr(self.store, "journal_path", None),  # a server: kept here
                                   events=self._writer_events, retriever=lambda: recall.mechanical,
                                   describe_error=describe, user_name=lambda: self.settings.user_name,
                                   max_tool_calls=self.settings.writer_max_tool_calls,
                                   max_changed=self.settings.writer_max_changed_memories)
        if tidy_up:
            self.hygiene = MemoryHygiene(self.writer, self.data_dir / STATE_FILE,
                                         retriever=lambda: recall.mechanical, user_name=lambda: self.settings.user_name)
        if self.store_ok:
            self.writer.start()
            if self.hygiene is not None:
                self.hygiene.start()
        else:
            self.writer.pause()
        status = self.store_status
        if status is not None and not status.online:  # offline: turns wait in the journal
            self._on_store_status(status)

    async def _start_chat(self) -> None:
        """The chat engine, its sessions on the memory server when there is one (falling back to this
        device's ``sessions.db`` when the server's are unavailable)."""
        from .agent.engine import ChatEngine
        from .agent.llm import build_llm
        from .postgres_setup import chat_session_db

        def chat_model() -> Any:  # called by the engine at the first turn, on a worker thread
            return build_llm(self.settings, http_async_client=self._http, streaming=True)

        remote = chat_session_db(self.settings, self.store, secrets=lambda: (self.settings.api_key,))
        self.chat = ChatEngine(self.ltm, data_dir=self.data_dir, settings_provider=lambda: self.settings,
                               llm_factory=chat_model, session_db=remote)
        try:
            await self.chat.start()
        except Exception:
            if remote is None:
                raise
            log.warning("chat sessions on the memory server are unavailable; using this device's", exc_info=True)
            self.chat = ChatEngine(self.ltm, data_dir=self.data_dir, settings_provider=lambda: self.settings,
                                   llm_factory=chat_model)
            await self.chat.start()

    async def warm_up(self) -> None:
        """Load the tokenizer and build the offline recall index now rather than at the first message."""
        await run_blocking(lambda: self.recall.mechanical.warm_up())

    async def warm_up_writer(self) -> None:
        """With a model configured: build the writer's index now (a full read, ~1 s of Python at
        50,000 memories) rather than in its first turn, which follows the first reply."""
        writer = self.writer
        if writer is not None and self.store_ok and writer.status().configured:
            await run_blocking(writer.warm_up)

    async def _stop_agents(self) -> None:
        """Chat, then writer (the objects stay readable, stopped, until new ones are started)."""
        if not self._agents_started:
            return
        if self.chat is not None:
            await self.chat.close()
        if self.hygiene is not None:
            await self.hygiene.stop()
            self.hygiene.close()
        if self.writer is not None:
            drained = await self.writer.stop(self.writer_drain_timeout)
            self.shutdown_steps.append("writer_drained" if drained else "writer_journaled")
            self.writer.close()
        if self._http is not None:
            await self._http.aclose()
            self._http = None
        self._ltm = None
        self._agents_started = False
