"""The chat panel against a real ChatEngine streaming from the scripted server."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from shell_fixtures import running_engine
from sonetto_desktop.ui.i18n import install_translators, remove_translators
from sonetto_desktop.ui.chat.message_bubble import render_markdown


async def _attached(make, parts):
    controller, panel = make(parts)
    await controller.attach(parts[2])
    return controller, panel


async def test_reply_streams_into_a_markdown_bubble_with_memory_chips(tmp_path, llm_server, make_llm, panel_factory, wait):
    async with running_engine(tmp_path / "data", make_llm(streaming=True)) as parts:
        store = parts[0]
        cat = store.add("用户养了一只叫年糕的橘猫", "生活")
        controller, panel = await _attached(panel_factory, parts)
        tokens = []
        controller.token_received.connect(lambda _sid, t: tokens.append(t))
        activated = []
        panel.memory_activated.connect(activated.append)
        reply = "年糕今天乖不乖？我记得它是一只**橘猫**，最近是不是又胖了一点呀"
        llm_server.add_text(reply)

        panel.composer.set_text("我的猫年糕今天又调皮了")
        panel.composer.submit()
        await wait(lambda: controller.busy, message="turn started")
        await wait(lambda: not controller.busy, timeout=10, message="turn finished")

        user, bot = panel.view.bubbles
        assert (user.role, user.text) == ("user", "我的猫年糕今天又调皮了")
        assert bot.text == reply
        assert len(tokens) > 1 and "".join(tokens) == reply  # streamed in pieces
        assert "<strong>橘猫</strong>" in bot.label.text()
        assert panel.composer.text() == ""  # the input was cleared after sending
        assert [m["id"] for m in bot.memories] == [cat]
        chip = bot.chip_buttons()[0]
        qtbot_click(chip)
        assert activated == [cat]


def qtbot_click(button):
    button.click()


async def test_error_is_inline_with_a_retry_that_works(tmp_path, llm_server, make_llm, panel_factory, wait):
    async with running_engine(tmp_path / "data", make_llm(streaming=True)) as parts:
        controller, panel = await _attached(panel_factory, parts)
        llm_server.add_error(500, "upstream exploded")
        panel.composer.set_text("你好")
        panel.composer.submit()
        await wait(lambda: panel.view.bubbles and panel.view.bubbles[-1].error_text, timeout=10, message="error shown")
        failed = panel.view.bubbles[-1]
        assert failed.retry_button.isVisibleTo(failed)
        assert "sk-test" not in failed.error_text

        await wait(lambda: not controller.busy)
        llm_server.add_text("这次好了")
        failed.retry_button.click()
        await wait(lambda: not controller.busy and panel.view.bubbles[-1].text == "这次好了", timeout=10,
                   message="retried")
        assert [b.text for b in panel.view.bubbles] == ["你好", "这次好了"]  # in place of the failed turn
        assert panel.view.bubbles[1].error_text == ""


async def test_in_an_english_ui_a_failed_reply_reads_in_english_live_and_reloaded(
        qapp, tmp_path, llm_server, make_llm, panel_factory, wait):
    # The controller was told a language when built and kept its own copy (Chinese unless told), so
    # a controller or chat view that was not told read Chinese in an English UI. Every view now asks
    # the installed translators.
    translators = install_translators(qapp, "en")
    try:
        async with running_engine(tmp_path / "data", make_llm(streaming=True)) as parts:
            controller, panel = await _attached(panel_factory, parts)
            llm_server.add_error(500, "upstream exploded")
            panel.composer.set_text("hello")
            panel.composer.submit()
            await wait(lambda: panel.view.bubbles and panel.view.bubbles[-1].error_text, timeout=10,
                       message="error shown")
            await wait(lambda: not controller.busy)
            [saved] = [e["error"] for e in await parts[2].transcript(controller.current_session_id) if e.get("error")]
            assert saved["en"] != saved["zh"]
            assert panel.view.bubbles[-1].error_text == saved["en"]

            await controller.select_session(controller.current_session_id)  # the transcript shown again
            await wait(lambda: len(panel.view.bubbles) == 2 and panel.view.bubbles[-1].error_text)
            assert panel.view.bubbles[-1].error_text == saved["en"]
    finally:
        remove_translators(qapp, translators)


async def test_enter_sends_and_shift_enter_makes_a_new_line(tmp_path, llm_server, make_llm, panel_factory, qtbot, wait):
    async with running_engine(tmp_path / "data", make_llm(streaming=True)) as parts:
        controller, panel = await _attached(panel_factory, parts)
        sent = []
        controller.turn_started.connect(lambda _sid, text: sent.append(text))
        llm_server.add_text("收到")
        box = panel.composer.input
        box.setFocus()
        qtbot.keyClicks(box, "line one")
        qtbot.keyClick(box, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
        qtbot.keyClicks(box, "line two")
        assert box.toPlainText() == "line one\nline two"
        assert sent == []
        qtbot.keyClick(box, Qt.Key.Key_Return)
        await wait(lambda: sent, message="sent")
        await wait(lambda: not controller.busy, timeout=10)
        assert sent == ["line one\nline two"]
        assert panel.view.bubbles[-1].text == "收到"


async def test_stop_button_cancels_the_reply(tmp_path, llm_server, make_llm, panel_factory, wait):
    async with running_engine(tmp_path / "data", make_llm(streaming=True, timeout=30)) as parts:
        controller, panel = await _attached(panel_factory, parts)
        llm_server.add_hang(20)
        panel.composer.set_text("讲个很长的故事")
        panel.composer.submit()
        await wait(lambda: panel.composer.stop_button.isVisibleTo(panel), message="stop button shown")
        await wait(lambda: llm_server.wait_for_requests(1, timeout=0), timeout=10, message="request reached the server")
        panel.composer.stop_button.click()
        await wait(lambda: not controller.busy, timeout=10, message="stopped")
        bubble = panel.view.bubbles[-1]
        assert bubble.stopped and bubble.stopped_label.isVisibleTo(bubble)  # a calm marker ...
        assert bubble.error_text == "" and not bubble.error_box.isVisibleTo(bubble)  # ... not an error
        assert not bubble.retry_button.isVisibleTo(bubble)
        assert panel.composer.send_button.isVisibleTo(panel)


async def test_sessions_new_rename_delete(tmp_path, llm_server, make_llm, panel_factory, wait):
    async with running_engine(tmp_path / "data", make_llm(streaming=True)) as parts:
        engine = parts[2]
        controller, panel = await _attached(panel_factory, parts)
        assert len(panel.session_ids()) == 1
        first = controller.current_session_id

        await panel.new_session()
        assert len(panel.session_ids()) == 2
        second = controller.current_session_id
        assert second != first and panel.session_list.currentItem().data(Qt.ItemDataRole.UserRole) == second

        item = panel.session_list.currentItem()
        item.setText("周末计划")  # what an in-place edit does
        await wait(lambda: any(s.title == "周末计划" for s in controller.sessions), message="renamed")
        assert (await engine.session(second)).title == "周末计划"

        box = panel.confirm_delete(second)
        box.button(QMessageBox.StandardButton.Yes).click()
        await wait(lambda: len(panel.session_ids()) == 1, message="deleted")
        assert [s.id for s in await engine.list_sessions()] == [first]
        assert controller.current_session_id == first

        # Switching sessions reloads that session's transcript into the view.
        llm_server.add_text("第一条回复")
        controller.send("在第一个会话里说话")
        await wait(lambda: not controller.busy and len(panel.view.bubbles) == 2, timeout=10)
        await panel.new_session()
        assert panel.view.bubbles == []
        await panel.select_session(first)
        assert [b.text for b in panel.view.bubbles] == ["在第一个会话里说话", "第一条回复"]


async def test_delete_chat_question_names_the_action_and_defaults_to_cancel(tmp_path, make_llm, panel_factory):
    """A destructive confirmation names what it does (删除, not 是 / Yes); 取消 is the default and
    the escape button, so Enter or Esc never deletes a chat."""
    async with running_engine(tmp_path / "data", make_llm(streaming=True)) as parts:
        controller, panel = await _attached(panel_factory, parts)
        box = panel.confirm_delete(controller.current_session_id)
        confirm = box.button(QMessageBox.StandardButton.Yes)
        cancel = box.button(QMessageBox.StandardButton.Cancel)
        assert confirm.text() == "删除"
        assert cancel.text() == "取消"
        assert box.defaultButton() is cancel and box.escapeButton() is cancel
        box.reject()


def test_markdown_never_interprets_raw_html():
    html = render_markdown("**粗体** <script>alert(1)</script> <b>x</b>")
    assert "<strong>粗体</strong>" in html
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "<b>" not in html


async def test_a_failed_session_operation_is_reported_not_only_logged(tmp_path, llm_server, make_llm, panel_factory,
                                                                       wait, monkeypatch):
    async with running_engine(tmp_path / "data", make_llm(streaming=True)) as parts:
        controller, panel = await _attached(panel_factory, parts)
        failures = []
        controller.operation_failed.connect(failures.append)
        before = panel.session_ids()

        async def locked(*_args, **_kwargs):
            raise OSError("database is locked")

        monkeypatch.setattr(parts[2], "delete_session", locked)
        await panel.delete_session(controller.current_session_id)
        assert failures and "database is locked" in failures[-1]
        assert panel.session_ids() == before  # nothing half-deleted
        monkeypatch.setattr(parts[2], "create_session", locked)
        await panel.new_session()
        assert len(failures) == 2


async def test_a_huge_paste_is_refused_without_being_laid_out_as_a_message(tmp_path, llm_server, make_llm,
                                                                          panel_factory, wait):
    """A 200,000-character paste sent (the limit is 20,000): it was laid out whole as the sent message
    before the engine refused it, which stopped the UI for 1.0-1.5 s here. Now the message shows only
    its beginning, the reply says it is too long, and the whole text is back in the input. (What it
    costs in time is a benchmark's to say, not a test's: this checks what is laid out.)"""
    async with running_engine(tmp_path / "data", make_llm(streaming=True)) as parts:
        controller, panel = await _attached(panel_factory, parts)
        llm_server.add_text("好的")
        panel.composer.set_text("先聊一句")
        panel.composer.submit()
        await wait(lambda: not controller.busy and len(panel.view.bubbles) == 2 and panel.view.bubbles[1].text,
                   timeout=10)
        pasted = (("很长的一段话，" * 40 + "\n") * 720)[:200_000]
        panel.composer.set_text(pasted)
        panel.composer.submit()
        await wait(lambda: not controller.busy and len(panel.view.bubbles) == 4
                   and panel.view.bubbles[3].error_text, timeout=10, message="refused")
        asked, refused = panel.view.bubbles[2:]
        assert "太长" in refused.error_text and "200000" in refused.error_text
        assert panel.composer.text() == pasted  # nothing lost: back in the input
        assert len(asked.text) < 2_000, f"the refused message was laid out whole ({len(asked.text)} characters)"


async def test_a_memory_switch_that_could_not_be_saved_says_so_and_shows_the_truth(
        tmp_path, llm_server, make_llm, panel_factory, wait):
    """The person unticks 把这次对话写进记忆 (a private chat) while another program holds the chat
    database: nothing is saved, so writing goes on. The menu must not show it off with no word:
    the failure is said and the tick comes back."""
    import sqlite3

    async with running_engine(tmp_path / "data", make_llm(streaming=True)) as parts:
        controller, panel = await _attached(panel_factory, parts)
        failures = []
        controller.operation_failed.connect(failures.append)
        other = sqlite3.connect(tmp_path / "data" / "sessions.db", timeout=0, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # another Sonetto (or sonetto mcp) writing
        try:
            bar = panel.memory_bar
            assert bar.write_action.isChecked()
            bar.write_action.setChecked(False)  # as the menu's click does
            await wait(lambda: failures, timeout=15, message="the failure said")
        finally:
            other.rollback()
            other.close()
        info = controller.current_session
        assert info is not None and info.write, "(nothing was saved)"
        await wait(lambda: bar.write_action.isChecked(), message="the tick back: writing is still on")


SESSIONS_HOLDER = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
print("held", flush=True)
sys.stdin.read()
conn.execute("ROLLBACK")
"""


async def test_a_quick_switch_from_a_saved_chat_to_a_temporary_one_shows_the_temporary_one(
        tmp_path, make_llm, panel_factory, wait):
    """Saved and temporary chats are read from two stores, each waiting only for its own: a click on a
    saved chat whose read waits (another Sonetto or ``sonetto mcp`` is writing the chats' file), then at
    once on a temporary chat, showed the temporary chat, then — when the saved chat's read came back —
    switched by itself to the saved chat, the one clicked before. The last chat chosen is the one shown."""
    import asyncio
    import subprocess
    import sys

    async with running_engine(tmp_path / "data", make_llm(streaming=True)) as parts:
        engine = parts[2]
        controller, panel = await _attached(panel_factory, parts)
        saved = (await engine.create_session("搬家的事")).id
        await engine.turns.store_for(saved).append(saved, "user", "我下个月搬去上海")
        temporary = (await engine.create_session(temporary=True)).id
        await engine.turns.store_for(temporary).append(temporary, "user", "随便聊聊，不用记")
        await controller.refresh_sessions()
        other = next(s.id for s in controller.sessions if s.id not in (saved, temporary))
        await controller.select_session(other)
        args = [sys.executable, "-c", SESSIONS_HOLDER, str(engine.data_dir / "sessions.db")]
        with subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) as holder:
            assert holder.stdout.readline().strip() == "held"
            renaming = asyncio.ensure_future(engine.rename_session(other, "改个名字"))  # waits for the holder
            saved_chats = engine.turns.store_for(saved)
            await wait(lambda: saved_chats._lock.locked(), message="the rename waits for the other process")
            to_saved = asyncio.ensure_future(controller.select_session(saved))
            await asyncio.sleep(0)  # (its first step: its read waits behind the rename)
            assert not to_saved.done()
            await controller.select_session(temporary)
            assert controller.current_session_id == temporary
            holder.stdin.close()
            holder.wait(timeout=10)
        await asyncio.gather(renaming, to_saved)
        assert controller.current_session_id == temporary, "the chat clicked before came back by itself"
        assert [b.text for b in panel.view.bubbles] == ["随便聊聊，不用记"]
