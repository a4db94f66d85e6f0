"""MemoryRecall: mode choice, the token budget (every memory below it, a stable block and the query's
shortlist above it), and falling back (never to []) on LLM failure."""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from datetime import datetime

import pytest

from sonetto_desktop.aio import run_blocking
from sonetto_desktop.memory.item import MemoryItem
from sonetto_desktop.memory.retrieval import MechanicalRetriever, MemoryRecall, RetrievalMode
from sonetto_desktop.memory.retrieval.budget import CLOUD_BUDGET, LOCAL_BUDGET_UNKNOWN, BudgetPolicy, ContextInfo
from sonetto_desktop.memory.retrieval.recall import public
from sonetto_desktop.memory.stores.sqlite import SqliteMemoryManager

from recall_banks import parse_listing

NOW = datetime(2026, 12, 2, 9, 30)
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
    found = parse_listing(server.last_messages()[1]["content"])
    assert sorted(found) == list(range(len(found)))
    return [found[i][1] for i in range(len(found))]


def numbers_of(body, needle: str) -> list[int]:
    return [i for i, (_, description, _) in parse_listing(body["messages"][1]["content"]).items() if needle in description]


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
        return str(numbers_of(body, "花生") + numbers_of(body, "火锅"))

    llm_server.responder = responder
    recall = make_recall(mm, make_llm())
    result = await run(recall, how, QUERY)
    assert [m["id"] for m in result] == ["peanut", "hotpot"]  # the model's choice, not the offline one
    assert recall.last_fallback_reason is None and recall.last_mode is RetrievalMode.LLM
    assert recall.fallback_count == 0


# ── modes and bounded prompts ────────────────────────────────────────

async def test_llm_mode_on_a_small_bank_numbers_every_memory(mm, llm_server, make_llm, make_recall):
    llm_server.add_text("[3]")
    recall = make_recall(mm, make_llm())
    result = await recall.aretrieve("最近在忙什么")
    # every memory, from the oldest change to the newest
    assert numbered(llm_server) == [BANK[k].description for k in ("peanut", "cat", "hotpot", "godot")]
    assert [m["id"] for m in result] == ["godot"]
    assert recall.last_mode is RetrievalMode.LLM
    stats = recall.last_listing
    assert (stats.memories, stats.shown, stats.stable) == (4, 4, 4) and stats.tokens <= stats.budget


async def test_llm_mode_runs_as_hybrid_over_the_budget(tmp_path, llm_server, make_llm, make_recall):
    store = make_store(tmp_path / "big.db", bulk_bank(300))
    try:
        llm_server.responder = lambda body: "[0]"
        roomy = make_recall(store, make_llm(), budget=100_000)
        await roomy.aretrieve("工具3号放在哪")
        assert len(numbered(llm_server)) == 300  # below the budget: every memory
        assert roomy.last_mode is RetrievalMode.LLM

        tight = make_recall(store, make_llm(), budget=2_000)
        await tight.aretrieve("工具3号放在哪")
        lines = numbered(llm_server)
        stats = tight.last_listing
        assert tight.last_mode is RetrievalMode.HYBRID
        assert 20 < len(lines) == stats.shown < 300 and stats.tokens <= 2_000
        assert 0 < stats.stable < stats.shown  # the newest memories, then the query's shortlist
        content = llm_server.last_messages()[1]["content"]
        assert content.index("## 其他可能相关的记忆") > content.index(lines[stats.stable - 1])
    finally:
        store.close()


async def test_above_the_budget_the_shortlist_brings_the_matching_memories(tmp_path, llm_server, make_llm,
                                                                          make_recall):
    bank = bulk_bank(5000)
    bank["needle"] = MemoryItem("小林把备用钥匙藏在门口的绿萝花盆底下。", "地点与路径",
                                latest_update_time="2025-01-03T10:00:00")  # older than every other memory
    store = make_store(tmp_path / "huge.db", bank)
    try:
        llm_server.responder = lambda body: str(numbers_of(body, "备用钥匙"))
        recall = make_recall(store, make_llm(), budget=6_000)
        # a first query on a cold index answers at once from what the index holds (its build over 5,000
        # memories goes on in the background); the app's start-up warm-up waits for the build off the loop
        await asyncio.wait_for(recall.aretrieve("备用钥匙放哪了", RetrievalMode.MECHANICAL), 5)
        task = asyncio.create_task(run_blocking(recall.warm_up))
        ticks_while_pending = 0
        while not task.done():
            await asyncio.sleep(0.005)
            ticks_while_pending += not task.done()
        assert ticks_while_pending > 1 and llm_server.requests == []
        for mode in (RetrievalMode.HYBRID, RetrievalMode.LLM):
            result = await recall.aretrieve("备用钥匙放哪了", mode)
            assert [m["id"] for m in result] == ["needle"]
            assert recall.last_mode is RetrievalMode.HYBRID
            assert recall.last_listing.tokens <= 6_000 < 5001 * 20
            assert len(llm_server.last_messages()[1]["content"]) < 6_000 * 2
    finally:
        store.close()


async def test_the_listing_is_a_stable_prefix_across_messages(tmp_path, llm_server, make_llm, make_recall):
    """Above the budget the block of newest memories keeps its first line while memories are added,
    so consecutive requests share their beginning (a provider's prompt cache serves it)."""
    store = make_store(tmp_path / "big.db", bulk_bank(400))
    try:
        llm_server.responder = lambda body: "[]"
        recall = make_recall(store, make_llm(), budget=6_000)
        contents = []
        for i in range(6):
            await recall.aretrieve(["工具3号放在哪", "今晚吃什么", "咖啡店", "最近怎么样", "项目进展", "第7条"][i])
            contents.append(llm_server.last_messages()[1]["content"])
            store.add(f"第{i}次新加的记忆：小林今天学了一首新歌。", "瞬间")
        stable = recall.last_listing.stable_tokens
        for before, after in zip(contents, contents[1:], strict=False):
            shared = len(os.path.commonprefix([before, after]))
            assert shared > 0.8 * len(before.split("## 其他可能相关的记忆")[0])
        assert recall.listing.steps == 1 and stable <= 3_000
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
    llm_server.responder = lambda body: "[4]"  # the newest memory is numbered last
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
    with pytest.raises(ValueError, match="budget"):
        MemoryRecall(mm, budget=0)
    with pytest.raises(ValueError, match="budget"):
        MemoryRecall(mm, budget=-500)
    with pytest.raises(ValueError, match="stable_share"):
        MemoryRecall(mm, stable_share=1.5)
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


async def test_a_refusal_as_too_long_or_a_timeout_halves_the_automatic_budget(tmp_path, llm_server, make_llm, make_recall):
    store = make_store(tmp_path / "big.db", bulk_bank(400))
    try:
        policy = BudgetPolicy(llm_server.base_url, "test-model", probe=lambda *args: ContextInfo(None))
        recall = make_recall(store, make_llm(), budget=policy)
        policy.learn()  # (the server tells nothing)
        before = policy.tokens()
        llm_server.add_error(400, "This model's maximum context length is 4096 tokens, your request has 9100.")
        await recall.aretrieve(QUERY)
        assert recall.last_fallback_reason.startswith("http_error: HTTP 400")
        refused = recall.last_listing.tokens
        assert before == LOCAL_BUDGET_UNKNOWN and policy.tokens() == refused // 2 < before
        llm_server.add_text("[]")
        await recall.aretrieve(QUERY)
        assert recall.last_listing.tokens <= refused // 2  # the next request fits the halved budget

        cloud = BudgetPolicy("https://api.example.com/v1", "test-model")
        recall.budget = cloud
        recall.timeout = 0.5
        llm_server.add_hang(3)
        await recall.aretrieve(QUERY)
        assert recall.last_fallback_reason.startswith("timeout") and cloud.tokens() == CLOUD_BUDGET // 2
        recall.timeout = 8.0

        chosen = BudgetPolicy(llm_server.base_url, "test-model", setting=3_000)
        recall.budget = chosen
        llm_server.add_error(400, "maximum context length exceeded")
        await recall.aretrieve(QUERY)
        assert chosen.tokens() == 3_000  # a budget the person set stays
    finally:
        store.close()
