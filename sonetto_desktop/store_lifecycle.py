"""StoreHandle: one open memory store and everything that lives exactly as long as it. Qt-free.

Opening: the store the settings name (a file, SQLite, YAML or a PostgreSQL server; an old store is
migrated), its status feed (a server can go away), the don't-remember list, review mode's inbox, the
operations every front end uses, offline recall over it and the watcher of other processes' writes;
then its self-check (now, or while the window shows) and the trash's purge. ``close()`` undoes that in
reverse order. ``AppServices`` owns one handle at a time and makes a new one when the store changes.

What the handle learns it publishes on the services' one event feed (``publish``): every committed
memory change (``MemoryChange``), the store's connection state (``StoreStatusChanged``), what the store
says about its files (``StoreNoticed``) and the review inbox's size (``InboxChanged``).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from .aio import run_blocking, spawn
from .config.settings import Settings
from .memory.dont_remember import FILE_NAME as DONT_REMEMBER_FILE
from .memory.dont_remember import DontRememberList
from .memory.errors import MemoryError_
from .memory.operations import MemoryOperations
from .memory.review import FILE_NAME as REVIEW_FILE
from .memory.review import ReviewInbox
from .memory.stores.backends import backend_named
from .memory.stores.base import BaseMemoryManager, SelfCheckReport
from .memory.stores.migrate import MigrationProblem, MigrationReport, open_store, open_store_file
from .memory.stores.watch import StoreWatcher

if TYPE_CHECKING:
    from .memory.retrieval.recall import MemoryRecall

log = logging.getLogger(__name__)

#: Settings of the PostgreSQL store: a change to any of them opens the store again.
#: The embeddings models' agreement with the words, counted on the person's messages (``retrieval/agreement.py``).
AGREEMENT_FILE = "recall-models.json"
POSTGRES_FIELDS = backend_named("postgres").settings_fields


def store_key(settings: Settings) -> tuple:
    """What decides which store is open: settings with another key need the store opened again (and the
    agents restarted on it). The one place this is decided (the window asks the services)."""
    key: tuple = (settings.resolved_data_dir(), settings.store_backend)
    key += tuple(getattr(settings, name) for name in backend_named(settings.store_backend).settings_fields)
    return key


def _tidy_tools() -> Any:
    """The clean-up pass's tools, for approving its held calls (imported when the inbox first needs them)."""
    from .memory.writer.hygiene_pass import TIDY_TOOLS

    return TIDY_TOOLS


@dataclass(frozen=True)
class StoreStatusChanged:
    """The memory server went away or came back (``status``: ``postgres.store.StoreStatus``; ``None``
    for a local file, published when a store is opened so views drop a stale banner)."""

    status: Any


@dataclass(frozen=True)
class StoreNoticed:
    """The store said something about its files once (``notice``: ``memory.stores.notices.StoreNotice``):
    memory.yaml gone and written again, restored, unreadable, saved from an older copy, a conflict."""

    notice: Any


@dataclass(frozen=True)
class InboxChanged:
    """Review mode's inbox holds ``count`` proposals now."""

    count: int


class StoreHandle:
    """See the module docstring. ``store_file``: open that file instead of the data dir's store (no
    migration). ``on_status``: called on the event loop when the server goes away or comes back."""

    def __init__(self, settings: Settings, data_dir: Path, *, actor: str, store_file: Path | None,
                 watch: bool, publish: Callable[[object], None],
                 on_status: Callable[[Any], None] | None = None, recall_timeout: float = 0.0) -> None:
        self.settings = settings
        self.data_dir = data_dir
        self.actor = actor
        self._store_file = store_file
        self._watch = watch
        self._publish = publish
        self._on_status = on_status
        self._recall_timeout = recall_timeout
        self.store: BaseMemoryManager | None = None
        self.migration: MigrationReport | None = None
        self.report: SelfCheckReport | None = None
        self.memory: MemoryOperations | None = None
        self.dont_remember: DontRememberList | None = None
        self.review: ReviewInbox | None = None
        self._recall: MemoryRecall | None = None
        self._watcher: StoreWatcher | None = None
        self._check_task: asyncio.Task[None] | None = None
        self._unchecked: BaseMemoryManager | None = None  # open(check=False): checked when first asked
        self._unsubscribers: list[Callable[[], None]] = []
        self._closed = False

    # ── state ──────────────────────────────────────────────────────────

    @property
    def ok(self) -> bool:
        """The store passed its self-check (False until the check is done)."""
        return self.report is not None and self.report.ok

    @property
    def migration_problem(self) -> MigrationProblem | None:
        return self.migration.problem if self.migration is not None else None

    @property
    def status(self) -> Any:
        """The store's connection state (``StoreStatus``), None for a local file."""
        return getattr(self.store, "status", None)

    @property
    def recall(self) -> MemoryRecall:
        """Which memories matter for a message, over this store (built on first use; offline until the
        agents give it a model)."""
        if self._recall is None:
            from .agent.recall_setup import recall_budget
            from .memory.retrieval.recall import MemoryRecall

            assert self.store is not None, "the store is not open"
            from .memory.retrieval.agreement import ModelAgreement

            self._recall = MemoryRecall(self.store, None, timeout=self._recall_timeout,
                                        budget=recall_budget(self.settings, self._publish),
                                        agreement=ModelAgreement(self.data_dir / AGREEMENT_FILE))
        return self._recall

    def apply_settings(self, new: Settings) -> None:
        """Settings that do not change the store: review mode, recall's timeout and token budget."""
        self.settings = new
        if self.review is not None:
            self.review.enabled = bool(new.review_mode)
        self._recall_timeout = new.recall_timeout
        if self._recall is not None:
            from .agent.recall_setup import recall_budget

            self._recall.timeout = new.recall_timeout
            self._recall.budget = recall_budget(new, self._publish)

    # ── open / close ───────────────────────────────────────────────────

    async def open(self, *, check: bool = True) -> None:
        """Open the store (a worker does the blocking part) and what lives with it. ``check=False``:
        return at once; the self-check (a full read in Python: ~1 s of CPU at 100,000 memories) runs when
        ``checked()`` is first awaited, so a window can show and fill first (issue 37: the check's worker
        held the GIL the wall's paints waited for)."""
        if self._store_file is not None:
            store, migration = await run_blocking(open_store_file, self._store_file), None
        elif backend_named(self.settings.store_backend).on_server:  # PostgreSQL, the one server backend
            from .postgres_setup import open_settings_store

            store, migration = await run_blocking(open_settings_store, self.data_dir, self.settings)
        else:
            store, migration = await run_blocking(open_store, self.data_dir, self.settings.store_backend)
        self.store, self.migration = store, migration
        if hasattr(store, "subscribe_status"):  # a store on a server: it can go away and come back
            loop = asyncio.get_running_loop()
            self._unsubscribers.append(store.subscribe_status(
                lambda status: loop.call_soon_threadsafe(self._status_changed, status)))
        self._publish(StoreStatusChanged(self.status))  # a re-opened store: views follow
        if self.migration_problem is not None:
            log.error("memory store switch: %s", self.migration_problem.en)
        if check:
            await self._check(store)
        else:
            self._unchecked = store
        self.dont_remember = DontRememberList(self.data_dir / DONT_REMEMBER_FILE)
        self.review = ReviewInbox(self.data_dir / REVIEW_FILE, enabled=bool(self.settings.review_mode),
                                  tools=_tidy_tools)
        self._unsubscribers.append(self.review.subscribe(lambda count: self._publish(InboxChanged(count))))
        self.memory = MemoryOperations(store, actor=self.actor, dont_remember=self.dont_remember, review=self.review)
        self._unsubscribers.append(store.subscribe(self._publish))
        self._unsubscribers.append(store.subscribe_notices(lambda notice: self._publish(StoreNoticed(notice))))
        if self._watch:
            self._watcher = StoreWatcher(store)
            self._watcher.start()

    def _status_changed(self, status: Any) -> None:
        if self._on_status is not None:
            self._on_status(status)
        self._publish(StoreStatusChanged(status))

    async def checked(self) -> None:
        """Run (the first time) and wait for the self-check of ``open(check=False)`` (no-op otherwise)."""
        if self._unchecked is not None and not self._closed:
            self._check_task = spawn(self._check(self._unchecked), name="sonetto-store-check")
            self._unchecked = None
        if self._check_task is not None:
            await asyncio.shield(self._check_task)

    async def _check(self, store: BaseMemoryManager) -> None:
        """The self-check (a store we cannot read is never written by the agents), then the trash's purge."""
        self.report = await run_blocking(store.self_check)
        if not self.report.ok:
            log.error("memory store failed its self-check: %s", "; ".join(self.report.issues))
        await self._purge_expired_trash(store)

    async def _purge_expired_trash(self, store: BaseMemoryManager) -> None:
        """The trash keeps deleted memories ``settings.trash_retention_days`` days (0: for ever): the
        app's housekeeping of its own store, never of a store file named for one command (``sonetto
        memory --store backup/memory.yaml trash`` deleted that backup's old trash for good)."""
        days = getattr(self.settings, "trash_retention_days", 0)
        if not self.ok or not days or getattr(store, "read_only", False) or self._store_file is not None:
            return
        if not getattr(store, "online", True):  # a memory server away: emptied at a later start, never waited for
            log.info("the trash is not purged now: the memory server cannot be reached")
            return
        try:
            await run_blocking(store.purge_expired, days, actor=self.actor)
        except MemoryError_ as exc:  # a full disk: the trash is emptied another time
            log.warning("could not purge the trash: %s", exc)

    async def close(self) -> None:
        """Undo ``open`` in reverse order (the closed store stays readable as ``store``). Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        check, self._check_task, self._unchecked = self._check_task, None, None
        if check is not None:  # a self-check still reading: let it finish (it holds no lock a close needs)
            await asyncio.gather(check, return_exceptions=True)
        if self._watcher is not None:
            await self._watcher.stop()
            self._watcher = None
        unsubscribers, self._unsubscribers = self._unsubscribers, []
        for unsubscribe in reversed(unsubscribers):
            unsubscribe()
        if self._recall is not None:  # (off the loop: it waits for a catch-up in flight and saves the index)
            recall, self._recall = self._recall, None
            await run_blocking(recall.close)
        if self.store is not None:
            await run_blocking(self.store.close)
