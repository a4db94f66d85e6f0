"""The status indicator offers "重试失败的轮次" when turns failed (issue 11, item 8): it says so
instead of "up to date", and the action requeues them without blocking Qt."""

from __future__ import annotations

from shell_fixtures import app_settings, running_app
from sonetto_desktop.memory.writer.journal import TurnJournal, default_journal_path


async def test_failed_turns_are_shown_and_retried_from_the_status_indicator(qapp, tmp_path, wait):
    data = tmp_path / "data"
    journal = TurnJournal(default_journal_path(data / "memory.yaml"))
    entry = journal.append("t-failed", "s", [{"role": "user", "content": "我喜欢猫"}])
    entry.attempts, entry.last_error = 5, "磁盘已满"
    journal.move_to_failed(entry)
    async with running_app(qapp, app_settings(data)) as app:  # no model: a requeued turn waits
        indicator = app.window.status_indicator
        action = app.writer_control.retry_action
        await wait(lambda: action.isEnabled(), message="retry offered")
        assert indicator.state == "error"  # not "up to date" while a turn waits in the failed list
        assert not indicator.retry_button.isHidden()
        action.trigger()
        await wait(lambda: app.writer.pending == 1 and not app.writer.failed_turns(), message="requeued")
        await wait(lambda: not action.isEnabled() and indicator.retry_button.isHidden(), message="retry hidden")
        assert journal.failed() == [] and [e.turn_id for e in journal.pending()] == ["t-failed"]


async def test_the_writers_failure_in_the_header_follows_a_language_switch(qapp, tmp_path, llm_server, wait):
    """A turn the writer gave up on: the header says "记忆写入出错：<why>" (its tooltip the whole status).
    Switched to English, the line read "Memory writing failed: 模型把工具调用写成了文字…" (the reason kept
    the language of the moment it failed; the reverse after a switch back) until the next failure.
    Every part follows the language."""
    def cjk(text: str) -> bool:
        return any("\u4e00" <= ch <= "\u9fff" for ch in text)

    # (a model that writes its tool calls as text: the turn is kept in the failed list at once)
    llm_server.add_text('<tool_call>{"name": "create_memory", "arguments": {}}</tool_call>')
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        await app.writer.send_history([{"role": "user", "content": "我喜欢猫"}, {"role": "assistant", "content": "好呀"}])
        indicator = app.window.status_indicator
        await wait(lambda: indicator.label.text().startswith("记忆写入出错："), message="the failure in the header")
        assert "工具调用" in indicator.label.text() and "工具调用" in indicator.label.toolTip(), indicator.label.toolTip()

        await app.choose_language("en")
        await wait(lambda: app.window.status_indicator is not indicator, message="the new header")
        label = app.window.status_indicator.label
        assert label.text().startswith("Memory writing failed: the model wrote its tool calls as text"), label.text()
        assert not cjk(label.text()) and not cjk(label.toolTip()), (label.text(), label.toolTip())
        assert "tool calls as text" in label.toolTip(), label.toolTip()

        await app.choose_language("zh_CN")
        await wait(lambda: app.window.status_indicator.label.text().startswith("记忆写入出错："), message="Chinese again")
        label = app.window.status_indicator.label
        assert "工具调用" in label.text() and "tool calls" not in label.text() + label.toolTip(), (label.text(), label.toolTip())


async def test_a_store_another_window_writes_for_is_a_note_not_an_error(qapp, tmp_path, llm_server, wait):
    """A second profile (another config folder) on the same data folder while the first runs: its header
    said in red "记忆写入出错：另一个 Sonetto 正在使用这个记忆库…" although its writer worked (the other
    window only replays the older turns). Not an error: the header says the memories are up to date, its
    tooltip says who writes the older turns, and the window's own turns are written."""
    from ltm_helpers import script_create

    data = tmp_path / "data"
    first = TurnJournal(default_journal_path(data / "memory.yaml"))
    assert first.claim()  # the first window's writer holds the journal
    try:
        async with running_app(qapp, app_settings(data, llm_server)) as app:
            indicator = app.window.status_indicator
            await wait(lambda: "另一个 Sonetto" in indicator.label.toolTip(), message="the note in the tooltip")
            assert indicator.state == "idle" and indicator.label.text() == "记忆已是最新", indicator.label.text()
            assert app.writer.last_error is None
            script_create(llm_server)
            await app.writer.send_history([{"role": "user", "content": "我喜欢猫"}, {"role": "assistant", "content": "好呀"}])
            await wait(lambda: app.writer.pending == 0 and indicator.state == "idle", message="its own turn written")
            assert [i.description for i in app.services.memory.store.all_items().values()] == ["用户喜欢猫"]
            assert "另一个 Sonetto" in indicator.label.toolTip()
    finally:
        first.release()
