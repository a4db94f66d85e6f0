"""The automatic recall budget chosen by reach per token (issue 36 items 3 and 5): a small bank read
whole, 24k above it with a cloud endpoint, 8k for a local server whose context allows it; Ollama
asked for the context through its native API; the person told once when a tiny context cuts recall.
Real stores, the real recall and the scripted server over HTTP."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

import pytest

from sonetto_desktop.memory.item import MemoryItem
from sonetto_desktop.memory.retrieval import MechanicalRetriever, MemoryRecall, RetrievalMode
from sonetto_desktop.memory.retrieval.budget import (
    CLOUD_BUDGET,
    LOCAL_BUDGET_MAX,
    LOCAL_CONTEXT_WANTED,
    REQUEST_RESERVE,
    WHOLE_BANK,
    BudgetPolicy,
    ContextInfo,
    ContextNotice,
    budget_for,
)
from sonetto_desktop.memory.retrieval.listing import RecallListing
from sonetto_desktop.memory.stores.sqlite import SqliteMemoryManager
from sonetto_desktop.presentation.recall_notices import context_notice_text

from recall_banks import parse_listing

NOW = datetime(2026, 12, 2, 9, 30)
#: A bank's listing larger than any context holds (the context is said only when it cuts the bank).
LARGE_BANK = 1_000_000
PLACES = ["西湖", "鼓浪屿", "外滩", "宽窄巷子", "洱海", "中山路", "夫子庙", "南锣鼓巷", "黄鹤楼", "大雁塔"]
HOBBIES = ["吉他", "游泳", "日语", "摄影", "烘焙", "围棋", "油画", "羽毛球", "编程", "插花"]


def bank(mm, n: int) -> None:
    """``n`` everyday memories of ~33 estimated listing tokens each, 0.3 days apart back from NOW."""
    mm.import_items({f"m{i:05d}": MemoryItem(
        f"小林和朋友{i % 37}号周末去了{PLACES[i % 10]}，聊起在学{HOBBIES[(i // 10) % 10]}。",
        "瞬间", latest_update_time=(NOW - timedelta(days=i * 0.3)).replace(microsecond=0).isoformat())
        for i in range(n)})


def whole_tokens(mm) -> int:
    listing = RecallListing(mm)
    try:
        own, apps = listing.parts()
        return own.tokens + apps.tokens
    finally:
        listing.close()


@pytest.fixture
def recall_of(tmp_path):
    made = []

    def factory(n: int, llm, budget) -> MemoryRecall:
        mm = SqliteMemoryManager(tmp_path / f"memory-{n}.db")
        bank(mm, n)
        mechanical = MechanicalRetriever(mm, now=lambda: NOW)
        recall = MemoryRecall(mm, llm, mechanical=mechanical, clock=lambda: NOW, budget=budget)
        made.append((recall, mechanical, mm))
        return recall

    yield factory
    for recall, mechanical, mm in made:
        recall.close()
        mechanical.close()
        mm.close()


# ── the defaults (item 3) ───────────────────────────────────────────────

def test_the_automatic_defaults_come_from_the_reach_per_token_curve():
    """Before: a local server at most 6,000, then 8,000 (16,000 now: 0.877 → 0.935 at 1,000 memories, 0.712 →
    0.775 at 10,000, every set pooled); a cloud endpoint 48,000 (kept: in conversation blocks 24k
    reached 0.753 at 10,000 memories, 48k 0.808)."""
    assert CLOUD_BUDGET == 48_000 and LOCAL_BUDGET_MAX == 16_000 and WHOLE_BANK == CLOUD_BUDGET
    assert budget_for("https://api.deepseek.com/v1", None) == 48_000
    assert budget_for("http://127.0.0.1:8080/v1", 20_480) == 16_000  # a local server whose context allows it
    assert budget_for("http://127.0.0.1:8080/v1", 12_288) == 8_288  # what a smaller context holds
    assert budget_for("http://127.0.0.1:8080/v1", 131_072) == 16_000
    assert LOCAL_BUDGET_MAX + REQUEST_RESERVE <= LOCAL_CONTEXT_WANTED
    cloud = BudgetPolicy("https://api.deepseek.com/v1", "deepseek-chat")
    assert cloud.tokens() == 48_000  # the bank fits the budget: every memory is listed
    assert cloud.tokens() == 48_000
    cloud.timed_out()  # a model too slow for the whole bank: the budget shrinks, the bank is not read whole
    assert cloud.tokens() == 24_000
    local = BudgetPolicy("http://127.0.0.1:8080/v1", "qwen", probe=lambda *a: ContextInfo(32_768, "llama.cpp"))
    local.learn()
    assert local.tokens() == 16_000  # a local model reads slowly: never the whole bank by default


def test_a_local_server_gets_16k_when_its_context_is_20480(llm_server):
    llm_server.context_api = "llama.cpp"
    llm_server.context_length = 20_480
    policy = BudgetPolicy(llm_server.base_url, "test-model")
    policy.tokens()
    policy.wait(5)
    assert policy.tokens() == 16_000  # was 6,000, then 8,000
    assert policy.num_ctx() is None  # llama.cpp cannot be asked per request


async def test_a_small_bank_is_listed_whole_and_a_larger_one_gets_the_cloud_budget(
        llm_server, make_llm, recall_of):
    """A bank up to the cloud budget is listed whole (1,000 memories), a larger one (2,000, ~60k tokens)
    gets the budget, in a conversation block."""
    small = recall_of(1_000, make_llm(), BudgetPolicy("https://api.deepseek.com/v1", "deepseek-chat"))
    assert whole_tokens(small._mm) <= WHOLE_BANK
    llm_server.add_text("[0]")
    found = await small.aretrieve("小林周末去哪儿玩了", RetrievalMode.LLM)
    stats = small.last_listing
    assert stats.shown == stats.memories == 1_000 and small.last_mode is RetrievalMode.LLM
    assert len(parse_listing(llm_server.last_messages()[1]["content"])) == 1_000
    assert found and found[0]["id"] == "m00999"  # [0]: the oldest, first in the listing

    large = recall_of(2_000, make_llm(), BudgetPolicy("https://api.deepseek.com/v1", "deepseek-chat"))
    assert whole_tokens(large._mm) > WHOLE_BANK
    large.warm_up()
    llm_server.add_text("[]")
    await large.aretrieve("小林周末去哪儿玩了", RetrievalMode.LLM)
    stats = large.last_listing
    # the first message of a conversation block fills the budget (before: a quarter of it, < 1,000 shown)
    assert stats.budget == CLOUD_BUDGET and 0.9 * CLOUD_BUDGET <= stats.tokens <= CLOUD_BUDGET
    assert stats.shown < stats.memories == 2_000 and large.last_mode is RetrievalMode.HYBRID


async def test_a_small_bank_with_other_apps_memories_is_read_whole_too(llm_server, make_llm, recall_of):
    """Before: other apps' memories beyond a fifth of the budget were cut even when every memory fit."""
    recall = recall_of(600, make_llm(), BudgetPolicy("https://api.deepseek.com/v1", "deepseek-chat"))
    mm = recall._mm
    stamp = NOW.replace(microsecond=0).isoformat()
    mm.import_items({f"app{i:04d}": MemoryItem(f"Cursor 记下的第{i}条项目笔记：接口改成分页返回，记得同步前端的调用。", "项目",
                                               latest_update_time=stamp, history=[
                                                   {"time": stamp, "action": "create", "actor": "mcp:cursor",
                                                    "reason": ""}]) for i in range(300)})
    listing = RecallListing(mm)
    try:
        own, apps = listing.parts()
        assert apps.tokens > 0.2 * (own.tokens + apps.tokens) and own.tokens + apps.tokens <= WHOLE_BANK
    finally:
        listing.close()
    llm_server.add_text("[]")
    await recall.aretrieve("接口分页的事", RetrievalMode.LLM)
    stats = recall.last_listing
    assert stats.shown == stats.memories == 900 and stats.apps == 300 and recall.last_mode is RetrievalMode.LLM


# ── Ollama: asked for the context (item 5.1) ────────────────────────────

def ollama(llm_server, context: int = 4096) -> None:
    llm_server.context_api = "ollama"  # /api/show (trained for 32,768), /api/ps (loaded at ``context``)
    llm_server.context_length = context


async def test_ollama_is_asked_for_the_context_the_recall_needs(llm_server, make_llm, recall_of):
    """Before: the recall went through /v1, where Ollama ignores any context length and cuts the prompt
    to its default 4,096 tokens; the budget was 4,096 - 4,000 = 400 tokens (a dozen memories)."""
    ollama(llm_server)
    policy = BudgetPolicy(llm_server.base_url, "test-model", "sk-test")
    recall = recall_of(600, make_llm(), policy)
    policy.learn()
    assert policy.context == ContextInfo(4096, "ollama") and policy.context.ceiling == 32_768
    assert policy.tokens() == LOCAL_BUDGET_MAX and policy.num_ctx() == LOCAL_CONTEXT_WANTED
    recall.warm_up()
    llm_server.add_text("[0, 1]")
    found = await recall.aretrieve("小林周末去哪儿玩了", RetrievalMode.LLM)
    asked = llm_server.native_requests[-1]
    assert asked["options"]["num_ctx"] == 20_480 and asked["stream"] is False and asked["model"] == "test-model"
    assert [m["role"] for m in asked["messages"]] == ["system", "user"]
    assert asked["messages"][0]["content"].startswith("你是 Sonetto 的记忆检索助手")
    assert len(found) == 2 and recall.last_fallback_reason is None
    assert 12_000 < recall.last_listing.tokens <= LOCAL_BUDGET_MAX  # ~16k of listing, not 400

    llm_server.add_text("[2]")  # the blocking call takes the same way
    assert len(recall.retrieve("小林周末去哪儿玩了", RetrievalMode.LLM)) == 1
    assert len(llm_server.native_requests) == 2 and llm_server.last_request()["options"]["num_ctx"] == 20_480


async def test_a_budget_the_person_set_is_asked_of_ollama_too(llm_server, make_llm, recall_of):
    """Before: with a budget set by hand the server was never asked its context, so the recall went
    through /v1, where Ollama cuts a prompt to its 4,096 tokens without a word (the instructions and
    most memories gone), and nothing was said."""
    ollama(llm_server)
    policy = BudgetPolicy(llm_server.base_url, "test-model", "sk-test", setting=12_000)
    recall = recall_of(600, make_llm(), policy)
    assert policy.tokens() == 400  # never waits for the server (meanwhile: what a 4,096 context holds)
    policy.wait(5)
    assert policy.context == ContextInfo(4096, "ollama") and policy.num_ctx() == LOCAL_CONTEXT_WANTED
    assert policy.tokens() == 12_000
    recall.warm_up()
    llm_server.add_text("[0]")
    await recall.aretrieve("小林周末去哪儿玩了", RetrievalMode.LLM)
    assert llm_server.native_requests and llm_server.native_requests[-1]["options"]["num_ctx"] == LOCAL_CONTEXT_WANTED
    assert 10_000 < recall.last_listing.tokens <= 12_000


@pytest.mark.parametrize("setting", [0, 12_000])
async def test_the_first_recall_waits_for_the_servers_context(llm_server, make_llm, recall_of, setting):
    """Before: the first recall did not wait for the server's answer about its context: it went through
    /v1 with a 16,000-token (or the set) listing, and Ollama cut the prompt to its 4,096 tokens without a
    word. Now it waits briefly for the answer, and asks Ollama for the context the recall needs."""
    ollama(llm_server)
    policy = BudgetPolicy(llm_server.base_url, "test-model", "sk-test", setting=setting)
    recall = recall_of(600, make_llm(), policy)
    recall.warm_up()
    llm_server.add_text("[0]")
    await recall.aretrieve("小林周末去哪儿玩了", RetrievalMode.LLM)
    assert llm_server.native_requests and llm_server.native_requests[-1]["options"]["num_ctx"] == LOCAL_CONTEXT_WANTED
    assert recall.last_fallback_reason is None and recall.last_listing.tokens > 10_000


async def test_a_first_recall_before_the_server_tells_its_context_stays_within_a_default_context(
        llm_server, make_llm, recall_of):
    """The server does not say its context in time: the first recall's request is what Ollama's default
    4,096-token context holds (not a 16,000-token listing it would cut); the budget follows the answer."""
    import threading

    answered = threading.Event()

    def slow_probe(*_a):
        answered.wait(10)
        return ContextInfo(32_768, "llama.cpp")

    policy = BudgetPolicy(llm_server.base_url, "test-model", probe=slow_probe)
    policy.context_wait = 0.2
    recall = recall_of(600, make_llm(), policy)
    recall.warm_up()
    llm_server.add_text("[0]")
    await recall.aretrieve("小林周末去哪儿玩了", RetrievalMode.LLM)
    assert recall.last_listing.budget <= 4096 - REQUEST_RESERVE + 400 and recall.last_listing.tokens <= 400
    assert "options" not in llm_server.last_request()
    answered.set()
    policy.wait(5)
    assert policy.tokens() == LOCAL_BUDGET_MAX


@pytest.mark.parametrize("api", ["lm-studio", "llama.cpp"])
def test_a_set_budget_beyond_a_local_servers_context_is_what_the_context_holds(llm_server, api):
    """LM Studio loaded at 8,192 and a budget set to 20,000: every recall sent more than the model
    reads (refused as too long, or cut) while the line said recall sees about 4,192. And the line was
    never said: a set budget never asked the server. A set budget within the context stays."""
    llm_server.context_api = api
    llm_server.context_length = 8192
    told: list[ContextNotice] = []
    policy = BudgetPolicy(llm_server.base_url, "test-model", setting=20_000, notify=told.append)
    policy.bank(LARGE_BANK)
    assert policy.tokens() == 400  # (not known yet)
    policy.wait(5)
    assert policy.tokens() == 8192 - REQUEST_RESERVE
    assert len(told) == 1 and told[0].budget == policy.tokens() and told[0].context == 8192
    within = BudgetPolicy(llm_server.base_url, "test-model", setting=3_000, notify=told.append)
    within.bank(LARGE_BANK)
    within.tokens()
    within.wait(5)
    assert within.tokens() == 3_000 and len(told) == 1


async def test_a_native_request_fails_the_way_an_openai_one_does(llm_server, make_llm, recall_of):
    ollama(llm_server)
    policy = BudgetPolicy(llm_server.base_url, "test-model")
    recall = recall_of(600, make_llm(), policy)
    policy.learn()
    llm_server.add_error(500, "the input length exceeds the context length")
    await recall.aretrieve("小林周末去哪儿玩了", RetrievalMode.LLM)
    assert recall.last_fallback_reason.startswith("http_error: HTTP 500: the input length exceeds")
    assert policy.tokens() < LOCAL_BUDGET_MAX  # refused as too long: the automatic budget halved
    llm_server.add_text("not an index list")
    await recall.aretrieve("小林周末去哪儿玩了", RetrievalMode.LLM)
    assert recall.last_fallback_reason.startswith("unparseable")
    llm_server.add_garbage()
    await recall.aretrieve("小林周末去哪儿玩了", RetrievalMode.LLM)
    assert recall.last_fallback_reason.startswith("bad_response")
    llm_server.add_hang(3)
    recall.timeout = 0.5
    await recall.aretrieve("小林周末去哪儿玩了", RetrievalMode.LLM)
    assert recall.last_fallback_reason.startswith("timeout")
    assert len(llm_server.native_requests) == 4


async def test_asking_stops_when_it_reloads_the_model_at_every_recall_and_the_person_is_told(
        llm_server, make_llm, recall_of):
    ollama(llm_server)
    told: list[ContextNotice] = []
    policy = BudgetPolicy(llm_server.base_url, "test-model", notify=told.append)
    recall = recall_of(600, make_llm(), policy)
    policy.learn()
    assert told == []  # 4,096 but it can be asked for more: nothing to tell yet
    llm_server.load_seconds = 3.0  # the reply between two recalls loaded it back at 4,096
    for _ in range(2):
        llm_server.add_text("[0]")
        await recall.aretrieve("小林周末去哪儿玩了", RetrievalMode.LLM)
    assert len(llm_server.native_requests) == 2
    policy.wait(5)  # it asked the server again what the model is loaded with now
    assert llm_server.context_requests.count("/api/ps") == 2
    assert policy.num_ctx() is None and policy.tokens() == 400  # no longer asking: what 4,096 holds
    assert len(told) == 1 and told[0].reloads and told[0].context == 4096 and told[0].server == "ollama"
    llm_server.add_text("[0]")
    await recall.aretrieve("小林周末去哪儿玩了", RetrievalMode.LLM)
    assert len(llm_server.native_requests) == 2  # through /v1 again
    assert "options" not in llm_server.last_request()


# ── the one line (item 5.2) ──────────────────────────────────────────────

@pytest.mark.parametrize("api, context, expected", [
    ("lm-studio", 4096, "LM Studio"), ("llama.cpp", 4096, "llama-server"), ("lm-studio", 32_768, None),
    ("llama.cpp", 2048, "-c 20480"), ("ollama", 32_768, None),
])
def test_a_tiny_context_is_said_once(llm_server, api, context, expected):
    llm_server.context_api = api
    llm_server.context_length = context
    told: list[ContextNotice] = []
    policy = BudgetPolicy(llm_server.base_url, "test-model", notify=told.append)
    policy.bank(LARGE_BANK)
    policy.tokens()
    policy.wait(5)
    policy.learn()  # asked again (a second probe): still said once
    if expected is None:
        assert told == [] and policy.notice is None
        return
    assert len(told) == 1 and told[0] == policy.notice
    assert told[0].context == context and told[0].budget < 6_000
    text = context_notice_text(told[0])
    assert f"{context:,}" in text and expected in text and "test-model" in text


def test_an_ollama_model_trained_for_a_short_context_is_said_to_be_the_limit():
    told: list[ContextNotice] = []
    policy = BudgetPolicy("http://127.0.0.1:11434/v1", "tiny", notify=told.append,
                          probe=lambda *a: ContextInfo(2048, "ollama", 4096))
    policy.bank(LARGE_BANK)
    policy.learn()
    assert policy.num_ctx() == 4096 and policy.tokens() == 400  # asked for all it has, which is little
    assert len(told) == 1 and told[0].model_limit
    assert "换一个上下文更长的模型" in context_notice_text(told[0])


def test_the_line_counts_the_memories_in_the_models_tokens_as_it_counts_its_context():
    """A budget set above what the model reads (200,000 on Ollama's qwen2.5:7b, trained for 32,768) was told
    as "本机模型 qwen2.5:7b 最多只读 32,768 tokens：回忆每次只能看约 37,690 tokens 的记忆" — more memories than
    the model reads: the context in the model's tokens, the memories in the app's estimate (a Qwen token is
    0.786 of one). Both are the model's tokens now; the context another model needs is written as a number."""
    told: list[ContextNotice] = []
    policy = BudgetPolicy("http://127.0.0.1:11434/v1", "qwen2.5:7b", setting=200_000, notify=told.append,
                          probe=lambda *a: ContextInfo(32_768, "ollama", 32_768), per_estimate=0.786)
    policy.bank(LARGE_BANK)
    policy.learn()
    assert len(told) == 1 and told[0].model_limit
    text = context_notice_text(told[0])
    context, memories, wanted = (int(n.replace(",", "")) for n in re.findall(r"\d[\d,]*\d", text)[-3:])
    assert context == 32_768 and memories == round(told[0].budget * 0.786) < context, text
    assert f"{wanted:,}" in text and wanted > context, text


async def test_the_context_is_said_only_when_it_cuts_what_recall_would_read(llm_server, make_llm, recall_of):
    """Five memories, a budget set to 200,000 on a model with a 32,768 context: the toast said recall "会漏掉不少"
    though the whole bank was in every request. Said when the bank's listing is larger than the context
    holds (a bank grown past it, once)."""
    ollama(llm_server, 32_768)
    told: list[ContextNotice] = []
    policy = BudgetPolicy(llm_server.base_url, "test-model", "sk-test", setting=200_000, notify=told.append)
    small = recall_of(5, make_llm(), policy)
    llm_server.add_text("[0]")
    await small.aretrieve("小林周末去哪儿玩了", RetrievalMode.LLM)
    policy.wait(5)
    assert policy.context == ContextInfo(32_768, "ollama") and policy.tokens() == 32_768 - REQUEST_RESERVE
    assert small.last_listing.shown == 5 and told == [] and policy.notice is None  # nothing was cut
    large = recall_of(1_000, make_llm(), policy)
    assert whole_tokens(large._mm) > policy.tokens()
    llm_server.add_text("[0]")
    await large.aretrieve("小林周末去哪儿玩了", RetrievalMode.LLM)
    assert len(told) == 1 and told[0] == policy.notice and told[0].budget == policy.tokens()
    llm_server.add_text("[0]")
    await large.aretrieve("小林周末去哪儿玩了", RetrievalMode.LLM)
    assert len(told) == 1  # once


async def test_a_native_request_to_a_server_that_went_away_is_a_connection_error(make_llm, recall_of):
    import socket

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    policy = BudgetPolicy(url, "test-model", probe=lambda *a: ContextInfo(4096, "ollama", 32_768))
    recall = recall_of(50, make_llm(base_url=url), policy)
    policy.learn()
    assert policy.num_ctx() == LOCAL_CONTEXT_WANTED
    await recall.aretrieve("小林周末去哪儿玩了", RetrievalMode.LLM)
    assert recall.last_fallback_reason.startswith("connection_error: cannot reach the model endpoint")
    assert recall.fallback_count == 1  # the offline result answered
