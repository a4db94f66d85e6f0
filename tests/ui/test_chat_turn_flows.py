"""A chat turn and what the person does meanwhile: stop right after an edit-and-resend (while the
replaced turn is being taken back), the chat restarting then, switching chats while a reply streams,
editing the message being answered, renaming a chat in place while a reply ends, and a new chat
opened while another one is still replying."""

from __future__ import annotations

import contextlib

import asyncio
import dataclasses
import json
import time

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractItemView, QApplication, QLineEdit

from llm_payloads import HangResponse
from llm_server import TextResponse, caller
from shell_fixtures import OFFSCREEN_RAISE, OFFSCREEN_SIZE_HINTS, app_settings, running_app, running_engine

LONG = "从前有一座山，山里有一座庙。" * 30  # ~420 chars, streamed 3 chars a chunk


async def _long_reply_streaming(panel, llm_server, text: str, wait) -> None:
    """``text`` sent from ``panel``; returns once its long reply (``LONG``, slowly) has begun to show."""
    _slow_stream(llm_server)
    llm_server.add_text(LONG)
    panel.composer.set_text(text)
    panel.composer.submit()
    await wait(lambda: len(panel.view.bubbles) == 2 and panel.view.bubbles[1].text, timeout=10)


def _slow_stream(llm_server) -> None:
    llm_server.chunk_size, llm_server.chunk_delay = 3, 0.02


def _chat_requests(llm_server) -> int:
    return sum(1 for r in llm_server.requests if caller(r) == "chat")


async def _first_turn_then_edit(app, llm_server, wait) -> int:
    """Send, get the reply while the memory writer still writes the turn (its call hangs), then edit
    the message and send it again: the edit waits for the writer before the model is asked."""
    llm_server.default = TextResponse("好的")
    llm_server.add_text("明天见", to="chat")
    llm_server.add(HangResponse(6), to="writer")
    panel = app.window.chat_panel
    panel.composer.set_text("我明天八点出发")
    panel.composer.submit()
    await wait(lambda: not app.controller.busy and len(panel.view.bubbles) == 2 and panel.view.bubbles[1].text,
               timeout=15, message="the first reply")
    await wait(lambda: any(caller(r) == "writer" for r in llm_server.requests), timeout=15,
               message="the writer writing the first turn")
    before = _chat_requests(llm_server)  # the model asked so far
    panel.view.bubbles[0].edit_button.click()  # 编辑后重新发送
    panel.composer.set_text("我明天九点出发")
    panel.composer.submit()
    await wait(lambda: app.controller.busy, timeout=5)
    await asyncio.sleep(0.3)
    return before


# ── stop and restart while an edit takes back the replaced turn ──────────────────────────────────


@pytest.mark.qt_log_ignore(OFFSCREEN_SIZE_HINTS, OFFSCREEN_RAISE)
async def test_stop_works_while_an_edit_takes_back_the_replaced_turn(qapp, tmp_path, llm_server, wait):
    """停止 while the edit waits for the writer ends the turn at once and asks the model nothing; the
    edited message stays as the person's message (shown and stored), its reply marked 已停止."""
    settings = app_settings(tmp_path / "data", llm_server, request_timeout=30.0)
    async with running_app(qapp, settings) as app:
        before = await _first_turn_then_edit(app, llm_server, wait)
        panel = app.window.chat_panel
        assert panel.composer.stop_button.isVisibleTo(panel)
        panel.composer.stop_button.click()  # 停止
        clicked = time.monotonic()
        await wait(lambda: not app.controller.busy, timeout=15, message="the turn to end")
        took = time.monotonic() - clicked
        asked = _chat_requests(llm_server) - before
        assert took < 2 and asked == 0, (
            f"停止 took {took:.1f} s to end the turn, and the model was asked for {asked} new reply(ies) after it")
        assert [b.text for b in panel.view.bubbles] == ["我明天九点出发", ""]
        assert panel.view.bubbles[1].stopped
        stored = await app.controller.engine.transcript(app.controller.current_session_id)
        assert [(e["role"], e["content"]) for e in stored] == [("user", "我明天九点出发"), ("assistant", "")]
        assert stored[1]["error"]["code"] == "cancelled"

        llm_server.add_text("还在", to="chat")  # the next message: the model's history has the edited one
        panel.composer.set_text("还在吗")
        panel.composer.submit()
        await wait(lambda: app.controller.busy, timeout=5)
        await wait(lambda: not app.controller.busy, timeout=15)
        said = json.dumps([r for r in llm_server.requests if caller(r) == "chat"][-1]["messages"], ensure_ascii=False)
        assert "我明天九点出发" in said and "我明天八点出发" not in said and "还在吗" in said


@pytest.mark.qt_log_ignore(OFFSCREEN_SIZE_HINTS, OFFSCREEN_RAISE)
async def test_the_input_works_after_the_chat_restarts_during_an_edit(qapp, tmp_path, llm_server, wait):
    """The same moment, and another data folder is saved in the settings (the chat is closed and
    started again): the input has its send button back, not 停止 for good."""
    settings = app_settings(tmp_path / "data", llm_server, request_timeout=30.0)
    async with running_app(qapp, settings) as app:
        await _first_turn_then_edit(app, llm_server, wait)
        await app.apply_settings(dataclasses.replace(app.settings, data_dir=str(tmp_path / "other")))
        await wait(lambda: app.controller.ready and not app.controller.busy, timeout=20, message="the chat again")
        await asyncio.sleep(0.3)
        composer = app.window.chat_panel.composer
        composer.set_text("还在吗")
        assert composer.send_button.isVisibleTo(composer) and composer.send_button.isEnabled(), (
            f"send button visible={composer.send_button.isVisibleTo(composer)} "
            f"enabled={composer.send_button.isEnabled()}, stop button visible={composer.stop_button.isVisibleTo(composer)}")


# ── switching chats while a reply streams ─────────────────────────────────────────────────────────


@contextlib.asynccontextmanager
async def _streaming_panel(tmp_path, make_llm, panel_factory):
    """(engine, controller, panel): a chat panel attached to an engine whose model streams."""
    async with running_engine(tmp_path / "data", make_llm(streaming=True)) as parts:
        engine = parts[2]
        controller, panel = panel_factory()
        await controller.attach(engine)
        yield engine, controller, panel


async def test_a_reply_that_finishes_after_switching_away_and_back_is_shown(tmp_path, llm_server, make_llm,
                                                                           panel_factory, wait):
    """Send in chat A, open chat B while the reply streams, come back to A: the reply streams on there
    (what had streamed is shown at once) and, when it ends, the finished reply is on screen."""
    async with _streaming_panel(tmp_path, make_llm, panel_factory) as (engine, controller, panel):
        first = controller.current_session_id
        _slow_stream(llm_server)
        llm_server.add_text(LONG)
        panel.composer.set_text("讲个故事")
        panel.composer.submit()
        await wait(lambda: len(panel.view.bubbles) == 2 and panel.view.bubbles[1].text, timeout=10,
                   message="the reply started streaming")
        await panel.new_session()  # to chat B, mid-stream
        assert controller.current_session_id != first
        await asyncio.sleep(0.1)
        await panel.select_session(first)  # and back to A, still mid-stream
        assert controller.busy, "the reply should still be streaming (make LONG longer)"
        assert [b.role for b in panel.view.bubbles] == ["user", "assistant"]
        shown = len(panel.view.bubbles[1].text)
        assert shown > 0, "what had streamed is shown at once"
        await wait(lambda: len(panel.view.bubbles[1].text) > shown, message="the reply streaming on")
        await wait(lambda: not controller.busy, timeout=20, message="the reply ended")
        stored = [e["content"] for e in await engine.transcript(first)]
        assert stored == ["讲个故事", LONG]
        shown_texts = [b.text for b in panel.view.bubbles]
        assert shown_texts == stored, f"on screen after the reply ended: {[s[:12] for s in shown_texts]}"
        assert all(b.turn_id for b in panel.view.bubbles)


async def test_a_new_chat_opened_while_another_replies_does_not_stop_it(tmp_path, llm_server, make_llm,
                                                                       panel_factory, wait):
    """A reply streams in chat A; the person opens a new chat B. B's input offers no 停止 (that would
    stop A's reply): its send waits, saying why, until A's reply ends; back in A, 停止 is there."""
    async with _streaming_panel(tmp_path, make_llm, panel_factory) as (engine, controller, panel):
        first = controller.current_session_id
        await _long_reply_streaming(panel, llm_server, "讲个故事", wait)
        await panel.new_session()
        composer = panel.composer
        assert controller.busy
        assert not composer.stop_button.isVisibleTo(composer), "B shows 停止 for A's reply"
        composer.set_text("你好")
        assert composer.send_button.isVisibleTo(composer) and not composer.send_button.isEnabled()
        assert composer.send_button.toolTip() != composer.tr("发送 (Enter)")  # says why it waits
        composer.stop_button.click()  # (hidden: nothing to click; and if it were, A must go on)
        await asyncio.sleep(0.3)
        assert controller.busy, "A's reply was stopped from chat B"
        await panel.select_session(first)
        assert composer.stop_button.isVisibleTo(composer)
        await wait(lambda: not controller.busy, timeout=20)
        assert [e["content"] for e in await engine.transcript(first)] == ["讲个故事", LONG]
        composer.set_text("还有呢")
        assert composer.send_button.isVisibleTo(composer) and composer.send_button.isEnabled()


# ── editing the message being answered ───────────────────────────────────────────────────────────


async def test_editing_the_message_being_answered_waits_for_its_reply_and_keeps_the_draft(
        tmp_path, llm_server, make_llm, panel_factory, wait):
    """While its reply streams, 编辑后重新发送 on the message just sent is not offered (disabled, its
    tooltip says why): a click cannot replace the follow-up being typed. Once the reply has ended
    the message can be edited, and the edited message replaces it (the draft comes back after)."""
    async with _streaming_panel(tmp_path, make_llm, panel_factory) as (engine, controller, panel):
        session = controller.current_session_id
        await _long_reply_streaming(panel, llm_server, "明天几点出发", wait)
        panel.composer.set_text("还有，记得带伞")  # typing a follow-up while the reply streams
        asked = panel.view.bubbles[0]
        assert not asked.edit_button.isEnabled(), "编辑 is offered on the message still being answered"
        assert asked.edit_button.toolTip() != asked.tr("编辑后重新发送")  # says why not now
        asked.edit_button.click()  # (disabled: nothing happens)
        assert controller.busy
        assert panel.composer.text() == "还有，记得带伞" and not panel.composer.editing_turn
        await wait(lambda: not controller.busy, timeout=20)
        assert asked.edit_button.isEnabled() and asked.turn_id

        asked.edit_button.click()  # now it can be edited
        assert panel.composer.editing_turn == asked.turn_id
        assert panel.composer.draft_text() == "还有，记得带伞"
        llm_server.add_text("好的，改成九点")
        panel.composer.set_text("明天九点出发")
        panel.composer.submit()
        await wait(lambda: controller.busy, timeout=5)
        await wait(lambda: not controller.busy, timeout=20)
        await asyncio.sleep(0.2)
        users = [e["content"] for e in await engine.transcript(session) if e["role"] == "user"]
        assert users == ["明天九点出发"], f"the edited message did not replace the original: {users}"
        assert panel.composer.text() == "还有，记得带伞"  # the draft is back


# ── renaming in place ─────────────────────────────────────────────────────────────────────────────


async def test_a_rename_being_typed_survives_the_reply_ending(tmp_path, llm_server, make_llm, panel_factory, qtbot,
                                                             wait):
    """The person renames the chat in place while a reply streams and is still typing the name when
    the reply ends (the session list is refreshed then); pressing Enter afterwards renames the chat."""
    async with _streaming_panel(tmp_path, make_llm, panel_factory) as (engine, controller, panel):
        session = controller.current_session_id
        llm_server.chunk_size, llm_server.chunk_delay = 3, 0.02
        llm_server.add_text(LONG[:180])
        panel.composer.set_text("讲个故事")
        panel.composer.submit()
        await wait(lambda: len(panel.view.bubbles) == 2 and panel.view.bubbles[1].text, timeout=10)

        panel.activateWindow()
        panel.start_rename()  # 重命名 (the header button / F2)
        await wait(lambda: panel.session_list.state() == QAbstractItemView.State.EditingState, message="editor open")
        editor = panel.session_list.viewport().findChild(QLineEdit) or QApplication.focusWidget()
        assert isinstance(editor, QLineEdit)
        editor.selectAll()
        editor.insert("周末计划")  # typed (an input method commits the characters)
        assert controller.busy, "the reply should still be streaming"

        await wait(lambda: not controller.busy, timeout=20, message="the reply ended")
        await asyncio.sleep(0.3)  # the session list is refreshed after the turn
        still_editing = panel.session_list.state() == QAbstractItemView.State.EditingState
        target = QApplication.focusWidget() if still_editing else panel.session_list
        qtbot.keyClick(target, Qt.Key.Key_Return)  # the person finishes the name
        await wait(lambda: panel.session_list.currentItem() is not None
                   and panel.session_list.currentItem().text() == "周末计划", message="the new name listed")
        title = (await engine.session(session)).title
        assert title == "周末计划", f"the name typed was lost (editor open after the refresh: {still_editing}); title: {title!r}"


async def test_clearing_the_name_in_place_puts_the_old_name_back(tmp_path, llm_server, make_llm, panel_factory,
                                                                qtbot, wait):
    """A blank name is refused (nothing is renamed), and the list shows the chat's name again."""
    async with _streaming_panel(tmp_path, make_llm, panel_factory) as (engine, controller, panel):
        session = controller.current_session_id
        await controller.rename_session(session, "周末计划")
        assert panel.session_list.currentItem().text() == "周末计划"
        panel.activateWindow()
        panel.start_rename()
        await wait(lambda: panel.session_list.state() == QAbstractItemView.State.EditingState, message="editor open")
        editor = panel.session_list.viewport().findChild(QLineEdit) or QApplication.focusWidget()
        editor.selectAll()
        editor.del_()  # the person empties the name ...
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Return)  # ... and presses Enter
        await asyncio.sleep(0.3)
        assert (await engine.session(session)).title == "周末计划"  # refused, rightly
        shown = panel.session_list.currentItem().text()
        assert shown == "周末计划", f"the chat list shows {shown!r} for it"


# ── a failed reply's 重试 while another chat replies ─────────────────────────────────────────────


async def test_retry_clicked_while_another_chat_replies_is_kept_for_later(tmp_path, llm_server, make_llm,
                                                                         panel_factory, wait):
    """Chat A's reply failed; chat B's reply streams; back in A the person clicks 重试. One reply at a
    time: it cannot send now — it must not be used up for nothing (the button gone, nothing sent).
    It says why it waits, and once B's reply has ended it works."""
    async with _streaming_panel(tmp_path, make_llm, panel_factory) as (engine, controller, panel):
        first = controller.current_session_id
        llm_server.add_error(500, "upstream exploded")
        panel.composer.set_text("你好")
        panel.composer.submit()
        await wait(lambda: not controller.busy and panel.view.bubbles and panel.view.bubbles[-1].error_text,
                   timeout=10, message="the failed reply")
        await panel.new_session()
        await _long_reply_streaming(panel, llm_server, "讲个故事", wait)
        await panel.select_session(first)
        failed = panel.view.bubbles[-1]
        assert controller.busy and failed.error_text
        failed.retry_button.click()  # while B's reply streams
        assert not failed.retry_button.isEnabled() and "结束后" in failed.retry_button.toolTip(), \
            "it does not say why it waits"
        await wait(lambda: not controller.busy, timeout=20, message="B's reply ended")
        llm_server.chunk_size, llm_server.chunk_delay = 3, 0.0
        llm_server.add_text("这次好了")
        failed = panel.view.bubbles[-1]
        assert failed.can_retry, "重试 was used up while it could not send"
        failed.retry_button.click()
        await wait(lambda: not controller.busy and panel.view.bubbles[-1].text == "这次好了", timeout=10,
                   message="retried")
        assert [e["content"] for e in await engine.transcript(first)] == ["你好", "这次好了"]
