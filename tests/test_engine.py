"""ChatEngine end to end: real ChatOpenAI over HTTP to the scripted server, the real
LongTermMemory over a YAML store, the real AsyncSqliteSaver and session store in tmp_path."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from langchain_core.tools import StructuredTool

from helpers import collect, engine_factory_fixture
from ltm_helpers import idle_ltm_fixture
from memory_stores import yaml_store_fixture
from sonetto_desktop.agent.chat_events import ERROR_CODES, ChatEvent
from sonetto_desktop.agent.engine import ChatEngine
from sonetto_desktop.agent.sessions import SessionNotFound
from sonetto_desktop.config.settings import Settings

make_engine = engine_factory_fixture()

CHILD = Path(__file__).with_name("engine_restart_child.py")

mm = yaml_store_fixture()
ltm = idle_ltm_fixture()  # no endpoint configured: turns are journaled, never consumed


@pytest.fixture
async def engine(make_engine):
    return await make_engine()


def kinds(events: list[ChatEvent]) -> list[str]:
    return [e.kind for e in events]


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ── the happy path ─────────────────────────────────────────────────────────────────────────────


async def test_reply_streams_as_several_tokens(llm_server, engine, mm):
    memory_id = mm.add("Miso 最喜欢的水果是山竹。", "品味")
    llm_server.add_text("山竹季快到啦，到时候一起挑几个最甜的吧！")
    events = await collect(engine, "s1", "我想吃山竹了")

    assert kinds(events)[0] == "memories" and kinds(events)[-1] == "done"
    assert [m["id"] for m in events[0].memories] == [memory_id]
    tokens = [e.text for e in events if e.kind == "token"]
    assert len(tokens) >= 5
    done = events[-1]
    assert "".join(tokens) == done.text == "山竹季快到啦，到时候一起挑几个最甜的吧！"
    assert done.turn_id

    transcript = await engine.transcript("s1")
    assert [(e["role"], e["content"]) for e in transcript] == [("user", "我想吃山竹了"), ("assistant", done.text)]
    assert transcript[1]["memories"][0]["id"] == memory_id and "error" not in transcript[1]
    assert (await engine.list_sessions())[0].title == "我想吃山竹了"


async def test_tool_events_and_the_loop(llm_server, engine):
    llm_server.add_tool_calls([("get_current_time", {})])
    llm_server.add_text("现在是晚上。")
    events = await collect(engine, "s1", "几点了")
    assert kinds(events)[:3] == ["memories", "tool_start", "tool_end"]
    assert events[1].tool == events[2].tool == "get_current_time"
    assert "星期" in events[2].text
    assert events[-1].kind == "done" and events[-1].text == "现在是晚上。"


async def test_the_turn_reaches_the_memory_writer(llm_server, engine, ltm):
    seen = []
    ltm.writer.events.subscribe(seen.append)
    llm_server.add_text("好呀，明天见。")
    done = (await collect(engine, "s-writer", "明天要去面试，有点紧张"))[-1]
    queued = [e for e in seen if e.kind == "queued"]
    assert [(e.session_id, e.turn_id) for e in queued] == [("s-writer", done.turn_id)]
    [entry] = ltm.writer.journal.pending()
    assert [m["content"] for m in entry.messages] == ["明天要去面试，有点紧张", "好呀，明天见。"]


async def test_history_carries_over_between_turns(llm_server, engine):
    llm_server.add_text("记住啦")
    llm_server.add_text("你说你叫 Miso")
    await collect(engine, "s1", "我叫 Miso")
    await collect(engine, "s1", "我叫什么？")
    roles = [(m["role"], m["content"]) for m in llm_server.last_messages()[1:]]
    assert roles == [("user", "我叫 Miso"), ("assistant", "记住啦"), ("user", "我叫什么？")]


# ── failures ───────────────────────────────────────────────────────────────────────────────────

FAILURES = {
    "401": ("auth", lambda s: s.add_error(401, "Incorrect API key provided")),
    "429": ("rate_limit", lambda s: s.add_error(429, "Rate limit reached")),
    "500": ("server", lambda s: s.add_error(500, "internal boom")),
    "hang": ("timeout", lambda s: s.add_hang(3)),
    "malformed_stream": ("bad_response", lambda s: s.add_malformed_stream("好的")),
    "garbage": ("bad_response", lambda s: s.add_garbage()),
    "400_wrong_key": ("auth", lambda s: s.add_error(400, "Invalid API key provided", code="invalid_api_key")),
    "400_unknown_model": ("unknown_model", lambda s: s.add_error(400, "The model `qwen-max-x` does not exist")),
    "empty_reply": ("empty_reply", lambda s: s.add_text("")),
}


@pytest.mark.parametrize("case", sorted(FAILURES))
async def test_each_failure_is_one_clear_error_and_the_next_message_works(case, llm_server, make_llm, make_engine):
    engine = await make_engine(llm_factory=lambda: make_llm(streaming=True, timeout=0.5))
    code, script = FAILURES[case]
    script(llm_server)
    events = await collect(engine, "s1", "第一条消息")

    errors = [e for e in events if e.kind == "error"]
    assert len(errors) == 1 and events[-1] is errors[0] and "done" not in kinds(events)
    error = errors[0]
    assert error.error_code == code and error.error_zh and error.error_en and error.turn_id
    transcript = await engine.transcript("s1")
    assert transcript[0]["role"] == "user" and transcript[0]["content"] == "第一条消息"
    assert transcript[1]["error"]["code"] == code

    llm_server.add_text("这次好了")
    events = await collect(engine, "s1", "第二条消息")
    assert events[-1].kind == "done" and events[-1].text == "这次好了"
    sent = [m["content"] for m in llm_server.last_messages() if m["role"] == "user"]
    assert sent == ["第一条消息", "第二条消息"]  # the failed turn's message was kept for the model too


async def test_unreachable_endpoint(llm_server, make_llm, make_engine):
    dead = f"http://127.0.0.1:{closed_port()}/v1"
    engine = await make_engine(llm_factory=lambda: make_llm(streaming=True, base_url=dead))
    events = await collect(engine, "s1", "在吗")
    assert kinds(events) == ["memories", "error"] and events[-1].error_code == "unreachable"
    engine.set_llm(make_llm(streaming=True))  # the user fixes the URL
    llm_server.add_text("在的")
    assert (await collect(engine, "s1", "现在呢"))[-1].text == "在的"
    assert [e["content"] for e in await engine.transcript("s1") if e["role"] == "user"] == ["在吗", "现在呢"]


async def test_no_model_configured_keeps_memory_features(mm, make_engine):
    memory_id = mm.add("Miso 喜欢下雨天窝在家里看书。", "品味")
    engine = await make_engine(llm_factory=lambda: None)
    assert not engine.configured
    events = await collect(engine, "s1", "今天下雨了，想看书")
    assert kinds(events) == ["memories", "error"]
    assert [m["id"] for m in events[0].memories] == [memory_id]
    assert events[-1].error_code == "unconfigured" and "配置" in events[-1].error_zh
    assert [e["role"] for e in await engine.transcript("s1")] == ["user", "assistant"]


async def test_settings_provider_builds_the_model_and_hides_the_key(llm_server, make_engine):
    secret = "Zq7-private-token-55501"  # not "sk-..." shaped: only knowing the key can scrub it
    settings = Settings(base_url=llm_server.base_url, model="test-model", api_key=secret, request_timeout=5)
    engine = await make_engine(llm_factory=None, settings_provider=lambda: settings)
    assert engine.configured and engine.retrieval_mode.value == settings.retrieval_mode
    for _ in range(2):  # build_llm retries once
        llm_server.add_error(500, f"bad credentials {secret}")  # the server's words are shown (as details)
    error = (await collect(engine, "s1", "你好"))[-1]
    assert error.error_code == "server" and "bad credentials ***" in error.error_zh
    assert secret not in error.error_zh + error.error_en
    assert llm_server.requests[-1]["stream"] is True


async def test_a_model_built_from_the_settings_has_its_connections_closed_with_the_engine(llm_server, make_engine):
    """The OpenAI client made its own HTTP pool, never closed: an open socket at exit."""
    settings = Settings(base_url=llm_server.base_url, model="test-model", api_key="sk-test", retrieval_mode="mechanical")
    engine = await make_engine(llm_factory=None, settings_provider=lambda: settings)
    llm_server.add_text("你好呀")
    assert (await collect(engine, "s1", "你好"))[-1].text == "你好呀"
    client = engine._llm.http_async_client  # the pool the model's requests went through
    assert client is not None and not client.is_closed
    await engine.close()
    assert client.is_closed


async def test_reload_settings_switches_from_unconfigured_to_a_model(llm_server, make_engine):
    current = {"settings": Settings(retrieval_mode="mechanical")}
    engine = await make_engine(llm_factory=None, settings_provider=lambda: current["settings"])
    assert (await collect(engine, "s1", "你好"))[-1].error_code == "unconfigured"
    current["settings"] = Settings(base_url=llm_server.base_url, model="test-model", retrieval_mode="mechanical")
    engine.reload_settings()
    llm_server.add_text("配置好啦")
    assert (await collect(engine, "s1", "现在呢"))[-1].text == "配置好啦"
    assert [m["content"] for m in llm_server.last_messages() if m["role"] == "user"] == ["你好", "现在呢"]


# ── cancellation ───────────────────────────────────────────────────────────────────────────────


async def test_cancel_mid_reply_keeps_partial_reply_and_user_message(llm_server, make_llm, make_engine):
    started = asyncio.Event()

    async def look_it_up(topic: str) -> str:
        """Looks something up slowly."""
        started.set()
        await asyncio.Event().wait()  # never finishes on its own
        return topic

    tool = StructuredTool.from_function(coroutine=look_it_up, name="look_it_up")
    engine = await make_engine(tools=[tool])
    llm_server.add_tool_calls([("look_it_up", {"topic": "猫"})], text="让我想想……")
    events = []
    async for event in engine.send("s1", "给我讲讲猫"):
        events.append(event)
        if event.kind == "tool_start":
            await started.wait()
            assert engine.cancel("s1") is True
    assert kinds(events)[-1] == "error" and events[-1].error_code == "cancelled"
    assert "".join(e.text for e in events if e.kind == "token") == "让我想想……"
    assert not engine.is_busy("s1") and engine.cancel("s1") is False

    transcript = await engine.transcript("s1")
    assert [(e["role"], e["content"]) for e in transcript] == [("user", "给我讲讲猫"), ("assistant", "让我想想……")]
    assert transcript[1]["error"]["code"] == "cancelled"

    llm_server.add_text("好，继续说猫。")
    assert (await collect(engine, "s1", "继续"))[-1].text == "好，继续说猫。"
    sent = llm_server.last_messages()
    roles = [m["role"] for m in sent[1:]]
    assert roles == ["user", "assistant", "tool", "user"]  # the dangling tool call was closed
    assert sent[2]["content"] == "让我想想……"


async def test_cancel_while_waiting_for_the_server(llm_server, engine):
    llm_server.add_hang(3)
    events = []
    async for event in engine.send("s1", "你好"):
        events.append(event)
        if event.kind == "memories":
            await asyncio.to_thread(llm_server.wait_for_requests, 1)
            engine.cancel("s1")
    assert kinds(events) == ["memories", "error"] and events[-1].error_code == "cancelled"
    assert [e["content"] for e in await engine.transcript("s1")] == ["你好", ""]


async def test_a_turn_stopped_while_held_keeps_its_message_and_asks_nothing(llm_server, engine):
    """``send(hold=...)``: the message is stored, then the turn waits for ``hold()`` before anything is
    recalled or asked (an edit taking back what it replaced); a cancel meanwhile ends it as stopped at
    once, the model is not asked, and the message stays, in the transcript and in the model's history."""
    llm_server.add_text("第一句的回答")
    await collect(engine, "s1", "第一句")
    asked = len(llm_server.requests)
    held = asyncio.Event()

    async def hold() -> None:
        held.set()
        await asyncio.Event().wait()  # only the cancel ends it

    async def turn() -> list[ChatEvent]:
        return [event async for event in engine.send("s1", "第二句", hold=hold)]

    running = asyncio.ensure_future(turn())
    await asyncio.wait_for(held.wait(), 10)
    assert [e["content"] for e in await engine.transcript("s1")][-1] == "第二句"  # stored before the hold
    assert engine.cancel("s1") is True
    events = await asyncio.wait_for(running, 5)
    assert kinds(events) == ["error"] and events[-1].error_code == "cancelled"
    assert len(llm_server.requests) == asked  # nothing was asked
    transcript = await engine.transcript("s1")
    assert [(e["role"], e["content"]) for e in transcript][-2:] == [("user", "第二句"), ("assistant", "")]
    assert transcript[-1]["error"]["code"] == "cancelled"

    llm_server.add_text("好")
    await collect(engine, "s1", "第三句")
    said = [m["content"] for m in llm_server.last_messages()[1:]]
    assert said == ["第一句", "第一句的回答", "第二句", "第三句"]


def slow_journal(journal) -> threading.Event:
    """Make ``journal.append`` take 0.5 s (a slow disk: fsync of the file and of its folder); the event
    is set when an append starts. Undo with ``del journal.append``."""
    original = journal.append
    journaling = threading.Event()

    def slow_append(*args, **kwargs):
        journaling.set()
        time.sleep(0.5)
        return original(*args, **kwargs)

    journal.append = slow_append
    return journaling


async def stop_while_journaled(engine, journaling: threading.Event, text: str) -> list[ChatEvent]:
    """Send ``text`` and stop the reply while the finished turn is being journaled."""
    events = []
    async for event in engine.send("s1", text):
        events.append(event)
        if event.kind == "token" and not journaling.is_set():
            await asyncio.to_thread(journaling.wait, 5)
            assert engine.cancel("s1")
    return events


async def a_reply_stopped_while_journaled(llm_server, make_engine, ltm):
    """(engine, the writer's journal, the events) of a reply to 明天要去面试 stopped while its turn was
    being journaled."""
    engine = await make_engine()
    journal = ltm.writer.journal
    journaling = slow_journal(journal)
    llm_server.add_text("好呀，明天见。")
    return engine, journal, await stop_while_journaled(engine, journaling, "明天要去面试")


async def test_a_reply_stopped_while_its_turn_is_journaled_is_not_left_for_the_writer(llm_server, make_engine, ltm):
    # reported cancelled, the turn must not be written (the contract), not even at the next start
    engine, journal, events = await a_reply_stopped_while_journaled(llm_server, make_engine, ltm)
    assert events[-1].kind == "error" and events[-1].error_code == "cancelled"
    assert (await engine.transcript("s1"))[-1]["error"]["code"] == "cancelled"
    await asyncio.sleep(1.0)  # (an append's thread left running would have landed by now)
    del journal.append
    assert journal.pending() == [] and ltm.writer.pending == 0
    # the UI offers 重新生成 on a stopped reply (regenerate: no withdraw): only the new turn waits
    llm_server.add_text("明天加油！")
    again = [e async for e in engine.send("s1", "明天要去面试", replace_turn=events[-1].turn_id)]
    assert again[-1].kind == "done"
    assert [[m["content"] for m in e.messages] for e in journal.pending()] == [["明天要去面试", "明天加油！"]]


async def test_closing_the_app_after_the_turn_was_handed_to_the_writer_takes_it_back(llm_server, make_engine, ltm):
    engine = await make_engine()
    handed = asyncio.Event()
    original = ltm.send_history

    async def hand_then_linger(*args, **kwargs):
        result = await original(*args, **kwargs)
        handed.set()
        await asyncio.sleep(5)  # what follows the hand-off in the turn (its checkpoint, the transcript)
        return result

    ltm.send_history = hand_then_linger
    llm_server.add_text("好的，搬家顺利！")
    turn = asyncio.ensure_future(collect(engine, "s1", "我下周搬家"))
    await asyncio.wait_for(handed.wait(), 5)
    assert [e.turn_id for e in ltm.writer.journal.pending()] != []
    await engine.close()  # stop_all: the turn is reported cancelled...
    assert (await turn)[-1].error_code == "cancelled"
    assert ltm.writer.journal.pending() == [] and ltm.writer.pending == 0  # ...so it is not remembered


async def test_a_busy_session_refuses_a_second_message(llm_server, engine):
    llm_server.add_hang(3)
    first = engine.send("s1", "一")
    assert (await anext(first)).kind == "memories"
    second = await collect(engine, "s1", "二")
    assert kinds(second) == ["error"] and second[0].error_code == "input"
    engine.cancel("s1")
    assert [e.kind async for e in first] == ["error"]


# ── input ──────────────────────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize("text", ["", "   \n\t "])
async def test_empty_input_is_refused_and_nothing_is_stored(llm_server, engine, text):
    events = await collect(engine, "s1", text)
    assert kinds(events) == ["error"] and events[0].error_code == "input"
    assert await engine.list_sessions() == [] and llm_server.requests == []


async def test_huge_input_is_refused_with_its_size(llm_server, engine):
    text = "长" * 20_001
    events = await collect(engine, "s1", text)
    assert kinds(events) == ["error"] and events[0].error_code == "input"
    assert "20001" in events[0].error_zh and "20000" in events[0].error_en
    assert await engine.transcript("s1") == [] and llm_server.requests == []
    llm_server.add_text("收到")
    assert (await collect(engine, "s1", "长" * 20_000))[-1].kind == "done"


def test_error_codes_cover_the_contract():
    from sonetto_desktop.agent.llm_errors import CODES

    assert {"unconfigured", "unreachable", "auth", "rate_limit", "server", "timeout", "bad_response",
            "cancelled", "input"} <= set(ERROR_CODES)
    assert set(CODES) <= set(ERROR_CODES)


async def test_an_empty_reply_is_said_and_not_handed_to_the_writer(llm_server, engine, ltm):
    llm_server.add_text("")
    events = await collect(engine, "s1", "你好")
    assert kinds(events) == ["memories", "error"] and events[-1].error_code == "empty_reply"
    assert "空回复" in events[-1].error_zh and "empty reply" in events[-1].error_en
    assert ltm.writer.journal.pending() == []  # nothing of it reaches the memory writer
    transcript = await engine.transcript("s1")
    assert [e["role"] for e in transcript] == ["user", "assistant"] and transcript[1]["error"]["code"] == "empty_reply"


# ── sessions ───────────────────────────────────────────────────────────────────────────────────


async def test_session_management(llm_server, engine):
    llm_server.responder = lambda body: "嗯"
    a = await engine.create_session()
    b = await engine.create_session("读书会")
    await collect(engine, a.id, "聊聊旅行")
    assert [(s.id, s.title) for s in await engine.list_sessions()] == [(a.id, "聊聊旅行"), (b.id, "读书会")]
    await engine.rename_session(a.id, "旅行计划")
    assert (await engine.session(a.id)).title == "旅行计划"
    with pytest.raises(SessionNotFound):
        await engine.rename_session("missing", "x")

    assert await engine.delete_session(a.id) is True
    assert [s.id for s in await engine.list_sessions()] == [b.id]
    assert await engine.transcript(a.id) == []
    await collect(engine, a.id, "重新开始")  # the same id starts over: no checkpointed history left
    assert [m["role"] for m in llm_server.last_messages()] == ["system", "user"]


async def test_deleting_a_chat_before_any_turn_since_start_clears_its_checkpoints_without_langgraph(
        llm_server, make_engine):
    """Deleting an old chat right after start (no turn yet) must not open LangGraph's checkpointer
    (importing LangGraph, ~100 MB, issue 14), and the chat's checkpoints must still be gone."""
    llm_server.responder = lambda body: "嗯"
    first = await make_engine()
    kept, dropped = await first.create_session(), await first.create_session()
    await collect(first, kept.id, "留下的对话")
    await collect(first, dropped.id, "要删掉的对话")
    await first.close()

    second = await make_engine()  # as after a restart: the checkpointer is not opened yet
    assert await second.delete_session(dropped.id) is True
    assert second._db.saver is None  # LangGraph's saver was never opened for the delete
    await collect(second, dropped.id, "重新开始")  # the same id starts over: no checkpointed history
    assert [m["role"] for m in llm_server.last_messages()] == ["system", "user"]
    await collect(second, kept.id, "接着聊")  # the other chat's history is untouched
    assert [m["content"] for m in llm_server.last_messages() if m["role"] == "user"] == ["留下的对话", "接着聊"]


async def test_a_session_survives_a_restart_in_a_new_process(llm_server, make_engine, tmp_path):
    llm_server.add_text("我记下了：你喜欢蓝色。")
    data_dir = tmp_path / "data"
    proc = await asyncio.create_subprocess_exec(
        sys.executable, str(CHILD), str(data_dir), llm_server.base_url, "我最喜欢蓝色",
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0, err.decode()
    session_id = out.decode().strip().splitlines()[-1]

    engine = await make_engine()  # same data dir, this process
    assert [s.id for s in await engine.list_sessions()] == [session_id]
    transcript = await engine.transcript(session_id)
    assert [(e["role"], e["content"]) for e in transcript] == [
        ("user", "我最喜欢蓝色"),
        ("assistant", "我记下了：你喜欢蓝色。"),
    ]
    llm_server.add_text("蓝色")
    await collect(engine, session_id, "我喜欢什么颜色？")
    history = [(m["role"], m["content"]) for m in llm_server.last_messages()[1:]]
    assert history == [("user", "我最喜欢蓝色"), ("assistant", "我记下了：你喜欢蓝色。"), ("user", "我喜欢什么颜色？")]


async def test_engine_requires_start(ltm, tmp_path):
    engine = ChatEngine(ltm, data_dir=tmp_path, llm_factory=lambda: None)
    with pytest.raises(RuntimeError, match="start"):
        await collect(engine, "s1", "你好")


async def test_an_unreadable_session_db_is_moved_aside_not_lost(llm_server, make_engine, tmp_path):
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    (data_dir / "sessions.db").write_bytes(b"this is not a database" * 100)
    engine = await make_engine()
    assert engine.recovered_from is not None
    assert engine.recovered_from.read_bytes() == b"this is not a database" * 100
    llm_server.add_text("重新开始也没关系")
    assert (await collect(engine, "s1", "你好"))[-1].kind == "done"


async def test_a_locked_session_db_is_an_error_and_is_not_moved_aside(ltm, tmp_path):
    import sqlite3

    (tmp_path / "sessions.db").write_bytes(b"")
    holder = sqlite3.connect(tmp_path / "sessions.db", isolation_level=None)
    holder.execute("PRAGMA locking_mode=EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")  # another program holds the file (waits out the 5 s busy timeout)
    engine = ChatEngine(ltm, data_dir=tmp_path, llm_factory=lambda: None)
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        await engine.start()
    holder.close()
    assert engine.recovered_from is None and list(tmp_path.glob("sessions.db.broken-*")) == []


def assert_tool_calls_answered(messages: list[dict]) -> None:
    answered = {m["tool_call_id"] for m in messages if m["role"] == "tool"}
    asked = {c["id"] for m in messages if m["role"] == "assistant" for c in m.get("tool_calls") or []}
    assert asked <= answered


async def test_endless_tool_calls_stop_with_one_error_and_leave_a_valid_history(llm_server, make_engine):
    engine = await make_engine(recursion_limit=6)
    for _ in range(3):  # more tool rounds than 6 graph steps allow
        llm_server.add_tool_calls([("get_current_time", {})])
    events = await collect(engine, "s1", "一直查时间吧")
    assert [e.kind for e in events].count("error") == 1 and events[-1].error_code == "tool_loop"
    assert "/v1" not in events[-1].error_zh and "反复调用工具" in events[-1].error_zh
    llm_server.add_text("好了，不查了。")
    assert (await collect(engine, "s1", "停下"))[-1].text == "好了，不查了。"
    assert_tool_calls_answered(llm_server.last_messages())


async def test_two_sessions_reply_at_the_same_time(llm_server, engine):
    llm_server.delay = 0.2
    llm_server.responder = lambda body: "回复：" + body["messages"][-1]["content"]
    first, second = await asyncio.gather(collect(engine, "a", "甲"), collect(engine, "b", "乙"))
    assert (first[-1].text, second[-1].text) == ("回复：甲", "回复：乙")
    assert [e["content"] for e in await engine.transcript("a")] == ["甲", "回复：甲"]
    assert [e["content"] for e in await engine.transcript("b")] == ["乙", "回复：乙"]


async def test_a_broken_session_table_is_a_storage_error_not_a_crash(llm_server, engine, tmp_path):
    import sqlite3

    with sqlite3.connect(tmp_path / "data" / "sessions.db") as db:  # damaged from outside
        db.execute("DROP TABLE chat_entries")
    events = await collect(engine, "s1", "你好")
    assert kinds(events) == ["error"] and events[0].error_code == "storage"
    assert "保存" in events[0].error_zh and llm_server.requests == []


# ── two app instances in one session (issue 11 item 6) ─────────────────────────────────────────

TURNS_CHILD = Path(__file__).with_name("engine_turns_child.py")


async def test_two_app_instances_chat_in_one_session_and_every_turn_is_kept(llm_server, tmp_path):
    llm_server.responder = lambda body: "回复：" + body["messages"][-1]["content"]
    data_dir, go, count = tmp_path / "data", tmp_path / "go", 12
    children = [
        await asyncio.create_subprocess_exec(
            sys.executable, str(TURNS_CHILD), str(data_dir), str(tmp_path / name), llm_server.base_url,
            "shared", name, str(count), str(go), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        for name in ("a", "b")
    ]
    await asyncio.sleep(1.0)  # both instances have started (they wait for the go file)
    go.touch()
    results = await asyncio.wait_for(asyncio.gather(*(c.communicate() for c in children)), 180)
    assert [c.returncode for c in children] == [0, 0], [err.decode() for _, err in results]
    reports = [json.loads(out.decode().strip().splitlines()[-1]) for out, _ in results]
    for report in reports:
        assert report["kinds"] == ["done"] * count
        assert len(report["journaled"]) == count  # every turn reached the memory writer's journal

    from sonetto_desktop.agent.sessions import SessionStore

    store = SessionStore(data_dir / "sessions.db")
    await store.open()
    try:
        contents = [e["content"] for e in await store.transcript("shared")]
    finally:
        await store.close()
    expected = {f"{n}-{i}" for n in "ab" for i in range(count)} | {f"回复：{n}-{i}" for n in "ab" for i in range(count)}
    assert len(contents) == 4 * count and set(contents) == expected


# ── a lone surrogate in a reply (issue 11 item 20) ─────────────────────────────────────────────


async def test_a_lone_surrogate_in_a_reply_is_stored_and_the_turn_reaches_the_writer(llm_server, engine, ltm):
    llm_server.add_text("半个\ud83d字")  # the server sends the JSON escape "\ud83d" alone
    events = await collect(engine, "s1", "你好\udc80")  # and one in what the person sent (pasted bytes)
    assert events[-1].kind == "done" and events[-1].text == "半个\ufffd字"
    assert all("\ud83d" not in e.text for e in events)
    transcript = await engine.transcript("s1")
    assert [(e["role"], e["content"]) for e in transcript] == [("user", "你好\ufffd"), ("assistant", "半个\ufffd字")]
    [entry] = ltm.writer.journal.pending()
    assert [m["content"] for m in entry.messages] == ["你好\ufffd", "半个\ufffd字"]

    llm_server.add_text("好的")
    assert (await collect(engine, "s1", "继续"))[-1].text == "好的"
    history = [m["content"] for m in llm_server.last_messages()[1:]]
    assert history[0] == "你好\ufffd" and history[1].startswith("半个") and history[2] == "继续"


# ── a stalled stream fails soon, a slow one keeps going (issue 11 item 22) ─────────────────────


async def test_an_endpoint_that_never_answers_fails_at_the_first_token_deadline(llm_server, make_llm, make_engine):
    # The HTTP timeout (60 s, retried once) would leave the person waiting two minutes.
    engine = await make_engine(llm_factory=lambda: make_llm(streaming=True, timeout=60, max_retries=1))
    engine.first_token_timeout = 1.0
    llm_server.add_hang(30)
    events = await collect(engine, "s1", "在吗")
    assert kinds(events) == ["memories", "error"]
    error = events[-1]
    assert error.error_code == "timeout" and "1 秒内没有开始回复" in error.error_zh and "within 1 s" in error.error_en
    assert (await engine.transcript("s1"))[1]["error"]["code"] == "timeout"
    llm_server.clear()
    llm_server.add_text("在的")
    assert (await collect(engine, "s1", "现在呢"))[-1].text == "在的"


async def test_a_stream_that_stops_midway_fails_at_the_idle_deadline_and_keeps_what_arrived(
    llm_server, make_llm, make_engine
):
    engine = await make_engine(llm_factory=lambda: make_llm(streaming=True, timeout=60))
    engine.idle_timeout = 1.0
    llm_server.add_stalling_stream("我想想，这个问题", seconds=30)
    events = await collect(engine, "s1", "问个问题")
    assert events[-1].kind == "error" and events[-1].error_code == "timeout"
    assert "1 秒内没有收到新的内容" in events[-1].error_zh
    assert "".join(e.text for e in events if e.kind == "token") == "我想想，这个问题"
    transcript = await engine.transcript("s1")
    assert transcript[1]["content"] == "我想想，这个问题" and transcript[1]["error"]["code"] == "timeout"
    llm_server.add_text("接着说")
    await collect(engine, "s1", "继续")
    history = [(m["role"], m["content"]) for m in llm_server.last_messages()[1:]]
    assert history == [("user", "问个问题"), ("assistant", "我想想，这个问题"), ("user", "继续")]


@pytest.mark.parametrize("end", ["closed", "length"])
async def test_a_reply_that_stops_before_its_end_is_said_and_not_handed_to_the_writer(end, llm_server, make_llm,
                                                                                       make_engine, ltm):
    """A local server that went away mid-reply (its stream closed with no finish), or a reply cut at the
    model's limit (finish_reason "length"): the half sentence was shown as Sonetto's whole answer, without a
    word, and handed to the memory writer. It ends as an error (cut_off, with a retry), what arrived kept
    in the transcript and the model's history, as at the idle deadline; the writer gets nothing."""
    from llm_server import TextResponse

    engine = await make_engine(llm_factory=lambda: make_llm(streaming=True, timeout=60))
    llm_server.add_text("好呀")  # the server says how its replies end (finish_reason "stop")
    await collect(engine, "s0", "你好")
    if end == "closed":
        llm_server.add_stalling_stream("从前有一座山，山上有", seconds=0.1)  # (well within the idle deadline)
    else:
        llm_server.add(TextResponse("从前有一座山，山上有", finish="length"))
    events = await collect(engine, "s1", "讲个故事")
    assert events[-1].kind == "error" and events[-1].error_code == "cut_off", events[-1]
    assert "没说完" in events[-1].error_zh and "cut off" in events[-1].error_en
    assert "".join(e.text for e in events if e.kind == "token") == "从前有一座山，山上有"
    assert not any("从前有一座山" in str(entry) for entry in ltm.writer.journal.pending())
    transcript = await engine.transcript("s1")
    assert transcript[1]["content"] == "从前有一座山，山上有" and transcript[1]["error"]["code"] == "cut_off"
    llm_server.add_text("接着说")
    await collect(engine, "s1", "继续")
    history = [(m["role"], m["content"]) for m in llm_server.last_messages()[1:]]
    assert history == [("user", "讲个故事"), ("assistant", "从前有一座山，山上有"), ("user", "继续")]


async def test_a_fresh_chat_knows_the_server_says_how_its_replies_end(llm_server, make_llm, make_engine):
    """A reply cut off on a fresh graph's first reply (the chat started again: a new engine, new settings)
    was taken whole: a missing finish_reason counted as a cut only from a server the graph had heard one
    from, and a new graph had heard none. What a server (its base URL and model) says is remembered for
    the process's life; another model of the same server, never heard, is not taken to cut its replies."""
    from llm_server import TextResponse

    first = await make_engine(llm_factory=lambda: make_llm(streaming=True, timeout=60))
    llm_server.add_text("好呀")  # finish_reason "stop"
    assert (await collect(first, "s0", "你好"))[-1].kind == "done"
    await first.close()
    again = await make_engine(llm_factory=lambda: make_llm(streaming=True, timeout=60))
    llm_server.add_stalling_stream("从前有一座山，山上有", seconds=0.1)  # closed with no finish
    events = await collect(again, "s1", "讲个故事")
    assert events[-1].kind == "error" and events[-1].error_code == "cut_off", events[-1]
    other = await make_engine(llm_factory=lambda: make_llm(streaming=True, timeout=60, model="other-model"))
    llm_server.add(TextResponse("晚安", finish=None))
    events = await collect(other, "s2", "晚安")
    assert events[-1].kind == "done" and events[-1].text == "晚安", events[-1]


async def test_a_new_scripted_server_on_a_port_an_earlier_one_had_is_a_server_never_heard(make_llm, make_engine):
    """What a server says of how its replies end is remembered by its address and model for the process's
    life, and the system gives a test's server a port an earlier test's had now and then (3 in 100 here):
    a server that never says it (the test above) was then taken to cut every reply, by what another test's
    server had said. A scripted server is a new server: nothing said at its address before it counts."""
    from llm_server import ScriptedLLMServer, TextResponse

    with ScriptedLLMServer() as earlier:  # (an earlier test's)
        first = await make_engine(llm_factory=lambda: make_llm(base_url=earlier.base_url, streaming=True, timeout=60))
        earlier.add_text("好呀")  # finish_reason "stop"
        assert (await collect(first, "s0", "你好"))[-1].kind == "done"
        await first.close()
        port = earlier.port
    with ScriptedLLMServer(port=port) as later:  # (this test's, on the port that came free)
        again = await make_engine(llm_factory=lambda: make_llm(base_url=later.base_url, streaming=True, timeout=60))
        later.add(TextResponse("晚安", finish=None))
        events = await collect(again, "s1", "晚安")
        await again.close()
    assert events[-1].kind == "done" and events[-1].text == "晚安", events[-1]


async def test_a_server_that_stops_saying_how_its_replies_end_is_not_taken_to_cut_them_all(llm_server, make_llm,
                                                                                            make_engine):
    """Another program answering at the same address with the same model name (LM Studio where Ollama was, a
    gateway put before it) that never says how a reply ended: every reply was said as cut off, by what the one
    before had said, until the app was started again. The first such reply is said as cut (it may have been:
    a server gone mid-reply looks the same); the second in a row is whole, and so is every one after it."""
    from llm_server import TextResponse

    engine = await make_engine(llm_factory=lambda: make_llm(streaming=True, timeout=60))
    llm_server.add_text("好呀")  # finish_reason "stop"
    assert (await collect(engine, "s0", "你好"))[-1].kind == "done"
    llm_server.add(TextResponse("晚上好", finish=None))
    assert (await collect(engine, "s1", "晚上好"))[-1].error_code == "cut_off"
    for n, text in enumerate(["今天也辛苦了", "晚安", "明天见"]):
        llm_server.add(TextResponse(text, finish=None))
        events = await collect(engine, "s1", f"第{n}句")
        assert events[-1].kind == "done" and events[-1].text == text, events[-1]
    llm_server.add_text("早")  # it says it again: a reply closed without it is cut once more
    assert (await collect(engine, "s2", "早"))[-1].kind == "done"
    llm_server.add_stalling_stream("从前有一座山，山上有", seconds=0.1)
    assert (await collect(engine, "s2", "讲个故事"))[-1].error_code == "cut_off"


@pytest.mark.parametrize("streaming", [True, False])
async def test_a_server_that_never_says_how_a_reply_ended_is_not_cut_off(streaming, llm_server, make_llm,
                                                                        make_engine):
    """Some OpenAI-compatible servers and gateways send no finish_reason at all: every reply of theirs
    is whole, and none may be taken for one cut off (that would fail them all)."""
    from llm_server import TextResponse

    engine = await make_engine(llm_factory=lambda: make_llm(streaming=streaming, timeout=60))
    for n, text in enumerate(["你好呀", "今天也辛苦了", "晚安"]):
        llm_server.add(TextResponse(text, finish=None))
        events = await collect(engine, "s1", f"第{n}句")
        assert events[-1].kind == "done" and events[-1].text == text, events[-1]


async def test_a_slow_reply_that_keeps_streaming_is_not_cut_off(llm_server, make_llm, make_engine):
    engine = await make_engine(llm_factory=lambda: make_llm(streaming=True, timeout=60))
    engine.first_token_timeout = engine.idle_timeout = 1.0
    llm_server.chunk_delay = 0.3  # 8 chunks: the whole reply takes longer than either deadline
    llm_server.add_tool_calls([("get_current_time", {})])  # tool time is not model silence
    llm_server.add_text("慢慢地说完这一整句话吧")
    events = await collect(engine, "s1", "慢慢说")
    assert events[-1].kind == "done" and events[-1].text == "慢慢地说完这一整句话吧"


async def test_the_deadlines_come_from_the_settings(llm_server, make_engine):
    settings = Settings(base_url=llm_server.base_url, model="test-model", first_token_timeout=1.0,
                        stream_idle_timeout=2.0)
    engine = await make_engine(llm_factory=None, settings_provider=lambda: settings)
    assert (engine.first_token_timeout, engine.idle_timeout) == (1.0, 2.0)
    llm_server.add_hang(30)
    assert (await collect(engine, "s1", "在吗"))[-1].error_code == "timeout"
    assert Settings().first_token_timeout == 30.0 and Settings().stream_idle_timeout == 30.0


async def test_an_emoji_split_across_stream_chunks_streams_and_is_kept_whole(llm_server, make_llm, make_engine):
    # A server that cuts its reply by UTF-16 units sends the emoji's two halves in two chunks
    # ("好呀\ud83d" then "\ude00再见", the scripted server's 3-character chunks).
    engine = await make_engine(llm_factory=lambda: make_llm(streaming=True, timeout=60))
    llm_server.add_text("好呀\ud83d\ude00再见")
    events = await collect(engine, "s1", "笑一个")
    assert "".join(e.text for e in events if e.kind == "token") == "好呀😀再见"
    assert events[-1].kind == "done" and events[-1].text == "好呀😀再见"

    # A reply that stalls after the emoji keeps it whole, not as two replacement characters.
    engine.idle_timeout = 1.0
    llm_server.add_stalling_stream("好呀\ud83d\ude00", seconds=30)
    events = await collect(engine, "s1", "再笑一个")
    assert events[-1].kind == "error" and events[-1].error_code == "timeout"
    assert "".join(e.text for e in events if e.kind == "token") == "好呀😀"
    assert (await engine.transcript("s1"))[3]["content"] == "好呀😀"
