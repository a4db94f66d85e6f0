"""The writer's tool registry and its one runner: names, rules every tool gets without writing them,
and the per-turn context (time, actor, origin) a caller can hand a writer run."""

from __future__ import annotations

import itertools
import json
from datetime import datetime

import pytest

from llm_server import caller
from ltm_helpers import until
from memory_stores import open_store
from sonetto_desktop.memory.dont_remember import DontRememberList
from sonetto_desktop.memory.operations import MemoryOperations
from sonetto_desktop.memory.review import ReviewInbox
from sonetto_desktop.memory.writer import text_calls, tools
from sonetto_desktop.memory.writer.consumer import MemoryConsumer
from sonetto_desktop.memory.writer.journal import TurnJournal
from sonetto_desktop.memory.writer.memory_tools import MEMORY_TOOLS
from sonetto_desktop.memory.writer.pipeline import MemoryWriter
from sonetto_desktop.memory.writer.registry import Outcome, Plan, Registry, ToolContext, ToolEnv, content_arg, text_arg
from sonetto_desktop.memory.writer.runner import ToolRunner

_ids = itertools.count()
TURN = [{"role": "user", "content": "我下个月搬去杭州"}, {"role": "assistant", "content": "好呀"}]
THEN = datetime(2023, 3, 14, 21, 7)  # a Tuesday
ORIGIN = "ChatGPT「搬家去杭州」· 2023-03-14"


def call(tool_list, name, **args):
    by_name = {t.name: t for t in tool_list}
    return by_name[name].invoke({"type": "tool_call", "id": f"call_{next(_ids)}", "name": name, "args": args})


def test_the_tool_names_come_from_the_registry(tmp_path):
    names = MEMORY_TOOLS.names
    assert names == ("create_memory", "read_memories", "update_memory", "delete_memory", "merge_memories",
                     "hit_memory")
    assert text_calls.WRITER_TOOLS == names and tools.TOOL_NAMES == names
    made = tools.make_memory_tools(open_store("yaml", tmp_path))
    assert tuple(t.name for t in made) == names
    # The scripted server tells the writer's requests apart by the same names.
    for name in names:
        assert caller({"tools": [{"type": "function", "function": {"name": name}}]}) == "writer"
    assert text_calls.calls_written_as_text('{"name": "hit_memory", "arguments": {}}')


def _rewrite_tool() -> Registry:
    """A tool that knows nothing of locks, review mode or the don't-remember list."""
    extra = Registry()

    @extra.tool
    def rewrite_memory(env: ToolEnv, id: str, content: str) -> Plan:
        """改写一条记忆。"""
        memory_id, text = text_arg("id", id), content_arg(content)

        def write(ops) -> Outcome:
            ops.update(memory_id, description=text, reason="改写")
            return Outcome(f"已改写 {memory_id}", "update", (memory_id,))

        return Plan("update", write, (memory_id,), description=text, reason="改写")

    return extra


def test_a_new_tool_gets_the_runners_rules(tmp_path):
    store = open_store("yaml", tmp_path / "store")
    forget = DontRememberList(tmp_path / "dont_remember.json")
    forget.add("小美")
    inbox = ReviewInbox(tmp_path / "review_inbox.json")
    ops = MemoryOperations(store, dont_remember=forget, review=inbox)
    refused: list[tuple[str, str]] = []
    runner = ToolRunner(ops, on_locked=lambda mid, ctx: refused.append((mid, ctx.actor)))
    made = tools.langchain_tools(runner, _rewrite_tool())
    free = store.add("用户喜欢猫", "品味")
    locked = store.add("用户住在上海", "地点与路径")
    store.set_locked(locked, True, actor="user")

    done = call(made, "rewrite_memory", id=free, content="用户喜欢橘猫")
    assert done.status == "success" and store.get(free).description == "用户喜欢橘猫"
    assert store.get(free).history[-1]["actor"] == "agent"

    said = call(made, "rewrite_memory", id=locked, content="用户住在杭州")
    assert said.status == "error" and "锁定" in said.content and store.get(locked).description == "用户住在上海"
    assert refused == [(locked, "agent")]

    listed = call(made, "rewrite_memory", id=free, content="用户和小美养了橘猫")
    assert listed.status == "error" and "不要记住" in listed.content and "小美" in listed.content
    assert store.get(free).description == "用户喜欢橘猫"

    gone = call(made, "rewrite_memory", id="nope1234", content="用户喜欢狗")
    assert gone.status == "error" and "找不到" in gone.content and "read_memories" in gone.content

    inbox.enabled = True
    held = call(made, "rewrite_memory", id=free, content="用户喜欢狸花猫")
    assert held.status == "success" and held.artifact["kind"] == "propose"
    assert store.get(free).description == "用户喜欢橘猫"
    (proposal,) = inbox.pending()
    assert (proposal.kind, proposal.memory_ids, proposal.description, proposal.before) == (
        "update", (free,), "用户喜欢狸花猫", ("用户喜欢橘猫",))
    assert call(made, "rewrite_memory", id=locked, content="用户住在杭州").status == "error"  # held or not
    assert len(inbox.pending()) == 1


def test_a_resumed_call_is_checked_by_its_own_tool(tmp_path):
    """After a kill, whether a call caught mid-write reached the store is the tool's own check from the
    registry (WriterTool.landed): resume names no tool itself, so a new tool brings its check along."""
    from sonetto_desktop.memory.writer.index import WriterIndex
    from sonetto_desktop.memory.writer.resume import already_applied

    store = open_store("sqlite", tmp_path / "store")
    ops, index = MemoryOperations(store), WriterIndex(store)
    extra = _rewrite_tool()
    kept = store.add("用户喜欢橘猫", "品味")
    args = {"id": kept, "content": "用户喜欢橘猫"}
    assert not already_applied(ops, index, "t1", "rewrite_memory", args, extra)  # no check: run again

    @extra.landed("rewrite_memory")
    def rewritten(store_, index_, turn_id, arguments) -> bool:
        return store_.get(arguments["id"]).description == arguments["content"]

    assert already_applied(ops, index, "t1", "rewrite_memory", args, extra)
    assert not already_applied(ops, index, "t1", "rewrite_memory", {**args, "content": "用户喜欢狗"}, extra)
    assert not already_applied(ops, index, "t1", "rewrite_memory", {**args, "id": "nope1234"}, extra)  # not found
    assert not already_applied(ops, index, "t1", "no_such_tool", args, extra)
    # the six memory tools: every one that writes has its check, reading needs none
    assert {t.name for t in MEMORY_TOOLS if t.landed is not None} == {
        t.name for t in MEMORY_TOOLS if t.name != "read_memories"}
    store.close()


def test_the_run_context_names_actor_and_origin(tmp_path):
    store = open_store("yaml", tmp_path)
    context = ToolContext(turn_id="imp-1-000001", excerpt="我下个月搬去杭州", actor="import:chatgpt", origin=ORIGIN)
    made = tools.make_memory_tools(store, context)
    msg = call(made, "create_memory", content="用户计划2023年4月搬去杭州", section="地点与路径")
    entry = store.get(msg.artifact["ids"][0]).history[0]
    assert (entry["actor"], entry["turn_id"], entry["origin"], entry["excerpt"]) == (
        "import:chatgpt", "imp-1-000001", ORIGIN, "我下个月搬去杭州")
    # A context given in the run's config wins over the one the tools were made with.
    run = {"configurable": {tools.CONTEXT_KEY: ToolContext(turn_id="t2", actor="mcp:cursor")}}
    by_name = {t.name: t for t in made}
    out = by_name["create_memory"].invoke(
        {"type": "tool_call", "id": "c2", "name": "create_memory", "args": {"content": "用户养猫", "section": "品味"}},
        config=run)
    assert store.get(out.artifact["ids"][0]).history[0]["actor"] == "mcp:cursor"


async def test_a_turn_can_carry_its_own_time_actor_and_origin(llm_server, make_llm, tmp_path):
    store = open_store("yaml", tmp_path)
    llm_server.add_tool_calls([("create_memory", {"content": "用户计划2023年4月搬去杭州", "section": "地点与路径"})])
    result = await MemoryConsumer(make_llm(), store, now=datetime.now).consume(
        None, "imp-1-000002", TURN, now=THEN, actor="import:chatgpt", origin=ORIGIN)
    (change,) = result.changes
    assert (change.kind, change.actor) == ("add", "import:chatgpt")
    entry = store.get(change.ids[0]).history[0]
    assert (entry["actor"], entry["origin"]) == ("import:chatgpt", ORIGIN)
    prompt = llm_server.requests[0]["messages"][-1]["content"]
    assert "2023年3月14日 星期二 21:07" in prompt and "周三=3月15日（明天）" in prompt


async def test_send_history_journals_the_turns_time_actor_and_origin(llm_server, make_llm, tmp_path):
    store = open_store("yaml", tmp_path)
    writer = MemoryWriter(store, make_llm(), backoff=(0.01,))
    with pytest.raises(ValueError, match="user"):  # never as the person: no lock or list would stop it
        await writer.send_history(TURN, actor="user")
    turn_id = await writer.send_history(TURN, actor="import:chatgpt", as_of=THEN, origin=ORIGIN)
    (entry,) = writer.journal.pending()
    assert (entry.turn_id, entry.actor, entry.when(), entry.origin) == (turn_id, "import:chatgpt", THEN, ORIGIN)
    llm_server.add_tool_calls([("create_memory", {"content": "用户计划2023年4月搬去杭州", "section": "地点与路径"})])
    writer.start()
    try:
        await until(lambda: store.count() == 1 and writer.pending == 0)
    finally:
        await writer.stop(timeout=5)
    (item,) = store.all_items().values()
    assert (item.history[0]["actor"], item.history[0]["origin"], item.history[0]["turn_id"]) == (
        "import:chatgpt", ORIGIN, turn_id)
    assert "2023年3月14日 星期二" in llm_server.requests[0]["messages"][-1]["content"]


def test_a_journal_file_cannot_make_a_turn_the_persons(tmp_path):
    journal = TurnJournal(tmp_path / "memory.journal")
    entry = journal.append("t1", None, TURN, actor="mcp:cursor")
    path = journal.pending_dir / entry.filename
    for forged, read_as in (("user", None), ("cli", None), ("mcp:cursor", "mcp:cursor"), (5, None),
                            ("import:deepseek", "import:deepseek"), ("agent", "agent")):
        data = json.loads(path.read_text(encoding="utf-8"))
        data["actor"] = forged
        path.write_text(json.dumps(data), encoding="utf-8")
        (read,) = journal.pending()
        assert read.actor == read_as
