"""Temporary chats and per-session memory switches (issue 12, item 5): real engine, real sessions.db,
the scripted model server over HTTP, and (last test) the whole AppServices with its writer."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest

from ltm_helpers import idle_ltm_fixture
from memory_stores import yaml_store_fixture
from sonetto_desktop.agent.companion_tools import NO_RECALL
from sonetto_desktop.agent.engine import ChatEngine
from sonetto_desktop.agent.sessions import SessionNotFound
from sonetto_desktop.memory.changes import MemoryChange
from sonetto_desktop.services import AppServices
from test_services import settings_for

mm = yaml_store_fixture()
ltm = idle_ltm_fixture()  # no writer endpoint: turns handed over are journaled and stay pending


@pytest.fixture
async def engine(tmp_path, ltm, make_llm):
    engine = ChatEngine(ltm, data_dir=tmp_path / "data", llm_factory=lambda: make_llm(streaming=True))
    await engine.start()
    yield engine
    await engine.close()


async def collect(engine: ChatEngine, session_id: str, text: str):
    return [event async for event in engine.send(session_id, text)]


def system_prompt(request: dict) -> str:
    return next(m["content"] for m in request["messages"] if m["role"] == "system")


def rows(db_path, sql: str, *args) -> list[tuple]:
    with sqlite3.connect(db_path) as db:
        return db.execute(sql, args).fetchall()


async def test_a_temporary_chat_recalls_nothing_journals_nothing_and_saves_nothing(llm_server, engine, ltm, mm, tmp_path):
    mm.add("Miso 最喜欢的水果是山竹。", "品味")
    info = await engine.new_session(temporary=True)
    assert info.temporary and not info.recall and not info.write

    llm_server.add_text("山竹很好吃呀。")
    events = await collect(engine, info.id, "我想吃山竹了")

    assert events[0].kind == "memories" and events[0].memories == []
    assert events[-1].kind == "done"
    assert "山竹" not in system_prompt(llm_server.requests[0]).split("我想吃")[0]  # no memory block
    assert ltm.writer.journal.pending() == []  # nothing handed to the writer, nothing journaled
    # it is listed and readable while open, with its mode
    [listed] = [s for s in await engine.list_sessions() if s.id == info.id]
    assert listed.temporary and listed.title == "我想吃山竹了"
    assert [e["role"] for e in await engine.transcript(info.id)] == ["user", "assistant"]
    # ... but nothing of it is on disk
    db = tmp_path / "data" / "sessions.db"
    assert rows(db, "SELECT count(*) FROM chat_sessions WHERE id = ?", info.id) == [(0,)]
    assert rows(db, "SELECT count(*) FROM chat_entries WHERE session_id = ?", info.id) == [(0,)]
    tables = {name for (name,) in rows(db, "SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "checkpoints" in tables:  # made at the first saved turn (LangGraph is imported then)
        assert rows(db, "SELECT count(*) FROM checkpoints WHERE thread_id = ?", info.id) == [(0,)]


async def test_a_temporary_chat_keeps_its_context_and_is_gone_when_closed(llm_server, engine, tmp_path, ltm, make_llm):
    info = await engine.new_session(temporary=True)
    llm_server.add_text("记住啦，你叫小林。")
    llm_server.add_text("你叫小林。")
    await collect(engine, info.id, "我叫小林")
    await collect(engine, info.id, "我叫什么？")
    sent = [m["content"] for m in llm_server.requests[1]["messages"] if m["role"] == "user"]
    assert sent == ["我叫小林", "我叫什么？"]  # the model sees the conversation so far

    assert await engine.delete_session(info.id) is True
    assert await engine.transcript(info.id) == [] and await engine.session(info.id) is None

    other = await engine.new_session(temporary=True)
    await engine.close()
    reopened = ChatEngine(ltm, data_dir=tmp_path / "data", llm_factory=lambda: make_llm(streaming=True))
    await reopened.start()
    try:
        assert other.id not in {s.id for s in await reopened.list_sessions()}
    finally:
        await reopened.close()


async def test_the_search_tool_declines_in_a_chat_without_recall(llm_server, engine, mm):
    mm.add("用户在学塔罗牌。", "爱好")
    info = await engine.new_session(temporary=True)
    llm_server.add_tool_calls([("search_memory", {"query": "塔罗牌"})])
    llm_server.add_text("这次不翻记忆啦。")
    await collect(engine, info.id, "你还记得我学什么吗")
    tool_results = [m["content"] for m in llm_server.requests[1]["messages"] if m["role"] == "tool"]
    assert tool_results == [NO_RECALL]


async def test_switches_turn_recall_and_writing_off_per_session_and_persist(llm_server, engine, ltm, mm, tmp_path, make_llm):
    mm.add("Miso 最喜欢的水果是山竹。", "品味")
    session = await engine.new_session()
    assert session.recall and session.write and not session.temporary

    info = await engine.set_session_memory(session.id, write=False)
    assert info.recall and not info.write
    llm_server.add_text("好呀。")
    events = await collect(engine, session.id, "我想吃山竹了")
    assert [m["description"] for m in events[0].memories] == ["Miso 最喜欢的水果是山竹。"]  # recall still on
    assert ltm.writer.journal.pending() == []  # writing off: not handed over

    await engine.set_session_memory(session.id, recall=False, write=True)
    llm_server.add_text("好的。")
    events = await collect(engine, session.id, "山竹季到了")
    assert events[0].memories == []
    assert [e.messages[0]["content"] for e in ltm.writer.journal.pending()] == ["山竹季到了"]

    await engine.close()
    reopened = ChatEngine(ltm, data_dir=tmp_path / "data", llm_factory=lambda: make_llm(streaming=True))
    await reopened.start()
    try:
        again = await reopened.session(session.id)
        assert again is not None and (again.recall, again.write) == (False, True)
        [listed] = [s for s in await reopened.list_sessions() if s.id == session.id]
        assert (listed.recall, listed.write) == (False, True)
    finally:
        await reopened.close()


async def test_switch_errors_are_clear(engine):
    with pytest.raises(SessionNotFound):
        await engine.set_session_memory("no-such-session", recall=False)
    temporary = await engine.new_session(temporary=True)
    with pytest.raises(ValueError, match="临时对话"):
        await engine.set_session_memory(temporary.id, recall=True)


@pytest.mark.parametrize("backend", ["yaml", "sqlite"])
async def test_a_temporary_chat_changes_no_memory_through_app_services(llm_server, tmp_path, backend):
    services = await AppServices.open(settings=settings_for(tmp_path, llm_server.base_url, store_backend=backend),
                                      watch=False)
    try:
        services.memory.add("用户养了一只叫汤圆的猫", "身份")
        await services.start_agents()
        seen: list[MemoryChange] = []
        services.subscribe(seen.append)
        temporary = await services.chat.new_session(temporary=True)
        llm_server.add_text("汤圆真可爱。")
        # were the turn handed to the writer, it would create a memory from this script
        llm_server.add_tool_calls([("create_memory", {"content": "用户又养了一只狗", "section": "身份"})])
        llm_server.add_text("已记录。")
        events = [e async for e in services.chat.send(temporary.id, "我又养了一只狗")]
        assert events[-1].kind == "done" and events[0].memories == []
        await asyncio.sleep(0.5)
        assert services.writer.pending == 0 and not services.writer.busy
        assert seen == [] and len(llm_server.requests) == 1  # only the reply: no recall model, no writer
        assert [m.description for m in services.memory.all_items().values()] == ["用户养了一只叫汤圆的猫"]
    finally:
        await services.close()
