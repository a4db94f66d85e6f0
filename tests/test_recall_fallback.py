"""MemoryRecall: mode choice, bounded HYBRID prompts, and falling back (never to []) on LLM failure."""

from __future__ import annotations

import asyncio
import logging
import re
import socket
from datetime import datetime

import pytest

from sonetto_desktop.memory.item import MemoryItem
from sonetto_desktop.memory.retrieval import MechanicalRetriever, MemoryRecall, RetrievalMode
from sonetto_desktop.memory.retrieval.recall import public
from sonetto_desktop.memory.stores.sqlite import SqliteMemoryManager

NOW = datetime(2026, 12, 2, 9, 30)
NUMBERED = re.compile(r"^\[(\d+)\] \(.+?\) (.*) ｜日期 \S+ ｜引用 \d+ 次$", re.MULTILINE)
QUERY = "今晚想去吃火锅"

BANK = {
    "hotpot": MemoryItem("小林爱吃火锅，一定要点毛肚和鸭肠。", "品味", latest_update_time="2026-08-14T20:00:00", hit=5),
    "peanut": MemoryItem("小林对花生过敏。", "品味", latest_update_time="2026-03-01T08:00:00", hit=2),
    "cat": MemoryItem("小林养了一只叫汤圆的布偶猫。", "身份", latest_update_time="2026-06-30T22:15:00", hit=0),
    "godot": MemoryItem("小林在用 Godot 做像素风游戏原型。", "项目", latest_update_time="2026-11-20T23:00:00", hit=7),
}


def bulk_bank(n: int) -> dict[str, MemoryItem]:
    themes = ["项目", "品味", "瞬间", "身份", "地点与路径"]
    return {
        f"m{i:05d}": MemoryItem(
            f"第{i}条：小林在第{i % 97}个项目里用了工具{i % 13}号，常去{i % 31}号楼的咖啡店。",
            themes[i % len(themes)],
            latest_update_time=f"2026-{1 + i % 11:02d}-{1 + i % 27:02d}T10:00:00",
            hit=i % 7,
        )
        for i in range(n)
    }


def make_store(path, items: dict[str, MemoryItem]) -> SqliteMemoryManager:
    store = SqliteMemoryManager(path)
    if items:
        store.import_items({mid: item.copy() for mid, item in items.items()})
    return store


@pytest.fixture
def mm(tmp_path):
    store = make_store(tmp_path / "memory.db", BANK)
    yield store
    store.close()


@pytest.fixture
def make_recall():
    made: list[tuple[MemoryRecall, MechanicalRetriever]] = []

    def factory(store, llm, **kw) -> MemoryRecall:
        mechanical = MechanicalRetriever(store, now=lambda: NOW)
        recall = MemoryRecall(store, llm, mechanical=mechanical, clock=lambda: NOW, **kw)
        made.append((recall, mechanical))
        return recall

    yield factory
    for recall, mechanical in made:
        recall.close()
        mechanical.close()


async def run(recall: MemoryRecall, how: str, prompt: str, mode=RetrievalMode.LLM):
    if how == "async":
        return await recall.aretrieve(prompt, mode)
    return await asyncio.to_thread(recall.retrieve, prompt, mode)


def numbered(server) -> list[str]:
    """Descriptions of the numbered memories in the last request, by number."""
    found = NUMBERED.findall(server.last_messages()[1]["content"])
    assert [int(i) for i, _ in found] == list(range(len(found)))
    return [description for _, description in found]


def _closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


# ── fallback on every failure mode ───────────────────────────────────

FAILURES = {
    "no llm": (None, "no_llm"),
    "http 500": (lambda s: s.add_error(500, "upstream exploded"), "http_error"),
    "http 401": (lambda s: s.add_error(401, "invalid api key"), "http_error"),
    "hang past timeout": (lambda s: s.add_hang(3), "timeout"),
    "garbage body": (lambda s: s.add_garbage(), "bad_response"),
    "unparseable text": (lambda s: s.add_text("这些记忆都挺相关的！"), "unparseable"),
    "unreachable": ("closed", "connection_error"),
}


@pytest.mark.parametrize("mode", [RetrievalMode.LLM, RetrievalMode.HYBRID])
@pytest.mark.parametrize("how", ["sync", "async"])
@pytest.mark.parametrize("failure", sorted(FAILURES))
async def test_failure_falls_back_to_the_mechanical_result_and_says_why(
    mm, llm_server, make_llm, make_recall, caplog, failure, how, mode
):
    script, kind = FAILURES[failure]
    if script is None:
        llm = None
    elif script == "closed":
        llm = make_llm(base_url=_closed_port_url())
    else:
        llm = make_llm()
        script(llm_server)
    recall = make_recall(mm, llm, timeout=0.5)
    expected = [public(m) for m in recall.mechanical.retrieve(QUERY)]  # what recall hands on
    assert [m["id"] for m in expected] == ["hotpot"]  # the offline answer is not empty

    with caplog.at_level(logging.WARNING, logger="sonetto_desktop.memory.retrieval.recall"):
        result = await run(recall, how, QUERY, mode)

    assert result == expected
    assert recall.last_fallback_reason is not None and recall.last_fallback_reason.startswith(f"{kind}: ")
    assert recall.fallback_count == 1
    assert any(kind in record.getMessage() for record in caplog.records)


@pytest.mark.parametrize("how", ["sync", "async"])
async def test_a_key_echoed_by_the_server_never_reaches_the_reason_or_the_log(
    mm, llm_server, make_llm, make_recall, caplog, how
):
    secret = "Zq7-private-token-55501"  # not "sk-..." shaped: only knowing the key can scrub it
    llm_server.add_error(401, f"invalid credentials {secret}")
    recall = make_recall(mm, make_llm(api_key=secret), timeout=2)
    with caplog.at_level(logging.WARNING):
        await run(recall, how, QUERY)
    assert "invalid credentials ***" in recall.last_fallback_reason
    assert not [t for t in (recall.last_fallback_reason, caplog.text) if secret in t]


async def test_a_success_after_a_failure_clears_the_reason(mm, llm_server, make_llm, make_recall):
    recall = make_recall(mm, make_llm(), timeout=0.5)
    llm_server.add_error(503, "busy")
    await recall.aretrieve(QUERY)
    assert recall.last_fallback_reason.startswith("http_error: HTTP 503")
    llm_server.add_text("[]")
    assert await recall.aretrieve("帮我把 128 除以 16 算一下") == []
    assert recall.last_fallback_reason is None
    assert recall.fallback_count == 1


@pytest.mark.parametrize("how", ["sync", "async"])
async def test_llm_answer_is_used_when_it_works(mm, llm_server, make_llm, make_recall, how):
    def responder(body):
        lines = NUMBERED.findall(body["messages"][1]["content"])
        return str([int(i) for i, d in lines if "花生" in d] + [int(i) for i, d in lines if "火锅" in d])

    llm_server.responder = responder
    recall = make_recall(mm, make_llm())
    result = await run(recall, how, QUERY)
    assert [m["id"] for m in result] == ["peanut", "hotpot"]  # the model's choice, not the offline one
    assert recall.last_fallback_reason is None and recall.last_mode is RetrievalMode.LLM
    assert recall.fallback_count == 0


# ── modes and bounded prompts ────────────────────────────────────────

async def test_llm_mode_on_a_small_bank_numbers_every_memory(mm, llm_server, make_llm, make_recall):
    llm_server.add_text("[0]")
    recall = make_recall(mm, make_llm())
    result = await recall.aretrieve("最近在忙什么")
    assert sorted(numbered(llm_server)) == sorted(item.description for item in BANK.values())
    assert [m["id"] for m in result] == ["godot"]  # newest memory is numbered 0
    assert recall.last_mode is RetrievalMode.LLM


async def test_llm_mode_switches_to_hybrid_over_the_threshold(tmp_path, llm_server, make_llm, make_recall):
    store = make_store(tmp_path / "big.db", bulk_bank(30))
    try:
        llm_server.responder = lambda body: "[0]"
        recall = make_recall(store, make_llm(), hybrid_k=10, auto_hybrid_over=20)
        await recall.aretrieve("工具3号放在哪")
        assert len(numbered(llm_server)) == 10
        assert recall.last_mode is RetrievalMode.HYBRID

        roomy = make_recall(store, make_llm(), hybrid_k=10, auto_hybrid_over=30)
        await roomy.aretrieve("工具3号放在哪")
        assert len(numbered(llm_server)) == 30
        assert roomy.last_mode is RetrievalMode.LLM
    finally:
        store.close()


async def test_hybrid_prompt_stays_bounded_for_a_5000_item_bank(tmp_path, llm_server, make_llm, make_recall):
    store = make_store(tmp_path / "huge.db", bulk_bank(5000))
    try:
        assert store.count() == 5000
        llm_server.responder = lambda body: "[1, 0]"
        recall = make_recall(store, make_llm(), hybrid_k=60)
        # the first offline index build over 5,000 memories runs off the loop
        task = asyncio.create_task(recall.aretrieve("工具3号放在哪", RetrievalMode.MECHANICAL))
        ticks_while_pending = 0
        while not task.done():
            await asyncio.sleep(0.005)
            ticks_while_pending += not task.done()
        assert ticks_while_pending > 1 and llm_server.requests == []
        candidates = await asyncio.to_thread(recall.mechanical.candidates, "工具3号放在哪", 60)
        for mode in (RetrievalMode.HYBRID, RetrievalMode.LLM):
            result = await recall.aretrieve("工具3号放在哪", mode)
            lines = numbered(llm_server)
            assert len(lines) <= 60
            assert lines == [c["description"] for c in candidates]  # the offline shortlist, in its order
            assert len(llm_server.last_messages()[1]["content"]) < 60 * 200 + 500
            assert [m["id"] for m in result] == [candidates[1]["id"], candidates[0]["id"]]
            assert recall.last_mode is RetrievalMode.HYBRID
    finally:
        store.close()


async def test_huge_prompt_is_cut_for_the_llm(mm, llm_server, make_llm, make_recall):
    llm_server.add_text("[]")
    recall = make_recall(mm, make_llm())
    await recall.aretrieve("前情提要。" * 20000 + "所以今晚吃火锅吗")
    content = llm_server.last_messages()[1]["content"]
    assert content.rstrip().splitlines()[-3].endswith("所以今晚吃火锅吗")
    assert len(content) < 5000


@pytest.mark.parametrize("how", ["sync", "async"])
async def test_mechanical_mode_never_asks_the_llm(mm, llm_server, make_llm, make_recall, how):
    recall = make_recall(mm, make_llm())
    result = await run(recall, how, QUERY, RetrievalMode.MECHANICAL)
    assert [m["id"] for m in result] == ["hotpot"]
    assert llm_server.requests == [] and recall.fallback_count == 0
    assert recall.last_mode is RetrievalMode.MECHANICAL


@pytest.mark.parametrize("prompt", ["", "   \n\t"])
async def test_empty_prompt_gives_nothing_and_asks_nobody(mm, llm_server, make_llm, make_recall, prompt):
    recall = make_recall(mm, make_llm())
    for mode in RetrievalMode:
        assert await recall.aretrieve(prompt, mode) == []
        assert recall.retrieve(prompt, mode) == []
    assert llm_server.requests == [] and recall.fallback_count == 0


async def test_empty_bank_gives_nothing_without_calling_the_llm(tmp_path, llm_server, make_llm, make_recall):
    store = make_store(tmp_path / "empty.db", {})
    try:
        recall = make_recall(store, make_llm())
        for mode in RetrievalMode:
            assert await recall.aretrieve("最近怎么样", mode) == []
        assert llm_server.requests == [] and recall.fallback_count == 0
    finally:
        store.close()


async def test_a_memory_added_after_construction_is_recalled(mm, llm_server, make_llm, make_recall):
    recall = make_recall(mm, make_llm())
    assert await recall.aretrieve("我的猫咪汤圆", RetrievalMode.MECHANICAL) != []
    new_id = mm.add("小林下周三要带汤圆去打疫苗。", "时效待办")
    llm_server.responder = lambda body: "[0]"  # the newest memory is numbered first
    result = await recall.aretrieve("汤圆打疫苗")
    assert [m["id"] for m in result] == [new_id]


def test_mode_may_be_given_as_text_and_bad_modes_are_refused(mm, llm_server, make_llm, make_recall):
    recall = make_recall(mm, make_llm())
    assert [m["id"] for m in recall.retrieve(QUERY, "Mechanical")] == ["hotpot"]
    with pytest.raises(ValueError, match="unknown retrieval mode"):
        recall.retrieve(QUERY, "bm25")
    with pytest.raises(TypeError, match="prompt must be a string"):
        recall.retrieve(42)


def test_bad_settings_are_refused(mm):
    with pytest.raises(ValueError, match="hybrid_k"):
        MemoryRecall(mm, hybrid_k=0)
    with pytest.raises(ValueError, match="auto_hybrid_over"):
        MemoryRecall(mm, auto_hybrid_over=-1)
    with pytest.raises(ValueError, match="timeout"):
        MemoryRecall(mm, timeout=-2)


async def test_llm_can_be_set_later(mm, llm_server, make_llm, make_recall):
    recall = make_recall(mm, None)
    await recall.aretrieve(QUERY)
    assert recall.last_fallback_reason.startswith("no_llm")
    recall.llm = make_llm()
    llm_server.add_text("[]")
    assert await recall.aretrieve("你好呀") == []
    assert recall.last_fallback_reason is None


def test_default_mechanical_is_built_on_first_use_and_closed(mm):
    recall = MemoryRecall(mm)
    try:
        assert [m["id"] for m in recall.retrieve(QUERY, RetrievalMode.MECHANICAL)] == ["hotpot"]
        assert isinstance(recall.mechanical, MechanicalRetriever)
    finally:
        recall.close()
