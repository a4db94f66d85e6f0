"""``sonetto --self-test``: start the real app, check it without a model, print timings, exit.

Uses the configured data dir (``SONETTO_DATA_DIR`` wins). Starts the window, tray, wall, writer and
engine exactly as a normal start does, renders the wall, then runs one health check that needs no
LLM: the store's self-check, the writer's state, a round trip through the engine's session
database and one offline recall (which loads the Chinese tokenizer's dictionary); frozen (the
bundle), the PostgreSQL driver is loaded too. Exit code 0 when everything passed within the time
limit, 1 with the reason otherwise (2 on a timeout). Used by CI and to smoke-test the packaged executable.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
import traceback
from typing import Any, TextIO

from sonetto_desktop.config.settings import load_settings
from sonetto_desktop.memory.files import FILE_MODE, private_log_file
from sonetto_desktop.ops import Count

from .memory_service import call, run_op
from .shell import SonettoApp
from .widgets.tasks import app_scope

SELF_TEST_TIMEOUT = 20.0


class SelfTestFailure(Exception):
    """A check failed; the message says which and why."""


def _no_follow(path: str, flags: int) -> int:
    """Open the report file only as the regular file it is (never through a link put there since)."""
    return os.open(path, flags | getattr(os, "O_NOFOLLOW", 0), FILE_MODE)


def _require(condition: bool, reason: str) -> None:
    if not condition:
        raise SelfTestFailure(reason)


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


async def _checks(app: SonettoApp, out: TextIO) -> None:
    await app.start()
    plan = app.services.embeddings_plan()
    # the built-in model's own check loads it in a worker (its engine lets go of the GIL): beside
    # the rest, not after it
    model_check = (app_scope().spawn(call(builtin_model_test, plan.builtin), name="self-test-model", awaited=True)
                   if plan.builtin is not None else None)
    try:
        await _app_checks(app, out)
        if model_check is not None:  # the platform's built-in embeddings model is carried and runs
            tested = (await model_check).unwrap()
            _require(tested.ok, tested.en)
            print(f"  embeddings model     {plan.builtin.label}: {tested.dimensions} dims, {tested.latency_ms:.0f} ms"
                  f"{'' if plan.runs == 'builtin' else f' (not used: {plan.runs})'}", file=out)
        else:
            print(f"  embeddings model     none built in here ({'endpoint' if plan.runs == 'endpoint' else 'words only'})",
                  file=out)
    finally:
        if model_check is not None and not model_check.done():
            model_check.cancel()
            await asyncio.gather(model_check, return_exceptions=True)


async def _app_checks(app: SonettoApp, out: TextIO) -> None:
    _require(app.window is not None and app.window.isVisible(), "main window did not show")
    _require(app.tray is not None and len(app.tray.contextMenu().actions()) >= 4, "tray menu incomplete")
    await app.services.checked()  # the window does not wait for the store's self-check; the self-test does
    report = app.store_report
    _require(report is not None, "store self-check did not run")
    _require(report.ok, "memory store self-check FAILED: " + "; ".join(report.issues))
    _require(app.services.migration_problem is None, f"memory store switch FAILED: {app.services.migration_problem}")

    started = time.perf_counter()
    await app.wall_loaded
    await asyncio.sleep(0)  # let Qt lay out and paint (never processEvents() inside a coroutine)
    pixmap = app.wall.grab()
    _require(not pixmap.isNull() and pixmap.width() > 0, "the memory wall did not render")
    shown = app.wall.model.rowCount()
    stored = (await run_op(Count(), app.services)).unwrap()
    _require(shown == stored, f"the wall shows {shown} memories but the store holds {stored}")
    app.timings["wall_rendered"] = app.timings["window_shown"] + (time.perf_counter() - started) * 1000

    await app.wait_until_ready()
    writer = app.writer
    _require(writer is not None and writer.running, "the memory writer is not running")
    _require(not writer.failed_turns(), f"{len(writer.failed_turns())} turns failed to be written to memory")
    session = await app.engine.create_session("self-test")
    sessions = await app.engine.list_sessions()
    _require(any(s.id == session.id for s in sessions), "the session database lost a new session")
    _require(await app.engine.delete_session(session.id), "the session database could not delete a session")
    _require(app.controller.ready, "the chat is not ready")
    started = time.perf_counter()
    await app.services.warm_up()  # loads jieba's dictionary and builds the offline index
    probe = await app.services.recall.aretrieve("自检：今天过得怎么样", "mechanical")
    _require(isinstance(probe, list), "offline recall did not answer")
    app.timings["recall_ready"] = (time.perf_counter() - started) * 1000
    if getattr(sys, "frozen", False):  # the bundle carries the PostgreSQL store: its driver must load
        print(f"  PostgreSQL driver    libpq {(await call(postgres_driver)).unwrap()}", file=out)
    print(f"  memories             {stored}", file=out)
    print(f"  writer               {writer.status().en}", file=out)
    print(f"  model configured     {'yes' if app.settings.is_llm_configured else 'no'}", file=out)


async def run_self_test(qapp: Any, *, timeout: float = SELF_TEST_TIMEOUT, out: TextIO | None = None) -> int:
    settings = (await call(load_settings)).unwrap()  # file + keyring: never on the Qt thread
    app = SonettoApp(qapp, settings, interactive=False)
    log_file = None
    if out is None:
        out = sys.stdout or sys.__stderr__  # a windowed (no console) executable has neither
        if out is None:  # (a link at that name is replaced, never followed out of the data dir)
            path = (await call(private_log_file, app.data_dir, "self-test.log")).unwrap()
            log_file = out = open(path, "w", encoding="utf-8", opener=_no_follow)
    print(f"sonetto self-test: data dir {app.data_dir} ({app.settings.store_backend})", file=out)
    code = 0
    try:
        await asyncio.wait_for(_checks(app, out), timeout)
    except SelfTestFailure as exc:
        print(f"SELF-TEST FAILED: {exc}", file=out)
        code = 1
    except asyncio.TimeoutError:
        print(f"SELF-TEST FAILED: not finished within {timeout:.0f} s", file=out)
        code = 2
    except Exception as exc:  # noqa: BLE001 - any failure is a result, with its reason
        print(f"SELF-TEST FAILED: {type(exc).__name__}: {exc}", file=out)
        traceback.print_exc(file=out)
        code = 1
    finally:
        shutdown_started = time.perf_counter()
        try:
            await asyncio.wait_for(app.shutdown(), 10)
        except Exception as exc:  # noqa: BLE001
            print(f"SELF-TEST FAILED: shutdown: {type(exc).__name__}: {exc}", file=out)
            code = code or 1
        app.timings["shutdown"] = (time.perf_counter() - shutdown_started) * 1000
    for name, ms in app.timings.items():
        print(f"  {name:<20} {ms:8.0f} ms", file=out)
    print("SELF-TEST OK" if code == 0 else f"exit code {code}", file=out)
    out.flush()
    if log_file is not None:
        log_file.close()
    return code
