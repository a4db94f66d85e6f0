"""The shortlist's fusion of the words' ranking with an embeddings model's (shortlist.py) and the
bar a model must clear to take part (agreement.py), on a real store and the real offline retriever,
with scripted vectors."""

from __future__ import annotations

import contextlib
from datetime import datetime

import numpy as np
import pytest

from helpers import stamper
from sonetto_desktop.memory.item import MemoryItem
from sonetto_desktop.memory.retrieval import mechanical as mechanical_module
from sonetto_desktop.memory.retrieval.agreement import AGREEMENT_MIN, ModelAgreement
from sonetto_desktop.memory.retrieval.listing import ID, RecallListing
from sonetto_desktop.memory.retrieval.mechanical import MechanicalRetriever
from sonetto_desktop.memory.retrieval.modes import RetrievalMode
from sonetto_desktop.memory.retrieval.recall import MemoryRecall
from sonetto_desktop.memory.retrieval.shortlist import CONTEXT_SHARE, STRONG_MATCH, Shortlist, interleave, joined
from sonetto_desktop.memory.stores.sqlite import SqliteMemoryManager

NOW = datetime(2026, 12, 2, 9, 30)
PLACES = ["门口的绿萝花盆", "鞋柜最上层", "电表箱", "邻居王阿姨家", "车里的储物格", "办公室抽屉", "书架第三层", "信箱",
          "门垫下面", "阳台花架"]
KEYS = [f"k{i:02d}" for i in range(40)]  # the gold: every memory about the spare keys
OTHERS = [f"m{i:04d}" for i in range(300)]


stamp = stamper(NOW)


def keys_store(path):
    """300 everyday memories and 40 about where the spare keys are (older than the others)."""
    mm = SqliteMemoryManager(path)
    items = {mid: MemoryItem(f"第{i}条：小林记下了一件关于第{i % 17}个朋友的小事。", "瞬间",
                             latest_update_time=stamp(200 - i * 0.1)) for i, mid in enumerate(OTHERS)}
    items.update({mid: MemoryItem(f"小林把第{i}把备用钥匙放在{PLACES[i % 10]}。", "地点与路径",
                                  latest_update_time=stamp(300 - i)) for i, mid in enumerate(KEYS)})
    mm.import_items(items)
    return mm


@pytest.fixture
def bank(tmp_path):
    """The keys store; the newest 50 are the stable block."""
    mm = keys_store(tmp_path / "m.db")
    mechanical = MechanicalRetriever(mm, now=lambda: NOW, index_path=False)
    listing = RecallListing(mm)
    try:
        snapshot = listing.snapshot()
        yield mechanical, snapshot, {e[ID] for e in snapshot.order[-50:]}
    finally:
        listing.close()
        mechanical.close()
        mm.close()


class Vectors:
    """A scripted embeddings model: its nearest memories are ``ids`` whatever the query."""

    def __init__(self, ids, name="scripted"):
        self.ids, self.model_key = list(ids), name

    def embed_query(self, prompt):
        return prompt

    def nearest(self, vector, k):
        return self.ids[:k]


def shown(shortlist, snapshot, stable, prompt, tokens):
    return {e[ID] for e in shortlist.fill(prompt, snapshot, stable, tokens)}


@pytest.mark.parametrize("prompt", ["备用钥匙放在哪了", "我的钥匙呢", "第7把备用钥匙在哪"])
@pytest.mark.parametrize("tokens", [700, 1000, 1400, 2400])
def test_vectors_that_disagree_never_cost_what_the_words_found(bank, prompt, tokens):
    mechanical, snapshot, stable = bank
    words = shown(Shortlist(mechanical), snapshot, stable, prompt, tokens)
    assert 10 <= len(words & set(KEYS))  # the budget holds some of the keys' memories (all of them at 2,400)
    # the model agrees on the words' surest memory (so it takes part) and disagrees on everything else
    surest = mechanical.scored(prompt, 1)[0][0]["id"]
    vectors = Vectors([surest] + [mid for mid in OTHERS if mid not in stable])  # the oldest first: not recency either
    fused = Shortlist(mechanical, vectors)
    got = shown(fused, snapshot, stable, prompt, tokens)
    assert fused.used_dense
    assert words & set(KEYS) <= got  # every gold memory the words reached is still there
    if len(words & set(KEYS)) == len(KEYS):  # room beyond the words' matches: the vectors' take the filler's places
        assert got - words and not (got - words) & set(KEYS)


def test_a_model_that_disagrees_with_the_words_is_left_out_and_costs_nothing(bank, tmp_path):
    mechanical, snapshot, stable = bank
    agreement = ModelAgreement(tmp_path / "recall-models.json")
    weak = Vectors([mid for mid in OTHERS if mid not in stable], "weak")
    prompts = ["备用钥匙放在哪了", "备用钥匙放在绿萝花盆了吗", "小林的备用钥匙在电表箱吗", "第3把备用钥匙放在哪了"]
    words = {p: shown(Shortlist(mechanical), snapshot, stable, p, 1000) for p in prompts}
    seen = []
    for prompt in prompts:  # the words are sure of a key memory each time; the model's nearest never hold it
        shortlist = Shortlist(mechanical, weak, agreement)
        seen.append((shown(shortlist, snapshot, stable, prompt, 1000), shortlist.used_dense, shortlist.left_out))
    assert agreement.counted("weak") == len(prompts) and agreement.rate("weak") < AGREEMENT_MIN
    assert seen[0][1]  # a new model takes part at first
    for (got, used, left_out), prompt in list(zip(seen, prompts, strict=True))[2:]:  # two disagreements later it is left out
        assert left_out and not used
        assert got == words[prompt]  # exactly what the words alone show
    agreement.save()

    again = ModelAgreement(tmp_path / "recall-models.json")  # the count outlives the app
    assert not again.trusted("weak") and again.counted("weak") == len(prompts)
    good = Vectors([], "good")
    good.nearest = lambda prompt, k: [doc["id"] for doc, _ in mechanical.scored(prompt, 3)] + OTHERS[:k]
    for prompt in prompts:
        shortlist = Shortlist(mechanical, good, again)
        shown(shortlist, snapshot, stable, prompt, 1000)
        assert shortlist.used_dense and not shortlist.left_out
    assert again.rate("good") > AGREEMENT_MIN


def test_memories_without_a_vector_yet_do_not_count_against_the_model(bank, tmp_path):
    """Before: while a model's vectors were still being computed (a first build, a history import),
    the words' surest memory, which had no vector yet, "was not among the model's nearest ten" and
    counted as a disagreement: a good model (real e5) was left out, and stayed out after its vectors
    were done. Now a message whose surest memory the model has no vector of counts nothing."""
    mechanical, snapshot, stable = bank
    agreement = ModelAgreement(tmp_path / "recall-models.json")
    building = Vectors([mid for mid in OTHERS if mid not in stable], "building")  # the keys' vectors: not yet
    building.has_vector = lambda mid: mid not in KEYS
    prompts = ["备用钥匙放在哪了", "备用钥匙放在绿萝花盆了吗", "小林的备用钥匙在电表箱吗", "第3把备用钥匙放在哪了"]
    for prompt in prompts:
        assert mechanical.scored(prompt, 1)[0][0]["id"] in KEYS
        shortlist = Shortlist(mechanical, building, agreement)
        shown(shortlist, snapshot, stable, prompt, 1000)
        assert shortlist.used_dense and not shortlist.left_out
    assert agreement.counted("building") == 0 and agreement.trusted("building")
    done = Vectors([], "building")  # its vectors done: it agrees, and nothing earlier holds it back
    done.nearest = lambda prompt, k: [doc["id"] for doc, _ in mechanical.scored(prompt, 3)] + OTHERS[:k]
    done.has_vector = lambda mid: True
    for prompt in prompts:
        shortlist = Shortlist(mechanical, done, agreement)
        shown(shortlist, snapshot, stable, prompt, 1000)
        assert shortlist.used_dense
    assert agreement.counted("building") == len(prompts) and agreement.rate("building") > AGREEMENT_MIN


def test_a_broad_question_is_answered_by_the_words_ranking_alone(bank):
    mechanical, snapshot, stable = bank
    vectors = Vectors(KEYS)
    shortlist = Shortlist(mechanical, vectors)
    assert shown(shortlist, snapshot, stable, "最近过得怎么样", 800) == shown(
        Shortlist(mechanical), snapshot, stable, "最近过得怎么样", 800)
    assert not shortlist.used_dense


def test_interleaving_gives_each_ranking_its_share_and_each_memory_once():
    assert interleave(["a", "b", "c"], ["x", "b", "y"]) == ["a", "x", "b", "y", "c"]
    assert interleave(["a", "b", "c", "d"], ["x"], 0.5) == ["a", "x", "b", "c", "d"]
    assert interleave([], ["x", "y"]) == ["x", "y"]


def test_unreadable_agreement_counts_start_anew(tmp_path):
    path = tmp_path / "recall-models.json"
    path.write_text("{not json", encoding="utf-8")
    agreement = ModelAgreement(path)
    assert agreement.counted("e5") == 0 and agreement.trusted("e5")
    for _ in range(6):
        agreement.record("e5", True)
    with contextlib.suppress(Exception):
        agreement.save()
    assert ModelAgreement(path).counted("e5") == 6


class TwoQueries:
    """A scripted model asked for a message and the conversation's lines before it in one request: the
    message's nearest are ``own``, those of the second query (leaning on the lines before) ``theirs``."""

    model_key = "scripted-two"

    def __init__(self, own, theirs):
        self.own, self.theirs, self.asked = list(own), list(theirs), []

    def embed_query(self, prompt):
        self.asked.append([prompt])
        return np.array([1.0, 0.0], np.float32)

    def embed_queries(self, texts):
        self.asked.append(list(texts))
        return [np.array([1.0, 0.0], np.float32), np.array([0.0, 1.0], np.float32)]

    def nearest(self, vector, k):
        return (self.own if vector[0] > vector[1] else self.theirs)[:k]


def test_in_a_conversation_the_context_takes_one_of_four_of_the_vectors_places(bank):
    """A follow-up ("那它现在放哪了") with the lines before it: the vectors' places alternate the message's
    nearest with the context's, three to one, in one request; a first message asks for itself alone."""
    mechanical, snapshot, stable = bank
    follow_up, before = "那它现在放哪了", "我的备用钥匙找不到了\n别急，想想最后一次用它是什么时候"
    words = set(Shortlist(mechanical).ranking(follow_up, 200))  # what the words bring anyway
    unmatched = [mid for mid in reversed(OTHERS) if mid not in stable and mid not in words]
    own, theirs = unmatched[:80], unmatched[80:110]
    model = TwoQueries(own, theirs)
    ranked = Shortlist(mechanical, model, context=before).ranking(follow_up, 60)
    assert model.asked == [[follow_up, before]]
    vectors = [mid for mid in ranked if mid in set(own) | set(theirs)]
    assert vectors[:20] == interleave(own, theirs, 1 - CONTEXT_SHARE)[:20]
    assert sum(mid in set(theirs) for mid in vectors[:20]) == 5
    alone = TwoQueries(own, theirs)
    ranked = Shortlist(mechanical, alone).ranking(follow_up, 60)
    assert alone.asked == [[follow_up]] and not set(ranked) & set(theirs)


FOLLOW_UP = "后来找到了吗"  # names nothing of what it is about
BEFORE = "我的备用钥匙找不到了\n别急，想想最后一次用它是什么时候"


def test_in_a_conversation_the_words_give_one_place_in_four_to_the_message_after_its_context(bank):
    """Words only (no embeddings model): a follow-up's ranking keeps the message's own three places of
    four, in their order, and gives the fourth to the memories the conversation was about."""
    mechanical, snapshot, stable = bank
    alone = Shortlist(mechanical).ranking(FOLLOW_UP, 40)
    assert not set(alone) & set(KEYS)  # the message alone: other matches, then the newest memories
    ranked = Shortlist(mechanical, context=BEFORE).ranking(FOLLOW_UP, 40)
    keys = [place for place, mid in enumerate(ranked) if mid in KEYS]
    assert keys == [3, 7, 11, 15, 19, 23, 27, 31, 35, 39]
    assert [mid for mid in ranked if mid not in KEYS] == alone[:30]
    assert set(Shortlist(mechanical, context=BEFORE).ranking("我的钥匙呢", 40)) >= set(Shortlist(mechanical).ranking("我的钥匙呢", 40)[:30])


def test_a_long_follow_up_shares_the_words_places_with_the_message_after_its_context(bank):
    """A long, chatty follow-up (words and vectors by each one's best rank): the words' matches include
    those of the message after its context, so a model that knows nothing of the keys cannot keep
    them out."""
    mechanical, snapshot, stable = bank
    long_follow_up = "后来我又翻了一整个下午，每个角落都看过了，还是没有，真是让人着急啊，明天还要早起呢"
    vectors = Vectors([mid for mid in reversed(OTHERS)])
    alone = Shortlist(mechanical, vectors).ranking(long_follow_up, 60)
    ranked = Shortlist(mechanical, Vectors([mid for mid in reversed(OTHERS)]), context=BEFORE).ranking(long_follow_up, 60)
    assert len(set(ranked[:60]) & set(KEYS)) >= len(set(alone[:60]) & set(KEYS)) + 5


def test_the_offline_answer_to_a_follow_up_reads_the_conversation_but_a_task_does_not(bank):
    """MECHANICAL recall: the memories the conversation was about take one place in four of the answer
    (all it leaves); a self-contained task after the same lines asks for none of them."""
    mechanical, snapshot, stable = bank
    assert not {d["id"] for d in mechanical.retrieve(FOLLOW_UP)} & set(KEYS)
    answer = [d["id"] for d in mechanical.retrieve(FOLLOW_UP, context=BEFORE)]
    assert len(answer) == mechanical.top_k and len(set(answer) & set(KEYS)) >= 2
    own = [d["id"] for d in mechanical.retrieve("第7把备用钥匙放在哪里")]
    with_lines = [d["id"] for d in mechanical.retrieve("第7把备用钥匙放在哪里", context="今天好累\n早点休息吧")]
    assert with_lines[:3] == own[:3]
    task = "帮我把这句话翻译成英文：后来找到了吗"
    assert [d["id"] for d in mechanical.retrieve(task, context=BEFORE)] == [d["id"] for d in mechanical.retrieve(task)]


@pytest.mark.parametrize("mode", [RetrievalMode.MECHANICAL, RetrievalMode.LLM])
def test_offline_recall_in_a_conversation_is_given_the_lines_before_the_message(tmp_path, mode):
    """MemoryRecall hands the conversation to the offline answer: chosen (MECHANICAL) or as the fallback
    of an LLM recall that cannot run (no chat model)."""
    mm = keys_store(tmp_path / "m.db")
    recall = MemoryRecall(mm, None, clock=lambda: NOW)
    try:
        assert not {m["id"] for m in recall.retrieve(FOLLOW_UP, mode)} & set(KEYS)
        assert len({m["id"] for m in recall.retrieve(FOLLOW_UP, mode, context=BEFORE)} & set(KEYS)) >= 2
    finally:
        recall.close()
        mm.close()


def test_with_vectors_a_follow_up_gives_the_conversation_its_place_beside_the_words_sure_matches(bank):
    """A short follow-up with vectors: the sure word matches of the message after its context stand one
    in four beside the message's own (as many as they allow: it keeps its order and its places), and
    after them the conversation's memories keep one place in four of what the words and the vectors
    share (before, the vectors' half of the places halved it: 1 in 8, and none beside the sure matches)."""
    mechanical, snapshot, stable = bank
    vectors = Vectors([mid for mid in reversed(OTHERS)])
    message = "第5条后来怎样了"  # sure matches of its own: the fifth of everything (one of them a key)
    own = [doc["id"] for doc, score in mechanical.scored(message, 60) if score >= STRONG_MATCH]
    assert len(own) >= 12
    ranked = Shortlist(mechanical, vectors, context=BEFORE).ranking(message, 80)
    head = ranked[:len(own) + -(-len(own) // 3)]
    beside = [place for place, mid in enumerate(head) if mid not in own]
    assert beside == [3, 7, 11, 15, 19, 23, 25][:len(head) - len(own)] and all(head[p] in KEYS for p in beside)
    assert [mid for mid in head if mid in own] == own
    alone = Shortlist(mechanical, Vectors([mid for mid in reversed(OTHERS)])).ranking(message, 80)
    assert alone[:len(own)] == own and set(alone[:40]) & set(KEYS) <= set(own)

    names_nothing = Shortlist(mechanical, Vectors([mid for mid in reversed(OTHERS)]), context=BEFORE).ranking(FOLLOW_UP, 40)
    assert [place for place, mid in enumerate(names_nothing[:40]) if mid in KEYS] == list(range(3, 40, 4))


def test_a_long_follow_up_gives_the_conversation_a_ranking_of_its_own(bank):
    """A long follow-up: the message's matches, those of the message after its context and the vectors'
    are three rankings, each one's first n among the first 3n."""
    mechanical, snapshot, stable = bank
    long_follow_up = "第5条后来我又翻了一整个下午，每个角落都看过了，还是没有，真是让人着急啊，明天还要早起呢"
    ranked = Shortlist(mechanical, Vectors([mid for mid in reversed(OTHERS)]), context=BEFORE).ranking(long_follow_up, 60)
    context_first = [doc["id"] for doc, _ in mechanical.scored(joined(BEFORE, long_follow_up), 60)][:10]
    assert set(context_first) <= set(KEYS) and set(context_first) <= set(ranked[:30])


LONG_FOLLOW_UP = "后来我又翻了一整个下午，每个角落都看过了，还是没有，真是让人着急啊，明天还要早起呢"


def count_analyses(monkeypatch) -> dict[str, int]:
    """How often the offline retriever analysed each text (the real analysis runs)."""
    counts: dict[str, int] = {}
    real = mechanical_module.analyze

    def counting(prompt, *args, **kwargs):
        counts[prompt] = counts.get(prompt, 0) + 1
        return real(prompt, *args, **kwargs)

    monkeypatch.setattr(mechanical_module, "analyze", counting)
    return counts


async def test_a_long_follow_ups_texts_are_analysed_once_per_recall(tmp_path, llm_server, make_llm, monkeypatch):
    """A long follow-up in a HYBRID recall beyond the budget whose model fails: the words' ranking (its own
    matches, its fill, the shortlist's parts and depths) and the offline answer each analysed the message
    and the message after its context again (three times each here). Each is analysed once per recall now."""
    mm = keys_store(tmp_path / "m.db")
    mechanical = MechanicalRetriever(mm, now=lambda: NOW, index_path=False)
    recall = MemoryRecall(mm, make_llm(), budget=1500, mechanical=mechanical, clock=lambda: NOW,
                          dense=Vectors([mid for mid in reversed(OTHERS)], KEYS))
    try:
        mechanical.scored("钥匙")  # the index is built (analyses before the recall are not counted)
        counts = count_analyses(monkeypatch)
        llm_server.add_error(500, "upstream exploded")
        found = await recall.aretrieve(LONG_FOLLOW_UP, RetrievalMode.HYBRID, context=BEFORE)
        assert recall.last_fallback_reason and found and recall.last_listing.dense
        assert counts == {LONG_FOLLOW_UP: 1, joined(BEFORE, LONG_FOLLOW_UP): 1}
    finally:
        recall.close()
        mechanical.close()
        mm.close()


@pytest.mark.parametrize("message", [LONG_FOLLOW_UP, FOLLOW_UP, "我的钥匙呢", "第7把备用钥匙放在哪里", "最近怎么样"])
def test_an_analysis_used_again_ranks_as_a_fresh_one(bank, message, monkeypatch):
    """The same rankings and offline answers with the analyses kept as with each one made afresh."""
    mechanical, snapshot, stable = bank

    def answers() -> tuple[list[str], list[str], list[str]]:
        vectors = Vectors([mid for mid in reversed(OTHERS)], KEYS)
        shortlist = Shortlist(mechanical, vectors, context=BEFORE)
        return (shortlist.ranking(message, 60), shortlist.ranking(message, 120),
                [d["id"] for d in mechanical.retrieve(message, context=BEFORE)])

    kept = answers()
    monkeypatch.setattr(mechanical_module, "ANALYSES_KEPT", 0)
    counts = count_analyses(monkeypatch)
    assert answers() == kept and counts[message] > 1  # (each made afresh)
