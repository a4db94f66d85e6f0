"""Shared pieces of the history-import tests: the fixtures folder and a pinned local time zone
(the exports' dates are epoch times or carry offsets; the writer's clock is local time)."""

from __future__ import annotations

import os
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
