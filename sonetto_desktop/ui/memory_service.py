"""MemoryService: the one way the UI runs an operation, and the one place its failures are worded.

Every user operation — an edit, a move, a merge, an undo from a toast or the history, approving or
rejecting a proposal, "别记住这个", forgetting a recalled memory — goes through :meth:`MemoryService.run`
(a blocking call, run in a worker through ``aio.run_blocking``) or :meth:`MemoryService.run_async` (a
coroutine of the services). Memory writes are done as the user through the services' memory operations
(``actor="user"``) with a reason. A failure never raises into a slot: it is logged, worded once
(``presentation.errors.describe_error``) and said through the caller's ``on_error`` (a dialog showing it
in place) or else ``operation_failed`` (the window shows a toast); the result is then ``None``. The
operations run as tasks the service owns (``drain()`` awaits them at shutdown).

What changed comes back on the services' one event feed (``AppFeed``, given by the app or made here
over ``source``); ``memory_changed`` relays its memory changes.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from typing import Any, Awaitable, Callable, Iterable, TypeVar

from PySide6.QtCore import QObject, Signal

from sonetto_desktop.aio import TaskScope, run_blocking
from sonetto_desktop.memory.changes import Turn
from sonetto_desktop.memory.errors import MemoryNotFound
from sonetto_desktop.memory.item import MemoryItem
from sonetto_desktop.memory.operations import MemoryOperations
from sonetto_desktop.memory.reasons import reason_text
from sonetto_desktop.memory.stores.base import BaseMemoryManager
from sonetto_desktop.presentation.errors import describe_error

from .app_feed import AppFeed
from sonetto_desktop.presentation.cards import CardIndex, read_card_index

log = logging.getLogger(__name__)
UI_ACTION_PREFIX = "ui-"  # the turn id of one action of the person in the window
R = TypeVar("R")
ErrorSink = Callable[[str], Any]

__all__ = ["MemoryService", "describe_error"]


class MemoryService(QObject):
    """UI operations on the memories. ``source``: the app's ``AppServices`` (its memory operations,
    followed across a store re-open), or memory operations / a store (tests, tools). ``feed``: the
    app's one ``AppFeed`` (made here over ``source`` when not given). Signals are delivered on the GUI
    thread."""

    memory_changed = Signal(object)  # MemoryChange
    operation_failed = Signal(str)

    def __init__(self, source: Any, parent: QObject | None = None, *, feed: AppFeed | None = None) -> None:
        super().__init__(parent)
        if isinstance(source, BaseMemoryManager):
            source = MemoryOperations(source)
        self._source = source
        self._tasks = TaskScope("MemoryService")  # its own: drained at shutdown, never cancelled first
        self._own_feed = feed is None
        self.feed = feed if feed is not None else AppFeed(source, self)
        self.feed.memory_changed.connect(self.memory_changed)

    @property
    def services(self) -> Any:
        """The app's services (``None`` over a bare store)."""
        source = self._source
        return None if isinstance(source, MemoryOperations) else source

    @property
    def memory(self) -> MemoryOperations:
        """The memory operations in use now (the services' may change when the store is re-opened)."""
        source = self._source
        return source if isinstance(source, MemoryOperations) else source.memory

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
        days = getattr(getattr(self._source, "settings", None), "trash_retention_days", None)
        return float(days) if isinstance(days, (int, float)) else None

    # ── the runner ────────────────────────────────────────────────────

    def _failed(self, what: Any, exc: BaseException, on_error: ErrorSink | None) -> None:
        log.warning("operation %s failed: %s", getattr(what, "__name__", what), exc)
        text = describe_error(exc)
        if on_error is not None:
            on_error(text)
        else:
            self.operation_failed.emit(text)

    async def run(self, fn: Callable[..., R], *args: Any, on_error: ErrorSink | None = None, **kwargs: Any) -> R | None:
        """``fn(*args, **kwargs)`` in a worker; its result, or ``None`` once a failure was said."""
        try:
            return await run_blocking(fn, *args, **kwargs)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - reported to the person, never raised into Qt
            self._failed(fn, exc, on_error)
            return None

    async def run_async(self, coro: Awaitable[R], *, on_error: ErrorSink | None = None) -> R | None:
        """A coroutine of the services (e.g. ``forget_turn``), with the same failure handling as ``run``."""
        try:
            return await coro
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - reported to the person, never raised into Qt
            self._failed(coro, exc, on_error)
            return None

    def start(self, coro: Awaitable[R], *, name: str | None = None) -> "asyncio.Task[R]":
        """Run ``coro`` (usually ``run(...)`` followed by what to say) as a task the service owns."""
        return self._tasks.spawn(coro, name=name)

    def _call(self, fn: Callable[..., R], *args: Any, **kwargs: Any) -> Awaitable[R | None]:
        return self.run(fn, *args, **kwargs)

    def _action(self) -> MemoryOperations:
        """The memory operations for one of the person's actions: its own ``ui-…`` turn, so the action
        can be undone as one (Edit ▸ 撤销, Ctrl+Z; ``undo_turn``)."""
        memory = self.memory
        return memory.as_actor(memory.actor, Turn(f"{UI_ACTION_PREFIX}{uuid.uuid4().hex[:12]}"))

    def _write(self, fn: Callable[..., R], *args: Any, **kwargs: Any) -> "asyncio.Future[R | None]":
        """A write as a task the service owns; awaiting it from a view's task that gets cancelled (the
        view was closed) does not cancel the write (``asyncio.shield``)."""
        return asyncio.shield(self.start(self.run(fn, *args, **kwargs)))

    # ── reads (awaitables; ``None`` / empty on failure, reported once) ─

    async def snapshot(self) -> dict[str, MemoryItem] | None:
        """Every memory, id -> item (read in a worker)."""
        return await self._call(lambda: self.memory.all_items())

    async def snapshot_cards(self) -> "CardIndex | None":
        """Every memory as a wall card, with the card model's lookups, built in the worker (no
        history copies)."""
        return await self._call(lambda: read_card_index(self.memory.store))

    async def fetch(self, ids: Iterable[str]) -> dict[str, MemoryItem | None] | None:
        """The current state of ``ids``; a missing id maps to ``None`` (read in a worker)."""
        ids = list(ids)
        return await self._call(lambda: _fetch(self.memory.store, ids))

    async def item(self, memory_id: str) -> MemoryItem | None:
        return await self._call(lambda: self.memory.get(memory_id))

    async def list_trash(self) -> list[dict[str, Any]] | None:
        return await self._call(lambda: self.memory.trash())

    # ── writes (each returns a Task; result ``None`` on failure) ──────

    def add(self, description: str, theme: str, reason: str = "") -> "asyncio.Task[str | None]":
        reason = reason or reason_text("user.add")
        return self._write(lambda: self._action().add(description, theme, reason=reason).ids[0])

    def edit(
        self, memory_id: str, description: str | None, theme: str | None, reason: str = ""
    ) -> "asyncio.Task[bool | None]":
        """Change description and/or theme (``None`` or unchanged text leaves a field as it is)."""
        reason = reason or reason_text("user.edit")
        return self._write(lambda: self._action().update(memory_id, description=description, theme=theme,
                                                      reason=reason) is not None)

    def move_theme(self, memory_id: str, theme: str, reason: str = "") -> "asyncio.Task[bool | None]":
        theme = (theme or "").strip()
        reason = reason or reason_text("user.drag", theme)
        return self._write(lambda: self._action().move(memory_id, theme, reason=reason) is not None)

    def merge(
        self, keep_id: str, gone_id: str, description: str, theme: str, reason: str = ""
    ) -> "asyncio.Task[bool | None]":
        """``keep_id`` stays with the merged text; ``gone_id`` goes to the trash. True once merged."""
        reason = reason or reason_text("user.merge")
        return self._write(lambda: self._action().merge(keep_id, gone_id, description, theme, reason=reason) is not None)

    def delete(self, memory_id: str, reason: str = "") -> "asyncio.Task[str | None]":
        reason = reason or reason_text("user.delete")
        return self._write(lambda: self._action().delete(memory_id, reason=reason).extra.get("description", ""))

    def restore(self, memory_id: str) -> "asyncio.Task[str | None]":
        return self._write(lambda: self._action().restore(memory_id).ids[0])

    def revert(self, memory_id: str, version: int, reason: str = "") -> "asyncio.Task[bool | None]":
        """Bring back ``version`` as a new change; True once done."""
        reason = reason or reason_text("user.revert")
        return self._write(lambda: self._action().revert(memory_id, version, reason=reason) is not None)

    def purge(self, memory_id: str | None = None) -> "asyncio.Task[int | None]":
        return self._write(lambda: len(change.ids) if (change := self.memory.purge(memory_id)) else 0)

    def set_locked(self, memory_id: str, locked: bool) -> "asyncio.Task[bool | None]":
        """Lock (or unlock) against Sonetto and other apps; True once done (also when it already was)."""
        reason = (reason_text("user.lock") if locked
                  else reason_text("user.unlock"))

        def write() -> bool:
            self._action().set_locked(memory_id, locked, reason=reason)  # None: it already was so
            return True

        return self._write(write)

    def set_field(self, memory_id: str, name: str, value: Any) -> "asyncio.Task[bool | None]":
        """Set a field the person may set (``record.Field.set_by``, e.g. ``pinned``); True once done
        (also when it already had that value)."""

        def write() -> bool:
            self.memory.set_field(memory_id, name, value)
            return True

        return self._write(write)

    # ── many at once: one action each (``BulkResult``: turn id, changes, skipped ids) ──

    def move_many(self, ids: Iterable[str], theme: str, reason: str = "") -> "asyncio.Task[Any]":
        ids = list(ids)
        return self._write(lambda: self.memory.move_many(ids, theme, reason=reason))

    def delete_many(self, ids: Iterable[str], reason: str = "") -> "asyncio.Task[Any]":
        ids = list(ids)
        reason = reason or reason_text("bulk.delete")
        return self._write(lambda: self.memory.delete_many(ids, reason=reason))

    def lock_many(self, ids: Iterable[str], locked: bool) -> "asyncio.Task[Any]":
        ids = list(ids)
        if len(ids) == 1:  # one card (its menu): "手动锁定", not "批量锁定"
            reason = reason_text("user.lock") if locked else reason_text("user.unlock")
        else:
            reason = reason_text("bulk.lock") if locked else reason_text("bulk.unlock")
        return self._write(lambda: self.memory.lock_many(ids, locked, reason=reason))

    def rename_theme(self, old: str, new: str) -> "asyncio.Task[Any]":
        """Every memory of ``old`` files under ``new`` (two themes merge when ``new`` exists)."""
        reason = reason_text("bulk.rename_theme", old, new.strip())
        return self._write(lambda: self.memory.rename_theme(old, new, reason=reason))

    def forget_written_by(self, actor: str, since: Any) -> "asyncio.Task[Any]":
        """To the trash: every memory ``actor`` created since ``since`` (a datetime)."""
        reason = reason_text("bulk.forget_today")
        return self._write(lambda: self.memory.forget_written_by(actor, since, reason=reason))

    def undo_turn(self, turn_id: str, reason: str = "") -> "asyncio.Task[Any]":
        """Take back every change of ``turn_id`` (a chat turn or a bulk action) as one action."""
        reason = reason or reason_text("undo.toast")
        return self._write(lambda: self.memory.undo_turn(turn_id, reason=reason))

    # ── import / export (the CLI's formats; see ``memory/transfer.py``) ─

    async def preview_import(self, items: dict[str, MemoryItem]) -> Any:
        """What importing ``items`` would do (``ImportPreview``), read in a worker."""
        from sonetto_desktop.memory.import_preview import preview_import

        return await self._call(lambda: preview_import(self.memory.store, items))

    def import_items(self, items: dict[str, MemoryItem], reason: str) -> "asyncio.Task[tuple[list[str], list[str]] | None]":
        """Import as the user in one write: (added ids, skipped ids)."""
        return self._write(lambda: self.memory.import_items(items, reason=reason)[1:])

    def export_to(self, path: Any, fmt: str) -> "asyncio.Task[int | None]":
        """Write an export atomically (temp file, fsync, replace) in a worker; how many were exported."""
        from sonetto_desktop.memory.transfer import write_export

        return self._write(lambda: write_export(self.memory.store, path, fmt))


def _fetch(manager: BaseMemoryManager, ids: list[str]) -> dict[str, MemoryItem | None]:
    items = manager.all_items() if len(ids) > 32 else None
    out: dict[str, MemoryItem | None] = {}
    for memory_id in ids:
        if items is not None:
            out[memory_id] = items.get(memory_id)
            continue
        try:
            out[memory_id] = manager.get(memory_id)
        except MemoryNotFound:
            out[memory_id] = None
    return out
