"""Temporary chats are the session store over a database in memory (issue 39, item 5: one implementation,
was a near-copy in temporary_sessions.py): the same rules as the saved sessions, listed as temporary with
memory off, named 临时对话 until the first message names them, never written anywhere, forgotten by clear()."""

from __future__ import annotations

import pytest

from sonetto_desktop.agent.sessions import DEFAULT_TITLE, TEMPORARY_TITLE, SessionNotFound, SessionStore


@pytest.fixture(params=["saved", "temporary"])
async def store(request, tmp_path):
    s = SessionStore(tmp_path / "sessions.db") if request.param == "saved" else SessionStore.temporary()
    if request.param == "saved":
        await s.open()
    yield s
    await s.close()


async def test_both_follow_the_same_rules(store):
    untitled = await store.create()
    assert untitled.title == (TEMPORARY_TITLE if store.is_temporary else DEFAULT_TITLE)
    named = await store.create("  我起的名字 ")
    assert named.title == "我起的名字"
    await store.append(untitled.id, "user", "  今天去看了\n一场电影  ", turn_id="t1")
    await store.append(named.id, "user", "别的内容", turn_id="t1")  # a chosen title stays
    await store.append(untitled.id, "assistant", "好看吗", memories=[{"id": "m1"}], turn_id="t1",
                       error={"code": "server", "zh": "出错了", "en": "failed"})
    await store.append(untitled.id, "user", "很好看", turn_id="t2")
    assert (await store.get(untitled.id)).title == "今天去看了"
    assert (await store.get(named.id)).title == "我起的名字"
    assert [s.id for s in await store.list()] == [untitled.id, named.id]  # newest activity first
    entries = await store.transcript(untitled.id)
    assert [(e["role"], e["content"], e["turn_id"]) for e in entries] == [
        ("user", "  今天去看了\n一场电影  ", "t1"),  # stored as given
        ("assistant", "好看吗", "t1"), ("user", "很好看", "t2")]
    assert entries[1]["memories"] == [{"id": "m1"}] and entries[1]["error"]["code"] == "server"
    assert "error" not in entries[0] and all(e["created_at"] for e in entries)
    entries[1]["memories"].append("changed by the caller")
    assert (await store.transcript(untitled.id))[1]["memories"] == [{"id": "m1"}]  # a copy, not the store's
    with pytest.raises(ValueError):
        await store.rename(untitled.id, "   ")
    with pytest.raises(SessionNotFound):
        await store.rename("nope", "x")
    assert (await store.rename(untitled.id, "电影")).title == "电影"
    assert await store.truncate_from_turn(untitled.id, "t2") == 1
    assert await store.truncate_from_turn(untitled.id, "nope") == 0
    assert await store.delete(untitled.id) is True and await store.delete(untitled.id) is False
    assert await store.get(untitled.id) is None and await store.transcript(untitled.id) == []


async def test_a_temporary_chat_is_listed_as_temporary_with_memory_off_and_a_saved_one_is_not(store):
    info = await store.create()
    listed = (await store.list())[0]
    flags = (info.temporary, info.recall, info.write)
    assert flags == ((True, False, False) if store.is_temporary else (False, True, True))
    assert (listed.temporary, listed.recall, listed.write) == flags
    assert (info.id in store) is store.is_temporary  # the engine routes by it, without waiting


async def test_an_untitled_temporary_chat_keeps_its_name_when_the_first_message_gives_none():
    store = SessionStore.temporary()
    info = await store.create()
    await store.append(info.id, "user", "   ")
    assert (await store.get(info.id)).title == TEMPORARY_TITLE
    await store.close()


async def test_a_temporary_store_writes_nothing_and_clear_forgets_every_chat(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    store = SessionStore.temporary()
    first, second = await store.create(), await store.create("二")
    await store.append(first.id, "user", "不要保存我")
    assert list(tmp_path.iterdir()) == []  # no database, journal or temporary file anywhere here
    assert sorted(await store.clear()) == sorted([first.id, second.id])
    assert first.id not in store and await store.list() == [] and await store.get(first.id) is None
    with pytest.raises(SessionNotFound):
        await store.ensure(first.id)  # a temporary store makes none up
    with pytest.raises(SessionNotFound):
        await store.append(first.id, "user", "还在吗")
    again = await store.create()  # usable again after clear()
    assert [s.id for s in await store.list()] == [again.id]
    await store.close()


def test_a_temporary_chat_left_open_does_not_hold_up_the_process_s_exit(tmp_path):
    """The database in memory runs on aiosqlite's own thread: made a daemon (nothing to flush), so an
    engine that was never closed cannot keep the process from ending."""
    import subprocess
    import sys

    script = ("import asyncio\nfrom sonetto_desktop.agent.sessions import SessionStore\n"
              "async def main():\n    store = SessionStore.temporary()\n    info = await store.create()\n"
              "    await store.append(info.id, 'user', '你好')\n    print(len(await store.list()))\n"
              "asyncio.run(main())\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.strip() == "1", done.stderr
