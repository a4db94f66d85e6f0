"""The writer's tool loop (``memory/writer/tool_loop.py``, issue 37): a plain ReAct loop over
``ChatOpenAI.bind_tools``, real HTTP to the scripted server. What a tool refuses is answered to the
model and the run goes on; a store failure fails the run; a model that keeps calling tools meets the
round limit; and the writer's path (imports, other apps' turns) never loads LangGraph's agent."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest
from langchain_core.messages import HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import StructuredTool, ToolException

from llm_server import tool_calls
from memory_stores import yaml_store_fixture
from sonetto_desktop.memory.writer.tool_loop import StepLimit, ToolLoop, run_tools_sync

HERE = Path(__file__).resolve().parent
store = yaml_store_fixture("store")
SYSTEM = SystemMessage(content="你是记忆管理员。")


def tools(seen: list[str]) -> list[StructuredTool]:
    def note(text: str) -> str:
        """记下一句话。"""
        if text == "secret":
            raise ToolException("错误：这句话像是密码，不能记。")
        if text == "disk":
            raise OSError(28, "No space left on device")
        seen.append(text)
        return f"已记下：{text}"

    def look() -> str:
        """看看记下了什么。"""
        return "、".join(seen) or "（空）"

    return [StructuredTool.from_function(note, handle_tool_error=True),
            StructuredTool.from_function(look, handle_tool_error=True)]


def tool_answers(body: dict) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "tool"]


async def test_a_refusing_tool_and_an_unknown_tool_are_answered_to_the_model_and_the_run_goes_on(llm_server,
                                                                                                  make_llm):
    seen: list[str] = []
    llm_server.add_tool_calls([("note", {"text": "secret"}), ("remember_all", {}), ("note", {"text": "猫"}),
                               ("note", {})])
    llm_server.add_text("好的")
    loop = ToolLoop(make_llm(), tools(seen), max_rounds=5)
    messages = await loop.run(SYSTEM, [HumanMessage(content="我养了猫")], {})
    assert seen == ["猫"]  # the calls after the refused one still ran, in the model's order
    answers = tool_answers(llm_server.requests[1])
    assert answers[0] == "错误：这句话像是密码，不能记。"
    assert "remember_all is not a valid tool" in answers[1] and "note, look" in answers[1]
    assert answers[2] == "已记下：猫" and "text" in answers[3]  # bad arguments: said, not raised
    statuses = [m.status for m in messages if isinstance(m, ToolMessage)]
    assert statuses == ["error", "error", "success", "error"] and messages[-1].content == "好的"
    assert len(llm_server.requests) == 2


async def test_a_round_of_writes_that_all_succeeded_ends_the_run_without_asking_again(llm_server, make_llm):
    seen: list[str] = []
    llm_server.add_tool_calls([("note", {"text": "猫"}), ("note", {"text": "狗"})])
    messages = await ToolLoop(make_llm(), tools(seen), max_rounds=5).run(SYSTEM, [HumanMessage(content="猫和狗")], {})
    assert seen == ["猫", "狗"] and len(llm_server.requests) == 1 and isinstance(messages[-1], ToolMessage)


async def test_a_store_failure_in_a_tool_fails_the_run(llm_server, make_llm):
    llm_server.add_tool_calls([("note", {"text": "disk"})])
    with pytest.raises(OSError, match="No space"):  # the writer takes the run back and retries the turn
        await ToolLoop(make_llm(), tools([]), max_rounds=5).run(SYSTEM, [HumanMessage(content="x")], {})


async def test_a_model_that_keeps_calling_tools_meets_the_round_limit(llm_server, make_llm):
    llm_server.default = tool_calls([("note", {"text": "secret"})])  # refused: the model is asked again
    with pytest.raises(StepLimit):
        await ToolLoop(make_llm(), tools([]), max_rounds=4).run(SYSTEM, [HumanMessage(content="x")], {})
    assert len(llm_server.requests) == 4


def test_the_blocking_loop_of_the_tidy_up_pass_does_the_same(llm_server, make_llm):
    seen: list[str] = []
    llm_server.add_tool_calls([("note", {"text": "secret"})])
    llm_server.add_tool_calls([("note", {"text": "猫"})])
    messages = run_tools_sync(ToolLoop(make_llm(), tools(seen), max_rounds=5), SYSTEM, [HumanMessage(content="x")])
    assert seen == ["猫"] and len(llm_server.requests) == 2
    assert tool_answers(llm_server.requests[1]) == ["错误：这句话像是密码，不能记。"]
    assert [m.status for m in messages if isinstance(m, ToolMessage)] == ["error", "success"]
    llm_server.default = tool_calls([("note", {"text": "secret"})])
    with pytest.raises(StepLimit):
        run_tools_sync(ToolLoop(make_llm(), tools([]), max_rounds=2), SYSTEM, [HumanMessage(content="x")])


@pytest.fixture
def calls_without_ids(monkeypatch):
    """The scripted server sends its tool calls without an "id" (some OpenAI-compatible servers do)."""
    import llm_payloads

    original = llm_payloads._message_parts

    def without_ids(response, next_id):
        text, calls = original(response, next_id)
        return text, [{k: v for k, v in call.items() if k != "id"} for call in calls]

    monkeypatch.setattr(llm_payloads, "_message_parts", without_ids)


async def test_tool_calls_without_an_id_are_given_one_the_answers_and_the_history_share(
        llm_server, make_llm, calls_without_ids):
    seen: list[str] = []
    llm_server.add_tool_calls([("note", {"text": "secret"}), ("note", {"text": "猫"})])
    llm_server.add_text("好的")
    messages = await ToolLoop(make_llm(), tools(seen), max_rounds=5).run(SYSTEM, [HumanMessage(content="x")], {})
    assert seen == ["猫"] and messages[-1].content == "好的"
    sent = llm_server.requests[1]["messages"]
    asked = [call["id"] for m in sent if m["role"] == "assistant" for call in m.get("tool_calls") or ()]
    answered = [m["tool_call_id"] for m in sent if m["role"] == "tool"]
    assert len(set(asked)) == 2 and all(asked) and answered == asked


async def test_the_writer_answers_tool_calls_that_have_no_id(llm_server, make_llm, tmp_path, calls_without_ids):
    from ltm_helpers import FAST, TURN, until
    from sonetto_desktop.memory import MemoryWriter, YamlMemoryManager

    mm = YamlMemoryManager(tmp_path / "memory.yaml")
    llm_server.default = tool_calls([("create_memory", {"content": "用户喜欢猫", "section": "品味"})])
    writer = MemoryWriter(mm, make_llm(), backoff=FAST, max_attempts=2)
    writer.start()
    await writer.send_history(TURN)
    await until(lambda: writer.pending == 0 and not writer.busy)
    await writer.stop()
    try:
        assert writer.failed_turns() == []  # was: pydantic ValidationError (ToolMessage.tool_call_id None), each try
        assert [i.description for i in mm.all_items().values()] == ["用户喜欢猫"]
    finally:
        mm.close()


def test_the_writers_path_never_imports_langgraphs_agent(llm_server, tmp_path):
    """A history import and another app's turn, written by the writer with the model over HTTP, in a
    child process: LangGraph (LangChain's ``create_agent``) is not loaded for them (it cost the import
    most of its CPU, issue 37); the chat, which is a LangGraph graph, is not started."""

    def write(body: dict) -> object:
        if any(m["role"] == "tool" for m in body["messages"]):
            return "好的"
        return tool_calls([("create_memory", {"content": f"用户说过第{len(llm_server.requests)}件事", "section": "瞬间"}),
                           ("update_memory", {"id": "nope1234", "content": "x", "reason": "y"})])

    llm_server.responder = write
    done = subprocess.run([sys.executable, str(HERE / "writer_modules_child.py"), llm_server.base_url,
                           str(tmp_path / "data")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["turns_written"] >= 3 and out["memories"] >= 2 and out["chat_model"], out
    assert out["writer_error"] in ("", None), out
    assert out["agent_modules"] == []


async def test_a_turn_another_run_journaled_is_filtered_for_secrets_again(llm_server, make_llm, store):
    """A turn is filtered for secrets once per run of the app: one this writer journaled is not filtered
    again when it is written, one an earlier run (another version, another instance) journaled is, whatever
    that run's entry says."""
    from sonetto_desktop.memory import MemoryWriter
    from sonetto_desktop.memory.writer.journal import TurnJournal, default_journal_path

    earlier = TurnJournal(default_journal_path(store.path))  # an earlier run, whose filter missed the password
    earlier.append("t-earlier", None, [{"role": "user", "content": "我的邮箱密码是 Hunter2024abc，帮我记一下"},
                                       {"role": "assistant", "content": "好的"}], hidden=True)
    llm_server.add_text("本轮无需记录")
    llm_server.add_text("本轮无需记录")
    writer = MemoryWriter(store, make_llm(), backoff=(0.01, 0.02))
    writer.start()
    await writer.send_history([{"role": "user", "content": "我的门禁密码是 7319，别忘了"},
                               {"role": "assistant", "content": "记住啦"}])
    for _ in range(200):
        if writer.pending == 0 and not writer.busy and len(llm_server.requests) == 2:
            break
        await asyncio.sleep(0.05)
    assert await writer.stop() is True
    prompts = [json.dumps(body, ensure_ascii=False) for body in llm_server.requests]
    assert len(prompts) == 2 and "邮箱密码是" in prompts[0] and "门禁密码是" in prompts[1]
    assert "Hunter2024abc" not in prompts[0] and "7319" not in prompts[1]
    assert "［已隐去的密码］" in prompts[0] and "［已隐去的密码］" in prompts[1]


def _noted(env, id: str, note: str = "无") -> object:
    """给一条记忆加个备注（测试用）。"""
    from sonetto_desktop.memory.writer.registry import Outcome, Plan

    env.store.get(id)
    return Plan("flag", lambda ops: Outcome(f"{id}：{note}", "flag", (id,)), (id,), change=False)


@pytest.mark.parametrize("name, args", [
    ("read_memories", {}),
    ("create_memory", {"content": "用户养了一只猫", "section": "品味"}),
    ("create_memory", {"content": "用户的邮箱密码是 Hunter2024abc", "section": "身份"}),  # refused: a secret
    ("create_memory", {"content": "用户养了一只猫"}),  # an argument missing
    ("create_memory", {"content": 42, "section": "品味"}),  # of the wrong type
    ("update_memory", {"id": "MID", "content": "用户养了两只猫", "reason": "又养了一只", "extra": 1}),
    ("hit_memory", {"id": "nope1234"}),  # refused: no such memory
    ("noted", {"id": "MID"}),  # a default left out
    ("noted", {"id": "MID", "note": "要复查"}),
])
def test_the_writers_tools_answer_as_langchain_would(tmp_path, name, args):
    """The tool loop calls the writer's tools directly (``tools.RunnerTool.answer``): the answer, its
    status and artifact, and what the store holds afterwards are what LangChain's ``invoke`` gives."""
    from langchain_core.tools import BaseTool

    from sonetto_desktop.memory import YamlMemoryManager
    from sonetto_desktop.memory.operations import MemoryOperations
    from sonetto_desktop.memory.writer.memory_tools import MEMORY_TOOLS
    from sonetto_desktop.memory.writer.registry import Registry, tool_of
    from sonetto_desktop.memory.writer.runner import ToolRunner
    from sonetto_desktop.memory.writer.tools import CONTEXT_KEY, RunnerTool, ToolContext, langchain_tools

    outcomes = []
    for way in ("answer", "invoke"):
        store = YamlMemoryManager(tmp_path / way / "memory.yaml")
        try:
            mid = store.add("用户养了一只猫", "品味")
            tools = {t.name: t for t in langchain_tools(ToolRunner(MemoryOperations(store)),
                                                         Registry([*MEMORY_TOOLS, tool_of(_noted, "noted")]))}
            tool = tools[name]
            assert isinstance(tool, RunnerTool)
            call = {"name": name, "args": {k: (mid if v == "MID" else v) for k, v in args.items()}, "id": "call_1"}
            config = {"configurable": {CONTEXT_KEY: ToolContext(turn_id="t1")}}
            message = tool.answer(call, config) if way == "answer" else BaseTool.invoke(tool, {**call, "type": "tool_call"},
                                                                                      config)
            said = json.dumps([message.content, message.status, message.artifact, message.tool_call_id, message.name],
                              ensure_ascii=False, default=str).replace(mid, "MID")
            held = sorted((item.description, item.hit) for item in store.all_items().values())
            outcomes.append((said, held))
        finally:
            store.close()
    assert outcomes[0] == outcomes[1]
