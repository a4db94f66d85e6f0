"""When sessions.db cannot be used (issue 11 item 8): the error names the true reason, and a damaged
file is moved aside (kept) and replaced, so one bad page does not fail every later message.
Real SQLite failures: a damaged file, ``max_page_count`` (SQLite's own "database or disk is
full"), ``query_only`` and a ``mode=ro`` connection (read-only; the tests run as any user)."""

from __future__ import annotations

import errno
import sqlite3


from helpers import collect, engine_factory_fixture
from ltm_helpers import idle_ltm_fixture
from memory_stores import yaml_store_fixture
from sonetto_desktop.agent.storage_errors import storage_problem

make_engine = engine_factory_fixture()

mm = yaml_store_fixture()
ltm = idle_ltm_fixture()


def damage_pages_after_the_first(path) -> bytes:
    """Overwrite every page but the first (header and schema) with garbage; returns the new bytes."""
    data = bytearray(path.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    assert len(data) > page, "the database should have more than one page"
    data[page:] = b"\xff" * (len(data) - page)
    path.write_bytes(bytes(data))
    return bytes(data)


async def limit_growth(connection) -> None:
    """SQLite's own "database or disk is full" from now on, on this connection: no page may be added."""
    async with connection.execute("PRAGMA page_count") as cur:
        (pages,) = await cur.fetchone()
    await connection.execute(f"PRAGMA max_page_count = {pages}")


async def test_a_damaged_page_is_moved_aside_and_the_next_message_works(llm_server, make_engine, tmp_path):
    engine = await make_engine()
    llm_server.add_text("记住啦")
    assert (await collect(engine, "s1", "我叫 Miso"))[-1].kind == "done"
    await engine.close()
    db = tmp_path / "data" / "sessions.db"
    damaged = damage_pages_after_the_first(db)

    engine = await make_engine()
    events = await collect(engine, "s1", "你还记得我吗")
    assert [e.kind for e in events] == ["error"] and events[0].error_code == "storage"
    error = events[0]
    assert engine.recovered_from is not None and engine.recovered_from.read_bytes() == damaged  # kept as it was
    assert "已损坏" in error.error_zh and engine.recovered_from.name in error.error_zh
    assert "damaged" in error.error_en and "send your message again" in error.error_en
    assert llm_server.requests[-1]["messages"][-1]["content"] == "我叫 Miso"  # the model was not called again

    llm_server.add_text("记得呀")
    assert (await collect(engine, "s1", "你还记得我吗"))[-1].text == "记得呀"
    transcript = await engine.transcript("s1")
    assert [(e["role"], e["content"], e.get("error", {}).get("code")) for e in transcript] == [
        ("user", "你还记得我吗", None), ("assistant", "", "storage"),
        ("user", "你还记得我吗", None), ("assistant", "记得呀", None),
    ]


async def test_a_full_disk_while_checkpointing_is_reported_as_a_full_disk(llm_server, make_engine):
    engine = await make_engine()
    await limit_growth((await engine._db.checkpointer()).conn)  # the checkpointer's connection (opened at first use; a private handle, real SQLite)
    llm_server.add_text("你好呀，今天过得怎么样？")
    events = await collect(engine, "s1", "你好" * 300)
    error = events[-1]
    assert error.kind == "error" and error.error_code == "storage"  # was "bad_response" ("unintelligible")
    assert "磁盘空间已满" in error.error_zh and "disk is full" in error.error_en
    assert engine.recovered_from is None  # a full disk is not damage: the file stays where it is
    assert (await engine.transcript("s1"))[0]["content"] == "你好" * 300  # the message itself was kept


async def test_a_full_disk_when_storing_the_message_calls_no_model(llm_server, make_engine):
    engine = await make_engine()
    await limit_growth(engine._store.db)
    events = await collect(engine, "s1", "长消息" * 2000)
    assert [e.kind for e in events] == ["error"] and events[0].error_code == "storage"
    assert "磁盘空间已满" in events[0].error_zh and llm_server.requests == []


async def test_a_read_only_database_is_reported_as_read_only(llm_server, make_engine):
    engine = await make_engine()
    await engine._store.db.execute("PRAGMA query_only = ON")
    events = await collect(engine, "s1", "你好")
    assert [e.kind for e in events] == ["error"] and events[0].error_code == "storage"
    assert "只读" in events[0].error_zh and "read-only" in events[0].error_en and llm_server.requests == []
    assert engine.recovered_from is None


def test_storage_problems_are_named_from_real_errors(tmp_path):
    path = tmp_path / "x.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE t (v)")
    db.close()

    def raised(action) -> BaseException:
        try:
            action()
        except BaseException as exc:  # noqa: BLE001 - the error is the result
            return exc
        raise AssertionError("nothing was raised")

    read_only = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    assert storage_problem(raised(lambda: read_only.execute("INSERT INTO t VALUES (1)"))) == "readonly"
    read_only.close()

    full = sqlite3.connect(path)
    pages = full.execute("PRAGMA page_count").fetchone()[0]
    full.execute(f"PRAGMA max_page_count = {pages}")
    assert storage_problem(raised(lambda: full.execute("INSERT INTO t VALUES (?)", ("x" * 100_000,)))) == "full"
    full.close()

    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    busy = sqlite3.connect(path, timeout=0)
    assert storage_problem(raised(lambda: busy.execute("SELECT * FROM t").fetchall())) == "busy"
    busy.close()
    holder.close()

    damage_pages_after_the_first(path)
    damaged = sqlite3.connect(path)
    assert storage_problem(raised(lambda: damaged.execute("SELECT * FROM t").fetchall())) == "damaged"
    damaged.close()

    try:  # a storage error seen through the exception that wrapped it
        raise RuntimeError("checkpoint failed") from OSError(errno.ENOSPC, "No space left on device")
    except RuntimeError as wrapped:
        assert storage_problem(wrapped) == "full"
    assert storage_problem(ValueError("not about storage")) is None
