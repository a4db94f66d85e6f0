"""SonettoApp: the window, wall, tray and quick chat over :class:`~sonetto_desktop.services.AppServices`.

Start-up (``await start()``): translators and theme -> ``AppServices.open`` (the memory store, opened
and self-checked in a worker, migrating after a backend switch) -> window, wall, tray and quick chat
(shown at once) -> then, in the background, ``services.start_agents()`` (writer and chat engine,
imported off the Qt thread; the LLM stack itself comes with the first message or writer turn, on a
worker thread) and the offline recall's warm-up. A store whose self-check FAILs
is never written: the writer stays paused (turns wait in its journal) and a dialog explains where
the last good copy is.

Shutdown (``await shutdown()``): stop input -> cancel the running reply and the UI's own tasks ->
``services.close()`` (chat, writer drained within its bound, watcher, store) -> hide tray -> close
windows. Everything Qt-free lives in the services; this file is Qt wiring only.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from pathlib import Path
from typing import Any, Iterator

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from sonetto_desktop.presentation.errors import error_detail
from sonetto_desktop.presentation.i18n import wording_of
from sonetto_desktop.aio import new_root_scope
from sonetto_desktop.collector import QuietPasses
from sonetto_desktop.config.paths import config_dir
from sonetto_desktop.config.settings import Settings, load_settings
from sonetto_desktop.memory.errors import MemoryError_, StoreUnavailable
from sonetto_desktop.services import WRITER_DRAIN_TIMEOUT, AppServices

from .app_dialogs import AppDialogs
from .app_feed import AppFeed
from .chat.actions import ChatActions
from .chat.controller import ChatController
from .i18n import install_translators, remove_translators
from .main_window import MainWindow
from .memory_service import MemoryService, call
from .tray.quick_chat import QuickChat
from .notices.start_problems import choose_data_dir_after, migration_problem_box
from .notices.status_indicator import WriterControl
from .notices.store_banner import StoreBanner
from .quiet_collector import QuietCollector
from .theme import ThemeController
from .widgets.deferred import alive
from .widgets.tasks import set_app_scope
from .tray.tray import Tray

# How long the shutdown waits for the long drafts' files (written by their own thread, which the process waits for anyway).
DRAFTS_FLUSH_TIMEOUT = 10.0

log = logging.getLogger(__name__)


class SonettoApp:
    """The composed app. ``quit_requested`` (an asyncio.Event) is set by 退出 / closing without a tray."""

    def __init__(self, qapp: QApplication, settings: Settings | None = None, *, interactive: bool = True,
                 use_tray: bool = True, writer_drain_timeout: float = WRITER_DRAIN_TIMEOUT,
                 embeddings: dict[str, Any] | None = None, start_hidden: bool = False) -> None:
        """``embeddings``: the embeddings sync's options (``builtin``: None for a platform without the
        built-in model, ``start_delay``; ``recall_setup.RecallVectors``); default: what is installed.
        ``start_hidden`` (``sonetto --hidden``, the login item): the window is not shown when a tray
        holds the app (it used to be shown and hidden again: a flash at every login)."""
        import asyncio

        self.qapp = qapp
        self.settings = settings if settings is not None else load_settings()
        self.interactive = interactive
        self.use_tray = use_tray
        self.start_hidden = start_hidden
        self.writer_drain_timeout = writer_drain_timeout
        self.embeddings = dict(embeddings or {})
        self.quit_requested = asyncio.Event()
        self.timings: dict[str, float] = {}
        self.services: AppServices | None = None
        self.service: MemoryService | None = None
        self.window: MainWindow | None = None
        self.wall: QWidget | None = None
        self.tray: Tray | None = None
        self.quick_chat: QuickChat | None = None
        self.toasts: Any = None
        self._ui_state: QSettings | None = None
        self._language_task: Any = None
        self._views_lock = asyncio.Lock()  # one rebuild of the views at a time (language_switch)
        self._retired_views: list = []  # views replaced by a language switch, until Qt deletes them
        self.controller: ChatController | None = None
        self.writer_control: WriterControl | None = None
        self.feed: AppFeed | None = None
        self.theme: ThemeController | None = None
        self.writer_toasts: Any = None
        self.store_notices: Any = None
        self.vector_notices: Any = None  # notices/vector_notices.py
        self.recall_notices: Any = None  # notices/recall_notices.py
        self.wall_loaded: Any = None
        self.sqlite_offer: Any = None
        self.dialogs: AppDialogs | None = None  # settings, review inbox, contradictions, don't-remember list
        self.chat_actions: ChatActions | None = None  # what chat messages and memory chips ask of the app
        self.memory_undo: Any = None  # 编辑 ▸ 撤销 / 重做 of the memories (notices/memory_undo.py)
        self.history_imports: Any = None  # File ▸ 导入聊天记录…: the import outlives its dialog
        self.shutdown_steps: list[str] = []
        self._translators: list = []
        self._agents_task: Any = None
        self._typed = False  # the person typed in a composer (the writer's index is built then)
        self._writer_index: Any = None  # its build, once started
        self._root = new_root_scope("SonettoApp")  # every task of the process, closed last at shutdown
        self._tasks = self._root.child("ui")  # the top of the UI's task scopes (ui/widgets/tasks.py)
        set_app_scope(self._tasks)
        self._started_at = time.perf_counter()
        self._closed = False
        self._store_dialog: QMessageBox | None = None
        self._migration_dialog: QMessageBox | None = None
        self.full_passes = QuietPasses()  # Python's full collections at quiet moments (collector.py)
        self.quiet_collector: QuietCollector | None = None

    # ── what the services hold ─────────────────────────────────────────

    @property
    def data_dir(self) -> Path:
        return self.settings.resolved_data_dir()

    @property
    def store(self) -> Any:
        return self.services.store if self.services is not None else None

    @property
    def store_report(self) -> Any:
        return self.services.store_report if self.services is not None else None

    @property
    def migration(self) -> Any:
        return self.services.migration if self.services is not None else None

    @property
    def store_ok(self) -> bool:
        return self.services is not None and self.services.store_ok

    @property
    def writer(self) -> Any:
        return self.services.writer if self.services is not None else None

    @property
    def engine(self) -> Any:
        return self.services.chat if self.services is not None else None

    # ── start ──────────────────────────────────────────────────────────

    def _mark(self, name: str) -> None:
        self.timings[name] = (time.perf_counter() - self._started_at) * 1000.0

    async def start(self) -> bool:
        """Show the window as soon as the store is open; the engine and writer follow in the background.
        A data folder that cannot be used is explained with a way out (another folder, or quit):
        returns False when the person chose to quit (not interactive: the error is raised)."""
        self._translators = install_translators(self.qapp, self.settings.language)
        self.theme = ThemeController(self.qapp, self.settings.theme)
        if self.full_passes.install():  # Python's full passes wait for quiet moments (from the end of start-up)
            self.quiet_collector = QuietCollector(self.qapp, self.full_passes, busy=self._replying)
        while self.services is None:
            try:
                self.services = await AppServices.open(settings=self.settings, check_later=True,
                                                       writer_drain_timeout=self.writer_drain_timeout,
                                                       embeddings=self.embeddings, defer_carry=True)
            except StoreUnavailable as exc:
                if not self.interactive:
                    raise
                log.error("the data folder cannot be used: %s", exc)
                folder = await choose_data_dir_after(exc, self.data_dir)
                if folder is None:
                    self.request_quit()
                    return False
                self.settings = dataclasses.replace(self.settings, data_dir=str(folder))
                saved = await call(self.settings.save)
                if not saved.ok:  # the folder works this time; the next start asks again
                    log.error("could not save the new data folder: %s", saved.message)
        self._mark("store_opened")
        returned_from, deferred = self.services.returned_from, self.services.carry_deferred
        if deferred is not None:  # a copy into it cut short: made again once the window shows, told as it goes
            self.settings = self.services.settings
        if returned_from is not None:  # a copy into it was stopped, the app killed before this was saved
            self.settings = self.services.settings
            saved = await call(self.settings.save)
            if saved.ok:
                await self.services.forget_stopped_carry(returned_from)
            else:
                log.error("could not save the data folder used again: %s", saved.message)
        self._build_windows()
        self._mark("window_shown")
        if returned_from is not None:
            if self.services.returned_why == "quit":  # (quitting stopped it: the person did not say 取消)
                text = lambda: QApplication.translate("SonettoApp", "上次退出时复制到数据文件夹 {0} 还没有完成，复制已停止，没有换过去。仍在使用原来的数据文件夹 {1}，记忆都在；要换过去，请在设置里再选一次。")  # noqa: E731
            else:
                text = lambda: QApplication.translate("SonettoApp", "上次没有换到数据文件夹 {0}（复制已取消或失败），仍在使用原来的数据文件夹 {1}。")  # noqa: E731
            folders = (returned_from, self.data_dir)
            self.toasts.show_toast(lambda: text().format(*folders), key="data-copy-stopped", timeout_ms=0)
        if self.settings.set_aside:  # a damaged settings file: every setting at its default, said once
            set_aside = self.settings.set_aside
            self.toasts.show_toast(lambda: QApplication.translate(
                "SonettoApp", "设置文件已损坏，所有设置暂时恢复为默认值；原来的文件保存为 {0}，可以从中找回。").format(set_aside),
                key="settings-set-aside", kind="error", timeout_ms=0)
        if self.services.migration_problem is not None and self.interactive:
            self._show_migration_problem()
        self._launch_agents()
        if deferred is not None:  # (the settings saved name it: applied as the settings dialog's 保存 does)
            self._tasks.spawn(self.apply_settings(deferred), name="finish-data-copy")
        return True

    def _build_wall(self, service: MemoryService, window_toasts: Any, ui_state: QSettings | None = None) -> QWidget:
        from .wall.memory_wall import MemoryWall

        return MemoryWall(service, toasts=window_toasts, ui_state=ui_state)

    def _build_windows(self) -> None:
        """What lives as long as the app (controller, writer control, memory service), then the views."""
        assert self.services is not None
        self.feed = AppFeed(self.services)  # the services' one event feed, on the GUI thread
        self.controller = ChatController()
        self.writer_control = WriterControl(self.services, feed=self.feed)
        self.service = MemoryService(self.services, feed=self.feed)  # the one way operations run
        self._ui_state = QSettings(str(config_dir() / "ui-state.ini"), QSettings.Format.IniFormat)
        self.dialogs = AppDialogs(self.service, window=lambda: self.window, wall=lambda: self.wall,
                                  settings=lambda: self.settings, apply_settings=self.apply_settings, scope=self._tasks,
                                  embeddings=self.embeddings)
        self.chat_actions = ChatActions(self.services, self.service, self.controller, window=lambda: self.window,
                                        toasts=lambda: self.chat_toasts)
        from .notices.memory_undo import MemoryUndo

        self.memory_undo = MemoryUndo(self.service, lambda: self.toasts, parent=self.service)  # 编辑 ▸ 撤销
        self.controller.operation_failed.connect(self._on_operation_failed)
        self.controller.typing.connect(self._on_typing)
        self.writer_control.review_requested.connect(self.open_review)
        self.writer_control.conflicts_requested.connect(self.open_conflicts)
        from .notices.vector_notices import VectorNotices

        # the embeddings model: no built-in model here (said once), consent before embedding everything again
        self.vector_notices = VectorNotices(self.services, self.feed, toasts=lambda: self.toasts,
                                            window=lambda: self.window, open_settings=self.open_settings,
                                            ui_state=self._ui_state, parent=self.writer_control)
        self.writer_control.vectors_consent_requested.connect(self.vector_notices.ask)
        from .notices.recall_notices import RecallNotices

        self.recall_notices = RecallNotices(self.feed, toasts=lambda: self.toasts, ui_state=self._ui_state,
                                            parent=self.writer_control)
        from .notices.data_copy import DataCopyNotice

        # a copy into a new data folder: how far it has come, and 取消
        self.data_copy_notice = DataCopyNotice(self.feed, toasts=lambda: self.toasts,
                                               cancel=self.services.cancel_carry, parent=self.writer_control)
        from .dialogs.history_actions import HistoryImportActions

        self.history_imports = HistoryImportActions(self.services,
                                                    refuse_changes=lambda: self.service.refuse_changes(self.toasts))
        self.history_imports.message.connect(
            lambda text, kind: self.toasts.show_toast(text, key="history-import", kind=kind))
        self.history_imports.done.connect(self._import_finished)
        self._build_views()
        self._tasks.spawn(self._offer_sqlite(self._ui_state), name="sqlite-offer")
        if not (self.start_hidden and self.window.hide_to_tray):
            self.window.show()

    def _import_finished(self, text: Any, result: Any, state: Any) -> None:
        """A history import finished: said in a toast whose 撤销导入 undoes the whole import as its window's
        button does (in the window of now: a language switch makes a new one); it goes once the import is
        undone another way (the window, the command line)."""
        from PySide6.QtCore import QCoreApplication

        from .notices.memory_undo import undoes_turn

        imports = self.history_imports  # (a key of its own: a toast still showing is never given another's undo)
        self.toasts.show_toast(text, key=f"history-import:{result.undo_id}", kind="info",
                               action_text=lambda: QCoreApplication.translate("HistoryImportToast", "撤销导入"),
                               on_action=lambda: imports.undo_asked(result, state, self.window),
                               undone_by=undoes_turn(result.undo_id))

    def _build_views(self) -> None:
        """The window, wall, tray and quick chat over the long-lived parts: built at start in one go, and
        again when the UI language changes, a part per turn of the event loop (``language_switch``).
        The toast overlay and the writer toasts are kept across rebuilds."""
        for _part in self._view_parts():
            pass

    def _view_parts(self) -> Iterator[QWidget]:
        """:meth:`_build_views` a part at a time: the window, then the wall, then the quick chat, each
        yielded once made; the last part makes them the app's (``window``, ``wall``, ``quick_chat``...),
        moves the toasts over to the window and makes the tray. A language switch lets the event loop
        run at each yield (the whole rebuild in one pass held the Qt thread 40-70 ms, issue 37) while
        the old views stay on screen and the app's, and retires them just before the last part (the
        old tray is closed before the new one shows)."""
        from .notices.store_notices import StoreNotices
        from .notices.toasts import ToastOverlay
        from .notices.writer_toasts import WriterToasts

        assert self.services is not None and self.controller is not None and self.writer_control is not None
        placeholder = QWidget()  # replaced by the wall once the window (its toasts' parent) exists
        window = MainWindow(self.controller, self.writer_control, placeholder, ui_state=self._ui_state,
                            configured=self.settings.is_llm_configured)
        self._show_import_status(window)
        if self.toasts is None:
            self.toasts = ToastOverlay(window)
            self.feed.memory_changed.connect(self.toasts.withdraw_undone)  # a 撤销 undone another way goes
            # As long-lived as the overlay: a toast kept across a language switch still undoes, and
            # reveals in whatever window is current.
            self.writer_toasts = WriterToasts(self.toasts, self.service,
                                              reveal=lambda memory_id: self.window.reveal_memory(memory_id),
                                              tray_notify=self._notify_in_tray, parent=self.toasts)
            self.store_notices = StoreNotices(self.toasts, self.feed,
                                              reveal=lambda memory_id: self.window.reveal_memory(memory_id),
                                              parent=self.toasts)
        yield window
        wall = self._build_wall(self.service, self.toasts, self._ui_state)
        window.set_wall(wall)
        window.attach_undo(self.memory_undo)
        wall.chat_requested.connect(lambda session_id, turn_id, excerpt: self._tasks.spawn(
            self.open_chat_turn(session_id, turn_id, excerpt), name="open-chat"))
        StoreBanner.attach(window, self.feed, self.services.store_status)  # while the memory server is away
        wall_loaded = wall.reload()
        window.settings_requested.connect(self.open_settings)
        window.language_requested.connect(lambda language: self._tasks.spawn(
            self.choose_language(language), name="choose-language"))
        window.quit_requested.connect(self.request_quit)
        transfer = self._connect_transfer(window)
        yield wall
        quick_chat = QuickChat(self.controller, ui_state=self._ui_state)
        # Ctrl+Q there quits as in the window: the menu's action lived on the window's menu bar alone, and with
        # the window closed to the tray (the quick chat the only window) the key did nothing. One action, so
        # both windows shown is no ambiguous shortcut.
        quick_chat.addAction(window.menus.quit_action)
        self.feed.memory_changed.connect(quick_chat.toasts.withdraw_undone)
        quick_chat.memory_activated.connect(self.open_memory)
        for source in (window.chat_panel, quick_chat.view):  # memory actions from chat messages
            source.undo_memory_requested.connect(
                lambda turn_id: self.writer_toasts.undo_turn(turn_id, self.chat_toasts))
            source.forget_turn_requested.connect(
                lambda text, turn_id: self._tasks.spawn(self.chat_actions.forget_turn(turn_id, text), name="forget-turn"))
            source.forget_memory_requested.connect(
                lambda mid: self._tasks.spawn(self.chat_actions.forget_memory(mid), name="forget-memory"))
        yield quick_chat
        self.window, self.wall, self.wall_loaded, self.quick_chat, self.transfer = (
            window, wall, wall_loaded, quick_chat, transfer)
        self.chat_actions.connect_notices(window, quick_chat.view,
                                          lambda coro: self._tasks.spawn(coro, name="chat-notice"))
        if self.toasts.parentWidget() is not window:
            self.toasts.move_to(window)  # toasts still showing (an undo, an error) stay
        self.tray = Tray(self.writer_control, window)
        self.tray.open_requested.connect(window.bring_to_front)
        self.tray.quick_chat_requested.connect(self.show_quick_chat)
        self.tray.quit_requested.connect(self.request_quit)
        window.hide_to_tray = self.use_tray and self.tray.available
        if self.use_tray:
            self.tray.show()

    def _show_import_status(self, window: MainWindow) -> None:
        """The running chat-history import in the header: its progress, pause, and a way to its window."""
        from .notices.import_status import ImportStatus

        status = ImportStatus(self.history_imports, window.status_indicator)
        status.open_requested.connect(lambda: self.history_imports.open_dialog(self.window))
        window.status_indicator.set_import_status(status)

    @property
    def chat_toasts(self) -> Any:
        """Where what a chat action did is said: the quick chat's own toasts while it is the chat shown
        (the window in the tray: a toast there is seen by no one), else the window's."""
        quick, window = self.quick_chat, self.window
        if quick is not None and alive(quick) and quick.isVisible() and (window is None or not window.isVisible()):
            return quick.toasts
        return self.toasts

    def _on_operation_failed(self, message: str) -> None:
        toasts = self.chat_toasts
        if toasts is not None:
            toasts.show_toast(message, key="chat-operation-failed", kind="error")

    async def _offer_sqlite(self, ui_state: QSettings) -> None:
        """A large YAML store: once the wall is up, offer the faster SQLite store (ui/sqlite_offer.py)."""
        from .dialogs.sqlite_offer import SqliteOffer

        await self._wall_filled()
        await self.services.checked()
        if not self.store_ok:  # a store that cannot be read is offered nothing (its dialog says why)
            return
        self.sqlite_offer = SqliteOffer(self.toasts, self.services, self.apply_settings, ui_state,
                                        lambda coro: self._tasks.spawn(coro, name="switch-to-sqlite"))
        await self.sqlite_offer.check()

    def _connect_transfer(self, window: MainWindow) -> Any:
        """File ▸ 导入记忆… / 导出记忆…: the CLI's formats, with a preview before an import."""
        from .dialogs.transfer_actions import TransferActions

        transfer = TransferActions(self.service, window)
        transfer.message.connect(lambda text, kind: self.toasts.show_toast(text, key="transfer", kind=kind))
        window.import_requested.connect(transfer.import_memories)
        window.export_requested.connect(transfer.export_memories)
        window.history_import_requested.connect(lambda: self.history_imports.open_dialog(self.window))
        return transfer

    def _launch_agents(self) -> None:
        self._agents_task = self._tasks.spawn(self._start_agents(), name="start-agents")
        self._agents_task.add_done_callback(self._on_agents_started)

    def _on_agents_started(self, task: Any) -> None:
        """Chat could not start (e.g. the session database is locked): say so; the wall keeps working,
        and so do the full passes at quiet moments (the thresholds that leave them to those moments
        are in force all the same)."""
        if task.cancelled() or self._closed:
            return
        self._start_quiet_collector()  # (started already when start-up went through)
        if task.exception() is None:
            return
        exc = task.exception()
        self.toasts.show_toast(lambda: QApplication.translate(
            "SonettoApp", "对话功能启动失败：%1。记忆墙仍可使用；请检查数据目录后重启。").replace("%1", error_detail(exc)),
            key="services-failed", kind="error", timeout_ms=0)

    async def _start_agents(self) -> None:
        assert self.services is not None and self.controller is not None and self.writer_control is not None
        # Python-heavy work in a worker waits until every card is shown: QListView asks each card's
        # size and paint from Python, and each of those calls waits for the GIL behind a busy worker (at
        # 50,000 memories the writer's index build made the wall stall 0.8 s; at 100,000 the store's
        # self-check, ~1 s of CPU, and the recall warm-up stalled it 135-210 ms, issue 37).
        await self._wall_filled()
        await self.services.checked()  # the store's self-check, run now: the window did not wait for it
        self._mark("store_checked")
        if not self.store_ok and self.interactive:
            self._show_store_problem()
        await self.services.start_agents()
        self._mark("engine_ready")
        await self.controller.attach(self.services.chat)
        try:  # load jieba and build the offline recall index now, not on the first message
            if self.store_ok:  # (a store that cannot be read has nothing to index; its dialog says why)
                await self.services.warm_up(mode=self.settings.retrieval_mode, empty_waits=True)
        except MemoryError_ as exc:  # the store went bad meanwhile: the store's problem, said once
            log.warning("recall warm-up failed: %s", exc)
        except Exception:
            log.warning("recall warm-up failed", exc_info=True)
        if self._typed:  # the person typed while the agents started: the index is wanted now
            await self._warm_up_writer()
        try:  # the settings dialog's modules, off the Qt thread: its first opening only makes widgets
            await self.dialogs.import_settings()
        except Exception:  # (its opening imports them, and says why it cannot)
            log.warning("could not import the settings dialog ahead", exc_info=True)
        await self.services.settle_memory()  # start-up is over: give back what it left behind
        self._start_quiet_collector()
        if self.history_imports is not None and self.store_ok and not self._closed:
            await self.history_imports.resume_interrupted()  # an import running when the app last stopped

    def _start_quiet_collector(self) -> None:
        """From now on a full collection that is due runs when nobody waits for the window."""
        if not self._closed and self.quiet_collector is not None:
            self.quiet_collector.start()

    def _replying(self) -> bool:
        """A reply is being written (a full pass would stop its words coming)."""
        return self.controller is not None and self.controller.busy

    def _on_typing(self) -> None:
        """The person is typing a message: build the writer's index now, off the loop, for the turn that
        follows the reply (a full read: ~1 s of Python at 50,000 memories). Not at start: it holds ~0.4 KB
        a memory (36 MB at 100,000) that an app nobody chats in never needs (issue 37); a turn sent
        before it is built builds it itself."""
        self._typed = True
        if self._agents_task is not None and self._agents_task.done() and self._writer_index is None:
            self._writer_index = self._tasks.spawn(self._warm_up_writer(), name="writer-index")

    async def _warm_up_writer(self) -> None:
        if self.services is None or self._closed:
            return
        try:
            await self.services.warm_up_writer()
        except Exception:
            log.warning("writer warm-up failed", exc_info=True)

    async def _wall_filled(self) -> None:
        """Until the wall's first load has shown every card (also when it failed or the wall went)."""
        import asyncio

        if self.wall_loaded is not None:
            await asyncio.wait([self.wall_loaded])  # done, failed or cancelled alike: never raises
        if self.wall is not None and not self._closed:
            await self.wall.loader.wait()

    async def wait_until_ready(self) -> None:
        """For tests and the self-test: the engine and writer are up (re-raises a start-up failure)."""
        import asyncio

        if self._agents_task is not None:
            await asyncio.shield(self._agents_task)

    # ── shutdown ───────────────────────────────────────────────────────

    async def shutdown(self) -> None:
        """The ordered shutdown (see the module docstring): stop input, end the UI's tasks and the reply,
        drain the operations, close the services and stores, then hide and delete the windows on the GUI
        thread. Each step is recorded in ``shutdown_steps``. Safe to call twice."""
        if self._closed:
            return
        self._closed = True
        steps = self.shutdown_steps
        if self.services is not None:  # a process that holds the store and never lets go: not for minutes
            self.services.quitting()
        if self.controller is not None:
            self.controller.stop_accepting()
        if self.quick_chat is not None:
            self.quick_chat.hide()
        steps.append("input_stopped")
        if self.quiet_collector is not None:
            self.quiet_collector.close()
            self.quiet_collector.deleteLater()
        self.full_passes.uninstall()  # Python's own thresholds for what is left of the process
        await self._tasks.close()  # the UI's scope tree: every window's, dialog's and view's tasks (and applying settings)
        if self.controller is not None:
            await self.controller.close()
        steps.append("reply_cancelled")
        for part in (self.writer_toasts, self.store_notices, self.vector_notices, self.recall_notices,
                     self.writer_control, self.service):
            if part is not None:
                part.close()
        if self.service is not None:
            await self.service.drain(self.writer_drain_timeout)
        if self.history_imports is not None:  # its writer stops before the store closes
            await self.history_imports.close()
        steps.append("tasks_done")
        if self.services is not None:
            await self.services.close()
            steps.extend(s for s in self.services.shutdown_steps if s.startswith("writer_"))
        await self._root.close()  # whatever the services left running (each part stopped its own above)
        steps.append("stores_closed")
        if self.tray is not None:
            self.tray.close()
        steps.append("tray_hidden")
        if self.quick_chat is not None:
            self.quick_chat.save_state()  # (before the window's, which writes the UI state file)
        if self.window is not None:
            self.window.save_state()
        for drafts in (getattr(self.window, "drafts", None), getattr(self.quick_chat, "drafts", None)):
            if drafts is not None:  # a long draft's file is written by a thread: on disk before we end
                await drafts.flush(DRAFTS_FLUSH_TIMEOUT)
        if self.window is not None:
            self.window.hide_to_tray = False
            self.window.hide()
            self.window.deleteLater()
        if self.quick_chat is not None:
            self.quick_chat.deleteLater()
        # Qt objects without a parent are deleted here, on the GUI thread.
        for obj in (self.theme, self.tray, self.controller, self.writer_control, self.service):
            if obj is not None:
                obj.deleteLater()
        remove_translators(self.qapp, self._translators)
        self._translators = []
        steps.append("windows_closed")

    # ── user requests ──────────────────────────────────────────────────

    def open_settings(self) -> Any:
        return self.dialogs.open_settings()

    def open_review(self) -> Any:
        return self.dialogs.open_review()

    def open_conflicts(self) -> Any:
        return self.dialogs.open_conflicts()

    def open_dont_remember(self, parent: QWidget | None = None) -> Any:
        return self.dialogs.open_dont_remember(parent)

    @property
    def settings_dialog(self) -> Any:
        return self.dialogs.settings_dialog if self.dialogs is not None else None

    @property
    def review_dialog(self) -> Any:
        return self.dialogs.review_dialog if self.dialogs is not None else None

    @property
    def conflicts_dialog(self) -> Any:
        return self.dialogs.conflicts_dialog if self.dialogs is not None else None

    @property
    def dont_remember_dialog(self) -> Any:
        return self.dialogs.dont_remember_dialog if self.dialogs is not None else None

    async def open_chat_turn(self, session_id: str, turn_id: str, excerpt: str = "") -> bool:
        """The history's 打开这段对话 (see ``ChatActions.open_chat_turn``)."""
        return await self.chat_actions.open_chat_turn(session_id, turn_id, excerpt)

    def request_quit(self) -> None:
        self.quit_requested.set()

    def show_quick_chat(self) -> None:
        if self.quick_chat is None or self.tray is None:
            return
        if self.quick_chat.isVisible():
            self.quick_chat.hide()
            return
        if not self.settings.is_llm_configured and self.window is not None:
            # No model: the quick chat could only answer "no model is configured" to every message.
            # The window's welcome panel says how to set one up (打开设置) and offers the imports.
            self.window.bring_to_front()
            return
        self.quick_chat.show_near(self.tray.geometry())

    def open_memory(self, memory_id: str) -> None:
        """A memory chip in the quick chat: bring the main window up on that card."""
        if self.window is None:
            return
        self.window.bring_to_front()
        self.window.reveal_memory(memory_id)

    async def apply_settings(self, new: Settings) -> None:
        """Apply saved settings: theme and model now; a new data dir or backend re-opens the store
        (if that fails, the previous store stays and an error toast says why)."""
        assert self.services is not None
        old, self.settings = self.settings, new
        if self.theme is not None:
            self.theme.set_setting(new.theme)
        if self.window is not None:
            self.window.set_configured(new.is_llm_configured)
        store_changes = self.services.restarts_agents(new)  # decided by the services, never here
        if store_changes:
            await self.wait_until_ready()
            self.controller.stop_accepting()
            await self.controller.close()
        try:
            await self.services.apply_settings(new)
        except Exception as exc:  # noqa: BLE001 - the services kept the previous store; say why
            from sonetto_desktop.memory.stores.data_folder import CopyCancelled

            self.settings = self.services.settings
            if isinstance(exc, CopyCancelled):  # the person's 取消 on the copy's toast
                from .notices.data_copy import CANCELLED_KEY, cancelled_text

                folder = self.settings.resolved_data_dir()
                self.toasts.show_toast(lambda: cancelled_text(folder), key=CANCELLED_KEY)
            else:
                kept, failure = self.settings, exc
                self.toasts.show_toast(lambda: _reopen_failed(new, kept, failure), key="store-reopen-failed",
                                       kind="error", timeout_ms=0)
            saved = await call(self.settings.save)  # the file says what is used: the next start opens it too
            if not saved.ok:
                log.error("could not save the settings kept: %s", saved.message)
            elif new.resolved_data_dir() != self.data_dir:  # a copy stopped there: its marker, the folder it made
                await self.services.forget_stopped_carry(new.resolved_data_dir())
        if store_changes:
            if self.services.chat is not None:
                await self.controller.attach(self.services.chat)
            if not self.store_ok and self.interactive:
                self._show_store_problem()
            if self.services.migration_problem is not None and self.interactive:
                self._show_migration_problem()  # the switch just saved did not finish: said now, not at the next start
        if old.language != new.language and self.window is not None:
            await self._change_language(new.language)

    async def choose_language(self, language: str) -> None:
        """The welcome panel's other language: saved (the next start opens in it), then shown now."""
        new = dataclasses.replace(self.settings, language=language)
        saved = await call(new.save, with_secret=False)  # (the file only: the key stays where it is)
        if not saved.ok:
            message = saved.message
            self.toasts.show_toast(lambda: QApplication.translate("SonettoApp", "无法保存设置：") + wording_of(message)(),
                                   key="language-save-failed", kind="error", timeout_ms=0)
            return
        await self.apply_settings(new)

    async def _change_language(self, language: str) -> None:
        """The UI follows a new language at once (ui/language_switch.py): no restart."""
        from .language_switch import change_language

        await change_language(self, language)

    def _notify_in_tray(self, text: str) -> bool:
        """While the window is hidden, what the writer remembered shows as a tray message instead."""
        if self.tray is None or self.window is None or self.window.isVisible():
            return False
        self.tray.notify("Sonetto", text)
        return True

    def _show_store_problem(self) -> None:
        from .dialogs.store_problem import store_problem_box

        self._store_dialog = store_problem_box(self.store_report, self.data_dir, self.window)

    def _show_migration_problem(self) -> None:
        self._migration_dialog = migration_problem_box(self.services.migration_problem, self.data_dir, self.window)


def _reopen_failed(new: Settings, kept: Settings, exc: BaseException) -> str:
    """The toast of a store the saved settings named that could not be opened (``kept``: what is used)."""
    from sonetto_desktop.postgres_setup import SwitchRefused

    if isinstance(exc, SwitchRefused):
        return QApplication.translate(
            "SonettoApp", "没有切换到 PostgreSQL：本机的记忆没能搬到记忆服务器 {0} 上（{1}）。仍在使用本机的记忆库，记忆都还在。").format(
            exc.where, exc.detail)
    if new.resolved_data_dir() == kept.resolved_data_dir():  # the folder stays: the backend (or its server) changed
        return QApplication.translate("SonettoApp", "无法切换存储方式：{0}。仍在使用原来的记忆库。").format(error_detail(exc))
    return QApplication.translate("SonettoApp", "无法使用新的数据文件夹 {0}：{1}。仍在使用原来的记忆库。").format(
        new.resolved_data_dir(), error_detail(exc))
