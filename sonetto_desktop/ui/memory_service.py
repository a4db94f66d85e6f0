"""MemoryService: the one place the UI's memory operations go through.

Every operation is done as the user through the services' memory operations (``actor="user"``)
with a reason, runs the blocking store call in a worker thread (``aio.run_blocking`` on the qasync
loop) and returns an ``asyncio.Task`` the caller may await or forget. A failure never raises into a
slot: it is logged and reported once through ``operation_failed`` with a message for a person, and
the task's result is ``None``. The change channel comes out as ``memory_changed`` on the GUI thread.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Awaitable, Callable, Iterable, TypeVar

from PySide6.QtCore import QCoreApplication, QObject, Signal

from sonetto_desktop.aio import TaskKeeper, run_blocking
from sonetto_desktop.memory.stores.base import BaseMemoryManager
from sonetto_desktop.memory.errors import MemoryError_, MemoryNotFound, StoreCorrupt
from sonetto_desktop.memory.item import MemoryItem
from sonetto_desktop.memory.operations import MemoryOperations
from sonetto_desktop.memory.undo import NothingToUndo, UndoConflict

from .wall.cards import CardIndex, read_card_index
from .qt_bridge import QtEventBridge

log = logging.getLogger(__name__)
R = TypeVar("R")


def describe_error(exc: BaseException) -> str:
    """A message for a person about a failed memory operation (nothing was changed)."""
    if isinstance(exc, UndoConflict):
        return QCoreApplication.translate(
            "MemoryService", "没有撤销：之后又有改动碰到了其中 {0} 条记忆。可以在历史里逐条还原。").format(len(exc.conflicts))
    if isinstance(exc, NothingToUndo):
        return QCoreApplication.translate("MemoryService", "已经没有可撤销的变化了。")
    if isinstance(exc, MemoryNotFound):
        return QCoreApplication.translate("MemoryService", "找不到这条记忆，它可能已被删除或移动。")
    if isinstance(exc, StoreCorrupt):
        text = QCoreApplication.translate("MemoryService", "记忆库文件无法读取，没有做任何修改：{0}")
        return text.format(exc.detail)
    if isinstance(exc, ValueError):
        return QCoreApplication.translate("MemoryService", "输入无效：{0}").format(str(exc))
    if isinstance(exc, MemoryError_):
        return QCoreApplication.translate("MemoryService", "记忆库出错：{0}").format(str(exc))
    return QCoreApplication.translate("MemoryService", "操作失败：{0}").format(str(exc) or type(exc).__name__)


class MemoryService(QObject):
    """UI operations on the memories. ``source``: the app's ``AppServices`` (its memory operations,
    followed across a store re-open, and its change channel), or memory operations / a store
    (tests, tools). Signals are delivered on the GUI thread."""

    memory_changed = Signal(object)  # MemoryChange
    operation_failed = Signal(str)

    def __init__(self, source: Any, parent: QObject | None = None) -> None:
        super().__init__(parent)
        if isinstance(source, BaseMemoryManager):
            source = MemoryOperations(source)
        self._source = source
        self._tasks = TaskKeeper("MemoryService")
        self._bridge = QtEventBridge(source.subscribe, self)
        self._bridge.event.connect(self.memory_changed)

    @property
    def memory(self) -> MemoryOperations:
        """The memory operations in use now (the services' may change when the store is re-opened)."""
        source = self._source
        return source if isinstance(source, MemoryOperations) else source.memory

    def close(self) -> None:
        """Stop relaying store changes (pending operations still finish; ``drain()`` awaits them)."""
        self._bridge.close()

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

    # ── plumbing ──────────────────────────────────────────────────────

    async def _call(self, fn: Callable[..., R], *args: Any, **kwargs: Any) -> R | None:
        try:
            return await run_blocking(fn, *args, **kwargs)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - reported to the person, never raised into Qt
            log.warning("memory operation %s failed: %s", getattr(fn, "__name__", fn), exc)
            self.operation_failed.emit(describe_error(exc))
            return None

    def _start(self, coro: Awaitable[R]) -> "asyncio.Task[R]":
        return self._tasks.spawn(coro)

    def _write(self, fn: Callable[..., R], *args: Any, **kwargs: Any) -> "asyncio.Task[R | None]":
        return self._start(self._call(fn, *args, **kwargs))

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
        reason = reason or QCoreApplication.translate("MemoryService", "手动添加")
        return self._write(lambda: self.memory.add(description, theme, reason=reason).ids[0])

    def edit(
        self, memory_id: str, description: str | None, theme: str | None, reason: str = ""
    ) -> "asyncio.Task[bool | None]":
        """Change description and/or theme (``None`` or unchanged text leaves a field as it is)."""
        reason = reason or QCoreApplication.translate("MemoryService", "手动编辑")
        return self._write(lambda: self.memory.update(memory_id, description=description, theme=theme,
                                                      reason=reason) is not None)

    def move_theme(self, memory_id: str, theme: str, reason: str = "") -> "asyncio.Task[bool | None]":
        theme = (theme or "").strip()
        reason = reason or QCoreApplication.translate("MemoryService", "拖动到「{0}」").format(theme)
        return self._write(lambda: self.memory.move(memory_id, theme, reason=reason) is not None)

    def merge(
        self, keep_id: str, gone_id: str, description: str, theme: str, reason: str = ""
    ) -> "asyncio.Task[bool | None]":
        """``keep_id`` stays with the merged text; ``gone_id`` goes to the trash. True once merged."""
        reason = reason or QCoreApplication.translate("MemoryService", "手动合并")
        return self._write(lambda: self.memory.merge(keep_id, gone_id, description, theme, reason=reason) is not None)

    def delete(self, memory_id: str, reason: str = "") -> "asyncio.Task[str | None]":
        reason = reason or QCoreApplication.translate("MemoryService", "手动删除")
        return self._write(lambda: self.memory.delete(memory_id, reason=reason).extra.get("description", ""))

    def restore(self, memory_id: str) -> "asyncio.Task[str | None]":
        return self._write(lambda: self.memory.restore(memory_id).ids[0])

    def revert(self, memory_id: str, version: int, reason: str = "") -> "asyncio.Task[bool | None]":
        """Bring back ``version`` as a new change; True once done."""
        reason = reason or QCoreApplication.translate("MemoryService", "恢复旧版本")
        return self._write(lambda: self.memory.revert(memory_id, version, reason=reason) is not None)

    def purge(self, memory_id: str | None = None) -> "asyncio.Task[int | None]":
        return self._write(lambda: len(change.ids) if (change := self.memory.purge(memory_id)) else 0)

    def set_locked(self, memory_id: str, locked: bool) -> "asyncio.Task[bool | None]":
        """Lock (or unlock) against Sonetto and other apps; True once done (also when it already was)."""
        reason = (QCoreApplication.translate("MemoryService", "手动锁定") if locked
                  else QCoreApplication.translate("MemoryService", "手动解锁"))

        def write() -> bool:
            self.memory.set_locked(memory_id, locked, reason=reason)  # None: it already was so
            return True

        return self._write(write)

    # ── many at once: one action each (``BulkResult``: turn id, changes, skipped ids) ──

    def move_many(self, ids: Iterable[str], theme: str, reason: str = "") -> "asyncio.Task[Any]":
        ids = list(ids)
        return self._write(lambda: self.memory.move_many(ids, theme, reason=reason))

    def delete_many(self, ids: Iterable[str], reason: str = "") -> "asyncio.Task[Any]":
        ids = list(ids)
        reason = reason or QCoreApplication.translate("MemoryService", "批量删除")
        return self._write(lambda: self.memory.delete_many(ids, reason=reason))

    def lock_many(self, ids: Iterable[str], locked: bool) -> "asyncio.Task[Any]":
        ids = list(ids)
        reason = (QCoreApplication.translate("MemoryService", "批量锁定") if locked
                  else QCoreApplication.translate("MemoryService", "批量解锁"))
        return self._write(lambda: self.memory.lock_many(ids, locked, reason=reason))

    def rename_theme(self, old: str, new: str) -> "asyncio.Task[Any]":
        """Every memory of ``old`` files under ``new`` (two themes merge when ``new`` exists)."""
        reason = QCoreApplication.translate("MemoryService", "主题「{0}」改为「{1}」").format(old, new.strip())
        return self._write(lambda: self.memory.rename_theme(old, new, reason=reason))

    def forget_written_by(self, actor: str, since: Any) -> "asyncio.Task[Any]":
        """To the trash: every memory ``actor`` created since ``since`` (a datetime)."""
        reason = QCoreApplication.translate("MemoryService", "删除 Sonetto 今天写的记忆")
        return self._write(lambda: self.memory.forget_written_by(actor, since, reason=reason))

    def undo_turn(self, turn_id: str) -> "asyncio.Task[Any]":
        """Take back every change of ``turn_id`` (a chat turn or a bulk action) as one action."""
        reason = QCoreApplication.translate("MemoryService", "从提示里撤销")
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
