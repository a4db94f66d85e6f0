"""Chat sessions on the memory server: a conversation started on one device is listed, shown and
continued (the model's history, through LangGraph's Postgres checkpointer) on another."""

from __future__ import annotations

import asyncio

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.graph import START, MessagesState, StateGraph

from sonetto_desktop.agent.pg_sessions import PgSessionDatabase
from sonetto_desktop.agent.sessions import SessionNotFound
from sonetto_desktop.memory.stores.postgres.location import PgLocation


def _reply(state: MessagesState) -> dict:
    return {"messages": [AIMessage(content=f"第{len(state['messages'])}句收到")]}


def graph(saver):
    """A one-node graph that answers "第N句收到" (N: the messages so far), checkpointed by ``saver``."""
    builder = StateGraph(MessagesState)
    builder.add_node("reply", _reply)
    builder.add_edge(START, "reply")
    return builder.compile(checkpointer=saver)


@pytest.fixture
async def devices(pg_url, pg_schema):
    location = PgLocation(pg_url, pg_schema)
    desk, laptop = PgSessionDatabase(location), PgSessionDatabase(location)
    await asyncio.gather(desk.open(), laptop.open())  # two devices creating the tables at once
    yield desk, laptop
    await desk.close()
    await laptop.close()


async def test_a_session_started_on_one_device_is_listed_and_shown_on_the_other(devices):
    desk, laptop = devices
    info = await desk.store.create()
    await desk.store.append(info.id, "user", "我今天去爬山了\n好累", turn_id="t1")
    await desk.store.append(info.id, "assistant", "辛苦啦！", memories=[{"id": "m1"}], turn_id="t1")
    [listed] = await laptop.store.list()
    assert listed.id == info.id and listed.title == "我今天去爬山了"
    await laptop.store.append(info.id, "user", "腿还酸", turn_id="t2")
    transcript = await desk.store.transcript(info.id)
    assert [(e["role"], e["content"]) for e in transcript] == [
        ("user", "我今天去爬山了\n好累"), ("assistant", "辛苦啦！"), ("user", "腿还酸")]
    assert transcript[1]["memories"] == [{"id": "m1"}]
    renamed = await laptop.store.rename(info.id, "爬山")
    assert (await desk.store.get(info.id)).title == renamed.title == "爬山"
    assert await desk.store.delete(info.id) and await laptop.store.list() == []
    with pytest.raises(SessionNotFound):
        await laptop.store.rename(info.id, "x")


async def test_two_devices_appending_at_once_never_collide(devices):
    desk, laptop = devices
    await desk.store.ensure("s1")
    await laptop.store.ensure("s1")  # both devices may create it: one session
    await asyncio.gather(*(store.append("s1", "user", f"{name}{n}")
                           for n in range(10) for name, store in (("desk", desk.store), ("laptop", laptop.store))))
    entries = await desk.store.transcript("s1")
    assert len(entries) == 20 and len(await laptop.store.list()) == 1


async def test_text_postgres_cannot_store_is_kept_readable(devices):
    desk, _ = devices
    await desk.store.ensure("s1")
    await desk.store.append("s1", "user", "坏字符\ud800和\x00空字节")
    [entry] = await desk.store.transcript("s1")
    assert entry["content"] == "坏字符\ufffd和\ufffd空字节"


async def test_the_models_history_continues_on_the_other_device(devices):
    desk, laptop = devices

    config = {"configurable": {"thread_id": "s1"}}
    assert desk.saver is None  # set up at the first turn, not when the sessions are opened
    await graph(await desk.checkpointer()).ainvoke({"messages": [HumanMessage(content="你好")]}, config)
    result = await graph(await laptop.checkpointer()).ainvoke({"messages": [HumanMessage(content="还记得我吗")]}, config)
    assert [m.content for m in result["messages"]] == ["你好", "第1句收到", "还记得我吗", "第3句收到"]
    assert isinstance(result["messages"][0], HumanMessage)
    from sonetto_desktop.agent.checkpoint_serde import CheckpointSerializer

    assert isinstance(desk.saver.serde, CheckpointSerializer)  # the strict, allow-listed loader


async def test_a_sessions_memory_switches_follow_it_to_the_other_device(devices):
    desk, laptop = devices
    info = await desk.store.create("私事")
    assert await laptop.store.memory_switches() == {}
    await desk.store.set_memory_switches(info.id, False, True)
    assert await laptop.store.memory_switches() == {info.id: (False, True)}
    await laptop.store.set_memory_switches(info.id, False, False)
    assert await desk.store.memory_switches() == {info.id: (False, False)}
    await desk.store.delete(info.id)
    assert await laptop.store.memory_switches() == {}
    with pytest.raises(SessionNotFound):
        await laptop.store.set_memory_switches("no-such-session", True, False)


async def test_replacing_a_turn_drops_it_and_what_followed_on_every_device(devices):
    desk, laptop = devices
    info = await desk.store.create()
    for turn in ("t1", "t2", "t3"):
        await desk.store.append(info.id, "user", f"问 {turn}", turn_id=turn)
        await desk.store.append(info.id, "assistant", f"答 {turn}", turn_id=turn)
    assert await laptop.store.truncate_from_turn(info.id, "t2") == 4
    assert [e["turn_id"] for e in await desk.store.transcript(info.id)] == ["t1", "t1"]
    assert await laptop.store.truncate_from_turn(info.id, "nope") == 0


async def test_a_chats_checkpoints_are_deleted_before_the_checkpointer_is_set_up(devices):
    """Deleting a chat on a device that has had no turn since start: the checkpoints go with plain SQL,
    LangGraph's saver is not set up for it, and the other chats' history stays."""
    desk, laptop = devices

    saver = await desk.checkpointer()
    for thread in ("gone", "kept"):
        await graph(saver).ainvoke({"messages": [HumanMessage(content="你好")]},
                                   {"configurable": {"thread_id": thread}})
    assert laptop.saver is None
    await laptop.delete_checkpoints("gone")
    assert laptop.saver is None  # deleted without setting LangGraph up
    gone = await graph(saver).ainvoke({"messages": [HumanMessage(content="重新开始")]},
                                      {"configurable": {"thread_id": "gone"}})
    kept = await graph(saver).ainvoke({"messages": [HumanMessage(content="接着聊")]},
                                      {"configurable": {"thread_id": "kept"}})
    assert [m.content for m in gone["messages"]] == ["重新开始", "第1句收到"]
    assert [m.content for m in kept["messages"]] == ["你好", "第1句收到", "接着聊", "第3句收到"]


async def test_deleting_a_chats_checkpoints_where_langgraph_never_ran_is_a_no_op(devices):
    desk, _ = devices
    await desk.delete_checkpoints("never-chatted")  # LangGraph's tables do not exist yet
    assert desk.saver is None
