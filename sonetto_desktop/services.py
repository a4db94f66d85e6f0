"""AppServices: the Qt-free composition root every front end uses (window, command line, MCP server).

    services = await AppServices.open(data_dir, settings=settings)   # store, memory ops, watcher
    await services.start_agents()        # recall's model, background writer, chat engine
    services.memory.add("小林喜欢猫", "品味")          # every write: user, agent, cli, mcp:<client>
    unsubscribe = services.subscribe(on_change)        # the one change channel (MemoryChange)
    await services.close()               # ordered: chat -> writer (drained, bounded) -> watcher -> store

What lives here is wiring only: which store the data dir holds (migrating after a backend switch),
which actor a front end writes as, which model each part uses, and the order things start and stop.
Its two parts: ``store_lifecycle.py`` (the store) and ``agent_lifecycle.py`` (the agents).
``open`` is fast and imports no LLM code, so a window can show before ``start_agents``. Neither
imports the LLM stack (LangChain, LangGraph, the OpenAI client: ~100 MB resident): the models are
``LazyModel`` s, built — and the stack imported, on a worker thread — when a model is first used
(the first chat turn, the first turn the writer writes, the first LLM recall, the daily tidy-up).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .aio import run_blocking
from .agent_lifecycle import AgentLifecycle
from .store_lifecycle import StoreLifecycle
from .config.settings import Settings, load_settings
from .memory.stores.base import BaseMemoryManager, SelfCheckReport
from .memory.changes import USER, MemoryChange
from .memory.events import EventFeed
from .memory.stores.migrate import MigrationProblem, MigrationReport
from .memory.forget import ForgetResult, forget_turn
from .memory.review import ReviewInbox
from .memory.operations import MemoryOperations
from .memory.stores.watch import StoreWatcher

if TYPE_CHECKING:  # imported by start_agents(), never by open()
    from .agent.engine import ChatEngine
    from .memory.ltm import LongTermMemory
    from .memory.retrieval.recall import MemoryRecall
    from .memory.writer.events import WriterEvent
    from .memory.writer.hygiene import MemoryHygiene
    from .memory.writer.pipeline import MemoryWriter

log = logging.getLogger(__name__)

WRITER_DRAIN_TIMEOUT = 5.0
_POSTGRES_FIELDS = ("postgres_url", "postgres_password", "postgres_tls", "postgres_schema", "postgres_sessions",
                    "device_name")


def _store_key(settings: Settings) -> tuple:
    """What decides which store is open: a change re-opens it (migrating)."""
    key: tuple = (settings.resolved_data_dir(), settings.store_backend)
    if settings.store_backend == "postgres":
        key += tuple(getattr(settings, name) for name in _POSTGRES_FIELDS)
    return key


class AppServices(StoreLifecycle, AgentLifecycle):
    """See the module docstring. Build it with :meth:`open`."""

    def __init__(self, settings: Settings, *, actor: str = USER, watch: bool = True,
                 writer_drain_timeout: float = WRITER_DRAIN_TIMEOUT) -> None:
        self.settings = settings
        self.actor = actor
        self.writer_drain_timeout = writer_drain_timeout
        self._watch = watch
        self._changes: EventFeed[MemoryChange] = EventFeed()
        self._writer_events: EventFeed[WriterEvent] = EventFeed()
        self.store: BaseMemoryManager | None = None
        self.store_report: SelfCheckReport | None = None
        self.migration: MigrationReport | None = None
        self.memory: MemoryOperations | None = None
        self.writer: MemoryWriter | None = None
        self.hygiene: MemoryHygiene | None = None  # the daily self-cleaning pass (memory/writer/hygiene.py)
        self.review: ReviewInbox | None = None  # review mode's inbox of Sonetto's proposed changes
        self.chat: ChatEngine | None = None
        self._recall: MemoryRecall | None = None
        self._ltm: LongTermMemory | None = None
        self._watcher: StoreWatcher | None = None
        self._unsubscribe_store: Callable[[], None] | None = None
        self._agents_started = False
        self._agents_chat = True
        self._closed = False
        self._store_file: Path | None = None
        self._check_task: asyncio.Task[None] | None = None  # open(check_later=True)'s self-check
        self._store_status: EventFeed[Any] = EventFeed()
        self._unsubscribe_status: Callable[[], None] | None = None
        self._paused_offline = False
        self._http: Any = None  # httpx.AsyncClient of the models, while the agents run
        self.shutdown_steps: list[str] = []

    # ── opening ────────────────────────────────────────────────────────

    @classmethod
    async def open(cls, data_dir: str | Path | None = None, *, settings: Settings | None = None,
                   store_path: str | Path | None = None, actor: str = USER, watch: bool = True,
                   start_agents: bool = False, writer_drain_timeout: float = WRITER_DRAIN_TIMEOUT,
                   check_later: bool = False) -> "AppServices":
        """Open the data dir's memory store (``settings`` default: the saved settings with the
        environment's overrides; ``data_dir`` overrides the settings' one; ``store_path`` opens that
        store file instead, ``.db``/``.sqlite`` as SQLite, anything else as YAML, without migrating).
        ``actor``: who this front end's writes are attributed to. ``watch``: follow other
        processes' writes. ``start_agents``: also start recall, writer and chat. ``check_later``: return
        as soon as the store is open and run its self-check (a full read: ~0.7 s at 50,000 memories)
        in the background — ``store_ok`` is False until ``checked()`` is done, and ``start_agents``
        waits for it (the window uses this to show before the check)."""
        if settings is None:
            settings = await run_blocking(load_settings, with_secret=start_agents)
        if data_dir is not None:
            settings = dataclasses.replace(settings, data_dir=str(data_dir))
        services = cls(settings, actor=actor, watch=watch, writer_drain_timeout=writer_drain_timeout)
        services._store_file = Path(store_path) if store_path is not None else None
        await services._open_store(check=not check_later)
        if start_agents:
            await services.start_agents()
        return services

    @property
    def data_dir(self) -> Path:
        """Where the store, the turn journal and the chat sessions live."""
        if self._store_file is not None:
            return self._store_file.parent
        return self.settings.resolved_data_dir()

    @property
    def store_ok(self) -> bool:
        return self.store_report is not None and self.store_report.ok

    @property
    def migration_problem(self) -> MigrationProblem | None:
        """Why the last backend switch did not (fully) happen, to show the user (``.zh`` / ``.en``;
        ``.opened``: the backend whose store is open instead); ``None`` when all is well."""
        return self.migration.problem if self.migration is not None else None

    async def checked(self) -> None:
        """Wait for the store's self-check started by ``open(check_later=True)`` (no-op otherwise)."""
        if self._check_task is not None:
            await asyncio.shield(self._check_task)

    # ── the change channel ─────────────────────────────────────────────

    def subscribe(self, callback: Callable[[MemoryChange], None]) -> Callable[[], None]:
        """Every committed memory change — this app's (any actor) and other processes' — as one
        :class:`MemoryChange`; stays subscribed across a store re-open (which sends ``reload``)."""
        return self._changes.subscribe(callback)

    @property
    def store_status(self) -> Any:
        """The store's connection state (``postgres_store.StoreStatus``), None for a local file."""
        return getattr(self.store, "status", None)

    def subscribe_store_status(self, callback: Callable[[Any], None]) -> Callable[[], None]:
        """Called on the event loop whenever the memory server goes away or comes back (offline:
        the memories are read-only, the writer waits with the turns journaled)."""
        return self._store_status.subscribe(callback)

    def _on_store_status(self, status: Any) -> None:
        if self.writer is not None:
            if not status.online and not self.writer.paused:
                self.writer.pause()
                self._paused_offline = True
            elif status.online and self._paused_offline:
                self._paused_offline = False
                self.writer.resume()
        self._store_status.publish(status)

    def subscribe_writer(self, callback: Callable[[WriterEvent], None]) -> Callable[[], None]:
        """The background writer's pipeline state (queued / started / done / failed / gave_up /
        status), across writer restarts."""
        return self._writer_events.subscribe(callback)

    # ── recall, writer, chat ───────────────────────────────────────────

    @property
    def recall(self) -> MemoryRecall:
        """Which memories matter for a message (built on first use; offline until a model is set)."""
        if self._recall is None:
            from .memory.retrieval.recall import MemoryRecall

            assert self.store is not None, "AppServices is not open"
            self._recall = MemoryRecall(self.store, None, timeout=self.settings.recall_timeout)
        return self._recall

    @property
    def ltm(self) -> LongTermMemory:
        """The graph's read/write interface (recall + writer)."""
        if self._ltm is None or self._ltm.recall is not self.recall or self._ltm.writer is not self.writer:
            from .memory.ltm import LongTermMemory

            self._ltm = LongTermMemory(self.recall, self.writer)
        return self._ltm

    async def forget_turn(self, turn_id: str, text: str = "") -> ForgetResult:
        """"别记住这个" on the chat message of turn ``turn_id``: what the turn wrote is undone (one undoable
        action), the writer drops it if it has not written it yet, and ``text`` (the message) goes on
        the don't-remember list. See ``memory/forget.py``."""
        assert self.memory is not None, "the store is not open"
        return await forget_turn(self.memory, self.writer, self.dont_remember, turn_id, text)

    # ── settings ───────────────────────────────────────────────────────

    async def apply_settings(self, new: Settings) -> None:
        """Use ``new`` from now on: a new data dir or backend re-opens the store (migrating), with the
        agents restarted; otherwise the models, recall mode and timeouts are rebuilt in place. If the
        new store cannot be opened, the previous one is opened again and the error re-raised."""
        old, self.settings = self.settings, new
        if _store_key(old) != _store_key(new):
            await self._reopen(old)
            return
        if self.review is not None:
            self.review.enabled = bool(new.review_mode)
        if self.chat is not None:  # the agents run: the models follow the new settings
            self.chat.reload_settings()
            if self.writer is not None:
                self.writer.set_llm(self._model(new))
            self.recall.llm = self._model(new)
        if self._recall is not None:
            self._recall.timeout = new.recall_timeout

    async def _reopen(self, fallback: Settings) -> None:
        agents = self._agents_started
        await self._stop_agents()
        if fallback.store_backend == "postgres" and self.settings.store_backend != "postgres":
            from .memory.stores.postgres.migrate import copy_back

            try:  # a device leaving the server takes the memories with it (the server keeps them)
                await run_blocking(copy_back, self.store, self.data_dir, self.settings.store_backend)
            except Exception:
                log.error("could not copy the memories back from the server", exc_info=True)
        await self._close_store()
        try:
            await self._open_store()
        except Exception:
            log.error("could not open the memory store in %s", self.data_dir, exc_info=True)
            self.settings = dataclasses.replace(
                self.settings, data_dir=fallback.data_dir, store_backend=fallback.store_backend,
                **{name: getattr(fallback, name) for name in _POSTGRES_FIELDS})
            await self._open_store()
            raise
        finally:
            self._changes.publish(MemoryChange("reload", (), self.actor, "store re-opened"))
            if agents:
                await self.start_agents(chat=self._agents_chat)

    # ── closing ────────────────────────────────────────────────────────

    async def close(self) -> None:
        """Stop in order: chat (running replies cancelled, checkpointer closed) -> writer (drained
        within ``writer_drain_timeout``; unwritten turns stay journaled) -> watcher -> store.
        Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        steps: list[tuple[str, Callable[[], Awaitable[None]]]] = [
            ("agents_stopped", self._stop_agents), ("store_closed", self._close_store)]
        for name, step in steps:
            try:
                await step()
            except Exception:
                log.exception("shutdown step %s failed", name)
            self.shutdown_steps.append(name)

    async def __aenter__(self) -> "AppServices":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()
