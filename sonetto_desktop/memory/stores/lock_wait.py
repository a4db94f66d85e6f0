"""Waiting for another process's lock on a store file (``memory.yaml.lock``, an SQLite store's write
lock): said, and not for ever.

The YAML store's writes (and its reads of what changed on disk) take an exclusive file lock shared with
every other process on the same folder: the window, ``sonetto mcp``, the command line. Each holds it for
milliseconds. A process that stops while it holds it (suspended with Ctrl+Z, hung on a network drive)
made every other one wait without a word and without an end. Now a free lock is taken at once; a held
one is waited for by a helper thread blocked in the system's lock call (so waiters are served as the
system queues them, as before: trying again in a loop let a busy writer starve the others), and the
caller waits for that thread: after ``NOTICE_AFTER`` seconds it says once that it is waiting
(``on_wait`` listeners: the command lines print a line; the log has it too), and after ``LIMIT`` seconds —
as long as SQLite waits for a busy database — it gives up with :class:`StoreBusy`, having changed
nothing (the write is refused, the background rewrite tries again later: it is an ``OSError``); the
helper lets the lock go as soon as it gets it. An SQLite store waits in SQLite's own busy handler, in
two steps so the wait can be said (``SqliteMemoryManager._begin``). A store closing as the app quits
stops its own waits (``BaseMemoryManager.stop_waiting``): a stuck holder does not hold up the quit.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import portalocker

from ...aio import start_thread
from ..errors import StoreBusy

__all__ = ["CLOSING_LIMIT", "LIMIT", "NOTICE_AFTER", "closing_left", "exclusive", "on_wait", "say_waiting", "stop_waiting",
           "stopped"]

log = logging.getLogger(__name__)

#: Seconds of waiting after which the wait is said (once per wait).
NOTICE_AFTER = 2.0
#: Seconds after which the waiter gives up (SQLite's busy timeout is the same).
LIMIT = 60.0
#: Seconds after its store's ``stop`` was set until which later waits wait at most, all of them together
#: (a store closing as the app quits: its last rewrite waits out an ordinary moment's hold, not a stuck
#: holder's).
CLOSING_LIMIT = 2.0

_listeners: list[Callable[[Path], None]] = []
_stopped = threading.Event()  # ``stop_waiting``: the process is on its way out
#: The waits under way (``_wait``'s events, each with its store's ``stop``), woken by ``stop_waiting``.
_waits: dict[threading.Event, threading.Event | None] = {}
_waits_guard = threading.Lock()
_stopped_at: weakref.WeakKeyDictionary[threading.Event, float] = weakref.WeakKeyDictionary()  # each stop's time


def on_wait(listener: Callable[[Path], None]) -> Callable[[], None]:
    """Call ``listener(store_path)`` when a wait for the lock passes ``NOTICE_AFTER``; returns its removal."""
    _listeners.append(listener)
    return lambda: _listeners.remove(listener) if listener in _listeners else None


def say_waiting(lock: Path | str, store_path: Path) -> None:
    """A wait for ``lock`` passed ``NOTICE_AFTER``: the log and the listeners are told (once per wait)."""
    log.warning("waiting for another process that holds %s", lock)
    for listener in list(_listeners):
        try:
            listener(store_path)
        except Exception:  # a listener's failure is not the store's
            log.exception("a lock-wait listener failed")


def stopped(stop: threading.Event | None = None) -> bool:
    """Whether ``stop_waiting`` was called for the process, or for ``stop`` (an SQLite store's wait
    looks between its steps)."""
    return _stopped.is_set() or (stop is not None and stop.is_set())


def closing_left(stop: threading.Event) -> float:
    """Seconds a wait begun now may last, ``stop`` being set (``CLOSING_LIMIT`` after it was)."""
    with _waits_guard:
        since = _stopped_at.get(stop)
    return CLOSING_LIMIT if since is None else max(0.0, since + CLOSING_LIMIT - time.monotonic())


def stop_waiting(stop: threading.Event | None = None) -> None:
    """The process is stopping (a command line's Ctrl+C): waits under way, and any later one, give up at
    once with ``StoreBusy`` (nothing changed). The waits run in worker threads, which the interpreter
    waits for on its way out: without this, Ctrl+C did nothing until the limit. ``stop``: only the
    waits given that event (one store's: ``BaseMemoryManager.stop_waiting``, the app quitting), which
    is set: those under way give up at once, later ones wait until ``CLOSING_LIMIT`` after it at most."""
    with _waits_guard:
        if stop is not None:
            _stopped_at.setdefault(stop, time.monotonic())
        (_stopped if stop is None else stop).set()
        for wake, its in _waits.items():
            if stop is None or its is stop:
                wake.set()


@contextmanager
def exclusive(lock_path: Path, store_path: Path, *, limit: float | None = None,
              stop: threading.Event | None = None, opener: Callable[[str, int], int] | None = None) -> Iterator[None]:
    """Hold ``lock_path``'s exclusive lock (see the module docstring); ``StoreBusy`` after ``limit``
    (default ``LIMIT``) seconds of waiting, or when ``stop`` is set (``stop_waiting(stop)``). ``opener``:
    ``open``'s, for the lock file."""
    handle = open(lock_path, "a", opener=opener)  # closed below, after the lock is let go (or by the helper that gave up)
    try:
        try:
            portalocker.lock(handle, portalocker.LOCK_EX | portalocker.LOCK_NB)
        except portalocker.AlreadyLocked:
            try:
                _wait(handle, lock_path, store_path, LIMIT if limit is None else limit, stop)
            except BaseException:
                handle = None  # ``_wait`` closed it, or left it to its helper to close
                raise
        yield
    finally:
        if handle is not None:
            with contextlib.suppress(OSError):
                portalocker.unlock(handle)
            handle.close()


def _wait(handle: IO[str], lock_path: Path, store_path: Path, limit: float,
          stop: threading.Event | None = None) -> None:
    """Wait for ``handle``'s lock in a helper thread blocked in the system's call; return with it held,
    or close ``handle`` and raise ``StoreBusy`` after ``limit`` seconds (the helper then lets the lock
    go as soon as it gets it, and closes the file; so too when the wait is cut short by an exception).
    Where the system's blocking call gives up by itself (Windows: ``msvcrt.locking``'s ten tries), the
    helper asks again until the caller gives up."""
    got = threading.Event()  # set when the helper is done ("taken") or by ``stop_waiting``
    guard = threading.Lock()
    outcome: dict[str, object] = {}

    def take() -> None:
        while True:
            try:
                portalocker.lock(handle, portalocker.LOCK_EX)
            except portalocker.AlreadyLocked:  # Windows: msvcrt's blocking lock gives up after ten tries
                with guard:                    # a second apart; the caller's limit is what ends the wait
                    if not outcome.get("given_up"):
                        continue
                handle.close()
                return
            except BaseException as exc:  # noqa: BLE001 - handed to the waiting caller
                outcome["error"] = exc
            break
        with guard:
            if outcome.get("given_up"):
                with contextlib.suppress(OSError):
                    portalocker.unlock(handle)
                handle.close()
                return
            outcome["taken"] = True  # (the lock, or the error in ``outcome``)
            got.set()

    with _waits_guard:
        _waits[got] = stop
    try:
        if _stopped.is_set():  # (a wait begun after ``stop_waiting``: given up at once)
            handle.close()
            raise StoreBusy(str(store_path), limit)
        if stop is not None and stop.is_set():  # its store is closing: a moment's hold is waited out
            limit = min(limit, closing_left(stop))
        start_thread(take, name="store-lock-wait")
        try:
            if not got.wait(min(NOTICE_AFTER, limit)):
                say_waiting(lock_path, store_path)
                got.wait(max(0.0, limit - NOTICE_AFTER))
        except BaseException:  # cut short (Ctrl+C's KeyboardInterrupt on this thread): given up all the same
            _give_up(guard, outcome, handle)
            raise
    finally:
        with _waits_guard:
            _waits.pop(got, None)
    with guard:
        if not outcome.get("taken"):  # the limit passed, or ``stop_waiting``
            outcome["given_up"] = True
            log.warning("gave up waiting for %s", lock_path)
            raise StoreBusy(str(store_path), limit)
    if "error" in outcome:
        handle.close()
        raise outcome["error"]  # type: ignore[misc]


def _give_up(guard: threading.Lock, outcome: dict[str, object], handle: IO[str]) -> None:
    """The caller stopped waiting before its wait ended (an exception raised into it): the helper lets
    the lock go when it gets it, or, when it got it already, it is let go here. Before, the helper kept
    it: the store stayed locked for every other process while anything kept the exception."""
    with guard:
        outcome["given_up"] = True
        taken = outcome.get("taken") and "error" not in outcome
    if taken:
        with contextlib.suppress(OSError):
            portalocker.unlock(handle)
    if outcome.get("taken"):  # (else the helper closes it)
        handle.close()
