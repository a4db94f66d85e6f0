"""An import you can see (issue 38, item 3): while an import runs in the background the window's header
says so, with pause and a way back to its window; its changes are named as an import in the toasts;
the wall has a filter for what imports wrote; all of it in English too."""

from __future__ import annotations

import pytest

from history_helpers import fixture, remember_each_line, shanghai  # noqa: F401 - a fixture
from shell_fixtures import app_settings, running_app
from sonetto_desktop.ops import EditMemory
from sonetto_desktop.memory.operations import MemoryOperations
from sonetto_desktop.presentation.authors import FILTERS, filter_label
from sonetto_desktop.presentation.others import SourceTally, source_name
from sonetto_desktop.ui.i18n import install_translators, remove_translators

pytestmark = pytest.mark.usefixtures("shanghai")


async def test_a_background_import_shows_in_the_header_with_pause_and_its_window(qapp, tmp_path, llm_server, wait):
    llm_server.responder = remember_each_line
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        indicator = app.window.status_indicator
        status = indicator.import_status
        assert status is not None and status.isHidden() and indicator.label.text() == "记忆已是最新"
        assert status.badge in indicator.tab_stops() and status.pause_button in indicator.tab_stops()

        dialog = app.history_imports.open_dialog(app.window)
        assert await dialog.open_path(fixture("chatgpt_conversations.json"))
        await wait(lambda: dialog.start_button.isEnabled(), message="the plan")
        llm_server.delay = 0.5
        dialog.start_button.click()
        await wait(lambda: dialog.stack.currentWidget() is dialog.progress, message="started")
        dialog.progress.background_button.click()  # the window closes; the import goes on
        await wait(lambda: not dialog.isVisible(), message="in the background")

        await wait(lambda: not status.isHidden(), message="the import in the header")
        assert status.badge.text().startswith("导入 ChatGPT ") and status.badge.text().endswith("/3 轮")
        assert "chatgpt_conversations.json" in status.badge.toolTip() and "点击打开导入窗口" in status.badge.toolTip()
        assert indicator.label.text() == "聊天记忆已是最新"  # "记忆已是最新" said nothing true while the import writes

        status.pause_button.click()
        await wait(lambda: "已暂停" in status.badge.text(), message="paused from the header")
        assert status.pause_button.accessibleName() == "继续导入"
        status.badge.click()  # opens the import's window, on its progress
        reopened = app.history_imports.dialog
        await wait(lambda: reopened is not None and reopened.isVisible(), message="the import's window")
        assert reopened.stack.currentWidget() is reopened.progress
        status.pause_button.click()
        await wait(lambda: "已暂停" not in status.badge.text() or status.isHidden(), message="resumed")

        await wait(lambda: status.isHidden(), timeout=30, message="done: the header is the writer's again")
        assert not indicator.label.isHidden() and indicator.label.text() == "记忆已是最新"
        texts = [t.text for t in app.toasts.toasts()]
        assert any(t.startswith("导入（ChatGPT）：新增 ") for t in texts), texts
        assert not any("import:chatgpt" in t for t in texts), texts
        reopened.reject()


def test_an_import_is_named_as_an_import_in_both_languages(qapp):
    assert source_name("import:chatgpt") == "导入（ChatGPT）"
    assert source_name("import:claude") == "导入（Claude）"
    assert source_name("external") == "其他程序"
    translators = install_translators(qapp, "en")
    try:
        assert source_name("import:deepseek") == "Import (DeepSeek)"
        assert filter_label("imported") == "Imported"
        from sonetto_desktop.memory.changes import MemoryChange

        tally = SourceTally("import:chatgpt")
        tally.add(MemoryChange("add", ("m1",), "import:chatgpt", turn_id="imp-1-000000"))
        assert tally.text().startswith("Import (ChatGPT)")
    finally:
        remove_translators(qapp, translators)


async def test_the_wall_filters_what_imports_wrote(tmp_path, qtbot, wait):
    from sonetto_desktop.memory import YamlMemoryManager
    from sonetto_desktop.ui.memory_service import MemoryService
    from sonetto_desktop.ui.wall.memory_wall import MemoryWall

    store = YamlMemoryManager(tmp_path / "memory.yaml")
    ops = MemoryOperations(store)
    mine = ops.add("我自己写的", "杂记").ids[0]
    imported = ops.as_actor("import:chatgpt").add("从 ChatGPT 导入的", "杂记").ids[0]
    app_written = ops.as_actor("mcp:Claude").add("Claude 写的", "杂记").ids[0]
    service = MemoryService(store)
    wall = MemoryWall(service)
    qtbot.addWidget(wall)
    wall.resize(900, 700)
    wall.show()
    await wall.reload()
    assert "imported" in FILTERS and wall.toolbar.filter_actions["imported"].text() == "导入的"
    wall.toolbar.filter_actions["imported"].trigger()
    shown = {mid for section in wall.visible_sections() for mid in section.proxy.ids()}
    assert shown == {imported} and mine not in shown and app_written not in shown
    await service.submit(EditMemory(imported, "从 ChatGPT 导入的，我改过", None))  # the person's now
    await wait(lambda: not [s for s in wall.visible_sections() if s.proxy.ids()], message="no longer imported")


async def _importing_in_the_background(app, wait):
    """ChatGPT's fixture imported (its model failing: the import stays, retrying), shown in the header and
    its window sent to the background; the window."""
    status = app.window.status_indicator.import_status
    dialog = app.history_imports.open_dialog(app.window)
    assert await dialog.open_path(fixture("chatgpt_conversations.json"))
    await wait(lambda: dialog.start_button.isEnabled(), message="the plan")
    dialog.start_button.click()
    await wait(lambda: not status.isHidden(), message="the import in the header")
    dialog.progress.background_button.click()
    await wait(lambda: not dialog.isVisible(), message="in the background")
    return dialog


async def test_during_an_import_each_pause_button_sits_with_what_it_pauses(qapp, tmp_path, llm_server, wait):
    """During an import the header showed two identical ⏸ side by side (the import's, the chat writer's,
    "记忆已是最新" hidden): only their tooltips told them apart. Now the import's progress and its ⏸ are
    one group, a line, then the chat writer's state and its ⏸."""
    from llm_payloads import ErrorResponse

    llm_server.default = ErrorResponse(503, "upstream overloaded")  # the import keeps retrying: it stays
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        indicator = app.window.status_indicator
        status = indicator.import_status
        assert indicator.import_separator.isHidden()
        dialog = await _importing_in_the_background(app, wait)

        def x(widget) -> int:
            return widget.mapTo(indicator, widget.rect().topLeft()).x()

        label, line = indicator.label, indicator.import_separator
        assert not label.isHidden() and label.text() == "聊天记忆已是最新", label.text()
        assert not line.isHidden()
        assert x(status.badge) < x(status.pause_button) < x(line) < x(label) < x(indicator.pause_button)
        assert status.pause_button.toolTip() == "暂停导入" and indicator.pause_button.toolTip() == "暂停记忆写入"
        dialog.reject()


async def test_enter_on_the_headers_import_badge_opens_its_window(qapp, tmp_path, llm_server, wait):
    """The header's "导入 ChatGPT 0/3 轮" says 点击打开导入窗口; reached with Tab, Enter on it did nothing
    (a tool button takes only Space). Enter opens the window, as a click does."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    from llm_payloads import ErrorResponse

    llm_server.default = ErrorResponse(503, "upstream overloaded")  # the import keeps retrying: it stays
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        status = app.window.status_indicator.import_status
        dialog = await _importing_in_the_background(app, wait)
        app.window.activateWindow()
        status.badge.setFocus(Qt.FocusReason.TabFocusReason)
        await wait(status.badge.hasFocus, message="the badge's focus")
        QTest.keyClick(status.badge, Qt.Key.Key_Return)
        reopened = app.history_imports.dialog
        await wait(lambda: reopened is not None and reopened is not dialog and reopened.isVisible(),
                   message="the import's window")
        reopened.reject()


async def test_the_headers_retry_reason_follows_a_language_switch(qapp, tmp_path, llm_server, wait):
    """An import whose model keeps failing: the header's tooltip says "出错了，稍后自动重试（已失败 N 次）：<why>".
    Switched to English meanwhile, the line was English but its reason stayed Chinese ("…trying again
    shortly: 模型服务…") until the next failure; back to Chinese, the reverse. Every part follows the language."""
    from llm_payloads import ErrorResponse

    def cjk(text: str) -> bool:
        return any("\u4e00" <= ch <= "\u9fff" for ch in text)

    llm_server.default = ErrorResponse(503, "upstream overloaded")  # the import keeps retrying: it stays
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        imports = app.history_imports
        await _importing_in_the_background(app, wait)  # (its window goes with the old window)
        await wait(lambda: imports.last_progress is not None and imports.last_progress.failed_tries >= 2, timeout=20,
                   message="two failed tries")
        llm_server.delay = 8.0  # the next try waits: what the header says is the last failure's reason, not a new one's
        tries = imports.last_progress.failed_tries
        tip = app.window.status_indicator.import_status.badge.toolTip()
        assert "稍后自动重试" in tip and "模型服务" in tip and "503" in tip, tip

        await app.choose_language("en")
        status = app.window.status_indicator.import_status
        await wait(lambda: not status.isHidden(), message="the import in the new header")
        tip = status.badge.toolTip()
        assert imports.last_progress.failed_tries == tries  # (no new failure worded it anew)
        assert "trying again shortly: " in tip and "503" in tip and not cjk(tip), tip

        await app.choose_language("zh_CN")
        status = app.window.status_indicator.import_status
        await wait(lambda: not status.isHidden(), message="the import in the new header")
        tip = status.badge.toolTip()
        assert imports.last_progress.failed_tries == tries
        assert "稍后自动重试" in tip and "模型服务" in tip and "503" in tip, tip
        llm_server.delay = 0.0


async def test_a_failed_imports_window_says_why_in_the_language_switched_to(qapp, tmp_path, llm_server, wait):
    """An import whose every batch failed: its window says 导入失败 and why ("2 批都没能写入，什么也没有写入：
    模型把工具调用写成了文字…"). A person who could not read it and switched to English got the window back
    on its first page, the failure gone (and the reason, kept as worded when it failed, would have stayed
    Chinese); back to Chinese, the reverse. The window shows the failure again, every part in the language."""
    def cjk(text: str) -> bool:
        return any("\u4e00" <= ch <= "\u9fff" for ch in text)

    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        await _an_import_that_fails(app, llm_server, wait)
        for language in ("en", "zh_CN"):
            old = app.history_imports.dialog
            await app.choose_language(language)
            await wait(lambda old=old: (again := app.history_imports.dialog) is not None and again is not old
                       and again.isVisible(), message="the import window open again")
            again = app.history_imports.dialog
            assert again.stack.currentWidget() is again.progress, "the failure is not shown"
            title, line = again.progress.title.text(), again.progress.line.text()
            if language == "en":
                assert title == "Import failed" and not cjk(title + line), (title, line)
                assert "the model wrote its tool calls as text" in line and "2" in line, line
            else:
                assert title == "导入失败" and line.startswith("2 批都没能写入，什么也没有写入：模型把工具调用写成了文字"), line
        app.history_imports.dialog.reject()


async def _an_import_that_fails(app, llm_server, wait):
    """An import of two batches, from its window, whose model writes its tool calls as text (each batch
    is given up on at once): its window says 导入失败 and why; the window."""
    llm_server.responder = lambda body: '<tool_call>{"name": "create_memory", "arguments": {}}</tool_call>'
    dialog = app.history_imports.open_dialog(app.window)
    await dialog.loading
    assert await dialog.open_path(fixture("history.jsonl"))
    await wait(lambda: dialog.start_button.isEnabled(), message="the plan")
    dialog.start_button.click()
    await wait(lambda: dialog.progress.title.text() == "导入失败", timeout=20, message="the failure")
    assert dialog.progress.line.text().startswith("2 批都没能写入，什么也没有写入：模型把工具调用写成了文字"), \
        dialog.progress.line.text()
    return dialog


async def test_an_import_that_failed_is_not_told_as_finished(qapp, tmp_path, llm_server, wait):
    """Every batch failed, nothing written: beside 导入失败 in its window, the toast said "聊天记录导入完成：写入
    0 轮，新记忆 0 条，更新 0 条", as for an import that worked (read from the tray or after the window was
    sent to the background, it was all a person was told). It says the import failed, and why."""
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        dialog = await _an_import_that_fails(app, llm_server, wait)
        await wait(lambda: any(t.text.startswith("聊天记录导入") for t in app.toasts.toasts()), message="the toast")
        [toast] = [t for t in app.toasts.toasts() if t.text.startswith("聊天记录导入")]
        assert toast.kind == "error" and toast.text.startswith("聊天记录导入失败：2 批都没能写入"), toast.text
        assert "模型把工具调用写成了文字" in toast.text, toast.text
        dialog.reject()
