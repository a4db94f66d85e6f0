"""Building the recall index fast (issue 29 item 2) without changing what it holds: the one-lookup cut
is jieba's cut, document keys are the keys of document terms, bulk staging scores like one-by-one
adds, and the compact table's exact keys never collide."""

from __future__ import annotations

import random
from collections import Counter
from datetime import datetime
from pathlib import Path

import jieba
import numpy as np
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from sonetto_desktop.memory import MemoryItem, SqliteMemoryManager
from sonetto_desktop.memory.retrieval import tokenize as tok
from sonetto_desktop.memory.retrieval.compact_dict import stable_hash
from sonetto_desktop.memory.retrieval.mechanical import MechanicalRetriever
from sonetto_desktop.memory.retrieval.postings import Postings, hash_term, key_counts, term_key

FIXTURES = Path(__file__).with_name("fixtures")
POOL = ("的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产种面而方后"
        "多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开南京市"
        "长江大桥研究生命起源结婚尚未猫咪吉他钢琴咖啡瑞幸哔哩上海杭州，。！？、 \n\tabcXYZ09.-+#_%&😀")


@pytest.fixture(scope="module")
def jieba_compact():
    tok.warm_up()
    return tok._get_jieba()


def sample_texts() -> list[str]:
    seed = yaml.safe_load((FIXTURES / "seed_memory.yaml").read_text(encoding="utf-8"))
    texts = [str(item["description"]) for item in (seed.values() if isinstance(seed, dict) else seed)]
    rng = random.Random(29)
    texts += ["".join(rng.choice(POOL) for _ in range(rng.randint(0, 60))) for _ in range(500)]
    return texts + ["南京市长江大桥", "研究生命起源", "Python 3.11 和 PySide6 很好用", "他说的确实在理\r\n  x", "", "！！"]


def test_the_one_lookup_cut_is_jiebas_search_cut(jieba_compact):
    cutter = tok._cutter()
    for text in sample_texts():
        assert cutter.cut_for_search(text) == jieba_compact.lcut_for_search(text, HMM=False), text
        assert list(cutter.cut(text)) == jieba_compact.lcut(text, HMM=False), text


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(POOL), max_size=50))
def test_the_one_lookup_cut_is_jiebas_on_any_text(text):
    tok.warm_up()
    assert tok._cutter().cut_for_search(text) == tok._get_jieba().lcut_for_search(text, HMM=False)


def test_the_cut_is_jiebas_with_jiebas_own_table():
    full = jieba.Tokenizer()
    jieba.setLogLevel(60)
    full.initialize()
    cutter = tok._cutter()
    for text in sample_texts()[:200]:
        assert cutter.cut_for_search(text) == full.lcut_for_search(text, HMM=False), text


def pinned_sample() -> tuple[list[str], list[list[str]]]:
    pinned = yaml.safe_load((FIXTURES / "cut_pinned.yaml").read_text(encoding="utf-8"))
    return [str(p["text"]) for p in pinned], [[str(t) for t in p["tokens"]] for p in pinned]


def test_both_cuts_keep_the_pinned_tokens_of_a_varied_sample(jieba_compact):
    """Chinese, English, mixed, digits, emoji, Cantonese, typos, traditional characters, whitespace, a
    long unpunctuated run: the bulk build's cut gives what the one-by-one cut gave before it existed."""
    texts, pinned = pinned_sample()
    cutter = tok._cutter()
    assert [cutter.cut_for_search(text) for text in texts] == pinned
    assert [jieba_compact.lcut_for_search(text, HMM=False) for text in texts] == pinned
    cutter.clear()
    assert cutter.cut_for_search_many(texts) == pinned
    assert cutter.cut_for_search_many(texts[::-1] * 2) == pinned[::-1] * 2  # runs recurring across texts
    assert cutter.cut_for_search_many(texts[:3]) == pinned[:3]  # a handful of runs: cut one by one
    _, runs = cutter.plan_many(texts)
    split = cutter.cut_runs(runs)
    assert len(split.together) == 1 and split.alone  # both ways were taken: numpy, and the long run alone
    assert max(map(len, runs)) > max(len(runs[i]) for i in split.together[0][1].tolist())


def test_a_bulk_cut_of_many_characters_is_weighed_in_parts(jieba_compact, monkeypatch):
    from sonetto_desktop.memory.retrieval import cut

    monkeypatch.setattr(cut, "PART_CHARS", 40)
    texts, pinned = pinned_sample()
    cutter = tok._cutter()
    assert len(cutter.cut_runs(cutter.plan_many(texts)[1]).together) > 3
    assert cutter.cut_for_search_many(texts) == pinned
    tok.release_memos()
    assert [Counter(k.tolist()) for k in tok.batch_keys(texts)] == [Counter(tok.batch_keys([t])[0].tolist()) for t in texts]


def test_bulk_keys_are_the_keys_of_each_memory_alone(jieba_compact):
    texts, _ = pinned_sample()
    texts = texts + sample_texts()
    assert len(texts) >= tok.MANY_TEXTS
    tok.release_memos()
    bulk = tok.batch_keys(texts)
    tok.release_memos()
    for text, keys in zip(texts, bulk, strict=True):
        assert Counter(keys.tolist()) == Counter(term_key(t) for t in tok.document_terms(text)), text


def test_a_tie_between_two_routes_goes_to_the_longer_first_word_in_both_cuts():
    """甲乙|丙 and 甲|乙丙 weigh exactly the same (4 * 2 both ways): jieba keeps the route whose first
    word ends later (max over (score, end) pairs)."""
    from sonetto_desktop.memory.retrieval.compact_dict import build
    from sonetto_desktop.memory.retrieval.cut import SearchCut

    table = build(line.encode() for line in ["甲乙 4", "乙丙 4", "甲 2", "乙 2", "丙 2", "丁 3"])
    cutter = SearchCut(table)
    texts = ["甲乙丙"] + ["丁" * n for n in range(1, 16)]
    assert cutter.cut_for_search("甲乙丙") == ["甲乙", "丙"]
    assert cutter.cut_for_search_many(texts) == [cutter.cut_for_search(text) for text in texts]
    assert cutter.cut_for_search_many(texts)[0] == ["甲乙", "丙"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from(POOL + "听听看看哈哈"), max_size=40), min_size=32, max_size=48))
def test_the_bulk_cut_is_the_one_by_one_cut_on_any_texts(texts):
    tok.warm_up()
    cutter = tok._cutter()
    assert cutter.cut_for_search_many(texts) == [cutter.cut_for_search(text) for text in texts]
    bulk = tok.batch_keys(texts)
    for text, keys in zip(texts, bulk, strict=True):
        assert Counter(keys.tolist()) == Counter(tok.batch_keys([text])[0].tolist()), text


def test_document_keys_are_the_keys_of_document_terms():
    tok.warm_up()
    for text in sample_texts():
        assert Counter(tok.document_keys(text)) == Counter(term_key(t) for t in tok.document_terms(text)), text
    tok.release_memos()
    text = "小林周末在画室兼职教小朋友画画，听听歌。"
    assert Counter(tok.document_keys(text)) == Counter(term_key(t) for t in tok.document_terms(text))


def test_short_terms_get_exact_keys_that_never_collide():
    terms = {f"{kind}{a}{b}" for kind in ("w:", "b:") for a in "猫狗吉他钢琴" for b in "猫狗吉他钢琴"}
    terms |= {f"{kind}{a}" for kind in ("w:", "c:") for a in "猫狗吉他钢琴的"} | {"w:吉他手", "w:abc", "w:ab"}
    keys = {hash_term(t) for t in terms}
    assert len(keys) == len(terms)
    assert hash_term("w:吉他") != hash_term("b:吉他") != hash_term("c:吉")
    assert hash_term("w:中华人民共和国") == hash_term("w:中华人民共和国") != hash_term("w:中华人民")  # hashed
    words = ["猫", "吉他", "吉他手", "a", "ab", "abc", "abcd", "中华人民共和国", "𠀀𠀁"]
    assert len({stable_hash(w) for w in words}) == len(words) and all(stable_hash(w) for w in words)


def test_staged_documents_score_like_documents_added_one_by_one():
    rng = random.Random(5)
    vocab = [f"w:{a}{b}" for a in "春夏秋冬东西南北" for b in "风花雪月山水"]
    docs = [[rng.choice(vocab) for _ in range(rng.randint(0, 30))] for _ in range(300)]
    one, bulk = Postings(), Postings()
    for i, terms in enumerate(docs):
        keys = [term_key(t) for t in terms]
        one.add(*key_counts(keys))
        bulk.stage(keys)
        if i == 120:
            bulk.flush()  # a flush into a base that already holds documents
    one.remove(7)
    bulk.remove(7)  # removed while still staged
    bulk.flush()
    assert one.total_length == bulk.total_length and one.n_live == bulk.n_live
    query = {term_key(t): 1.0 for t in vocab[:20]}
    one.compact()
    bulk.compact()  # a dead base document counts in document frequencies until then
    assert np.allclose(one.score(query), bulk.score(query)) and bulk.score(query).any()
    assert np.array_equal(one.lengths, bulk.lengths)


def test_a_bank_built_in_bulk_answers_like_one_built_memory_by_memory(tmp_path):
    now = datetime(2026, 12, 2, 12, 0)
    mm = SqliteMemoryManager(tmp_path / "m.sqlite3")
    texts = sample_texts()[:120]
    mm.import_items({f"m{i}": MemoryItem(t or "空", "身份", latest_update_time="2026-11-01T10:00:00")
                     for i, t in enumerate(texts)})
    bulk = MechanicalRetriever(mm, now=lambda: now, index_path=False)
    bulk.warm_up()
    empty = SqliteMemoryManager(tmp_path / "n.sqlite3")
    single = MechanicalRetriever(empty, now=lambda: now, index_path=False)
    single.warm_up()
    for i, t in enumerate(texts):
        empty.import_items({f"m{i}": MemoryItem(t or "空", "身份", latest_update_time="2026-11-01T10:00:00")})
    for query in ("画室", "吉他钢琴", "南京长江大桥", "Python", "咖啡瑞幸"):
        assert [(d["id"], s) for d, s in bulk.scored(query)] == [(d["id"], s) for d, s in single.scored(query)]
    bulk.close()
    single.close()
    mm.close()
    empty.close()


def test_a_batch_is_keyed_as_each_of_its_texts_alone():
    tok.warm_up()
    texts = sample_texts()[:300] + ["𠀀𠀁猫咪𠀂", "a\nb", "猫\n狗", "", "咖啡" * 40]
    for start in range(0, len(texts), 64):
        batch = texts[start : start + 64]
        for text, keys in zip(batch, tok.batch_keys(batch), strict=True):
            assert keys.dtype == np.uint64
            assert Counter(keys.tolist()) == Counter(term_key(t) for t in tok.document_terms(text)), text
    assert tok.batch_keys([]) == []


@pytest.mark.parametrize("chunk", [1, 3, 1 << 15])
def test_a_flush_merged_a_few_terms_at_a_time_scores_like_one_by_one(monkeypatch, chunk):
    from sonetto_desktop.memory.retrieval import postings

    monkeypatch.setattr(postings, "MERGE_CHUNK", chunk)
    rng = random.Random(chunk)
    vocab = [f"w:{a}{b}" for a in "春夏秋冬东西南北" for b in "风花雪月山水"]
    one, bulk = Postings(), Postings()
    for i in range(400):
        keys = [term_key(rng.choice(vocab)) for _ in range(rng.randint(0, 25))]
        one.add(*key_counts(keys))
        bulk.stage(np.array(keys, dtype=np.uint64))
        if i % 37 == 0:
            bulk.flush()  # many merges into a base that grows
    bulk.flush()
    assert np.all(bulk.keys[1:] > bulk.keys[:-1]) and bulk.starts[-1] == len(bulk.slots)
    for k in range(len(bulk.keys)):  # each term's postings in slot order
        run = bulk.slots[bulk.starts[k] : bulk.starts[k + 1]]
        assert np.all(run[1:] > run[:-1])
    query = {term_key(t): 1.0 for t in vocab[:25]}
    one.compact()
    assert np.allclose(one.score(query), bulk.score(query)) and bulk.score(query).any()
    mapping = bulk.compact()  # nothing to fold or drop after a bulk build: slots unchanged
    assert np.array_equal(mapping, np.arange(400)) and np.allclose(one.score(query), bulk.score(query))
