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
