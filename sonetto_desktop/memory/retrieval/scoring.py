"""Scoring a read query against the index (``Postings`` + ``DocTable``), vectorised over slots.

Signals, on a scale where one rare word matched once is ~1 (weights documented in
``mechanical.py``): BM25 over the query's weighted terms; a date the memory mentions inside a range
the query names (strong) or its last update inside it (weak); the themes the query points at;
a small prior for much-used memories. Broad questions rank by recency and hit count instead.
Everything is an O(bank) numpy pass at most: nothing is kept sorted, nothing re-sorted.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from . import tokenize as tok
from .doc_table import DAY, NO_TIME, DocTable
from .lexicon import Lexicon, Query
from .postings import Postings, smoothed_idf, term_key, term_keys
from .time_expressions import DateRange


@dataclass(frozen=True)
class Weights:
    time_written: float = 1.0  # a date written in the memory falls in a range the query names
    time_written_wide: float = 0.7  # ... when the range is wider than a month (今年, 去年)
    time_updated: float = 0.25  # the memory was last updated inside the range
    theme_named: float = 0.65  # the query names a theme outright ("来点音乐"): enough to pass the floor
    hit_prior: float = 0.02  # per log(1 + hit): a tie-breaker, never enough to pass the floor
    hit_prior_cap: float = 0.06
    recency_days: float = 10.0  # broad questions: recency decays with this scale (days)
    broad_hit_share: float = 0.3  # broad questions: weight of hit count next to recency
    broad_topic_weight: float = 0.5  # broad questions: a topic word's lexical score (capped at 2) counts this much
    feedback_weight: float = 0.6  # per term shared with the best match (pseudo-relevance feedback)
    feedback_terms: int = 8  # at most this many rare terms of the best matches are fed back
    feedback_cap: float = 1.2  # a memory gains at most this much from feedback
    feedback_max_df: float = 0.05  # a fed-back term occurs in at most this share of the bank


W = Weights()


def term_scores(postings: Postings, query: Query, keys: list[int] | None = None) -> np.ndarray:
    """BM25 of the query's terms (``keys``: their ``term_keys``, if made already)."""
    keys = term_keys(list(query.terms)) if keys is None else keys
    return postings.score(dict(zip(keys, query.terms.values(), strict=True)))


def bank_floor(postings: Postings, query: Query, floor: float) -> float:
    """``floor`` (about half a rare word) for a question whose every own word is common in this bank:
    scaled by the rarity (``smoothed_idf``) of the rarest of them. A word every memory holds scores a
    fraction of a rare one (a bank about one bookshop asked "书店", three memories of the cat asked
    "猫呢"), and fell under the floor: the question recalled none of them. A question with a word the
    bank holds rarely, or not at all, keeps the floor as it is."""
    own = [term for term, weight in query.own.items() if weight > 0]
    if not own or not postings.n_live:
        return floor
    dfs = postings.doc_freqs(term_keys(own))
    rarest = min(dfs)
    return floor if rarest == 0 else floor * min(smoothed_idf(postings.n_live, rarest), 1.0)


def time_bonus(docs: DocTable, ranges: list[DateRange]) -> np.ndarray | None:
    """Per slot: dates written in the memory inside a query range (strong); last update inside it (weak)."""
    if not ranges:
        return None
    n = docs.n_slots
    bonus = np.zeros(n)
    live = docs.live()
    span_slot, span_start, span_end = docs.spans()
    updated = docs.updated[:n]
    day = np.where(updated == NO_TIME, -1, updated // DAY)
    for rng in ranges:
        wide = (rng.end - rng.start).days > 31
        strong = W.time_written_wide if wide else W.time_written
        weak = W.time_updated * (0.3 if wide else 1.0)
        lo, hi = rng.start.toordinal(), rng.end.toordinal()
        slots = span_slot[(span_start <= hi) & (span_end >= lo)]
        slots = slots[live[slots]]
        bonus[slots] = np.maximum(bonus[slots], strong)
        inside = (day >= lo) & (day <= hi) & live
        bonus[inside] = np.maximum(bonus[inside], weak)
    return bonus


def _theme_members(docs: DocTable, theme: str) -> np.ndarray:
    """A theme's memories; "音乐" also lifts a user's "音乐与声音"."""
    return docs.theme_mask([name for name in docs.theme_names if theme == name or theme in name])


def theme_lifts(lexicon: Lexicon, query: Query) -> list[tuple[str, float]]:
    """(theme, lift) for the themes the query points at, strongest first."""
    lifts: dict[str, float] = {}
    for theme, cues in query.themes.items():
        lifts[theme] = lexicon.theme_weight * min(1.0 + 0.25 * (cues - 1), 1.5)
    for theme in query.named_themes:
        lifts[theme] = max(lifts.get(theme, 0.0), W.theme_named)
    return sorted(lifts.items(), key=lambda kv: -kv[1])


def _best(scores: np.ndarray, docs: DocTable) -> int | None:
    """``top(scores, docs, 1)``'s slot without ranking them all: the best score, the most recently
    updated of a tie, then the last slot."""
    if not len(scores):
        return None
    best = float(scores.max())
    if best <= 0:
        return None
    tied = np.flatnonzero(scores == best)
    if len(tied) == 1:
        return int(tied[0])
    updated = docs.updated[tied]
    return int(tied[np.flatnonzero(updated == updated.max())[-1]])


def feedback(postings: Postings, docs: DocTable, query: Query, scores: np.ndarray, floor: float,
             used: set[int] | None = None) -> np.ndarray | None:
    """Pseudo-relevance feedback: the rarest terms of the best match (when it clears the floor)
    that the query did not use, so memories about the same thing (亚瑟士, 绿洲家园, a name) come
    along with the one the query found. Returns per-slot bonuses (capped, none for the best match
    itself), or None."""
    slot = _best(scores, docs)
    if slot is None or scores[slot] < floor:
        return None
    used = set(term_keys(list(query.terms))) if used is None else used
    keys = list(dict.fromkeys(k for k in map(term_key, tok.surface_terms(docs.texts[slot])) if k not in used))
    most = max(3, int(postings.n_live * W.feedback_max_df))
    usable = sorted((df, key) for key, df in zip(keys, postings.doc_freqs(keys), strict=True) if 2 <= df <= most)
    if not usable:
        return None
    bonus = postings.score({key: W.feedback_weight for _, key in usable[: W.feedback_terms]})
    np.minimum(bonus, W.feedback_cap, out=bonus)
    bonus[slot] = 0.0
    return bonus


def score(postings: Postings, docs: DocTable, lexicon: Lexicon, query: Query, limit: int | None,
          floor: float = 0.45) -> np.ndarray:
    """Dense per-slot scores (0 = not a candidate)."""
    keys = term_keys(list(query.terms))
    scores = term_scores(postings, query, keys)
    extra = feedback(postings, docs, query, scores, floor, set(keys))
    if extra is not None:
        scores += extra
    bonus = time_bonus(docs, query.ranges)
    if bonus is not None:
        scores += bonus
    lifts = theme_lifts(lexicon, query)
    if lifts:
        # a matched memory gains the lift of the first theme pointed at that its section is (or
        # contains): looked up per section, for the matched memories only (adding 0.0 to the others)
        matched = np.flatnonzero(scores > 0)
        scores[matched] += _lift_of_section(docs, lifts)[docs.theme[matched]]
        # Memories lifted by their theme alone: skipped when enough better-scored ones exist.
        ceiling = lifts[0][1] + W.hit_prior_cap
        if limit is None or int(np.count_nonzero(scores >= ceiling)) < limit:
            for theme, lift in lifts:
                sel = _theme_members(docs, theme) & (scores <= 0)
                scores[sel] = lift
    # the prior of the matched memories used at least once (it is 0.0 for the others)
    hot = np.flatnonzero(scores > 0)
    hot = hot[docs.hit[hot] > 0]
    scores[hot] += np.minimum(W.hit_prior * np.log1p(docs.hit[hot]), W.hit_prior_cap)
    return scores


def _lift_of_section(docs: DocTable, lifts: list[tuple[str, float]]) -> np.ndarray:
    """Per section number, the lift of the first of ``lifts`` whose theme it is or contains (0.0: none)."""
    out = np.zeros(max(len(docs.theme_names), 1))
    for number, name in enumerate(docs.theme_names):
        for theme, lift in lifts:
            if theme == name or theme in name:
                out[number] = lift
                break
    return out


def top(scores: np.ndarray, docs: DocTable, limit: int | None) -> list[int]:
    """Slots with a positive score, best first (ties: most recently updated first)."""
    if limit is not None and limit <= 0:
        return []
    cand = np.flatnonzero(scores > 0)
    if limit is not None and len(cand) > limit:
        kth = np.partition(scores[cand], len(cand) - limit)[len(cand) - limit]
        cand = cand[scores[cand] >= kth]  # keeps every tie at the boundary
    order = np.lexsort((docs.updated[cand], scores[cand]))[::-1]
    ranked = cand[order]
    return ranked[:limit].tolist() if limit is not None else ranked.tolist()


def top_among(slots: np.ndarray, values: np.ndarray, docs: DocTable, limit: int) -> list[tuple[int, float]]:
    """``top`` of scores known for some slots only (``slots`` ascending, ``values`` theirs): the same
    order as ``top`` over a dense array holding them (ties: most recently updated, then the last slot)."""
    if limit <= 0:
        return []
    keep = values > 0
    slots, values = slots[keep], values[keep]
    if len(slots) > limit:
        kth = np.partition(values, len(values) - limit)[len(values) - limit]
        keep = values >= kth  # keeps every tie at the boundary
        slots, values = slots[keep], values[keep]
    order = np.lexsort((docs.updated[slots], values))[::-1][:limit]
    return [(int(s), float(v)) for s, v in zip(slots[order].tolist(), values[order].tolist(), strict=True)]


def recency_values(docs: DocTable, now: datetime) -> np.ndarray:
    """``exp(-age / recency_days)`` plus a share for hits; -inf for dead slots."""
    n = docs.n_slots
    live = docs.live()
    updated = docs.updated[:n]
    age = np.where(updated == NO_TIME, 10_000, np.maximum(now.date().toordinal() - updated // DAY, 0))
    hits = np.maximum(docs.hit[:n], 0)
    top_hit = math.log1p(int(hits[live].max())) if live.any() else 0.0
    values = np.exp(-age / W.recency_days) + W.broad_hit_share * np.log1p(hits) / (top_hit or 1.0)
    values[~live] = -np.inf
    return values


def recency_ranking(docs: DocTable, now: datetime, k: int, exclude: set[int] = frozenset()) -> list[tuple[int, float]]:
    """Most recent and most used first (the best ``k`` live slots not in ``exclude``)."""
    values = recency_values(docs, now)
    if exclude:
        values[list(exclude)] = -np.inf
    values[~np.isfinite(values)] = -1.0
    order = top(values + 1.0, docs, k)  # shifted so every live slot is "positive"
    return [(slot, float(values[slot])) for slot in order]


def broad_ranking(postings: Postings, docs: DocTable, query: Query, now: datetime, k: int) -> list[tuple[int, float]]:
    """Recency and hits; a topic word in the question ("最近工作忙吗") moves its memories up."""
    values = recency_values(docs, now)
    if query.terms:
        topical = term_scores(postings, query)
        pool = top(topical, docs, max(k, 50))
        values[pool] += W.broad_topic_weight * np.minimum(topical[pool], 2.0)
    values[~np.isfinite(values)] = -1.0
    order = top(values + 1.0, docs, k)
    return [(slot, float(values[slot])) for slot in order]
