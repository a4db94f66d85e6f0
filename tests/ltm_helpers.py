"""Shared helpers of the LongTermMemory tests (test_ltm.py, test_ltm_failures.py)."""

from __future__ import annotations

import asyncio

from sonetto_desktop.memory import MemoryEvent

TURN = [{"role": "user", "content": "我喜欢猫"}, {"role": "assistant", "content": "猫猫可爱！"}]
FAST = (0.01, 0.02)


async def until(predicate, timeout: float = 15.0) -> None:
    """Wait (generously) for something that must happen; fails the test if it never does."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError("condition never became true")
        await asyncio.sleep(0.01)


def recorder(ltm):
    seen: list[MemoryEvent] = []
    ltm.events.subscribe(seen.append)
    return seen


def script_create(server, content="用户喜欢猫", section="品味"):
    server.add_tool_calls([("create_memory", {"content": content, "section": section})])
    server.add_text("已记录。")


def kinds(seen, exclude=("status",)):
    return [e.kind for e in seen if e.kind not in exclude]


def idle_ltm_fixture(name: str = "ltm"):
    """A fixture ``name``: a started LongTermMemory over the ``mm`` fixture with no model (llm=None and
    no configured endpoint): turns are journaled and wait, never consumed (never spend the script)."""
    import pytest

    @pytest.fixture(name=name)
    async def memory(mm):
        from sonetto_desktop.memory.writer.ltm import LongTermMemory

        started = LongTermMemory(mm)
        started.start()
        yield started
        await started.stop(timeout=1)

    return memory
