"""SessionStore: the chat session list and display transcripts in a real SQLite file."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import session_store_fixture
from sonetto_desktop.agent.sessions import DEFAULT_TITLE, SessionNotFound, SessionStore, title_from


store = session_store_fixture()


async def test_create_list_newest_first(store):
    first = await store.create("周末计划")
    second = await store.create()
    assert second.title == DEFAULT_TITLE
    assert [s.id for s in await store.list()] == [second.id, first.id]
    await store.append(first.id, "user", "hi")  # activity moves a session to the top
    assert [s.id for s in await store.list()] == [first.id, second.id]


async def test_first_user_message_names_an_untitled_session(store):
    info = await store.create()
    await store.append(info.id, "user", "  今天去看了\n一场很长很长的电影，结局让人难过  ")
    await store.append(info.id, "user", "第二条消息不改标题")
    assert (await store.get(info.id)).title == "今天去看了"


async def test_user_title_is_not_overwritten(store):
    info = await store.create("我起的名字")
    await store.append(info.id, "user", "别的内容")
    assert (await store.get(info.id)).title == "我起的名字"


def test_title_from_shortens_long_lines():
    title = title_from("一" * 100)
    assert len(title) == 24 and title.endswith("…")
    assert title_from("   ") == DEFAULT_TITLE


async def test_rename_and_errors(store):
    info = await store.create()
    renamed = await store.rename(info.id, "  新名字 ")
    assert renamed.title == "新名字"
    await store.append(info.id, "user", "第一条")  # a renamed session keeps its name
    assert (await store.get(info.id)).title == "新名字"
    with pytest.raises(ValueError):
        await store.rename(info.id, "   ")
    with pytest.raises(SessionNotFound):
        await store.rename("nope", "x")


async def test_transcript_round_trip_and_delete(store, tmp_path):
    info = await store.create()
    memories = [{"id": "m1", "description": "用户喜欢猫", "theme": "品味"}]
    await store.append(info.id, "user", "你好", turn_id="t1")
    await store.append(info.id, "assistant", "你好呀", memories=memories, turn_id="t1")
    await store.append(
        info.id, "assistant", "", turn_id="t2", error={"code": "server", "zh": "出错了", "en": "failed"}
    )
    await store.close()

    reopened = SessionStore(tmp_path / "sessions.db")
    await reopened.open()
    try:
        entries = await reopened.transcript(info.id)
        assert [(e["role"], e["content"], e["turn_id"]) for e in entries] == [
            ("user", "你好", "t1"),
            ("assistant", "你好呀", "t1"),
            ("assistant", "", "t2"),
        ]
        assert entries[1]["memories"] == memories
        assert "error" not in entries[0] and entries[2]["error"]["code"] == "server"
        assert await reopened.delete(info.id) is True
        assert await reopened.transcript(info.id) == []
        assert await reopened.get(info.id) is None
        assert await reopened.delete(info.id) is False
    finally:
        await reopened.close()


async def test_unopened_store_says_so(tmp_path):
    with pytest.raises(RuntimeError, match="not open"):
        await SessionStore(tmp_path / "x.db").list()


# ── two processes in one session (issue 11 item 6) ──────────────────────────────────────────────

APPEND_CHILD = Path(__file__).with_name("session_append_child.py")


async def test_two_processes_append_to_one_session_without_losing_an_entry(tmp_path):
    db = tmp_path / "sessions.db"
    store = SessionStore(db)
    await store.open()
    info = await store.create()
    go = tmp_path / "go"
    count = 150
    children = [
        await asyncio.create_subprocess_exec(
            sys.executable, str(APPEND_CHILD), str(db), info.id, name, str(count), str(go),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        for name in ("a", "b")
    ]
    await asyncio.sleep(0.5)  # both children have opened the database
    go.touch()
    results = await asyncio.wait_for(asyncio.gather(*(c.communicate() for c in children)), 120)
    errors = [err.decode() for _, err in results]
    assert [c.returncode for c in children] == [0, 0], errors

    entries = await store.transcript(info.id)
    await store.close()
    contents = [e["content"] for e in entries]
    assert sorted(contents) == sorted(f"{name}-{i}" for name in "ab" for i in range(count))
    for name in "ab":  # each process's entries keep their order
        assert [c for c in contents if c.startswith(f"{name}-")] == [f"{name}-{i}" for i in range(count)]


@pytest.mark.parametrize("read", ["transcript", "list", "get", "memory_switches"])
async def test_a_read_beside_a_write_leaves_the_write_able_to_wait_for_another_process(store, tmp_path, read):
    # A turn's write begun while another coroutine reads on the same connection, just after
    # another process (here: another connection) committed. If the read's statement were still
    # open, it would hold an old snapshot and SQLite would refuse the write transaction at once
    # ("database is locked", no busy timeout): seen as a flake with two app instances in one chat.
    info = await store.create()
    for i in range(3):
        await store.append(info.id, "user", f"m{i}")
    for session in (info, await store.create("另一个")):  # rows for memory_switches to read
        await store.set_memory_switches(session.id, True, False)
    other = tmp_path / "sessions.db"

    def commit_elsewhere_before_begin(sql: str) -> None:  # runs on the store's connection thread
        if sql.startswith("BEGIN IMMEDIATE"):
            with contextlib.closing(sqlite3.connect(other, timeout=5)) as conn, conn:
                conn.execute("UPDATE chat_sessions SET title = title || ' ' WHERE id = ?", (info.id,))

    await store.db.set_trace_callback(commit_elsewhere_before_begin)
    reader = getattr(store, read)
    args = (info.id,) if read in ("transcript", "get") else ()
    results = await asyncio.gather(reader(*args), store.append(info.id, "assistant", "reply"), return_exceptions=True)
    await store.db.set_trace_callback(None)
    assert not [r for r in results if isinstance(r, BaseException)], results
    assert [e["content"] for e in await store.transcript(info.id)] == ["m0", "m1", "m2", "reply"]


async def test_truncating_from_a_turn_drops_it_and_what_followed(store):
    info = await store.create()
    for turn in ("t1", "t2", "t3"):
        await store.append(info.id, "user", f"问 {turn}", turn_id=turn)
        await store.append(info.id, "assistant", f"答 {turn}", turn_id=turn)
    assert await store.truncate_from_turn(info.id, "t2") == 4
    assert [e["turn_id"] for e in await store.transcript(info.id)] == ["t1", "t1"]
    assert await store.truncate_from_turn(info.id, "nope") == 0
    await store.append(info.id, "user", "接着说", turn_id="t4")  # seq continues without a gap problem
    assert [e["content"] for e in await store.transcript(info.id)][-1] == "接着说"
