"""The composed app's main window: welcome panel, chat vs wall, closing, geometry, a broken store."""

from __future__ import annotations

import asyncio

import pytest
from PySide6.QtCore import QByteArray, QSettings
from PySide6.QtWidgets import QApplication

from shell_fixtures import OFFSCREEN_RAISE, OFFSCREEN_SIZE_HINTS, app_settings, app_whose_chat_cannot_start, running_app
from sonetto_desktop import ops
from sonetto_desktop.config.settings import config_dir
from sonetto_desktop.ui.theme import tokens


async def test_welcome_panel_when_no_model_is_configured_and_the_wall_still_works(qapp, tmp_path, wait):
    async with running_app(qapp, app_settings(tmp_path / "data")) as app:
        window = app.window
        assert window.isVisible()
        assert window.showing_welcome
        # The wall works offline: adding a memory through the service shows a card.
        await app.wall_loaded
        await app.service.submit(ops.AddMemory("用户喜欢爬山", "爱好"))
        await wait(lambda: app.wall.model.rowCount() == 1, message="card shown")
        # The welcome panel leads to the settings.
        window.welcome.settings_button.click()
        dialog = app.settings_dialog
        assert dialog.isVisible()
        dialog.reject()
        # Sending without a model gives a clear inline error, not a crash.
        await app.controller.send("你好")
        assert app.controller.current_session_id
        # What a person may already have is one click away: a memories file (offline) and exported chats.
        asked: list[str] = []
        window.import_requested.connect(lambda: asked.append("memories"))
        window.history_import_requested.connect(lambda: asked.append("chats"))
        window.welcome.import_button.click()
        window.welcome.history_button.click()
        assert asked == ["memories", "chats"]
        await asyncio.sleep(0.2)  # the file dialog and the import dialog open, then close again
        from PySide6.QtWidgets import QDialog

        opened = [w for w in QApplication.topLevelWidgets() if isinstance(w, QDialog) and w.isVisible()]
        assert {type(w).__name__ for w in opened} >= {"QFileDialog", "HistoryImportDialog"}, opened
        for dialog in opened:
            dialog.reject()


async def test_the_title_says_the_apps_name_once(qapp, tmp_path):
    """Qt appends the display name to a title that does not end with it: "Sonetto · 记忆伙伴 — Sonetto"."""
    async with running_app(qapp, app_settings(tmp_path / "data")) as app:
        title = app.window.windowTitle()
        assert title.endswith("Sonetto")  # the display name `ui.app` gives the application
        assert title.count("Sonetto") == 1


async def test_chat_shows_when_configured(qapp, tmp_path, llm_server):
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        assert not app.window.showing_welcome
        assert app.window.chat_stack.currentWidget() is app.window.chat_panel
        assert app.controller.ready


@pytest.mark.qt_log_ignore(OFFSCREEN_RAISE, OFFSCREEN_SIZE_HINTS)
async def test_close_quits_without_a_tray_and_hides_with_one(qapp, tmp_path):
    async with running_app(qapp, app_settings(tmp_path / "data")) as app:
        window = app.window
        window.hide_to_tray = True
        window.close()
        assert not window.isVisible()
        assert not app.quit_requested.is_set()
        window.bring_to_front()
        assert window.isVisible()
        window.hide_to_tray = False
        window.close()
        assert app.quit_requested.is_set()


async def test_geometry_and_splitter_are_remembered(qapp, tmp_path):
    data = tmp_path / "data"
    async with running_app(qapp, app_settings(data)) as app:
        app.window.resize(760, 540)  # above the minimum width, inside the 800 px offscreen screen
        app.window.splitter.setSizes([360, 460])
        sizes = app.window.splitter.sizes()
    state = QSettings(str(config_dir() / "ui-state.ini"), QSettings.Format.IniFormat)
    assert not state.value("main/geometry", QByteArray(), type=QByteArray).isEmpty()
    async with running_app(qapp, app_settings(data)) as app:
        assert (app.window.width(), app.window.height()) == (760, 540)
        assert app.window.splitter.sizes() == sizes


async def test_a_corrupt_store_is_reported_and_never_written(qapp, tmp_path):
    data = tmp_path / "data"
    data.mkdir(parents=True)
    broken = "a: [unclosed\n  - this is not yaml: {\n"
    (data / "memory.yaml").write_text(broken, encoding="utf-8")
    async with running_app(qapp, app_settings(data), interactive=True) as app:
        assert not app.store_ok
        assert app.window.isVisible()
        assert app.writer.paused and not app.writer.running
        dialog = app._store_dialog
        assert dialog is not None and dialog.isVisible()
        assert "memory.yaml" in dialog.detailedText()
        dialog.close()
    assert (data / "memory.yaml").read_text(encoding="utf-8") == broken


async def test_an_alias_bomb_store_is_reported_without_tracebacks(qapp, tmp_path, caplog):
    """Issue 26 item 5: the store problem is said (the dialog), nothing of the app logs a traceback
    (the SQLite offer, the recall warm-up), and the file is never written."""
    import asyncio
    import logging

    data = tmp_path / "data"
    data.mkdir(parents=True)
    bomb = "a: &a [\"lol\",\"lol\",\"lol\"]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{','.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8))
    (data / "memory.yaml").write_text(bomb, encoding="utf-8")
    caplog.set_level(logging.INFO, logger="sonetto_desktop")
    async with running_app(qapp, app_settings(data), interactive=True) as app:
        assert not app.store_ok
        dialog = app._store_dialog
        assert dialog is not None and dialog.isVisible() and "anchors or aliases" in dialog.detailedText()
        await app.wall_loaded
        await asyncio.sleep(0.5)  # the start's background work (offer, warm-ups) has run
        dialog.close()
    traced = [r for r in caplog.records if r.name.startswith("sonetto_desktop") and r.exc_info]
    assert traced == [], [f"{r.name}: {r.getMessage()}" for r in traced]
    assert (data / "memory.yaml").read_text(encoding="utf-8") == bomb
    assert sorted(p.name for p in data.iterdir() if p.name.startswith("memory")) == ["memory.yaml"] or \
        "memory.yaml.bak" not in {p.name for p in data.iterdir()}


async def test_theme_switches_between_light_and_dark(qapp, tmp_path):
    async with running_app(qapp, app_settings(tmp_path / "data")) as app:
        assert tokens("light")["window_bg"] in QApplication.instance().styleSheet()
        app.theme.set_setting("dark")
        assert app.theme.mode == "dark"
        sheet = QApplication.instance().styleSheet()
        assert tokens("dark")["window_bg"] in sheet and tokens("light")["window_bg"] not in sheet
        app.theme.set_setting("light")


async def test_english_comes_from_the_compiled_translation(qapp, tmp_path):
    async with running_app(qapp, app_settings(tmp_path / "data", language="en")) as app:
        texts = [a.text() for a in app.tray.contextMenu().actions() if not a.isSeparator()]
        assert texts == ["Open main window", "Quick chat", "Pause memory writing", "Quit"]
        assert app.window.welcome.settings_button.text() == "Open settings"
    # Translators are removed at shutdown: the next app speaks Chinese again.
    async with running_app(qapp, app_settings(tmp_path / "data2")) as app:
        assert app.window.welcome.settings_button.text() == "打开设置"


async def test_status_indicator_counts_pending_turns(qapp, tmp_path):
    async with running_app(qapp, app_settings(tmp_path / "data")) as app:
        indicator = app.window.status_indicator
        assert indicator.state == "idle"
        app.writer.pause()
        await app.writer.send_history([{"role": "user", "content": "我明天去北京"},
                                    {"role": "assistant", "content": "一路顺风"}], session_id="s")
        for _ in range(10):
            await asyncio.sleep(0.01)
        assert indicator.state == "paused" and "(1)" in indicator.label.text()
        app.writer.resume()  # no model is configured, so the turn keeps waiting in the journal
        for _ in range(10):
            await asyncio.sleep(0.01)
        assert indicator.label.text() == "整理记忆中 (1)" and indicator.state == "busy"
        assert app.writer.status().zh in indicator.label.toolTip()


def test_system_theme_follows_the_platform_colour_scheme(qapp):
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication

    from sonetto_desktop.ui.theme import ThemeController

    # The offscreen platform cannot change its scheme, so the test plays the platform and emits
    # QStyleHints.colorSchemeChanged the way a desktop switching to dark mode does.
    hints = QGuiApplication.styleHints()
    controller = ThemeController(qapp, "system")
    try:
        hints.colorSchemeChanged.emit(Qt.ColorScheme.Dark)
        assert controller.mode == "dark"
        assert tokens("dark")["window_bg"] in qapp.styleSheet()
        hints.colorSchemeChanged.emit(Qt.ColorScheme.Light)
        assert controller.mode == "light"
        controller.set_setting("dark")  # an explicit choice ignores the platform
        hints.colorSchemeChanged.emit(Qt.ColorScheme.Light)
        assert controller.mode == "dark"
    finally:
        controller.set_setting("light")
        controller.deleteLater()


async def test_first_run_setup_leads_from_welcome_to_a_working_chat(qapp, tmp_path, llm_server, wait):
    async with running_app(qapp, app_settings(tmp_path / "data")) as app:
        assert app.window.showing_welcome
        app.window.welcome.settings_button.click()
        dialog = app.settings_dialog
        dialog.base_url.setText(llm_server.base_url)
        dialog.model.setEditText("test-model")
        dialog.api_key.setText("sk-test")
        await dialog.save()
        await wait(lambda: not app.window.showing_welcome and app.engine.configured, message="chat shown")
        llm_server.add_text("很高兴认识你")
        panel = app.window.chat_panel
        panel.composer.set_text("你好呀")
        panel.composer.submit()
        await wait(lambda: len(panel.view.bubbles) == 2 and not app.controller.busy, timeout=10)
        assert panel.view.bubbles[-1].text == "很高兴认识你"
        assert app.writer.status().configured


async def test_chat_failing_to_start_is_shown_and_the_wall_still_works(qapp, tmp_path, wait):
    data = tmp_path / "data"
    async with app_whose_chat_cannot_start(qapp, data) as app:  # the session database cannot be opened
        await wait(lambda: any("对话功能启动失败" in t.text for t in app.toasts.toasts()), message="error toast")
        await app.wall_loaded
        await app.service.submit(ops.AddMemory("用户喜欢爬山", "爱好"))
        await wait(lambda: app.wall.model.rowCount() == 1, message="card shown")
        assert (data / "sessions.db").is_dir()  # nothing was moved aside or overwritten


async def test_a_failed_chat_operation_shows_an_error_toast(qapp, tmp_path, wait, monkeypatch):
    async with running_app(qapp, app_settings(tmp_path / "data")) as app:
        async def locked(*_args, **_kwargs):
            raise OSError("database is locked")

        monkeypatch.setattr(app.engine, "rename_session", locked)
        await app.window.chat_panel.rename_session(app.controller.current_session_id, "新名字")
        await wait(lambda: any(t.kind == "error" and "database is locked" in t.text for t in app.toasts.toasts()),
                   message="error toast")


def test_the_welcome_button_icon_is_light_on_the_accent(qtbot):
    from sonetto_desktop.ui.chat.welcome import WelcomePanel

    panel = WelcomePanel()
    qtbot.addWidget(panel)
    image = panel.settings_button.icon().pixmap(24, 24).toImage()
    opaque = [image.pixelColor(x, y) for x in range(24) for y in range(24) if image.pixelColor(x, y).alpha() > 128]
    assert opaque and min(c.lightness() for c in opaque) > 230  # white, as the button's text


def test_dialog_buttons_are_text_only_in_both_themes():
    from sonetto_desktop.ui.theme import stylesheet

    for mode in ("light", "dark"):  # the stock tick / cross icons are unreadable on the accent button
        assert "dialogbuttonbox-buttons-have-icons: 0" in stylesheet(mode)


async def test_switching_to_an_unusable_data_folder_keeps_the_old_store(qapp, tmp_path, wait):
    import dataclasses

    data = tmp_path / "data"
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the folder should be")
    async with running_app(qapp, app_settings(data)) as app:
        await app.wall_loaded
        await app.service.submit(ops.AddMemory("用户喜欢爬山", "爱好"))
        await app.apply_settings(dataclasses.replace(app.settings, data_dir=str(blocker / "memories")))
        await wait(lambda: any(t.kind == "error" and "not-a-folder" in t.text for t in app.toasts.toasts()),
                   message="error toast")
        assert app.data_dir == data  # back on the store that works
        await app.wait_until_ready()
        await app.wall_loaded
        await wait(lambda: app.wall.model.rowCount() == 1, message="old memories shown")
        assert await app.service.submit(ops.AddMemory("用户在学游泳", "爱好")) is not None  # and it still takes writes
        assert app.controller.ready


@pytest.mark.qt_log_ignore(OFFSCREEN_RAISE, OFFSCREEN_SIZE_HINTS)
async def test_a_store_switch_in_the_settings_that_cannot_finish_is_said(qapp, tmp_path, wait):
    """YAML → SQLite chosen in the settings while memory.db already holds memories of its own: the
    switch cannot finish (one of the two is opened, the other left as it is). That was said only at
    the next start; the person who had just saved SQLite was told nothing."""
    import dataclasses

    from PySide6.QtWidgets import QMessageBox

    from sonetto_desktop.memory.stores.migrate import make_store

    data = tmp_path / "data"
    async with running_app(qapp, app_settings(data), interactive=True) as app:
        await app.wall_loaded
        await app.service.submit(ops.AddMemory("用户喜欢爬山", "爱好"))
        other = make_store("sqlite", data / "memory.db")  # (another copy of the app, an old switch)
        other.add("用户喜欢狗", "爱好")
        other.close()
        await app.apply_settings(dataclasses.replace(app.settings, store_backend="sqlite"))
        assert app.services.migration_problem is not None
        boxes = [box for box in app.window.findChildren(QMessageBox) if box.isVisible()]
        assert [box.windowTitle() for box in boxes] == ["切换存储方式没有完成"]
        assert boxes[0].informativeText() == app.services.migration_problem.zh
        await wait(lambda: app.wall.model.rowCount() == 1, message="the opened store's memory shown")
        boxes[0].close()


async def test_switching_to_a_memory_server_that_cannot_be_reached_keeps_the_local_store(qapp, tmp_path, wait):
    """PostgreSQL chosen in the settings while its server cannot be reached: the switch opened the
    server's empty local copy, read-only, with nothing said (the memories seemed gone), and the
    memories of this computer stayed behind for good once the server came back and was written to.
    The switch is refused, said in a toast that names the server, and the settings file keeps YAML."""
    import dataclasses
    import json
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    data = tmp_path / "data"
    async with running_app(qapp, app_settings(data)) as app:
        await app.wall_loaded
        await app.service.submit(ops.AddMemory("用户喜欢爬山", "爱好"))
        app.settings.save()
        to_server = dataclasses.replace(app.settings, store_backend="postgres",
                                        postgres_url=f"postgresql://sonetto@127.0.0.1:{port}/sonetto")
        to_server.save()  # (what the dialog did before it asked the app to apply them)
        await app.apply_settings(to_server)
        await wait(lambda: any(t.kind == "error" and "PostgreSQL" in t.text for t in app.toasts.toasts()),
                   message=lambda: f"an error toast: {[t.text for t in app.toasts.toasts()]}")
        [toast] = [t for t in app.toasts.toasts() if t.kind == "error"]
        assert f"127.0.0.1:{port}" in toast.text and "数据文件夹" not in toast.text
        assert app.settings.store_backend == "yaml" and app.services.settings.store_backend == "yaml"
        assert json.loads((config_dir() / "settings.json").read_text("utf-8"))["store_backend"] == "yaml"
        await app.wait_until_ready()
        await wait(lambda: app.wall.model.rowCount() == 1, message="the memories still shown")
        assert await app.service.submit(ops.AddMemory("用户在学游泳", "爱好")) is not None


async def test_a_damaged_settings_file_is_said_once(qapp, tmp_path):
    """settings.json that is no JSON (a hand edit with a missing comma): it was moved aside and every
    setting was back at its default with no word why — the model gone, the first-run panel back."""
    import dataclasses

    from sonetto_desktop.config.settings import Settings

    config_dir().mkdir(parents=True, exist_ok=True)
    (config_dir() / "settings.json").write_text('{"model": "deepseek-flash" "theme": "dark"}', "utf-8")
    loaded = Settings.load()
    assert loaded.set_aside and loaded.model == ""
    async with running_app(qapp, dataclasses.replace(loaded, data_dir=str(tmp_path / "data"))) as app:
        said = [t for t in app.toasts.toasts() if "settings.json" in t.text]
        assert len(said) == 1 and loaded.set_aside in said[0].text and "默认" in said[0].text
    async with running_app(qapp, dataclasses.replace(Settings.load(), data_dir=str(tmp_path / "data"))) as app:
        assert not [t for t in app.toasts.toasts() if "settings.json" in t.text]  # once: the next start says nothing


async def test_the_window_does_not_wait_for_the_stores_self_check(qapp, tmp_path):
    async with running_app(qapp, app_settings(tmp_path / "data")) as app:
        marks = app.timings
        assert marks["store_opened"] <= marks["window_shown"] <= marks["store_checked"] <= marks["engine_ready"]
        assert app.store_report is not None and app.store_ok


async def test_the_window_opens_within_its_screen_whatever_size_was_saved(qapp, tmp_path):
    """The default size (1280 × 800) and a size saved on a larger monitor shrink to the screen the
    window opens on (here the offscreen screen), and a window saved off it comes back onto it."""
    from PySide6.QtCore import QRect

    async with running_app(qapp, app_settings(tmp_path / "data")) as app:
        free = app.window.screen().availableGeometry()
        assert free.width() < 1280 or free.height() < 800  # the check means something only on a smaller screen
        assert free.contains(app.window.frameGeometry()), (free, app.window.frameGeometry())
        app.window.setGeometry(QRect(free.right() + 400, free.bottom() + 300, 2400, 1500))  # another, larger monitor
        app.window.save_state()
    async with running_app(qapp, app_settings(tmp_path / "data")) as app:
        free = app.window.screen().availableGeometry()
        assert free.contains(app.window.frameGeometry()), (free, app.window.frameGeometry())


@pytest.mark.qt_log_ignore(OFFSCREEN_RAISE, OFFSCREEN_SIZE_HINTS, "systemTrayWindowChanged")  # (a tray offscreen)
async def test_a_start_in_the_tray_never_shows_the_window(qapp, tmp_path, monkeypatch):
    """``sonetto --hidden`` (the login item) with a tray: the window was shown and hidden again once the
    app had started, a flash at every login. Now it is never shown until the person opens it. (The
    offscreen platform has no tray: Qt's answer to "is there one?" is made yes here.)"""
    from PySide6.QtCore import QEvent, QObject
    from PySide6.QtWidgets import QSystemTrayIcon

    from sonetto_desktop.ui.main_window import MainWindow

    monkeypatch.setattr(QSystemTrayIcon, "isSystemTrayAvailable", staticmethod(lambda: True))
    shown: list[bool] = []

    class Watch(QObject):
        def eventFilter(self, obj, event):
            if isinstance(obj, MainWindow) and event.type() == QEvent.Type.Show:
                shown.append(True)
            return False

    watch = Watch()
    qapp.installEventFilter(watch)
    try:
        async with running_app(qapp, app_settings(tmp_path / "data"), start_hidden=True) as app:
            assert app.window.hide_to_tray and not app.window.isVisible()
            assert shown == []
            app.window.bring_to_front()  # 打开窗口 from the tray
            assert app.window.isVisible() and shown == [True]
    finally:
        qapp.removeEventFilter(watch)


def _tab_stops_after(widget, count: int) -> list:
    """The next ``count`` widgets Tab reaches after ``widget`` (in the window's focus chain)."""
    from PySide6.QtCore import Qt

    found, current = [], widget.nextInFocusChain()
    while current is not widget and len(found) < count:
        if (current.isVisible() and current.isEnabled()
                and current.focusPolicy() & Qt.FocusPolicy.TabFocus == Qt.FocusPolicy.TabFocus):
            found.append(current)
        current = current.nextInFocusChain()
    return found


async def test_tab_goes_from_the_welcome_button_to_its_links_then_the_wall(qapp, tmp_path, wait):
    """打开设置, then 导入记忆文件… and 导入聊天记录… under it and the other language at the foot, then the
    wall: the links came after the whole wall (a dozen Tabs further)."""
    async with running_app(qapp, app_settings(tmp_path / "data")) as app:
        window = app.window
        await app.wall_loaded
        welcome = window.welcome
        first, second, third, fourth = _tab_stops_after(welcome.settings_button, 4)
        assert (first, second, third) == (welcome.import_button, welcome.history_button, welcome.language_button)
        assert app.wall.isAncestorOf(fourth)
