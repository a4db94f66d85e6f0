"""Plain-Python, thread-safe event feeds. No Qt: ``ui/`` adapts these into signals.

The memory change record lives in ``changes.py``; ``MemoryChange`` is re-exported here for old imports."""

from __future__ import annotations

import logging
import threading
from typing import Callable, Generic, TypeVar

from .changes import MemoryChange  # noqa: F401 - re-exported

log = logging.getLogger(__name__)

T = TypeVar("T")


class EventFeed(Generic[T]):
    """Subscribers are called synchronously, in subscription order, on the publishing thread.

    A subscriber that raises is logged and does not stop the others (a broken view must never
    undo or block a committed write).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subscribers: list[Callable[[T], None]] = []

    def subscribe(self, callback: Callable[[T], None]) -> Callable[[], None]:
        """Register ``callback``; returns a function that unsubscribes it."""
        with self._lock:
            self._subscribers.append(callback)

        def unsubscribe() -> None:
            with self._lock:
                if callback in self._subscribers:
                    self._subscribers.remove(callback)

        return unsubscribe

    def publish(self, event: T) -> None:
        with self._lock:
            subscribers = list(self._subscribers)
        for callback in subscribers:
            try:
                callback(event)
            except Exception:
                log.exception("event subscriber %r failed on %r", callback, event)

    def __len__(self) -> int:
        with self._lock:
            return len(self._subscribers)
