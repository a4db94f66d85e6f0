"""Waiting in tests for something that must happen: generous deadlines that fail the test, never timing
assertions (the deadline only bounds how long a broken build hangs)."""

from __future__ import annotations

import asyncio
import time
from typing import Any, Callable


async def until(predicate: Callable[[], Any], timeout: float = 15.0, what: str = "condition") -> Any:
    """Await (on the running loop) until ``predicate()`` is true; returns its value."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if loop.time() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await asyncio.sleep(0.01)


def wait_for(predicate: Callable[[], Any], timeout: float = 10.0, what: str = "condition") -> Any:
    """Block (polling) until ``predicate()`` is true; returns its value."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.02)


async def came(predicate: Callable[[], Any], timeout: float = 60.0) -> bool:
    """Await until ``predicate()`` is true: whether it was within ``timeout`` (for a child process that
    reports what it saw rather than failing)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            return False
        await asyncio.sleep(0.05)
    return True
