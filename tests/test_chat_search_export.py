"""Search across chats and export of a chat to Markdown, over a real SessionStore (SQLite)."""

from __future__ import annotations

import threading

import pytest

from helpers import session_store_fixture
from sonetto_desktop.agent import chat_search
from sonetto_desktop.agent.chat_export import export_chat, transcript_markdown
from sonetto_desktop.agent.chat_search import search_chats


store = session_store_fixture()


async def _chat(store, title, *pairs, error=None):
    info = await store.create(title)
    for user, reply in pairs:
        await store.append(info.id, "user", user)
        await store.append(info.id, "assistant", reply, error=error)
    return info.id


async def test_search_finds_every_word_across_chats_ignoring_case_and_spacing(store):
    coffee = await _chat(store, "周末", ("我喜欢 手冲咖啡", "那 Pour  Over 呢？"))
    cat = await _chat(store, "猫", ("年糕今天又调皮了", "它是一只橘猫"))
    await _chat(store, "空的")
    hits = await search_chats(store, "pour over")
    assert [h.session_id for h in hits] == [coffee]
    assert "Pour Over" in hits[0].snippet
    assert [h.session_id for h in await search_chats(store, "橘猫 年糕")] == [cat]  # words in two messages
    assert [h.session_id for h in await search_chats(store, "周末")] == [coffee]  # the title
    assert await search_chats(store, "年糕 咖啡") == []
    assert await search_chats(store, "   ") == []


@pytest.mark.parametrize("separator", ["，", "、", "；", "。", "\u3000"])
async def test_chinese_punctuation_in_a_query_separates_words(store, separator):
    coffee = await _chat(store, "早上", ("我最喜欢手冲咖啡", "那拿铁呢？"), ("拿铁也行", "好"))
    await _chat(store, "下午", ("喝了咖啡", "嗯"))
    assert [h.session_id for h in await search_chats(store, f"咖啡{separator}拿铁")] == [coffee]


async def test_a_hit_names_the_messages_that_matched(store):
    sid = await _chat(store, "早餐", ("我喜欢咖啡", "咖啡不错"), ("咖啡要热的", "好的咖啡"), ("今天天气不错", "是啊"),
                      ("拿铁加燕麦奶的咖啡", "记下了"))
    [hit] = await search_chats(store, "咖啡，拿铁")
    assert hit.session_id == sid
    indexes = [m.index for m in hit.messages]
    assert len(indexes) == 3 and 6 in indexes  # the one message with both words, though it came last
    assert indexes == sorted(indexes)  # shown in the order they were said
    assert not {4, 5, 7} & set(indexes)
    entries = await store.transcript(sid)
    for message in hit.messages:
        assert message.role == entries[message.index]["role"]
        assert message.turn_id == (entries[message.index].get("turn_id") or "")
        assert "咖啡" in message.snippet


async def test_search_matches_off_the_calling_thread(store, monkeypatch):
    await _chat(store, "a", ("hello there", "hi"))
    threads = []
    original = chat_search.match_sessions

    def spy(*args):
        threads.append(threading.get_ident())
        return original(*args)

    monkeypatch.setattr(chat_search, "match_sessions", spy)
    assert len(await search_chats(store, "hello")) == 1
    assert threads and threads[0] != threading.get_ident()


async def test_export_writes_the_chat_as_markdown_replacing_an_old_file(store, tmp_path):
    sid = await _chat(store, "周末计划", ("去爬山吗？", "好呀，**带水**。"))
    await store.append(sid, "user", "讲个长故事")
    await store.append(sid, "assistant", "从前有座山", error={"code": "cancelled", "zh": "已停止", "en": "Stopped"})
    await store.append(sid, "user", "再来")
    await store.append(sid, "assistant", "", error={"code": "http", "zh": "服务出错了", "en": "Server error"})
    target = tmp_path / "out" / "chat.md"
    target.parent.mkdir()
    target.write_text("old export", encoding="utf-8")
    await export_chat(store, sid, target)
    text = target.read_text(encoding="utf-8")
    assert text.startswith("# 周末计划\n")
    assert "**你**" in text and "去爬山吗？" in text and "好呀，**带水**。" in text
    assert "从前有座山" in text and "（已停止）" in text
    assert "服务出错了" in text
    assert [p.name for p in target.parent.iterdir()] == ["chat.md"]  # no temp file left


async def test_export_to_a_missing_folder_fails_and_writes_nothing(store, tmp_path):
    sid = await _chat(store, "x", ("a", "b"))
    with pytest.raises(OSError):
        await export_chat(store, sid, tmp_path / "nope" / "chat.md")
    assert not (tmp_path / "nope").exists()


def test_markdown_export_in_english():
    text = transcript_markdown("Weekend", [{"role": "user", "content": "hi"},
                                           {"role": "assistant", "content": "", "error": {"code": "cancelled"}}],
                               language="en")
    assert "**You**" in text and "(stopped)" in text
