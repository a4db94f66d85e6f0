"""Shared helpers of the memory writer tests (test_ltm.py, test_ltm_failures.py)."""

from __future__ import annotations

from typing import Any

from waiting import until  # noqa: F401 - the writer tests import it from here

TURN = [{"role": "user", "content": "我喜欢猫"}, {"role": "assistant", "content": "猫猫可爱！"}]
FAST = (0.01, 0.02)


def recorder(writer) -> list[Any]:
    """The writer's pipeline events and the store changes it makes, in the order they happened."""
    seen: list[Any] = []
    writer.events.subscribe(seen.append)
    writer.ops.subscribe(seen.append)
    return seen


def described(change) -> str:
    """The description a change left its first memory with."""
    return change.state(change.ids[0])["description"]


def script_create(server, content="用户喜欢猫", section="品味"):
    """One model reply creating a memory; the run ends once the call succeeded (``budget.should_end``)."""
    server.add_tool_calls([("create_memory", {"content": content, "section": section})])


def kinds(seen, exclude=("status",)):
    return [e.kind for e in seen if e.kind not in exclude]


def idle_ltm_fixture(name: str = "ltm"):
    """A fixture ``name``: the graph's LongTermMemory over the ``mm`` fixture, its writer started with
    no model: turns are journaled and wait, never consumed (never spend the script)."""
    import pytest

    @pytest.fixture(name=name)
    async def memory(mm):
        started = make_ltm(mm, start=True)
        yield started
        await started.writer.stop(timeout=1)
        started.recall.close()

    return memory


def make_ltm(store, llm=None, *, start: bool = False, **writer_options):
    """The graph's LongTermMemory over ``store``: a MemoryRecall and a MemoryWriter sharing ``llm``.
    ``start`` starts the writer (inside a running loop)."""
    from sonetto_desktop.memory.ltm import LongTermMemory
    from sonetto_desktop.memory.retrieval.recall import MemoryRecall
    from sonetto_desktop.memory.writer.pipeline import MemoryWriter

    recall = MemoryRecall(store, llm)
    writer = MemoryWriter(store, llm, retriever=lambda: recall.mechanical, **writer_options)
    if start:
        writer.start()
    return LongTermMemory(recall, writer)
