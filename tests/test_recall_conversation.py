"""The conversation block (conversation.py): consecutive recall requests share most of their
beginning, while memories are written between messages and other apps keep their bounded share.
Real store, the real recall over HTTP to the scripted server."""

from __future__ import annotations

import asyncio
import os
from datetime import datetime

import pytest

from helpers import stamper
from sonetto_desktop.memory.item import MemoryItem
from sonetto_desktop.memory.operations import MemoryOperations
from sonetto_desktop.memory.retrieval.conversation import NEW_SHARE, ConversationBlock
from sonetto_desktop.memory.retrieval.listing import HEADING_TOKENS, ID, TOKENS, RecallListing
from sonetto_desktop.memory.retrieval.mechanical import MechanicalRetriever
from sonetto_desktop.memory.retrieval.shortlist import Shortlist
from sonetto_desktop.memory.retrieval.llm_prompt import (
    APPS_HEADER,
    EXTRA_HEADER,
    FIND_RELATED_MEMORY,
    LISTING_HEADER,
)
from sonetto_desktop.memory.retrieval.recall import APP_SHARE, MemoryRecall
from sonetto_desktop.memory.stores.sqlite import SqliteMemoryManager

NOW = datetime(2026, 12, 2, 9, 30)
MESSAGES = ["今晚吃什么好", "周末想去爬山", "毕设进度有点慢", "最近在学吉他", "妈妈下周复查", "想换个新手机",
            "猫咪又不吃饭了", "下个月去杭州出差", "这周读完了一本小说", "健身房办了卡", "房租该交了", "朋友要结婚了"]
TOPICS = ["火锅", "爬山", "毕设", "吉他", "复查", "手机", "猫咪", "杭州", "小说", "健身", "房租", "婚礼", "咖啡", "电影"]


stamp = stamper(NOW)


def recall_requests(llm_server) -> list[str]:
    return [r["messages"][1]["content"] for r in llm_server.requests
            if r["messages"][0]["content"] == FIND_RELATED_MEMORY.strip()]


def differs(previous: str, current: str) -> float:
    """The share of ``current`` after what it has in common with the beginning of ``previous``
    (what a provider's prefix cache cannot serve)."""
    return 1 - len(os.path.commonprefix([previous, current])) / len(current)


@pytest.fixture
def bank(tmp_path):
    mm = SqliteMemoryManager(tmp_path / "memory.db")
    mm.import_items({f"p{i:04d}": MemoryItem(f"第{i}条：小林和朋友聊到了{TOPICS[i % len(TOPICS)]}，记下一些细节。", "瞬间",
                                             latest_update_time=stamp(700 - i * 0.5)) for i in range(1_200)})
    yield mm
    mm.close()


async def converse(recall, llm_server, mm, messages, *, app=None):
    """Each message recalled, then a memory written by the person's writer (and by an app every fourth)."""
    person = MemoryOperations(mm, actor="agent")
    for n, message in enumerate(messages):
        llm_server.add_text("[]")
        await recall.aretrieve(message)
        person.add(f"第{n}轮：小林说起{message}。", "瞬间")
        if app is not None and n % 4 == 3:  # an app writes now and then
            app.add(f"Cursor 记下的第{n}条：小林今天在写第{n}个组件。", "项目")
    return recall_requests(llm_server)


@pytest.mark.parametrize("blocks, most", [(True, 0.4), (False, 1.0)])
async def test_consecutive_requests_share_most_of_their_beginning(llm_server, make_llm, bank, blocks, most):
    recall = MemoryRecall(bank, make_llm(), clock=lambda: NOW, budget=8_000)
    recall.conversation_block = blocks
    try:
        requests = await converse(recall, llm_server, bank, MESSAGES)
        shares = [differs(a, b) for a, b in zip(requests, requests[1:], strict=False)]
        mean = sum(shares) / len(shares)
        if blocks:
            assert mean <= most  # was 0.6-0.7 with a memory written between messages (the run below)
            assert recall.conversation.restarts == 1 and recall.conversation.cuts >= 2  # the block's end let go
            stats = recall.last_listing
            assert stats.tokens <= 8_000 and stats.shown > stats.stable
        else:
            assert mean > 0.5  # the ordering before: the stable block renumbered, the shortlist all new
    finally:
        recall.close()


async def test_each_message_sees_what_was_written_since_and_its_own_shortlist(llm_server, make_llm, bank):
    recall = MemoryRecall(bank, make_llm(), clock=lambda: NOW, budget=8_000)
    recall.conversation_block = True
    try:
        requests = await converse(recall, llm_server, bank, MESSAGES[:3])
        first, second, third = requests
        listing = first[:first.index("## 常被提起的记忆")].rstrip()
        common = os.path.commonprefix([first, second])
        assert first.index(EXTRA_HEADER) < len(common)  # the stable block and the block's beginning are kept
        assert len(common) >= (1 - NEW_SHARE - 0.1) * len(listing)  # ... most of the listing: only its end went
        assert "第0轮：小林说起今晚吃什么好" in second and "第0轮" not in first
        assert second.count("第0轮：") == 1 and third.count("第0轮：") == 1  # shown once
        assert third.index("第0轮：") < third.index("第1轮：")
        assert recall.last_listing.tokens <= 8_000
    finally:
        recall.close()


async def test_other_apps_keep_their_bounded_share_after_the_persons_part(llm_server, make_llm, bank):
    recall = MemoryRecall(bank, make_llm(), clock=lambda: NOW, budget=8_000)
    recall.conversation_block = True
    app = MemoryOperations(bank, actor="mcp:cursor")
    for i in range(300):
        app.add(f"Cursor 早先记下的第{i}条：一个很长的项目笔记，" + "细节" * 15, "项目")
    try:
        requests = await converse(recall, llm_server, bank, MESSAGES, app=app)
        stats = recall.last_listing
        assert 0 < stats.apps and stats.apps_tokens <= APP_SHARE * 8_000
        for text in requests:
            assert text.index(LISTING_HEADER) < text.index(APPS_HEADER)  # the person's part first
        shares = [differs(a, b) for a, b in zip(requests, requests[1:], strict=False)]
        # the apps' part changes after the person's stable block (their shortlist at the end, their
        # window when they write): more differs than without them, and less than the 0.78 before
        assert sum(shares) / len(shares) <= 0.55
    finally:
        recall.close()


async def test_an_apps_write_between_messages_leaves_the_persons_part_as_it_was(llm_server, make_llm, bank):
    """The person's whole part (stable block, then their block) comes before other apps' memories: an
    app writing between two messages changes only what follows it (before, the apps' part sat between
    the person's stable block and their block, and each app write made the person's block new)."""
    recall = MemoryRecall(bank, make_llm(), clock=lambda: NOW, budget=8_000)
    recall.conversation_block = True
    app = MemoryOperations(bank, actor="mcp:cursor")
    for i in range(300):
        app.add(f"Cursor 早先记下的第{i}条：一个很长的项目笔记，" + "细节" * 15, "项目")
    try:
        llm_server.add_text("[]")
        await recall.aretrieve(MESSAGES[0])
        await asyncio.sleep(1.1)  # times are kept to the second: the app's new memory is its newest
        app.add("Cursor 记下的新一条：小林今天在写登录组件。", "项目")
        llm_server.add_text("[]")
        await recall.aretrieve(MESSAGES[1])
        first, second = recall_requests(llm_server)
        assert recall.conversation.restarts == 1  # one conversation: the block went on
        start = first.index(EXTRA_HEADER)
        common = os.path.commonprefix([first, second])
        assert len(common) > start  # the stable block and the beginning of the person's block are kept
        # the person's part of the second request (what the app's write could have moved) comes
        # before the apps' part, which alone holds the app's new memory
        assert "登录组件" not in first and second.index(APPS_HEADER) < second.index("登录组件")
    finally:
        recall.close()


def test_the_block_lets_its_end_go_past_the_budget(bank):
    """The first message of a conversation gets what the stable block leaves; each later one keeps
    the block's beginning and gets ``NEW_SHARE`` of the budget for its own shortlist (before, the
    block only grew and started again near the budget: a later message on a new topic got as little
    as an eighth of it, the first one a quarter)."""
    listing = RecallListing(bank)
    mechanical = MechanicalRetriever(bank, now=lambda: NOW, index_path=False)
    clock = [0.0]
    block = ConversationBlock(clock=lambda: clock[0])
    try:
        part = listing.parts()[0]
        previous: list[str] = []
        for n, message in enumerate(MESSAGES):
            stable, extra, used = block.plan(message, listing, part, 6_000, 1_500, Shortlist(mechanical))
            ids = [e[ID] for e in extra]
            assert used <= 6_000 and not {e[ID] for e in stable} & set(ids) and len(ids) == len(set(ids))
            if n == 0:
                assert used >= 6_000 - 100  # the whole budget: nothing is cached yet
            else:
                same = len(os.path.commonprefix([previous, ids]))  # the block's beginning, as it was
                new_tokens = sum(e[TOKENS] + HEADING_TOKENS for e in extra[same:])
                assert NEW_SHARE * 6_000 - 100 <= new_tokens <= NEW_SHARE * 6_000
            previous = ids
            clock[0] += 60
        assert block.restarts == 1 and block.cuts == len(MESSAGES) - 1
        clock[0] += 4_000  # an hour without a message: a new conversation
        block.plan("你好", listing, part, 6_000, 1_500, Shortlist(mechanical))
        assert block.restarts == 2
    finally:
        listing.close()
        mechanical.close()
