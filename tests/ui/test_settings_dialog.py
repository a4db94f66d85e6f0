"""Settings dialog: values persist, test connection (real HTTP to the scripted server), the env
overrides are read-only, the data folder opens, and switching the store backend migrates."""

from __future__ import annotations

import dataclasses
import json

import pytest
from PySide6.QtCore import QObject, QUrl, Slot
from PySide6.QtGui import QDesktopServices

from shell_fixtures import app_settings, running_app
from helpers import pick
from sonetto_desktop import ops
from sonetto_desktop.config.settings import Settings, config_dir
from sonetto_desktop.memory import SqliteMemoryManager
from sonetto_desktop.ui.settings.dialog import SettingsDialog


@pytest.fixture
def dialog(qtbot):
    def make(settings):
        d = SettingsDialog(settings)
        qtbot.addWidget(d)
        return d

    return make


async def test_saved_settings_come_back_after_a_reload(dialog, tmp_path):
    d = dialog(Settings.load())
    d.base_url.setText("http://127.0.0.1:11434/v1")
    d.model.setEditText("qwen2.5:7b")
    d.api_key.setText("sk-secret-value")
    d.temperature.setValue(0.3)
    pick(d.retrieval_mode, "mechanical")
    pick(d.store_backend, "sqlite")
    d.data_dir.setText(str(tmp_path / "mydata"))
    pick(d.theme, "dark")
    pick(d.language, "en")
    d.request_timeout.setValue(42)
    d.recall_timeout.setValue(3)
    saved = []
    d.settings_saved.connect(saved.append)
    assert await d.save()

    again = Settings.load()
    assert (again.base_url, again.model, again.api_key) == ("http://127.0.0.1:11434/v1", "qwen2.5:7b", "sk-secret-value")
    assert (again.temperature, again.retrieval_mode, again.store_backend) == (0.3, "mechanical", "sqlite")
    assert (again.theme, again.language, again.request_timeout, again.recall_timeout) == ("dark", "en", 42.0, 3.0)
    assert again.resolved_data_dir() == tmp_path / "mydata"
    assert saved and saved[0].model == "qwen2.5:7b"
    raw = (config_dir() / "settings.json").read_text(encoding="utf-8")
    assert "sk-secret-value" not in raw and json.loads(raw)["model"] == "qwen2.5:7b"


async def test_invalid_values_are_refused_and_nothing_is_written(dialog):
    d = dialog(Settings.load())
    d.base_url.setText("not a url at all")
    d.model.setEditText("m")
    assert not await d.save()
    assert d.error_label.text()
    assert not (config_dir() / "settings.json").exists()


@pytest.mark.parametrize("shown, picked, said", [
    ("chinese", "en", "接口地址应以 http:// 或 https:// 开头。"),
    ("english", "zh_CN", "The base URL must start with http:// or https://.")])
async def test_a_refused_save_says_why_in_the_ui_s_language_not_the_one_picked(dialog, request, shown, picked, said):
    """保存 with a wrong value said why in the language picked in the 语言 box (not applied yet), not in
    the language the dialog is shown in: a Chinese window showed English once English was picked."""
    request.getfixturevalue(shown)
    d = dialog(Settings(language=picked))
    d.base_url.setText("not a url at all")
    d.model.setEditText("m")
    assert not await d.save()
    assert d.error_label.text() == said
    assert not (config_dir() / "settings.json").exists()


def test_environment_overrides_are_read_only(dialog, monkeypatch):
    monkeypatch.setenv("SONETTO_MODEL", "env-model")
    d = dialog(Settings.load().with_env())
    assert not d.model.isEnabled() and "SONETTO_MODEL" in d.model.toolTip()
    assert d.base_url.isEnabled()
    d.model.setEditText("typed-anyway")
    assert d.current_settings().model == "env-model"


async def test_test_connection_reports_success_and_models(dialog, llm_server, wait):
    d = dialog(Settings(base_url=llm_server.base_url, model="test-model", api_key="sk-test"))
    llm_server.add_text("pong")
    await d.test_connection()
    assert d.last_result.ok
    assert d.test_result.text().startswith("✓")
    assert d.model.findText("test-model") >= 0
    assert d.test_button.isEnabled()


async def test_test_connection_warns_that_a_model_without_tool_calls_cannot_write_memories(dialog, llm_server):
    d = dialog(Settings(base_url=llm_server.base_url, model="test-model", api_key="sk-test"))
    llm_server.add_text("pong")
    llm_server.add_text("好的，我记下了：ok")  # words, not a tool call
    await d.test_connection()
    assert d.last_result.ok and d.last_result.warning
    assert d.test_result.text().startswith("⚠") and "记忆不会被写入" in d.test_result.text()


async def test_test_connection_explains_a_bad_key(dialog, llm_server):
    d = dialog(Settings(base_url=llm_server.base_url, model="test-model", api_key="sk-wrong"))
    llm_server.add_error(401, "invalid api key")
    llm_server.add_error(401, "invalid api key")
    await d.test_connection()
    assert not d.last_result.ok
    assert d.test_result.text().startswith("✗")
    assert "sk-wrong" not in d.test_result.text()


async def test_a_slow_test_answers_for_the_address_it_was_for(dialog, llm_server, wait):
    """A slow server's answer came after the person had moved on to another provider: "✓ 连接成功"
    stood next to DeepSeek's address, and the slow server's models replaced DeepSeek's in the list.
    An answer for an address no longer shown is dropped; a result shown goes when the address, the
    key or the model changes."""
    import asyncio

    llm_server.models = ["slow-model"]
    llm_server.add_text("pong")
    llm_server.delay = 0.4
    d = dialog(Settings(base_url=llm_server.base_url, model="slow-model", api_key="sk-test"))
    task = asyncio.ensure_future(d.test_connection())
    await wait(lambda: llm_server.models_requests, message="the test under way")
    d.base_url.setText("https://api.deepseek.com/v1")  # typed meanwhile (the picker follows)
    d.model.setEditText("deepseek-flash")
    await task
    assert not d.test_result.text().startswith("✓") and d.last_result is None
    assert d.model.findText("slow-model") < 0 and d.model.currentText() == "deepseek-flash"
    assert d.test_button.isEnabled()

    llm_server.delay = 0.0
    llm_server.add_text("pong")
    d.base_url.setText(llm_server.base_url)
    d.model.setEditText("slow-model")
    await d.test_connection()
    assert d.test_result.text().startswith("✓") and d.last_result.ok
    d.api_key.setText("sk-another")  # what the ✓ was for is not what the dialog shows now
    assert d.test_result.text() == ""


class _UrlCatcher(QObject):
    def __init__(self):
        super().__init__()
        self.urls = []

    @Slot(QUrl)
    def open(self, url):
        self.urls.append(url)


def test_open_data_folder_opens_the_resolved_dir(dialog, tmp_path):
    catcher = _UrlCatcher()
    QDesktopServices.setUrlHandler("file", catcher, "open")
    try:
        d = dialog(Settings(data_dir=str(tmp_path / "where")))
        assert d.open_data_folder()
    finally:
        QDesktopServices.unsetUrlHandler("file")
    assert [u.toLocalFile() for u in catcher.urls] == [str(tmp_path / "where")]
    assert (tmp_path / "where").is_dir()


async def test_switching_the_backend_migrates_without_loss(qapp, tmp_path, wait):
    data = tmp_path / "data"
    async with running_app(qapp, app_settings(data)) as app:
        first = await app.service.submit(ops.AddMemory("用户喜欢猫", "偏好"))
        await app.service.submit(ops.AddMemory("用户住在杭州", "身份"))
        deleted = await app.service.submit(ops.AddMemory("过时的计划", "计划"))
        await app.service.submit(ops.DeleteMemory(deleted, "取消了"))
        app.store.update(first, "更准确", new_description="用户喜欢橘猫")
        before = {k: v.to_dict() for k, v in app.store.all_items().items()}
        trash_before = app.store.list_trash()

        d = app.open_settings()
        pick(d.store_backend, "sqlite")
        assert await d.save()
        await wait(lambda: isinstance(app.store, SqliteMemoryManager) and app.controller.ready, timeout=10,
                   message="store re-opened as SQLite")
        assert {k: v.to_dict() for k, v in app.store.all_items().items()} == before
        assert app.store.list_trash() == trash_before
        await app.wall_loaded
        await wait(lambda: app.wall.model.rowCount() == 2, message="wall shows the migrated store")
        assert list(data.glob("memory.yaml.migrated-*")), "the old file is kept"
        assert app.writer.ops.store is app.store
    assert Settings.load().store_backend == "sqlite"


async def test_a_new_data_folder_chosen_in_the_dialog_keeps_the_memories(qapp, tmp_path, wait):
    data, moved = tmp_path / "data", tmp_path / "moved" / "sonetto"
    async with running_app(qapp, app_settings(data)) as app:
        await app.service.submit(ops.AddMemory("用户喜欢猫", "偏好"))
        d = app.open_settings()
        assert d.data_dir_hint.text().startswith("换到还没有记忆的文件夹时")
        d.data_dir.setText(str(moved))
        shown: list[str] = []
        app.toasts.toast_shown.connect(lambda toast: shown.append(toast.key))
        assert await d.save()
        await wait(lambda: app.data_dir == moved and app.controller.ready, timeout=10, message="the new folder in use")
        await app.wall_loaded
        await wait(lambda: app.wall.model.rowCount() == 1, message="the memory in the new folder")
        assert (data / "memory.yaml").exists() and (moved / "memory.yaml").exists()
        assert "data-copy" not in shown  # a copy over at once: no toast come and gone


async def test_a_long_copy_to_a_new_data_folder_shows_its_progress_and_can_be_cancelled(qapp, tmp_path, wait,
                                                                                         monkeypatch):
    """Moving the data to a new folder copies it there: a big store or many chats took long and the
    person saw nothing and could not stop it. A toast says how far the copy has come, with 取消: the
    old folder stays in use (the settings saved say so), the new one is left as it was."""

    data, moved = tmp_path / "data", tmp_path / "moved" / "sonetto"
    async with running_app(qapp, app_settings(data)) as app:
        await app.service.submit(ops.AddMemory("用户喜欢猫", "偏好"))
        _journal_turns(data, 20)  # many turns journaled: a copy of many files
        stop = _slow_copies(monkeypatch)
        try:
            d = app.open_settings()
            d.data_dir.setText(str(moved))
            assert await d.save()
            await wait(lambda: (t := _toast(app, "data-copy")) is not None and "个文件" in t.text,
                       timeout=10, message="the copy's progress")
            toast = _toast(app, "data-copy")
            first = toast.text
            await wait(lambda: toast.text != first, timeout=10, message="the progress moves on")
            assert toast.action_button is not None and toast.action_button.text() == "取消"
            toast.action_button.click()
            await wait(lambda: _toast(app, "data-copy-cancelled") is not None, timeout=10,
                       message="the cancel said")
        finally:
            stop.set()
        said = _toast(app, "data-copy-cancelled")
        assert said.kind == "info" and str(data) in said.text
        assert not [t for t in app.toasts.toasts() if t.kind == "error"]
        assert app.data_dir == data
        await wait(lambda: app.controller.ready, timeout=10, message="the chat back on the old folder")
        await app.wall_loaded
        await wait(lambda: app.wall.model.rowCount() == 1, message="the memories of the old folder")
        assert Settings.load().resolved_data_dir() == data  # the next start opens the old folder too
        assert not moved.parent.exists()  # the folders the copy made are gone, its lock too


async def test_a_copy_to_a_new_data_folder_that_fails_takes_its_progress_away(qapp, tmp_path, wait, monkeypatch):
    """The disk fills up during the copy: the error is said, and the copy's progress toast (kept until
    the copy is over) does not stay on, still counting, beside it."""
    import errno
    import shutil

    import time

    data, moved = tmp_path / "data", tmp_path / "moved" / "sonetto"
    async with running_app(qapp, app_settings(data)) as app:
        await app.service.submit(ops.AddMemory("用户喜欢猫", "偏好"))
        _journal_turns(data, 20)  # long enough to be shown
        copy = shutil.copy2

        def full_at_the_store(source, target, **kw):
            if str(source).endswith("memory.yaml"):
                raise OSError(errno.ENOSPC, "No space left on device")
            time.sleep(0.05)  # (a slow disk)
            return copy(source, target, **kw)

        monkeypatch.setattr(shutil, "copy2", full_at_the_store)
        shown: list[str] = []
        app.toasts.toast_shown.connect(lambda toast: shown.append(toast.key))
        await app.apply_settings(dataclasses.replace(app.settings, data_dir=str(moved)))
        assert "data-copy" in shown  # (the copy was told)
        await wait(lambda: any(t.kind == "error" for t in app.toasts.toasts()), message="the error said")
        assert _toast(app, "data-copy") is None
        assert app.data_dir == data
        assert Settings.load().resolved_data_dir() == data
        assert not moved.parent.exists()  # the folders the copy made are gone, its lock too


async def test_a_change_made_while_the_data_is_copied_is_refused_in_words_a_person_reads(qapp, tmp_path, wait,
                                                                                        monkeypatch):
    """The wall stays usable while the data is copied to a new folder, but the store is closed: a card
    added then was refused with "操作失败：the memory store is being closed or opened again; try again"."""

    data, moved = tmp_path / "data", tmp_path / "moved" / "sonetto"
    async with running_app(qapp, app_settings(data)) as app:
        await app.service.submit(ops.AddMemory("用户喜欢猫", "偏好"))
        _journal_turns(data, 20)
        stop = _slow_copies(monkeypatch)
        try:
            d = app.open_settings()
            d.data_dir.setText(str(moved))
            assert await d.save()
            await wait(lambda: _toast(app, "data-copy") is not None, timeout=10, message="the copy under way")
            assert await app.service.submit(ops.AddMemory("用户喜欢狗", "偏好")) is None  # refused
            await wait(lambda: any(t.kind == "error" for t in app.toasts.toasts()), message="the refusal said")
        finally:
            stop.set()
        [said] = [t.text for t in app.toasts.toasts() if t.kind == "error"]
        assert said == "记忆库正在切换（换了数据文件夹或存储方式），这次的改动没有保存：切换完成后再试一次。", said
        await wait(lambda: app.data_dir == moved and app.controller.ready, timeout=20, message="the move done")


def _toast(app, key: str):
    found = [t for t in app.toasts.toasts() if t.key == key and not t.is_dismissed]
    return found[-1] if found else None


async def test_closing_the_dialog_during_a_connection_test_touches_nothing(qtbot, llm_server):
    # issue 18: the test's follow-up set texts on the dialog after the await, deleted or not
    import asyncio

    import shiboken6
    from PySide6.QtCore import QCoreApplication, QEvent

    d = SettingsDialog(Settings(base_url=llm_server.base_url, model="test-model", api_key="sk-test"))
    llm_server.add_text("pong")
    with qtbot.captureExceptions() as errors:
        task = asyncio.ensure_future(d.test_connection())
        await asyncio.sleep(0)  # the test is under way
        d.deleteLater()
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
        assert not shiboken6.isValid(d)
        await task
    assert errors == []


def test_the_store_list_offers_every_registered_file_backend(dialog):
    from sonetto_desktop.memory.stores import backends

    extra = backends.register(backends.StoreBackend("journaldb", "Journal DB", SqliteMemoryManager, "memory.journal",
                                                    choice=("日志数据库", "Journal database")))
    try:
        d = dialog(Settings.load())
        offered = {d.store_backend.itemData(i): d.store_backend.itemText(i) for i in range(d.store_backend.count())}
    finally:
        backends.unregister(extra.name)
    assert offered["journaldb"] == "日志数据库" and offered["yaml"] == "YAML 文件（可直接阅读）"
    assert {"yaml", "sqlite", "journaldb", "postgres"} <= set(offered)


def test_each_page_goes_once_into_a_scroll_area_already_in_its_tab(qapp, qtbot):
    """Issue 37: under the app's style sheet a widget given a new parent is styled again, with every
    widget in it. Each page went into its scroll area and then the area into its tab: every page
    styled twice, a third of the ~50 ms the dialog took to make. The area is in its tab first."""
    from PySide6.QtCore import QEvent
    from PySide6.QtWidgets import QScrollArea, QStackedWidget, QWidget

    moves: list[tuple[str, bool]] = []  # (the page, whether its area was already in the tabs)

    class Moves(QObject):
        def eventFilter(self, obj, event):
            if event.type() == QEvent.Type.ParentChange and isinstance(obj, QWidget):
                viewport = obj.parentWidget()
                area = viewport.parentWidget() if viewport is not None else None
                if isinstance(area, QScrollArea) and area.objectName().endswith("Scroll"):  # (a page of the dialog)
                    moves.append((obj.objectName() or type(obj).__name__, isinstance(area.parentWidget(), QStackedWidget)))
            return False

    watcher = Moves()
    qapp.installEventFilter(watcher)
    try:
        d = SettingsDialog(Settings.load())
    finally:
        qapp.removeEventFilter(watcher)
    qtbot.addWidget(d)
    assert len(moves) == 5 and all(in_tabs for _, in_tabs in moves), moves
    assert [d._tabs.widget(i).widget() for i in (2, 3, 4)] == [d.recall_page, d.postgres_page, d.mcp_page]


async def test_a_start_after_a_stopped_copy_goes_back_to_the_old_folder_and_says_so(qapp, tmp_path, wait):
    """The app killed after a copy into a new data folder was stopped, before it saved the settings back:
    the next start opened the new, empty folder (every memory seemed gone). It opens the old one, saves
    the settings so, removes what the copy left, and says it."""
    from sonetto_desktop.memory.stores.migrate import make_store

    data, moved = tmp_path / "data", tmp_path / "moved" / "sonetto"
    store = make_store("yaml", data / "memory.yaml")
    store.add("用户喜欢猫", "偏好")
    store.close()
    moved.mkdir(parents=True)
    (moved / ".migration.lock").write_text("", encoding="utf-8")
    (moved / ".carrying.json").write_text(json.dumps({"from": str(data), "stopped": True,
                                                       "made": [str(moved.parent), str(moved)]}), encoding="utf-8")
    async with running_app(qapp, app_settings(moved)) as app:
        assert app.data_dir == data
        await app.wall_loaded
        await wait(lambda: app.wall.model.rowCount() == 1, message="the memories of the old folder")
        said = _toast(app, "data-copy-stopped")
        assert said is not None and str(data) in said.text and str(moved) in said.text
        assert Settings.load().resolved_data_dir() == data
    assert not moved.parent.exists()


async def test_quitting_during_a_long_copy_stops_it_and_keeps_the_old_folder(qapp, tmp_path, wait, monkeypatch):
    """退出 while the data was copied into a new folder: the app stayed (its worker copying) until the
    whole copy was done. It stops the copy as 取消 does; the next start uses the old folder."""
    import asyncio
    import shutil
    import threading

    data, moved = tmp_path / "data", tmp_path / "moved" / "sonetto"
    async with running_app(qapp, app_settings(data)) as app:
        await app.service.submit(ops.AddMemory("用户喜欢猫", "偏好"))
        copy, copying, stopped = shutil.copy2, threading.Event(), []

        def slow(source, target, **kw):  # a big file, copied until the copy is stopped
            cancel = app.services._carry_cancel
            copying.set()
            stopped.append(cancel is not None and cancel.wait(10))
            return copy(source, target, **kw)

        monkeypatch.setattr(shutil, "copy2", slow)
        new = dataclasses.replace(app.settings, data_dir=str(moved))
        new.save()  # (the dialog's 保存, then the settings applied in the app's scope)
        app._tasks.spawn(app.apply_settings(new), name="apply-settings")
        while not copying.is_set():
            await asyncio.sleep(0.01)
    assert stopped and stopped[0]  # told to stop at once, not after the whole copy
    from sonetto_desktop.memory.stores.data_folder import carry_stopped

    await wait(lambda: carry_stopped(moved) == data, message="the copy's worker ended (the exit waits for it)")
    assert [p.name for p in moved.iterdir() if p.name not in (".migration.lock", ".carrying.json")] == []
    async with running_app(qapp, Settings.load()) as app:  # the next start
        assert app.data_dir == data
        await app.wall_loaded
        await wait(lambda: app.wall.model.rowCount() == 1, message="the memories of the old folder")
        said = _toast(app, "data-copy-stopped")  # why, in words: the quit stopped it (not 取消, not a failure)
        assert said is not None and "上次退出时" in said.text and str(moved) in said.text and str(data) in said.text
        assert Settings.load().resolved_data_dir() == data  # the settings file names the folder in use again
    assert not moved.parent.exists()  # nothing the copy made is left


async def test_a_copy_cut_short_is_finished_after_the_window_shows_with_its_progress(qapp, tmp_path, wait,
                                                                                      monkeypatch):
    """The app killed while it copied the data into a new folder: the next start finished the copy before
    the window existed, so a big one showed nothing for minutes (the app seemed not to start). The window
    shows on the old folder's memories, then the copy is made with its progress toast and 取消."""
    import shutil
    import threading

    from sonetto_desktop.memory.stores.migrate import make_store
    from sonetto_desktop.presentation.cards import DESCRIPTION

    data, moved = tmp_path / "data", tmp_path / "moved" / "sonetto"
    store = make_store("yaml", data / "memory.yaml")
    store.add("用户喜欢猫", "偏好")
    store.close()
    _journal_turns(data, 20)
    moved.mkdir(parents=True)
    (moved / ".carrying.json").write_text(json.dumps({"from": str(data)}), encoding="utf-8")  # (killed meanwhile)
    copy, go = shutil.copy2, threading.Event()

    def slow(source, target, **kw):  # a big copy: under way until the test has looked (or given up: 60 s)
        go.wait(60)
        return copy(source, target, **kw)

    monkeypatch.setattr(shutil, "copy2", slow)
    try:
        async with running_app(qapp, app_settings(moved)) as app:
            assert app.window is not None and app.window.isVisible()  # shown at once, the copy under way
            await wait(lambda: _toast(app, "data-copy") is not None, timeout=10, message="the copy's progress")
            assert app.services.store.path.parent == data  # (the old folder's memories meanwhile)
            go.set()
            # (the settings name the new folder from the start of the copy, and its progress ends before
            # the copy's marker goes and the store opens there: the store itself says the copy is over)
            await wait(lambda: app.services.store is not None and app.services.store.path.parent == moved,
                       timeout=20, message="the copy made, the new folder used")
            assert app.data_dir == moved and not (moved / ".carrying.json").exists()
            await wait(lambda: _toast(app, "data-copy") is None, message="its progress gone")
            await wait(lambda: [c[DESCRIPTION] for c in app.wall.model.cards()] == ["用户喜欢猫"],
                       message="the memories in the new folder")
    finally:
        go.set()


def _slow_copies(monkeypatch):
    """Each file copied takes a while (a slow disk) until the returned event is set."""
    import shutil
    import threading

    copy, stop = shutil.copy2, threading.Event()

    def slow(source, target, **kw):
        stop.wait(0.05)
        return copy(source, target, **kw)

    monkeypatch.setattr(shutil, "copy2", slow)
    return stop


def _journal_turns(data, count: int) -> None:
    """``count`` turns in the writer's journal of the data folder ``data``: a copy of many files."""
    (data / "memory.journal").mkdir(exist_ok=True)
    for n in range(count):
        (data / "memory.journal" / f"turn-{n:03}.json").write_text("{}", encoding="utf-8")


def _latin_words(text: str, *known: str) -> set[str]:
    """English words in ``text`` (names and addresses aside)."""
    import re

    for name in known:
        text = text.replace(name, "")
    return set(re.findall(r"[A-Za-z]{3,}", text)) - {"HTTP", "API", "Key", "Sonetto", "OpenAI", "function", "calling"}


async def test_a_chat_test_reads_in_chinese_and_keeps_the_servers_words_in_the_tooltip(dialog, llm_server, chinese):
    """The 模型 page's test said its result in the settings' language, not the UI's, and put the server's
    English into the Chinese text ("详情：insufficient balance"): each result is said in the page's words,
    the server's or the library's own in the tooltip."""
    d = dialog(Settings(base_url=llm_server.base_url, model="test-model", api_key="sk-test", language="en"))
    llm_server.add_text("pong")
    await d.test_connection()
    text = d.test_result.text()
    assert text.startswith("✓ 连接成功：模型“test-model”可以使用") and not _latin_words(text, "test-model"), text
    for status, said in ((402, "Insufficient Balance"), (400, "No connected db."), (500, "upstream exploded")):
        llm_server.clear()
        for _ in range(3):  # (a busy server's answer is asked again)
            llm_server.add_error(status, said)
        await d.test_connection()
        text = d.test_result.text()
        assert text.startswith("✗") and f"HTTP {status}" in text and not _latin_words(text, "test-model"), text
        assert said in d.test_result.toolTip(), d.test_result.toolTip()
    llm_server.clear()
    llm_server.add_error(401, "invalid api key")
    await d.test_connection()
    assert d.test_result.text().startswith("✗ 模型服务拒绝了 API Key"), d.test_result.text()
    d.base_url.setText("http://127.0.0.1:9/v1")
    await d.test_connection()
    text = d.test_result.text()
    assert text.startswith("✗ 连不上模型服务") and not _latin_words(text), text
    assert d.test_result.toolTip()
    d.base_url.setText("ftp://example.org")
    await d.test_connection()
    assert d.test_result.text() == "✗ 接口地址应以 http:// 或 https:// 开头。" and d.test_result.toolTip() == ""


async def test_every_chat_test_result_reads_in_english_in_an_english_ui(dialog, llm_server, english):
    d = dialog(Settings(base_url=llm_server.base_url, model="test-model", api_key="sk-test", language="zh_CN"))
    llm_server.shutdown_dates["test-model"] = "2027-01-14"
    llm_server.add_text("pong")
    await d.test_connection()
    text = d.test_result.text()
    assert text.startswith("⚠ Connected: the model “test-model” answers") and "14 January 2027" in text, text
    llm_server.models = ["other-model", "third-model"]
    llm_server.strict_models = True
    llm_server.add_error(404, "The model `test-model` does not exist")
    await d.test_connection()
    text = d.test_result.text()
    assert text.startswith("✗ The model server does not know the model “test-model”") and "other-model, third-model" in text, text
    for status in (401, 429, 500):
        llm_server.clear()
        for _ in range(3):  # (a busy server's answer is asked again)
            llm_server.add_error(status, "refused")
        await d.test_connection()
        text = d.test_result.text()
        assert text.startswith(("✗ The model server", "✗ Too many requests")), text
        assert not any("\u4e00" <= ch <= "\u9fff" for ch in text), text
