"""Secrets said in everyday words, Chinese or English, on every way a conversation reaches the memory
writer (issue 35, item 5): a chat turn, an imported ChatGPT export, a conversation another app hands
over with MCP ``remember_conversation``. The writer's model never sees the values (the scripted server
records every request body), nothing of them is stored (memories, their history's excerpts, the
journal), and a hidden value reads the same everywhere (``secret_filter.placeholder``)."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest

from history_helpers import shanghai  # noqa: F401 - a fixture
from llm_server import caller, tool_calls
from mcp_helpers import error_text, payload, stdio_session
from sonetto_desktop.history_import.service import HistoryImports
from sonetto_desktop.memory.writer.secret_filter import placeholder
from sonetto_desktop.services import AppServices
from test_services import settings_for
from waiting import until

#: What the issue's ChatGPT export held, and the Chinese forms beside them.
SAID = ["My wifi password is hunter2-Secret!", "my bank card PIN is 4821", "the passcode for the door is 77310",
        "我家门禁密码是 5521#，别告诉别人"]
VALUES = ["hunter2-Secret", "4821", "77310", "5521#"]
#: A writer model that had seen the values anyway (an earlier turn, a listing) tries to keep them.
KEEPS = [("create_memory", {"content": "The user's wifi password is hunter2-Secret!", "section": "身份"}),
         ("create_memory", {"content": "用户的银行卡 PIN 是 4821", "section": "身份"}),
         ("create_memory", {"content": "用户家的门禁码是 77310", "section": "地点"}),
         ("create_memory", {"content": "用户住在杭州", "section": "地点", })]


def writer_bodies(server) -> str:
    """What the app sent the writer's model: every message of its requests but the model's own replies
    (the scripted model's tool calls carry the values it was scripted to try)."""
    sent = [m for body in server.requests if caller(body) == "writer" for m in body["messages"]
            if m["role"] != "assistant"]
    assert sent, "the writer's model was never asked"
    return json.dumps(sent, ensure_ascii=False)


def a_writer_that_keeps_the_values(body: dict):
    if caller(body) == "chat":
        return "好的，我记住了你住在杭州。"
    if any(m["role"] == "tool" for m in body["messages"]):
        return "已记录。"
    return tool_calls(KEEPS)


def stored_text(services: AppServices) -> str:
    """Every memory's text, theme and history (excerpts included), the trash too."""
    rows = []
    for mid, item in services.memory.all_items().items():
        rows += [item.description, item.theme, json.dumps(services.memory.history(mid), ensure_ascii=False)]
    rows += [json.dumps(row, ensure_ascii=False, default=str) for row in services.memory.trash()]
    return "\n".join(rows)


def assert_hidden(text: str) -> None:
    for value in VALUES:
        assert value not in text, value


@pytest.fixture
async def services(llm_server, tmp_path):
    opened = await AppServices.open(settings=settings_for(tmp_path, llm_server.base_url), watch=False)
    yield opened
    await opened.close()


async def test_a_chat_turn_reaches_the_writer_with_its_secrets_hidden_and_none_is_stored(services, llm_server):
    await services.start_agents()
    llm_server.responder = a_writer_that_keeps_the_values
    message = "我住在杭州。" + " ".join(SAID)
    [e async for e in services.chat.send("s1", message)]
    await until(lambda: services.writer.pending == 0 and not services.writer.busy, what="the writer")
    sent = writer_bodies(llm_server)
    assert "我住在杭州" in sent  # the writer read the turn ...
    assert_hidden(sent)  # ... without the values
    assert placeholder("密码") in sent and placeholder("验证码") not in sent
    [kept] = services.memory.all_items().values()  # the three secrets were refused, the fact was kept
    assert kept.description == "用户住在杭州"
    assert_hidden(stored_text(services))
    tool_answers = [m["content"] for body in llm_server.requests for m in body["messages"] if m["role"] == "tool"]
    assert sum("秘密信息绝不能写进记忆" in text for text in tool_answers) == 3


def chatgpt_export(path: Path, title: str, lines: list[str]) -> Path:
    """A conversations.json as ChatGPT exports it: one conversation, the user's lines, a reply each."""
    mapping: dict[str, dict] = {"root": {"id": "root", "message": None, "parent": None, "children": []}}
    parent, at = "root", 1714550400.0
    for n, line in enumerate(lines):
        for role, text in (("user", line), ("assistant", "好的。")):
            node = f"{role[0]}{n}"
            mapping[parent]["children"].append(node)
            mapping[node] = {"id": node, "parent": parent, "children": [], "message": {
                "id": node, "author": {"role": role, "name": None, "metadata": {}}, "create_time": at,
                "content": {"content_type": "text", "parts": [text]}, "status": "finished_successfully",
                "weight": 1.0, "metadata": {}, "recipient": "all"}}
            parent, at = node, at + 30
    conversation = {"id": "c0ffee00-0000-4000-8000-0000000000aa", "conversation_id": "c0ffee00-0000-4000-8000-0000000000aa",
                    "title": title, "create_time": 1714550400.0, "update_time": at, "current_node": parent,
                    "mapping": mapping}
    path.write_text(json.dumps([conversation], ensure_ascii=False), encoding="utf-8")
    return path


@pytest.mark.usefixtures("shanghai")
async def test_an_imported_chatgpt_export_reaches_the_writer_with_its_secrets_hidden(services, llm_server, tmp_path):
    llm_server.responder = a_writer_that_keeps_the_values
    export = chatgpt_export(tmp_path / "conversations.json", "搬家", ["我住在杭州。", *SAID])
    imports = HistoryImports(services)
    try:
        history = await imports.read(export)
        plan = await imports.plan(history)
        assert plan.secrets_hidden == len(VALUES)  # the preview says how many it hides
        await imports.start(plan, history, file_name=export.name)
        result = await asyncio.wait_for(imports.wait(), 30)
    finally:
        await imports.close()
    sent = writer_bodies(llm_server)
    assert "我住在杭州" in sent
    assert_hidden(sent)
    assert placeholder("密码") in sent
    assert result.memories_created == 1 and [i.description for i in services.memory.all_items().values()] == ["用户住在杭州"]
    assert_hidden(stored_text(services))


async def test_a_conversation_an_app_hands_over_is_hidden_before_the_journal_and_the_writer(llm_server):
    llm_server.responder = a_writer_that_keeps_the_values
    data_dir = Path(os.environ["SONETTO_DATA_DIR"])
    env = {"SONETTO_BASE_URL": llm_server.base_url, "SONETTO_MODEL": "test-model", "OPENAI_API_KEY": "sk-test"}
    conversation = [{"role": "user", "content": "我住在杭州。" + " ".join(SAID)},
                    {"role": "assistant", "content": "收到，我会保密。"}]
    async with stdio_session(**env) as mcp:
        result = payload(await mcp.call_tool("remember_conversation", {"messages": conversation}))
        assert result["writing"] is True
        memories: list = []
        for _ in range(300):
            memories = payload(await mcp.call_tool("list_memories", {}))["memories"]
            if memories and not list(data_dir.glob("*.journal/pending/*.json")):
                break
            await asyncio.sleep(0.05)
    assert [m["description"] for m in memories] == ["用户住在杭州"]
    sent = writer_bodies(llm_server)
    assert "我住在杭州" in sent
    assert_hidden(sent)
    assert_hidden("\n".join(p.read_text(encoding="utf-8") for p in data_dir.rglob("*") if p.is_file()
                            and p.suffix in (".json", ".yaml", ".jsonl", ".log")))


async def test_a_conversation_waiting_without_a_model_keeps_no_secret_in_its_journal():
    data_dir = Path(os.environ["SONETTO_DATA_DIR"])
    async with stdio_session() as mcp:
        result = payload(await mcp.call_tool("remember_conversation", {"messages": [
            {"role": "user", "content": " ".join(SAID)}, {"role": "assistant", "content": "好的"}]}))
        assert result["writing"] is False
    [entry] = [json.loads(p.read_text(encoding="utf-8")) for p in data_dir.glob("*.journal/pending/*.json")]
    said = entry["messages"][0]["content"]
    assert_hidden(said)
    assert said.startswith("My wifi password is " + placeholder("密码"))


async def test_another_app_cannot_store_a_secret_in_a_memory_its_section_or_a_reason():
    async with stdio_session() as mcp:
        for line in SAID:
            refused = error_text(await mcp.call_tool("add_memory", {"description": line, "theme": "身份"}))
            assert "secrets are never stored" in refused and "秘密信息不会写进记忆" in refused
        kept = payload(await mcp.call_tool("add_memory", {"description": "用户家的 WiFi 密码贴在路由器背面",
                                                          "theme": "地点"}))
        refused = error_text(await mcp.call_tool("update_memory", {"id": kept["id"], "description": "用户住在杭州",
                                                                   "reason": "用户说 PIN 是 4821"}))
        assert "secrets are never stored" in refused
        memories = payload(await mcp.call_tool("list_memories", {}))["memories"]
    assert [m["description"] for m in memories] == ["用户家的 WiFi 密码贴在路由器背面"]  # talk about a secret stays
