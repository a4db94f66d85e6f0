"""Drafts (issue 30 item 11): what was typed and not sent is kept per chat — across switching chats
and across a restart — and is gone once sent or when its chat is deleted; a temporary chat keeps
none; editing an earlier message puts the draft aside and gives it back."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from llm_server import TextResponse
from shell_fixtures import app_settings, running_app


async def _send(app, wait, text: str) -> None:
    composer = app.window.chat_panel.composer
    composer.set_text(text)
    composer.submit()
    await wait(lambda: app.controller.busy, message="turn started")
    await wait(lambda: not app.controller.busy, timeout=30, message="turn finished")


async def test_a_draft_survives_switching_chats_and_a_restart(qapp, tmp_path, llm_server, wait):
    settings = app_settings(tmp_path / "data", llm_server)
    async with running_app(qapp, settings) as app:
        panel = app.window.chat_panel
        first = app.controller.current_session_id
        panel.composer.set_text("draft 草稿没发")
        await panel.new_session()
        second = app.controller.current_session_id
        assert second != first and panel.composer.text() == ""  # the draft did not follow into another chat
        panel.composer.set_text("第二个对话的草稿")
        await panel.select_session(first)
        assert panel.composer.text() == "draft 草稿没发"
        await panel.select_session(second)
        assert panel.composer.text() == "第二个对话的草稿"
        panel.composer.set_text("第二个对话的草稿，改过")  # quit right after typing: no wait for the timer
    async with running_app(qapp, settings) as app:  # a restart
        panel = app.window.chat_panel
        await wait(lambda: app.controller.current_session_id == second, message="the newest chat open")
        assert panel.composer.text() == "第二个对话的草稿，改过"
        await panel.select_session(first)
        assert panel.composer.text() == "draft 草稿没发"


async def test_a_sent_message_is_no_draft_and_a_deleted_chat_takes_its_draft(qapp, tmp_path, llm_server, wait):
    settings = app_settings(tmp_path / "data", llm_server)
    async with running_app(qapp, settings) as app:
        panel = app.window.chat_panel
        chat = app.controller.current_session_id
        llm_server.add_text("好的", to="chat")
        await _send(app, wait, "这句发出去了")
        assert panel.composer.text() == ""
        await panel.new_session()
        other = app.controller.current_session_id
        panel.composer.set_text("要被删掉的草稿")
        await panel.select_session(chat)
        assert panel.composer.text() == ""  # the sent message did not come back as a draft
        await panel.delete_session(other)
        await asyncio.sleep(0.1)
        assert app.window.drafts.draft(other) == ""
        await panel.new_session(temporary=True)
        panel.composer.set_text("临时对话里的话")
        app.window.drafts.save()
        assert app.window.drafts.draft(app.controller.current_session_id) == ""  # a temporary chat keeps none


async def test_editing_an_earlier_message_puts_the_draft_aside(qapp, tmp_path, llm_server, wait):
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        panel = app.window.chat_panel
        llm_server.add_text("好的", to="chat")
        await _send(app, wait, "原来的话")
        panel.composer.set_text("还没写完的草稿")
        panel.view.bubbles[0].edit_button.click()
        assert panel.composer.text() == "原来的话"
        app.window.drafts.save()
        assert app.window.drafts.draft(app.controller.current_session_id) == "还没写完的草稿"
        panel.composer.cancel_editing()
        assert panel.composer.text() == "还没写完的草稿"
        panel.view.bubbles[0].edit_button.click()
        panel.composer.set_text("改过的话")
        llm_server.add_text("收到", to="chat")
        panel.composer.submit()
        await wait(lambda: not app.controller.busy and panel.view.bubbles[-1].text == "收到", timeout=30)
        assert panel.composer.text() == "还没写完的草稿"  # back after the edit was sent


async def _long_draft_then_a_new_chat(app, book: str):
    """``book`` typed into the current chat, then a new chat opened: (the chat panel, the first chat's
    id, the new one's)."""
    panel = app.window.chat_panel
    first = app.controller.current_session_id
    panel.composer.set_text(book)
    await panel.new_session()
    return panel, first, app.controller.current_session_id


async def test_a_draft_longer_than_the_state_file_keeps_is_not_lost(qapp, tmp_path, llm_server, wait):
    """A pasted book (more than the UI state file keeps) survives switching chats and a restart: it is
    kept beside the state file, not dropped without a word."""
    from sonetto_desktop.ui.chat.drafts import MAX_DRAFT_CHARS

    book = "很长的一段草稿，" * (MAX_DRAFT_CHARS // 8 + 10) + "结尾"
    assert len(book) > MAX_DRAFT_CHARS
    settings = app_settings(tmp_path / "data", llm_server)
    async with running_app(qapp, settings) as app:
        panel, first, second = await _long_draft_then_a_new_chat(app, book)
        assert panel.composer.text() == ""
        await panel.select_session(first)
        await wait(lambda: panel.composer.text() == book, message="the long draft back")
        await panel.select_session(second)
        panel.composer.set_text("短草稿")
    async with running_app(qapp, settings) as app:  # a restart
        panel = app.window.chat_panel
        await wait(lambda: app.controller.current_session_id == second, message="the newest chat open")
        assert panel.composer.text() == "短草稿"
        await panel.select_session(first)
        await wait(lambda: panel.composer.text() == book, message="the long draft read back (by a worker)")
        panel.composer.set_text("")  # sent or cleared: the long draft is gone, its file too
        app.window.drafts.save()
        assert app.window.drafts.draft(first) == ""
        await panel.select_session(second)
        await panel.select_session(first)
        assert panel.composer.text() == ""


async def test_a_deleted_chat_takes_its_long_draft(qapp, tmp_path, llm_server, wait):
    from sonetto_desktop.ui.chat.drafts import MAX_DRAFT_CHARS

    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        panel = app.window.chat_panel
        first = app.controller.current_session_id
        panel.composer.set_text("长" * (MAX_DRAFT_CHARS + 1))
        await panel.new_session()
        assert len(app.window.drafts.draft(first)) == MAX_DRAFT_CHARS + 1
        await panel.delete_session(first)
        await wait(lambda: app.window.drafts.draft(first) == "", message="the long draft gone with its chat")


async def test_a_long_draft_is_written_off_the_qt_thread_and_the_latest_save_wins(qapp, tmp_path, llm_server, wait,
                                                                                  monkeypatch):
    """A long draft's file is written (fsync and all) by a worker, never the Qt thread; a slow earlier
    save never overwrites a later one, the chat shows the later text meanwhile, the file stays owner-only,
    and a long draft typed right before quitting is on disk when the app has shut down."""
    import os
    import stat
    import sys
    import threading

    from sonetto_desktop.ui.chat import drafts as drafts_module
    from sonetto_desktop.ui.chat.drafts import MAX_DRAFT_CHARS

    writers: list[int] = []
    release = threading.Event()
    real_write = drafts_module.atomic_write

    def observed_write(path, payload, **kwargs):  # the real write, its thread noted; the first one slow
        writers.append(threading.get_ident())
        if len(writers) == 1:
            release.wait(2)
        real_write(path, payload, **kwargs)

    monkeypatch.setattr(drafts_module, "atomic_write", observed_write)
    older = "先贴的长草稿，" * (MAX_DRAFT_CHARS // 7 + 1)
    newer = "后来改过的长草稿。" * (MAX_DRAFT_CHARS // 9 + 1)
    last = "退出前刚贴的长草稿；" * (MAX_DRAFT_CHARS // 10 + 1)
    qt_thread = threading.get_ident()
    settings = app_settings(tmp_path / "data", llm_server)
    async with running_app(qapp, settings) as app:
        panel, drafts = app.window.chat_panel, app.window.drafts
        chat = app.controller.current_session_id
        panel.composer.set_text(older)
        drafts.save()
        await wait(lambda: writers, message="the first save's write begun")
        assert writers[0] != qt_thread  # the Qt thread did not write the file
        panel.composer.set_text(newer)
        drafts.save()  # made while the first save is still being written
        assert drafts.draft(chat) == newer
        await panel.new_session()
        await panel.select_session(chat)
        assert panel.composer.text() == newer  # a switch of chats shows the latest text, not the file's
        release.set()
        await drafts.flush()
        path = drafts._long_file(chat)
        assert path.read_text(encoding="utf-8") == newer  # the slower earlier save did not win
        if sys.platform != "win32":
            assert stat.S_IMODE(os.stat(path).st_mode) & 0o077 == 0
            assert stat.S_IMODE(os.stat(path.parent).st_mode) & 0o077 == 0
        panel.composer.set_text(last)  # quit right after: no save asked for, no wait
    assert qt_thread not in writers
    async with running_app(qapp, settings) as app:  # a restart
        await app.window.chat_panel.select_session(chat)
        await wait(lambda: app.window.chat_panel.composer.text() == last, message="the long draft read back")


async def test_what_was_typed_in_the_quick_chat_survives_a_restart(qapp, tmp_path, llm_server, wait):
    """The tray's quick chat kept no draft: text typed there and not sent (the popup closed with Esc,
    the app quit from the tray menu, a logout) was gone at the next start (seen in a real window); the
    main window's input keeps its own. It is kept per chat as the main window's is, and goes once sent."""
    settings = app_settings(tmp_path / "data", llm_server)
    async with running_app(qapp, settings) as app:
        await wait(lambda: app.controller.current_session_id, message="a chat open")
        chat = app.controller.current_session_id
        app.quick_chat.composer.set_text("这段话我还没写完")  # quit right after typing: no wait for the timer
        app.quick_chat.hide()
    async with running_app(qapp, settings) as app:  # a restart
        await wait(lambda: app.controller.current_session_id == chat, message="the chat open again")
        await wait(lambda: app.quick_chat.composer.text() == "这段话我还没写完", message="the quick chat's draft")
        assert app.window.chat_panel.composer.text() == ""  # the main window's input has its own
        llm_server.default = TextResponse("好的")
        app.quick_chat.composer.submit()
        await wait(lambda: app.controller.busy, message="turn started")
        await wait(lambda: not app.controller.busy, timeout=30, message="turn finished")
    async with running_app(qapp, settings) as app:  # sent: no draft any more
        await wait(lambda: app.controller.current_session_id == chat, message="the chat open again")
        await asyncio.sleep(0.1)
        assert app.quick_chat.composer.text() == ""


async def test_a_long_draft_is_read_off_the_qt_thread_and_typing_meanwhile_is_kept(qapp, tmp_path, llm_server, wait,
                                                                                   monkeypatch):
    """Switching to a chat whose draft is in its own file (a pasted book) read that file on the Qt thread.
    It is read by a worker now: meanwhile the composer shows nothing of another chat's, the draft shows
    when it arrives, and what the person typed meanwhile stays, after it (where it would have gone had the
    draft shown at once), the cursor where they type; typed and left before it arrived, it is kept too."""
    import threading
    from pathlib import Path

    from sonetto_desktop.ui.chat.drafts import LONG_DRAFTS, MAX_DRAFT_CHARS

    readers: list[int] = []
    gate = threading.Event()
    real_read = Path.read_text

    def observed_read(self, *args, **kwargs):  # the real read, its thread noted, held until the gate opens
        if self.parent.name == LONG_DRAFTS:
            readers.append(threading.get_ident())
            gate.wait(3)
        return real_read(self, *args, **kwargs)

    book = "一本很长的书，" * (MAX_DRAFT_CHARS // 7 + 1)
    qt_thread = threading.get_ident()
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        panel, drafts = app.window.chat_panel, app.window.drafts
        first = app.controller.current_session_id
        panel.composer.set_text(book)
        await panel.new_session()
        second = app.controller.current_session_id
        panel.composer.set_text("第二个对话的草稿")
        await drafts.flush()
        monkeypatch.setattr(Path, "read_text", observed_read)

        await panel.select_session(first)  # untouched while it loads: the draft, the cursor at its end
        await wait(lambda: readers, message="the long draft's read begun")
        assert readers[0] != qt_thread  # the Qt thread did not read the file
        assert panel.composer.text() == ""  # not the chat left's draft
        gate.set()
        await wait(lambda: panel.composer.text() == book, message="the long draft shown")
        assert panel.composer.input.textCursor().position() == len(book)

        gate.clear()
        await panel.select_session(second)
        await drafts.flush()  # (leaving it saved it again: on disk, so that it is read, not the save's text)
        await panel.select_session(first)
        await wait(lambda: len(readers) == 2, message="read again")
        panel.composer.input.insertPlainText("再补一句")  # typed while it loads
        gate.set()
        await wait(lambda: panel.composer.text() != "再补一句", message="the draft arrived")
        assert panel.composer.text() == book + "再补一句"
        assert panel.composer.input.textCursor().position() == len(book + "再补一句")

        gate.clear()
        await panel.select_session(second)
        await drafts.flush()  # (leaving it saved it again: on disk, so that it is read, not the save's text)
        await panel.select_session(first)
        await wait(lambda: len(readers) == 3, message="read a third time")
        panel.composer.input.insertPlainText("，还有")  # typed, and the chat left, before it arrived
        await panel.select_session(second)
        assert panel.composer.text() == "第二个对话的草稿"
        gate.set()
        await drafts.flush()
        await panel.select_session(first)
        await wait(lambda: panel.composer.text() == book + "再补一句，还有", message="both kept")
    assert qt_thread not in readers


TYPED = "再补一句"


@contextlib.asynccontextmanager
async def _typed_while_a_long_draft_loads(qapp, settings, wait, monkeypatch):
    """A chat whose draft is a pasted book (in its own file) and a second chat with a short draft; the app
    started again on the second, the book's chat chosen and its read held until ``gate`` is set, ``TYPED``
    typed meanwhile: yields (the app, the gate, the book, (the book's chat, the other)). The app quits
    after the block, the gate opened."""
    import threading
    from pathlib import Path

    from sonetto_desktop.ui.chat.drafts import LONG_DRAFTS, MAX_DRAFT_CHARS

    readers: list[int] = []
    gate = threading.Event()
    real_read = Path.read_text

    def observed_read(self, *args, **kwargs):  # a worker's read of a long draft, held until the gate opens
        if self.parent.name == LONG_DRAFTS and threading.current_thread().name != "sonetto-chat-drafts":
            readers.append(threading.get_ident())
            gate.wait(10)
        return real_read(self, *args, **kwargs)

    book = "一本很长的书，" * (MAX_DRAFT_CHARS // 7 + 1)
    async with running_app(qapp, settings) as app:
        panel, first, second = await _long_draft_then_a_new_chat(app, book)
        panel.composer.set_text("第二个对话的草稿")
    try:
        with monkeypatch.context() as patched:
            async with running_app(qapp, settings) as app:
                panel = app.window.chat_panel
                await wait(lambda: app.controller.current_session_id == second, message="the newest chat open")
                patched.setattr(Path, "read_text", observed_read)
                await panel.select_session(first)
                await wait(lambda: readers, message="the long draft's read begun")
                panel.composer.input.insertPlainText(TYPED)  # typed while it loads
                yield app, gate, book, (first, second)
    finally:
        gate.set()


async def _both_kept_after_a_restart(qapp, settings, wait, book: str, chats: tuple[str, str]) -> None:
    """Started again: the book's chat holds the book, then ``TYPED`` (once); the other chat its own draft."""
    first, second = chats
    async with running_app(qapp, settings) as app:
        panel = app.window.chat_panel
        await panel.select_session(first)
        await wait(lambda: panel.composer.text(), message="the draft read back")
        text = panel.composer.text()
        assert text == book + TYPED, text[-30:]
        await panel.select_session(second)
        assert panel.composer.text() == "第二个对话的草稿"


async def test_typing_while_a_long_draft_loads_then_quitting_at_once_keeps_both(qapp, tmp_path, llm_server, wait,
                                                                                 monkeypatch):
    """Characters typed into a chat whose long draft was still being read, and the app quit at once: the
    quit ended the read, and its save of the composer (what was typed, without the draft that had not
    arrived) then replaced the draft ("再补一句" alone after a restart). After a restart both are there: the
    draft, then what was typed."""
    settings = app_settings(tmp_path / "data", llm_server)
    async with _typed_while_a_long_draft_loads(qapp, settings, wait, monkeypatch) as (_app, _gate, book, chats):
        pass  # the app quits at once
    await _both_kept_after_a_restart(qapp, settings, wait, book, chats)


@pytest.mark.parametrize("saved", [True, False], ids=["typing-saved", "typing-not-yet-saved"])
async def test_a_language_switch_while_a_long_draft_loads_keeps_it_and_what_was_typed_once(
        qapp, tmp_path, llm_server, wait, monkeypatch, saved):
    """A chat whose draft is a pasted book (read by a worker), words typed while it loads, and the UI
    language switched before it arrived (the welcome panel's link): the window made anew showed only what
    was typed, for good, and its save replaced the book on disk (had the old window's read, ended with it,
    put what was typed after the book's file, the new window's would have brought it twice). The new
    window takes the read over: the book, then what was typed, once, in the window and after a restart.
    ``saved``: whether the half-second save of what was typed came before the switch."""
    settings = app_settings(tmp_path / "data", llm_server)
    async with _typed_while_a_long_draft_loads(qapp, settings, wait, monkeypatch) as (app, gate, book, chats):
        old_window = app.window
        if saved:
            app.window.drafts.save()  # (what its half-second timer does)
        await app.choose_language("en")  # the views made anew while the read is held
        assert app.window is not old_window
        composer = app.window.chat_panel.composer
        gate.set()
        await wait(lambda: len(composer.text()) > len(TYPED), message="the draft arrived")
        assert composer.text() == book + TYPED, composer.text()[-30:]
        app.window.drafts.save()  # (what its half-second timer does: on disk, checked after the restart)
        await app.window.drafts.flush()
    await _both_kept_after_a_restart(qapp, settings, wait, book, chats)
