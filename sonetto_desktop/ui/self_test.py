"""``sonetto --self-test``: start the real app, check it without a model, print timings, exit.

Uses the configured data dir (``SONETTO_DATA_DIR`` wins). Starts the window, tray, wall, writer and
engine exactly as a normal start does, renders the wall, then runs one health check that needs no
LLM: the store's self-check, the writer's state, a round trip through the engine's session
database and one offline recall (which loads the Chinese tokenizer's dictionary); frozen (the
bundle), the PostgreSQL driver is loaded too. Exit code 0 when everything passed within the time
limit, 1 with the reason otherwise (2 on a timeout). Used by CI and to smoke-test the packaged executable.

Its lines are in the terminal's language (``cli_words``: the app's setting and the locale); what scripts
read in them is the same in both (``packaging/smoke.py``): the first line's ``sonetto self-test:``, the
verdict ``SELF-TEST OK`` / ``SELF-TEST FAILED`` and the timings' names.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
import traceback
import unicodedata
from typing import Any, TextIO

from sonetto_desktop.cli_words import Words
from sonetto_desktop.config.settings import load_settings
from sonetto_desktop.memory.stores.validation import said_in
from sonetto_desktop.memory.files import FILE_MODE, private_log_file
from sonetto_desktop.ops import Count

from .memory_service import call, run_op
from .shell import SonettoApp
from .widgets.tasks import app_scope

SELF_TEST_TIMEOUT = 20.0
LABEL_COLUMNS = 20  # a line's label, padded to this many columns (a Chinese character takes two)

#: The timings as a person reads them in Chinese; the name stays beside (scripts read it, packaging/smoke.py).
TIMINGS_ZH = {"store_opened": "记忆库已打开", "window_shown": "窗口已显示", "store_checked": "记忆库已自检",
              "engine_ready": "对话引擎就绪", "wall_rendered": "记忆墙已画好", "recall_ready": "回忆就绪",
              "shutdown": "退出"}


class SelfTestFailure(Exception):
    """A check failed; the message says which and why (``zh`` beside the English)."""

    def __init__(self, zh: str, en: str) -> None:
        super().__init__(en)
        self.zh = zh


def _padded(label: str, columns: int = LABEL_COLUMNS) -> str:
    """``label`` and the spaces that fill it to ``columns`` terminal columns (wide characters count two)."""
    width = sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in label)
    return label + " " * max(0, columns - width)


def _row(say: Words, zh: str, en: str, value: object) -> str:
    """One line of the report: ``  label   value``."""
    return f"  {_padded(say(zh, en))} {value}"


def _timing(say: Words, name: str, ms: float) -> str:
    """A timing's line: its name (what scripts read) and, in Chinese, what it is before it."""
    line = f"  {name:<20} {ms:8.0f} ms"
    label = TIMINGS_ZH.get(name)
    return line if say.en or label is None else f"  {_padded(label, 12)} {line.lstrip()}"


def _no_follow(path: str, flags: int) -> int:
    """Open the report file only as the regular file it is (never through a link put there since)."""
    return os.open(path, flags | getattr(os, "O_NOFOLLOW", 0), FILE_MODE)


def _require(condition: bool, zh: str, en: str) -> None:
    if not condition:
        raise SelfTestFailure(zh, en)


def postgres_driver() -> int:
    """The libpq version psycopg loads (raises when the driver or its pool is missing)."""
    import psycopg
    import psycopg_pool  # noqa: F401 - the memory server's chat sessions use it

    return psycopg.pq.version()


def builtin_model_test(model: Any) -> Any:
    """Load the built-in embeddings model and embed one text (``TestResult``)."""
    from sonetto_desktop.memory.retrieval.builtin_model import LocalEmbeddings

    client = LocalEmbeddings(model)
    try:
        return client.test()
    finally:
        client.close()


async def _checks(app: SonettoApp, out: TextIO, say: Words = Words("en")) -> None:
    await app.start()
    plan = app.services.embeddings_plan()
    # the built-in model's own check loads it in a worker (its engine lets go of the GIL): beside
    # the rest, not after it
    model_check = (app_scope().spawn(call(builtin_model_test, plan.builtin), name="self-test-model", awaited=True)
                   if plan.builtin is not None else None)
    try:
        await _app_checks(app, out, say)
        if model_check is not None:  # the platform's built-in embeddings model is carried and runs
            tested = (await model_check).unwrap()
            _require(tested.ok, tested.zh, tested.en)
            unused = {"endpoint": "用的是嵌入服务", "off": "按意思的回忆关着"}.get(plan.runs, plan.runs)
            print(_row(say, "内置嵌入模型", "embeddings model", say(
                f"{plan.builtin.label}：{tested.dimensions} 维，{tested.latency_ms:.0f} ms"
                + ("" if plan.runs == "builtin" else f"（没有使用：{unused}）"),
                f"{plan.builtin.label}: {tested.dimensions} dims, {tested.latency_ms:.0f} ms"
                + ("" if plan.runs == "builtin" else f" (not used: {plan.runs})"))), file=out)
        else:
            endpoint = plan.runs == "endpoint"
            print(_row(say, "内置嵌入模型", "embeddings model",
                       say(f"这里没有内置的（{'用嵌入服务' if endpoint else '只按字词'}）",
                           f"none built in here ({'endpoint' if endpoint else 'words only'})")), file=out)
    finally:
        if model_check is not None and not model_check.done():
            model_check.cancel()
            await asyncio.gather(model_check, return_exceptions=True)


async def _app_checks(app: SonettoApp, out: TextIO, say: Words) -> None:
    _require(app.window is not None and app.window.isVisible(), "主窗口没有显示出来", "main window did not show")
    _require(app.tray is not None and len(app.tray.contextMenu().actions()) >= 4, "托盘菜单不完整", "tray menu incomplete")
    await app.services.checked()  # the window does not wait for the store's self-check; the self-test does
    report = app.store_report
    _require(report is not None, "记忆库自检没有运行", "store self-check did not run")
    _require(report.ok, "记忆库自检没有通过：" + "；".join(said_in(issue, "zh") for issue in report.issues),
             "memory store self-check FAILED: " + "; ".join(report.issues))
    problem = app.services.migration_problem
    _require(problem is None, f"记忆库切换失败：{getattr(problem, 'zh', problem)}", f"memory store switch FAILED: {problem}")

    started = time.perf_counter()
    await app.wall_loaded
    await asyncio.sleep(0)  # let Qt lay out and paint (never processEvents() inside a coroutine)
    pixmap = app.wall.grab()
    _require(not pixmap.isNull() and pixmap.width() > 0, "记忆墙没有画出来", "the memory wall did not render")
    shown = app.wall.model.rowCount()
    stored = (await run_op(Count(), app.services)).unwrap()
    _require(shown == stored, f"记忆墙显示 {shown} 条记忆，记忆库里却有 {stored} 条",
             f"the wall shows {shown} memories but the store holds {stored}")
    app.timings["wall_rendered"] = app.timings["window_shown"] + (time.perf_counter() - started) * 1000

    await app.wait_until_ready()
    writer = app.writer
    _require(writer is not None and writer.running, "记忆写入器没有运行", "the memory writer is not running")
    failed = len(writer.failed_turns())
    _require(not failed, f"有 {failed} 轮对话没能写入记忆", f"{failed} turns failed to be written to memory")
    session = await app.engine.create_session("self-test")
    sessions = await app.engine.list_sessions()
    _require(any(s.id == session.id for s in sessions), "会话数据库丢了新建的会话", "the session database lost a new session")
    _require(await app.engine.delete_session(session.id), "会话数据库删不掉会话",
             "the session database could not delete a session")
    _require(app.controller.ready, "聊天还没有就绪", "the chat is not ready")
    started = time.perf_counter()
    await app.services.warm_up()  # loads jieba's dictionary and builds the offline index
    probe = await app.services.recall.aretrieve("自检：今天过得怎么样", "mechanical")
    _require(isinstance(probe, list), "离线回忆没有回答", "offline recall did not answer")
    app.timings["recall_ready"] = (time.perf_counter() - started) * 1000
    if getattr(sys, "frozen", False):  # the bundle carries the PostgreSQL store: its driver must load
        print(_row(say, "PostgreSQL 驱动", "PostgreSQL driver", f"libpq {(await call(postgres_driver)).unwrap()}"),
              file=out)
    status = writer.status()
    print(_row(say, "记忆条数", "memories", stored), file=out)
    print(_row(say, "记忆写入器", "writer", say(status.zh, status.en)), file=out)
    configured = app.settings.is_llm_configured
    print(_row(say, "已配置模型", "model configured", say("是" if configured else "否", "yes" if configured else "no")),
          file=out)


async def run_self_test(qapp: Any, *, timeout: float = SELF_TEST_TIMEOUT, out: TextIO | None = None,
                        say: Words = Words("en")) -> int:
    """Run the checks and print the report (in ``say``'s language, the terminal's: ``cli_words``)."""
    settings = (await call(load_settings)).unwrap()  # file + keyring: never on the Qt thread
    app = SonettoApp(qapp, settings, interactive=False)
    log_file = None
    if out is None:
        out = sys.stdout or sys.__stderr__  # a windowed (no console) executable has neither
        if out is None:  # (a link at that name is replaced, never followed out of the data dir)
            path = (await call(private_log_file, app.data_dir, "self-test.log")).unwrap()
            log_file = out = open(path, "w", encoding="utf-8", opener=_no_follow)
    backend = app.settings.store_backend
    print(say(f"sonetto self-test: 自检，数据文件夹 {app.data_dir}（{backend}）",
              f"sonetto self-test: data dir {app.data_dir} ({backend})"), file=out)
    failed = say("自检失败（SELF-TEST FAILED）：", "SELF-TEST FAILED: ")
    code = 0
    try:
        await asyncio.wait_for(_checks(app, out, say), timeout)
    except SelfTestFailure as exc:
        print(failed + say(exc.zh, str(exc)), file=out)
        code = 1
    except asyncio.TimeoutError:
        print(failed + say(f"没有在 {timeout:.0f} 秒内完成", f"not finished within {timeout:.0f} s"), file=out)
        code = 2
    except Exception as exc:  # noqa: BLE001 - any failure is a result, with its reason
        print(f"{failed}{type(exc).__name__}: {exc}", file=out)
        traceback.print_exc(file=out)
        code = 1
    finally:
        shutdown_started = time.perf_counter()
        try:
            await asyncio.wait_for(app.shutdown(), 10)
        except Exception as exc:  # noqa: BLE001
            print(f"{failed}{say('退出时：', 'shutdown: ')}{type(exc).__name__}: {exc}", file=out)
            code = code or 1
        app.timings["shutdown"] = (time.perf_counter() - shutdown_started) * 1000
    for name, ms in app.timings.items():
        print(_timing(say, name, ms), file=out)
    print(say("自检通过（SELF-TEST OK）", "SELF-TEST OK") if code == 0 else say(f"退出码 {code}", f"exit code {code}"),
          file=out)
    out.flush()
    if log_file is not None:
        log_file.close()
    return code
