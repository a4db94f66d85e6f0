"""What a person does with messages: retry a failed reply (once, never again after it worked or
after a restart; the retry replaces the failed turn instead of repeating the message), stop calmly,
start from a friendly empty chat, copy / regenerate / edit-and-resend."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication

from shell_fixtures import running_engine


async def _send(panel, controller, text, wait):
    panel.composer.set_text(text)
    panel.composer.submit()
    await wait(lambda: controller.busy, message="turn started")
    await wait(lambda: not controller.busy, timeout=10, message="turn finished")


async def test_retry_is_gone_after_a_successful_retry_and_never_sends_again(tmp_path, llm_server, make_llm,
                                                                            panel_factory, wait):
    async with running_engine(tmp_path / "data", make_llm(streaming=True)) as parts:
        controller, panel = panel_factory()
        await controller.attach(parts[2])
        sent = []
        controller.turn_started.connect(lambda _sid, text: sent.append(text))
        llm_server.add_error(500, "upstream exploded")
        await _send(panel, controller, "你好", wait)
        failed = panel.view.bubbles[-1]
        assert failed.can_retry

        llm_server.add_text("这次好了")
        failed.retry_button.click()
        await wait(lambda: not controller.busy and panel.view.bubbles[-1].text == "这次好了", timeout=10,
                   message="retried")
        assert failed not in panel.view.bubbles  # replaced, with its retry button
        assert not any(b.can_retry for b in panel.view.bubbles)
        await wait(lambda: not controller.busy)
        assert sent == ["你好", "你好"]
        assert len(panel.view.bubbles) == 2


async def test_a_retry_replaces_the_failed_turn_in_the_view_the_transcript_and_the_export(
        tmp_path, llm_server, make_llm, panel_factory, wait):
    async with running_engine(tmp_path / "data", make_llm(streaming=True)) as parts:
        controller, panel = panel_factory()
        await controller.attach(parts[2])
        llm_server.add_text("前情")
        await _send(panel, controller, "先说一句", wait)
        llm_server.add_error(500, "upstream exploded")
        await _send(panel, controller, "失败测试", wait)
        assert panel.view.bubbles[-1].can_retry
        llm_server.add_text("这次好了")
        panel.view.bubbles[-1].retry_button.click()
        await wait(lambda: not controller.busy and panel.view.bubbles[-1].text == "这次好了", timeout=10,
                   message="retried")
        view = panel.view
        assert [(b.role, b.text) for b in view.bubbles] == [
            ("user", "先说一句"), ("assistant", "前情"), ("user", "失败测试"), ("assistant", "这次好了")]
        assert not any(b.error_text for b in view.bubbles)
        session = controller.current_session_id
        stored = await parts[2].transcript(session)
        assert [(e["role"], e["content"]) for e in stored] == [
            ("user", "先说一句"), ("assistant", "前情"), ("user", "失败测试"), ("assistant", "这次好了")]
        assert not any(e.get("error") for e in stored)
        path = tmp_path / "chat.md"
        await controller.export_chat(session, str(path))
        exported = path.read_text(encoding="utf-8")
        assert exported.count("失败测试") == 1 and "upstream" not in exported
        said = [m.get("content") for m in llm_server.requests[-1]["messages"]]
        assert said.count("失败测试") == 1  # the model's history has the message once too


async def test_after_a_restart_only_a_last_failed_reply_can_be_retried(tmp_path, llm_server, make_llm,
                                                                       panel_factory, wait):
    async with running_engine(tmp_path / "data", make_llm(streaming=True)) as parts:
        controller, panel = panel_factory()
        await controller.attach(parts[2])
        llm_server.add_error(500, "upstream exploded")
        await _send(panel, controller, "你好", wait)
        llm_server.add_error(500, "not this one either")
        await _send(panel, controller, "第二句", wait)
        llm_server.add_text("好了")
        await _send(panel, controller, "第三句", wait)
        llm_server.add_error(500, "again")
        await _send(panel, controller, "最后一句", wait)

        await controller.select_session(controller.current_session_id)  # what a restart shows
        bubbles = panel.view.bubbles
        assert [b.error_text != "" for b in bubbles] == [False, True, False, True, False, False, False, True]
        assert not bubbles[1].can_retry and not bubbles[3].can_retry  # answered by the turns after them
        assert bubbles[7].can_retry  # the last one still can


async def test_stopping_shows_a_calm_marker_also_after_reloading(tmp_path, llm_server, make_llm, panel_factory, wait):
    async with running_engine(tmp_path / "data", make_llm(streaming=True, timeout=30)) as parts:
        controller, panel = panel_factory()
        await controller.attach(parts[2])
        llm_server.add_hang(20)
        panel.composer.set_text("讲个很长的故事")
        panel.composer.submit()
        await wait(lambda: llm_server.wait_for_requests(1, timeout=0), timeout=10, message="request sent")
        panel.composer.stop_button.click()
        await wait(lambda: not controller.busy, timeout=10, message="stopped")
        await controller.select_session(controller.current_session_id)
        bubble = panel.view.bubbles[-1]
        assert bubble.stopped and bubble.stopped_label.text() == "已停止"
        assert not bubble.error_box.isVisibleTo(bubble)


async def test_a_new_chat_has_a_friendly_empty_state(tmp_path, llm_server, make_llm, panel_factory, wait):
    async with running_engine(tmp_path / "data", make_llm(streaming=True)) as parts:
        controller, panel = panel_factory()
        await controller.attach(parts[2])
        assert panel.view.bubbles == []
        assert panel.view.empty_state.isVisibleTo(panel) and "Sonetto" in panel.view.empty_state.text()
        llm_server.add_text("嗨")
        await _send(panel, controller, "你好", wait)
        assert not panel.view.empty_state.isVisibleTo(panel)
        await panel.new_session()
        assert panel.view.empty_state.isVisibleTo(panel)


async def test_copy_regenerate_and_edit_and_resend(tmp_path, llm_server, make_llm, panel_factory, qtbot, wait):
    async with running_engine(tmp_path / "data", make_llm(streaming=True)) as parts:
        controller, panel = panel_factory()
        await controller.attach(parts[2])
        sent = []
        controller.turn_started.connect(lambda _sid, text: sent.append(text))
        llm_server.add_text("前情")
        await _send(panel, controller, "先说一句", wait)
        llm_server.add_text("第一次的**回答**")
        await _send(panel, controller, "问个问题", wait)
        user, reply = panel.view.bubbles[2:]
        assert reply.turn_id and user.turn_id == reply.turn_id  # known for a live turn too

        reply.copy_button.click()
        assert QGuiApplication.clipboard().text() == "第一次的**回答**"  # the text as written

        llm_server.add_text("第二次的回答")
        reply.regenerate_button.click()
        await wait(lambda: not controller.busy and panel.view.bubbles[-1].text == "第二次的回答", timeout=10,
                   message="regenerated")
        assert [b.text for b in panel.view.bubbles] == ["先说一句", "前情", "问个问题", "第二次的回答"]
        assert sent[-1] == "问个问题"
        said = [m.get("content") for m in llm_server.requests[-1]["messages"]]
        assert "第一次的**回答**" not in said and said.count("问个问题") == 1  # gone from the model's history

        panel.view.bubbles[2].edit_button.click()
        assert panel.composer.text() == "问个问题" and panel.composer.editing_bar.isVisibleTo(panel)
        panel.composer.set_text("问个别的问题")
        llm_server.add_text("改过的回答")
        panel.composer.submit()
        await wait(lambda: not controller.busy and panel.view.bubbles[-1].text == "改过的回答", timeout=10,
                   message="resent")
        assert [b.text for b in panel.view.bubbles] == ["先说一句", "前情", "问个别的问题", "改过的回答"]
        assert not panel.composer.editing_bar.isVisibleTo(panel)
        await controller.select_session(controller.current_session_id)  # what is stored says the same
        assert [b.text for b in panel.view.bubbles] == ["先说一句", "前情", "问个别的问题", "改过的回答"]


async def test_cancelling_an_edit_sends_a_new_message(tmp_path, llm_server, make_llm, panel_factory, qtbot, wait):
    async with running_engine(tmp_path / "data", make_llm(streaming=True)) as parts:
        controller, panel = panel_factory()
        await controller.attach(parts[2])
        llm_server.add_text("好")
        await _send(panel, controller, "原来的话", wait)
        panel.view.bubbles[0].edit_button.click()
        panel.composer.input.setFocus()
        qtbot.keyClick(panel.composer.input, Qt.Key.Key_Escape)
        assert panel.composer.editing_turn == "" and panel.composer.text() == ""
        llm_server.add_text("收到")
        await _send(panel, controller, "新的话", wait)
        assert [b.text for b in panel.view.bubbles] == ["原来的话", "好", "新的话", "收到"]


async def test_regenerating_an_earlier_reply_asks_before_the_turns_after_it_go(tmp_path, llm_server, make_llm,
                                                                             panel_factory, qtbot, wait):
    """重新生成 on an earlier reply replaces it and every turn after it: a long chat went with one click
    and no word. It asks now, naming how many turns go; 取消 keeps the chat as it is. The last reply
    is regenerated at once, as before."""
    async with running_engine(tmp_path / "data", make_llm(streaming=True)) as parts:
        controller, panel = panel_factory()
        await controller.attach(parts[2])
        for text, answer in (("第一句", "一"), ("第二句", "二"), ("第三句", "三")):
            llm_server.add_text(answer)
            await _send(panel, controller, text, wait)
        asked = len(llm_server.requests)
        conversation = panel.conversation
        panel.view.bubbles[1].regenerate_button.click()  # the first reply: two turns after it
        await wait(lambda: conversation.last_question is not None and conversation.last_question.isVisible(),
                   message="asked")
        box = conversation.last_question
        assert "2" in box.text()
        box.reject()  # 取消
        await conversation.asking
        assert len(llm_server.requests) == asked and len(panel.view.bubbles) == 6  # nothing sent, nothing gone

        llm_server.add_text("新的一")
        panel.view.bubbles[1].regenerate_button.click()
        await wait(lambda: conversation.last_question is not box and conversation.last_question is not None
                   and conversation.last_question.isVisible(), message="asked again")
        again = conversation.last_question
        next(b for b in again.buttons() if b.text() == "重新生成").click()
        await wait(lambda: not controller.busy and panel.view.bubbles[-1].text == "新的一", timeout=10,
                   message="regenerated")
        assert [b.text for b in panel.view.bubbles] == ["第一句", "新的一"]

        shown = conversation.last_question
        llm_server.add_text("又一个一")
        panel.view.bubbles[1].regenerate_button.click()  # now the last reply: no question
        await wait(lambda: not controller.busy and panel.view.bubbles[-1].text == "又一个一", timeout=10,
                   message="regenerated at once")
        assert conversation.last_question is shown
