"""CatchUp: a burst of the store's changes applied to recall's index and listing in the background.

The offline index and the recall listing follow the store through its change feed, but apply what
changed only when they are next read (``MechanicalRetriever._in_step``, ``RecallListing._refresh``):
a query never answers from before a write made before it. After an import of 3,000 memories that
meant the person's next message tokenized all of them (and read them into the listing) before its
recall could start: ~1-2.5 s of the first recall at load 5-11, up to ``CATCH_UP_WAIT`` (10 s) for a
bank above ``SYNC_BUILD_MAX`` (bench/recall_after_import.py, docs/benchmarks.md "The first recall after
an import"). Now, once ``FOLLOW_FROM`` memories (or a reload) are pending, one background thread
applies them as they come; a query that comes meanwhile waits only for what is left, and still never
answers from before a write (it applies what the thread has not reached). A few changes (a reply's
writes) stay with the next query: ~0.1 ms each.
"""

from __future__ import annotations

import logging
import threading
from typing import Callable

from .. import kinds
from ..changes import MemoryChange
from ..stores.base import BaseMemoryManager
from ...aio import start_thread

__all__ = ["FOLLOW_FROM", "CatchUp"]

log = logging.getLogger(__name__)

#: Memories changed since the last catch-up that start one in the background (a reload counts as many).
FOLLOW_FROM = 64


class CatchUp:
    """Calls ``catch_up()`` on a thread of its own once ``FOLLOW_FROM`` memories changed in ``mm``, and
    again while more keep changing meanwhile; ``close()`` stops following and waits for a run in flight."""

    def __init__(self, mm: BaseMemoryManager, catch_up: Callable[[], None], *, follow_from: int = FOLLOW_FROM) -> None:
        self._catch_up = catch_up
        self._follow_from = max(1, follow_from)
        self._lock = threading.Lock()
        self._changed = 0  # memories changed since the last run began
        self._thread: threading.Thread | None = None
        self._closed = False
        self.runs = 0
        """How many catch-ups ran (tests, benchmarks)."""
        self._unsubscribe: Callable[[], None] | None = mm.subscribe(self._on_change)

    @property
    def running(self) -> bool:
        """A catch-up is under way (or about to start)."""
        with self._lock:
            return self._thread is not None

    def _on_change(self, change: MemoryChange) -> None:
        """On the writer's thread: count, and start the thread when enough changed (never waits)."""
        kind = kinds.kind(change.kind)
        if not kind.memories or not kind.changes:  # the trash, or a use counted
            return
        with self._lock:
            self._changed += self._follow_from if kind.whole else len(change.ids)
            if self._closed or self._thread is not None or self._changed < self._follow_from:
                return
            self._thread = start_thread(self._run, name="recall-catch-up", daemon=True)

    def _run(self) -> None:
        while True:
            with self._lock:
                if self._closed or self._changed < self._follow_from:
                    self._thread = None
                    return
                self._changed = 0
            try:
                self._catch_up()
            except Exception as exc:
                log.debug("recall: catching up with the store's changes failed: %s", exc, exc_info=True)
            self.runs += 1

    def close(self) -> None:
        with self._lock:
            self._closed = True
            thread, unsubscribe, self._unsubscribe = self._thread, self._unsubscribe, None
        if unsubscribe is not None:
            unsubscribe()
        if thread is not None and thread is not threading.current_thread():
            thread.join()
