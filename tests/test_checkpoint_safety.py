"""What ``sessions.db`` can do to the app and what it keeps (issue 11 items 9 and 10): a crafted
checkpoint must not run code, and an API key echoed by a server must not be written to disk.
Real engine, real AsyncSqliteSaver, real HTTP to the scripted server."""

from __future__ import annotations

import sqlite3

import ormsgpack
import pytest

from ltm_helpers import idle_ltm_fixture
from memory_stores import yaml_store_fixture
from sonetto_desktop.agent.checkpoint_serde import CheckpointSerializer
from sonetto_desktop.agent.engine import ChatEngine

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


@pytest.fixture
async def make_engine(tmp_path, ltm, make_llm):
    engines: list[ChatEngine] = []

    async def factory(**kw) -> ChatEngine:
        kw.setdefault("llm_factory", lambda: make_llm(streaming=True))
        engine = ChatEngine(ltm, data_dir=tmp_path / "data", **kw)
        await engine.start()
        engines.append(engine)
        return engine

    yield factory
    for engine in engines:
        await engine.close()


async def collect(engine, session_id, text):
    return [event async for event in engine.send(session_id, text)]


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
