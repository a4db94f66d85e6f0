"""MemoryConsumer end to end: real ChatOpenAI over HTTP to the scripted server, real stores."""

from __future__ import annotations

from datetime import datetime

import openai
import pytest

from memory_stores import backend_store_fixture
from sonetto_desktop.memory.writer.consumer import MemoryConsumer
from sonetto_desktop.memory.writer.turns import format_turn, last_exchange, normalize_turn

NOW = datetime(2026, 12, 2, 20, 0)  # Wednesday


mm = backend_store_fixture()


def turn(user: str, reply: str = "嗯嗯，我记住啦") -> list[dict[str, str]]:
    return [{"role": "user", "content": user}, {"role": "assistant", "content": reply}]


def tool_messages(request: dict) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


async def test_cold_start_creates_memories_with_events_in_order(llm_server, make_llm, mm):
    llm_server.add_tool_calls([
        ("create_memory", {"content": "用户在杭州读大学", "section": "身份"}),
        ("create_memory", {"content": "用户12月4日（周五）有离散数学考试", "section": "时效待办"}),
        ("create_memory", {"content": "用户喜欢洛天依", "section": "音乐"}),
    ])
    result = await MemoryConsumer(make_llm(), mm, now=lambda: NOW).consume(
        "s1", "t1", turn("我在杭州读大学，后天考离散数学，最近一直在听洛天依"))
    items = mm.all_items()
    assert sorted(i.description for i in items.values()) == sorted(
        ["用户在杭州读大学", "用户12月4日（周五）有离散数学考试", "用户喜欢洛天依"])
    # Parallel tool calls of one message run in the model's order: the changes follow that order.
    changes = result.changes
    assert [c.kind for c in changes] == ["add", "add", "add"]
    assert [c.state(c.ids[0])["description"] for c in changes] == [
        "用户在杭州读大学", "用户12月4日（周五）有离散数学考试", "用户喜欢洛天依"]
    assert all((c.actor, c.session_id, c.turn_id) == ("agent", "s1", "t1") for c in changes)
    created = mm.get(changes[0].ids[0]).history[0]
    assert (created["action"], created["turn_id"], created["excerpt"]) == ("create", "t1", "我在杭州读大学，后天考离散数学，最近一直在听洛天依")
    # Every call succeeded: the run ends without asking the model for a closing sentence.
    assert result.cold_start and result.llm_calls == 1 and result.tool_calls == 3 and result.tool_errors == 0
    assert result.prompt_tokens > 0 and result.final_text == "" and llm_server.pending() == 0


async def test_update_flow_reads_first_and_keeps_old_value_in_history(llm_server, make_llm, mm):
    mid = mm.add("用户在上海做前端开发", "身份")
    llm_server.add_tool_calls([("read_memories", {})])
    llm_server.add_tool_calls([("update_memory", {"id": mid, "content": "用户在杭州做前端开发",
                                                  "reason": "用户说上个月搬到了杭州"})])
    result = await MemoryConsumer(make_llm(), mm, now=lambda: NOW).consume(
        None, "t2", turn("我上个月搬到杭州了，还是做前端"))
    # The model saw the read_memories output with the id, section and text.
    read_output = tool_messages(llm_server.requests[1])[0]
    day = str(mm.get(mid).latest_update_time)[5:10]  # the memory's own date (written today), as MM-DD
    assert read_output.splitlines()[1:] == ["【身份】", f'{mid} {day} "用户在上海做前端开发"']
    item = mm.get(mid)
    assert item.description == "用户在杭州做前端开发" and item.hit == 1
    entry = item.history[-1]
    assert entry["actor"] == "agent" and entry["reason"] == "用户说上个月搬到了杭州"
    assert entry["old_description"] == "用户在上海做前端开发"
    assert [(c.kind, c.ids) for c in result.changes] == [("update", (mid,)), ("hit", (mid,))]
    assert result.changes[0].reason == "用户说上个月搬到了杭州" and result.changes[0].turn_id == "t2"
    # A read is followed by another model call; the successful update ends the run.
    assert not result.cold_start and result.llm_calls == 2


async def test_merge_delete_and_hit_flows(llm_server, make_llm, mm):
    a = mm.add("用户喜欢洛天依", "音乐")
    b = mm.add("用户常听洛天依的歌", "品味")
    exam = mm.add("用户12月1日有高数考试", "时效待办")
    cat = mm.add("用户养了一只叫年糕的猫", "身份")
    llm_server.add_tool_calls([("read_memories", {})])
    llm_server.add_tool_calls([
        ("merge_memories", {"id1": a, "id2": b, "content": "用户喜欢洛天依，常听她的歌", "section": "音乐",
                            "reason": "两条都在说洛天依"}),
        ("delete_memory", {"id": exam, "reason": "12月1日的考试已经结束"}),
        ("hit_memory", {"id": cat}),
    ])
    result = await MemoryConsumer(make_llm(), mm, now=lambda: NOW).consume("s", "t3", turn("年糕今天又把杯子打翻了"))
    assert set(mm.all_items()) == {a, cat}
    assert mm.get(a).description == "用户喜欢洛天依，常听她的歌"
    assert mm.get(a).history[-1]["actor"] == "agent"
    assert mm.get(cat).hit == 1
    trash = {t["id"]: t for t in mm.list_trash()}
    assert trash[exam]["reason"] == "12月1日的考试已经结束" and trash[exam]["actor"] == "agent"
    assert b in trash
    assert [(c.kind, c.ids) for c in result.changes] == [("merge", (a, b)), ("delete", (exam,)), ("hit", (cat,))]
    assert result.changes[1].extra["description"] == "用户12月1日有高数考试"
    assert trash[exam]["turn_id"] == "t3"


async def test_bad_tool_call_is_recovered(llm_server, make_llm, mm):
    mid = mm.add("用户喜欢喝美式咖啡", "品味")
    llm_server.add_tool_calls([("update_memory", {"id": "deadbeef", "content": "用户喜欢喝拿铁",
                                                  "reason": "用户说最近改喝拿铁"})])
    llm_server.add_tool_calls([("read_memories", {})])
    llm_server.add_tool_calls([("update_memory", {"id": mid, "content": "用户喜欢喝拿铁",
                                                  "reason": "用户说最近改喝拿铁"})])
    result = await MemoryConsumer(make_llm(), mm).consume("s", "t4", turn("我最近不喝美式了，改喝拿铁"))
    # The model received the error text and went on.
    error_text = tool_messages(llm_server.requests[1])[-1]
    assert "deadbeef" in error_text and "read_memories" in error_text
    assert mm.get(mid).description == "用户喜欢喝拿铁"
    assert [c.kind for c in result.changes] == ["update", "hit"]
    assert result.tool_errors == 1 and result.tool_calls == 3 and result.llm_calls == 3 and llm_server.pending() == 0


async def test_llm_failure_raises_and_writes_nothing(llm_server, make_llm, mm):
    llm_server.add_error(500, "upstream exploded")
    with pytest.raises(openai.InternalServerError):
        await MemoryConsumer(make_llm(), mm).consume("s", "t5", turn("我喜欢猫"))
    assert mm.count() == 0


async def test_unknown_tool_name_is_an_error_message_not_a_crash(llm_server, make_llm, mm):
    llm_server.add_tool_calls([("remember_everything", {"x": 1})])
    llm_server.add_text("好的。")
    result = await MemoryConsumer(make_llm(), mm).consume("s", "t6", turn("随便聊聊"))
    assert "remember_everything" in tool_messages(llm_server.requests[1])[0]
    assert result.llm_calls == 2 and mm.count() == 0


async def test_huge_turn_is_clipped_in_the_prompt(llm_server, make_llm, mm):
    llm_server.add_text("本轮无需记录")
    huge = "开头的话。" + "很长的粘贴内容" * 20000 + "结尾：我叫小林"
    await MemoryConsumer(make_llm(), mm).consume("s", "t7", turn(huge, "收到" * 10000))
    user_prompt = llm_server.requests[0]["messages"][-1]["content"]
    assert len(user_prompt) < 15000
    assert "开头的话" in user_prompt and "我叫小林" in user_prompt and "中间省略" in user_prompt


def test_normalize_turn_rejects_empty_and_keeps_text_whole():
    with pytest.raises(ValueError, match="nothing to remember"):
        normalize_turn([])
    with pytest.raises(ValueError, match="nothing to remember"):
        normalize_turn([{"role": "user", "content": "   "}, {"role": "system", "content": "x"}])
    with pytest.raises(ValueError, match="list"):
        normalize_turn("我喜欢猫")
    with pytest.raises(ValueError, match="dict"):
        normalize_turn([42])
    long_text = "猫" * 50000
    assert normalize_turn([{"role": "human", "content": long_text}]) == [{"role": "user", "content": long_text}]


def test_format_turn_and_last_exchange():
    from langchain_core.messages import AIMessage, HumanMessage

    msgs = [HumanMessage("第一句"), AIMessage("回一"), HumanMessage("第二句"), AIMessage("回二")]
    pair = last_exchange(msgs)
    assert [m.content for m in pair] == ["第二句", "回二"]
    assert format_turn(normalize_turn(pair)) == "用户：第二句\n\nSonetto：回二"
    with pytest.raises(ValueError):
        last_exchange([{"role": "assistant", "content": "你好"}])


def test_consumer_needs_a_model(mm):
    with pytest.raises(ValueError, match="no model configured"):
        MemoryConsumer(None, mm)
