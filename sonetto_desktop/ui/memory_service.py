"""MemoryService: the Qt adapter over the services' operations (``ops.py``, ``AppServices.run``).

Every user operation — an edit, a move, a merge, an undo from a toast or the history, approving or
rejecting a proposal, "别记住这个", forgetting a recalled memory — is an operation value run by
:meth:`MemoryService.run` (``await service.run(ops.DeleteMemory(memory_id))``) or started by
:meth:`MemoryService.submit` (a write that finishes even if the view asking for it is closed). The
services run it (blocking work in a worker) and return ``Done`` or ``Failed``; this adapter only says a
failure — its one wording, ``presentation.errors`` — through the caller's ``on_error`` (a dialog showing it
in place) or else ``operation_failed`` (the window shows a toast), and gives the caller the result or
``None``. The operations run as tasks the service owns (``drain()`` awaits them at shutdown).

Work of a view that is not a memory operation (saving settings, testing a connection, reading a file)
goes through :func:`run_op` with an ``ops.Call``: this is the one ui module that hands work to a thread.

What changed comes back on the services' one event feed (``AppFeed``, given by the app or made here
over ``source``); ``memory_changed`` relays its memory changes.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Awaitable, Callable, TypeVar, overload

from PySide6.QtCore import QObject, Signal

from sonetto_desktop import ops
from sonetto_desktop.aio import root_scope
from sonetto_desktop.memory.operations import MemoryOperations
from sonetto_desktop.ops import Call, Failed, Op, OpTarget, Outcome
from sonetto_desktop.services import AppServices
from sonetto_desktop.presentation.errors import describe_error
from sonetto_desktop.presentation.i18n import Worded
from sonetto_desktop.presentation.server_words import changes_refused

from .app_feed import AppFeed
from .widgets.deferred import alive

log = logging.getLogger(__name__)
R = TypeVar("R")
ErrorSink = Callable[[str], Any]

__all__ = ["MemoryService", "describe_error", "run_op", "call"]


async def run_op(op: Op[R], services: Any = None) -> Outcome[R]:
    """``op`` run by ``services`` (``AppServices.run``), or with none (an ``ops.Call`` before the
    services are open: loading the settings, a settings page's test) by the same runner:
    ``Done`` or ``Failed`` (worded once), never raised."""
    if isinstance(services, AppServices):
        return await services.run(op)
    return await ops.run(op, services)


async def call(fn: Callable[..., R], /, *args: Any, **kwargs: Any) -> Outcome[R]:
    """``fn(*args, **kwargs)`` in a worker, as an ``ops.Call``: ``Done`` or ``Failed``."""
    return await run_op(Call.of(fn, *args, **kwargs))


#: The key of the toast saying why a change is refused up front (the memory server away or refusing).
REFUSED_TOAST = "changes-refused"


class MemoryService(QObject):
    """UI operations on the memories. ``source``: the app's ``AppServices`` (its memory operations,
    followed across a store re-open), or memory operations / a store (tests, tools). ``feed``: the
    app's one ``AppFeed`` (made here over ``source`` when not given). Signals are delivered on the GUI
    thread."""

    memory_changed = Signal(object)  # MemoryChange
    operation_failed = Signal(object)  # str: ``Failed.message`` (a ``Worded``, said again on a language switch)
    changes_refused_changed = Signal(str)  # ``changes_refused()`` now: a memory server went away or came back ("")

    def __init__(self, source: Any, parent: QObject | None = None, *, feed: AppFeed | None = None) -> None:
        super().__init__(parent)
        self._target = OpTarget.of(source)
        self._source = source if self._target.services is not None else self._target.memory
        self._tasks = root_scope().child("MemoryService")  # beside the UI's: drained at shutdown, never cancelled first
        self._own_feed = feed is None
        self.feed = feed if feed is not None else AppFeed(self._source, self)
        self.feed.memory_changed.connect(self.memory_changed)
        self._store_status = getattr(self.services, "store_status", None)
        self.feed.store_status_changed.connect(self._on_store_status)

    @property
    def store_status(self) -> Any:
        """The store's ``StoreStatus`` as last heard (None: a local store, never offline)."""
        return self._store_status

    def changes_refused(self) -> str:
        """Why no memory can be changed now (the memory server away or refusing this computer: read-only
        until it answers), or "" when changes are taken: say it before anything is tried."""
        return changes_refused(self._store_status)

    def refusal(self) -> Worded | None:
        """``changes_refused()`` as a ``Worded`` (said again after a language switch), None when changes are taken."""
        status = self._store_status
        return Worded(lambda: changes_refused(status)) if changes_refused(status) else None

    def refuse_changes(self, toasts: Any) -> bool:
        """Whether memories cannot be changed now: then said in ``toasts``, up front, as the wall says it (one
        toast for every refused try: the wall's, the chat's, 导入聊天记录's)."""
        refusal = self.refusal()
        if refusal is not None and toasts is not None and alive(toasts):
            toasts.show_toast(refusal, key=REFUSED_TOAST, kind="error")
        return refusal is not None

    def _on_store_status(self, status: Any) -> None:
        before = self.changes_refused()
        self._store_status = status
        if self.changes_refused() != before:
            self.changes_refused_changed.emit(self.changes_refused())

    @property
    def services(self) -> Any:
        """The app's services (``None`` over a bare store)."""
        return self._target.services

    @property
    def device(self) -> str:
        """This computer's name in the memories it shares with others (a memory server's), "" for a local store."""
        return str(getattr(self.memory.store, "device", "") or "")

    @property
    def memory(self) -> MemoryOperations:
        """The memory operations in use now (the services' may change when the store is re-opened)."""
        return self._target.memory

    def close(self) -> None:
        """Stop relaying store changes (pending operations still finish; ``drain()`` awaits them)."""
        if self._own_feed:
            self.feed.close()
        else:
            try:
                self.feed.memory_changed.disconnect(self.memory_changed)
            except (RuntimeError, TypeError):
                pass

    async def drain(self, timeout: float | None = None) -> None:
        """Wait for every operation started so far (at most ``timeout`` s; the rest are cancelled)."""
        if not await self._tasks.drain(timeout):
            log.warning("memory operations still running were cancelled")
            await self._tasks.close()

    @property
    def pending(self) -> int:
        return self._tasks.pending

    @property
    def trash_retention_days(self) -> float | None:
        """How many days the trash keeps a deleted memory (0: for ever); ``None`` when not known
        (a bare store, as in tests and tools)."""
        days = getattr(getattr(self.services, "settings", None), "trash_retention_days", None)
        return float(days) if isinstance(days, (int, float)) else None

    # ── the runner ────────────────────────────────────────────────────

    async def outcome(self, op: Op[R]) -> Outcome[R]:
        """``op`` run by the services (or over the bare store): ``Done`` or ``Failed``, nothing said."""
        services = self.services
        return await (services.run(op) if services is not None else ops.run(op, self._target))

    @overload
    async def run(self, op: Op[R], *, on_error: ErrorSink | None = None) -> R | None: ...

    @overload
    async def run(self, op: Op[R], *, on_error: ErrorSink | None = None,
                  handled: tuple[type[BaseException], ...]) -> R | Failed | None: ...

    async def run(self, op: Op[R], *, on_error: ErrorSink | None = None,
                  handled: tuple[type[BaseException], ...] = ()) -> R | Failed | None:
        """``op``'s result, or ``None`` once its failure was said (``on_error``, else
        ``operation_failed``). A failure of one of the ``handled`` kinds is not said: its ``Failed`` is
        returned, for the caller to deal with (the edit dialog asks when the memory changed meanwhile)."""
        outcome = await self.outcome(op)
        if isinstance(outcome, Failed):
            if handled and isinstance(outcome.error, handled):
                return outcome
            if on_error is not None:
                on_error(outcome.message)
            else:
                self.operation_failed.emit(outcome.message)
            return None
        return outcome.value

    def start(self, coro: Awaitable[R], *, name: str | None = None) -> "asyncio.Task[R]":
        """Run ``coro`` (usually ``run(...)`` followed by what to say) as a task the service owns."""
        return self._tasks.spawn(coro, name=name)

    @overload
    def submit(self, op: Op[R], *, on_error: ErrorSink | None = None) -> "asyncio.Future[R | None]": ...

    @overload
    def submit(self, op: Op[R], *, on_error: ErrorSink | None = None,
               handled: tuple[type[BaseException], ...]) -> "asyncio.Future[R | Failed | None]": ...

    def submit(self, op: Op[R], *, on_error: ErrorSink | None = None,
               handled: tuple[type[BaseException], ...] = ()) -> "asyncio.Future[Any]":
        """``run(op)`` as a task the service owns, started now; awaiting it from a view's task that gets
        cancelled (the view was closed) does not cancel the operation (``asyncio.shield``). ``handled``:
        as ``run``'s (such a failure comes back as its ``Failed``, unsaid)."""
        return asyncio.shield(self.start(self.run(op, on_error=on_error, handled=handled), name=op.name))
