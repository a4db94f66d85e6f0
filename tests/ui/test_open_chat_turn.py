"""打开这段对话 (issue 30 item 2): the history's button opens the chat scrolled to the message that
caused the change, highlighted, even when the transcript is long and still being laid out; the
history dialog steps aside; a message since replaced by an edit is said to be gone, with its words."""

from __future__ import annotations

import asyncio

import pytest
import shiboken6
from PySide6.QtCore import QPoint, QRect

from llm_payloads import tool_calls
from llm_server import TextResponse, caller
from shell_fixtures import OFFSCREEN_RAISE, OFFSCREEN_SIZE_HINTS, app_settings, running_app
from sonetto_desktop.ui.chat.view import ChatView
from sonetto_desktop.ui.theme import stylesheet

LONG = "\n\n".join(f"第 {i} 段：这是一段很长的回复，会在气泡里换好几行，" * 6 for i in range(6))


def _visible_in(view, bubble) -> bool:
    where = QRect(bubble.mapTo(view.viewport(), QPoint(0, 0)), bubble.size())
    return view.viewport().rect().intersects(where)


def _settled(view) -> bool:
    return not any(b.label.pending for b in view.bubbles if b.role == "assistant")


async def test_the_view_keeps_a_found_message_in_view_while_it_is_laid_out(qtbot, wait):
    view = ChatView()
    view.setStyleSheet(stylesheet("light"))
    qtbot.addWidget(view)
    view.resize(700, 500)
    view.show()
    entries = []
    for i in range(30):
        entries += [{"role": "user", "content": f"问题 {i}", "turn_id": f"t{i}"},
                    {"role": "assistant", "content": LONG, "turn_id": f"t{i}"}]
    view.load_transcript(entries)
    assert view.scroll_to_turn("t15")  # at once, before the long replies are rendered
    await wait(lambda: _settled(view), timeout=10, message="the transcript rendered")
    await asyncio.sleep(0.1)
    bubble = view.bubble_of_turn("t15")
    assert _visible_in(view, bubble)
    assert view.verticalScrollBar().value() > 0  # not left at the top
    assert bubble.property("highlighted") and view.bubble_of_turn("t15", "assistant").property("highlighted")
    assert not view.bubble_of_turn("t14").property("highlighted")
    await wait(lambda: not bubble.property("highlighted"), timeout=6, message="the highlight fades")
    assert not view.scroll_to_turn("no-such-turn")


def _responder(body):
    messages = body.get("messages") or []
    users = [m for m in messages if m.get("role") == "user"]
    last = str(users[-1].get("content") or "") if users else ""
    if caller(body) == "writer":
        if messages and messages[-1].get("role") == "tool":
            return TextResponse("完成")
        if "一只猫" in last:
            return tool_calls([("create_memory", {"content": "用户有一只猫", "section": "家人"})])
        return TextResponse("没有需要记住的")
    return TextResponse(LONG)


@pytest.mark.qt_log_ignore(OFFSCREEN_RAISE, OFFSCREEN_SIZE_HINTS)  # the window is raised to the chat
async def test_the_history_opens_a_long_chat_at_the_message_and_highlights_it(qapp, tmp_path, llm_server, wait):
    llm_server.responder = _responder
    llm_server.chunk_size = 400  # long replies, streamed in a few pieces
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        panel = app.window.chat_panel
        app.window.resize(1280, 800)
        await panel.new_session()
        long_chat = app.controller.current_session_id
        for i in range(12):
            text = "我有一只猫" if i == 8 else f"随便聊聊 {i}"
            panel.composer.set_text(text)
            panel.composer.submit()
            await wait(lambda: app.controller.busy, message="turn started")
            await wait(lambda: not app.controller.busy, timeout=30, message=f"turn {i} finished")
        await wait(lambda: app.services.memory.count() == 1, timeout=15, message="the writer remembered the cat")
        [mid] = app.services.memory.all_items()
        await panel.new_session()  # the person has moved on

        dialog = app.wall.actions.show_history(mid)
        await dialog._load_task
        dialog.list.setCurrentRow(0)
        dialog.open_chat_button.click()
        await wait(lambda: app.controller.current_session_id == long_chat, message="that chat is open")
        view = panel.view
        await wait(lambda: _settled(view), timeout=10, message="the transcript rendered")
        await asyncio.sleep(0.1)
        cat = next(b for b in view.bubbles if b.text == "我有一只猫")
        assert _visible_in(view, cat), "the message that caused the change is in view"
        assert not _visible_in(view, view.bubbles[0])
        assert cat.property("highlighted")
        assert not shiboken6.isValid(dialog) or not dialog.isVisible()  # the (window-modal) history stepped aside


@pytest.mark.qt_log_ignore(OFFSCREEN_RAISE, OFFSCREEN_SIZE_HINTS)
async def test_a_message_replaced_by_an_edit_is_said_to_be_gone(qapp, tmp_path, llm_server, wait):
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        panel = app.window.chat_panel
        await panel.new_session()
        session = app.controller.current_session_id
        llm_server.add_text("好的", to="chat")
        panel.composer.set_text("我下周五复查")
        panel.composer.submit()
        await wait(lambda: not app.controller.busy and len(panel.view.bubbles) == 2, timeout=10)
        old_turn = panel.view.bubbles[0].turn_id
        panel.view.bubbles[0].edit_button.click()
        panel.composer.set_text("我下周四复查")
        llm_server.add_text("记下了", to="chat")
        panel.composer.submit()
        await wait(lambda: not app.controller.busy and panel.view.bubbles[-1].text == "记下了", timeout=10)

        assert not await app.open_chat_turn(session, old_turn, "我下周五复查")
        toast = next(t for t in app.toasts.toasts() if t.key == "chat-turn-gone")
        assert "替换" in toast.text and "我下周五复查" in toast.text
        assert app.controller.current_session_id == session  # the chat is shown all the same
