"""Regenerate / edit-and-resend in the engine: the replaced turn and everything after it leave the
transcript *and* the model's history (real engine, real checkpoints, the scripted server)."""

from __future__ import annotations

import pytest

from ltm_helpers import idle_ltm_fixture
from memory_stores import yaml_store_fixture
from sonetto_desktop.agent.engine import ChatEngine

mm = yaml_store_fixture()
ltm = idle_ltm_fixture()


@pytest.fixture
async def engine(tmp_path, ltm, make_llm):
    eng = ChatEngine(ltm, data_dir=tmp_path / "data", llm_factory=lambda: make_llm(streaming=True))
    await eng.start()
    yield eng
    await eng.close()


async def _turn(engine, sid, text, **kw):
    return [event async for event in engine.send(sid, text, **kw)]


def _said(request) -> list[str]:
    return [str(m.get("content")) for m in request["messages"] if m.get("role") in ("user", "assistant")]


async def _turn_ids(engine, sid) -> list[str]:
    seen = []
    for entry in await engine.transcript(sid):
        if entry["turn_id"] not in seen:
            seen.append(entry["turn_id"])
    return seen


async def test_regenerating_the_last_reply_replaces_it_everywhere(engine, llm_server):
    sid = "s1"
    for text, reply in (("第一句", "回答一"), ("第二句", "回答二")):
        llm_server.add_text(reply)
        await _turn(engine, sid, text)
    second = (await _turn_ids(engine, sid))[1]

    llm_server.add_text("新的回答二")
    events = await _turn(engine, sid, "第二句", replace_turn=second)
    assert events[-1].kind == "done" and events[-1].text == "新的回答二"
    assert [(e["role"], e["content"]) for e in await engine.transcript(sid)] == [
        ("user", "第一句"), ("assistant", "回答一"), ("user", "第二句"), ("assistant", "新的回答二")]
    said = _said(llm_server.requests[-1])
    assert said[-1] == "第二句" and "回答一" in said and "回答二" not in said
    assert said.count("第二句") == 1

    llm_server.add_text("继续")
    await _turn(engine, sid, "第三句")  # the next turn continues from the new branch
    said = _said(llm_server.requests[-1])
    assert "新的回答二" in said and "回答二" not in said


async def test_editing_the_first_message_starts_the_session_over(engine, llm_server):
    sid = "s2"
    for text in ("旧的开头", "后来的话"):
        llm_server.add_text("好")
        await _turn(engine, sid, text)
    first = (await _turn_ids(engine, sid))[0]
    llm_server.add_text("新的回答")
    await _turn(engine, sid, "新的开头", replace_turn=first)
    assert [e["content"] for e in await engine.transcript(sid)] == ["新的开头", "新的回答"]
    assert _said(llm_server.requests[-1]) == ["新的开头"]


async def test_an_unknown_turn_changes_nothing(engine, llm_server):
    sid = "s3"
    llm_server.add_text("好")
    await _turn(engine, sid, "你好")
    before = await engine.transcript(sid)
    events = await _turn(engine, sid, "再来", replace_turn="no-such-turn")
    assert [e.kind for e in events] == ["error"] and events[0].error_code == "input"
    assert await engine.transcript(sid) == before


def _users(request) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "user"]


async def test_regenerating_after_a_failed_turn_keeps_the_failed_message_for_the_model(engine, llm_server):
    # a failure with nothing streamed leaves its turn's last checkpoint with a pending step: the fork
    # must still start after it (the person's message survives every failure)
    llm_server.add_text("你好呀")
    await _turn(engine, "s1", "第一句")
    llm_server.add_error(500, "boom")
    assert (await _turn(engine, "s1", "失败的那句"))[-1].error_code == "server"
    llm_server.add_text("回答三")
    await _turn(engine, "s1", "第三句")
    assert _users(llm_server.last_request()) == ["第一句", "失败的那句", "第三句"]

    third = (await _turn_ids(engine, "s1"))[2]
    llm_server.add_text("新的回答三")
    assert (await _turn(engine, "s1", "第三句", replace_turn=third))[-1].kind == "done"
    assert "失败的那句" in [e["content"] for e in await engine.transcript("s1")]
    assert _users(llm_server.last_request()) == ["第一句", "失败的那句", "第三句"]


async def test_retrying_the_second_of_two_failed_turns_keeps_the_first_for_the_model(engine, llm_server):
    llm_server.add_text("你好呀")
    await _turn(engine, "s1", "第一句")
    for text in ("断网时说的话", "还在吗"):
        llm_server.add_error(500, "down")
        assert (await _turn(engine, "s1", text))[-1].error_code == "server"
    last = (await _turn_ids(engine, "s1"))[-1]
    llm_server.add_text("在的")
    assert (await _turn(engine, "s1", "还在吗", replace_turn=last))[-1].kind == "done"
    assert "断网时说的话" in [e["content"] for e in await engine.transcript("s1")]
    assert _users(llm_server.last_request()) == ["第一句", "断网时说的话", "还在吗"]


async def test_retrying_a_turn_after_a_failed_first_turn_keeps_the_session_history(engine, llm_server):
    # the failed turn was the session's first: the fork is its checkpoint, the thread is not cleared
    llm_server.add_error(500, "down")
    assert (await _turn(engine, "s1", "第一句没发出去"))[-1].error_code == "server"
    llm_server.add_error(500, "down")
    assert (await _turn(engine, "s1", "第二句"))[-1].error_code == "server"
    last = (await _turn_ids(engine, "s1"))[-1]
    llm_server.add_text("在的")
    assert (await _turn(engine, "s1", "第二句", replace_turn=last))[-1].kind == "done"
    assert _users(llm_server.last_request()) == ["第一句没发出去", "第二句"]


async def test_regenerating_twice_forks_from_the_current_branch_not_a_replaced_one(engine, llm_server):
    for text, reply in (("第一句", "回答一"), ("第二句", "回答二")):
        llm_server.add_text(reply)
        await _turn(engine, "s1", text)
    for reply in ("新的回答二", "再新的回答二"):
        second = (await _turn_ids(engine, "s1"))[1]
        llm_server.add_text(reply)
        assert (await _turn(engine, "s1", "第二句", replace_turn=second))[-1].kind == "done"
    assert _said(llm_server.last_request()) == ["第一句", "回答一", "第二句"]
    assert [e["content"] for e in await engine.transcript("s1")] == ["第一句", "回答一", "第二句", "再新的回答二"]
