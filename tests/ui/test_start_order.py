"""What the app does while its wall fills at start: Python-heavy work in a worker thread (the
writer's index: a full read and ~1 s of Python at 50,000 memories) waits until every card is shown.
QListView asks each card's size from Python while it lays a section out, and every such call waited
for the GIL behind that worker: the wall stalled 0.8 s at 50,000 memories (issue 14)."""

from __future__ import annotations

import asyncio
import time

import pytest

from shell_fixtures import OFFSCREEN_RAISE, OFFSCREEN_SIZE_HINTS, app_settings, running_app

OFFSCREEN = pytest.mark.qt_log_ignore(OFFSCREEN_RAISE, OFFSCREEN_SIZE_HINTS)
CARDS = 3000  # shown in slices over several loop steps (with the slices below)


@pytest.fixture(autouse=True)
def small_slices(monkeypatch):
    """Slices of 300 cards (2,000 in the app, where a wall of 2,000 or fewer shows in one step): the
    wall of these tests fills over several loop steps, as a big store's does in the app."""
    from sonetto_desktop.ui.wall import loader

    monkeypatch.setattr(loader, "SLICE_CARDS", 300)
    monkeypatch.setattr(loader, "ALL_AT_ONCE", 500)


@OFFSCREEN
async def test_the_writers_index_is_built_when_the_person_types_never_while_the_wall_fills(qapp, tmp_path, llm_server):
    from sonetto_desktop.memory import MemoryItem, SqliteMemoryManager
    from sonetto_desktop.ui.shell import SonettoApp

    data = tmp_path / "data"
    data.mkdir()
    store = SqliteMemoryManager(data / "memory.db")
    store.import_items({f"{n:06x}": MemoryItem(f"用户第 {n} 次说起周末的安排", f"主题{n % 6}") for n in range(CARDS)})
    store.close()
    settings = app_settings(data, llm_server, store_backend="sqlite")
    async with running_app(qapp, settings):
        pass  # the first start builds the recall index and saves it beside the store

    app = SonettoApp(qapp, settings, writer_drain_timeout=2.0, interactive=False)
    try:
        await app.start()  # a second start: the recall index is loaded at once, the wall fills meanwhile
        seen: list[tuple[bool, int]] = []  # (the wall still filling, the writer index's full reads)
        ready = asyncio.ensure_future(app.wait_until_ready())
        while not ready.done():
            writer = app.writer
            if writer is not None and writer._index is not None:  # never made here: only looked at
                seen.append((app.wall.loading(), writer._index.full_reads))
            else:
                seen.append((app.wall.loading(), 0))
            await asyncio.sleep(0.005)
        await ready
        assert any(loading for loading, _ in seen)  # the wall was seen filling
        assert not [reads for loading, reads in seen if loading and reads], "built while the wall filled"
        assert app.wall.model.rowCount() == CARDS
        # not at start either (issue 37: ~0.4 KB a memory that an app nobody chats in never needs) ...
        assert app.writer._index is None or app.writer._index.full_reads == 0, "built at start"
        app.controller.prepare()  # ... but as soon as the person types (the composer's typing signal)
        for _ in range(2000):
            if app.writer._index is not None and app.writer._index.full_reads:
                break
            await asyncio.sleep(0.005)
        assert app.writer.index.full_reads == 1
        app.controller.prepare()  # typing on builds nothing more
        await asyncio.sleep(0.05)
        assert app.writer.index.full_reads == 1
    finally:
        await app.shutdown()


@OFFSCREEN
async def test_the_store_check_and_the_recall_warm_up_run_only_once_every_card_is_shown(qapp, tmp_path, monkeypatch):
    """The store's self-check (a full read in Python: ~1 s of CPU at 100,000 memories) and the recall
    warm-up held the GIL while the wall filled: the loop stalled 135-210 ms at 100,000 (issue 37)."""
    from sonetto_desktop.memory import MemoryItem, SqliteMemoryManager
    from sonetto_desktop.services import AppServices
    from sonetto_desktop.ui.shell import SonettoApp

    data = tmp_path / "data"
    data.mkdir()
    store = SqliteMemoryManager(data / "memory.db")
    store.import_items({f"{n:06x}": MemoryItem(f"用户第 {n} 次说起周末的安排", f"主题{n % 6}") for n in range(CARDS)})
    store.close()
    settings = app_settings(data, store_backend="sqlite")
    started: dict[str, float] = {}  # the work -> when it started
    app = SonettoApp(qapp, settings, writer_drain_timeout=2.0, interactive=False)
    check, warm_up = SqliteMemoryManager.self_check, AppServices.warm_up

    def self_check(store):
        started.setdefault("self-check", time.monotonic())
        return check(store)

    async def recall_warm_up(services, **kwargs):
        started.setdefault("recall warm-up", time.monotonic())
        return await warm_up(services, **kwargs)

    monkeypatch.setattr(SqliteMemoryManager, "self_check", self_check)
    monkeypatch.setattr(AppServices, "warm_up", recall_warm_up)
    try:
        await app.start()
        shown: list[float] = []  # when the wall showed its last card
        app.wall.loader.finished.connect(lambda: shown.append(time.monotonic()))
        await app.wait_until_ready()
        assert shown and sorted(started) == ["recall warm-up", "self-check"]
        assert min(started.values()) > shown[0], (started, shown)
        assert app.store_report is not None and app.store_ok and app.wall.model.rowCount() == CARDS
    finally:
        await app.shutdown()


@OFFSCREEN
async def test_start_up_work_waits_for_a_wall_that_is_still_filling(qapp, tmp_path):
    """The wait itself, with a load forced to be running: it ends only once the wall shows every card."""
    from sonetto_desktop.memory import MemoryItem, SqliteMemoryManager

    data = tmp_path / "data"
    data.mkdir()
    store = SqliteMemoryManager(data / "memory.db")
    store.import_items({f"{n:06x}": MemoryItem(f"用户说过的第 {n} 件事", f"主题{n % 6}") for n in range(CARDS)})
    store.close()
    async with running_app(qapp, app_settings(data, store_backend="sqlite")) as app:
        app.wall_loaded = app.wall.reload()  # as at start: the read, then the cards in slices
        waiting = asyncio.ensure_future(app._wall_filled())
        await app.wall_loaded
        assert app.wall.loading() and not waiting.done()  # the read is done, the slices are not
        await asyncio.wait_for(waiting, 30)
        assert not app.wall.loading() and app.wall.model.rowCount() == CARDS


@OFFSCREEN
async def test_no_false_empty_states_before_the_last_chat_and_the_cards_are_shown(qapp, tmp_path, llm_server):
    """Issue 30 item 15: the chat said "嗨，我是 Sonetto…" and the wall "还没有记忆 / 0 条" for a second or
    more before the last chat and the cards appeared. Until then both are neutral."""
    from sonetto_desktop.ui.shell import SonettoApp

    settings = app_settings(tmp_path / "data", llm_server)
    async with running_app(qapp, settings) as app:
        app.services.memory.add("用户喜欢猫", "品味")
        llm_server.add_text("好呀", to="chat")
        app.controller.send("你好")
        while app.controller.busy:
            await asyncio.sleep(0.02)

    app = SonettoApp(qapp, settings, writer_drain_timeout=2.0, interactive=False)
    seen: list[tuple[str, bool, str, str]] = []  # (chat empty-state text, shown, wall empty text, count)
    try:
        await app.start()
        view, wall = app.window.chat_panel.view, app.wall
        ready = asyncio.ensure_future(app.wait_until_ready())
        while not ready.done() or not view.bubbles or wall.model.rowCount() == 0:
            seen.append((view.empty_state.text(), view.empty_state.isVisibleTo(view),
                         wall.empty_label.text() if wall.empty_label.isVisibleTo(wall) else "",
                         wall.count_label.text()))
            await asyncio.sleep(0.005)
        await ready
        assert seen  # looked at while starting
        assert not [s for s in seen if s[1] and "Sonetto" in s[0]], "the greeting flashed"
        assert not [s for s in seen if "还没有记忆" in s[2] or s[3] == "0 条"], "the wall said it was empty"
        assert [b.text for b in view.bubbles] == ["你好", "好呀"]
    finally:
        await app.shutdown()


@OFFSCREEN
async def test_start_up_leaves_no_module_source_in_the_line_cache(qapp, tmp_path, llm_server):
    """Before: PySide6's feature switch read each module imported after it whole into ``linecache``
    (the app's own, numpy's, jieba's tables as source: 24 MB of an empty store's 206 MB), kept for good."""
    import linecache

    from sonetto_desktop.memory import MemoryItem, SqliteMemoryManager
    from sonetto_desktop.ui.shell import SonettoApp

    data = tmp_path / "data"
    data.mkdir()
    store = SqliteMemoryManager(data / "memory.db")
    store.import_items({"a1": MemoryItem("用户周末喜欢去爬山", "爱好")})
    store.close()
    linecache.cache["/planted/module.py"] = (11, None, ["x = 1\n"], "/planted/module.py")  # a start-up's import
    app = SonettoApp(qapp, app_settings(data, llm_server, store_backend="sqlite"), writer_drain_timeout=2.0,
                     interactive=False)
    try:
        await app.start()
        await app.wait_until_ready()
        assert "/planted/module.py" not in linecache.cache
    finally:
        await app.shutdown()


@OFFSCREEN
async def test_the_offline_mode_leaves_the_recall_listing_unread_until_a_model_recall_asks(qapp, tmp_path, llm_server):
    """The listing (every memory's line for an LLM / HYBRID recall: ~0.6 KB a memory, 58 MB at
    100,000) was read at start whenever a model was configured, also in the offline mode, which never
    reads it (issue 37). Now it waits for the first recall that uses it, which reads it off the loop."""
    from sonetto_desktop.memory import MemoryItem, SqliteMemoryManager

    data = tmp_path / "data"
    data.mkdir()
    store = SqliteMemoryManager(data / "memory.db")
    store.import_items({f"{n:06x}": MemoryItem(f"用户第 {n} 次说起周末的安排", f"主题{n % 6}") for n in range(200)})
    store.close()
    settings = app_settings(data, llm_server, store_backend="sqlite", retrieval_mode="mechanical")
    async with running_app(qapp, settings) as app:
        recall = app.services.recall
        assert recall.llm is not None  # a model is configured: the old start read the listing for it
        assert recall._mechanical is not None and recall.mechanical.stats()["memories"] == 200  # the offline index is warm
        assert recall._listing is None, "the offline mode read the LLM listing at start"
        found = await app.services.recall.aretrieve("周末的安排", "hybrid")  # a model recall (e.g. over MCP)
        assert recall._listing is not None and len(recall._listing) == 200
        assert isinstance(found, list)


@OFFSCREEN
async def test_an_empty_store_warms_recall_when_its_first_memory_comes(qapp, tmp_path, llm_server):
    """Before: start-up loaded the tokenizer's dictionary and the lexicon's tables (~26 MB of an empty
    store's 178 MB) for a store with nothing to find; now they wait for its first memory."""
    from sonetto_desktop.ui.shell import SonettoApp

    data = tmp_path / "data"
    data.mkdir()
    app = SonettoApp(qapp, app_settings(data, llm_server, store_backend="sqlite"), writer_drain_timeout=2.0,
                     interactive=False)
    try:
        await app.start()
        await app.wait_until_ready()
        recall = app.services.recall
        assert recall._mechanical is None  # nothing built, nothing loaded
        assert await recall.aretrieve("周末去哪儿玩", "mechanical") == [] and recall._mechanical is None
        app.services.memory.add("用户周末喜欢去梧桐山爬山", "爱好")
        for _ in range(500):  # warmed in the background once the memory came (not by the query below)
            if recall._mechanical is not None:
                break
            await asyncio.sleep(0.01)
        assert recall._mechanical is not None
        found = await recall.aretrieve("梧桐山", "mechanical")
        assert [m["description"] for m in found] == ["用户周末喜欢去梧桐山爬山"]
    finally:
        await app.shutdown()


def test_the_settings_dialogs_modules_are_imported_off_the_qt_thread_once_started(tmp_path):
    """Issue 37: the first opening of 设置 imported its pages on the Qt thread (PySide's import hook
    reads each new module's source): 80-130 ms held. Once start-up's work is done they are imported,
    in a worker thread; the opening only makes widgets. A fresh process (this run imported them long
    ago), the app's start as it is, offscreen."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, SONETTO_DATA_DIR=str(tmp_path / "d"), SONETTO_CONFIG_DIR=str(tmp_path / "c"),
               PYTHONPATH=str(root), QT_QPA_PLATFORM="offscreen")
    env.pop("PYTHONUNBUFFERED", None)
    done = subprocess.run([sys.executable, str(root / "tests" / "settings_import_child.py")], cwd=root, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert {"sonetto_desktop.ui.settings.dialog", "sonetto_desktop.ui.settings.recall_page",
            "sonetto_desktop.ui.language_switch"} <= set(out["loaded"])
    assert out["start_on_qt_thread"] == []  # imported, and not by the Qt thread
    assert out["opened"] and out["open_on_qt_thread"] == []
