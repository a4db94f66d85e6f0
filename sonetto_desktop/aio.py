"""The one way to run background work, for every layer (domain, agent, services, UI).

- :func:`run_blocking` runs a blocking call (file or database I/O, jieba, a store write) in a
  worker thread and awaits it. Everything blocking goes through it, so there is one place that
  decides where such work runs; :func:`run_detached` does the same on a daemon thread for long work
  that must not hold up the process's exit, and :func:`start_thread` makes the few long-lived threads
  (listeners, background loops; :class:`DeadlineLine`: one that runs calls each given up at a deadline). ``tests/test_import_rule.py`` keeps ``asyncio.to_thread`` and
  ``threading.Thread`` out of every other module.
- :func:`import_off_loop` imports modules the same way (a large package's first import would stall the
  loop for a second or more).
- :class:`TaskScope` owns fire-and-forget tasks: it keeps them referenced until they finish (the
  event loop holds only weak references), logs their failures, and cancels and awaits whatever is
  left when its owner closes. Scopes form one tree per process under :func:`root_scope` (the desktop
  app makes it its own and closes it last at shutdown; windows and dialogs get children), and
  :func:`spawn` starts a task in it. Every task of the package starts here: ``tests/test_import_rule.py``
  keeps ``create_task`` / ``ensure_future`` and other roots out of every other module.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import sys
import threading
import weakref
from concurrent.futures import Future
from typing import Any, Awaitable, Callable, TypeVar

log = logging.getLogger(__name__)
T = TypeVar("T")


async def run_blocking(fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)`` in a worker thread (context variables carried over)."""
    return await asyncio.to_thread(fn, *args, **kwargs)


def run_detached(fn: Callable[[], T]) -> asyncio.Future[T]:
    """``fn()`` on a daemon thread of its own, its result as a future on the running loop. For long work
    (a tidy-up pass calling a model for minutes) that must never hold up the process's exit, which
    waits for ``run_blocking``'s pool threads."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def settle(result: Any, error: BaseException | None) -> None:
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)

    def target() -> None:
        try:
            result, error = fn(), None
        except BaseException as exc:  # noqa: BLE001 - handed to the awaiting coroutine
            result, error = None, exc
        try:
            loop.call_soon_threadsafe(settle, result, error)
        except RuntimeError:
            pass  # the loop closed meanwhile

    start_thread(target, name=f"sonetto-{getattr(fn, '__name__', 'work')}")
    return future


def start_thread(target: Callable[..., Any], *, name: str, args: tuple[Any, ...] = (),
                 daemon: bool = True) -> threading.Thread:
    """A long-lived thread of its own, started (a server's listener, a background rewrite or sync loop):
    the one place the app makes threads, named for what they do."""
    thread = threading.Thread(target=target, name=name, args=args, daemon=daemon)
    thread.start()
    return thread


class DeadlineLine:
    """One long-lived thread (made by :func:`start_thread` at the first call) that runs calls one at a
    time, each waited for until its deadline: :meth:`run` raises ``TimeoutError`` then, and a call not
    begun by its deadline is never run. A call that never ends holds the one thread; the calls after it
    wait in line and give up at their deadlines, no thread more (the built-in embeddings model's queries)."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._calls: queue.SimpleQueue[tuple[Future, Callable[[], Any]] | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._closed = False

    def run(self, call: Callable[[], T], timeout: float) -> T:
        """``call()``'s result, run on the line, within ``timeout`` seconds (else ``TimeoutError``). After
        :meth:`close`: run here."""
        with self._lock:
            if self._closed:
                return call()
            if self._thread is None:
                self._thread = start_thread(self._serve, name=self._name)
            future: Future = Future()
            self._calls.put((future, call))
        try:
            return future.result(timeout=max(timeout, 0.0))
        except TimeoutError:
            future.cancel()  # not begun: never run (begun: it ends on the line, its answer unread)
            raise

    def _serve(self) -> None:
        while (item := self._calls.get()) is not None:
            future, call = item
            if not future.set_running_or_notify_cancel():
                continue  # its caller went on without it
            try:
                future.set_result(call())
            except BaseException as exc:  # noqa: BLE001 - handed to the caller
                future.set_exception(exc)

    def close(self) -> None:
        """The thread ends after the call in hand (not waited for: it may never end)."""
        with self._lock:
            self._closed = True
            if self._thread is not None:
                self._calls.put(None)
                self._thread = None


async def import_off_loop(names: tuple[str, ...], optional: tuple[str, ...] = ()) -> None:
    """Import ``names`` in a worker thread (a no-op for modules already imported), then ``optional``
    ones, skipping any that do not exist (a library's private modules, which a later release may move)."""
    await run_blocking(import_now, names, optional)


def import_now(names: tuple[str, ...], optional: tuple[str, ...] = ()) -> None:
    """:func:`import_off_loop`'s work, here and now: for code that already runs off the loop."""
    import importlib

    if all(name in sys.modules for name in names) and all(name in sys.modules or name in _missing for name in optional):
        return  # (the usual case after the first time)
    for name in names:
        importlib.import_module(name)
    for name in optional:
        try:
            importlib.import_module(name)
        except ImportError:
            _missing.add(name)  # not looked for again
    drop_source_cache()


def trim_heap() -> bool:
    """Hand the C heap's free pages back to the system (glibc's ``malloc_trim``; elsewhere nothing):
    memory let go is free in the process but part of its RSS until then (a 50 MB export read the old
    way: 29 MB kept after letting it go, 12 MB after a trim; start-up's full reads at 100,000
    memories: ~20 MB). ctypes lets go of the GIL for the call. True when it ran."""
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
        trim = getattr(libc, "malloc_trim", None)
    except OSError:
        return False
    if trim is None:
        return False
    trim(0)
    return True


def drop_source_cache() -> None:
    """Forget the source lines Python's line cache holds (a traceback reads what it shows again).
    With Qt's Python binding loaded, each module imported after it is read whole into that cache and
    kept for good: PySide6's feature switch looks for its own name in every new module's source. At
    start-up that is 24 MB (the app's modules, numpy's, jieba's tables as source); the LLM stack's
    first import adds more."""
    import linecache

    linecache.clearcache()


_missing: set[str] = set()  # optional modules this version of a library does not have


class TaskScope:
    """Owns fire-and-forget tasks: keeps them until they finish, logs their failures, and on ``close()``
    cancels and awaits whatever is left — its children's first. Scopes form a tree: the app owns the
    root, and each window, dialog or view takes a ``child``, so closing the app (or a dialog) ends every
    task started below it and nothing is found and cancelled by name."""

    def __init__(self, name: str = "tasks", parent: TaskScope | None = None) -> None:
        self._name = name
        self._parent = weakref.ref(parent) if parent is not None else None  # weak: parent and child form no cycle
        self._tasks: set[asyncio.Task[Any]] = set()
        self._children: list[TaskScope] = []
        self._closed = False

    @property
    def name(self) -> str:
        return self._name

    @property
    def closed(self) -> bool:
        return self._closed

    def child(self, name: str) -> TaskScope:
        """A scope closed with this one (or on its own, earlier). A child of a closed scope is closed."""
        scope = TaskScope(name, self)
        if self._closed:
            scope._closed = True
        else:
            self._children.append(scope)
        return scope

    def spawn(self, coro: Awaitable[T], *, name: str | None = None, awaited: bool = False) -> asyncio.Task[T]:
        """Start ``coro`` on the running loop and keep it until it finishes. After ``close()`` the
        coroutine is closed without running and a cancelled task is returned. ``awaited``: its starter
        awaits it and handles its failure (it is not logged here again)."""
        task = asyncio.ensure_future(coro)
        if name:
            task.set_name(name)
        if self._closed:
            task.cancel()
            return task
        self._tasks.add(task)
        task.add_done_callback(self._settled if awaited else self._done)
        return task

    def _settled(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("%s: background task %s failed", self._name, task.get_name(), exc_info=task.exception())

    @property
    def pending(self) -> int:
        """Tasks still running here and below."""
        return len(self._tasks) + sum(child.pending for child in self._children)

    def _all_tasks(self) -> list[asyncio.Task[Any]]:
        return [*self._tasks, *(task for child in self._children for task in child._all_tasks())]

    async def drain(self, timeout: float | None = None) -> bool:
        """Wait (at most ``timeout`` s) for the running tasks here and below; True when none is left."""
        tasks = self._all_tasks()
        if not tasks:
            return True
        done, pending = await asyncio.wait(tasks, timeout=timeout)
        return not pending

    def cancel_all(self) -> list[asyncio.Task[Any]]:
        """No new tasks here or below; cancel the running ones without waiting (for a synchronous
        close, e.g. a widget being destroyed); returns them, for whoever can await them."""
        self._closed = True
        tasks = []
        for child in list(self._children):
            tasks.extend(child.cancel_all())
        own = list(self._tasks)
        for task in own:
            task.cancel()
        parent = self._parent() if self._parent is not None else None
        if parent is not None and self in parent._children:
            parent._children.remove(self)
        return [*tasks, *own]

    async def close(self) -> None:
        """No new tasks here or below; cancel and await the running ones, children first. Safe to call twice."""
        tasks = self.cancel_all()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)

    async def __aenter__(self) -> TaskScope:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        """A scope used as a block (``async with root_scope().child(...) as scope``) ends its tasks at the block's end."""
        await self.close()


_root: TaskScope | None = None


def root_scope() -> TaskScope:
    """The process's root scope: the one the desktop app set (``set_root_scope``), else one made on first
    use (the command line, the MCP server, a part built by itself in a test) and again after it closed."""
    global _root
    if _root is None or _root.closed:
        _root = TaskScope("process")
    return _root


def new_root_scope(name: str) -> TaskScope:
    """A fresh root, made the process's: the desktop app's own, which it closes last at shutdown (after the
    services stopped their tasks: whatever is left is cancelled and awaited there)."""
    global _root
    _root = TaskScope(name)
    return _root


def spawn(coro: Awaitable[T], *, name: str | None = None, awaited: bool = False) -> asyncio.Task[T]:
    """``coro`` as a task of the root scope (see ``TaskScope.spawn``): for the Qt-free parts (the writer's
    loop, the tidy-up schedule, the store watcher, a chat turn), which keep and stop their own task and
    leave whatever is still running at the app's end to the root."""
    return root_scope().spawn(coro, name=name, awaited=awaited)
