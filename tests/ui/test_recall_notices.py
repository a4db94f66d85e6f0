"""A local model's tiny context cutting recall is said once, in one line that says what to change
(issue 36 item 5): the budget's probe learns the context in the background, the services publish
the notice on their feed, the window shows it as a toast — once per endpoint and model, also when
the settings are applied again (a new budget policy learns it again). Not said at 32k."""

from __future__ import annotations

import asyncio
import dataclasses
import re

import pytest

from shell_fixtures import app_settings, running_app


@pytest.mark.parametrize("context, said", [(4096, True), (32_768, False)])
async def test_a_tiny_context_is_said_once(qapp, tmp_path, wait, llm_server, context, said):
    llm_server.context_api = "lm-studio"
    llm_server.context_length = context
    settings = app_settings(tmp_path / "data", llm_server)
    async with running_app(qapp, settings) as app:
        lines = lambda: [t for t in app.toasts.toasts() if "上下文只有" in t.text]  # noqa: E731
        told: list[str] = []
        app.recall_notices.said.connect(told.append)
        for _ in range(2):
            policy = app.services.recall.budget
            policy.bank(1_000_000)  # (a recall's bank larger than any context holds: the context cuts it)
            policy.tokens()  # the first recall asks the server for its context, in the background
            await asyncio.to_thread(policy.wait, 5)
            assert policy.context is not None and policy.context.tokens == context
            if said:
                await wait(lambda: told, message="the line")
            else:
                await asyncio.sleep(0.3)
            await app.apply_settings(dataclasses.replace(settings, recall_timeout=settings.recall_timeout + 1))
        if not said:
            assert told == [] and lines() == []
            return
        assert len(told) == 1  # once, though a second policy learnt the same again
        assert "LM Studio" in told[0] and "4,096" in told[0] and "Context Length" in told[0]
        assert [t.text for t in lines()] == told  # one toast


def test_the_settings_page_says_the_automatic_budgets(qtbot):
    """Before: "自动（云端模型 48,000；本机模型按它的上下文长度）"."""
    from sonetto_desktop.config.settings import Settings
    from sonetto_desktop.ui.settings.dialog import SettingsDialog

    dialog = SettingsDialog(Settings.load())
    qtbot.addWidget(dialog)
    page = dialog.recall_page
    text = page.auto_hint.text()
    numbers = set(re.findall(r"\d[\d,]*\d", text))
    assert {"48,000", "16,000"} <= numbers and not numbers & {"24,000", "8,000", "6,000"}
    assert page.budget_auto.isChecked() and page.budget.value() == 48_000


async def test_the_tiny_context_line_is_not_said_again_at_every_start(qapp, tmp_path, wait, llm_server):
    """LM Studio keeps its 4,096 tokens (the person chose to): the line came back as a toast at every
    start of the app. Said once for that server, model and context; a smaller context is said again."""
    llm_server.context_api = "lm-studio"
    llm_server.context_length = 4096
    settings = app_settings(tmp_path / "data", llm_server)

    async def one_run() -> list[str]:
        async with running_app(qapp, settings) as app:
            told: list[str] = []
            app.recall_notices.said.connect(told.append)
            reached: list[object] = []
            app.feed.recall_notice.connect(reached.append)  # (after the notices' own slot)
            policy = app.services.recall.budget
            policy.bank(1_000_000)  # (a recall's bank larger than any context holds)
            policy.tokens()
            await asyncio.to_thread(policy.wait, 5)
            assert policy.notice is not None  # the budget knows it each time
            await wait(lambda: reached, message="the notice reached the window")
            return told

    first = await one_run()
    assert len(first) == 1
    assert await one_run() == []  # the next start: not again
    llm_server.context_length = 2048
    assert len(await one_run()) == 1  # a smaller context is news
