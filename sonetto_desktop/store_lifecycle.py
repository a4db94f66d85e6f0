"""StoreLifecycle: opening and closing the memory store of ``AppServices`` (a part of it). Qt-free.

Opening: the store the settings name (a file, SQLite, YAML or a PostgreSQL server; an old store is
migrated), its status feed (a server can go away), the operations every front end uses, the watcher
of other processes' writes; then its self-check (now, or while the window shows) and the trash's
purge. Closing undoes that in reverse order.
"""

from __future__ import annotations

import asyncio
import logging

from .aio import run_blocking
from .memory.stores.base import BaseMemoryManager
from .memory.dont_remember import FILE_NAME as DONT_REMEMBER_FILE
from .memory.dont_remember import DontRememberList
from .memory.errors import MemoryError_
from .memory.stores.migrate import open_store, open_store_file
from .memory.operations import MemoryOperations
from .memory.review import FILE_NAME as REVIEW_FILE
from .memory.review import ReviewInbox
from .memory.stores.watch import StoreWatcher

log = logging.getLogger(__name__)


class StoreLifecycle:
    """Needs the services' ``settings``, ``data_dir``, ``actor``, store fields and feeds (``AppServices``)."""

    async def _open_store(self, *, check: bool = True) -> None:
        if self._store_file is not None:
            store, migration = await run_blocking(open_store_file, self._store_file), None
        elif self.settings.store_backend == "postgres":
            from .postgres_setup import open_settings_store

            store, migration = await run_blocking(open_settings_store, self.data_dir, self.settings)
        else:
            store, migration = await run_blocking(open_store, self.data_dir, self.settings.store_backend)
        self.store, self.migration = store, migration
        if hasattr(store, "subscribe_status"):  # a store on a server: it can go away and come back
            loop = asyncio.get_running_loop()
            self._unsubscribe_status = store.subscribe_status(
                lambda status: loop.call_soon_threadsafe(self._on_store_status, status))
        self._store_status.publish(getattr(store, "status", None))  # a re-opened store: views follow
        self.store_report = None
        if self.migration_problem is not None:
            log.error("memory store switch: %s", self.migration_problem.en)
        if check:
            await self._check_store(store)
        else:
            self._check_task = asyncio.ensure_future(self._check_store(store))
        self.dont_remember = DontRememberList(self.data_dir / DONT_REMEMBER_FILE)
        self.review = ReviewInbox(self.data_dir / REVIEW_FILE, enabled=bool(self.settings.review_mode))
        self.memory = MemoryOperations(store, actor=self.actor, dont_remember=self.dont_remember, review=self.review)
        self._unsubscribe_store = store.subscribe(self._changes.publish)
        if self._watch:
            self._watcher = StoreWatcher(store)
            self._watcher.start()

    async def _check_store(self, store: BaseMemoryManager) -> None:
        """The self-check (a store we cannot read is never written by the agents), then the trash's purge."""
        self.store_report = await run_blocking(store.self_check)
        if not self.store_report.ok:
            log.error("memory store failed its self-check: %s", "; ".join(self.store_report.issues))
        await self._purge_expired_trash(store)

    async def _purge_expired_trash(self, store: BaseMemoryManager) -> None:
        """The trash keeps deleted memories ``settings.trash_retention_days`` days (0: for ever)."""
        days = getattr(self.settings, "trash_retention_days", 0)
        if not self.store_ok or not days or getattr(store, "read_only", False):
            return
        try:
            await run_blocking(store.purge_expired, days, actor=self.actor)
        except MemoryError_ as exc:  # a full disk: the trash is emptied another time
            log.warning("could not purge the trash: %s", exc)

    async def _close_store(self) -> None:
        check, self._check_task = self._check_task, None
        if check is not None:  # a self-check still reading: let it finish (it holds no lock a close needs)
            await asyncio.gather(check, return_exceptions=True)
        if self._unsubscribe_status is not None:
            self._unsubscribe_status()
            self._unsubscribe_status = None
        if self._watcher is not None:
            await self._watcher.stop()
            self._watcher = None
        if self._unsubscribe_store is not None:
            self._unsubscribe_store()
            self._unsubscribe_store = None
        if self._recall is not None:
            self._recall.close()
            self._recall = None
        if self.store is not None:
            await run_blocking(self.store.close)
