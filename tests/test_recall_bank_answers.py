"""The bank's answers to "does it hold term T", kept between queries (``Postings.holds``): always the
answers the index gives afresh (``contains``), after adds, removes, flushes and compactions, and the
same query analysis as an uncached one after writes and deletes in a real SQLite store."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from sonetto_desktop.memory import MemoryItem, SqliteMemoryManager
from sonetto_desktop.memory.retrieval import postings as pst
from sonetto_desktop.memory.retrieval import tokenize as tok
from sonetto_desktop.memory.retrieval.lexicon import analyze
from sonetto_desktop.memory.retrieval.mechanical import MechanicalRetriever
from sonetto_desktop.memory.retrieval.postings import Postings, key_counts, term_keys

NOW = datetime(2026, 12, 8, 12, 0)
WORDS = ["咖啡", "拿铁", "杭州", "西湖", "跑步", "马拉松", "小提琴", "钢琴", "柴犬", "猫咪", "银行", "会计",
         "火锅", "拉面", "海鲜", "过敏", "牙医", "考试", "旅行", "照片", "电影", "动画", "下雨", "雨伞",
         "coffee", "violin", "marathon", "sushi"]


def _terms(words: list[str]) -> list[str]:
    return [tok.WORD + w for w in words] + [tok.BIGRAM + w[i:i + 2] for w in words for i in range(len(w) - 1)]


def test_kept_answers_are_the_indexs_own_after_every_kind_of_change():
    rng = random.Random(19)
    vocabulary = _terms(WORDS) + _terms(["从没写过", "蛋挞工坊", "zzz"])
    pool = vocabulary[:60]
    p = Postings()
    live: list[int] = []
    truth = [False] * len(vocabulary)
    appeared = vanished = 0
    for step in range(600):
        action = rng.random()
        if action < 0.45 or not live:  # a document added now (the delta)
            live.append(p.add(*key_counts(term_keys(rng.sample(pool, rng.randint(1, 6))))))
        elif action < 0.75:  # one taken out (delta postings dropped; base ones stay until compaction)
            p.remove(live.pop(rng.randrange(len(live))))
        elif action < 0.9:  # added in bulk, searchable at the flush
            for _ in range(rng.randint(1, 4)):
                live.append(p.stage(term_keys(rng.sample(pool, rng.randint(1, 6)))))
            if rng.random() < 0.5:
                p.flush()
        else:
            mapping = p.compact()
            live = [int(mapping[s]) for s in live if mapping[s] >= 0]
        asked = rng.sample(vocabulary, len(vocabulary))  # every term, in another order each time
        now = p.contains(term_keys(vocabulary))
        assert p.holds(asked) == p.contains(term_keys(asked)), step
        appeared += sum(not a and b for a, b in zip(truth, now, strict=True))
        vanished += sum(a and not b for a, b in zip(truth, now, strict=True))
        truth = now
    assert appeared > 30 and vanished > 30  # answers kept from before a change were changed by it, both ways


def test_a_kept_answer_follows_a_document_added_and_removed():
    p = Postings()
    p.stage(term_keys(_terms(["咖啡", "杭州"])))
    p.flush()
    new = tok.WORD + "蛋挞工坊"
    assert p.holds([new, tok.WORD + "咖啡"]) == [False, True]
    slot = p.add(*key_counts(term_keys([new, tok.WORD + "咖啡"])))
    assert p.holds([new]) == [True]  # the kept False is not read again
    p.remove(slot)
    assert p.holds([new, tok.WORD + "咖啡"]) == [False, True]  # gone with its only document; the base's stays
    staged = p.stage(term_keys([new]))
    assert p.holds([new]) == [False]  # staged is not searchable yet
    p.flush()
    assert p.holds([new]) == [True]
    p.remove(staged)
    assert p.holds([new]) == [True]  # a dead base document counts until compaction, as in contains
    p.compact()
    assert p.holds([new]) == [False]


def test_kept_answers_start_again_when_there_are_too_many(monkeypatch):
    monkeypatch.setattr(pst, "HELD_MAX", 10)
    p = Postings()
    p.stage(term_keys(_terms(WORDS[:8])))
    p.flush()
    vocabulary = _terms(WORDS)
    for start in range(0, len(vocabulary), 7):
        asked = vocabulary[: start + 7]  # the kept ones and more, past the limit
        assert p.holds(asked) == p.contains(term_keys(asked))
        assert len(p._held) <= max(10, len(asked))


def test_a_query_of_mostly_new_terms_is_answered_without_keeping_them():
    p = Postings()
    p.stage(term_keys(_terms(WORDS)))
    p.flush()
    many = [tok.WORD + chr(0x4E00 + i // 200) + chr(0x4E00 + i % 200) for i in range(pst.KEEP_FRESH_MAX + 1)]
    asked = many + _terms(WORDS)
    assert p.holds(asked) == p.contains(term_keys(asked))
    assert not p._held  # (a new text's many guesses: cheaper asked than kept)
    assert p.holds(_terms(WORDS)) == [True] * len(_terms(WORDS))
    assert len(p._held) == len(set(_terms(WORDS)))


def _memory(rng: random.Random, n: int) -> MemoryItem:
    words = rng.sample(WORDS, 3)
    text = f"第{n}条：小周说{words[0]}和{words[1]}，还有{words[2]}。"
    return MemoryItem(text, rng.choice(["品味", "身份", "瞬间"]),
                      latest_update_time=(NOW - timedelta(hours=n)).isoformat(), hit=n % 5)


PROMPTS = ["小周喜欢拿铁咖啡吗", "上次去西湖跑步是什么时候", "蓝鲸书屋开门吗", "周末一起看动画电影",
           "she ran a marathon with her violin", "从没写过的字眼和火锅", "最近怎么样"]


def test_an_analysis_with_kept_answers_is_the_uncached_one_after_writes_and_deletes(tmp_path):
    """A bank above the size compacted at its first dead memory, so a delete leaves the kept answers of
    the base's terms in place and drops those of the memory's own words."""
    rng = random.Random(7)
    mm = SqliteMemoryManager(tmp_path / "m.sqlite3")
    r = MechanicalRetriever(mm, now=lambda: NOW, index_path=False)
    try:
        mm.import_items({f"m{n}": _memory(rng, n) for n in range(pst.EXACT_BELOW + 100)})
        r.warm_up()  # built: the writes below go to the delta
        seen: set[tuple] = set()
        for step in range(12):
            if step % 3 == 0:
                new = mm.add(f"小周第{step}次去蓝鲸书屋看书，买了从没写过的榴莲酥。", "品味")
            elif step % 3 == 1:
                mm.update(new, "换了口味", f"小周把第{step}次的榴莲酥换成了火锅。")
            else:
                mm.delete(new)
                mm.delete(f"m{step}")  # a memory of the base
            for prompt in PROMPTS:
                r.scored_candidates(prompt, 20, now=NOW)  # the query path: answers kept, the index up to date
                with r._lock:
                    kept = r._analyze(prompt, NOW)
                    fresh = analyze(prompt, NOW, r._lexicon, frozenset(r._docs.theme_names),
                                    lambda terms: r._postings.contains(term_keys(terms)))
                    assert kept == fresh, (step, prompt)
                    held = r._postings._held
                    asked = list(held)
                    assert [held[t] for t in asked] == r._postings.contains(term_keys(asked))
            with r._lock:
                seen.add(tuple(sorted(r._analyze(PROMPTS[2], NOW).terms.items())))
        assert len(seen) > 1  # the writes changed the bank's answers to that question's terms, and its analysis
        assert len(r._postings._held) > 100  # answers were kept across the writes
        assert r._postings.n_live < r._postings.n_slots  # deletes left dead memories: no compaction cleared them
    finally:
        r.close()
        mm.close()
