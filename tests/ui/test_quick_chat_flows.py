"""The tray's quick chat beside the main window, on one controller, over a real engine and the
scripted server: an edit started in the quick chat belongs to its chat, a refused message goes back
only to the input it was typed in, and a failed reply's 重试 works there as in the main window."""

from __future__ import annotations

import asyncio

import pytest

from shell_fixtures import OFFSCREEN_RAISE, OFFSCREEN_SIZE_HINTS, running_engine
from sonetto_desktop.ui.chat.controller import ChatController
from sonetto_desktop.ui.chat.panel import ChatPanel
from sonetto_desktop.ui.tray.quick_chat import QuickChat

SHOWN = pytest.mark.qt_log_ignore(OFFSCREEN_RAISE, OFFSCREEN_SIZE_HINTS)  # a quick chat shown is raised


@pytest.fixture
def controllers():
    """ChatControllers made by a test, deleted after it (the views go with qtbot)."""
    made: list[ChatController] = []

    def make() -> ChatController:
        controller = ChatController()
        made.append(controller)
        return controller

    yield make
    for controller in made:
        controller.deleteLater()


def _panel(qtbot, controller):
    panel = ChatPanel(controller)
    qtbot.addWidget(panel)
    panel.resize(900, 600)
    panel.show()
    return panel


def _quick(qtbot, controller):
    quick = QuickChat(controller)
    qtbot.addWidget(quick)
    quick.show()
    return quick


@SHOWN
async def test_a_retry_button_shown_in_the_quick_chat_does_something(
        tmp_path, llm_server, make_llm, controllers, qtbot, wait):
    """A failed reply in the quick chat offers 重试, as in the main window (the quick chat already
    redoes a finished reply, 重新生成), live and once the transcript is shown again (a switch, a
    reload); clicking it answers the message again in place of the failed turn -- it used to hide
    itself and send nothing."""
    async with running_engine(tmp_path / "data", make_llm(streaming=True)) as parts:
        engine = parts[2]
        controller = controllers()
        quick = _quick(qtbot, controller)
        await controller.attach(engine)
        llm_server.add_error(500, "upstream exploded")
        quick.composer.set_text("你好")
        quick.composer.submit()
        await wait(lambda: not controller.busy and quick.view.bubbles and quick.view.bubbles[-1].error_text,
                   timeout=10, message="the error shown")
        assert quick.view.bubbles[-1].can_retry  # live

        await controller.select_session(controller.current_session_id)  # shown again (e.g. after a switch)
        failed = quick.view.bubbles[-1]
        assert failed.error_text
        assert failed.can_retry  # a button the person can see and click ...
        requests = len(llm_server.requests)
        llm_server.add_text("这次好了")
        failed.retry_button.click()
        await wait(lambda: controller.busy or len(llm_server.requests) > requests, timeout=5,
                   message="clicking 重试 in the quick chat sent nothing")
        await wait(lambda: not controller.busy and quick.view.bubbles[-1].text == "这次好了", timeout=10,
                   message=lambda: f"retried: {[(b.text, b.error_text) for b in quick.view.bubbles]}")
        # ... and does what it says: the failed turn is replaced, not repeated
        assert [(b.role, b.text) for b in quick.view.bubbles] == [("user", "你好"), ("assistant", "这次好了")]
        stored = await engine.transcript(controller.current_session_id)
        assert [(e["role"], e["content"]) for e in stored] == [("user", "你好"), ("assistant", "这次好了")]
        assert not any(e.get("error") for e in stored)


async def test_a_message_refused_in_the_main_window_is_not_put_into_the_quick_chat(
        tmp_path, llm_server, make_llm, controllers, qtbot, wait):
    """A message the engine refuses (too long: code "input") is given back to the input it was typed
    in, and only there: not into the tray's quick chat input on the same controller."""
    async with running_engine(tmp_path / "data", make_llm(streaming=True)) as parts:
        engine = parts[2]
        controller = controllers()
        panel = _panel(qtbot, controller)
        quick = QuickChat(controller)
        qtbot.addWidget(quick)
        await controller.attach(engine)
        pasted = "很长的一段话。" * 3000  # 21,000 characters: over the 20,000 limit
        panel.composer.set_text(pasted)
        panel.composer.submit()
        await wait(lambda: not controller.busy and panel.view.bubbles and panel.view.bubbles[-1].error_text,
                   timeout=10, message="refused")
        assert "太长" in panel.view.bubbles[-1].error_text
        assert panel.composer.text() == pasted  # given back where it was typed
        got = len(quick.composer.text())
        assert got == 0, f"the quick chat's input now holds {got} characters the person never typed there"


@SHOWN
async def test_an_edit_started_in_the_quick_chat_does_not_outlive_its_chat(
        tmp_path, llm_server, make_llm, controllers, qtbot, wait):
    """编辑后重新发送 in the quick chat, then the main window opens another chat: the quick chat's
    edit ends with its chat (as the main window's does), and what is sent from it then is a new
    message in the chat now shown -- not a replace of a turn of another chat that fails with
    "这条消息已经不能重新回答了"."""
    async with running_engine(tmp_path / "data", make_llm(streaming=True)) as parts:
        engine = parts[2]
        controller = controllers()
        panel = _panel(qtbot, controller)
        quick = _quick(qtbot, controller)
        await controller.attach(engine)
        llm_server.add_text("好的")
        quick.composer.set_text("第一句")
        quick.composer.submit()
        await wait(lambda: not controller.busy and len(quick.view.bubbles) == 2 and quick.view.bubbles[1].text,
                   timeout=10, message=lambda: f"first reply: {[b.text for b in quick.view.bubbles]}")
        quick.view.bubbles[0].edit_button.click()  # 编辑后重新发送
        assert quick.composer.editing_turn
        await panel.new_session()  # the main window: 新对话
        assert not quick.composer.editing_turn
        llm_server.add_text("新对话的回复")
        failures = []
        controller.reply_failed.connect(lambda _sid, code, message, _text: failures.append((code, message)))
        quick.composer.set_text("在新对话里说的话")
        quick.composer.submit()
        await wait(lambda: controller.busy or failures, timeout=5, message="sent")
        await wait(lambda: not controller.busy, timeout=10)
        await asyncio.sleep(0.3)
        stored = [e["content"] for e in await engine.transcript(controller.current_session_id)]
        assert stored == ["在新对话里说的话", "新对话的回复"], (
            f"not sent: failures={failures}; stored={stored}; the quick chat shows "
            f"{[b.text for b in quick.view.bubbles]} and its input holds {quick.composer.text()!r}")
