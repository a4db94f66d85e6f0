"""StoreWatcher: other processes' writes, brought onto this process's change channel.

Every ``interval`` seconds it asks the store (in a worker thread) whether another process
committed something — the YAML store compares its file's identity, the SQLite store reads
``PRAGMA data_version`` and its change log — and the store publishes what it finds through
``subscribe`` like any local write (``local`` False). Polling is cheap when nothing changed (a
``stat`` or one pragma), and never reloads in a way that could lose a write: a write always takes
the store's lock and re-reads what changed before it writes. A recall does not wait for the next
look: it asks the store first (``BaseMemoryManager.catch_up``: ~10 µs YAML, ~3 µs SQLite when nothing
changed), so a ``sonetto memory add`` just before a chat message is found by it.
"""

from __future__ import annotations

import asyncio
import logging

from ...aio import run_blocking, spawn
from .base import BaseMemoryManager

log = logging.getLogger(__name__)

DEFAULT_INTERVAL = 0.5


class StoreWatcher:
    def __init__(self, store: BaseMemoryManager, interval: float = DEFAULT_INTERVAL) -> None:
        if interval <= 0:
            raise ValueError("interval must be > 0 seconds")
        self._store = store
        self.interval = interval
        self._task: asyncio.Task[None] | None = None
        self._last_error = ""

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def start(self) -> None:
        """Start polling on the running event loop (no-op when already running)."""
        if not self.running:
            self._task = spawn(self._run(), name="sonetto-store-watcher")

    async def poll(self) -> int:
        """Look once now; returns how many changes were published."""
        try:
            changes = await run_blocking(self._store.poll_external)
        except Exception as exc:  # noqa: BLE001 - a locked or broken store: said once, tried again later
            message = f"{type(exc).__name__}: {exc}"
            if message != self._last_error:
                log.warning("watching the memory store for other processes failed: %s", message)
                self._last_error = message
            return 0
        self._last_error = ""
        return len(changes)

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            await self.poll()

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
