"""Changing the UI language in the settings takes effect at once, with no restart: every view says
its text in the new language (from resources/translations/sonetto_en.yaml), and what the person was
doing — the open chat, an unsent draft, a reply being streamed, the wall's search — carries over."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path

import pytest
import shiboken6
import yaml
from PySide6.QtCore import QCoreApplication, QTimer

from llm_server import TextResponse
from sonetto_desktop import ops
from sonetto_desktop.ui.wall.memory_model import CardRole
from sonetto_desktop.presentation.cards import DESCRIPTION, ID
from shell_fixtures import OFFSCREEN_RAISE, OFFSCREEN_SIZE_HINTS, app_settings, running_app

EN = yaml.safe_load((Path(__file__).resolve().parents[2] / "resources" / "translations" / "sonetto_en.yaml")
                    .read_text(encoding="utf-8"))
OFFSCREEN = pytest.mark.qt_log_ignore(OFFSCREEN_RAISE, OFFSCREEN_SIZE_HINTS)  # on each test: the conftest's would win


def _deleted(*objects) -> bool:
    """Whether Qt has deleted every one of ``objects`` (their ``deleteLater`` has run). Waited for
    with ``wait``: calling processEvents inside a coroutine would re-enter the asyncio loop."""
    return not any(shiboken6.isValid(obj) for obj in objects)


def _texts(app) -> dict[str, str]:
    """The texts that must follow the language, one per part of the UI."""
    window = app.window
    composer = window.chat_panel.composer
    assert composer.input.placeholderText() in composer.hints  # the short one where the input is narrow
    return {
        "title": window.windowTitle(),
        "file_menu": window.menuBar().actions()[0].text(),
        "settings_action": window.menus.settings_action.text(),
        "placeholder": composer.hints[0],
        "sessions_title": window.chat_panel.findChild(type(window.chat_panel.no_hits), "PaneTitle").text(),
        "wall_search": app.wall.search_edit.placeholderText(),
        "wall_sort": app.wall.sort_combo.itemText(0),
        "tray_open": app.tray.menu.actions()[0].text(),
        "tray_pause": app.writer_control.pause_action.text(),
        "quick_title": app.quick_chat.windowTitle(),
        "settings_tip": window.settings_button.toolTip(),
    }


CHINESE = {
    "title": "记忆伙伴 · Sonetto",
    "file_menu": "文件(&F)",
    "settings_action": "设置…",
    "placeholder": "和 Sonetto 说点什么…（Enter 发送，Shift+Enter 换行）",
    "sessions_title": "对话",
    "wall_search": "搜索记忆",
    "wall_sort": "最近更新",
    "tray_open": "打开主窗口",
    "tray_pause": "暂停记忆写入",
    "quick_title": "快速对话",
    "settings_tip": "设置",
}
ENGLISH = {
    "title": EN["MainWindow"]["记忆伙伴 · Sonetto"],
    "file_menu": EN["MainWindow"]["文件(&F)"],
    "settings_action": EN["MainWindow"]["设置…"],
    "placeholder": EN["Composer"]["和 Sonetto 说点什么…（Enter 发送，Shift+Enter 换行）"],
    "sessions_title": EN["ChatPanel"]["对话"],
    "wall_search": EN["WallToolbar"]["搜索记忆"],
    "wall_sort": EN["WallToolbar"]["最近更新"],
    "tray_open": EN["Tray"]["打开主窗口"],
    "tray_pause": EN["WriterControl"]["暂停记忆写入"],
    "quick_title": EN["QuickChat"]["快速对话"],
    "settings_tip": EN["MainWindow"]["设置"],
}



async def _switch_doing(app, language: str, turn) -> None:
    """``_switch``, with ``turn()`` called at every turn of the event loop while the new views are made
    (what a person types or chooses meanwhile)."""
    ticker = QTimer()
    ticker.timeout.connect(turn)
    ticker.start(0)
    try:
        await _switch(app, language)
    finally:
        ticker.stop()


async def _switch(app, language: str) -> None:
    """The way the settings dialog's 保存 applies a language (shell.SonettoApp.apply_settings)."""
    await app.apply_settings(dataclasses.replace(app.settings, language=language))


@OFFSCREEN
async def test_switching_the_language_retranslates_every_view_and_keeps_what_was_open(qapp, tmp_path, llm_server, wait):
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        await app.wall_loaded
        llm_server.default = TextResponse("好的")  # the memory writer's calls
        llm_server.add_text("你好，我记得你喜欢猫。")
        app.controller.send("我喜欢猫")
        await wait(lambda: not app.controller.busy, timeout=30, message="first reply")  # the first turn imports LangChain
        session = app.controller.current_session_id
        await app.service.submit(ops.AddMemory("用户喜欢爬山", "爱好"))
        await wait(lambda: app.wall.model.rowCount() >= 1, message="card shown")
        app.wall.search_edit.setText("爬山")
        app.wall.set_search("爬山")
        app.window.chat_panel.composer.set_text("还没发出去的话")
        app.window.resize(700, 520)
        assert _texts(app) == CHINESE
        old_window, old_wall, old_menu = app.window, app.wall, app.tray.menu

        await _switch(app, "en")
        assert _texts(app) == ENGLISH
        # As big as it was (English may need a wider minimum than 700 px: the height tells).
        assert app.window.isVisible() and app.window.height() == 520
        assert app.window.chat_panel.composer.text() == "还没发出去的话"
        await wait(lambda: app.controller.current_session_id == session
                   and [b.text for b in app.window.chat_panel.view.bubbles] == ["我喜欢猫", "你好，我记得你喜欢猫。"],
                   message="the open chat shown again")
        await wait(lambda: app.wall.search_edit.text() == "爬山" and app.wall.model.rowCount() >= 1,
                   message="the wall's search kept")
        await wait(lambda: _deleted(old_window, old_wall, old_menu), message="the old views deleted")

        # The long-lived parts reach only the new views (a signal to a deleted one would raise).
        # The writer's call for the first turn must not take the scripted reply: it answers from the default.
        await wait(lambda: app.writer.pending == 0 and not app.writer.busy, timeout=15, message="the writer idle")
        llm_server.add_text("Still here.")
        app.window.chat_panel.composer.set_text("hello")
        app.window.chat_panel.composer.submit()
        await wait(lambda: not app.controller.busy and app.window.chat_panel.view.bubbles[-1].text == "Still here.",
                   timeout=15, message="reply in the new view")
        await app.service.submit(ops.AddMemory("用户在学日语", "学习"))
        await wait(lambda: any(c[DESCRIPTION] == "用户在学日语" for c in app.wall.model.cards()), message="new card")

        await _switch(app, "zh_CN")
        assert _texts(app) == CHINESE
        await wait(lambda: app.controller.current_session_id == session
                   and app.window.chat_panel.view.bubbles[-1].text == "Still here.", message="chat kept")


def _a_long_reply_next(llm_server) -> str:
    """The next reply streams slowly (4 characters every 30 ms) and long; what it says."""
    llm_server.default = TextResponse("好的")
    reply = "这是一个很长的回答，" * 12
    llm_server.chunk_size, llm_server.chunk_delay = 4, 0.03
    llm_server.add_text(reply)
    return reply


@OFFSCREEN
async def test_a_streaming_reply_is_not_cut_by_a_language_switch(qapp, tmp_path, llm_server, wait):
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        await app.wall_loaded
        reply = _a_long_reply_next(llm_server)
        app.controller.send("讲个长故事")
        panel = app.window.chat_panel
        await wait(lambda: len(panel.view.bubbles) == 2 and panel.view.bubbles[-1].text, message="streaming")
        old_window = app.window

        await _switch(app, "en")
        assert app.controller.busy  # the reply goes on
        # (in the new language; test_translations checks that every string has its English)
        waiting = QCoreApplication.translate("SonettoApp", "这条回复结束后，界面会切换语言。")
        assert any(t.text == waiting for t in app.toasts.toasts()), [t.text for t in app.toasts.toasts()]
        await wait(lambda: app.window is not old_window, timeout=15, message="views rebuilt after the reply")
        assert not app.controller.busy
        assert _texts(app) == ENGLISH
        # The done toast is a success toast of its own (not the waiting one's text refreshed), and the
        # waiting one, no longer true, is gone.
        done = QCoreApplication.translate("SonettoApp", "界面语言已切换。")
        assert [(t.text, t.kind) for t in app.toasts.toasts() if t.text in (waiting, done)] == [(done, "success")]
        await wait(lambda: [b.text for b in app.window.chat_panel.view.bubbles] == ["讲个长故事", reply],
                   message="the whole reply in the new view")
        await wait(lambda: _deleted(old_window), message="the old window deleted")


@OFFSCREEN
async def test_the_wall_quick_chat_and_open_dialogs_after_a_switch(qapp, tmp_path, llm_server, wait):
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:  # (a model: the quick chat opens)
        await app.wall_loaded

        def fill() -> None:
            for t in range(8):
                for n in range(10):
                    app.service.memory.add(f"主题{t}的第{n}条记忆：写一句中等长度的话", f"主题{t}", reason="test")

        await asyncio.to_thread(fill)
        await wait(lambda: app.wall.model.rowCount() == 80, message="cards shown")
        wall = app.wall
        wall.set_filter("user")
        wall.set_sort_mode("hits")
        await wait(lambda: wall.section("主题5") is not None and not wall.section("主题5").isHidden())
        for _ in range(40):  # the sections just shown laid out (their cards sized a few turns later), as
            assert wall.jump_to("主题5")  # they are by the time a person clicks in the outline
            await asyncio.sleep(0.05)
            if wall.current_theme() == "主题5":
                break
        section = wall.section("主题5")
        first = section.proxy.ids()[0]
        section.view.selectionModel().select(section.proxy.index_of(first),
                                             section.view.selectionModel().SelectionFlag.Select)
        assert wall.selected_ids() == [first] and wall.current_theme() == "主题5"
        assert wall.model.index(0, 0).data(CardRole.RelativeTime) == "刚刚"
        app.show_quick_chat()
        app.quick_chat.composer.set_text("快速对话里的草稿")
        shortcuts = app.window.menus.shortcuts_action
        shortcuts.trigger()
        dialog = app.window.shortcuts_dialog
        assert dialog.isVisible()

        await _switch(app, "en")
        assert app.quick_chat.isVisible() and app.quick_chat.windowTitle() == ENGLISH["quick_title"]
        assert app.quick_chat.composer.text() == "快速对话里的草稿"
        new_wall = app.wall
        assert new_wall is not wall
        await wait(lambda: new_wall.model.rowCount() == 80 and new_wall.selected_ids() == [first]
                   and new_wall.current_theme() == "主题5", message="the wall as it was")
        assert new_wall.filter_name() == "user" and new_wall.sort_mode() == "hits"
        assert new_wall.sort_combo.currentText() == EN["WallToolbar"]["用到最多"]
        assert new_wall.model.index(0, 0).data(CardRole.RelativeTime) == "just now"  # ui_language() follows
        await wait(lambda: _deleted(dialog, wall), message="the old wall and its dialog deleted")


@OFFSCREEN
async def test_the_settings_dialog_switches_the_language_without_a_restart_box(qapp, tmp_path, wait):
    from PySide6.QtWidgets import QApplication, QLabel, QMessageBox

    async with running_app(qapp, app_settings(tmp_path / "data"), interactive=True) as app:
        old_window = app.window
        dialog = app.open_settings()
        assert not [label for label in dialog.findChildren(QLabel) if "重新启动" in label.text()]  # no restart
        dialog.language.setCurrentIndex(dialog.language.findData("en"))
        assert await dialog.save()
        await wait(lambda: app.window is not old_window and app.window.windowTitle() == ENGLISH["title"],
                   message="the window in English")
        assert app.window.welcome.isVisible() and app.window.isVisible()
        assert not [w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()]
        done = QCoreApplication.translate("SonettoApp", "界面语言已切换。")
        assert [t.text for t in app.toasts.toasts() if t.key == "language"] == [done]
        await wait(lambda: _deleted(old_window, dialog), message="the old window and the settings deleted")
        english_window = app.window
        dialog = app.open_settings()  # and back, while the first "done" toast still shows
        dialog.language.setCurrentIndex(dialog.language.findData("zh_CN"))
        assert await dialog.save()
        await wait(lambda: app.window is not english_window and app.window.windowTitle() != ENGLISH["title"],
                   message="the window in Chinese")
        [toast] = [t for t in app.toasts.toasts() if t.key == "language"]
        assert toast.repeats == 1 and toast.text == "界面语言已切换。"  # news of its own, not "×2"


@OFFSCREEN
async def test_the_welcome_panel_offers_the_other_language_and_keeps_it(qapp, tmp_path, wait):
    """A new person who reads no Chinese met a first screen in Chinese with the language deep in the
    settings; the welcome panel names the other language in itself, and choosing it is saved."""
    from sonetto_desktop.config.settings import load_settings

    async with running_app(qapp, app_settings(tmp_path / "data"), interactive=True) as app:
        old_window = app.window
        welcome = app.window.welcome
        assert welcome.isVisible() and welcome.language_button.text() == "English"
        welcome.language_button.click()
        await wait(lambda: app.window is not old_window and app.window.windowTitle() == ENGLISH["title"],
                   message="the window in English")
        assert load_settings(with_secret=False).language == "en"  # the next start opens in English too
        assert app.window.welcome.language_button.text() == "中文"
        english_window = app.window
        app.window.welcome.language_button.click()
        await wait(lambda: app.window is not english_window and app.window.windowTitle() != ENGLISH["title"],
                   message="back in Chinese")
        assert load_settings(with_secret=False).language == "zh_CN"


async def _settled(view, wait) -> None:
    """Until the view stopped stepping towards its restore target, and one more turn of the Qt loop
    (a scroll queued with ``later`` before this one has run)."""
    from sonetto_desktop.ui.widgets.deferred import later

    await wait(lambda: view._target is None, message="the view at its target")
    turned: list[bool] = []
    later(view, lambda: turned.append(True))
    await wait(lambda: turned, message="one more loop turn")


@OFFSCREEN
@pytest.mark.parametrize("where", ["middle", "top"])
async def test_the_chat_stays_where_the_person_was_reading(qapp, tmp_path, llm_server, wait, where):
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        llm_server.default = TextResponse("好的")
        llm_server.add_text("\n\n".join(f"第{n}段：一段足够长的回答，让对话需要滚动才能读完。" for n in range(40)))
        app.controller.send("讲长一点")
        await wait(lambda: not app.controller.busy, timeout=30, message="reply")  # the first turn imports LangChain
        bar = app.window.chat_panel.view.verticalScrollBar()
        await wait(lambda: bar.maximum() > 600, message="a long chat")
        bar.setValue(bar.maximum() // 2 if where == "middle" else 0)
        reading = bar.value()

        old_view = app.window.chat_panel.view
        await _switch(app, "en")
        view = app.window.chat_panel.view
        assert view is not old_view  # a new view, in English
        assert app.window.chat_panel.composer.hints[0] == ENGLISH["placeholder"]
        new_bar = view.verticalScrollBar()
        await wait(lambda: new_bar.maximum() > 600 and abs(new_bar.value() - reading) <= 8,
                   message=f"scrolled back to {reading}")
        await _settled(view, wait)
        assert new_bar.maximum() > 600 and abs(new_bar.value() - reading) <= 8, (new_bar.value(), reading)


@OFFSCREEN
async def test_a_writer_toast_kept_across_a_switch_still_undoes_and_reveals(qapp, tmp_path, llm_server, wait):
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        await app.wall_loaded
        llm_server.add_text("好呀")
        llm_server.add_tool_calls([("create_memory", {"content": "用户喜欢山竹", "section": "品味"})])
        llm_server.add_text("已记录。")
        app.controller.send("我喜欢山竹")
        await wait(lambda: any(t.text == "记住了：用户喜欢山竹" for t in app.toasts.toasts()), message="the turn toast")
        [mid] = app.services.memory.all_items()
        [toast] = [t for t in app.toasts.toasts() if t.action_button is not None]
        old_window = app.window

        await _switch(app, "en")
        await wait(lambda: _deleted(old_window), message="the old window deleted")
        assert toast in app.toasts.toasts()  # kept, by design
        # and said in English, its button too (it kept its Chinese before)
        assert toast.text == EN["WriterToasts"]["记住了：{0}"].format("用户喜欢山竹"), toast.text
        assert toast.action_button.text() == EN["WriterToasts"]["撤销"]
        wall = app.wall
        await wait(lambda: wall.model.card(mid) is not None, message="the card in the new wall")
        revealed: list[str] = []
        wall.card_revealed.connect(revealed.append)
        toast._on_click()  # what a click on the toast calls
        assert revealed == [mid]

        toast.action_button.click()
        await wait(lambda: mid not in app.services.memory.all_items(), message="the turn undone in the store")
        done = QCoreApplication.translate("WriterToasts", "已撤销这轮的 %Ln 处记忆变化", "", 1)
        await wait(lambda: any(t.text == done and t.kind == "success" for t in app.toasts.toasts()),
                   message="the undo says what it did")


def _open_boxes(parent):
    from PySide6.QtWidgets import QMessageBox

    return [box for box in parent.findChildren(QMessageBox) if box.isVisible()]


@OFFSCREEN
async def test_the_store_problem_box_is_shown_again_after_a_switch(qapp, tmp_path, wait):
    data = tmp_path / "data"
    data.mkdir(parents=True)
    (data / "memory.yaml").write_text("a: [unclosed\n  - this is not yaml: {\n", encoding="utf-8")
    async with running_app(qapp, app_settings(data), interactive=True) as app:
        await wait(lambda: _open_boxes(app.window), message="the store problem box")
        old_window = app.window

        await _switch(app, "en")
        [box] = _open_boxes(app.window)  # not silently dropped with the old window
        assert box.windowTitle() == EN["SonettoApp"]["记忆库有问题"]  # in the new language
        assert "memory.yaml" in box.detailedText()
        await wait(lambda: _deleted(old_window), message="the old window deleted")
        box.close()


@OFFSCREEN
async def test_the_migration_problem_box_is_shown_again_after_a_switch(qapp, tmp_path, wait):
    from sonetto_desktop.memory.stores.migrate import make_store

    data = tmp_path / "data"
    data.mkdir(parents=True)
    for backend, file, text in (("yaml", "memory.yaml", "用户喜欢猫"), ("sqlite", "memory.db", "用户喜欢狗")):
        store = make_store(backend, data / file)  # both hold memories: the switch to SQLite cannot finish
        store.add(text, "爱好")
        store.close()
    async with running_app(qapp, app_settings(data, store_backend="sqlite"), interactive=True) as app:
        assert app.services.migration_problem is not None
        [box] = _open_boxes(app.window)

        await _switch(app, "en")
        assert not shiboken6.isValid(box) or not box.isVisible()
        [again] = _open_boxes(app.window)
        assert again.windowTitle() == EN["StartProblems"]["切换存储方式没有完成"]
        assert again.informativeText() == app.services.migration_problem.en
        again.close()


@OFFSCREEN
async def test_a_chat_that_cannot_be_read_again_after_a_switch_is_said(qapp, tmp_path, llm_server, wait):
    import sqlite3

    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        await app.wall_loaded
        llm_server.default = TextResponse("好的")
        llm_server.add_text("你好呀。")
        app.controller.send("你好")
        await wait(lambda: not app.controller.busy, timeout=30, message="reply")
        session = app.controller.current_session_id
        # The transcript on disk goes bad (another program, a disk error): its memories are no JSON.
        with sqlite3.connect(tmp_path / "data" / "sessions.db") as db:
            db.execute("UPDATE chat_entries SET memories = '[broken' WHERE session_id = ?", (session,))

        await _switch(app, "en")
        # (in the new language; test_translations checks that every string has its English)
        said = QCoreApplication.translate("SonettoApp", "切换语言后没能重新显示这段对话：{0}").split("{0}")[0]
        await wait(lambda: any(t.kind == "error" and t.text.startswith(said) for t in app.toasts.toasts()),
                   message="an error toast, not only a log line")


@OFFSCREEN
async def test_the_new_views_are_made_over_several_turns_of_the_loop_the_old_ones_on_screen(qapp, tmp_path, wait):
    """Issue 37: the window, chat panel and wall made anew in one pass held the Qt thread 40-70 ms. They
    are made a part per turn of the event loop, while the old window is still shown and still the
    app's; the person never sees a half-made window, nor no window at all."""
    from PySide6.QtWidgets import QApplication

    from sonetto_desktop.ui.main_window import MainWindow
    from sonetto_desktop.ui.wall.memory_wall import MemoryWall

    async with running_app(qapp, app_settings(tmp_path / "data")) as app:
        await app.wall_loaded
        old_window, old_wall = app.window, app.wall
        seen: list[tuple[bool, bool]] = []  # each turn of the loop mid-switch: (the new wall made, the old window shown)

        def turn() -> None:
            new = [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow) and w is not old_window
                   and shiboken6.isValid(w)]
            if new and app.window is old_window:
                seen.append((isinstance(new[0].wall, MemoryWall), old_window.isVisible()))

        await _switch_doing(app, "en", turn)
        assert _texts(app) == ENGLISH and app.window.isVisible()
        assert _deleted(old_window) or not old_window.isVisible()
        assert app.wall is not old_wall
        # the window made in one turn, its wall in a later one, the old window shown all along
        assert (False, True) in seen and (True, True) in seen, seen
        assert all(shown for _, shown in seen), seen


@OFFSCREEN
async def test_a_reply_asked_for_while_the_new_views_are_made_is_not_cut(qapp, tmp_path, llm_server, wait):
    """A message sent from the old window while the new views are being made starts a reply: the switch
    waits for it, as for one already streaming, and the whole reply is in the new window."""
    from PySide6.QtWidgets import QApplication

    from sonetto_desktop.ui.main_window import MainWindow

    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        await app.wall_loaded
        reply = _a_long_reply_next(llm_server)
        old_window = app.window
        sent: list[bool] = []

        def turn() -> None:
            new = [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow) and w is not old_window
                   and shiboken6.isValid(w)]
            if new and app.window is old_window and not sent:
                app.controller.send("讲个长故事")  # Enter pressed in the old window mid-switch
                sent.append(True)

        ticker = QTimer()
        ticker.timeout.connect(turn)
        ticker.start(0)
        try:
            await _switch(app, "en")
            await wait(lambda: app.window is not old_window and not app.controller.busy, timeout=20,
                       message="the reply over and the views rebuilt")
        finally:
            ticker.stop()
        assert sent
        assert _texts(app) == ENGLISH
        await wait(lambda: [b.text for b in app.window.chat_panel.view.bubbles] == ["讲个长故事", reply],
                   message="the whole reply in the new view")


@OFFSCREEN
async def test_what_is_typed_or_chosen_while_the_new_views_are_made_carries_over(qapp, tmp_path, wait):
    """The new views are made over several turns of the loop, the old window on screen and usable
    meanwhile: what the person types into the draft, the quick chat or the wall's search (still in its
    debounce), and the cards they select there, in those turns, are in the new views."""
    from PySide6.QtGui import QInputMethodEvent, QTextCursor
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from sonetto_desktop.ui.main_window import MainWindow

    async with running_app(qapp, app_settings(tmp_path / "data")) as app:
        await app.wall_loaded
        await app.service.submit(ops.AddMemory("用户喜欢爬山", "爱好"))
        await app.service.submit(ops.AddMemory("用户喜欢游泳", "爱好"))
        await wait(lambda: app.wall.model.rowCount() == 2, message="cards shown")
        old_window, old_wall = app.window, app.wall
        old_window.chat_panel.composer.set_text("先写的")
        old_window.chat_panel.composer.input.moveCursor(QTextCursor.MoveOperation.End)  # typing on after it
        app.show_quick_chat()
        old_quick = app.quick_chat
        chosen = next(c[ID] for c in old_wall.model.cards() if c[DESCRIPTION] == "用户喜欢爬山")
        typed: list[bool] = []

        def turn() -> None:
            new = [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow) and w is not old_window
                   and shiboken6.isValid(w)]
            if new and app.window is old_window and not typed:  # a build step done, the old views still the app's
                QTest.keyClicks(old_window.chat_panel.composer.input, " and more")
                QTest.keyClicks(old_quick.composer.input, "quick")
                commit = QInputMethodEvent()  # 爬山 from the input method, as a person types Chinese
                commit.setCommitString("爬山")
                QApplication.sendEvent(old_wall.search_edit, commit)  # its debounce has not run yet
                old_wall.select_ids([chosen])
                typed.append(True)

        await _switch_doing(app, "en", turn)
        assert typed and app.window is not old_window
        assert app.window.chat_panel.composer.text() == "先写的 and more"
        assert app.quick_chat.composer.text() == "quick"
        QTest.keyClicks(app.window.chat_panel.composer.input, "!")  # typing on: where the cursor was
        assert app.window.chat_panel.composer.text() == "先写的 and more!"
        wall = app.wall
        await wait(lambda: wall.search_edit.text() == "爬山" and wall.selected_ids() == [chosen],
                   message="the search typed and the card selected mid-switch kept")
        assert wall.search_text() == "爬山"  # applied, not only shown
        assert wall.section("爱好").proxy.ids() == [chosen]


@OFFSCREEN
async def test_a_search_typed_in_the_new_wall_before_it_is_restored_is_not_replaced(qapp, tmp_path, wait):
    """The new wall is shown before it has read the store; the old search is put back once it has. A
    search the person types into the new box meanwhile is theirs: not replaced by the old one."""
    from PySide6.QtTest import QTest

    async with running_app(qapp, app_settings(tmp_path / "data")) as app:
        await app.wall_loaded
        await app.service.submit(ops.AddMemory("用户喜欢爬山", "爱好"))
        await app.service.submit(ops.AddMemory("用户喜欢游泳", "爱好"))
        await wait(lambda: app.wall.model.rowCount() == 2, message="cards shown")
        old_wall = app.wall
        old_wall.set_search("爬山")
        typed: list[bool] = []

        def turn() -> None:
            wall = app.wall
            if wall is not old_wall and shiboken6.isValid(wall) and not typed:  # the new wall shown, not restored
                assert wall.search_edit.text() == ""
                QTest.keyClicks(wall.search_edit, "swim")
                typed.append(True)

        await _switch_doing(app, "en", turn)
        assert typed
        wall = app.wall
        await wait(lambda: wall.search_text() == "swim", message="the search typed into the new wall applied")
        assert wall.search_edit.text() == "swim"


@OFFSCREEN
async def test_a_switch_waiting_for_a_reply_does_not_close_a_dialog_the_person_is_typing_in(
        qapp, tmp_path, llm_server, wait):
    """The switch asked for during a reply comes when the reply ends, whatever the person is doing
    then: it closed the card they were editing, and what they had typed was lost. A dialog they have
    typed into is left open; the switch comes once it is closed (and what they typed saved)."""
    from PySide6.QtTest import QTest

    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        await app.wall_loaded
        await app.service.submit(ops.AddMemory("用户喜欢爬山", "爱好"))
        await wait(lambda: app.wall.model.rowCount() == 1, message="card shown")
        [mid] = app.services.memory.all_items()
        reply = _a_long_reply_next(llm_server)
        app.controller.send("讲个长故事")
        panel = app.window.chat_panel
        await wait(lambda: len(panel.view.bubbles) == 2 and panel.view.bubbles[-1].text, message="streaming")
        old_window = app.window
        await _switch(app, "en")  # waits for the reply
        dialog = app.wall.actions.edit_card(mid)
        QTest.keyClicks(dialog.description_edit, ", every weekend")
        await wait(lambda: not app.controller.busy, timeout=20, message="the reply over")
        await wait(lambda: app.window.chat_panel.view.bubbles[-1].text == reply, message="the whole reply")
        await asyncio.sleep(0.3)  # (time enough for the switch that came at once before)
        assert app.window is old_window
        assert shiboken6.isValid(dialog) and dialog.isVisible()
        assert dialog.description_edit.toPlainText() == "用户喜欢爬山, every weekend"
        waiting = QCoreApplication.translate("SonettoApp", "关掉正在编辑的对话框后，界面会切换语言。")
        assert any(t.text == waiting for t in app.toasts.toasts()), [t.text for t in app.toasts.toasts()]

        dialog.accept()  # 保存
        await wait(lambda: app.services.memory.get(mid).description == "用户喜欢爬山, every weekend",
                   message="what was typed saved")
        await wait(lambda: app.window is not old_window, timeout=10, message="the switch once the dialog closed")
        assert _texts(app) == ENGLISH
        assert not any(t.text == waiting for t in app.toasts.toasts())


@OFFSCREEN
async def test_the_import_window_and_the_file_it_read_stay_across_the_welcome_panels_language(qapp, tmp_path, wait):
    """The welcome panel offers 导入聊天记录… and, below it, the other language: a person who opened the
    import's (non-modal) window, read a file and could not read its preview chose English, and the window
    was gone with the file it had read. It opens again on the new window, in English, on that file."""
    from history_helpers import fixture

    async with running_app(qapp, app_settings(tmp_path / "data"), interactive=True) as app:
        old_window = app.window
        old_window.welcome.history_button.click()
        dialog = app.history_imports.dialog
        await wait(lambda: dialog is not None and dialog.isVisible(), message="the import window")
        assert await dialog.open_path(fixture("chatgpt_conversations.json"))
        assert dialog.stack.currentWidget() is dialog.preview_page
        await wait(lambda: dialog.plan is not None, message="the file's plan")
        first_day = dialog.since.date()
        assert dialog.until.date() > first_day
        dialog.until.setDate(first_day)  # the person's choice: the first day only
        old_window.welcome.language_button.click()
        await wait(lambda: app.window is not old_window and app.window.windowTitle() == ENGLISH["title"],
                   message="the window in English")
        await wait(lambda: app.history_imports.dialog is not None and app.history_imports.dialog is not dialog
                   and shiboken6.isValid(app.history_imports.dialog) and app.history_imports.dialog.isVisible(),
                   message="the import window open again")
        again = app.history_imports.dialog
        assert again.parent() is app.window and again.windowTitle() == EN["HistoryImportDialog"]["导入聊天记录"]
        await wait(lambda: again.stack.currentWidget() is again.preview_page and again.plan is not None,
                   message="the file's preview again")
        assert "chatgpt_conversations.json" in again.preview_title.text()
        await wait(lambda: again.until.date() == first_day and again.since.date() == first_day,
                   message=lambda: f"the dates chosen: {again.since.date()} - {again.until.date()}")
        again.reject()


@OFFSCREEN
async def test_what_is_pasted_in_the_import_window_does_not_hold_up_the_welcome_panels_language(qapp, tmp_path, wait):
    """With memories pasted in the import's window, English on the welcome panel did nothing but say, in
    Chinese, to close the dialog being edited first (closing it lost the paste): the very person who
    cannot read Chinese was stuck. The switch happens; the window opens again with the paste and format."""
    async with running_app(qapp, app_settings(tmp_path / "data"), interactive=True) as app:
        old_window = app.window
        old_window.welcome.history_button.click()
        dialog = app.history_imports.dialog
        await wait(lambda: dialog is not None and dialog.isVisible(), message="the import window")
        dialog.format_box.setCurrentIndex(dialog.format_box.findData("claude"))
        dialog.paste_box.setFocus()
        dialog.paste_box.insertPlainText("- I like hand-drip coffee\n- I live in Hangzhou")
        old_window.welcome.language_button.click()
        await wait(lambda: app.window is not old_window and app.window.windowTitle() == ENGLISH["title"],
                   message=lambda: "the window in English; toasts: " + repr([t.text for t in app.toasts.toasts()]))
        await wait(lambda: app.history_imports.dialog is not dialog and shiboken6.isValid(app.history_imports.dialog)
                   and app.history_imports.dialog.isVisible(), message="the import window open again")
        again = app.history_imports.dialog
        assert again.paste_box.toPlainText() == "- I like hand-drip coffee\n- I live in Hangzhou"
        assert again.format_box.currentData() == "claude"
        again.reject()
