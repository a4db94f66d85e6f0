"""What ``sessions.db`` can do to the app and what it keeps (issue 11 items 9 and 10): a crafted
checkpoint must not run code, and an API key echoed by a server must not be written to disk.
Real engine, real AsyncSqliteSaver, real HTTP to the scripted server."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import ormsgpack
import pytest

from helpers import collect, engine_factory_fixture
from llm_server import error
from ltm_helpers import idle_ltm_fixture
from memory_stores import yaml_store_fixture
from sonetto_desktop.agent.checkpoint_serde import CheckpointSerializer, UnreadableCheckpoint
from sonetto_desktop.config.settings import Settings

make_engine = engine_factory_fixture()

mm = yaml_store_fixture()
ltm = idle_ltm_fixture()

# LangGraph's msgpack extension codes: rebuild ``module.name`` from positional args, one arg,
# keyword args, or as a pydantic model.
EXT_ONE_ARG, EXT_POS_ARGS, EXT_KW_ARGS, EXT_PYDANTIC_V2 = 0, 1, 2, 5


def payloads(folder) -> dict[str, ormsgpack.Ext]:
    """Extension values that would each create a marker file if the loader imported and called
    what they name. Harmless by design: the worst they do is create an empty file or folder."""

    def ext(code: int, value: tuple) -> ormsgpack.Ext:
        return ormsgpack.Ext(code, ormsgpack.packb(value))

    return {
        "open-args": ext(EXT_POS_ARGS, ("builtins", "open", (str(folder / "open-args"), "w"))),
        "open-kwargs": ext(EXT_KW_ARGS, ("builtins", "open", {"file": str(folder / "open-kwargs"), "mode": "w"})),
        "mkdir": ext(EXT_ONE_ARG, ("os", "mkdir", str(folder / "mkdir"))),
        "model": ext(EXT_PYDANTIC_V2, ("builtins", "open", {"file": str(folder / "model"), "mode": "w"},
                                       "model_validate_json")),
    }


def keep_ext(code: int, data: bytes) -> ormsgpack.Ext:
    return ormsgpack.Ext(code, data)  # read a checkpoint without rebuilding anything


# ── item 9: a crafted checkpoint runs no code ──────────────────────────────────────────────────


async def test_a_crafted_checkpoint_runs_no_code_and_the_session_still_loads(llm_server, make_engine, tmp_path):
    engine = await make_engine()
    llm_server.add_text("记住啦")
    assert (await collect(engine, "s1", "我叫 Miso"))[-1].kind == "done"
    await engine.close()

    markers = tmp_path / "markers"
    markers.mkdir()
    db = sqlite3.connect(tmp_path / "data" / "sessions.db")
    with db:
        rows = db.execute("SELECT rowid, checkpoint FROM checkpoints WHERE thread_id = 's1' AND type = 'msgpack'").fetchall()
        assert rows
        for rowid, blob in rows:  # every checkpoint of the session, the latest included
            checkpoint = ormsgpack.unpackb(blob, ext_hook=keep_ext, option=ormsgpack.OPT_NON_STR_KEYS)
            checkpoint["channel_values"]["memory_block"] = list(payloads(markers).values())
            db.execute("UPDATE checkpoints SET checkpoint = ? WHERE rowid = ?", (ormsgpack.packb(checkpoint), rowid))
    db.close()

    engine = await make_engine()  # the app starts again over the crafted file
    llm_server.add_text("你叫 Miso")
    events = await collect(engine, "s1", "我叫什么？")
    assert sorted(p.name for p in markers.iterdir()) == []  # nothing named in the file was called
    assert events[-1].kind == "done" and events[-1].text == "你叫 Miso"
    history = [(m["role"], m["content"]) for m in llm_server.last_messages()[1:]]
    assert history == [("user", "我叫 Miso"), ("assistant", "记住啦"), ("user", "我叫什么？")]


def test_the_serializer_refuses_every_constructor_outside_its_allow_list(tmp_path):
    serde = CheckpointSerializer()
    for name, ext in payloads(tmp_path).items():
        loaded = serde.loads_typed(("msgpack", ormsgpack.packb({"value": ext})))
        assert not (tmp_path / name).exists(), name
        assert not hasattr(loaded["value"], "close")  # plain data, not an open file
    with pytest.raises(NotImplementedError):  # pickle is never read
        serde.loads_typed(("pickle", b"cos\nsystem\n(S'true'\ntR."))


# LangChain's JSON form (lc 1) of a prompt piped into a parser: LangChain's own loader would build it
PROMPT = {"lc": 1, "type": "constructor", "id": ["langchain_core", "prompts", "prompt", "PromptTemplate"],
          "kwargs": {"template": "{x}", "input_variables": ["x"]}}
SEQUENCE = {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "runnable", "RunnableSequence"],
            "kwargs": {"first": PROMPT, "last": {"lc": 1, "type": "constructor",
                                                 "id": ["langchain_core", "output_parsers", "string", "StrOutputParser"],
                                                 "kwargs": {}}}}


def test_a_json_row_builds_nothing_outside_the_allow_list():
    serde = CheckpointSerializer()
    lc2_prompt = {"lc": 2, "type": "constructor", "id": ["langchain_core", "prompts", "prompt", "PromptTemplate"],
                  "kwargs": {"template": "{x}", "input_variables": ["x"]}}
    secret = {"lc": 1, "type": "secret", "id": ["PATH"]}
    loaded = serde.loads_typed(("json", json.dumps({"a": SEQUENCE, "b": lc2_prompt, "c": secret}).encode()))
    assert loaded == {"a": SEQUENCE, "b": lc2_prompt, "c": secret}  # plain data, as written


def test_a_json_row_still_rebuilds_the_stored_message_types():
    from langchain_core.load import dumpd
    from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage, ToolMessage

    values = [HumanMessage(content="你好", id="h"), ToolMessage(content="晚上", tool_call_id="c1", id="t"),
              AIMessage(content="", tool_calls=[{"name": "f", "args": {}, "id": "c1"}], id="a"), RemoveMessage(id="h")]
    lc2 = {"lc": 2, "type": "constructor", "id": ["langchain_core", "messages", "human", "HumanMessage"],
           "kwargs": {"content": "旧格式", "id": "old"}}
    loaded = CheckpointSerializer().loads_typed(("json", json.dumps([*map(dumpd, values), lc2]).encode()))
    assert loaded == [*values, HumanMessage(content="旧格式", id="old")]


def test_a_json_message_that_cannot_be_rebuilt_is_a_clear_error():
    broken = {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "ToolMessage"],
              "kwargs": {"content": "x"}}  # no tool_call_id
    with pytest.raises(UnreadableCheckpoint, match="ToolMessage"):
        CheckpointSerializer().loads_typed(("json", json.dumps([broken]).encode()))


async def _one_turn_then_the_file(llm_server, make_engine, tmp_path) -> sqlite3.Connection:
    """A chat of one turn in session s1, the engine closed; its sessions.db, opened for editing."""
    engine = await make_engine()
    llm_server.add_text("记住啦")
    assert (await collect(engine, "s1", "我叫 Miso"))[-1].kind == "done"
    await engine.close()
    return sqlite3.connect(tmp_path / "data" / "sessions.db")


async def test_a_crafted_json_checkpoint_row_in_sessions_db_builds_nothing_but_its_messages(
        llm_server, make_engine, tmp_path):
    from langchain_core.load import dumpd

    db = await _one_turn_then_the_file(llm_server, make_engine, tmp_path)
    with db:
        rowid, blob = db.execute("SELECT rowid, checkpoint FROM checkpoints WHERE thread_id = 's1'"
                                 " ORDER BY checkpoint_id DESC LIMIT 1").fetchone()
        checkpoint = CheckpointSerializer().loads_typed(("msgpack", blob))
        checkpoint["channel_values"]["messages"] = [dumpd(m) for m in checkpoint["channel_values"]["messages"]]
        checkpoint["channel_values"]["memory_block"] = SEQUENCE
        db.execute("UPDATE checkpoints SET type = 'json', checkpoint = ? WHERE rowid = ?",
                   (json.dumps(checkpoint, default=str).encode(), rowid))
    db.close()

    engine = await make_engine()  # the app opens the crafted file
    saver = await engine._db.checkpointer()
    state = (await saver.aget_tuple({"configurable": {"thread_id": "s1"}})).checkpoint["channel_values"]
    assert [m.content for m in state["messages"]] == ["我叫 Miso", "记住啦"]
    assert state["memory_block"] == SEQUENCE


async def test_an_unreadable_json_checkpoint_is_an_error_of_its_session_not_of_the_app(
        llm_server, make_engine, tmp_path):
    db = await _one_turn_then_the_file(llm_server, make_engine, tmp_path)
    with db:
        broken = {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "ToolMessage"],
                  "kwargs": {"content": "x"}}
        db.execute("UPDATE checkpoints SET type = 'json', checkpoint = ? WHERE thread_id = 's1'",
                   (json.dumps({"v": 1, "id": "x", "channel_values": {"messages": [broken]}}).encode(),))
    db.close()

    engine = await make_engine()
    events = await collect(engine, "s1", "还在吗")
    assert events[-1].error_code == "storage" and "could not be read" in events[-1].error_en
    llm_server.add_text("在")
    assert (await collect(engine, "s2", "另一个会话"))[-1].kind == "done"


def test_the_message_types_round_trip():
    from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage, ToolMessage

    serde = CheckpointSerializer()
    values = [
        HumanMessage(content="你好", id="h"),
        AIMessage(content="", tool_calls=[{"name": "get_current_time", "args": {}, "id": "c1"}], id="a"),
        ToolMessage(content="晚上", tool_call_id="c1", name="get_current_time", id="t"),
        RemoveMessage(id="h"),
    ]
    assert serde.loads_typed(serde.dumps_typed(values)) == values


# ── item 10: an echoed API key is never written to disk or to the log ──────────────────────────

KEY = "Zq7-private-token-55501"  # not "sk-…" shaped: only knowing the key can hide it
LOG_CHILD = Path(__file__).with_name("verbose_log_child.py")


def script_echoing_server(server) -> None:
    server.add_error(401, f"Incorrect API key provided: {KEY}. You can find your API key in your account.")
    for _ in range(2):  # build_llm retries once
        server.add_error(500, f"upstream rejected the request (Authorization: Bearer {KEY})")


def files_holding(folder: Path, secret: str) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file() and secret.encode() in p.read_bytes())


async def test_a_key_echoed_by_the_server_is_not_written_to_sessions_db(llm_server, make_engine, tmp_path):
    settings = Settings(base_url=llm_server.base_url, model="test-model", api_key=KEY, request_timeout=5)
    engine = await make_engine(llm_factory=None, settings_provider=lambda: settings)
    script_echoing_server(llm_server)
    codes = [(await collect(engine, "s1", text))[-1].error_code for text in ("你好", "在吗")]
    assert codes == ["auth", "server"]
    assert files_holding(tmp_path, KEY) == []  # sessions.db and its -wal while open, the journal, the store
    db = sqlite3.connect(tmp_path / "data" / "sessions.db")
    errors = [value for (value,) in db.execute("SELECT value FROM writes WHERE channel = '__error__'")]
    db.close()
    assert errors and all(b"***" in value for value in errors)  # the error is kept, the key is not
    await engine.close()
    assert files_holding(tmp_path, KEY) == []


async def test_verbose_logs_never_print_the_key(llm_server, tmp_path):
    chat_calls = []

    def answer(body):  # the chat streams; the memory writer (same endpoint and key) does not
        if not body.get("stream"):
            return error(401, f"Incorrect API key provided: {KEY}.")
        chat_calls.append(body)
        if len(chat_calls) == 1:
            return "你好呀"  # one good turn, which the writer then tries to write
        if len(chat_calls) == 2:
            return error(401, f"Incorrect API key provided: {KEY}.")
        return error(500, f"upstream rejected the request (Authorization: Bearer {KEY})")

    llm_server.responder = answer
    proc = await asyncio.create_subprocess_exec(
        sys.executable, str(LOG_CHILD), str(tmp_path / "data"), llm_server.base_url, KEY,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(proc.communicate(), 120)
    log = err.decode("utf-8", "replace")
    assert proc.returncode == 0, log[-3000:]
    assert out.decode().split() == ["done", "auth", "server", "writer_failed", "logged"]
    assert "DEBUG qasync" in log  # verbose logging was on
    assert "Task exception was never retrieved" in log and "uncaught exception" in log  # and saw the failures
    assert "Incorrect API key provided: ***" in log  # the server's words are logged, the key is not
    assert KEY not in log, [line for line in log.splitlines() if KEY in line][:3]
    assert files_holding(tmp_path, KEY) == []
