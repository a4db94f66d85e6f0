"""AppServices: the Qt-free composition root every front end uses (window, command line, MCP server).

    services = await AppServices.open(data_dir, settings=settings)   # store, memory ops, watcher
    await services.start_agents()        # recall's model, background writer, chat engine
    services.memory.add("小林喜欢猫", "品味")          # every write: user, agent, cli, mcp:<client>
    unsubscribe = services.subscribe(on_change)        # the one change channel (MemoryChange)
    outcome = await services.run(AddMemory("小林喜欢猫", "品味"))   # an operation value (ops.py): Done | Failed
    await services.close()               # ordered: chat -> writer (drained, bounded) -> watcher -> store

What lives here is wiring only: which store the data dir holds (migrating after a backend switch),
which actor a front end writes as, which model each part uses, and the order things start and stop.
It owns two parts, each with its own state: a :class:`StoreHandle` (``store_lifecycle.py``: the open store,
its operations, inbox, don't-remember list, recall and watcher) and :class:`Agents` (``agent_lifecycle.py``:
writer, tidy-up, chat engine and their HTTP pool), closed in order through one exit stack. A new store (another
data dir, backend or server) means a new handle and new agents; ``restarts_agents(new)`` is the one place that
decides it.

Everything the front ends follow comes out of **one event feed** (``subscribe_events``): memory changes
(``MemoryChange``), the writer's state (``WriterEvent``), the store's connection (``StoreStatusChanged``) and
files (``StoreNoticed``), new agents (``AgentsStarted``), the review inbox (``InboxChanged``) and applied
settings (``SettingsApplied``).
``subscribe`` / ``subscribe_writer`` / ``subscribe_store_status`` are views of it by kind.
``open`` is fast and imports no LLM code, so a window can show before ``start_agents``. Neither
imports the LLM stack (LangChain, LangGraph, the OpenAI client: ~100 MB resident): the models are
``LazyModel`` s, built — and the stack imported, on a worker thread — when a model is first used
(the first chat turn, the first turn the writer writes, the first LLM recall, the daily tidy-up).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .agent_lifecycle import AgentsStarted, Agents
from .aio import drop_source_cache, run_blocking, spawn, trim_heap
from .config.settings import Settings, load_settings
from .memory.changes import USER, MemoryChange
from .memory import kinds
from .memory.errors import StoreReopening
from .memory.events import EventFeed
from .memory.retrieval.modes import RetrievalMode
from .memory.errors import StoreBusy
from .memory.forget import ForgetResult, WithdrawResult, forget_turn, withdraw_turns
from .memory.stores.base import BaseMemoryManager, SelfCheckReport
from .memory.stores.migrate import MigrationProblem, MigrationReport
from .memory.writer.events import WriterEvent
from .ops import Op, Outcome, R
from .ops import run as run_op
from .store_lifecycle import POSTGRES_FIELDS, InboxChanged, StoreHandle, StoreNoticed, StoreStatusChanged, store_key

if TYPE_CHECKING:  # imported by start_agents(), never by open()
    from .agent.engine import ChatEngine
    from .history_import.service import HistoryImports
    from .memory.dont_remember import DontRememberList
    from .memory.ltm import LongTermMemory
    from .memory.operations import MemoryOperations
    from .memory.retrieval.recall import MemoryRecall
    from .memory.review import ReviewInbox
    from .memory.writer.hygiene import MemoryHygiene
    from .memory.writer.pipeline import MemoryWriter

__all__ = ["AppServices", "AgentsStarted", "InboxChanged", "SettingsApplied", "StoreNoticed", "StoreStatusChanged",
           "WRITER_DRAIN_TIMEOUT"]

log = logging.getLogger(__name__)

WRITER_DRAIN_TIMEOUT = 5.0
#: Seconds a store's close waits for the operations under way on it (SQLite's own wait for another
#: process's write lock is 60 s: a write waiting that long still ends before its store closes).
OPS_CLOSE_TIMEOUT = 65.0
#: Seconds into quitting after which the store's waits for another process's lock give up
#: (``BaseMemoryManager.stop_waiting``): a process that holds it and never lets go held up the quit for
#: minutes (each write under way, the background rewrite and the close's own waited their minute).
QUIT_WAIT = 2.0


class _InUse:
    """The blocking operations under way on the open store (``AppServices.run``). Its close waits for
    them — a store closed under a running statement crashed the process (SQLite, SIGSEGV: a write
    waiting for another process's lock while the settings moved to another data folder) — and one
    that starts while it closes is refused (nothing is done; it can be made again)."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._count = 0
        self._closing = False
        self.quitting = False  # the store's waits were stopped (``AppServices.close``)
        self.refused: list[str] = []  # the operations that gave up their wait then: nothing of them written

    @contextlib.contextmanager
    def held(self, name: str = "") -> Iterator[None]:
        with self._cond:
            if self._closing:
                raise StoreReopening()
            self._count += 1
        try:
            yield
        except StoreBusy:
            if self.quitting:
                with self._cond:
                    self.refused.append(name)
            raise
        finally:
            with self._cond:
                self._count -= 1
                self._cond.notify_all()

    def closing(self, timeout: float) -> bool:
        """Refuse new operations and wait (blocking, at most ``timeout`` s) until none is under way;
        False when some still are."""
        with self._cond:
            self._closing = True
            return self._cond.wait_for(lambda: self._count == 0, timeout)

    def opened(self) -> None:
        with self._cond:
            self._closing = False


#: The data folder's files besides the stores' own (``memory.*``), carried to a new data folder with
#: them: the chats (``agent.engine.DB_NAME``), the review inbox, recall's model agreement, the
#: don't-remember and don't-import lists, the MCP apps' quotas (named here, not imported: those
#: modules load late; ``tests/test_data_folder_move.py`` checks the names).
DATA_FILES = ("sessions.db", "review_inbox.json", "recall-models.json", "dont_remember.json", "dont_import.json",
              "mcp_quota.json")


def _carry_data(old: Path, new: Path, **options: Any) -> list[Path]:
    """``data_folder.carry_data`` (blocking; imported here, in the worker, not at the start on the loop).
    Only the app's data goes: the config folder's files (settings, keys), when it is the data folder
    too, stay behind. ``options``: its ``progress`` and ``cancel``."""
    from .memory.stores.data_folder import carry_data

    return carry_data(old, new, data_files=DATA_FILES, **options)


#: Seconds between two progress events of a copy into a new data folder (the first and last always go).
CARRY_PROGRESS_INTERVAL = 0.1


class _CarryReports:
    """A copy's progress (``data_folder.CarryProgress``) onto the event feed, from the copy's worker:
    at most one event per ``CARRY_PROGRESS_INTERVAL`` besides the first and the last."""

    def __init__(self, publish: Callable[[object], None]) -> None:
        self._publish = publish
        self._last = -CARRY_PROGRESS_INTERVAL

    def __call__(self, progress: Any) -> None:
        now = time.monotonic()
        if progress.finished or progress.files_done == progress.bytes_done == 0 \
                or now - self._last >= CARRY_PROGRESS_INTERVAL:
            self._last = now
            self._publish(progress)


def _carrying_from(folder: Path) -> Path | None:
    """``data_folder.carrying_from`` (blocking; imported in the worker)."""
    from .memory.stores.data_folder import carrying_from

    return carrying_from(folder)


def _carry_pending(folder: Path) -> Path | None:
    """``data_folder.carry_pending`` (blocking; imported in the worker)."""
    from .memory.stores.data_folder import carry_pending

    return carry_pending(folder)


def _carry_stopped(folder: Path) -> tuple[Path, str] | None:
    """``data_folder.carry_stopped`` and why it stopped (``stopped_why``) (blocking; imported in the worker)."""
    from .memory.stores.data_folder import carry_stopped, stopped_why

    source = carry_stopped(folder)
    return (source, stopped_why(folder)) if source is not None else None


class _CarryStop(threading.Event):
    """The ``cancel`` of a copy into a new data folder, and ``why`` it was set (``data_folder.STOPPED_WHY``:
    "cancelled" by the person's 取消, "quit" by the app quitting), recorded for the next start."""

    why = "cancelled"


def _forget_stopped(folder: Path, stop: Callable[[], bool]) -> bool:
    """``data_folder.forget_stopped`` (blocking; imported in the worker)."""
    from .memory.stores.data_folder import forget_stopped

    return forget_stopped(folder, stop)


@dataclasses.dataclass(frozen=True)
class _Held(Op[Any]):
    """``op``, counted as under way on the store while it runs (in its worker thread: a caller gone
    meanwhile does not end the count early)."""

    op: Op[Any]
    in_use: _InUse

    @property
    def changes(self) -> bool:  # type: ignore[override]
        return self.op.changes

    @property
    def name(self) -> str:
        return self.op.name

    def apply(self, target: Any) -> Any:
        with self.in_use.held(self.op.name):
            return self.op.apply(target)


@dataclasses.dataclass(frozen=True)
class SettingsApplied:
    """The services use ``settings`` from now on (models, review mode, …)."""

    settings: Settings


class AppServices:
    """See the module docstring. Build it with :meth:`open`."""

    def __init__(self, settings: Settings, *, actor: str = USER, watch: bool = True,
                 writer_drain_timeout: float = WRITER_DRAIN_TIMEOUT, embeddings: dict[str, Any] | None = None) -> None:
        self.settings = settings
        #: The embeddings sync's options (``recall_setup.RecallVectors``: ``builtin`` None for a platform
        #: without the built-in model, ``start_delay``); default: what is installed.
        self.embeddings = dict(embeddings or {})
        self.actor = actor
        self.writer_drain_timeout = writer_drain_timeout
        self._watch = watch
        self._events: EventFeed[object] = EventFeed()
        self._store_file: Path | None = None
        self._handle: StoreHandle | None = None
        self._agents: Agents | None = None
        self._imports: HistoryImports | None = None  # made by ``imports``
        self._stack = contextlib.AsyncExitStack()  # closes the agents, then the handle
        self._in_use = _InUse()  # the operations under way on the store (``run``)
        self._carry_cancel: threading.Event | None = None  # set: the copy into a new data folder stops
        self._applying = asyncio.Lock()  # one ``apply_settings`` at a time (a re-open may copy for long)
        self._closed = False
        #: The data folder the settings named at the start, left for the one a stopped copy into it came
        #: from (``_finish_carry``): the settings are to be saved again (``forget_stopped_carry``).
        self.returned_from: Path | None = None
        #: Why that copy stopped (``data_folder.STOPPED_WHY``: "cancelled", "quit", "failed"), to say it.
        self.returned_why: str | None = None
        #: The settings a copy cut short was for (``open(defer_carry=True)``): the folder it came from is
        #: used until they are applied again (``apply_settings``), which makes the copy, told as it goes.
        self.carry_deferred: Settings | None = None
        self._quit_timer: asyncio.TimerHandle | None = None  # ``quitting``
        self.shutdown_steps: list[str] = []

    # ── opening ────────────────────────────────────────────────────────

    @classmethod
    async def open(cls, data_dir: str | Path | None = None, *, settings: Settings | None = None,
                   store_path: str | Path | None = None, actor: str = USER, watch: bool = True,
                   start_agents: bool = False, writer_drain_timeout: float = WRITER_DRAIN_TIMEOUT,
                   check_later: bool = False, embeddings: dict[str, Any] | None = None,
                   defer_carry: bool = False) -> "AppServices":
        """Open the data dir's memory store (``settings`` default: the saved settings with the
        environment's overrides; ``data_dir`` overrides the settings' one; ``store_path`` opens that
        store file instead, ``.db``/``.sqlite`` as SQLite, anything else as YAML, without migrating).
        ``actor``: who this front end's writes are attributed to. ``watch``: follow other
        processes' writes. ``start_agents``: also start recall, writer and chat. ``check_later``: return
        as soon as the store is open and run its self-check (a full read: ~1 s of CPU at 100,000 memories)
        when ``checked()`` is first awaited — ``store_ok`` is False until it is done, and ``start_agents``
        waits for it (the window uses this to show and fill before the check). ``defer_carry``: a copy
        into the data folder cut short is not finished here, before anything is shown (a big one took
        minutes of nothing): the folder it came from is opened, and ``carry_deferred`` names the settings
        to apply to make it (the window does, with its progress and 取消)."""
        if settings is None:
            settings = await run_blocking(load_settings, with_secret=start_agents)
        if data_dir is not None:
            settings = dataclasses.replace(settings, data_dir=str(data_dir))
        services = cls(settings, actor=actor, watch=watch, writer_drain_timeout=writer_drain_timeout,
                       embeddings=embeddings)
        services._store_file = Path(store_path) if store_path is not None else None
        if services._store_file is None:
            await services._finish_carry(defer=defer_carry)
        await services._open_store(check=not check_later)
        if start_agents:
            await services.start_agents()
        return services

    async def _open_store(self, *, check: bool = True) -> None:
        """A new handle on the store the settings name, closed by the exit stack (after the agents)."""
        handle = StoreHandle(self.settings, self.data_dir, actor=self.actor, store_file=self._store_file,
                             watch=self._watch, publish=self._events.publish, on_status=self._on_store_status,
                             recall_timeout=self.settings.recall_timeout)
        self._handle = handle
        self._stack.push_async_callback(handle.close)
        self._stack.push_async_callback(self._operations_finished)  # (before the handle closes)
        self._in_use.opened()
        await handle.open(check=check)

    async def _carry(self, previous: Path, *, cancellable: bool = False, follows: bool = False) -> None:
        """The previous data folder's files into this one when it holds no memories (``carry_data``);
        how far it has come on the event feed (``data_folder.CarryProgress``). ``cancellable``: the
        person may stop it (:meth:`cancel_carry`; ``CopyCancelled`` raised). ``follows``: a choice made
        in another process (``carry_data``'s)."""
        cancel = _CarryStop() if cancellable else None
        self._carry_cancel = cancel
        try:
            carried = await run_blocking(_carry_data, previous, self.data_dir, progress=_CarryReports(self._events.publish),
                                         cancel=cancel, follows=follows)
        finally:
            self._carry_cancel = None
        if carried:  # the new folder held no memories: it has the previous folder's now
            log.info("copied %d files of %s into the new data folder %s", len(carried), previous, self.data_dir)

    def cancel_carry(self) -> bool:
        """Stop the copy into a new data folder under way (``apply_settings``): what it copied there is
        removed, the previous folder (never written to) is opened again and ``CopyCancelled`` raised
        from ``apply_settings``. False when no copy that can be stopped is under way."""
        cancel = self._carry_cancel
        if cancel is None:
            return False
        cancel.set()
        return True

    async def _finish_carry(self, *, defer: bool = False) -> None:
        """A copy into this data folder cut short (the app killed while it copied) is finished before
        its store opens: opened without one, an empty store was made there and the memories seemed gone.
        A copy stopped (cancelled, failed, the app quit meanwhile) and the app not started since, or
        killed before it saved the settings back: the old folder, which has the memories, is used
        (``returned_from``, ``returned_why``), not an empty store made here. (A copy another process
        makes into it is waited for first: ``carry_data``.)"""
        pending = await run_blocking(_carry_pending, self.data_dir) if defer else None
        if pending is not None:
            log.warning("a copy of %s into the data folder %s was cut short; it is made again once the window shows",
                        pending, self.data_dir)
            default = dataclasses.replace(self.settings, data_dir="").resolved_data_dir().absolute() == pending
            self.carry_deferred = self.settings
            self.settings = dataclasses.replace(self.settings, data_dir="" if default else str(pending))
            return
        previous = await run_blocking(_carrying_from, self.data_dir)
        if previous is not None:
            from .memory.stores.data_folder import CancelledElsewhere

            log.warning("finishing the copy of %s into the data folder %s (it was cut short)", previous, self.data_dir)
            try:
                await self._carry(previous, follows=True)  # (the copy it found under way may be cancelled meanwhile)
            except CancelledElsewhere as exc:  # (the app's copy, waited for, was cancelled: stopped, below)
                log.warning("%s", exc)
        stopped = await run_blocking(_carry_stopped, self.data_dir)
        if stopped is not None:
            source, why = stopped
            log.warning("the copy into the data folder %s was stopped (%s); %s, which it came from, is used",
                        self.data_dir, why, source)
            default = dataclasses.replace(self.settings, data_dir="").resolved_data_dir().absolute() == source
            self.returned_from, self.returned_why = self.data_dir, why
            self.settings = dataclasses.replace(self.settings, data_dir="" if default else str(source))

    async def forget_stopped_carry(self, folder: Path) -> None:
        """The settings saved again after a copy into ``folder`` was stopped (``apply_settings`` raised,
        or ``returned_from``): its marker goes, and the folder itself when the copy made it and it
        holds nothing else (``data_folder.forget_stopped``). Its wait for another process's lock on
        ``folder`` gives up when this is cancelled (the window's tasks end at a quit: the cancel completes
        once the worker has let go, so no thread holds up the process's exit) or ``QUIT_WAIT`` s into
        quitting; nothing is removed then (the marker stays: nothing of the memories is in it)."""
        stop = threading.Event()
        work = spawn(run_blocking(_forget_stopped, folder, lambda: stop.is_set() or self._in_use.quitting),
                     name="forget-stopped-carry", awaited=True)
        try:
            await asyncio.shield(work)
        except asyncio.CancelledError:
            stop.set()
            await asyncio.wait([work])
            raise

    async def _operations_finished(self) -> None:
        """Before the store closes: no operation starts on it any more, and those under way finish."""
        if not await run_blocking(self._in_use.closing, OPS_CLOSE_TIMEOUT):
            log.warning("closing the memory store with operations still under way after %.0f s", OPS_CLOSE_TIMEOUT)

    @property
    def data_dir(self) -> Path:
        """Where the store, the turn journal and the chat sessions live."""
        if self._store_file is not None:
            return self._store_file.parent
        return self.settings.resolved_data_dir()

    # ── the parts (views of the handle and the agents; ``None`` when not open / not started) ──

    @property
    def store(self) -> BaseMemoryManager | None:
        return self._handle.store if self._handle is not None else None

    @property
    def memory(self) -> MemoryOperations | None:
        """Every write of this front end (as ``actor``) goes through these operations."""
        return self._handle.memory if self._handle is not None else None

    @property
    def review(self) -> ReviewInbox | None:
        """Review mode's inbox of Sonetto's proposed changes."""
        return self._handle.review if self._handle is not None else None

    @property
    def dont_remember(self) -> DontRememberList | None:
        """The person's don't-remember list (``dont_remember.json`` in the data dir)."""
        return self._handle.dont_remember if self._handle is not None else None

    @property
    def store_report(self) -> SelfCheckReport | None:
        return self._handle.report if self._handle is not None else None

    @property
    def migration(self) -> MigrationReport | None:
        return self._handle.migration if self._handle is not None else None

    @property
    def store_ok(self) -> bool:
        return self._handle is not None and self._handle.ok

    @property
    def migration_problem(self) -> MigrationProblem | None:
        """Why the last backend switch did not (fully) happen, to show the user (``.zh`` / ``.en``;
        ``.opened``: the backend whose store is open instead); ``None`` when all is well."""
        return self._handle.migration_problem if self._handle is not None else None

    @property
    def store_notices(self) -> list[Any]:
        """What the open store said about its files so far (``StoreNotice``; e.g. restored at opening)."""
        store = self._handle.store if self._handle is not None else None
        return store.notices if store is not None else []

    @property
    def store_status(self) -> Any:
        """The store's connection state (``postgres.store.StoreStatus``), None for a local file."""
        return self._handle.status if self._handle is not None else None

    @property
    def recall(self) -> MemoryRecall:
        """Which memories matter for a message (built on first use; offline until a model is set)."""
        assert self._handle is not None, "AppServices is not open"
        return self._handle.recall

    @property
    def writer(self) -> MemoryWriter | None:
        return self._agents.writer if self._agents is not None else None

    @property
    def imports(self) -> HistoryImports:
        """The history imports of the open store (``history_import/service.py``; one for the services'
        life, its runner follows the store and the settings); their progress (``ImportProgress``) is on
        the one feed. A running import is stopped after its batch when the store closes (it goes on
        at the next start)."""
        if self._imports is None:
            from .history_import.service import HistoryImports

            self._imports = HistoryImports(self, publish=self._events.publish)
        return self._imports

    @property
    def hygiene(self) -> MemoryHygiene | None:
        """The daily self-cleaning pass (memory/writer/hygiene.py)."""
        return self._agents.hygiene if self._agents is not None else None

    @property
    def chat(self) -> ChatEngine | None:
        return self._agents.chat if self._agents is not None else None

    @property
    def ltm(self) -> LongTermMemory:
        """The graph's read/write interface (recall + writer)."""
        if self._agents is not None and self._agents.ltm is not None:
            return self._agents.ltm
        from .memory.ltm import LongTermMemory

        return LongTermMemory(self.recall, None)

    async def checked(self) -> None:
        """Run (the first time) and wait for the store's self-check of ``open(check_later=True)`` (no-op otherwise)."""
        if self._handle is not None:
            await self._handle.checked()

    # ── the one event feed ─────────────────────────────────────────────

    def subscribe_events(self, callback: Callable[[object], None]) -> Callable[[], None]:
        """Everything a front end follows, in the order it happened, across store re-opens and agent
        restarts: ``MemoryChange``, ``WriterEvent``, ``StoreStatusChanged``, ``StoreNoticed``, ``AgentsStarted``,
        ``InboxChanged``, ``SettingsApplied``, ``IndexProgress`` (the recall index's first build), ``CarryProgress``
        (a copy into a new data folder: ``cancel_carry``). Called on the publishing thread (a store write's worker,
        the writer's thread, the loop): a Qt front end re-emits on its own thread (``ui/qt_bridge.py``)."""
        return self._events.subscribe(callback)

    def _subscribe_kind(self, kind: type, callback: Callable[[Any], None]) -> Callable[[], None]:
        return self._events.subscribe(lambda event: callback(event) if isinstance(event, kind) else None)

    def subscribe(self, callback: Callable[[MemoryChange], None]) -> Callable[[], None]:
        """Every committed memory change — this app's (any actor) and other processes' — as one
        :class:`MemoryChange`; stays subscribed across a store re-open (which sends ``reload``)."""
        return self._subscribe_kind(MemoryChange, callback)

    def subscribe_writer(self, callback: Callable[[WriterEvent], None]) -> Callable[[], None]:
        """The background writer's pipeline state (queued / started / done / failed / gave_up /
        status), across writer restarts."""
        return self._subscribe_kind(WriterEvent, callback)

    def subscribe_store_status(self, callback: Callable[[Any], None]) -> Callable[[], None]:
        """Called whenever the memory server goes away or comes back (offline: the memories are
        read-only, the writer waits with the turns journaled) and when a store is opened."""
        return self._subscribe_kind(StoreStatusChanged, lambda event: callback(event.status))

    def _on_store_status(self, status: Any) -> None:
        if self._agents is not None:
            self._agents.follow_store_status(status)

    # ── recall, writer, chat ───────────────────────────────────────────

    async def start_agents(self, *, chat: bool = True) -> None:
        """Start recall's model, the writer (paused when the store failed its self-check: a store we
        cannot read is never written; turns wait in the journal) and, with ``chat``, the chat engine
        and the daily tidy-up (the MCP server runs without). Waits for the store's self-check.
        Idempotent. Publishes ``AgentsStarted``."""
        if self._agents is not None and self._agents.started:
            return
        await self.checked()  # the writer starts paused when the store failed its check
        assert self._handle is not None and self._handle.memory is not None, "AppServices is not open"
        agents = Agents(self._handle, lambda: self.settings, publish_writer=self._events.publish,
                        drain_timeout=self.writer_drain_timeout, embeddings=self.embeddings)
        self._agents = agents
        self._stack.push_async_callback(self._stop_agents, agents)
        await agents.start(chat=chat)
        self._events.publish(AgentsStarted(agents.chat, agents.writer))

    def agents_model(self, settings: Settings) -> Any:
        """A lazy model for ``settings`` over the running agents' shared HTTP pool; ``None`` while no
        agents run (the caller builds its own) or without a configured endpoint."""
        agents = self._agents
        if agents is None or not agents.started:
            return None
        return agents.model(settings)

    def embeddings_plan(self, settings: Settings | None = None) -> Any:
        """What embeddings model runs for ``settings`` (default: the current ones) on this installation
        (``recall_setup.EmbeddingsPlan``)."""
        from .agent.recall_setup import INSTALLED, embeddings_plan

        return embeddings_plan(settings or self.settings, self.embeddings.get("builtin", INSTALLED))

    def consent_vectors(self, asked: int | None = None) -> None:
        """The person agreed to embed every memory with the new embeddings model (``asked``: the
        ``VectorStatus.asked`` of the question answered: it agrees to that one only)."""
        agents = self._agents
        if agents is not None and agents.vectors is not None:
            agents.vectors.consent(asked)

    async def _stop_agents(self, agents: Agents) -> None:
        await agents.stop()
        self.shutdown_steps.extend(agents.shutdown_steps)

    async def warm_up(self, *, mode: str | None = None, empty_waits: bool = False) -> None:
        """Load the tokenizer, build the offline recall index (and, with a model, read the recall
        listing) now rather than at the first message. A first build of a large bank reports its
        progress on the feed (``IndexProgress``). ``mode``: the recall mode chat uses (the settings'
        ``retrieval_mode``); the offline one needs no listing, which is then read only if an LLM or
        HYBRID recall asks for it (another mode chosen later, an app over MCP). ``empty_waits``: an
        empty store is warmed when its first memory comes, in the background (the tokenizer's
        dictionary and the lexicon's tables, ~26 MB, are of no use to a store with nothing to find;
        a recall of an empty store loads nothing either)."""
        assert self._handle is not None
        recall = self._handle.recall
        listing = None if mode is None else RetrievalMode.coerce(mode) is not RetrievalMode.MECHANICAL

        def warm() -> None:
            recall.warm_up(progress=self._events.publish, listing=listing)

        if empty_waits and self.memory is not None and await run_blocking(self.memory.count) == 0:
            spawn(self._warm_up_at_first_memory(warm), name="recall-warm-up-at-first-memory")
            return
        await run_blocking(warm)

    async def _warm_up_at_first_memory(self, warm: Callable[[], None]) -> None:
        loop = asyncio.get_running_loop()
        came = asyncio.Event()

        def on_change(change: MemoryChange) -> None:  # on the writing thread
            with contextlib.suppress(RuntimeError):  # (the loop has closed meanwhile)
                loop.call_soon_threadsafe(came.set)

        unsubscribe = self.subscribe(on_change)
        try:
            await came.wait()
        finally:
            unsubscribe()
        if not self._closed:
            try:
                await run_blocking(warm)
            except Exception:  # the store went away meanwhile: the first recall builds the index itself
                log.warning("recall warm-up at the first memory failed", exc_info=True)

    async def settle_memory(self) -> None:
        """Once start-up is over (the wall shown, recall warm; the writer's index waits for typing): forget the
        source lines the imports left in Python's line cache (``aio.drop_source_cache``) and hand the C
        heap's free pages back to the system (``trim_heap``), in a worker."""
        def settle() -> None:
            drop_source_cache()
            trim_heap()

        await run_blocking(settle)

    async def warm_up_writer(self) -> None:
        """With a model configured: build the writer's index now (a full read, ~1 s of Python at
        50,000 memories) rather than in its first turn, which follows the first reply."""
        if self._agents is not None:
            await self._agents.warm_up_writer()

    async def forget_turn(self, turn_id: str, text: str = "") -> ForgetResult:
        """"别记住这个" on the chat message of turn ``turn_id``: what the turn wrote is undone (one undoable
        action), the writer drops it if it has not written it yet, and ``text`` (the message) goes on
        the don't-remember list. See ``memory/forget.py``."""
        assert self.memory is not None, "the store is not open"
        return await forget_turn(self.memory, self.writer, self.dont_remember, turn_id, text)

    async def withdraw_turns(self, turn_ids: list[str]) -> WithdrawResult:
        """Turns an edit-and-resend replaced: what they wrote is taken back as one undoable action
        (nothing goes on the don't-remember list). See ``memory/forget.py``."""
        assert self.memory is not None, "the store is not open"
        return await withdraw_turns(self.memory, self.writer, turn_ids)

    # ── operations (``ops.py``) ────────────────────────────────────────

    async def run(self, op: Op[R], *, actor: str | None = None) -> Outcome[R]:
        """Run one operation (``ops.AddMemory(...)``, ``ops.UndoTurn(...)``, ``ops.Call.of(fn, ...)``) as
        this front end's actor (``actor``: as that one instead, e.g. the MCP server's ``mcp:<app>`` per
        call): ``Done(result)``, or ``Failed`` worded once for a person (``presentation.errors``).
        Blocking work runs in a worker (``aio.run_blocking``); what it changed comes on the event feed.
        Never raises an operation's failure."""
        return await run_op(_Held(op, self._in_use) if op.blocking else op, self, actor=actor)

    # ── settings ───────────────────────────────────────────────────────

    def restarts_agents(self, new: Settings) -> bool:
        """Whether applying ``new`` opens the store again, and so stops the agents and starts new ones
        (a chat engine in use is closed): another data dir, backend, or memory server setting."""
        return store_key(self.settings) != store_key(new)

    async def apply_settings(self, new: Settings, *, followed: bool = False) -> None:
        """Use ``new`` from now on: a new data dir or backend re-opens the store (migrating), with the
        agents restarted; otherwise the models, recall mode and timeouts are rebuilt in place. If the
        new store cannot be opened, the previous one is opened again and the error re-raised.
        Publishes ``SettingsApplied`` (and ``AgentsStarted`` when the agents were restarted).
        Settings applied while others are (saved again during a long copy into a new data folder)
        are applied once those are: two re-opens at once opened two stores on one folder. ``followed``:
        saved in another process (the app's, followed by ``sonetto mcp``): a copy into a new data folder
        that the person cancelled there is not made here either (``carry_data``'s ``follows``)."""
        async with self._applying:
            old, reopen = self.settings, self.restarts_agents(new)
            self.settings = new
            try:
                if reopen:
                    await self._reopen(old, followed=followed)
                    return
                if self._handle is not None:
                    self._handle.apply_settings(new)
                if self._agents is not None:
                    self._agents.apply_settings(new)
            finally:
                self._events.publish(SettingsApplied(self.settings))

    async def _reopen(self, fallback: Settings, *, followed: bool = False) -> None:
        agents, self._agents = self._agents, None
        chat = agents.with_chat if agents is not None else True
        had_agents = agents is not None and agents.started
        old_store = self.store
        if self._imports is not None:
            await self._imports.shutdown()  # before its store closes
        await self._stack.aclose()  # the agents, then the handle
        if fallback.store_backend == "postgres" and self.settings.store_backend != "postgres":
            from .memory.stores.postgres.migrate import copy_back

            try:  # a device leaving the server takes the memories with it (the server keeps them)
                await run_blocking(copy_back, old_store, self.data_dir, self.settings.store_backend)
            except Exception:
                log.error("could not copy the memories back from the server", exc_info=True)
        self._stack = contextlib.AsyncExitStack()
        to_server = fallback.store_backend != "postgres" and self.settings.store_backend == "postgres"
        try:
            if self._store_file is None and fallback.resolved_data_dir() != self.data_dir:
                await self._carry(fallback.resolved_data_dir(), cancellable=True, follows=followed)
            if self._closed:  # the app quit while the data was copied: nothing opens on closed services
                return
            await self._open_store()
            if to_server:  # this computer's memories must be on the server before it is used
                from .postgres_setup import check_switch_to_server

                await run_blocking(check_switch_to_server, self.store, self.data_dir)
        except Exception as exc:
            from .memory.stores.data_folder import CopyCancelled

            if isinstance(exc, CopyCancelled):
                log.info("the copy into the data folder %s was cancelled; %s stays in use (%s)", self.data_dir,
                         fallback.resolved_data_dir(), exc)
            else:
                log.error("could not open the memory store in %s", self.data_dir, exc_info=True)
            self.settings = dataclasses.replace(
                self.settings, data_dir=fallback.data_dir, store_backend=fallback.store_backend,
                **{name: getattr(fallback, name) for name in POSTGRES_FIELDS})
            if self._closed:  # the app quit meanwhile (the copy stopped by it): nothing opens on closed services
                raise
            await self._stack.aclose()
            self._stack = contextlib.AsyncExitStack()
            await self._open_store()
            raise
        finally:
            if not self._closed:
                self._events.publish(MemoryChange(kinds.RELOAD, (), self.actor, "store re-opened"))
                if had_agents:
                    await self.start_agents(chat=chat)

    # ── closing ────────────────────────────────────────────────────────

    async def close(self) -> None:
        """Stop in order: chat (running replies cancelled, checkpointer closed) -> writer (drained
        within ``writer_drain_timeout``; unwritten turns stay journaled) -> watcher -> store.
        Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        self.quitting()
        try:
            if self._imports is not None:
                await self._imports.shutdown()  # before the writer and the store close
            await self._stack.aclose()
        except Exception:
            log.exception("closing the services failed")
        finally:
            if self._quit_timer is not None:
                self._quit_timer.cancel()
        if self._in_use.refused:
            log.warning("not saved: %s (another process held the memory store %s when the app quit; nothing of them "
                        "was written; every change saved before is kept)", ", ".join(self._in_use.refused),
                        self.store.path if self.store is not None else "")
        self.shutdown_steps.extend(("agents_stopped", "store_closed"))

    def quitting(self) -> None:
        """The app is quitting (``close`` follows; the window calls this first, before its own steps):
        ``QUIT_WAIT`` seconds from now, the store's waits for another process's lock give up; a copy into a
        new data folder under way stops now (``cancel_carry``: the process waited for the whole copy). Safe to
        call twice (the first call counts)."""
        cancel = self._carry_cancel
        if cancel is not None:  # a copy into a new data folder stops as at 取消: the old folder is kept
            if isinstance(cancel, _CarryStop) and not cancel.is_set():
                cancel.why = "quit"  # (said so at the next start)
            cancel.set()
        if self._quit_timer is None:
            try:
                self._quit_timer = asyncio.get_running_loop().call_later(QUIT_WAIT, self._stop_store_waits)
            except RuntimeError:  # no loop runs any more (the window system went away mid-quit): stop waiting now
                self._stop_store_waits()

    def _stop_store_waits(self) -> None:
        """Quitting for ``QUIT_WAIT`` seconds: the store stops waiting for another process's lock (a
        stuck holder); what gives up then is said once closed."""
        self._in_use.quitting = True
        if self.store is not None:
            self.store.stop_waiting()

    async def __aenter__(self) -> "AppServices":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()
