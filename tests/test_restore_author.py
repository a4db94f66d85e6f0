"""A memory restored from the trash keeps its author (issue 38 item 9): the card said "你" / "You"
after the person restored a memory Sonetto or another app wrote. Real stores."""

from __future__ import annotations

from memory_stores import backend_store_fixture
from sonetto_desktop.memory import MemoryOperations
from sonetto_desktop.memory.record import card_state

mm = backend_store_fixture()


def test_a_restored_memory_keeps_its_author(mm):
    ops = MemoryOperations(mm)
    by_agent = ops.as_actor("agent").add("小林喜欢猫", "品味").ids[0]
    by_app = ops.as_actor("mcp:cursor").add("小林在写一个 Rust 项目", "工作").ids[0]
    for memory_id in (by_agent, by_app):
        mm.delete(memory_id, "不要了")
        mm.restore(memory_id)
    assert mm.get(by_agent).last_actor == "agent" and mm.get(by_agent).author == "agent"
    assert mm.get(by_app).author == "mcp:cursor"
    state = card_state(mm.get(by_agent))
    assert state["last_actor"] == "agent" and state["author"] == "agent"
    assert mm.get(by_agent).history[-1]["action"] == "restore"  # (the restore is still in its history)
    ops.update(by_agent, description="小林喜欢橘猫")  # a change of its text is authorship
    assert mm.get(by_agent).last_actor == "user"
