"""Memory you control, from the chat (issue 12): temporary chats and per-chat switches with the mode
always shown; a user message's 撤销这轮的记忆变化 / 别记住这个; 忘掉这条 on a recalled-memory chip.
The whole app with the scripted model server (reply + writer) on a temp data dir."""

from __future__ import annotations

import asyncio

import pytest
import shiboken6

from shell_fixtures import OFFSCREEN_RAISE, OFFSCREEN_SIZE_HINTS, app_settings, running_app


async def settle(app) -> None:
    for _ in range(400):
        if app.writer.pending == 0 and not app.writer.busy:
            return
        await asyncio.sleep(0.025)
    raise AssertionError("the writer did not finish")


async def send(app, wait, text: str) -> None:
    panel = app.window.chat_panel
    panel.composer.set_text(text)
    panel.composer.submit()
    await wait(lambda: app.controller.busy, message="turn started")
    await wait(lambda: not app.controller.busy, timeout=10, message="turn finished")
    await settle(app)


async def test_a_temporary_chat_says_so_and_cannot_be_switched_on(qapp, tmp_path, llm_server, wait):
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        panel = app.window.chat_panel
        await panel.new_session(temporary=True)
        bar = panel.memory_bar
        assert bar.mode == "temporary" and "临时对话" in bar.label.text()
        assert not bar.menu_button.isEnabled()
        item = panel.session_list.currentItem()
        assert item.text().startswith("（临时）") and item.font().italic()
        llm_server.add_text("好呀")
        await send(app, wait, "我今天想去爬山")
        assert app.services.memory.count() == 0 and len(llm_server.requests) == 1  # no writer call


async def test_switches_for_one_chat_and_the_bar_follows(qapp, tmp_path, llm_server, wait):
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        panel = app.window.chat_panel
        await panel.new_session()
        bar = panel.memory_bar
        assert bar.mode == "on" and bar.write_action.isChecked()
        bar.write_action.setChecked(False)  # what the 记忆 menu's item does
        await wait(lambda: bar.mode == "no_write", message="writing switched off for this chat")
        info = await app.engine.session(app.controller.current_session_id)
        assert info.recall and not info.write
        llm_server.add_text("好呀")
        await send(app, wait, "我喜欢山竹")
        assert app.services.memory.count() == 0 and len(llm_server.requests) == 1


async def test_undo_and_dont_remember_from_a_user_message(qapp, tmp_path, llm_server, wait):
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        panel = app.window.chat_panel
        await panel.new_session()
        llm_server.add_text("嗯嗯")
        llm_server.add_tool_calls([("create_memory", {"content": "用户最近在看心理医生", "section": "身份"})])
        llm_server.add_text("已记录。")
        await send(app, wait, "我最近在看心理医生")
        assert app.services.memory.count() == 1
        user = panel.view.bubbles[0]
        assert user.turn_id
        user.memory_button.menu().aboutToShow.emit()
        assert user.forget_turn_action.isEnabled()
        user.forget_turn_action.trigger()
        await wait(lambda: app.services.memory.count() == 0, message="the turn's memory taken back")
        assert [e.text for e in app.services.dont_remember.entries()] == ["我最近在看心理医生"]
        await wait(lambda: any("以后也不会记住" in t.text for t in app.toasts.toasts()), message="said")


async def test_forget_a_recalled_memory_from_its_chip_and_undo(qapp, tmp_path, llm_server, wait):
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        mid = app.services.memory.add("用户养了一只叫年糕的橘猫", "生活").ids[0]
        panel = app.window.chat_panel
        await panel.new_session()
        llm_server.add_text("年糕好可爱")
        llm_server.add_text("本轮无需记录")
        await send(app, wait, "年糕今天又调皮了")
        bot = panel.view.bubbles[1]
        [chip] = bot.chip_buttons()
        menu = bot.chip_menu(chip, chip.property("memory_id"))  # what a right-click on the chip pops up
        forget = next(a for a in menu.actions() if a.text() == "忘掉这条")
        forget.trigger()
        menu.deleteLater()
        await wait(lambda: mid not in app.services.memory.all_items(), message="to the trash")
        await wait(lambda: any(t.text.startswith("已忘掉") for t in app.toasts.toasts()), message="a toast")
        toast = next(t for t in app.toasts.toasts() if t.text.startswith("已忘掉"))
        toast.action_button.click()
        await wait(lambda: mid in app.services.memory.all_items(), message="撤销 restores it")


@pytest.mark.qt_log_ignore(OFFSCREEN_RAISE, OFFSCREEN_SIZE_HINTS)  # the window is raised to the chat
async def test_the_history_opens_the_chat_message_behind_a_change(qapp, tmp_path, llm_server, wait):
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        panel = app.window.chat_panel
        await panel.new_session()
        first_session = app.controller.current_session_id
        llm_server.add_text("好呀")
        llm_server.add_tool_calls([("create_memory", {"content": "用户喜欢山竹", "section": "品味"})])
        llm_server.add_text("已记录。")
        await send(app, wait, "我喜欢山竹")
        [mid] = app.services.memory.all_items()
        await panel.new_session()  # the person has moved on to another chat
        assert app.controller.current_session_id != first_session

        dialog = app.wall.actions.show_history(mid)
        await dialog._load_task
        dialog.list.setCurrentRow(0)
        assert dialog.open_chat_button.isEnabled()
        dialog.open_chat_button.click()
        await wait(lambda: app.controller.current_session_id == first_session, message="that chat is open")
        await wait(lambda: any(b.text == "我喜欢山竹" for b in panel.view.bubbles), message="its messages shown")
        assert not shiboken6.isValid(dialog) or not dialog.isVisible()  # closed: the chat is in front


async def test_the_empty_state_matches_the_chat_s_memory_mode(qapp, tmp_path, llm_server, wait):
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        panel = app.window.chat_panel
        empty = panel.view.empty_state
        await panel.new_session(temporary=True)
        assert empty.isVisibleTo(panel)
        assert "我会记住" not in empty.text() and "临时对话" in empty.text() and "不会记住" in empty.text()
        quick = app.quick_chat.view.empty_state  # the tray's quick chat says the same
        assert "临时对话" in quick.text()

        await panel.new_session()
        assert "我会记住" in empty.text()
        panel.memory_bar.write_action.setChecked(False)
        await wait(lambda: "不会写进记忆" in empty.text(), message="writing off for this chat")
        panel.memory_bar.recall_action.setChecked(False)
        await wait(lambda: "不使用记忆" in empty.text(), message="memory off for this chat")
        panel.memory_bar.recall_action.setChecked(True)
        await wait(lambda: panel.memory_bar.mode == "no_write", message="recall back on")
        panel.memory_bar.write_action.setChecked(True)
        await wait(lambda: "我会记住" in empty.text(), message="back on")
