"""The one way to run background work, for every layer (domain, agent, services, UI).

- :func:`run_blocking` runs a blocking call (file or database I/O, jieba, a store write) in a
  worker thread and awaits it. Everything blocking goes through it, so there is one place that
  decides where such work runs.
- :func:`import_off_loop` imports modules the same way (a large package's first import would stall the
  loop for a second or more).
- :func:`imports_settled` wraps code that may import a large package (LangChain: several hundred
  thousand objects) so the collector stops walking what the import made.
- :class:`TaskKeeper` owns fire-and-forget tasks: it keeps them referenced until they finish (the
  event loop holds only weak references), logs their failures, and cancels and awaits whatever is
  left when its owner closes.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import sys
from typing import Any, Callable, Coroutine, Iterator, TypeVar

log = logging.getLogger(__name__)
T = TypeVar("T")


async def run_blocking(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)`` in a worker thread (context variables carried over)."""
    return await asyncio.to_thread(fn, *args, **kwargs)


async def import_off_loop(names: tuple[str, ...], optional: tuple[str, ...] = ()) -> None:
    """Import ``names`` in a worker thread (a no-op for modules already imported), then ``optional``
    ones, skipping any that do not exist (a library's private modules, which a later release may move)."""
    await run_blocking(_import_all, names, optional)


def _import_all(names: tuple[str, ...], optional: tuple[str, ...] = ()) -> None:
    import importlib

    with imports_settled():
        for name in names:
            importlib.import_module(name)
        for name in optional:
            try:
                importlib.import_module(name)
            except ImportError:
                pass


@contextlib.contextmanager
def imports_settled() -> Iterator[None]:
    """Around code that may import modules (any thread): when it did, every object that exists then is
    moved to the collector's permanent generation (``gc.freeze``). A module's objects live as long as
    the process, and LangChain's first import makes ~150,000 of them: left young, the next collections
    on the Qt thread walk them all (a 60-120 ms stall while the first reply streams), and every full
    collection after. Nothing is collected here, so it is safe on a worker thread. The cost: what is
    frozen is still freed by reference counting, but an object alive at that moment that is, or later
    becomes, part of a reference cycle is never collected (e.g. a chat model built in the same step,
    dropped after a settings change). That is bounded: a few freezes per run, each at a burst of
    imports; the app's start-up collection (``ui/gc_guard.freeze_startup_objects``) unfreezes and
    collects everything once."""
    before = len(sys.modules)
    try:
        yield
    finally:
        if len(sys.modules) > before:
            gc.freeze()


class TaskKeeper:
    """Keeps tasks alive until done; ``await close()`` cancels and awaits the rest."""

    def __init__(self, name: str = "tasks") -> None:
        self._name = name
        self._tasks: set[asyncio.Task[Any]] = set()
        self._closed = False

    def spawn(self, coro: Coroutine[Any, Any, T], *, name: str | None = None) -> asyncio.Task[T]:
        """Start ``coro`` on the running loop and keep it until it finishes. After ``close()`` the
        coroutine is closed without running and a cancelled task is returned."""
        task = asyncio.ensure_future(coro)
        if name:
            task.set_name(name)
        if self._closed:
            task.cancel()
            return task
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("%s: background task %s failed", self._name, task.get_name(), exc_info=task.exception())

    @property
    def pending(self) -> int:
        return len(self._tasks)

    async def drain(self, timeout: float | None = None) -> bool:
        """Wait (at most ``timeout`` s) for the running tasks; True when none is left."""
        if not self._tasks:
            return True
        done, pending = await asyncio.wait(list(self._tasks), timeout=timeout)
        return not pending

    def cancel_all(self) -> list[asyncio.Task[Any]]:
        """No new tasks; cancel the running ones without waiting (for a synchronous ``close()``);
        returns them, for whoever can await them."""
        self._closed = True
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        return tasks

    async def close(self) -> None:
        """No new tasks; cancel and await the running ones. Safe to call twice."""
        self._closed = True
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
