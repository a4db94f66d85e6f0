"""SonettoApp: builds the app's parts in order, applies settings, and shuts down in stages.

Start-up (``await start()``): settings -> translators and theme -> memory store (opened in a worker,
migrating after a backend switch) -> ``self_check`` -> window, wall, tray and quick chat (shown at
once) -> then, off the Qt thread, the LLM stack is imported and the writer (``LongTermMemory``) and
the ``ChatEngine`` start. A store whose self-check FAILs is never written: the writer stays stopped
(turns wait in its journal) and a dialog explains where the last good copy is.

Shutdown (``await shutdown()``): stop input -> cancel the running reply -> drain the writer with a
timeout (unfinished turns stay journaled) -> wait for / cancel memory operations -> close engine
(checkpointer) and store -> hide tray -> close windows.
"""

from __future__ import annotations

import asyncio
import dataclasses
import importlib
import logging
import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from sonetto_desktop.config.settings import Settings, config_dir, load_settings
from sonetto_desktop.memory.base import BaseMemoryManager, SelfCheckReport
from sonetto_desktop.memory.migrate import MigrationReport, open_store

from .chat_controller import ChatController
from .gc_guard import freeze_startup_objects
from .i18n import install_translators, remove_translators
from .main_window import MainWindow
from .memory_service import MemoryService
from .qt_bridge import QtEventBridge
from .quick_chat import QuickChat
from .status_indicator import WriterControl
from .theme import ThemeController
from .tray import Tray

log = logging.getLogger(__name__)

WRITER_DRAIN_TIMEOUT = 5.0
# Coroutines of UI objects that may still run at quit (slots, dialog follow-ups): cancelled then.
_STRAY_OWNERS = ("ChatPanel.", "SettingsDialog.", "QuickChat.", "WallActions.")
HEAVY_MODULES = ("sonetto_desktop.memory.writer.ltm", "sonetto_desktop.agent.engine", "sonetto_desktop.agent.llm")



class SonettoApp:
    """The composed app. ``quit_requested`` (an asyncio.Event) is set by 退出 / closing without a tray."""

    def __init__(self, qapp: QApplication, settings: Settings | None = None, *, interactive: bool = True,
                 use_tray: bool = True, writer_drain_timeout: float = WRITER_DRAIN_TIMEOUT) -> None:
        self.qapp = qapp
        self.settings = settings if settings is not None else load_settings()
        self.interactive = interactive
        self.use_tray = use_tray
        self.writer_drain_timeout = writer_drain_timeout
        self.quit_requested = asyncio.Event()
        self.timings: dict[str, float] = {}
        self.store: BaseMemoryManager | None = None
        self.store_report: SelfCheckReport | None = None
        self.migration: MigrationReport | None = None
        self.service: MemoryService | None = None
        self.ltm: Any = None
        self.engine: Any = None
        self.window: MainWindow | None = None
        self.wall: QWidget | None = None
        self.tray: Tray | None = None
        self.quick_chat: QuickChat | None = None
        self.controller: ChatController | None = None
        self.writer_control: WriterControl | None = None
        self.theme: ThemeController | None = None
        self.writer_toasts: Any = None
        self._tray_bridge: QtEventBridge | None = None
        self.shutdown_steps: list[str] = []
        self._translators: list = []
        self._services_task: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task] = set()
        self._started_at = time.perf_counter()
        self._closed = False
        self._store_dialog: QMessageBox | None = None

    # ── start ──────────────────────────────────────────────────────────

    def _mark(self, name: str) -> None:
        self.timings[name] = (time.perf_counter() - self._started_at) * 1000.0

    @property
    def data_dir(self) -> Path:
        return self.settings.resolved_data_dir()

    @property
    def store_ok(self) -> bool:
        return self.store_report is not None and self.store_report.ok

    async def start(self) -> None:
        """Show the window as soon as the store is open; the engine and writer follow in the background."""
        self._translators = install_translators(self.qapp, self.settings.language)
        self.theme = ThemeController(self.qapp, self.settings.theme)
        await self._open_store()
        self._build_windows()
        self._mark("window_shown")
        self._launch_services()

    async def _open_store(self) -> None:
        self.store, self.migration = await asyncio.to_thread(open_store, self.data_dir, self.settings.store_backend)
        self.store_report = await asyncio.to_thread(self.store.self_check)
        self._mark("store_checked")
        if not self.store_report.ok:
            log.error("memory store failed its self-check: %s", "; ".join(self.store_report.issues))

    def _build_wall(self, service: MemoryService, window_toasts: Any) -> QWidget:
        from .memory_wall import MemoryWall

        return MemoryWall(service, toasts=window_toasts)

    def _build_windows(self) -> None:
        from .toasts import ToastOverlay

        assert self.store is not None
        self.controller = ChatController(language=self.settings.language)
        self.writer_control = WriterControl()
        self.service = MemoryService(self.store)
        placeholder = QWidget()  # replaced by the wall once the window (its toasts' parent) exists
        ui_state = QSettings(str(config_dir() / "ui-state.ini"), QSettings.Format.IniFormat)
        self.window = MainWindow(self.controller, self.writer_control, placeholder, ui_state=ui_state,
                                 configured=self.settings.is_llm_configured, language=self.settings.language)
        self.toasts = ToastOverlay(self.window)
        self.controller.operation_failed.connect(
            lambda message: self.toasts.show_toast(message, key="chat-operation-failed", kind="error"))
        self.wall = self._build_wall(self.service, self.toasts)
        self.window.set_wall(self.wall)
        self.wall_loaded = self.wall.reload()
        self.window.settings_requested.connect(self.open_settings)
        self.window.quit_requested.connect(self.request_quit)

        self.tray = Tray(self.writer_control, self.window)
        self.tray.open_requested.connect(self.window.bring_to_front)
        self.tray.quick_chat_requested.connect(self.show_quick_chat)
        self.tray.quit_requested.connect(self.request_quit)
        self.window.hide_to_tray = self.use_tray and self.tray.available
        if self.use_tray:
            self.tray.show()
        self.quick_chat = QuickChat(self.controller)
        self.quick_chat.memory_activated.connect(self.open_memory)
        self.window.show()
        if not self.store_ok and self.interactive:
            self._show_store_problem()

    def _launch_services(self) -> asyncio.Task[None]:
        self._services_task = asyncio.ensure_future(self._start_services())
        self._services_task.add_done_callback(self._on_services_done)
        return self._services_task

    def _on_services_done(self, task: asyncio.Task[None]) -> None:
        """Chat could not start (e.g. the session database is locked): say so; the wall keeps working."""
        if task.cancelled() or task.exception() is None or self._closed:
            return
        exc = task.exception()
        log.error("chat services failed to start", exc_info=exc)
        text = QApplication.translate("SonettoApp", "对话功能启动失败：%1。记忆墙仍可使用；请检查数据目录后重启。")
        self.toasts.show_toast(text.replace("%1", str(exc) or type(exc).__name__), key="services-failed",
                               kind="error", timeout_ms=0)

    async def _start_services(self) -> None:
        """Import the LLM stack in a worker thread, then start the writer and the engine."""
        for name in HEAVY_MODULES:
            await asyncio.to_thread(importlib.import_module, name)
        self._mark("llm_stack_imported")
        from sonetto_desktop.agent.engine import ChatEngine
        from sonetto_desktop.agent.llm import build_llm
        from sonetto_desktop.memory.writer.ltm import LongTermMemory

        from .writer_toasts import WriterToasts

        self.ltm = LongTermMemory(self.store, llm=None, recall_timeout=self.settings.recall_timeout)
        self.ltm.set_llm(build_llm(self.settings))
        if self.store_ok:
            self.ltm.start()
        else:
            self.ltm.pause()  # a store we cannot read is never written; turns wait in the journal
        self.writer_control.set_ltm(self.ltm)
        self.writer_toasts = WriterToasts(self.toasts, reveal=self.window.reveal_memory,
                                          subscribe=self.ltm.events.subscribe, parent=self.window)
        self._tray_bridge = QtEventBridge(self.ltm.events.subscribe, self.window)
        self._tray_bridge.event.connect(self._notify_in_tray)
        self.engine = ChatEngine(self.ltm, data_dir=self.data_dir, settings_provider=lambda: self.settings)
        await self.engine.start()
        await self.controller.attach(self.engine)
        self._mark("engine_ready")
        # Load jieba and build the offline recall index now, not on the first message.
        self._keep(asyncio.ensure_future(self._warm_up_recall()))

    async def _warm_up_recall(self) -> None:
        try:
            await asyncio.to_thread(self.ltm.warm_up_recall)
        except Exception:
            log.warning("recall warm-up failed", exc_info=True)
        if not self._closed:
            freeze_startup_objects()  # start-up is over: later full collections stay short

    async def wait_until_ready(self) -> None:
        """For tests and the self-test: the engine and writer are up (re-raises a start-up failure)."""
        if self._services_task is not None:
            await asyncio.shield(self._services_task)

    # ── user requests ──────────────────────────────────────────────────

    def _keep(self, task: asyncio.Task) -> asyncio.Task:
        """Hold a reference to a fire-and-forget task until it is done (the loop only keeps weak ones)."""
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def request_quit(self) -> None:
        self.quit_requested.set()

    def show_quick_chat(self) -> None:
        if self.quick_chat is None or self.tray is None:
            return
        if self.quick_chat.isVisible():
            self.quick_chat.hide()
            return
        self.quick_chat.show_near(self.tray.geometry())

    def open_memory(self, memory_id: str) -> None:
        """A memory chip in the quick chat: bring the main window up on that card."""
        if self.window is None:
            return
        self.window.bring_to_front()
        self.window.reveal_memory(memory_id)

    def open_settings(self):
        from .settings_dialog import SettingsDialog

        dialog = SettingsDialog(self.settings, self.window)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.settings_saved.connect(lambda s: self._keep(asyncio.ensure_future(self.apply_settings(s))))
        dialog.open()
        self.settings_dialog = dialog
        return dialog

    async def apply_settings(self, new: Settings) -> None:
        """Apply saved settings: theme and model now; a new data dir or backend re-opens the store."""
        old, self.settings = self.settings, new
        if self.theme is not None:
            self.theme.set_setting(new.theme)
        if self.window is not None:
            self.window.set_configured(new.is_llm_configured)
        if (old.resolved_data_dir(), old.store_backend) != (new.resolved_data_dir(), new.store_backend):
            await self.reopen_store(fallback=old)
        elif self.engine is not None:
            from sonetto_desktop.agent.llm import build_llm

            self.engine.reload_settings()
            self.ltm.set_llm(build_llm(new))
        if old.language != new.language and self.interactive and self.window is not None:
            box = QMessageBox(QMessageBox.Icon.Information, QApplication.translate("SonettoApp", "语言"), QApplication.translate("SonettoApp", "界面语言将在重新启动后切换。"),
                              QMessageBox.StandardButton.Ok, self.window)
            box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
            box.open()

    async def reopen_store(self, fallback: Settings | None = None) -> None:
        """Stop the writer and engine, close the store, open the configured one (migrating), restart.
        If it cannot be opened (e.g. a folder without write access), ``fallback``'s store is opened
        again and an error toast says why: the app never stays without a store."""
        await self.wait_until_ready()
        self.controller.stop_accepting()
        await self.controller.close()
        await self.ltm.stop(self.writer_drain_timeout)
        self.writer_control.set_ltm(None)
        if self.writer_toasts is not None:
            self.writer_toasts.close()
        self._tray_bridge.close()
        await self.service.drain()
        self.service.close()
        await self.engine.close()
        await asyncio.to_thread(self.store.close)
        try:
            await self._open_store()
        except Exception as exc:
            if fallback is None:
                raise
            log.error("could not open the memory store in %s", self.data_dir, exc_info=True)
            failed_dir, self.settings = self.data_dir, dataclasses.replace(
                self.settings, data_dir=fallback.data_dir, store_backend=fallback.store_backend)
            await self._open_store()
            text = QApplication.translate("SonettoApp", "无法使用新的数据文件夹 {0}：{1}。仍在使用原来的记忆库。")
            self.toasts.show_toast(text.format(failed_dir, str(exc) or type(exc).__name__),
                                   key="store-reopen-failed", kind="error", timeout_ms=0)
        if not self.store_ok and self.interactive:
            self._show_store_problem()
        old_service = self.service
        self.service = MemoryService(self.store)
        self.wall = self._build_wall(self.service, self.toasts)
        self.window.set_wall(self.wall)
        old_service.deleteLater()
        self.wall_loaded = self.wall.reload()
        await self._launch_services()

    def _notify_in_tray(self, event: Any) -> None:
        """While the window is hidden, what the writer remembered shows as a tray message instead."""
        from .writer_toasts import toast_for

        if self.tray is None or self.window is None or self.window.isVisible():
            return
        spec = toast_for(event)
        if spec is not None and spec.kind != "error":
            self.tray.notify("Sonetto", spec.text)

    def _show_store_problem(self) -> None:
        from .store_problem import store_problem_box

        self._store_dialog = store_problem_box(self.store_report, self.data_dir, self.window)

    # ── shutdown ───────────────────────────────────────────────────────

    async def shutdown(self) -> None:
        """The ordered shutdown (see the module docstring). Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        steps = self.shutdown_steps
        if self.controller is not None:
            self.controller.stop_accepting()
        if self.quick_chat is not None:
            self.quick_chat.hide()
        steps.append("input_stopped")
        pending = [t for t in self._tasks if not t.done()]  # e.g. applying settings: not half-way through a quit
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        if self._services_task is not None and not self._services_task.done():
            self._services_task.cancel()
        if self._services_task is not None:
            await asyncio.gather(self._services_task, return_exceptions=True)
        if self.controller is not None:
            await self.controller.close()
        steps.append("reply_cancelled")
        if self.ltm is not None:
            drained = await self.ltm.stop(self.writer_drain_timeout)
            steps.append("writer_drained" if drained else "writer_journaled")
        if self.writer_control is not None:
            self.writer_control.close()
        if self.writer_toasts is not None:
            self.writer_toasts.close()
        if self._tray_bridge is not None:
            self._tray_bridge.close()
        if self.service is not None:
            try:
                await asyncio.wait_for(self.service.drain(), self.writer_drain_timeout)
            except asyncio.TimeoutError:
                log.warning("memory operations still running at shutdown were cancelled")
            self.service.close()
        await self._cancel_stray_tasks()
        steps.append("tasks_done")
        if self.engine is not None:
            await self.engine.close()
        if self.store is not None:
            await asyncio.to_thread(self.store.close)
        steps.append("stores_closed")
        if self.tray is not None:
            self.tray.close()
        steps.append("tray_hidden")
        if self.window is not None:
            self.window.save_state()
            self.window.hide_to_tray = False
            self.window.hide()
            self.window.deleteLater()
        if self.quick_chat is not None:
            self.quick_chat.deleteLater()
        # Qt objects without a parent are deleted here, on the GUI thread, not whenever (and on
        # whichever thread) Python's garbage collector reaches this app object.
        for obj in (self.theme, self.tray, self.controller, self.writer_control, self.service,
                    self._tray_bridge, self.writer_toasts):
            if obj is not None:
                obj.deleteLater()
        remove_translators(self.qapp, self._translators)
        self._translators = []
        steps.append("windows_closed")

    async def _cancel_stray_tasks(self) -> None:
        current = asyncio.current_task()
        stray = [t for t in asyncio.all_tasks() if t is not current and not t.done()
                 and getattr(t.get_coro(), "__qualname__", "").startswith(_STRAY_OWNERS)]
        for task in stray:
            task.cancel()
        if stray:
            await asyncio.gather(*stray, return_exceptions=True)


def settings_for(**changes: Any) -> Settings:
    """The configured settings with ``changes`` (used by the self-test and tests)."""
    return dataclasses.replace(load_settings(), **changes)
