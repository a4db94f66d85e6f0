"""The writer's listing stays bounded on a large store: every memory up to the threshold, above it
the memories related to the current turn (offline retriever), the due/expired dated to-dos, the
likely duplicates of what the turn touches and the most recent ones — reading what it lists, not
the store. Memory text is one line of JSON data: no memory can forge a row or a request.

Real stores, the real MechanicalRetriever, the real LongTermMemory against the scripted server."""

from __future__ import annotations

import itertools
from datetime import datetime, timedelta


from helpers import retriever_fixture
from ltm_helpers import FAST, make_ltm, until
from memory_stores import backend_store_fixture, open_store
from sonetto_desktop.memory.item import MemoryItem
from sonetto_desktop.memory.writer.consumer import MemoryConsumer
from sonetto_desktop.memory.writer.listing import READ_ALL_MAX, memory_line, read_listing
from sonetto_desktop.memory.writer.tools import ToolContext, make_memory_tools
from sonetto_desktop.memory.writer.turns import turn_query_text

NOW = datetime(2026, 12, 2, 20, 0)  # Wednesday
OLD = "2025-03-01T10:00:00"
CAT = "用户养了一只叫年糕的橘猫"
CAT_TURN = "年糕今天又把杯子打翻了，这只橘猫真调皮"
UNRELATED_OLD = ["用户喜欢吃香菜", "用户会弹古典吉他", "用户讨厌下雨天", "用户的老家在云南大理", "用户每周六去游泳"]

_ids = itertools.count()


mm = backend_store_fixture()


def fill(mm, recent: int, *, old: list[str] = (), related: bool = True) -> dict[str, str]:
    """``recent`` unrelated memories updated in the last days, the ``old`` ones (and the cat) a
    year and more ago. Returns description -> id for the old ones."""
    items = {}
    for i in range(recent):
        when = (NOW - timedelta(hours=3 * i + 1)).isoformat(timespec="seconds")
        items[f"r{i:04d}"] = MemoryItem(f"用户第{i}次去{i}号展馆看了一场展览", "瞬间", latest_update_time=when)
    for j, text in enumerate([*old, *([CAT] if related else [])]):
        items[f"o{j:04d}"] = MemoryItem(text, "身份" if text == CAT else "品味", latest_update_time=OLD)
    mm.import_items(items)
    by_text = {item.description: mid for mid, item in mm.all_items().items()}
    return {text: by_text[text] for text in [*old, *([CAT] if related else [])]}


def call(tools, name, config=None, **args):
    by_name = {t.name: t for t in tools}
    return by_name[name].invoke({"type": "tool_call", "id": f"call_{next(_ids)}", "name": name, "args": args},
                                config=config)


def listed_ids(text: str) -> list[str]:
    return [line.split(" | ", 1)[0] for line in text.splitlines()[1:] if " | " in line]


retriever = retriever_fixture(NOW)


def test_up_to_the_threshold_every_memory_is_listed(mm, retriever):
    fill(mm, READ_ALL_MAX - 1, old=[], related=True)
    assert mm.count() == READ_ALL_MAX
    tools = make_memory_tools(mm, context=ToolContext(turn_text=CAT_TURN, now=NOW), retriever=lambda: retriever)
    msg = call(tools, "read_memories")
    assert msg.status == "success"
    assert msg.content.splitlines()[0].startswith(f"共 {READ_ALL_MAX} 条记忆，全部列出")
    assert sorted(listed_ids(msg.content)) == sorted(mm.all_items())
    assert (msg.artifact["shown"], msg.artifact["total"]) == (READ_ALL_MAX, READ_ALL_MAX)


def test_above_the_threshold_the_turns_memories_are_listed_not_unrelated_old_ones(mm, retriever):
    old = fill(mm, 120, old=UNRELATED_OLD)
    total = mm.count()
    assert total == 126
    cat = old[CAT]
    mm.hit(cat)
    tools = make_memory_tools(mm, context=ToolContext(turn_text=CAT_TURN, now=NOW), retriever=lambda: retriever)
    msg = call(tools, "read_memories")
    head, *lines = msg.content.splitlines()
    assert head.startswith(f"共 {total} 条记忆") and "与本轮对话相关" in head and "未列出" in head
    ids = listed_ids(msg.content)
    assert cat in ids
    assert not {old[text] for text in UNRELATED_OLD} & set(ids)
    assert len(ids) == len(set(ids)) and len(ids) <= 20 + 3 + 8 + 8
    # The most recently updated memories are always there; lines keep the one format.
    items = mm.all_items()
    assert "r0000" in ids and "r0001" in ids
    assert f'{cat} | 身份 | 2025-03-01 | "{CAT}"' in lines
    without_hints = [" | ".join(line.split(" | ")[:4]) for line in lines]
    assert without_hints == [memory_line(mid, items[mid], NOW) for mid in ids]
    assert (msg.artifact["shown"], msg.artifact["total"]) == (len(ids), total)


def test_a_different_turn_lists_different_memories(mm, retriever):
    old = fill(mm, 120, old=UNRELATED_OLD)
    ctx = ToolContext(turn_text="这周六我照常去游泳馆游泳了", now=NOW)
    text = call(make_memory_tools(mm, context=ctx, retriever=lambda: retriever), "read_memories").content
    ids = listed_ids(text)
    assert old["用户每周六去游泳"] in ids and old[CAT] not in ids


def test_the_runs_context_wins_over_the_factorys(mm, retriever):
    old = fill(mm, 120, old=UNRELATED_OLD)
    tools = make_memory_tools(mm, context=ToolContext(turn_text="我会弹古典吉他", now=NOW),
                              retriever=lambda: retriever)
    run = {"configurable": {"sonetto_tool_context": ToolContext(turn_text=CAT_TURN, now=NOW)}}
    ids = listed_ids(call(tools, "read_memories", config=run).content)
    assert old[CAT] in ids and old["用户会弹古典吉他"] not in ids


def test_without_a_retriever_the_most_recent_and_most_used_are_listed(mm):
    old = fill(mm, 120, old=UNRELATED_OLD)
    mm.hit(old["用户讨厌下雨天"])
    mm.hit(old["用户讨厌下雨天"])
    msg = call(make_memory_tools(mm), "read_memories")
    head = msg.content.splitlines()[0]
    assert head.startswith("共 126 条记忆") and "最近更新和引用最多" in head and "未列出" in head
    ids = listed_ids(msg.content)
    assert old["用户讨厌下雨天"] in ids  # the most used, although old
    assert "r0000" in ids and "r0119" not in ids  # recent in, the oldest recent one out
    assert old["用户喜欢吃香菜"] not in ids
    assert 10 <= len(ids) <= 25


def test_a_failing_retriever_falls_back_to_recent_memories(mm):
    fill(mm, 120, old=UNRELATED_OLD)

    def broken():
        raise RuntimeError("index is corrupt")

    msg = call(make_memory_tools(mm, context=ToolContext(turn_text=CAT_TURN), retriever=broken), "read_memories")
    assert msg.status == "success" and "最近更新和引用最多" in msg.content.splitlines()[0]
    assert "r0000" in listed_ids(msg.content)


def test_listing_limits_are_parameters(mm, retriever):
    fill(mm, 30, old=UNRELATED_OLD)
    listing = read_listing(mm, CAT_TURN, lambda: retriever, now=NOW, read_all_max=10, related_k=5, recent_n=2)
    assert (listing.total, listing.selection) == (36, "related") and 5 <= listing.shown <= 7 + 4
    assert read_listing(mm, CAT_TURN, lambda: retriever, read_all_max=36).shown == 36


def test_turn_query_text_puts_the_user_first_and_is_bounded():
    turn = [{"role": "assistant", "content": "早呀"}, {"role": "user", "content": "我养了只猫"}]
    assert turn_query_text(turn) == "我养了只猫\n早呀"
    long = turn_query_text([{"role": "user", "content": "头" + "猫" * 5000 + "尾"},
                            {"role": "assistant", "content": "好"}], limit=100)
    assert len(long) == 100 and long.startswith("头") and long.endswith("尾")


async def test_consumer_hands_the_turn_text_to_read_memories(llm_server, make_llm, mm, retriever):
    old = fill(mm, 120, old=UNRELATED_OLD)
    llm_server.add_tool_calls([("read_memories", {})])
    llm_server.add_text("本轮无需记录。")
    consumer = MemoryConsumer(make_llm(), mm, now=lambda: NOW, retriever=lambda: retriever)
    await consumer.consume("s", "t1", [{"role": "user", "content": CAT_TURN}, {"role": "assistant", "content": "哈哈"}])
    read_output = next(m["content"] for m in llm_server.requests[1]["messages"] if m["role"] == "tool")
    ids = listed_ids(read_output)
    assert old[CAT] in ids and old["用户喜欢吃香菜"] not in ids
    assert read_output.startswith("共 126 条记忆")


async def test_ltm_over_threshold_update_of_a_related_memory_lands(llm_server, make_llm, tmp_path):
    mm = open_store("yaml", tmp_path)
    old = fill(mm, 150, old=UNRELATED_OLD)
    cat = old[CAT]
    memory = make_ltm(mm, make_llm(), backoff=FAST, now=lambda: NOW)  # one offline index, shared with recall
    ltm = memory.writer
    llm_server.add_tool_calls([("read_memories", {})])
    llm_server.add_tool_calls([("update_memory", {"id": cat, "content": "用户养了一只叫年糕的橘猫，很调皮",
                                                  "reason": "用户说年糕又把杯子打翻了"})])
    llm_server.add_text("已更新。")
    ltm.start()
    try:
        await ltm.send_history([{"role": "user", "content": CAT_TURN}, {"role": "assistant", "content": "哈哈"}],
                               session_id="s1")
        await until(lambda: ltm.pending == 0 and not ltm.busy)
    finally:
        assert await ltm.stop() is True
        ltm.close()
        memory.recall.close()
    system = llm_server.requests[0]["messages"][0]["content"]
    assert "附有相关条目的列表" in system
    read_output = next(m["content"] for m in llm_server.requests[1]["messages"] if m["role"] == "tool")
    assert read_output.startswith("共 156 条记忆") and "与本轮对话相关" in read_output.splitlines()[0]
    ids = listed_ids(read_output)
    assert cat in ids and not {old[t] for t in UNRELATED_OLD} & set(ids)
    assert len(read_output) < 4000  # ~25 lines, not 156
    item = mm.get(cat)
    assert item.description == "用户养了一只叫年糕的橘猫，很调皮" and item.hit == 1
    assert (item.history[-1]["actor"], item.history[-1]["reason"]) == ("agent", "用户说年糕又把杯子打翻了")
    mm.close()


def test_a_large_store_lists_about_twenty_memories_a_turn(mm, retriever):
    """Issue 37 (writer tokens per turn): every listed row costs ~40 tokens. Past the threshold a
    turn's listing holds at most 12 related memories, 3 due to-dos and the 2 most recent (plus the
    likely duplicates of the best matches); it was up to 20 + 5 + 3 (28 rows at 1,000 memories)."""
    fill(mm, 300, old=UNRELATED_OLD)
    mm.import_items({f"d{i:03d}": MemoryItem(f"用户{i % 12 + 1}月{i % 27 + 1}日有第{i}场展览的布展", "时效待办",
                                              latest_update_time=OLD) for i in range(10)})
    listing = read_listing(mm, "我上周去看了一场展览，第3次去展馆了", lambda: retriever, now=NOW)
    assert listing.selection == "related" and listing.total == 316
    assert listing.shown <= 12 + 3 + 2 + 4  # 28 before
