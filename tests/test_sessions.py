"""SessionStore: the chat session list and display transcripts in a real SQLite file."""

from __future__ import annotations

import pytest

from sonetto_desktop.agent.sessions import DEFAULT_TITLE, SessionNotFound, SessionStore, title_from


@pytest.fixture
async def store(tmp_path):
    s = SessionStore(tmp_path / "sessions.db")
    await s.open()
    yield s
    await s.close()


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
