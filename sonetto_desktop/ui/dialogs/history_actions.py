"""HistoryImportActions: File → 导入聊天记录… and the import it starts, for as long as the app runs.

An import outlives its dialog (后台运行, or the window closed): this object, made once by the app,
owns the import (``history_import.service.HistoryImports``), follows it to its end and says so in
a toast (``done``: one that finished, which the toast offers to undo: ``undo_asked``), resumes at start an
import the app was running when it last stopped, and stops the import's writer at shutdown before the store
closes (an import running then goes on at the next start).
The dialog (``history_import.HistoryImportDialog``) shows and asks; the work is done here, every
blocking step off the Qt thread.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Callable

import shiboken6
from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QWidget

from sonetto_desktop.presentation.errors import error_detail
from sonetto_desktop.presentation.i18n import Worded
from sonetto_desktop.presentation.server_words import changes_refused
from ..widgets.tasks import task_scope
from sonetto_desktop.history_import.runner import ImportElsewhere, ImportProgress, ImportResult
from sonetto_desktop.history_import.service import HistoryImports

from ..i18n import ui_language
from ..qt_bridge import QtEventBridge

log = logging.getLogger(__name__)


class HistoryImportActions(QObject):
    progress = Signal(object)  # ImportProgress
    finished = Signal(object)  # ImportResult
    message = Signal(object, str)  # text (a ``Worded``: said again on a language switch), kind ("info" | "error")
    done = Signal(object, object, object)  # text (a ``Worded``), the ImportResult and its import: it finished

    def __init__(self, services: Any, parent: QObject | None = None, *,
                 refuse_changes: Callable[[], bool] | None = None) -> None:
        """``refuse_changes``: whether memories cannot be changed now (the memory server away or refusing this
        computer), said where the wall says it (``MemoryService.refuse_changes``)."""
        super().__init__(parent)
        self._refuse_changes = refuse_changes
        self.imports: HistoryImports = services.imports
        self._services = services
        self._tasks = task_scope(self, "HistoryImportActions")
        self._bridge: QtEventBridge | None = None
        self._follow: asyncio.Task[Any] | None = None
        self._waiting: asyncio.Task[Any] | None = None  # an interrupted import waiting for the memory server
        self.dialog: Any = None
        self.last_result: ImportResult | None = None

    @property
    def running(self) -> Any:
        runner = self.imports.built_runner
        return runner.running if runner is not None else None

    @property
    def last_progress(self) -> Any:
        runner = self.imports.built_runner
        return runner.last if runner is not None else None

    # ── the dialog ────────────────────────────────────────────────────

    def refusal(self) -> str:
        """Why no import can be started or undone now (the memory server away or refusing this computer), or ""."""
        return changes_refused(self._services.store_status)

    def open_dialog(self, parent: QWidget) -> Any:
        """Show the dialog (the one already open, if any), on the running import when there is one. None when
        no import can be written now (the memory server away or refusing this computer): said, before a file
        is chosen and read for nothing."""
        from .history_import import HistoryImportDialog

        if self.dialog is not None and shiboken6.isValid(self.dialog) and self.dialog.isVisible():
            self.dialog.raise_()
            self.dialog.activateWindow()
            return self.dialog
        if self.running is None and self._refuse_changes is not None and self._refuse_changes():
            return None
        dialog = HistoryImportDialog(self, parent)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.setWindowModality(Qt.WindowModality.NonModal)
        self.dialog = dialog
        dialog.show()
        return dialog

    # ── running ───────────────────────────────────────────────────────

    def _watch(self) -> None:
        if self._bridge is None:  # the import's progress, on the services' one feed
            self._bridge = QtEventBridge(self._services.subscribe_events, self)
            self._bridge.event.connect(self._on_event)

    def _on_event(self, event: object) -> None:
        if isinstance(event, ImportProgress):
            self.progress.emit(event)

    async def start(self, plan: Any, history: Any, **options: Any) -> Any:
        """Begin the import of ``plan`` (a failure is said through ``message`` and returned as None)."""
        if self._refused():
            return None
        self._watch()
        try:
            state = await self.imports.start(plan, history, **options)
        except ImportElsewhere:
            self.message.emit(Worded(lambda: self.tr("这个导入正在另一个 Sonetto 里进行")), "error")
            return None
        except (OSError, ValueError, RuntimeError) as exc:
            failure = exc  # (``exc`` is gone after the clause)
            self.message.emit(Worded(lambda: self.tr("无法开始导入：{0}").format(error_detail(failure))), "error")
            return None
        self._follow = self._tasks.spawn(self._until_done(), name="history-import")
        return state

    async def resume(self, import_id: str) -> Any:
        if self._refused():
            return None
        self._watch()
        try:
            state = await self.imports.resume(import_id)
        except ImportElsewhere:
            self.message.emit(Worded(lambda: self.tr("这个导入正在另一个 Sonetto 里进行")), "error")
            return None
        except (OSError, ValueError, RuntimeError) as exc:
            failure = exc  # (``exc`` is gone after the clause)
            self.message.emit(Worded(lambda: self.tr("无法继续导入：{0}").format(error_detail(failure))), "error")
            return None
        if self._follow is None or self._follow.done():
            self._follow = self._tasks.spawn(self._until_done(), name="history-import")
        return state

    def _refused(self) -> bool:
        status = self._services.store_status
        if not changes_refused(status):
            return False
        self.message.emit(Worded(lambda: changes_refused(status)), "error")
        return True

    async def resume_interrupted(self) -> None:
        """At start (agents running): an import the app was running when it stopped goes on. While the memory
        server is away or refuses this computer it waits, in its place, until the server answers (said once)."""
        self._watch()
        try:
            waiting = await self.imports.interrupted() if self.refusal() else None
        except (OSError, ValueError, RuntimeError) as exc:
            log.warning("could not read the unfinished history imports: %s", exc)
            return
        if waiting is not None:
            label, status = waiting.label, self._services.store_status
            self.message.emit(Worded(lambda: self.tr("未完成的聊天记录导入（{0}）等记忆服务器回答后再继续：{1}").format(
                label, changes_refused(status))), "info")
            self._waiting = self._tasks.spawn(self._resume_when_answered(), name="history-import-wait")
            return
        await self._resume_now()

    async def _resume_when_answered(self) -> None:
        """Wait until the memory server answers this computer again, then go on with the interrupted import."""
        loop = asyncio.get_running_loop()
        answered = asyncio.Event()

        def heard(status: Any) -> None:  # (from the thread that heard it)
            if not changes_refused(status):
                loop.call_soon_threadsafe(answered.set)

        stop = self._services.subscribe_store_status(heard)
        try:
            if self.refusal():
                await answered.wait()
        finally:
            stop()
        await self._resume_now()

    async def _resume_now(self) -> None:
        try:
            state = await self.imports.resume_interrupted()
        except (ImportElsewhere, OSError, ValueError, RuntimeError) as exc:
            log.warning("could not resume the history import: %s", exc)
            return
        if state is not None:
            label = state.label
            self.message.emit(Worded(lambda: self.tr("继续未完成的聊天记录导入（{0}）").format(label)), "info")
            self._follow = self._tasks.spawn(self._until_done(), name="history-import")

    def undo_asked(self, result: ImportResult, state: Any, parent: QWidget) -> Any:
        """The finished toast's 撤销导入: what the import's window's 撤销这次导入 does, in that window (opened,
        on this import when it shows another): the same question first, the same undo, its end shown there.
        Returns the window's task."""
        dialog = self.open_dialog(parent)
        if dialog is None:  # (the memory server away: said)
            return None
        if dialog.import_id != result.undo_id or dialog.stack.currentWidget() is not dialog.progress:
            dialog.show_finished(result, state)
        return dialog.ask_undo()

    async def _until_done(self) -> ImportResult | None:
        state = self.running  # (the import followed: its window's source line, for the toast's 撤销导入)
        try:
            result = await self.imports.wait()
        except (OSError, RuntimeError) as exc:
            failure = exc  # (``exc`` is gone after the clause)
            self.message.emit(Worded(lambda: self.tr("导入出错：{0}").format(error_detail(failure))), "error")
            return None
        self.last_result = result
        self.finished.emit(result)
        if result.failed:  # nothing could be written: not "完成", and why (as its window says)
            self.message.emit(Worded(lambda: self.tr("聊天记录导入失败：{0} 批都没能写入，什么也没有写入：{1}").format(
                result.failed_batches, result.error_in(ui_language()) or self.tr("原因不明"))), "error")
            return result
        def said() -> str:
            if result.proposals:
                return self.tr("聊天记录导入完成：{0} 条提议已进入审核箱").format(result.proposals)
            return self.tr("聊天记录导入完成：写入 {0} 轮，新记忆 {1} 条，更新 {2} 条").format(
                result.turns_written, result.memories_created, result.memories_updated)

        self.done.emit(Worded(said), result, state)
        return result

    def set_paused(self, paused: bool) -> None:
        if self.running is not None:
            self.imports.runner.set_paused(paused)

    async def stop(self, *, pause: bool = True) -> Any:
        """Stop after the batch being written (``pause``: the person's stop; else the app quits and
        the import goes on at the next start)."""
        follow, self._follow = self._follow, None
        if follow is not None:
            follow.cancel()
            await asyncio.gather(follow, return_exceptions=True)
        if self.imports.built_runner is None:
            return None
        return await self.imports.runner.stop(pause=pause)

    async def retry_failed(self) -> int:
        return await self.imports.runner.retry_failed() if self.running is not None else 0

    async def close(self) -> None:
        """At shutdown, before the store closes."""
        await self.stop(pause=False)
        await self._tasks.close()
        await self.imports.close()
        if self._bridge is not None:
            self._bridge.close()
