"""QtEventBridge: a plain-Python event feed, re-emitted as a Qt signal on the GUI thread.

The domain publishes on whatever thread did the write (a worker of ``asyncio.to_thread``, the
memory writer's thread, ...). The bridge's callback only emits an internal signal; the connection
to the public ``event`` signal is queued, so receivers always run on the bridge's (GUI) thread.
"""

from __future__ import annotations

import threading
from typing import Any, Callable

from PySide6.QtCore import QObject, Qt, Signal, Slot

Subscribe = Callable[[Callable[[Any], None]], Callable[[], None]]


class _Subscriptions:
    """The unsubscribe functions, kept apart from the QObject so ``destroyed`` can still reach them."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.closed = False
        self.unsubscribers: list[Callable[[], None]] = []

    def add(self, unsubscribe: Callable[[], None]) -> None:
        with self.lock:
            if not self.closed:
                self.unsubscribers.append(unsubscribe)
                return
        unsubscribe()

    def close(self) -> None:
        with self.lock:
            self.closed = True
            unsubscribers, self.unsubscribers = self.unsubscribers, []
        for unsubscribe in unsubscribers:
            unsubscribe()


class QtEventBridge(QObject):
    """``bridge.attach(feed.subscribe)`` (or ``memory_manager.subscribe``); connect to ``event``.

    ``close()`` (or destroying the bridge) unsubscribes from every source.
    """

    event = Signal(object)
    _relay = Signal(object)

    def __init__(self, subscribe: Subscribe | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._subs = _Subscriptions()
        self._relay.connect(self._on_relay, Qt.ConnectionType.QueuedConnection)
        subs = self._subs
        self.destroyed.connect(lambda *_: subs.close())
        if subscribe is not None:
            self.attach(subscribe)

    def attach(self, subscribe: Subscribe) -> None:
        """Subscribe to one more source (anything with the ``subscribe(callback) -> unsubscribe`` shape)."""
        self._subs.add(subscribe(self._publish))

    @property
    def closed(self) -> bool:
        return self._subs.closed

    def _publish(self, event: Any) -> None:
        # Any thread. Emitting a queued signal is thread-safe; nothing else is touched here.
        if self._subs.closed:
            return
        try:
            self._relay.emit(event)
        except RuntimeError:  # the C++ object is already gone (shutdown race)
            self._subs.closed = True

    @Slot(object)
    def _on_relay(self, event: Any) -> None:
        if not self._subs.closed:
            self.event.emit(event)

    def close(self) -> None:
        """Unsubscribe from every source; later events are dropped. Safe to call twice."""
        self._subs.close()


def disconnect_quietly(signal: Any, slot: Any) -> None:
    """Disconnect ``slot`` if it is still connected (a closing dialog may already be detached)."""
    try:
        signal.disconnect(slot)
    except (RuntimeError, TypeError):
        pass
