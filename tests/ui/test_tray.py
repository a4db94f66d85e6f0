"""Tray menu actions (through contextMenu().actions(), as the offscreen platform has no tray),
quick chat placement, pause / resume of the writer, and quit's ordered shutdown."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRect, QSize
from PySide6.QtWidgets import QToolButton

from llm_server import TextResponse
from shell_fixtures import OFFSCREEN_RAISE, OFFSCREEN_SIZE_HINTS, app_settings, running_app
from sonetto_desktop import ops
from sonetto_desktop.ui.wall.memory_model import CardRole
from sonetto_desktop.ui.tray.quick_chat import MARGIN, POPUP_SIZE, popup_position

SCREEN = QRect(0, 0, 1920, 1080)
SIZE = QSize(380, 460)


def _actions(app):
    return {a.text(): a for a in app.tray.contextMenu().actions() if a.text()}


async def test_menu_has_the_four_entries(qapp, tmp_path):
    async with running_app(qapp, app_settings(tmp_path / "data")) as app:
        texts = [a.text() for a in app.tray.contextMenu().actions() if not a.isSeparator()]
        assert texts == ["打开主窗口", "快速对话", "暂停记忆写入", "退出"]
        assert _actions(app)["暂停记忆写入"].isCheckable()


@pytest.mark.qt_log_ignore(OFFSCREEN_RAISE, OFFSCREEN_SIZE_HINTS)
async def test_quick_chat_opens_on_the_same_session_and_chats(qapp, tmp_path, llm_server, wait):
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        _actions(app)["快速对话"].trigger()
        popup = app.quick_chat
        assert popup.isVisible()
        screen = qapp.primaryScreen().availableGeometry()
        assert screen.contains(popup.frameGeometry().topLeft())
        llm_server.add_text("我在呢")
        llm_server.default = TextResponse("好的")  # the memory writer's call after the turn
        popup.composer.set_text("在吗")
        popup.composer.submit()
        await wait(lambda: not app.controller.busy and len(popup.view.bubbles) == 2, timeout=10)
        assert popup.view.bubbles[-1].text == "我在呢"
        # The main window's chat shows the same conversation.
        assert [b.text for b in app.window.chat_panel.view.bubbles] == ["在吗", "我在呢"]
        _actions(app)["快速对话"].trigger()  # toggles
        assert not popup.isVisible()


@pytest.mark.qt_log_ignore(OFFSCREEN_RAISE, OFFSCREEN_SIZE_HINTS)
async def test_without_a_model_the_quick_chat_brings_up_the_window_that_says_how_to_set_one_up(qapp, tmp_path):
    async with running_app(qapp, app_settings(tmp_path / "data")) as app:
        app.window.hide()
        _actions(app)["快速对话"].trigger()
        assert not app.quick_chat.isVisible()  # it could only answer "no model is configured"
        assert app.window.isVisible() and app.window.showing_welcome
        assert app.window.welcome.settings_button.isVisibleTo(app.window)


async def test_pause_toggles_the_writer(qapp, tmp_path):
    async with running_app(qapp, app_settings(tmp_path / "data")) as app:
        pause = _actions(app)["暂停记忆写入"]
        assert not app.writer.paused and not pause.isChecked()
        pause.trigger()
        assert app.writer.paused and pause.isChecked()
        assert app.window.status_indicator.state == "paused"
        pause.trigger()
        assert not app.writer.paused and not pause.isChecked()
        # Pausing from elsewhere (the writer itself) is reflected in the menu.
        app.writer.pause()
        await _settle()
        assert pause.isChecked()


async def _settle():
    import asyncio

    for _ in range(5):
        await asyncio.sleep(0.01)


@pytest.mark.qt_log_ignore(OFFSCREEN_RAISE, OFFSCREEN_SIZE_HINTS)
async def test_open_brings_the_window_back(qapp, tmp_path):
    async with running_app(qapp, app_settings(tmp_path / "data")) as app:
        app.window.hide()
        _actions(app)["打开主窗口"].trigger()
        assert app.window.isVisible()


async def test_quit_runs_the_ordered_shutdown(qapp, tmp_path):
    async with running_app(qapp, app_settings(tmp_path / "data")) as app:
        _actions(app)["退出"].trigger()
        assert app.quit_requested.is_set()
        await app.shutdown()
        assert app.shutdown_steps == [
            "input_stopped", "reply_cancelled", "tasks_done", "writer_drained", "stores_closed",
            "tray_hidden", "windows_closed",
        ]
        assert not app.controller.ready
        assert not app.writer.running
        assert not app.engine.started  # checkpointer and session db closed


async def test_unwritten_turns_stay_journaled_at_quit(qapp, tmp_path):
    from sonetto_desktop.memory.writer.journal import TurnJournal, default_journal_path

    data = tmp_path / "data"
    async with running_app(qapp, app_settings(data)) as app:
        app.writer.pause()
        await app.writer.send_history([{"role": "user", "content": "我下周去成都"},
                                    {"role": "assistant", "content": "好呀，玩得开心"}], session_id="s1")
        assert app.writer.pending == 1
        await app.shutdown()
        assert "writer_journaled" in app.shutdown_steps
    journal = TurnJournal(default_journal_path(data / "memory.yaml"))
    assert [e.session_id for e in journal.pending()] == ["s1"]


async def test_notifications_only_while_the_window_is_hidden(qapp, tmp_path):
    async with running_app(qapp, app_settings(tmp_path / "data")) as app:
        assert app.window.isVisible()
        assert app.tray.notify("Sonetto", "记住了") is False


def test_popup_sits_above_a_bottom_tray_icon():
    anchor = QRect(1800, 1050, 24, 24)
    pos = popup_position(SIZE, anchor, SCREEN)
    assert pos.y() + SIZE.height() <= anchor.top()
    assert pos.x() + SIZE.width() <= SCREEN.right() - MARGIN + 1


def test_popup_sits_below_a_top_tray_icon():
    anchor = QRect(1700, 0, 24, 24)
    pos = popup_position(SIZE, anchor, SCREEN)
    assert pos.y() >= anchor.bottom()


def test_popup_falls_back_to_the_screen_corner_without_a_tray_geometry():
    pos = popup_position(SIZE, QRect(), SCREEN)
    assert (pos.x() + SIZE.width(), pos.y() + SIZE.height()) == (SCREEN.right() - MARGIN, SCREEN.bottom() - MARGIN)


async def _cat_told_in_the_quick_chat(app, llm_server, wait):
    """A memory of the cat, the window in the tray, one turn about the cat in the quick chat (its reply
    shown): the memory's id and the quick chat."""
    cat = await app.service.submit(ops.AddMemory("用户养了一只叫年糕的橘猫", "生活"))
    await wait(lambda: app.wall.model.card(cat) is not None, message="card shown")
    app.window.hide()  # in the tray; the quick chat is the way in
    _actions(app)["快速对话"].trigger()
    popup = app.quick_chat
    llm_server.add_text("年糕还好吗")
    llm_server.default = TextResponse("好的")
    popup.composer.set_text("我的猫年糕今天又调皮了")
    popup.composer.submit()
    await wait(lambda: not app.controller.busy and len(popup.view.bubbles) == 2, timeout=10)
    return cat, popup


@pytest.mark.qt_log_ignore(OFFSCREEN_RAISE, OFFSCREEN_SIZE_HINTS)
async def test_a_memory_chip_in_the_quick_chat_opens_its_card(qapp, tmp_path, llm_server, wait):
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        await app.wall_loaded
        cat, popup = await _cat_told_in_the_quick_chat(app, llm_server, wait)
        chips = popup.view.bubbles[-1].chip_buttons()
        assert [chip.property("memory_id") for chip in chips] == [cat]
        chips[0].click()
        assert app.window.isVisible()
        await wait(lambda: app.wall.section("生活").view.currentIndex().data(CardRole.Id) == cat, message="card revealed")


@pytest.mark.qt_log_ignore(OFFSCREEN_RAISE, OFFSCREEN_SIZE_HINTS)
async def test_typing_in_either_composer_gets_the_chat_ready_and_an_idle_app_does_not(qapp, tmp_path, llm_server,
                                                                                     wait):
    """The first turn imports the LLM stack (~2 s); it starts when the person types, not at start-up."""
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        await app.wait_until_ready()
        assert app.engine.configured and not app.engine.prepared  # idle: nothing imported for a turn
        app.window.chat_panel.composer.set_text("   ")
        assert not app.engine.prepared  # blank is not typing
        _actions(app)["快速对话"].trigger()
        app.quick_chat.composer.set_text("在")
        await wait(lambda: app.engine.prepared, message="the chat getting ready")


@pytest.mark.qt_log_ignore(OFFSCREEN_RAISE, OFFSCREEN_SIZE_HINTS)
async def test_forgetting_from_the_quick_chat_while_the_window_is_hidden_is_said_where_the_person_is(
        qapp, tmp_path, llm_server, wait):
    """The window is in the tray; in the quick chat the person uses 忘掉这条 on a recalled memory's chip.
    What happened, with its 撤销, must show in the quick chat: a toast in the hidden window is seen by
    no one (the memory gone with no word, and no way to take it back)."""
    from sonetto_desktop.ui.notices.toasts import Toast

    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        await app.wall_loaded
        cat, popup = await _cat_told_in_the_quick_chat(app, llm_server, wait)
        bot = popup.view.bubbles[-1]
        [chip] = bot.chip_buttons()
        menu = bot.chip_menu(chip, cat)
        next(a for a in menu.actions() if a.text() == "忘掉这条").trigger()
        menu.deleteLater()
        await wait(lambda: cat not in app.services.memory.all_items(), message="to the trash")

        def seen() -> list:
            return [t for t in popup.findChildren(Toast) if t.isVisible() and t.text.startswith("已忘掉")]

        await wait(lambda: seen(), message="said in the quick chat, the window being hidden")
        assert not app.window.isVisible()
        seen()[0].action_button.click()  # 撤销
        await wait(lambda: cat in app.services.memory.all_items(), message="撤销 restores it")


@pytest.mark.qt_log_ignore(OFFSCREEN_RAISE, OFFSCREEN_SIZE_HINTS)
async def test_a_long_chat_title_never_pushes_the_quick_chat_off_the_screen(qapp, tmp_path, llm_server, wait):
    """The popup's header shows the chat's title; a long one (a first message's 24 characters, or a
    renamed chat) widened the popup past its 380 px, and beside a tray in the screen's corner its ✕ and
    send button were off the screen (seen in a real window). The title gives way, cut with "…"."""
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        title = "请帮我规划一下下个月去成都和重庆的七天旅行路线，预算五千元左右，最好能安排两天在重庆"
        await app.window.chat_panel.rename_session(app.controller.current_session_id, title)
        _actions(app)["快速对话"].trigger()
        popup = app.quick_chat
        await wait(lambda: popup.session_label.text() == title, message="the title shown")
        popup.show_near(QRect(1880, 1050, 24, 24))
        assert popup.minimumSizeHint().width() <= POPUP_SIZE.width(), popup.minimumSizeHint()
        assert popup.width() == POPUP_SIZE.width(), popup.width()
        close = next(b for b in popup.findChildren(QToolButton) if b.text() == "✕")
        assert popup.rect().contains(close.geometry()), (close.geometry(), popup.rect())
        assert popup.session_label.toolTip() == title  # the whole title, where it is cut


@pytest.mark.qt_log_ignore(OFFSCREEN_RAISE, OFFSCREEN_SIZE_HINTS)
async def test_ctrl_q_in_the_quick_chat_with_the_window_in_the_tray_quits_as_the_menu_does(
        qapp, tmp_path, llm_server, wait):
    """The window closed to the tray, the quick chat open (the only window): Ctrl+Q there quits as 文件 ▸ 退出
    does (the menu's shortcut lived on the hidden window's menu bar); the shutdown keeps what was typed,
    journals the writer's queue and shows no window on the way out."""
    from PySide6.QtCore import QEvent, QObject, Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication, QWidget

    from sonetto_desktop.memory.writer.journal import TurnJournal, default_journal_path

    data = tmp_path / "data"
    settings = app_settings(data, llm_server)
    async with running_app(qapp, settings) as app:
        app.writer.pause()
        await app.writer.send_history([{"role": "user", "content": "我下周去成都"},
                                       {"role": "assistant", "content": "好呀，玩得开心"}], session_id="s1")
        app.window.hide_to_tray = True  # (a desktop with a tray: the offscreen platform has none)
        app.window.close()  # closed to the tray
        await wait(lambda: not app.window.isVisible(), message="in the tray")
        _actions(app)["快速对话"].trigger()
        popup = app.quick_chat
        await wait(popup.isVisible, message="the quick chat")
        popup.activateWindow()
        await wait(lambda: QApplication.activeWindow() is popup, message="the quick chat active")
        popup.composer.input.setFocus()
        await wait(popup.composer.input.hasFocus, message="its input's focus")
        popup.composer.input.insertPlainText("周末想去爬山")

        class Shown(QObject):  # a window shown on the way out (a flash)
            def __init__(self) -> None:
                super().__init__()
                self.seen: list[str] = []

            def eventFilter(self, obj, event):
                if event.type() == QEvent.Type.Show and isinstance(obj, QWidget) and obj.isWindow():
                    self.seen.append(type(obj).__name__)
                return False

        watcher = Shown()
        qapp.installEventFilter(watcher)
        try:
            QTest.keyClick(popup.composer.input, Qt.Key.Key_Q, Qt.KeyboardModifier.ControlModifier)
            assert app.quit_requested.is_set()
            await app.shutdown()
        finally:
            qapp.removeEventFilter(watcher)
        assert "windows_closed" in app.shutdown_steps and "writer_journaled" in app.shutdown_steps
        assert watcher.seen == [], watcher.seen
    journal = TurnJournal(default_journal_path(data / "memory.yaml"))
    assert [e.session_id for e in journal.pending()] == ["s1"]
    async with running_app(qapp, settings) as app:  # what was typed in the quick chat is there again
        await wait(lambda: app.quick_chat.composer.text() == "周末想去爬山", message="the quick chat's draft")


@pytest.mark.qt_log_ignore(OFFSCREEN_RAISE, OFFSCREEN_SIZE_HINTS)
async def test_ctrl_q_in_the_quick_chat_beside_the_window_quits_once(qapp, tmp_path, llm_server, wait):
    """The window shown and the quick chat active: Ctrl+Q is one shortcut of the two windows (not an
    ambiguous pair that neither takes), and quits."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        assert app.window.isVisible()
        _actions(app)["快速对话"].trigger()
        popup = app.quick_chat
        await wait(popup.isVisible, message="the quick chat")
        popup.activateWindow()
        await wait(lambda: QApplication.activeWindow() is popup, message="the quick chat active")
        QTest.keyClick(popup.composer.input, Qt.Key.Key_Q, Qt.KeyboardModifier.ControlModifier)
        assert app.quit_requested.is_set()
