"""Shared pieces of the history-import tests: the fixtures folder and a pinned local time zone
(the exports' dates are epoch times or carry offsets; the writer's clock is local time)."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "history"


@pytest.fixture
def shanghai(monkeypatch):
    """Local time is Asia/Shanghai (UTC+8, no daylight saving) for the test."""
    monkeypatch.setenv("TZ", "Asia/Shanghai")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def fixture(name: str) -> Path:
    return FIXTURES / name


def env_shanghai() -> dict[str, str]:
    """An environment for a child process with local time Asia/Shanghai."""
    return {**os.environ, "TZ": "Asia/Shanghai"}


# ── the scripted model for imports ───────────────────────────────────

USER_LINE = re.compile(r"^(?:> )?用户：（(\d\d:\d\d)）(.+)$", re.M)
LISTED = re.compile(r'^(\w+) \| [^|\n]+ \| [^|\n]+ \| "(.*)"', re.M)
NOW_LINE = re.compile(r"## 当前时间\n(.+)\n")


def writer_prompt(body: dict) -> str:
    """The writer request's one user message (the listing, the time, the batch)."""
    return [m for m in body["messages"] if m["role"] == "user"][-1]["content"]


def is_writer(body: dict) -> bool:
    from llm_server import caller

    return caller(body) == "writer"


def said(body: dict) -> list[tuple[str, str]]:
    """(time, text) of each user message of the batch a writer request carries."""
    return USER_LINE.findall(writer_prompt(body))


def listed(body: dict) -> dict[str, str]:
    """The memories the writer request lists: id -> text."""
    return dict(LISTED.findall(writer_prompt(body)))


def remember_each_line(body: dict):
    """A writer that stores one memory per user message: ``用户说过：<text>`` (after tool results: done)."""
    from llm_server import tool_calls

    if any(m["role"] == "tool" for m in body["messages"]):
        return "好的"
    return tool_calls([("create_memory", {"content": f"用户说过：{text[:40]}", "section": "身份"})
                       for _, text in said(body)])
