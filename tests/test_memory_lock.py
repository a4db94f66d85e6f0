"""Locked memories (issue 12, capability 4): only the person may change them; the agent's tools and
other apps are refused with a clear reason; locking is recorded, attributable and not a new version."""

from __future__ import annotations

import itertools

import pytest

from memory_stores import backend_store_fixture
from sonetto_desktop.memory import MemoryChange, MemoryOperations
from sonetto_desktop.memory.errors import MemoryLocked
from sonetto_desktop.memory.writer.tools import make_memory_tools

mm = backend_store_fixture()
_ids = itertools.count()


def call(tools, name, **args):
    tool = {t.name: t for t in tools}[name]
    return tool.invoke({"type": "tool_call", "id": f"lock_{next(_ids)}", "name": name, "args": args})


def test_lock_is_recorded_and_published_without_a_new_version(mm):
    ops = MemoryOperations(mm)
    mid = ops.add("用户对花生过敏", "身份").ids[0]
    before = mm.get(mid)
    seen: list[MemoryChange] = []
    mm.subscribe(seen.append)
    change = ops.set_locked(mid, True, reason="很重要，别让助手改")
    assert change.kind == "lock" and change.state(mid)["locked"] is True and change.extra["locked"] is True
    assert seen == [change]
    item = mm.get(mid)
    assert item.locked and item.history[-1]["action"] == "lock" and item.history[-1]["actor"] == "user"
    assert item.latest_update_time == before.latest_update_time  # a flag, not an edit
    assert len(item.versions()) == len(before.versions())
    assert ops.set_locked(mid, True) is None  # already locked: nothing recorded
    assert ops.set_locked(mid, False).state(mid)["locked"] is False
    assert not mm.get(mid).locked


def test_the_agent_and_other_apps_cannot_change_a_locked_memory(mm):
    person = MemoryOperations(mm)
    mid = person.add("用户对花生过敏", "身份").ids[0]
    other = person.add("用户喜欢花生酱", "品味").ids[0]
    person.set_locked(mid, True)
    for actor in ("agent", "mcp:cherry", "external"):
        app = person.as_actor(actor)
        with pytest.raises(MemoryLocked, match=mid):
            app.update(mid, description="用户不再过敏", reason="r")
        with pytest.raises(MemoryLocked):
            app.delete(mid, reason="r")
        with pytest.raises(MemoryLocked):
            app.merge(other, mid, "合并", "身份", reason="r")
        with pytest.raises(MemoryLocked):
            app.set_locked(mid, False)
        app.hit(mid)  # being referred to is not a change
    assert mm.get(mid).description == "用户对花生过敏" and mm.list_trash() == []
    assert person.update(mid, description="用户对花生和腰果过敏", reason="补充").kind == "update"  # the person can
    assert person.as_actor("cli").delete(mid, reason="不需要了").kind == "delete"


def test_writer_tools_refuse_a_locked_memory_with_a_reason_the_model_can_use(mm):
    person = MemoryOperations(mm)
    mid = person.add("用户对花生过敏", "身份").ids[0]
    other = person.add("用户不吃花生", "身份").ids[0]
    person.set_locked(mid, True)
    tools = make_memory_tools(mm)
    for name, args in [("update_memory", {"id": mid, "content": "用户不过敏了", "reason": "r"}),
                       ("delete_memory", {"id": mid, "reason": "r"}),
                       ("merge_memories", {"id1": other, "id2": mid, "content": "x", "section": "身份", "reason": "r"})]:
        message = call(tools, name, **args)
        assert message.status == "error" and "锁定" in message.content and mid in message.content
    assert call(tools, "hit_memory", id=mid).status == "success"
    item = mm.get(mid)
    assert item.description == "用户对花生过敏" and item.locked and item.hit == 1
    assert {r["id"] for r in mm.show()} == {mid, other}


def test_cards_say_who_last_changed_a_memory(mm):
    ops = MemoryOperations(mm)
    mid = ops.add("用户在杭州", "身份").ids[0]
    assert mm.get(mid).last_actor == "user"
    ops.as_actor("agent").update(mid, description="用户在上海", reason="搬家")
    [card] = mm.get_memories_grouped()["身份"]
    assert card["last_actor"] == "agent" and card["locked"] is False
    ops.set_locked(mid, True)  # locking is not writing: the card still says Sonetto wrote it
    [card] = mm.get_memories_grouped()["身份"]
    assert card["last_actor"] == "agent" and card["locked"] is True
    from sonetto_desktop.memory import MemoryItem
    mm.import_items({"seed0001": MemoryItem("Miso 喜欢夏天", "品味")})
    assert mm.get("seed0001").last_actor == "imported"  # a seed memory without history
