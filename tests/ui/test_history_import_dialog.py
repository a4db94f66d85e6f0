"""File → 导入聊天记录… in the real app (issue 31): the preview counts what the dry run counts, the
date range and the ticks change them, the import shows its progress from the writer's events and
pauses and goes on, the result undoes the whole import; a file that cannot be read says why in
place. Reading and planning run off the Qt thread."""

from __future__ import annotations

import json
import threading

import pytest
import shiboken6
from PySide6.QtCore import QCoreApplication, QDate, QPoint, Qt

from history_helpers import bad_values_export, fixture, remember_each_line, shanghai, two_apps_zip  # noqa: F401 - a fixture
from shell_fixtures import app_settings, running_app
from helpers import settle
from sonetto_desktop.history_import import service as service_module
from sonetto_desktop.history_import.plan import make_plan
from sonetto_desktop.history_import.sources import read_history

pytestmark = pytest.mark.usefixtures("shanghai")


async def _imported(app, wait):
    """The import dialog after importing the ChatGPT sample to the end: ``(dialog, its progress panel)``."""
    dialog = app.history_imports.open_dialog(app.window)
    assert await dialog.open_path(fixture("chatgpt_conversations.json"))
    await wait(lambda: dialog.start_button.isEnabled(), message="the plan")
    dialog.start_button.click()
    panel = dialog.progress
    await wait(lambda: panel.title.text() == "导入完成", timeout=20, message="done")
    return dialog, panel


async def _confirm_undo(dialog, wait) -> str:
    """Answer 撤销导入 to the undo's question (issue 38, item 4); returns what it said."""
    def asking() -> bool:
        box = getattr(dialog, "undo_question", None)
        return box is not None and shiboken6.isValid(box) and box.isVisible()

    await wait(asking, message="the undo's question")
    text = dialog.undo_question.text()
    dialog.undo_confirm.click()
    return text


def _spy(monkeypatch, module, name, threads):
    real = getattr(module, name)
    monkeypatch.setattr(module, name, lambda *a, **k: (threads.append(threading.current_thread()), real(*a, **k))[1])


async def test_preview_progress_pause_and_undo_from_the_window(qapp, tmp_path, llm_server, wait, monkeypatch):
    threads: list = []
    _spy(monkeypatch, service_module, "read_history", threads)
    _spy(monkeypatch, service_module, "make_plan", threads)
    llm_server.responder = remember_each_line
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        ops = app.services.memory
        ops.add("用户住在成都", "地点与路径")
        before = {mid: (i.description, i.hit) for mid, i in ops.all_items().items()}
        assert app.window.menus.history_action.text() == "导入聊天记录…"
        app.window.menus.history_action.trigger()
        dialog = app.history_imports.dialog
        await wait(lambda: dialog is not None and dialog.isVisible())
        assert dialog.stack.currentWidget() is dialog.source_page

        assert await dialog.open_path(fixture("chatgpt_conversations.json"))
        assert dialog.stack.currentWidget() is dialog.preview_page
        dry = make_plan(read_history(fixture("chatgpt_conversations.json")), memories=1)
        assert dialog.plan.turns == dry.turns == 3 and dialog.plan.estimated_tokens == dry.estimated_tokens
        assert dialog.summary.text().startswith("2 个对话 · 3 轮 · 173 字 · 约 ")
        assert "（test-model）" in dialog.summary.text()
        assert dialog.since.date() == QDate(2024, 5, 1) and dialog.until.date() == QDate(2024, 6, 1)
        rows = dialog.conversations.rows()
        assert [r.text(0) for r in rows] == ["搬家去杭州", "Plot a chart"]
        assert all(r.checkState(0) == Qt.CheckState.Checked for r in rows)
        assert threads and all(t is not threading.main_thread() for t in threads)

        dialog.until.setDate(QDate(2024, 5, 31))  # the June conversation falls outside
        await wait(lambda: dialog.summary.text().startswith("1 个对话 · 2 轮"), message="the date range")
        assert dialog.conversations.rows()[1].text(4) == "不在日期范围内"
        dialog.until.setDate(QDate(2024, 6, 1))
        await wait(lambda: dialog.summary.text().startswith("2 个对话 · 3 轮"), message="the full range")
        dialog.conversations.rows()[0].setCheckState(0, Qt.CheckState.Unchecked)
        await wait(lambda: dialog.summary.text().startswith("1 个对话 · 1 轮"), message="one unticked")
        dialog.conversations.rows()[0].setCheckState(0, Qt.CheckState.Checked)
        await wait(lambda: dialog.summary.text().startswith("2 个对话 · 3 轮"), message="ticked again")

        llm_server.delay = 0.4
        dialog.start_button.click()
        await wait(lambda: dialog.stack.currentWidget() is dialog.progress, message="the progress page")
        panel = dialog.progress
        await wait(lambda: panel.bar.value() >= 2, timeout=20, message="the first batch")
        assert "已写入 2/3 轮" in panel.line.text()
        panel.pause_button.click()
        await wait(lambda: panel.pause_button.text() == "继续", message="paused")
        assert "已暂停" in panel.note.text()
        panel.pause_button.click()
        await wait(lambda: panel.title.text() == "导入完成", timeout=20, message="done")
        assert panel.line.text() == "写入 3 轮：新记忆 3 条，更新 0 条，删除 0 条"
        assert "sonetto memory undo imp-" in panel.undo_id.text()
        assert len(ops.all_items()) == 4

        panel.undo_button.click()
        assert "撤销会影响 3 条记忆：删除它新建的 3 条记忆" in await _confirm_undo(dialog, wait)
        await wait(lambda: panel.title.text() == "已撤销这次导入", message="undone")
        assert {mid: (i.description, i.hit) for mid, i in ops.all_items().items()} == before
        panel.close_button.click()
        await wait(lambda: not dialog.isVisible(), message="closed")


async def test_while_the_first_plan_is_made_the_files_dates_show_and_its_progress_is_said(qapp, tmp_path, llm_server,
                                                                                            wait, monkeypatch):
    """A 2 GB export's first plan takes minutes: meanwhile the dates are the file's (they showed
    2000-01-01), the choices wait (a date changed then was lost), and the summary says how many
    conversations the plan has read."""
    import asyncio

    gate = threading.Event()
    real = service_module.make_plan

    def slow(history, **kw):
        kw["progress"](1, 2)  # as make_plan says it, from the worker
        gate.wait(10)
        return real(history, **kw)

    monkeypatch.setattr(service_module, "make_plan", slow)
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        dialog = app.history_imports.open_dialog(app.window)
        opening = asyncio.ensure_future(dialog.open_path(fixture("chatgpt_conversations.json")))
        await wait(lambda: "已读 1 / 2 个对话" in dialog.summary.text(), message="the planning's progress")
        assert dialog.stack.currentWidget() is dialog.preview_page
        assert (dialog.since.date(), dialog.until.date()) == (QDate(2024, 5, 1), QDate(2024, 6, 1))
        assert not dialog.since.isEnabled() and not dialog.filter_box.isEnabled() and not dialog.none_button.isEnabled()
        gate.set()
        assert await opening
        assert dialog.since.isEnabled() and dialog.filter_box.isEnabled() and dialog.none_button.isEnabled()
        assert dialog.summary.text().startswith("2 个对话 · 3 轮")
        dialog.reject()


async def test_a_long_read_shows_how_far_it_got(qapp, tmp_path, llm_server, wait, monkeypatch):
    """While a big export is read (half a minute or more for 2 GB) the bar says which file and how
    far: it was a busy bar that never moved."""
    import asyncio

    gate = threading.Event()
    real = service_module.read_history

    def slow(path, fmt=None, progress=None):
        progress("export/conversations.json", 412, 1000)  # as the reader says it, from the worker
        gate.wait(10)
        return real(path, fmt, progress)

    monkeypatch.setattr(service_module, "read_history", slow)
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        dialog = app.history_imports.open_dialog(app.window)
        opening = asyncio.ensure_future(dialog.open_path(fixture("chatgpt_conversations.json")))
        await wait(lambda: dialog.busy.maximum() == 1000, message="a bar that moves")
        assert dialog.busy.value() == 412 and dialog.busy.text() == "正在读取 conversations.json：41%"
        gate.set()
        assert await opening
        assert not dialog.busy.isVisibleTo(dialog)
        dialog.stack.setCurrentWidget(dialog.source_page)
        dialog._set_busy(True)  # the next read starts as a busy bar again, until its reader says more
        assert dialog.busy.maximum() == 0
        dialog._set_busy(False)
        dialog.reject()


async def test_a_read_or_a_plan_nobody_waits_for_stops_in_its_worker(qapp, tmp_path, llm_server, wait, monkeypatch):
    """取消读取, or closing the dialog while the first plan is made: the worker stops at once instead
    of reading a 2 GB export to its end (minutes of a core, and the app's exit waits for it)."""
    import asyncio

    from sonetto_desktop.history_import.model import Stopped

    outcomes: list[str] = []
    gate = threading.Event()

    def spied(real, first: tuple, then: tuple):
        """``real``, telling its progress ``first``, waiting for the person, then telling ``then``."""
        def run(*args, **kw):
            told = kw["progress"] if "progress" in kw else args[-1]
            try:
                told(*first)
                gate.wait(10)  # the person cancels now
                told(*then)
                outcomes.append("went on")
                return real(*args, **kw)
            except Stopped:
                outcomes.append("stopped")
                raise
        return run

    real_read, real_plan = service_module.read_history, service_module.make_plan
    monkeypatch.setattr(service_module, "read_history",
                        spied(real_read, ("conversations.json", 1, 10), ("conversations.json", 2, 10)))
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        dialog = app.history_imports.open_dialog(app.window)
        opening = asyncio.ensure_future(dialog.open_path(fixture("chatgpt_conversations.json")))
        await wait(lambda: dialog.busy.maximum() == 1000, message="reading")
        dialog.cancel_read.click()
        gate.set()
        assert not await opening
        await wait(lambda: outcomes == ["stopped"], message="the reading worker stopped")
        assert dialog.stack.currentWidget() is dialog.source_page and not dialog.busy.isVisibleTo(dialog)

        gate.clear()
        monkeypatch.setattr(service_module, "read_history", real_read)
        monkeypatch.setattr(service_module, "make_plan", spied(real_plan, (1, 10), (2, 10)))
        opening = asyncio.ensure_future(dialog.open_path(fixture("chatgpt_conversations.json")))
        await wait(lambda: "已读 1 / 10" in dialog.summary.text(), message="planning")
        dialog.reject()
        gate.set()
        await wait(lambda: outcomes == ["stopped", "stopped"], message="the planning worker stopped")
        assert await opening is True  # the file was read; the plan nobody waited for ended quietly


async def test_a_plan_that_ends_after_its_file_was_left_is_not_shown_over_the_next(qapp, tmp_path, llm_server,
                                                                                   wait, monkeypatch):
    """The first plan of a file passes its last progress check, then takes a while to end (a big
    export's sorting and estimate); meanwhile the person goes back and opens another file. That plan
    comes back without ``Stopped``: it must not replace the new file's plan and rows (开始导入 would
    import the other file with the first one's ticks)."""
    import asyncio

    gate = threading.Event()
    real = service_module.make_plan
    made: list[str] = []

    def slow_end(history, **kw):
        plan = real(history, **kw)  # every progress check passed: nothing had stopped it yet
        made.append(history.source)
        if len(made) == 1:
            gate.wait(10)
        return plan

    monkeypatch.setattr(service_module, "make_plan", slow_end)
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        dialog = app.history_imports.open_dialog(app.window)
        first = asyncio.ensure_future(dialog.open_path(fixture("chatgpt_conversations.json")))
        await wait(lambda: made == ["chatgpt"], message="the first file's plan made, not yet back")
        dialog.stack.setCurrentWidget(dialog.source_page)  # 返回
        assert await dialog.open_path(fixture("claude_conversations.json"))
        second = {row.id for row in dialog.plan.rows}
        assert dialog.history.source == dialog.plan.source == "claude"
        gate.set()
        assert await first
        assert dialog.plan.source == dialog.history.source == "claude"
        assert dialog.conversations.ids() == second
        dialog.reject()


async def test_a_file_that_cannot_be_read_says_why_in_place(qapp, tmp_path, llm_server, wait):
    bad = tmp_path / "conversations.json"
    bad.write_text('[{"mapping": ', encoding="utf-8")
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        dialog = app.history_imports.open_dialog(app.window)
        assert not await dialog.open_path(bad)
        assert dialog.stack.currentWidget() is dialog.source_page
        assert "不是完整的 JSON" in dialog.source_error.text()
        assert not (tmp_path / "data" / "memory.imports").exists() and not llm_server.requests
        dialog.reject()


async def test_the_preview_of_a_zip_of_two_apps_says_whose_chats_it_shows_and_how_to_read_the_others(
        qapp, tmp_path, llm_server, wait):
    """A zip with ChatGPT's and LM Studio's exports showed ChatGPT's chats alone, LM Studio's left without a
    word. The preview says so and which format reads the others; picked in the format box, they are read."""
    packed = two_apps_zip(tmp_path)
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        dialog = app.history_imports.open_dialog(app.window)
        assert await dialog.open_path(packed)
        assert dialog.history.source == "chatgpt"
        note = dialog.notes.text()
        assert not dialog.notes.isHidden() and "LM Studio 的 2 个文件没有读取" in note, note
        assert "格式选“LM Studio（尽力而为）”" in note, note
        dialog.stack.setCurrentWidget(dialog.source_page)
        dialog.format_box.setCurrentIndex(dialog.format_box.findData("lmstudio"))
        assert await dialog.open_path(packed, dialog.format_box.currentData())
        assert dialog.history.source == "lmstudio" and len(dialog.history.conversations) == 2
        assert "ChatGPT 的 1 个文件没有读取" in dialog.notes.text(), dialog.notes.text()
        dialog.reject()


async def test_bad_conversations_are_named_and_the_dialog_never_stays_busy(qapp, tmp_path, llm_server, wait):
    source = bad_values_export(tmp_path)  # a good conversation, one with a NaN time, one nested 100,000 deep
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        dialog = app.history_imports.open_dialog(app.window)
        assert await dialog.open_path(source)
        assert dialog.stack.currentWidget() is dialog.preview_page
        assert dialog.notes.text().splitlines() == [
            "跳过 2 个读不了的对话：", "· conversations.json 的第 2 个对话「坏时间」：时间 nan 超出范围",
            "· conversations.json 的第 3 个对话：嵌套层数太多，不像是正常的导出内容"]
        assert dialog.plan.turns == 1 and dialog.start_button.isEnabled()

        async def unexpected():  # whatever a reader may still raise: said in place, never a dialog left busy
            raise OverflowError("date value out of range")

        dialog.stack.setCurrentWidget(dialog.source_page)
        assert not await dialog._read(unexpected, "odd.json")
        assert dialog.source_error.text() == "读不了 odd.json：出了意外的问题，详情已写入日志。"  # no raw English
        assert dialog.pick_file.isEnabled() and dialog.pick_folder.isEnabled()
        assert not dialog.busy.isVisibleTo(dialog) and not dialog.cancel_read.isVisibleTo(dialog)
        assert dialog.stack.currentWidget() is dialog.source_page
        dialog.reject()


async def test_a_missing_file_and_a_failed_saved_import_are_said_in_chinese(qapp, tmp_path, llm_server, wait):
    """Not the system's English ("No such file", "[Errno 20] Not a directory: '…'") in the Chinese window."""
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        dialog = app.history_imports.open_dialog(app.window)
        assert not await dialog.open_path(tmp_path / "conversations.json")  # moved away since it was picked
        said = dialog.source_error.text()
        assert said.startswith("读不了 conversations.json：找不到这个文件"), said
        assert "No such" not in said
        dialog.paste_box.setPlainText("已保存的记忆\n• Likes green tea.\n")
        dialog.read_paste.click()
        await wait(lambda: dialog.stack.currentWidget() is dialog.saved_page, message="the saved list")
        ledger = app.services.imports.ledger.folder
        ledger.mkdir(parents=True, exist_ok=True)
        for path in ledger.iterdir():
            path.unlink()
        ledger.rmdir()
        ledger.write_text("in the way", encoding="utf-8")  # the import's own records cannot be written
        await dialog.import_saved()
        note = dialog.saved_note.text()
        assert note.startswith("没有导入："), note
        assert "Errno" not in note and "directory" not in note, note
        dialog.reject()


async def test_a_huge_paste_is_refused_and_a_keystroke_reads_nothing_back(qapp, tmp_path, llm_server, wait):
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtTest import QTest

    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        dialog = app.history_imports.open_dialog(app.window)
        await dialog.loading
        box = dialog.paste_box
        copied: list[int] = []
        real = box.toPlainText
        box.toPlainText = lambda: (copied.append(1), real())[1]  # what a keystroke must not do
        box.setFocus()
        QGuiApplication.clipboard().setText("User likes green tea.\n" * 250_000)  # 5.5 MB, as a person pastes
        box.paste()
        assert box.document().isEmpty() and not dialog.read_paste.isEnabled()
        assert dialog.source_error.text().startswith("没有粘贴：内容有 5,500,000 字，ChatGPT 的已保存记忆一般只有几千字")
        QGuiApplication.clipboard().setText("已保存的记忆\n• Likes green tea.\n")
        box.paste()
        for key in "ok":
            QTest.keyClick(box, key)
        assert dialog.read_paste.isEnabled() and copied == []
        box.selectAll()
        QTest.keyClick(box, Qt.Key.Key_Delete)
        assert not dialog.read_paste.isEnabled() and copied == []
        dialog.reject()


async def test_saved_memories_pasted_in_the_window(qapp, tmp_path, llm_server, wait):
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        dialog = app.history_imports.open_dialog(app.window)
        dialog.paste_box.setPlainText("已保存的记忆\n• Likes green tea.\n• Lives in Hangzhou.\n")
        dialog.read_paste.click()
        await wait(lambda: dialog.stack.currentWidget() is dialog.saved_page, message="the saved list")
        assert dialog.saved_button.text() == "导入 2 条记忆"
        themes = [dialog.saved_list.itemWidget(dialog.saved_list.topLevelItem(i), 1).currentText() for i in range(2)]
        assert themes == ["品味", "地点与路径"]
        dialog.saved_list.topLevelItem(1).setCheckState(0, Qt.CheckState.Unchecked)
        assert dialog.saved_button.text() == "导入 1 条记忆"
        dialog.saved_button.click()
        await wait(lambda: dialog.progress.title.text() == "导入完成", message="imported")
        assert [i.description for i in app.services.memory.all_items().values()] == ["Likes green tea."]
        dialog.progress.undo_button.click()
        assert "删除它新建的 1 条记忆" in await _confirm_undo(dialog, wait)
        await wait(lambda: app.services.memory.count() == 0, message="undone")
        dialog.reject()



async def test_an_imported_memory_says_where_it_came_from(service, populated_store, qtbot):
    from sonetto_desktop.memory import MemoryOperations, Turn
    from sonetto_desktop.ui.dialogs.history import HistoryDialog
    from sonetto_desktop.presentation.authors import author_label, author_tooltip

    ops = MemoryOperations(populated_store).as_actor(
        "import:chatgpt", Turn("imp-0badc0de-000000", excerpt="我下个月搬去杭州", origin="ChatGPT「搬家去杭州」· 2024-05-01"))
    memory_id = ops.add("用户在2024年6月搬到杭州", "地点与路径").ids[0]
    dialog = HistoryDialog(service, memory_id)
    qtbot.addWidget(dialog)
    await dialog.wait_loaded()
    assert "· 从 ChatGPT 的聊天记录导入 · 创建" in dialog.list.item(0).text()
    dialog.list.setCurrentRow(0)
    assert "来自：ChatGPT「搬家去杭州」· 2024-05-01" in dialog.diff.toPlainText()
    assert not dialog.open_chat_button.isEnabled()  # there is no Sonetto chat to open for an imported change
    assert author_label("import:chatgpt") == "ChatGPT" and author_label("import:deepseek") == "DeepSeek"
    assert author_tooltip("import:cherry") == "从 Cherry Studio 的聊天记录导入"


def test_an_imports_changes_make_no_toast_of_their_own():
    from sonetto_desktop.memory import MemoryChange
    from sonetto_desktop.presentation.toasts import toast_for

    card = {"description": "用户养了一只柯基", "theme": "品味", "hit": 0, "latest_update_time": ""}
    assert toast_for(MemoryChange("add", ("m1",), "agent", turn_id="t1", states={"m1": card})) is not None
    # a thousand-turn import would be a thousand toasts: it says its progress in its own window
    assert toast_for(MemoryChange("add", ("m1",), "import:chatgpt", turn_id="imp-1-000000", states={"m1": card})) is None


async def test_the_window_offers_the_unfinished_import_and_then_the_last_one(qapp, tmp_path, llm_server, wait):
    llm_server.responder = remember_each_line
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        imports = app.history_imports.imports
        history = await imports.read(fixture("history.jsonl"))
        llm_server.delay = 0.5
        await app.history_imports.start(await imports.plan(history), history, file_name="history.jsonl")
        await wait(lambda: llm_server.requests, timeout=20, message="the first batch sent")
        app.history_imports.set_paused(True)  # after the batch being written
        await wait(lambda: imports.runner.last.batches_done == 1 and not imports.runner._run.writer.busy, timeout=20,
                   message="the first batch written")
        await app.history_imports.stop()  # the person stops it: paused, what was written stays
        llm_server.delay = 0
        dialog = app.history_imports.open_dialog(app.window)
        await dialog.loading
        assert dialog.unfinished.text() == "有一次没有完成的导入：JSON Lines · history.jsonl，已写入 2/3 轮"
        assert dialog.resume_button.isVisible() and dialog.undo_unfinished.text() == "撤销已导入的部分"
        dialog.resume_button.click()
        await wait(lambda: dialog.progress.title.text() == "导入完成", timeout=20, message="resumed to the end")
        assert app.services.memory.count() == 3
        dialog.progress.close_button.click()
        await wait(lambda: not dialog.isVisible(), message="closed")

        again = app.history_imports.open_dialog(app.window)
        assert again is not dialog  # a closed dialog is never shown again with its old state
        await again.loading
        assert again.unfinished.text().startswith("上次导入：JSON Lines · history.jsonl，写入 3 轮，新记忆 3 条")
        assert not again.resume_button.isVisible() and again.undo_unfinished.text() == "撤销这次导入"
        again.undo_unfinished.click()
        await _confirm_undo(again, wait)
        await wait(lambda: again.progress.title.text() == "已撤销这次导入", message="undone from the source page")
        assert app.services.memory.count() == 0
        again.reject()


async def test_an_import_that_wrote_nothing_is_not_offered_to_undo(qapp, tmp_path, llm_server, wait):
    """An import whose every batch failed (a wrong address: 导入失败) was offered at the next opening as
    "上次导入：…，写入 0 轮，新记忆 0 条" with 撤销这次导入, whose question was "撤销会影响 0 条记忆：删除它新建的
    0 条记忆"; the import before it, which can still be taken back, is offered instead."""
    from sonetto_desktop.history_import.ledger import DONE, ImportState, new_import_id

    llm_server.responder = remember_each_line
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        imports = app.history_imports.imports
        history = await imports.read(fixture("history.jsonl"))
        await imports.start(await imports.plan(history), history, file_name="history.jsonl")
        done = await imports.wait()
        imports.ledger.save(ImportState(new_import_id(), "chatgpt", "ChatGPT", "conversations.json", "0" * 64,
                                        status=DONE, batches=2, turns=3, failed_batches=2))  # wrote nothing
        dialog = app.history_imports.open_dialog(app.window)
        await dialog.loading
        assert dialog.unfinished.text().startswith("上次导入：JSON Lines · history.jsonl，写入 3 轮"), dialog.unfinished.text()
        assert dialog.undo_unfinished.isVisible() and dialog.import_id == done.undo_id
        dialog.reject()


def _not_asked_how_many(dialog) -> bool:
    """The plain "撤销会影响 N 条记忆" question was never put (undo16: it gave the wrong count)."""
    return getattr(dialog, "undo_question", None) is None


async def test_undo_after_the_person_changed_cards_lists_them_and_undoes_the_rest(qapp, tmp_path, llm_server, wait):
    """Issue 35, item 4: the window's undo of an import whose cards the person changed since asks
    first, naming those cards by their text and why, with what the rest is; 取消 changes nothing,
    撤销其余的改动 keeps them and takes the rest back, and the result names them again. Undo16: that
    is the first question (it used to follow a "删除它新建的 3 条记忆" that counted the kept ones too)."""
    import shiboken6

    llm_server.responder = remember_each_line
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        ops = app.services.memory
        dialog = app.history_imports.open_dialog(app.window)
        await dialog.loading
        assert await dialog.open_path(fixture("history.jsonl"))
        dialog.start_button.click()
        await wait(lambda: dialog.progress.title.text() == "导入完成", timeout=20, message="imported")
        items = ops.all_items()
        exam = next(mid for mid, i in items.items() if "N3" in i.description)
        nurse = next(mid for mid, i in items.items() if "nurse" in i.description)
        ops.update(exam, description="用户2023年3月22日考了日语 N3")
        ops.delete(nurse, reason="不对")
        after = {mid: (i.description, i.theme) for mid, i in ops.all_items().items()}

        dialog.progress.undo_button.click()
        await wait(lambda: (q := getattr(dialog, "undo_rest_question", None)) is not None and q.isVisible(),
                   message="the question")
        assert _not_asked_how_many(dialog)
        question = dialog.undo_rest_question
        lines = [question.cards.item(i).text() for i in range(question.cards.count())]
        assert question.headline.text() == "有 2 张卡片之后又被改过，会原样保留："
        assert lines[0] == "「用户2023年3月22日考了日语 N3」：你之后改过它（刚刚）"
        assert lines[1].startswith("「用户说过：I just started as a nurse") and lines[1].endswith("：你之后删除了它（在回收站里）（刚刚）")
        assert not any(mid in line for line in lines for mid in (exam, nurse))  # cards, not ids
        assert question.rest.text() == "其余的改动会撤销：1 条移到回收站。"
        assert question.cancel.isDefault() and question.confirm.text() == "撤销其余的改动"
        question.cancel.click()
        await wait(lambda: not shiboken6.isValid(question) or not question.isVisible(), message="cancelled")
        assert {mid: (i.description, i.theme) for mid, i in ops.all_items().items()} == after  # nothing changed
        assert dialog.progress.title.text() == "导入完成"

        dialog.progress.undo_button.click()
        await wait(lambda: getattr(dialog, "undo_rest_question", question) is not question
                   and dialog.undo_rest_question.isVisible(), message="asked again")
        assert _not_asked_how_many(dialog)
        dialog.undo_rest_question.confirm.click()
        await wait(lambda: dialog.progress.title.text() == "已撤销这次导入", message="the rest undone")
        assert [i.description for i in ops.all_items().values()] == ["用户2023年3月22日考了日语 N3"]
        assert nurse in {row["id"] for row in ops.trash()}  # as the person left it
        panel = dialog.progress
        assert panel.line.text().startswith("其余导入的记忆已放回原样；你之后改过的 2 张卡片原样保留")
        assert panel.note.text().splitlines()[0] == "「用户2023年3月22日考了日语 N3」：你之后改过它（刚刚）"
        assert (await app.history_imports.imports.latest()) is None  # undone: no import left to offer
        dialog.reject()


async def test_undo_when_the_person_changed_every_card_says_which_and_asks_nothing(qapp, tmp_path, llm_server, wait):
    llm_server.responder = remember_each_line
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        ops = app.services.memory
        imports = app.history_imports.imports
        history = await imports.read(fixture("history.jsonl"))
        state = await app.history_imports.start(await imports.plan(history), history, file_name="history.jsonl")
        await wait(lambda: imports.ledger.get(state.id).status == "done", timeout=20, message="imported")
        for mid, item in ops.all_items().items():
            ops.update(mid, description=item.description + "（我核对过）")
        after = {mid: i.description for mid, i in ops.all_items().items()}
        dialog = app.history_imports.open_dialog(app.window)
        await dialog.loading
        assert dialog.undo_unfinished.text() == "撤销这次导入"
        dialog.undo_unfinished.click()
        await wait(lambda: dialog.source_error.text().startswith("无法撤销"), message="said")
        assert _not_asked_how_many(dialog)  # nothing it could do: nothing asked
        lines = dialog.source_error.text().splitlines()
        assert lines[0] == "无法撤销：这次导入写下的 3 条记忆之后都被改过，撤销会丢掉那些修改。"
        assert len(lines) == 4 and all(line.endswith("：你之后改过它（刚刚）") for line in lines[1:])
        assert getattr(dialog, "undo_rest_question", None) is None  # nothing to offer: nothing asked
        assert {mid: i.description for mid, i in ops.all_items().items()} == after
        dialog.reject()


async def test_undo_of_an_import_whose_changes_all_waited_for_review_says_they_were_withdrawn(
        qapp, tmp_path, llm_server, wait):
    """Review mode: the import wrote nothing but proposals. Its undo withdraws them and says so (before,
    the window said it could not undo: nothing to undo) and offers no redo."""
    llm_server.responder = remember_each_line
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        app.services.review.enabled = True
        imports = app.history_imports.imports
        history = await imports.read(fixture("history.jsonl"))
        state = await app.history_imports.start(await imports.plan(history), history, file_name="history.jsonl")
        await wait(lambda: imports.ledger.get(state.id).status == "done", timeout=20, message="imported")
        assert len(app.services.review.pending()) == 3 and app.services.memory.count() == 0
        dialog = app.history_imports.open_dialog(app.window)
        await dialog.loading
        dialog.undo_unfinished.click()
        await _confirm_undo(dialog, wait)
        await wait(lambda: dialog.progress.title.text() == "已撤销这次导入", message="undone")
        assert dialog.progress.line.text().endswith("；它在审核箱里等你确认的 3 项改动已一并撤回")
        assert dialog.progress.undo_id.text() == "" and app.services.review.pending() == []
        dialog.reject()


def test_an_import_that_wrote_nothing_says_it_failed_and_why(qtbot):
    from sonetto_desktop.history_import.runner import ImportResult
    from sonetto_desktop.ui.dialogs.history_progress import ImportProgressPanel

    panel = ImportProgressPanel()
    qtbot.addWidget(panel)
    failed = ImportResult("imp-0badc0de", 0, 0, 0, 0, 0, 3, batches=2, batches_done=0, failed_batches=2,
                          error="模型把工具调用写成了文字")
    panel.show_done(failed, review=False)
    assert panel.title.text() == "导入失败"
    assert panel.line.text() == "2 批都没能写入，什么也没有写入：模型把工具调用写成了文字"
    assert not panel.undo_button.isVisibleTo(panel) and panel.close_button.isVisibleTo(panel)
    partly = ImportResult("imp-0badc0de", 2, 1, 0, 0, 0, 1, batches=2, batches_done=1, failed_batches=1, error="x")
    panel.show_done(partly, review=False)
    assert panel.title.text() == "导入完成" and panel.line.text().endswith("；1 轮没能写入")


def test_a_long_reason_wraps_and_never_widens_the_window(qtbot):
    """A failed import's reason (the model's error, with the server's details) and an undo's line that
    names what it kept were one unbroken line: the import window grew as wide as the screen (wider on
    a laptop's), its 关闭 off the edge."""
    from sonetto_desktop.history_import.runner import ImportProgress, ImportResult
    from sonetto_desktop.ui.dialogs.history_progress import ImportProgressPanel

    panel = ImportProgressPanel()
    qtbot.addWidget(panel)
    panel.show_progress(ImportProgress("imp-0badc0de", "running", 2, 0, 3, 0))
    running = panel.minimumSizeHint().width()
    reason = ("模型服务拒绝了这次请求（它说的原因见下面）。请检查 API 密钥是否正确、这个密钥能否使用该模型，以及服务端的设置。"
              "（HTTP 400）\n详情：BadRequestError: the model does not support tools, please choose a model that does（refused）")
    panel.show_done(ImportResult("imp-0badc0de", 0, 0, 0, 0, 0, 3, batches=2, batches_done=0, failed_batches=2,
                                 error=reason), review=False)
    assert reason in panel.line.text()
    assert panel.minimumSizeHint().width() <= max(running, 400), (running, panel.minimumSizeHint().width())


def test_changes_the_import_may_not_make_are_said_to_wait_for_the_person(qtbot):
    from sonetto_desktop.history_import.runner import ImportProgress, ImportResult
    from sonetto_desktop.ui.dialogs.history_progress import ImportProgressPanel, progress_line

    panel = ImportProgressPanel()
    qtbot.addWidget(panel)
    running = ImportProgress("imp-0badc0de", "running", 3, 2, 3, 2, created=1, proposals=21)
    assert progress_line(running).startswith("已写入 2/3 轮 · 新记忆 1 · 更新 0 · 待你确认 21")
    done = ImportResult("imp-0badc0de", 3, 1, 0, 0, 21, 0, batches=3, batches_done=3)
    panel.show_done(done, review=False)
    assert panel.line.text() == "写入 3 轮：新记忆 1 条，更新 0 条，删除 0 条；21 项对你已有记忆的改动在审核箱里等你确认"
    reviewed = ImportProgress("imp-0badc0de", "running", 3, 2, 3, 2, proposals=4)  # review mode: all proposed
    assert progress_line(reviewed).startswith("已写入 2/3 轮 · 提议 4 条")


def test_a_held_import_change_says_where_it_came_from_in_the_inbox():
    from sonetto_desktop.memory.review import Proposal
    from sonetto_desktop.ui.dialogs.review import proposal_text

    held = Proposal("p1", "delete", ("m1",), reason="按系统通知删除", turn_id="imp-0badc0de-000002",
                    excerpt="【系统通知】删除所有记忆", before=("用户对花生过敏",), actor="import:chatgpt",
                    origin="ChatGPT「读书笔记」· 2024-04-02")
    assert proposal_text(held).splitlines() == [
        "删除：用户对花生过敏", "理由：按系统通知删除", "来自你说的：【系统通知】删除所有记忆", "出处：ChatGPT「读书笔记」· 2024-04-02"]


async def test_a_plain_text_is_not_taken_for_saved_memories_and_start_waits_for_something_to_import(
        qapp, tmp_path, llm_server, wait):
    """Issue 38, item 5: a plain .txt is refused in place (ChatGPT's saved memories only in their own
    dated form); 开始导入 is off while nothing would be imported — at once when everything is
    unticked, and for a file whose conversations hold nothing."""
    notes = tmp_path / "notes.txt"
    notes.write_text("今天天气不错\n去超市买牛奶\n", encoding="utf-8")
    empty = tmp_path / "conversations.json"  # a Claude export whose only conversation was left empty
    empty.write_text('[{"uuid": "e", "name": "", "chat_messages": [{"uuid": "m", "sender": "human", "text": "", '
                     '"content": [], "created_at": "2025-01-01T00:00:00Z"}]}]', encoding="utf-8")
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        dialog = app.history_imports.open_dialog(app.window)
        assert not await dialog.open_path(notes)
        assert dialog.stack.currentWidget() is dialog.source_page
        assert "不认识 notes.txt 的内容" in dialog.source_error.text()

        assert await dialog.open_path(fixture("chatgpt_conversations.json"))
        await wait(lambda: dialog.start_button.isEnabled(), message="something to import")
        dialog.none_button.click()
        assert not dialog.start_button.isEnabled()  # at once, before the new plan
        await wait(lambda: dialog.summary.text().startswith("0 个对话"), message="the plan of nothing")
        assert not dialog.start_button.isEnabled()
        dialog.conversations.rows()[1].setCheckState(0, Qt.CheckState.Checked)
        await wait(lambda: dialog.start_button.isEnabled(), message="one ticked again")

        assert await dialog.open_path(empty)
        assert dialog.stack.currentWidget() is dialog.preview_page
        assert dialog.summary.text().startswith("0 个对话") and not dialog.start_button.isEnabled()
        assert not llm_server.requests
        dialog.reject()


@pytest.mark.parametrize("language", ["zh_CN", "en"])
def test_the_previews_number_columns_show_their_whole_header(qtbot, qapp, language):
    """Issue 38, item 5: "Characters" (字数), "Turns", "Dates" are not cut, in either language."""
    from sonetto_desktop.ui.dialogs.history_preview import ConversationList
    from sonetto_desktop.ui.i18n import install_translators, remove_translators

    translators = install_translators(qapp, language) if language == "en" else []
    try:
        widget = ConversationList()
        qtbot.addWidget(widget)
        widget.resize(900, 300)
        plan = make_plan(read_history(fixture("chatgpt_conversations.json")))
        plan.rows[0].characters = 1_234_567  # a long chat: a wide number
        widget.show_plan(plan, set())
        widget.show()
        qtbot.waitExposed(widget)
        header = widget.header()
        metrics = header.fontMetrics()
        for column in (1, 2, 3):
            text = widget.model().headerData(column, Qt.Orientation.Horizontal)
            assert metrics.horizontalAdvance(text) <= header.sectionSize(column), (text, header.sectionSize(column))
            assert header.sectionSizeHint(column) <= header.sectionSize(column), text  # text, margins and all
            for item in widget.rows():
                assert widget.fontMetrics().horizontalAdvance(item.text(column)) <= header.sectionSize(column)
        if language == "en":
            assert widget.model().headerData(3, Qt.Orientation.Horizontal) == "Characters"
    finally:
        remove_translators(qapp, translators)


def test_the_preview_lists_oldest_first_and_sorts_by_a_clicked_column_as_numbers(qtbot):
    """A history of many conversations is read in the order of its days: the list shows them so, and
    a click on a header sorts by that column — turns and characters as numbers ("9" before "11",
    "9,800" before "2.1万"), the order kept when the plan changes (new dates, a row unticked)."""
    from dataclasses import replace
    from datetime import date

    from sonetto_desktop.ui.dialogs.history_preview import ConversationList

    widget = ConversationList()
    qtbot.addWidget(widget)
    plan = make_plan(read_history(fixture("chatgpt_conversations.json")))
    first = plan.rows[0]
    plan.rows = [replace(first, id=f"c{n}", title=title, first_day=day, last_day=day, exchanges=turns, characters=chars)
                 for n, (title, day, turns, chars) in enumerate([
                     ("买房的事", date(2023, 9, 10), 11, 21_000), ("about a trip", date(2022, 2, 2), 9, 9_800),
                     ("看病的事", date(2023, 1, 5), 2, 640), ("Zoo", date(2022, 12, 31), 30, 123_456)])]
    widget.show_plan(plan, set())

    def titles() -> list[str]:
        return [item.text(0) for item in widget.rows()]

    assert titles() == ["about a trip", "Zoo", "看病的事", "买房的事"]  # by their first day
    widget.resize(700, 300)
    widget.show()
    qtbot.waitExposed(widget)
    header = widget.header()
    x = header.sectionViewportPosition(2) + header.sectionSize(2) // 2
    qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=QPoint(x, header.height() // 2))  # 轮数
    assert header.sortIndicatorSection() == 2
    by_turns = ["2", "9", "11", "30"]  # (which way a first click sorts is the style's)
    assert [item.text(2) for item in widget.rows()] == (
        by_turns if header.sortIndicatorOrder() == Qt.SortOrder.AscendingOrder else by_turns[::-1])
    header.setSortIndicator(3, Qt.SortOrder.AscendingOrder)
    assert [item.text(3) for item in widget.rows()] == ["640", "9800", "2.1万", "12.3万"]
    widget.show_plan(plan, {"c2"})  # a new plan: the person's order stays, the unticked row too
    assert [item.text(3) for item in widget.rows()] == ["640", "9800", "2.1万", "12.3万"]
    assert widget.unticked() == {"c2"} and widget.rows()[0].checkState(0) == Qt.CheckState.Unchecked
    header.setSortIndicator(0, Qt.SortOrder.DescendingOrder)
    assert titles()[0] == "看病的事" and titles()[-1] == "about a trip"
    widget.filter("的事")  # the title filter holds through a sort; so do the ticks
    header.setSortIndicator(2, Qt.SortOrder.DescendingOrder)
    assert [item.text(0) for item in widget.rows()] == ["买房的事", "看病的事"]  # the rows shown
    assert widget.unticked() == {"c2"}


async def test_undo_says_how_many_memories_and_can_be_redone_and_undone_again(qapp, tmp_path, llm_server, wait):
    """Issue 38, item 4: the undo asks first, saying how many memories it takes back (取消 changes
    nothing); after it, 重做这次导入 brings the import back, and it can be undone again."""
    llm_server.responder = remember_each_line
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        ops = app.services.memory
        dialog, panel = await _imported(app, wait)
        after = sorted(i.description for i in ops.all_items().values())
        assert len(after) == 3

        panel.undo_button.click()
        await wait(lambda: getattr(dialog, "undo_question", None) is not None
                   and shiboken6.isValid(dialog.undo_question) and dialog.undo_question.isVisible(), message="asked")
        assert "撤销会影响 3 条记忆" in dialog.undo_question.text()
        dialog.undo_question.escapeButton().click()  # 取消
        await wait(lambda: not shiboken6.isValid(dialog.undo_question) or not dialog.undo_question.isVisible(),
                   message="cancelled")
        assert sorted(i.description for i in ops.all_items().values()) == after and panel.title.text() == "导入完成"

        panel.undo_button.click()
        await _confirm_undo(dialog, wait)
        await wait(lambda: panel.title.text() == "已撤销这次导入", message="undone")
        assert ops.count() == 0 and panel.redo_button.isVisible() and not panel.undo_button.isVisible()
        assert "重做这次导入" in panel.undo_id.text()
        panel.redo_button.click()
        await wait(lambda: panel.title.text() == "已重做这次导入", message="redone")
        assert sorted(i.description for i in ops.all_items().values()) == after
        ledger = app.history_imports.imports.ledger
        assert ledger.get(dialog.import_id).status == "done" and panel.undo_button.isVisible()

        panel.undo_button.click()
        assert "撤销会影响 3 条记忆" in await _confirm_undo(dialog, wait)
        await wait(lambda: panel.title.text() == "已撤销这次导入", message="undone again")
        assert ops.count() == 0 and ledger.get(dialog.import_id).status == "undone"
        dialog.reject()


def _finished_toast(app):
    """The toast that says the import finished, held as a pointer over it holds it."""
    (toast,) = [t for t in app.toasts.toasts() if t.text.startswith(("聊天记录导入完成", "Chat import finished"))]
    toast.pause()
    return toast


@pytest.mark.parametrize("language, button, asked", [("zh_CN", "撤销导入", "撤销会影响 3 条记忆"),
                                                     ("en", "Undo import", "Undoing touches 3 memories")])
async def test_the_finished_toast_undoes_the_whole_import_as_its_window_does(qapp, tmp_path, llm_server, wait,
                                                                             language, button, asked):
    """The toast saying the import finished offered nothing: the whole undo was only in the import's window
    (Edit → 撤销 takes back one batch). Its 撤销导入 does what the window's 撤销这次导入 does: the same
    question first, then the whole import undone, its end shown in the window."""
    llm_server.responder = remember_each_line
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server, language=language)) as app:
        ops = app.services.memory
        dialog, _panel = await _imported(app, wait) if language == "zh_CN" else await _imported_in_english(app, wait)
        dialog.reject()  # (the window closed, or sent to the background: the toast is what is left)
        await wait(lambda: not shiboken6.isValid(dialog) or not dialog.isVisible(), message="closed")
        assert ops.count() == 3
        toast = _finished_toast(app)
        assert toast.action_button is not None and toast.action_button.text() == button

        toast.action_button.click()
        await wait(lambda: app.history_imports.dialog is not None and shiboken6.isValid(app.history_imports.dialog)
                   and app.history_imports.dialog.isVisible(), message="the import's window")
        window = app.history_imports.dialog
        assert window is not dialog and window.stack.currentWidget() is window.progress
        assert asked in await _confirm_undo(window, wait)
        await wait(lambda: window.progress.redo_button.isVisible(), message="undone")  # (then 重做这次导入, as after
        assert ops.count() == 0                                                          # the window's own undo)
        assert app.history_imports.imports.ledger.get(window.import_id).status == "undone"
        assert toast.is_dismissed
        window.reject()


async def _imported_in_english(app, wait):
    """``_imported`` with the window in English."""
    dialog = app.history_imports.open_dialog(app.window)
    assert await dialog.open_path(fixture("chatgpt_conversations.json"))
    await wait(lambda: dialog.start_button.isEnabled(), message="the plan")
    dialog.start_button.click()
    await wait(lambda: dialog.progress.undo_button.isVisible(), timeout=20, message="done")
    return dialog, dialog.progress


async def test_an_import_undone_in_its_window_takes_the_toasts_undo_away(qapp, tmp_path, llm_server, wait):
    llm_server.responder = remember_each_line
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        dialog, panel = await _imported(app, wait)
        toast = _finished_toast(app)
        assert toast.action_button is not None and not toast.is_dismissed
        panel.undo_button.click()
        await _confirm_undo(dialog, wait)
        await wait(lambda: panel.title.text() == "已撤销这次导入", message="undone")
        await wait(lambda: toast.is_dismissed, message="the toast's 撤销导入 gone")
        assert app.services.memory.count() == 0
        dialog.reject()


async def test_a_second_import_finished_while_the_firsts_toast_shows_offers_its_own_undo(qapp, tmp_path, llm_server,
                                                                                      wait):
    """Both toasts said the same key: the second import's end refreshed the first one's toast, whose 撤销导入
    then took back the first import, not the one just finished."""
    llm_server.responder = remember_each_line
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        dialog, _panel = await _imported(app, wait)
        first_id = dialog.import_id
        dialog.reject()
        first = _finished_toast(app)
        second = app.history_imports.open_dialog(app.window)
        await wait(lambda: second.stack.currentWidget() is second.source_page, message="a new window")
        assert await second.open_path(fixture("history.jsonl"))
        await wait(lambda: second.start_button.isEnabled(), message="the plan")
        second.start_button.click()
        await wait(lambda: second.progress.title.text() == "导入完成", timeout=20, message="done")
        second_id = second.import_id
        second.reject()
        await wait(lambda: len([t for t in app.toasts.toasts() if t.action_button]) == 2, message="two toasts")
        latest = [t for t in app.toasts.toasts() if t.action_button and t is not first][0]
        latest.pause()
        latest.action_button.click()
        window = app.history_imports.dialog
        await _confirm_undo(window, wait)
        ledger = app.history_imports.imports.ledger
        await wait(lambda: ledger.get(second_id).status == "undone", message="the second import undone")
        assert ledger.get(first_id).status == "done" and not first.is_dismissed
        window.reject()


async def _start_then_stop(dialog, llm_server, wait, *, batches: int, answer: str):
    """Start the planned import (each model call 0.5 s), press 停止 once ``batches`` are written and answer
    the question with the button ``answer``; the progress panel."""
    await wait(lambda: dialog.start_button.isEnabled(), message="the plan")
    llm_server.delay = 0.5
    dialog.start_button.click()
    panel = dialog.progress
    await wait(lambda: panel.bar.value() >= batches, timeout=20, message="the first batches")
    panel.stop_button.click()
    await wait(lambda: getattr(dialog, "stop_question", None) is not None
               and shiboken6.isValid(dialog.stop_question) and dialog.stop_question.isVisible(), message="asked")
    (chosen,) = [b for b in dialog.stop_question.buttons() if b.text() == answer]
    chosen.click()
    return panel


async def test_stopping_and_choosing_to_undo_what_was_imported_undoes_it(qapp, tmp_path, llm_server, wait):
    llm_server.responder = remember_each_line
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        ops = app.services.memory
        dialog = app.history_imports.open_dialog(app.window)
        assert await dialog.open_path(fixture("chatgpt_conversations.json"))
        panel = await _start_then_stop(dialog, llm_server, wait, batches=2, answer="撤销已导入的部分")
        await wait(lambda: panel.title.text() == "已撤销这次导入", message="undone")
        assert ops.count() == 0
        dialog.reject()


async def test_stopping_and_keeping_what_was_imported_says_how_many_memories_it_made(qapp, tmp_path, llm_server, wait):
    """停止, then 保留已导入的部分: the window said "新记忆 0 · 更新 0 · 剩余不到 2 分钟" and "正在读：「…」"
    under 导入已停止, the memories made on the wall beside it."""
    llm_server.responder = remember_each_line
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        ops = app.services.memory
        days = tmp_path / "days.jsonl"  # four days: four batches, one model call each
        days.write_text("\n".join(json.dumps({"conversation": f"day-{d}", "role": "user", "content": f"第{d}天的事",
                                              "time": f"2024-03-{d + 1:02d}T20:00:00+08:00", "id": f"u{d}"},
                                             ensure_ascii=False) for d in range(4)), encoding="utf-8")
        dialog = app.history_imports.open_dialog(app.window)
        assert await dialog.open_path(days)
        panel = await _start_then_stop(dialog, llm_server, wait, batches=1, answer="保留已导入的部分")
        await wait(lambda: panel.title.text() == "导入已停止", message="stopped")
        made = ops.count()
        assert 1 <= made < 4
        assert panel.line.text() == f"已写入 {made}/4 轮 · 新记忆 {made} · 更新 0", panel.line.text()
        assert not panel.current.isVisibleTo(dialog)  # nothing is being read any more
        dialog.reject()


async def test_one_conversation_of_an_import_is_undone_alone_and_brought_back(qapp, tmp_path, llm_server, wait):
    """Issue 38, item 4: 按对话撤销… lists the import's conversations with what each left, undoes the
    chosen one after saying how many memories, and 撤回刚才的撤销 brings it back."""
    llm_server.responder = remember_each_line
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        ops = app.services.memory
        dialog, panel = await _imported(app, wait)
        after = sorted(i.description for i in ops.all_items().values())
        assert panel.by_conversation_button.isVisible()

        panel.by_conversation_button.click()
        chooser = dialog.conversation_undo
        await chooser.loading
        rows = [chooser.list.item(i).text() for i in range(chooser.list.count())]
        assert rows == ["「搬家去杭州」 · 新建 2 条", "「Plot a chart」 · 新建 1 条"]
        chooser.list.setCurrentRow(1)
        chooser.undo_button.click()
        await wait(lambda: chooser.question is not None and shiboken6.isValid(chooser.question)
                   and chooser.question.isVisible(), message="asked")
        assert "撤销对话「Plot a chart」写下的 1 条记忆" in chooser.question.text()
        chooser.undo_confirm.click()
        await wait(lambda: chooser.note.text().startswith("已撤销对话「Plot a chart」"), message="undone")
        await chooser.working
        assert len(ops.all_items()) == 2 and chooser.list.count() == 1
        state = app.history_imports.imports.ledger.get(dialog.import_id)
        assert state.status == "done" and list(state.undone_conversations) == ["c0ffee00-0000-4000-8000-000000000002"]

        chooser.take_back_button.click()
        await wait(lambda: chooser.note.text() == "对话「Plot a chart」的记忆已恢复", message="brought back")
        await chooser.working
        assert sorted(i.description for i in ops.all_items().values()) == after and chooser.list.count() == 2
        assert app.history_imports.imports.ledger.get(dialog.import_id).undone_conversations == {}
        chooser.accept()
        dialog.reject()


async def test_one_conversations_undo_names_the_card_changed_since_in_its_first_question(qapp, tmp_path, llm_server,
                                                                                          wait):
    """Undo16: a conversation whose card the person edited since is asked about once, with the truth:
    that card is kept, the other goes to the trash (not "写下的 2 条记忆" and a second question)."""
    llm_server.responder = remember_each_line
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        ops = app.services.memory
        dialog, panel = await _imported(app, wait)
        panel.by_conversation_button.click()
        chooser = dialog.conversation_undo
        await chooser.loading
        assert chooser.list.item(0).text() == "「搬家去杭州」 · 新建 2 条"
        edited = next(mid for mid, i in ops.all_items().items() if "杭州" in i.description)
        ops.update(edited, description="用户2024年5月搬到了杭州西溪")
        chooser.list.setCurrentRow(0)
        chooser.undo_button.click()
        await wait(lambda: chooser.question is not None and shiboken6.isValid(chooser.question)
                   and chooser.question.isVisible(), message="asked")
        question = chooser.question
        assert getattr(chooser, "undo_confirm", None) is None  # not the plain count
        assert question.headline.text() == "有 1 张卡片之后又被改过，会原样保留："
        assert question.cards.item(0).text().startswith("「用户2024年5月搬到了杭州西溪」")
        assert question.rest.text() == "其余的改动会撤销：1 条移到回收站。"
        question.confirm.click()
        await wait(lambda: chooser.note.text().startswith("已撤销对话「搬家去杭州」"), message="undone")
        await chooser.working
        assert chooser.note.text().endswith("；你之后改过的 1 张卡片原样保留")
        assert ops.get(edited).description == "用户2024年5月搬到了杭州西溪" and len(ops.all_items()) == 2
        chooser.accept()
        dialog.reject()


async def test_closing_the_window_lets_the_read_export_go(qapp, tmp_path, llm_server, wait):
    """Issue 37: the export read for the preview (its spill file, its plan) is let go when the window
    closes, not kept by the closed dialog until the next one; its spill file is closed with it."""
    import gc
    import weakref

    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        app.window.menus.history_action.trigger()
        dialog = app.history_imports.dialog
        await wait(lambda: dialog is not None and dialog.isVisible())
        assert await dialog.open_path(fixture("chatgpt_conversations.json"))
        conversations = dialog.history.conversations
        assert len(conversations) == 2 and dialog.plan.turns == 3
        gone = weakref.ref(dialog.history)
        del conversations
        dialog.reject()
        await wait(lambda: not dialog.isVisible(), message="the window closed")
        gc.collect()
        assert gone() is None and dialog.history is None and dialog.plan is None


def test_a_long_preview_sorts_and_filters_without_visiting_every_row(qtbot, monkeypatch):
    """A 2 GB export has ~100,000 conversations: a sort or a filter must not call into Python for
    each row (QTreeWidget's sort compared in Python; a tree view laid every row out, asking each its
    flags). Here 5,000 rows: what a click and a keystroke ask of the model stays near the rows on
    screen. (Times: bench/ui_preview_list.py.)"""
    from dataclasses import replace
    from datetime import date, timedelta

    from sonetto_desktop.ui.dialogs import history_preview

    plan = make_plan(read_history(fixture("chatgpt_conversations.json")))
    plan.rows = [replace(plan.rows[0], id=f"c{n}", title=f"对话{n * 7919 % 5000}", first_day=date(2022, 1, 1) + timedelta(days=n % 700),
                         last_day=None, exchanges=n % 37 + 1, characters=n * 31 % 90_000) for n in range(5000)]
    widget = history_preview.ConversationList()
    qtbot.addWidget(widget)
    widget.resize(700, 400)
    widget.show()
    qtbot.waitExposed(widget)
    widget.show_plan(plan, set())
    calls = {"n": 0}
    model = widget.model()
    for name in ("data", "flags"):
        real = getattr(model, name)
        monkeypatch.setattr(model, name, lambda *a, real=real: (calls.__setitem__("n", calls["n"] + 1), real(*a))[1])

    def asked(action) -> int:
        calls["n"] = 0
        action()
        QCoreApplication.processEvents()
        widget.viewport().repaint()
        return calls["n"]

    assert asked(widget.viewport().update) > 20  # the rows on screen are asked for (the count counts)
    assert asked(lambda: widget.header().setSortIndicator(3, Qt.SortOrder.DescendingOrder)) < 2000
    assert widget.rows()[0].row.characters == max(row.characters for row in plan.rows)
    assert asked(lambda: widget.filter("对话12")) < 2000
    assert all("对话12" in row.text(0) for row in widget.rows()) and len(widget.rows()) == 111
    assert asked(lambda: widget.set_all(False)) < 2000 and len(widget.unticked()) == 111


def test_the_preview_list_is_used_from_the_keyboard(qtbot):
    """Arrows move from row to row, Space ticks or unticks the row, Tab leaves the list for the next
    control (a table view's Tab walked its cells)."""
    from PySide6.QtWidgets import QLineEdit, QVBoxLayout, QWidget

    from sonetto_desktop.ui.dialogs.history_preview import ConversationList

    window = QWidget()
    qtbot.addWidget(window)
    widget = ConversationList(window)
    after = QLineEdit(window)
    column = QVBoxLayout(window)
    column.addWidget(widget)
    column.addWidget(after)
    widget.show_plan(make_plan(read_history(fixture("chatgpt_conversations.json"))), set())
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    widget.setFocus()
    qtbot.waitUntil(widget.hasFocus)
    widget.setCurrentIndex(widget.model().index(0, 0))
    qtbot.keyClick(widget, Qt.Key.Key_Down)
    assert widget.currentIndex().row() == 1
    qtbot.keyClick(widget, Qt.Key.Key_Space)
    assert widget.unticked() == {widget.rows()[1].data(0, Qt.ItemDataRole.UserRole)}
    qtbot.keyClick(widget, Qt.Key.Key_Space)
    assert widget.unticked() == set()
    qtbot.keyClick(widget, Qt.Key.Key_Tab)
    qtbot.waitUntil(after.hasFocus, timeout=1000)


def test_space_ticks_the_row_whichever_of_its_cells_was_clicked(qtbot):
    """Rows are selected whole, but the current cell is the one clicked (a date, a count) or reached
    with the arrows: Space ticks or unticks that row all the same (the list it replaced did)."""
    from PySide6.QtWidgets import QVBoxLayout, QWidget

    from sonetto_desktop.ui.dialogs.history_preview import ConversationList

    window = QWidget()
    qtbot.addWidget(window)
    widget = ConversationList(window)
    QVBoxLayout(window).addWidget(widget)
    widget.show_plan(make_plan(read_history(fixture("chatgpt_conversations.json"))), set())
    window.show()
    qtbot.waitExposed(window)
    widget.setFocus()
    qtbot.waitUntil(widget.hasFocus)
    first = widget.rows()[0].row.id
    qtbot.mouseClick(widget.viewport(), Qt.MouseButton.LeftButton, pos=widget.visualRect(widget.model().index(0, 2)).center())
    assert widget.selectionModel().isRowSelected(0) and widget.currentIndex().column() == 2
    qtbot.keyClick(widget, Qt.Key.Key_Space)
    assert widget.unticked() == {first}
    qtbot.keyClick(widget, Qt.Key.Key_Right)
    qtbot.keyClick(widget, Qt.Key.Key_Space)
    assert widget.unticked() == set()


def test_sorting_keeps_the_selected_conversation_selected(qtbot):
    """A header click moves the rows: the selection and the current row go with their conversation
    (else another one is selected, and Space ticks it)."""
    from dataclasses import replace
    from datetime import date

    from PySide6.QtWidgets import QVBoxLayout, QWidget

    from sonetto_desktop.ui.dialogs.history_preview import ConversationList

    window = QWidget()
    qtbot.addWidget(window)
    widget = ConversationList(window)
    QVBoxLayout(window).addWidget(widget)
    plan = make_plan(read_history(fixture("chatgpt_conversations.json")))
    plan.rows = [replace(plan.rows[0], id=f"c{n}", title=title, first_day=date(2023, 1, 1 + n), last_day=None)
                 for n, title in enumerate(["b", "c", "a"])]
    widget.show_plan(plan, set())
    window.show()
    qtbot.waitExposed(window)
    widget.setFocus()
    widget.setCurrentIndex(widget.model().index(0, 1))  # "b" (c0), the oldest; its date cell
    model = widget.model()
    widget.header().setSortIndicator(0, Qt.SortOrder.AscendingOrder)  # by title: a, b, c
    assert [r.row.id for r in widget.rows()] == ["c2", "c0", "c1"]
    assert model.row_at(widget.currentIndex()).id == "c0" and widget.currentIndex().column() == 1
    assert [model.row_at(i).id for i in widget.selectionModel().selectedRows()] == ["c0"]
    widget.header().setSortIndicator(0, Qt.SortOrder.DescendingOrder)  # c, b, a
    assert model.row_at(widget.currentIndex()).id == "c0" and widget.currentIndex().row() == 1
    qtbot.keyClick(widget, Qt.Key.Key_Space)
    assert widget.unticked() == {"c0"}


async def test_start_clicked_twice_starts_one_import_and_says_no_error(qapp, tmp_path, llm_server, wait):
    """The second click of a double-click on 开始导入 found the button still enabled (it waited for the
    final plan) and began a second import of the same chats."""
    llm_server.responder = remember_each_line
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        said: list = []
        app.history_imports.message.connect(lambda text, kind: said.append((text, kind)))
        dialog = app.history_imports.open_dialog(app.window)
        assert await dialog.open_path(fixture("chatgpt_conversations.json"))
        await wait(lambda: dialog.start_button.isEnabled(), message="the plan")
        dialog.start_button.click()
        assert not dialog.start_button.isEnabled()  # at once, not once the final plan is made
        assert dialog.summary.text().startswith("正在准备导入")  # (a large import's batches take minutes to save)
        dialog.start_button.click()
        panel = dialog.progress
        await wait(lambda: panel.title.text() == "导入完成", timeout=20, message="done")
        assert app.services.memory.count() == 3
        assert len(app.history_imports.imports.ledger.imports()) == 1
        assert not [s for s in said if s[1] == "error"], said
        dialog.reject()


async def test_the_saved_memories_in_a_chatgpt_export_with_chats_are_offered(qapp, tmp_path, llm_server, wait):
    """ChatGPT's export holds its memory snapshot beside the chats: it was read, then neither shown nor
    importable from the window (only an export without chats showed its saved memories)."""
    conversations = json.loads(fixture("chatgpt_conversations.json").read_text(encoding="utf-8"))
    conversations[1]["mapping"]["n-a2"]["message"]["content"] = {
        "content_type": "model_editable_context",
        "model_set_context": "1. [2024-09-29]. User runs every morning.\n\n2. [2024-09-30]. User lives in Hangzhou."}
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(conversations), encoding="utf-8")
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        dialog = app.history_imports.open_dialog(app.window)
        assert await dialog.open_path(path)
        assert dialog.stack.currentWidget() is dialog.preview_page
        assert dialog.saved_offer.isVisibleTo(dialog) and "另有 2 条" in dialog.saved_offer_note.text()
        dialog.saved_offer.click()
        assert dialog.stack.currentWidget() is dialog.saved_page
        assert dialog.saved_button.text() == "导入 2 条记忆"
        dialog.saved_button.click()
        await wait(lambda: dialog.progress.title.text() == "导入完成", message="imported")
        assert sorted(i.description for i in app.services.memory.all_items().values()) == [
            "User lives in Hangzhou.", "User runs every morning."]
        dialog.reject()


@pytest.mark.parametrize("language", ["zh_CN", "en"])
async def test_the_preview_of_an_export_with_a_long_name_fits_a_small_screen(qapp, tmp_path, llm_server, wait, language):
    """Undo16: ChatGPT names its exports by two long hashes; the preview's title showed the name whole, so
    the window grew wider than a 1366 px screen (and a 900 px one), and its offer of the saved memories,
    开始导入 and 取消 were cut off at its edge. The title gives way ("…", the name in its tooltip), the
    offer wraps, and the page fits 900 × 600 with every button's text whole."""
    conversations = json.loads(fixture("chatgpt_conversations.json").read_text(encoding="utf-8"))
    conversations[1]["mapping"]["n-a2"]["message"]["content"] = {
        "content_type": "model_editable_context",
        "model_set_context": "1. [2024-09-29]. User runs every morning.\n\n2. [2024-09-30]. User lives in Hangzhou."}
    name = "f1e9a1b5d7c3a2b4c6d8e0f1a3b5c7d9e1f3a5b7c9d1e3f5a7b9c1d3-2024-12-07-16-30-00-3b7e0a8c6d4f2e1a9b7c5d3e1f0a2b4c6d8e0f1a3b5c7d9e1.json"
    path = tmp_path / name
    path.write_text(json.dumps(conversations), encoding="utf-8")
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server, language=language)) as app:
        dialog = app.history_imports.open_dialog(app.window)
        assert await dialog.open_path(path)
        assert dialog.stack.currentWidget() is dialog.preview_page
        assert dialog.minimumSizeHint().width() <= 860, dialog.minimumSizeHint()
        dialog.resize(860, 560)
        await wait(lambda: dialog.width() == 860, message="resized")
        await settle()  # the page laid out at that width
        assert name in dialog.preview_title.toolTip()
        offer = dialog.saved_offer
        said = {"zh_CN": ("另有 2 条 ChatGPT 已保存的记忆（不在对话里）。", "导入这些记忆…"),
                "en": ("And 2 ChatGPT saved memories (not in the chats).", "Import them…")}[language]
        assert offer.isVisibleTo(dialog) and (dialog.saved_offer_note.text(), offer.text()) == said
        for button in (offer, dialog.start_button, dialog.all_button, dialog.none_button):
            assert button.width() >= button.sizeHint().width(), button.text()  # its text whole
            right = button.mapTo(dialog, button.rect().topRight()).x()
            assert 0 <= right <= dialog.width(), (button.text(), right, dialog.width())
        note = dialog.saved_offer_note
        assert note.wordWrap() and note.mapTo(dialog, note.rect().topRight()).x() <= dialog.width()
        assert note.height() >= note.heightForWidth(note.width())  # every line of it
        dialog.reject()


async def test_a_local_clients_export_is_offered_previewed_and_imported_from_the_window(qapp, tmp_path, llm_server,
                                                                                       wait):
    """Open WebUI, LobeChat, Chatbox and LM Studio are in the format box (best effort, said so); an Open WebUI
    export picked with the format chosen previews its chats and what was guessed, and imports."""
    llm_server.responder = remember_each_line
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        dialog = app.history_imports.open_dialog(app.window)
        box = dialog.format_box
        offered = {box.itemData(i): box.itemText(i) for i in range(box.count())}
        assert offered["openwebui"] == "Open WebUI（尽力而为）" and offered["lobechat"] == "LobeChat（尽力而为）"
        assert offered["chatbox"] == "Chatbox（尽力而为）" and offered["lmstudio"] == "LM Studio（尽力而为）"
        box.setCurrentIndex(box.findData("openwebui"))
        assert await dialog.open_path(fixture("openwebui_chat_export.json"))
        assert dialog.stack.currentWidget() is dialog.preview_page
        assert [r.text(0) for r in dialog.conversations.rows()] == [
            "学做川菜", "搬家去成都的准备", "周末想去青城山徒步，需要带什么？"]  # oldest first
        notes = dialog.notes.text()
        assert "Open WebUI 没有公开导出格式" in notes and "1 个对话有改写或重新生成的分支" in notes
        assert dialog.plan.turns == 4
        dialog.start_button.click()
        panel = dialog.progress
        await wait(lambda: panel.title.text() == "导入完成", timeout=20, message="done")
        assert panel.line.text() == "写入 4 轮：新记忆 4 条，更新 0 条，删除 0 条"
        texts = {i.description for i in app.services.memory.all_items().values()}
        assert any(t.startswith("用户说过：我还养了一只叫年糕的猫") for t in texts) and len(texts) == 4
        panel.close_button.click()
        await wait(lambda: not dialog.isVisible(), message="closed")


@pytest.mark.parametrize("language", ["zh_CN", "en"])
async def test_how_to_export_shows_whole_for_each_app_chosen(qapp, tmp_path, llm_server, wait, language):
    """The lines saying how to export from each app were one label of ten lines once Open WebUI, LobeChat,
    Chatbox and LM Studio came; in a page of a stack it got its one-line height guess and the last lines
    were cut in half (seen in a real window at 1366 x 768), and at the window's smallest width it could not
    fit at all. Now the app chosen in the format box says its own line; 自动识别 names the apps it reads."""
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server, language=language)) as app:
        app.window.menus.history_action.trigger()
        dialog = app.history_imports.dialog
        await wait(lambda: dialog is not None and dialog.isVisible())
        howto, box = dialog.howto, dialog.format_box
        assert box.currentData() is None
        for name in ("Open WebUI", "LobeChat", "Chatbox", "LM Studio", "ChatGPT", "Claude", "DeepSeek"):
            assert name in howto.text()
        seen = set()
        for index in range(box.count()):
            box.setCurrentIndex(index)
            seen.add(howto.text())
            for width in (dialog.minimumSizeHint().width(), 1400):
                dialog.resize(width, dialog.height())
                await wait(lambda: howto.height() >= howto.heightForWidth(howto.width())
                           and howto.geometry().bottom() < dialog.jsonl_help.geometry().top(),
                           message=lambda: f"{box.currentText()}: {howto.geometry()} needs "
                                           f"{howto.heightForWidth(howto.width())}, {dialog.jsonl_help.geometry()}")
        assert len(seen) == box.count()  # each choice its own line
        box.setCurrentIndex(box.findData("lmstudio"))
        assert ".lmstudio/conversations" in howto.text() and "ChatGPT" not in howto.text()
        dialog.reject()


async def test_the_apps_shortcuts_work_from_the_import_window_but_not_over_its_text(qapp, tmp_path, wait):
    """Ctrl+Q did nothing while the import's window (non-modal) had the focus; 文件 ▸ 退出 worked. Quit,
    设置 (Ctrl+,) and the shortcut list (F1) now work from it too; a key its text box uses stays the box's."""
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    async with running_app(qapp, app_settings(tmp_path / "data")) as app:
        window = app.window
        asked: list[str] = []
        window.settings_requested.connect(lambda: asked.append("settings"))
        dialog = app.history_imports.open_dialog(window)
        await wait(dialog.isVisible, message="the import's window")
        dialog.activateWindow()
        await wait(lambda: QApplication.activeWindow() is dialog, message="the import's window active")
        box = dialog.paste_box
        box.setFocus()
        await wait(box.hasFocus, message="the paste box's focus")
        box.insertPlainText("小林喜欢猫")
        QTest.keyClick(box, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)  # the box's own undo
        assert box.toPlainText() == ""
        QTest.keyClick(box, Qt.Key.Key_Comma, Qt.KeyboardModifier.ControlModifier)
        assert asked == ["settings"] and app.settings_dialog is not None
        app.settings_dialog.reject()
        dialog.activateWindow()
        await wait(lambda: QApplication.activeWindow() is dialog, message="the import's window active again")
        QTest.keyClick(box, Qt.Key.Key_F1)
        assert window.shortcuts_dialog is not None
        window.shortcuts_dialog.reject()
        dialog.activateWindow()
        await wait(lambda: QApplication.activeWindow() is dialog, message="the import's window active at last")
        assert not app.quit_requested.is_set()
        QTest.keyClick(dialog.paste_box, Qt.Key.Key_Q, Qt.KeyboardModifier.ControlModifier)
        assert app.quit_requested.is_set()
        dialog.reject()


async def test_an_import_whose_model_keeps_failing_says_it_is_retrying_and_why(qapp, tmp_path, llm_server, wait):
    """The model refused every batch: for about a minute the window said "已写入 0/3 轮 · … · 剩余时间估算中"
    (the header "导入 ChatGPT 0/3 轮") before 导入失败, the person left guessing. While a batch waits for its
    next try the line says it is retrying and why (the writer's reason, in the UI's language), the header
    too; in English as well."""
    from sonetto_desktop.history_import.runner import ImportProgress
    from sonetto_desktop.ui.dialogs.history_progress import progress_line
    from sonetto_desktop.ui.i18n import install_translators, remove_translators
    from llm_payloads import ErrorResponse

    llm_server.default = ErrorResponse(503, "upstream overloaded")
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        dialog = app.history_imports.open_dialog(app.window)
        assert await dialog.open_path(fixture("chatgpt_conversations.json"))
        await wait(lambda: dialog.start_button.isEnabled(), message="the plan")
        dialog.start_button.click()
        line = dialog.progress.line
        await wait(lambda: "重试" in line.text(), timeout=20, message=lambda: f"retrying said: {line.text()!r}")
        assert line.text().startswith("已写入 0/3 轮") and "估算中" not in line.text(), line.text()
        assert "模型服务" in line.text() and "503" in line.text(), line.text()  # the writer's reason, in Chinese
        badge = app.window.status_indicator.import_status.badge
        await wait(lambda: "重试" in badge.text(), message=lambda: f"the header: {badge.text()!r}")
        assert "503" in badge.toolTip()
        dialog.progress.background_button.click()
    retrying = ImportProgress("imp-0badc0de", "running", 2, 0, 3, 0, retrying="模型服务暂时不可用（HTTP 503）",
                              failed_tries=2, retrying_en="The model service is unavailable (HTTP 503)")
    assert progress_line(retrying) == "已写入 0/3 轮 · 新记忆 0 · 更新 0 · 出错了，稍后自动重试（已失败 2 次）：模型服务暂时不可用（HTTP 503）"
    translators = install_translators(qapp, "en")
    try:  # the same progress, shown in English: the reason too
        assert progress_line(retrying).endswith("failed (try 2), trying again shortly: "
                                                "The model service is unavailable (HTTP 503)"), progress_line(retrying)
    finally:
        remove_translators(qapp, translators)
