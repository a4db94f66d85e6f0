"""The best memories without scoring them all (issue 37, twelfth pass): the writer's duplicate search
(``lookalikes``) leaves out the memories whose words cannot lift them among the best (MaxScore's
bounds per term), and the related query adds the theme lifts and the use prior to the matched
memories only. Either way the same memories come out in the same order with the same scores, to the
last bit, as a full scoring gives.

Real SQLite stores filled with ``bench.recall.synthetic_bank``'s memories, the real MechanicalRetriever."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import datetime

import numpy as np
import pytest

from sonetto_desktop.memory.retrieval import postings as postings_module
from sonetto_desktop.memory.retrieval import scoring as sc
from sonetto_desktop.memory.retrieval import tokenize as tok
from sonetto_desktop.memory.retrieval.postings import Postings, term_key

NOW = datetime(2026, 12, 6, 20, 0)


def _retriever(tmp_path, bank):
    from bench.recall import fill_store, open_store

    from sonetto_desktop.memory.retrieval.mechanical import MechanicalRetriever

    store = open_store("sqlite", tmp_path)
    fill_store(store, bank)
    mech = MechanicalRetriever(store, now=lambda: NOW, index_path=False)
    mech.warm_up()
    return store, mech


def _full(postings: Postings, docs, weighted: dict[int, float], k: int) -> list[tuple[int, float]]:
    """The ranking of a full scoring: every memory scored, the best ``k`` (ties: the most recently
    updated, then the last slot)."""
    scores = postings.score(weighted)
    return [(slot, float(scores[slot])) for slot in sc.top(scores, docs, k)]


@pytest.mark.parametrize("size, pruned_from", [(150, 0), (700, 0), (2600, 0), (2600, None)])
def test_the_best_memories_are_those_a_full_scoring_ranks_first(tmp_path, monkeypatch, size, pruned_from):
    """Random queries made of stored memories' words (some weighted alike, so sums tie), memories said
    twice in two sections at the same time (the same score: the order is the slots'), memories
    written after the index was built (the delta) and deleted ones (dead slots above 2,000): the
    pruned ranking is the full one, its scores the full scoring's floats, for k from 1 to 40. With
    the default ``BEST_FROM`` a store this small leaves nothing out, but the few memories holding
    a query's rare words are scored one by one."""
    from bench.recall import synthetic_bank

    if pruned_from is not None:
        monkeypatch.setattr(postings_module, "BEST_FROM", pruned_from)  # prune on a small store too
    bank = synthetic_bank(size)
    twins = [replace(m, id=f"twin{n}", theme=m.theme + "·二") for n, m in enumerate(bank[::7])]
    store, mech = _retriever(tmp_path, bank + twins)
    try:
        rng = random.Random(size)
        texts = [m.description for m in bank]
        for mid in rng.sample(sorted(store.all_items()), 5):
            store.delete(mid, "测试")
        mech.retrieve("同步")  # the index follows the store (under 2,000 memories: compacted at once)
        for n in range(12):
            added = store.add(rng.choice(texts)[:-2] + f"，第{n}次", "瞬间")  # in the delta
            if n % 3 == 0 and size > 2000:
                store.delete(added, "测试")
        mech.retrieve("同步")
        postings, docs = mech._postings, mech._docs
        assert postings.delta
        if size > 2000:
            assert postings.n_live < postings.n_slots
        cases = pruned = ties = 0
        for _ in range(120):
            words = [t for text in rng.sample(texts, rng.randint(1, 3)) for t in tok.surface_terms(text)]
            chosen = rng.sample(words, rng.randint(1, len(words)))
            weighted = {term_key(t): rng.choice([1.0, 1.0, 1.0, 0.5, 0.37, 2.0]) for t in chosen}
            for k in (1, 2, 5, 12, 40):
                full = _full(postings, docs, weighted, k)
                best = postings.best(weighted, k)
                cases += 1
                if best is None:
                    continue
                slots, values = best
                dense = postings.score(weighted)
                assert np.array_equal(values, dense[slots])  # the same floats
                assert sc.top_among(slots, values, docs, k) == full
                positive = int(np.count_nonzero(dense > 0))
                pruned += len(slots) < positive if pruned_from is not None else 1
                ranked = np.sort(dense[dense > 0])[::-1]
                ties += len(ranked) > k and ranked[k - 1] == ranked[k]
        if pruned_from is None:
            assert cases // 10 < pruned < cases  # only the queries of rare words, nothing left out
        else:
            assert pruned > cases // 3 and ties > 0
        for text in texts[:40]:  # the duplicate search itself
            weighted = {term_key(t): 1.0 for t in tok.surface_terms(text)}
            want = [docs.ids[slot] for slot, _ in _full(postings, docs, weighted, 5)]
            assert [doc["id"] for doc in mech.lookalikes(text, 5)] == want
    finally:
        mech.close()
        store.close()


def test_the_duplicate_search_scores_only_the_memories_that_can_be_among_the_best(tmp_path, monkeypatch):
    """A memory's look-alikes on a store where its common words are in hundreds of memories: they
    are found without a full scoring of every memory holding one of its words (the same five)."""
    from bench.recall import synthetic_bank

    from sonetto_desktop.memory.writer.dupes import probe_text

    monkeypatch.setattr(postings_module, "BEST_FROM", 0, raising=False)  # prune on a store this small
    bank = synthetic_bank(2100)
    store, mech = _retriever(tmp_path, bank)
    try:
        full_scorings: list[int] = []
        real = Postings.score
        monkeypatch.setattr(Postings, "score", lambda self, weighted: full_scorings.append(len(weighted))
                            or real(self, weighted))
        text = probe_text(bank[1234].description)
        found = [doc["id"] for doc in mech.lookalikes(text, 5)]
        assert full_scorings == []
        weighted = {term_key(t): 1.0 for t in tok.surface_terms(text)}
        want = _full(mech._postings, mech._docs, weighted, 5)
        assert found == [mech._docs.ids[slot] for slot, _ in want] and found[0] == bank[1234].id
        assert int(np.count_nonzero(real(mech._postings, weighted) > 0)) > 500  # many memories share a word
    finally:
        mech.close()
        store.close()


def _dense_score(postings, docs, lexicon, query, limit, floor):
    """``scoring.score`` as it was before: every theme's mask over the whole store, the use prior
    computed and added for every memory."""
    from sonetto_desktop.memory.retrieval.postings import term_keys

    keys = term_keys(list(query.terms))
    scores = sc.term_scores(postings, query, keys)
    extra = sc.feedback(postings, docs, query, scores, floor, set(keys))
    if extra is not None:
        scores += extra
    bonus = sc.time_bonus(docs, query.ranges)
    if bonus is not None:
        scores += bonus
    lifts = sc.theme_lifts(lexicon, query)
    if lifts:
        matched = scores > 0
        members = [(sc._theme_members(docs, theme), lift) for theme, lift in lifts]
        lifted = np.zeros(len(scores), dtype=bool)
        for mask, lift in members:
            np.add(scores, lift, out=scores, where=mask & matched & ~lifted)
            lifted |= mask
        ceiling = lifts[0][1] + sc.W.hit_prior_cap
        if limit is None or int(np.count_nonzero(scores >= ceiling)) < limit:
            for mask, lift in members:
                scores[mask & (scores <= 0)] = lift
    hits = np.maximum(docs.hit[: docs.n_slots], 0)
    np.add(scores, np.minimum(sc.W.hit_prior * np.log1p(hits), sc.W.hit_prior_cap), out=scores, where=scores > 0)
    return scores


def test_the_lifts_and_the_prior_of_the_matched_memories_are_the_dense_passes_to_the_last_bit(tmp_path):
    """The related query's theme lifts and use prior, added to the matched memories only (a lift
    looked up per section), give every memory the same float as the passes over the whole store:
    import batches (themes and dates cued), questions naming a section or cuing two themes of one
    section (the stronger lift counts), with and without a limit."""
    from bench.recall import synthetic_bank
    from bench.writer_listing import turn_texts

    from bench.recall import Memory

    bank = synthetic_bank(1500)
    # sections that are two of the themes a question points at (the stronger one's lift counts)
    both = [Memory(f"both{n}", text, section, "2026-11-0{}T10:00:00".format(n % 9 + 1), n % 3)
            for n, (text, section) in enumerate([
                ("用户最近在练吉他，每周三晚上", "音乐与健康"), ("用户去医院体检，一切正常", "音乐与健康"),
                ("用户听歌的时候会头疼", "健康·音乐"), ("用户身体不舒服时想听点歌放松", "健康·音乐"),
                ("用户练吉他练到手指疼", "健康与音乐")])]
    store, mech = _retriever(tmp_path, bank + both)
    try:
        texts = [t.strip()[:2000] for t in turn_texts(12)] + [
            "来点音乐", "最近的项目进展怎么样", "我上周去了哪里", "12月3日有什么安排", "健康方面要注意什么",
            "我最近在练吉他，还去医院体检了", "最近身体不舒服，想听点歌放松", "听歌的时候头疼",
            bank[3].description, bank[77].description[:6]]
        lifted = dated = 0
        for text in texts:
            query = mech._analyze(text, NOW)
            lifted += bool(sc.theme_lifts(mech._lexicon, query))
            dated += bool(query.ranges)
            for limit in (12, None):
                want = _dense_score(mech._postings, mech._docs, mech._lexicon, query, limit, mech.min_score)
                got = sc.score(mech._postings, mech._docs, mech._lexicon, query, limit, mech.min_score)
                assert np.array_equal(got, want), text
        assert lifted > 5 and dated > 2 and int(np.count_nonzero(mech._docs.hit > 0)) > 100
    finally:
        mech.close()
        store.close()


def test_postings_out_of_slot_order_are_put_in_order_and_the_best_still_found(monkeypatch):
    """A memory written while others were being added in bulk (the app's first build, with the writer
    at work) has a lower slot than theirs but its postings come after theirs once compacted: the
    terms' postings are put in slot order again, so the best are still found without a full scoring,
    the same as the full scoring's."""
    monkeypatch.setattr(postings_module, "BEST_FROM", 0, raising=False)  # prune on an index this small
    monkeypatch.setattr(postings_module, "CHUNK_POSTINGS", 97, raising=False)  # and read it in many pieces
    monkeypatch.setattr(postings_module, "CEILING_FROM", 40, raising=False)  # the common words' bounds kept
    rng = random.Random(3)
    common, rare = [f"w:常{n}" for n in range(6)], [f"w:词{n}" for n in range(2000)]
    postings = Postings()
    written: list[list[str]] = []

    def document() -> list[int]:
        written.append(rng.sample(common, 2) + rng.sample(rare, rng.randint(1, 4)))
        return [term_key(w) for w in written[-1]]

    for n in range(3000):
        if n % 97 == 5:  # written now, while the bulk is still staged
            keys, tfs = postings_module.key_counts(document())
            postings.add(keys, tfs)
        else:
            postings.stage(document())
    postings.compact()
    falls = np.flatnonzero(postings.slots[1:] <= postings.slots[:-1]) + 1
    assert not set(falls.tolist()) <= set(postings.starts.tolist())  # out of order within terms
    pairs = _pairs(postings)
    docs = _Docs(postings.n_slots)
    for _ in range(40):
        said = rng.choice(written) + rng.sample(rare, 2)  # a memory's words and two more
        weighted = {term_key(w): rng.choice([1.0, 1.0, 0.5, 2.0]) for w in said}
        full = postings.score(weighted)
        best = postings.best(weighted, 5)
        assert best is not None and len(best[0]) < np.count_nonzero(full > 0)
        assert sc.top_among(*best, docs, 5) == [(s, float(full[s])) for s in sc.top(full, docs, 5)]
    falls = np.flatnonzero(postings.slots[1:] <= postings.slots[:-1]) + 1
    assert set(falls.tolist()) <= set(postings.starts.tolist())
    assert _pairs(postings) == pairs  # the same postings


def _pairs(postings: Postings) -> set[tuple[int, int, int]]:
    """The base postings as (term key, slot, tf)."""
    terms = np.repeat(postings.keys, np.diff(postings.starts))
    return set(zip(terms.tolist(), postings.slots.tolist(), postings.tfs.tolist(), strict=True))


class _Docs:
    """What the ranking reads of the memories: when each was updated (all at once here: ties go to the last slot)."""

    def __init__(self, n: int) -> None:
        self.updated = np.zeros(n, dtype=np.int64)
