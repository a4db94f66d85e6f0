"""The recall budget (budget.py), the stable listing (listing.py) and the query's shortlist
(shortlist.py), against real stores and the scripted server."""

from __future__ import annotations

import contextlib
from datetime import datetime

import pytest

from helpers import stamper
from waiting import wait_for
from sonetto_desktop.memory.item import MemoryItem
from sonetto_desktop.memory.retrieval.budget import (
    CLOUD_BUDGET,
    LOCAL_BUDGET_MAX,
    LOCAL_BUDGET_UNKNOWN,
    REQUEST_RESERVE,
    STEP,
    BudgetPolicy,
    ContextInfo,
    budget_for,
    estimate_tokens,
    is_local_endpoint,
    probe_context,
)
from sonetto_desktop.memory.retrieval.listing import (DESCRIPTION, HEADING_TOKENS, ID, KEY, TOKENS, WINDOW_TARGET, RecallListing,
                                                      entry_record)
from sonetto_desktop.memory.retrieval.llm_prompt import build_user_prompt, listing_block
from sonetto_desktop.memory.retrieval.mechanical import MechanicalRetriever
from sonetto_desktop.memory.retrieval.recall import MemoryRecall
from sonetto_desktop.memory.retrieval.shortlist import Shortlist, fuse, rrf
from sonetto_desktop.memory.stores.sqlite import SqliteMemoryManager
from sonetto_desktop.memory.stores.yaml.store import YamlMemoryManager

NOW = datetime(2026, 12, 2, 9, 30)


@contextlib.contextmanager
def listing_of(mm, *, close_store: bool = False):
    """A listing following ``mm``, closed afterwards (with the store when ``close_store``)."""
    listing = RecallListing(mm)
    try:
        yield listing
    finally:
        listing.close()
        if close_store:
            mm.close()


stamp = stamper(NOW)


@pytest.fixture(params=["yaml", "sqlite"])
def store(request, tmp_path):
    mm = YamlMemoryManager(tmp_path / "memory.yaml") if request.param == "yaml" else SqliteMemoryManager(
        tmp_path / "memory.db")
    yield mm
    mm.close()


def filled(mm, n: int, *, start_days: int = 400):
    mm.import_items({f"m{i:04d}": MemoryItem(f"第{i}条：小林记下了一件关于第{i % 17}个朋友的小事。", "瞬间",
                                             latest_update_time=stamp(start_days - i * 0.1), hit=i % 5)
                     for i in range(n)})
    return mm


# ── budget ────────────────────────────────────────────────────────────

def test_tokens_are_estimated_one_per_cjk_character_and_one_per_four_others():
    assert estimate_tokens("") == 0
    assert estimate_tokens("小林喜欢猫") == 5
    assert estimate_tokens("abcdefgh") == 2
    assert estimate_tokens("小林 likes cats！") == 2 + 1 + 3  # "小林", "！" and 11 other characters
    assert estimate_tokens("# 2026-11-02") == 8 + 1  # digits are a token each (as in Qwen's and others' vocabularies)


@pytest.mark.parametrize("url, local", [
    ("http://127.0.0.1:11434/v1", True), ("http://localhost:1234/v1", True), ("http://[::1]:8080/v1", True),
    ("http://192.168.1.20:8000/v1", True), ("http://10.0.0.5/v1", True), ("http://nas.local:8080/v1", True),
    ("https://api.deepseek.com/v1", False), ("https://dashscope.aliyuncs.com/compatible-mode/v1", False),
    ("https://8.8.8.8/v1", False), ("", False),
])
def test_local_endpoints_are_told_from_cloud_ones(url, local):
    assert is_local_endpoint(url) is local


def test_the_budget_by_provider_and_the_setting():
    assert budget_for("https://api.openai.com/v1", None) == CLOUD_BUDGET
    assert budget_for("https://api.openai.com/v1", 16_384) == 16_384 - REQUEST_RESERVE  # a short context
    assert budget_for("https://api.openai.com/v1", 1_000_000) == CLOUD_BUDGET
    assert budget_for("http://127.0.0.1:11434/v1", 4096) == 400  # Ollama's default: barely anything
    assert budget_for("http://127.0.0.1:8080/v1", 8192) == 8192 - REQUEST_RESERVE
    assert budget_for("http://127.0.0.1:8080/v1", 131_072) == LOCAL_BUDGET_MAX  # a local model reads slowly
    assert budget_for("http://127.0.0.1:8080/v1", None) == LOCAL_BUDGET_UNKNOWN
    assert budget_for("http://127.0.0.1:8080/v1", 4096, setting=20_000) == 20_000  # the person decides


@pytest.mark.parametrize("api", ["models", "llama.cpp", "lm-studio", "ollama"])
def test_the_context_length_is_asked_of_the_server(llm_server, api):
    llm_server.context_api = api
    llm_server.context_length = 12_288
    info = probe_context(llm_server.base_url, "test-model", "sk-test", timeout=2)
    assert info == ContextInfo(12_288, {"models": "models"}.get(api, api))


def test_a_server_that_tells_nothing_gives_no_context(llm_server):
    assert probe_context(llm_server.base_url, "test-model") == ContextInfo(None)
    assert probe_context(llm_server.base_url.replace(str(llm_server.port), "9"), "test-model", timeout=0.5) == (
        ContextInfo(None))  # nothing listens there


def test_the_policy_learns_a_local_servers_context_in_the_background(llm_server):
    llm_server.context_api = "llama.cpp"
    llm_server.context_length = 6_000
    policy = BudgetPolicy(llm_server.base_url, "test-model")
    assert policy.tokens() == 400  # never waits for the server: meanwhile what a default 4,096 context holds
    policy.wait(5)
    assert policy.context == ContextInfo(6_000, "llama.cpp")
    assert policy.tokens() == 6_000 - REQUEST_RESERVE
    assert llm_server.context_requests == ["/props"]  # asked once
    assert policy.tokens() == 2_000 and llm_server.context_requests == ["/props"]


async def test_a_local_servers_context_is_asked_at_the_warm_up_not_at_the_first_message(llm_server, make_llm, tmp_path):
    """The first message after a start waited for the local server's answer about its context (up to
    ``CONTEXT_WAIT``, 3 s; 0.06-1.2 s measured at load 11 after an import: docs/benchmarks.md, "The first
    recall after an import"). The warm-up that reads the listing for the model asks it now, in the background."""
    llm_server.context_api = "ollama"
    llm_server.context_length = 6_000
    mm = SqliteMemoryManager(tmp_path / "memory.db")
    filled(mm, 3)
    policy = BudgetPolicy(llm_server.base_url, "test-model")
    recall = MemoryRecall(mm, make_llm(), budget=policy)
    try:
        recall.warm_up()
        wait_for(lambda: policy.context is not None, what="the server's context, with no message yet")
        assert policy.context == ContextInfo(6_000, "ollama") and not llm_server.requests  # (no recall request)
    finally:
        recall.close()
        mm.close()


def test_an_automatic_budget_follows_the_models_speed():
    local = BudgetPolicy("http://192.168.1.5:8000/v1", "qwen", probe=lambda *a: ContextInfo(40_000, "models"))
    local.learn()
    start = local.tokens()
    assert start == LOCAL_BUDGET_MAX
    local.observe(0.5, 8.0, start, start)  # quick, and the listing was full: a fast server reads more
    assert local.tokens() == int(LOCAL_BUDGET_MAX * STEP)
    local.observe(0.5, 8.0, 100, local.tokens())  # quick but the listing was small: no reason to grow
    assert local.tokens() == int(LOCAL_BUDGET_MAX * STEP)
    for _ in range(10):
        local.observe(0.5, 8.0, local.tokens(), local.tokens())
    assert local.tokens() == 40_000 - REQUEST_RESERVE  # at most what its context holds
    local.observe(6.0, 8.0, local.tokens(), local.tokens())  # slow
    assert local.tokens() < 40_000 - REQUEST_RESERVE
    before = local.tokens()
    local.timed_out()
    assert local.tokens() == before // 2

    cloud = BudgetPolicy("https://api.deepseek.com/v1", "deepseek-chat")
    cloud.observe(0.5, 8.0, CLOUD_BUDGET, CLOUD_BUDGET)
    assert cloud.tokens() == CLOUD_BUDGET  # never past the cloud default
    cloud.timed_out()
    assert cloud.tokens() == CLOUD_BUDGET // 2
    chosen = BudgetPolicy("https://api.deepseek.com/v1", "deepseek-chat", setting=20_000)
    chosen.timed_out()
    chosen.observe(7.9, 8.0, 20_000, 20_000)
    assert chosen.tokens() == 20_000  # a budget the person set stays


def test_a_cloud_endpoint_is_not_probed_and_a_setting_wins(llm_server):
    asked = []
    cloud = BudgetPolicy("https://api.deepseek.com/v1", "deepseek-chat", probe=lambda *a: asked.append(a))
    assert cloud.tokens() == CLOUD_BUDGET and asked == []
    chosen = BudgetPolicy(llm_server.base_url, "test-model", setting=12_345)
    chosen.tokens()
    chosen.wait(5)  # (a server that tells nothing)
    assert chosen.tokens() == 12_345


# ── the listing ───────────────────────────────────────────────────────

def test_the_listing_runs_from_the_oldest_change_to_the_newest_and_follows_the_store(store):
    store.import_items({
        "b": MemoryItem("小林对花生过敏。", "品味", latest_update_time=stamp(200), hit=2),
        "a": MemoryItem("小林养了一只叫汤圆的布偶猫。", "身份", latest_update_time=stamp(100)),
        "c": MemoryItem("小林在做像素风游戏。", "项目", latest_update_time=stamp(10), hit=9),
    })
    with listing_of(store) as listing:
        assert [e[ID] for e in listing.snapshot().order] == ["b", "a", "c"]
        new = store.add("小林下周三要带汤圆去打疫苗。", "时效待办")
        store.update("b", "补充", "小林对花生和芒果过敏。")
        store.hit("a")
        store.delete("c", "不再做了")
        snapshot = listing.snapshot()
        order = [e[ID] for e in snapshot.order]
        assert order[0] == "a" and set(order[1:]) == {new, "b"}  # added and edited go last; deleted gone
        # (changes within the same second are ordered by id: stamps have whole seconds)
        assert snapshot.by_id["b"][DESCRIPTION] == "小林对花生和芒果过敏。"
        assert listing.hits(["a", new, "b"]) == [1, 0, 2]  # hits change nothing in the order
        assert snapshot.tokens == sum(e[TOKENS] for e in snapshot.order)


def test_a_hit_changes_nothing_in_the_listing_text(store):
    filled(store, 20)
    with listing_of(store) as listing:
        before = listing_block([entry_record(e, 0) for e in listing.snapshot().order])
        store.hit("m0003")
        store.hit("m0003")
        after = listing_block([entry_record(e, 0) for e in listing.snapshot().order])
        assert before == after


def test_the_window_keeps_its_first_line_while_memories_are_added_and_steps_past_its_budget(tmp_path):
    mm = filled(SqliteMemoryManager(tmp_path / "m.db"), 300)
    with listing_of(mm, close_store=True) as listing:
        budget = 2_000
        block, before, used = listing.window(budget)
        assert before and used <= WINDOW_TARGET * budget and listing.steps == 1
        assert [e[ID] for e in block] == [e[ID] for e in listing.snapshot().order[-len(block):]]  # the newest
        first = block[0][ID]
        added = 0
        while True:
            mm.add(f"新的一条记忆，第{added}条。", "瞬间")
            added += 1
            block, _, used = listing.window(budget)
            if listing.steps > 1:
                break
            assert block[0][ID] == first and used <= budget  # same beginning, new memory at the end
        assert added > 5 and block[0][ID] != first and used <= WINDOW_TARGET * budget
        deleted = [e[ID] for e in block[: len(block) * 3 // 4]]
        for mid in deleted:
            mm.delete(mid, "整理")
        block, _, used = listing.window(budget)  # too few left in the window: re-placed, filled again
        assert listing.steps == 3 and used > 0.5 * budget


def test_the_listing_text_is_a_prefix_of_the_next_one_after_an_addition(store):
    filled(store, 30)
    with listing_of(store) as listing:
        first = build_user_prompt("今晚吃什么", [entry_record(e, 1) for e in listing.snapshot().order], NOW)
        store.add("小林今天学会了做红烧肉。", "瞬间")
        second = build_user_prompt("最近怎么样", [entry_record(e, 1) for e in listing.snapshot().order], NOW)
        stable = listing_block([entry_record(e, 1) for e in listing.snapshot().order][:30])
        assert first.startswith(stable) and second.startswith(stable)
        assert "(瞬间) 小林今天学会了做红烧肉。" in second[len(stable):]


def test_a_bulk_change_is_read_again(tmp_path):
    mm = filled(SqliteMemoryManager(tmp_path / "m.db"), 10)
    with listing_of(mm) as listing:
        assert len(listing) == 10
        mm.import_items({f"n{i}": MemoryItem(f"导入的记忆{i}", "瞬间", latest_update_time=stamp(1)) for i in range(700)})
        assert len(listing) == 710


# ── the shortlist ─────────────────────────────────────────────────────

def test_reciprocal_rank_fusion_prefers_what_both_rankings_put_high():
    assert rrf([["a", "b", "c"], ["c", "a", "d"]]) == ["a", "c", "b", "d"]
    assert rrf([["x", "y"]]) == ["x", "y"]
    assert rrf([]) == []


def test_fusion_by_best_rank_keeps_each_rankings_top():
    words = [f"w{i}" for i in range(50)]
    vectors = ["v0", *words[10:40]]  # its best is absent from the word ranking
    fused = fuse([words, vectors])
    assert fused.index("v0") <= 1  # plain RRF puts it behind every memory found by both
    assert rrf([words, vectors]).index("v0") > 20
    assert fuse([["a", "b", "c"], ["c", "a", "d"]]) == ["a", "c", "b", "d"]


class Ranker:
    """A dense ranking that returns ``ids`` (None: it cannot rank now) for any query."""

    def __init__(self, ids=None, error=None):
        self.ids, self.error, self.calls, self.searches = ids, error, 0, []

    def embed_query(self, prompt):
        self.calls += 1
        if self.error:
            raise self.error
        return None if self.ids is None else prompt

    def nearest(self, vector, k):
        self.searches.append(k)
        return self.ids[:k]


def test_the_shortlist_fills_the_tokens_left_with_the_best_ranked_and_keeps_listing_order(tmp_path):
    mm = filled(SqliteMemoryManager(tmp_path / "m.db"), 200)
    mm.import_items({"key": MemoryItem("小林把备用钥匙藏在门口的绿萝花盆底下。", "地点与路径", latest_update_time=stamp(999))})
    mechanical = MechanicalRetriever(mm, now=lambda: NOW, index_path=False)
    with listing_of(mm, close_store=True) as listing, contextlib.closing(mechanical):
        snapshot = listing.snapshot()
        stable = {e[ID] for e in snapshot.order[-50:]}
        shortlist = Shortlist(mechanical)
        chosen = shortlist.fill("备用钥匙在哪", snapshot, stable, 600)
        assert chosen[0][ID] == "key" and not shortlist.used_dense  # the oldest, and the one that matches
        assert not stable & {e[ID] for e in chosen}
        cost = snapshot.smallest + HEADING_TOKENS  # a line of the shortlist may need its day heading
        assert 600 - cost < sum(e[TOKENS] + HEADING_TOKENS for e in chosen) <= 600
        assert [e[KEY] for e in chosen] == sorted(e[KEY] for e in chosen)

        dense = Ranker(["m0007", "m0011"])
        fused = Shortlist(mechanical, dense)
        picked = {e[ID] for e in fused.fill("备用钥匙在哪", snapshot, stable, 600)}
        assert {"key", "m0007", "m0011"} <= picked and fused.used_dense and dense.calls == 1

        for broken in (Ranker(None), Ranker(error=RuntimeError("embeddings down"))):
            alone = Shortlist(mechanical, broken)
            assert [e[ID] for e in alone.fill("备用钥匙在哪", snapshot, stable, 600)] == [e[ID] for e in chosen]
            assert not alone.used_dense


@pytest.mark.parametrize(("message", "too_long"), [
    ("This model's maximum context length is 4096 tokens, your request has 9100.", True),  # OpenAI, DeepSeek
    ("<400> InternalError.Algo.InvalidParameter: Range of input length should be [1, 30720]", True),  # DashScope
    ("input length exceeds the context length", True),  # Ollama
    ("请求内容过长，超过了模型的最大长度", True),
    ("Invalid API key", False),
    ("model not found", False),
])
def test_a_refusal_is_read_as_too_long_in_each_providers_words(message, too_long):
    from sonetto_desktop.memory.retrieval.budget import says_too_long

    assert says_too_long(400, message) is too_long
