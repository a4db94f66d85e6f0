"""PgConnectionState: whether a PostgreSQL memory store is online, and its connection pool (a
``PostgresMemoryManager`` part). A failed read or write takes the store offline (the local copy is
served); the listener brings it back when it reconnects, or at its next heartbeat when its own
connection never broke, and the pool is renewed then (an old one may sit in its reconnect backoff).
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import Any, Callable

from ....redaction import scrub

log = logging.getLogger(__name__)

POOL_WAIT = 10.0  # seconds a write waits for a free connection of the pool


@dataclass(frozen=True)
class StoreStatus:
    """Whether the server answers. ``detail``: why not; ``copy_time``: when the local copy shown
    while offline was saved (None: there is none)."""

    online: bool
    detail: str = ""
    copy_time: str | None = None

    @property
    def read_only(self) -> bool:
        return not self.online


class PgConnectionState:
    """Needs the store's ``location``, ``_state_lock``, ``_online``, ``_closed``, ``_offline_detail``,
    ``_init_error``, ``_served_offline``, ``_cache``, ``_listener``, ``_pool``, ``_pool_size``,
    ``_retiring`` and ``_status_feed``."""

    @property
    def online(self) -> bool:
        return self._online.is_set()

    @property
    def status(self) -> StoreStatus:
        if self.online:
            return StoreStatus(True)
        return StoreStatus(False, self._offline_detail or self._init_error,
                           self._cache.saved_at() if self._cache is not None else None)

    def subscribe_status(self, callback: Callable[[StoreStatus], None]) -> Callable[[], None]:
        """``callback(status)`` whenever the server goes away or comes back (on a worker thread)."""
        return self._status_feed.subscribe(callback)

    def _describe(self, exc: BaseException) -> str:
        text = " ".join(str(exc).split()) or type(exc).__name__
        return scrub(text, [self.location.password])[:300]

    def _go_online(self) -> None:
        with self._state_lock:
            if self._closed:
                return
            self._pool.open(wait=False)
            changed = not self._online.is_set()
            self._online.set()
            self._offline_detail = ""
        if changed:
            self._status_feed.publish(self.status)

    def _make_pool(self) -> Any:
        from psycopg_pool import ConnectionPool

        return ConnectionPool(self.location.url, kwargs={"autocommit": True, **self.location.connect_kwargs()},
                              min_size=1, max_size=self._pool_size, open=False,
                              check=ConnectionPool.check_connection, name=f"sonetto-{self.location.schema}",
                              timeout=POOL_WAIT)

    def _renew_pool(self) -> None:
        """A fresh pool, connecting now. After an outage the old pool can sit in its reconnect backoff
        (1, 2, 4, 8… seconds between attempts) for a while after the server is back, and every read
        would be served from the local copy meanwhile. The old pool is closed once whoever still waits
        on it has given up (``POOL_WAIT``): closing it at once would fail them as if the server were away."""
        fresh = self._make_pool()
        fresh.open(wait=False)
        with self._state_lock:
            if self._closed:
                fresh.close(timeout=0)
                return
            old, self._pool = self._pool, fresh
            timer = threading.Timer(POOL_WAIT + 1.0, old.close, kwargs={"timeout": 2.0})
            timer.daemon = True
            timer.start()
            self._retiring = [(t, p) for t, p in self._retiring if t.is_alive()] + [(timer, old)]

    def _go_offline(self, exc: BaseException) -> None:
        """The server (or the way to it) failed a read or a write: serve the local copy until the listener
        says it is back (reconnecting, or at its next heartbeat when its own connection never broke)."""
        with self._state_lock:
            if self._closed:
                return
            changed = self._online.is_set() or not self._offline_detail
            self._online.clear()
            self._offline_detail = self._describe(exc)
            self._served_offline = True
            self._listener.start()  # keeps trying to reconnect, whoever noticed the outage
        if changed:
            log.warning("memory server %s unreachable (%s); read-only until it is back",
                        self.location.display(), self._offline_detail)
            self._status_feed.publish(self.status)
