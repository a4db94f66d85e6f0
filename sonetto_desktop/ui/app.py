"""The composition root: ``sonetto`` starts the desktop app, ``sonetto --self-test`` checks it.

``main(argv) -> int`` sets ``QT_API`` before qasync is imported, creates the QApplication (which
keeps running with every window closed: the tray may hold it), installs ``sys.excepthook`` and the
loop's exception handler, and runs the app on a qasync loop (``asyncio.Runner`` with
``loop_factory``). Quitting runs :meth:`SonettoApp.shutdown` before Qt goes away.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
import traceback
from typing import Any

log = logging.getLogger("sonetto_desktop")

APP_NAME = "SonettoHere"
ORG_NAME = "SonettoHere"


COMMANDS = ("""命令（各有自己的 --help）：
  sonetto memory ...   在终端里管理记忆：list、add、update、delete、restore、trash、undo、
                       export、import、check
  sonetto history ...  把其他应用（ChatGPT、Claude、DeepSeek……）的聊天记录导入成记忆
  sonetto mcp          通过 MCP 把记忆提供给其他 AI 应用（stdio，或 --http）；
                       sonetto mcp token 输出 HTTP 的令牌""",
            """commands (each has its own --help):
  sonetto memory ...   the memories from a terminal: list, add, update, delete, restore, trash, undo,
                       export, import, check
  sonetto history ...  bring in chats from other apps (ChatGPT, Claude, DeepSeek...) as memories
  sonetto mcp          serve the memories to other AI apps over MCP (stdio, or --http);
                       sonetto mcp token prints the HTTP bearer token""")


def _parser(say: Any) -> argparse.ArgumentParser:
    """The parser of ``sonetto``, its help in ``say``'s language (``cli_words.Words``, built inside ``parsing``)."""
    parser = argparse.ArgumentParser(prog="sonetto", description=say("SonettoHere 桌面版：启动应用。",
                                                                     "SonettoHere Desktop: start the app."),
                                     epilog=say(*COMMANDS), formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--self-test", action="store_true",
                        help=say("在设置的数据文件夹上启动真正的应用，检查它，输出用时后退出",
                                 "start the real app on the configured data dir, check it, print timings and exit"))
    parser.add_argument("--hidden", action="store_true", help=say("启动到托盘里，不显示窗口",
                                                                  "start in the tray without showing the window"))
    parser.add_argument("--no-tray", action="store_true", help=say("不使用系统托盘", "do not use the system tray"))
    parser.add_argument("--verbose", action="store_true", help=say("输出调试日志", "debug logging"))
    return parser


def _parse(argv: list[str], say: Any) -> argparse.Namespace:
    from sonetto_desktop.cli_words import parsing

    with parsing(say):  # argparse's words too (usage, its refusals, -h)
        return _parser(say).parse_args(argv)


def _setup_logging(verbose: bool) -> None:
    """Quiet by default (warnings and errors only); ``--verbose`` logs everything."""
    level = logging.DEBUG if verbose else logging.WARNING
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    from sonetto_desktop.redaction import install_log_redaction

    install_log_redaction()  # the API key never appears in a log line, even at debug level
    for noisy in ("httpx", "httpcore", "httpx2", "httpcore2", "openai", "jieba", "aiosqlite"):
        logging.getLogger(noisy).setLevel(logging.WARNING)


def create_qapp(argv: list[str]) -> Any:
    """The QApplication (created once), configured for a tray app."""
    os.environ.setdefault("QT_API", "pyside6")
    from PySide6 import QtSvg  # noqa: F401 - keeps the SVG plugin in frozen builds
    from PySide6.QtWidgets import QApplication

    from .widgets.icons import icon

    app = QApplication.instance() or QApplication([sys.argv[0] if sys.argv else "sonetto", *argv])
    app.setApplicationName(APP_NAME)
    app.setOrganizationName(ORG_NAME)
    app.setApplicationDisplayName("Sonetto")
    app.setDesktopFileName("sonetto")  # Wayland matches windows to packaging/linux/sonetto.desktop by this
    app.setQuitOnLastWindowClosed(False)
    app.setWindowIcon(icon("app"))
    return app


def install_excepthook() -> None:
    """Uncaught exceptions in slots are logged (never a silent crash, never a dead event loop)."""

    def hook(exc_type, exc, tb) -> None:
        if issubclass(exc_type, KeyboardInterrupt):
            sys.__excepthook__(exc_type, exc, tb)
            return
        log.critical("uncaught exception:\n%s", "".join(traceback.format_exception(exc_type, exc, tb)))

    sys.excepthook = hook


def loop_exception_handler(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    exc = context.get("exception")
    if isinstance(exc, asyncio.CancelledError):
        return
    log.error("event loop error: %s", context.get("message", ""), exc_info=exc)


def _load_settings() -> Any:
    from sonetto_desktop.config.settings import load_settings
    from sonetto_desktop.postgres_setup import keep_password_out_of_settings

    keep_password_out_of_settings()  # a server password written into the saved address goes to the keyring
    return load_settings()


async def _run(qapp: Any, args: argparse.Namespace, instance: Any = None) -> int:
    from .shell import SonettoApp

    asyncio.get_running_loop().set_exception_handler(loop_exception_handler)
    from .memory_service import call

    settings = (await call(_load_settings)).unwrap()  # file + keyring: never on the Qt thread
    app = SonettoApp(qapp, settings, use_tray=not args.no_tray, start_hidden=args.hidden)
    restore = _quit_on_signals(app)
    asked: list[bool] = []  # a later launch asked before the window was there (the store still opening)

    def show_window() -> None:  # a later launch: the window as it is now (a language switch makes a new one)
        if app.window is None:
            asked.append(True)
        else:
            app.window.bring_to_front()

    if instance is not None:
        instance.show_requested.connect(show_window)
    try:
        if not await app.start():  # the data folder could not be used and the person chose to quit
            return 0
        if asked and app.window is not None:
            app.window.bring_to_front()
        await app.quit_requested.wait()
    finally:
        await app.shutdown()
        restore()
    return 0


def _quit_on_signals(app: Any):
    """SIGINT / SIGTERM run the ordered shutdown. Python handles signals only when it runs, so a
    light timer wakes the interpreter while Qt waits for events. Returns a function that undoes it."""
    import signal

    from PySide6.QtCore import QTimer

    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    for sig in previous:
        signal.signal(sig, lambda *_: app.request_quit())
    wake = QTimer()
    wake.timeout.connect(lambda: None)
    wake.start(250)

    def restore() -> None:
        wake.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)

    return restore


def main(argv: list[str] | None = None) -> int:
    from sonetto_desktop.cli_words import terminal_words

    say = terminal_words()  # the language of what is printed in the terminal (help, refusals, the self-test)
    args = _parse(list(sys.argv[1:] if argv is None else argv), say)
    _setup_logging(args.verbose)
    from .display_check import display_problem

    problem = display_problem(say=say)
    if problem:
        print(say("sonetto：", "sonetto: ") + problem, file=sys.stderr)
        return 2
    os.environ.setdefault("QT_API", "pyside6")
    qapp = create_qapp([])
    install_excepthook()
    import qasync

    instance = None
    if args.self_test:
        from .self_test import run_self_test

        runner_main = run_self_test(qapp, say=say)
    else:
        instance = _one_per_profile(show=not args.hidden)
        if instance is None:
            print(say("sonetto：Sonetto 已经在运行" + ("。" if args.hidden else "，已把它的窗口带到前面。"),
                      "sonetto: Sonetto is already running" + ("." if args.hidden else
                                                               "; its window was brought to the front.")),
                  file=sys.stderr)
            return 0
        runner_main = _run(qapp, args, instance)
    runner = asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(qapp))
    try:
        code = runner.run(runner_main)
    except RuntimeError as exc:
        if LOOP_STOPPED in str(exc):
            _exit_now(exc)
        runner.close()
        _not_lingering(exc)
        raise
    except BaseException as exc:
        runner.close()
        _not_lingering(exc)
        raise
    runner.close()
    qapp.processEvents()
    if instance is not None:
        instance.close()
    return int(code)


#: How long threads that would keep the process alive (not daemons) get to end once the app stopped on an error.
LINGER_SECONDS = 5.0


def _not_lingering(exc: BaseException) -> None:
    """The app stopped on an error before its ordered shutdown ended: a thread it would have closed (the
    chat's session database's worker waits for a close that will not come) would keep the process alive
    for ever, holding the profile — the next launch says "already running" and shows nothing. Such
    threads get ``LINGER_SECONDS`` to end; then the process ends, the error logged (what was acknowledged
    is on disk already: see ``_exit_now``)."""
    import threading
    import time

    deadline = time.monotonic() + LINGER_SECONDS
    for thread in threading.enumerate():
        if thread is not threading.current_thread() and not thread.daemon:
            thread.join(max(0.0, deadline - time.monotonic()))
    left = [t.name for t in threading.enumerate() if t is not threading.current_thread() and not t.daemon
            and t.is_alive()]
    if left:
        log.critical("Sonetto stopped on an error with threads still running (%s): exiting now", ", ".join(left),
                     exc_info=exc)
        logging.shutdown()
        sys.stderr.flush()
        os._exit(1)


def _one_per_profile(*, show: bool = True) -> Any:
    """This launch's ``SingleInstance`` when it is the profile's app; None when another one runs
    (asked to show its window: see ``single_instance.py``)."""
    from sonetto_desktop.config.paths import config_dir

    from .single_instance import SingleInstance, server_name

    folder = config_dir()
    instance = SingleInstance(folder, server_name(folder, os.environ.get("SONETTO_DATA_DIR", "").strip()))
    return instance if instance.claim(show=show) else None


#: What asyncio and qasync say when the event loop stops before the app's main coroutine is done:
#: Qt's own loop was quit from under it, as its X11 plugin does when the display goes away.
LOOP_STOPPED = "Event loop stopped before Future completed"


def _exit_now(exc: BaseException) -> None:
    """The window system went away before the ordered shutdown could run, and Qt's loop will not run
    again to run it: end the process now. Left to the interpreter's exit it never ended (a database
    connection's worker thread, waiting for a close that could no longer come, kept it alive holding
    the memory store). What was acknowledged is on disk already: the stores and the writer's journal
    are made to survive a kill at any moment, which this is."""
    log.critical("the window system went away before Sonetto could shut down (%s): exiting now", exc)
    logging.shutdown()
    sys.stderr.flush()
    os._exit(1)
