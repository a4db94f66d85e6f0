"""MechanicalRetriever: offline, Chinese-aware recall. Never needs an LLM.

A memory's score is the sum of three signals, on a scale where one rare word matched once is ~1:

- words: BM25 (see ``bm25.py``) over jieba words, character bigrams and characters; lexicon
  expansions (synonyms, related concepts) count less than the query's own words;
- time: a date the memory mentions inside a date range the query names (后天, 8月份, 这周五之前)
  is strong evidence; the memory's ``latest_update_time`` inside the range a weak one;
- theme: query words that point at a theme (歌 -> 音乐) lift that theme's memories a little.

``retrieve`` keeps what clears ``min_score`` (so "128 除以 16" recalls nothing); a broad question
("最近过得怎么样") is answered by recency and hit count instead. The index is built lazily,
kept in step with the store through its change feed (only changed memories are re-read) and
guarded by a lock, so queries may run in worker threads.
"""

from __future__ import annotations

import bisect
import heapq
import math
import threading
from dataclasses import dataclass
from datetime import date, datetime
from typing import Callable

from ..base import BaseMemoryManager
from ..errors import MemoryNotFound
from ..events import MemoryChange
from ..item import MemoryItem, parse_time
from . import tokenize as tok
from .bm25 import BM25Index
from .lexicon import Lexicon, Query, analyze, default_lexicon
from .time_expressions import DateRange, date_spans_in_text

__all__ = ["MechanicalRetriever", "analyze", "warm_up"]

warm_up = tok.warm_up

# ── signal weights ──────────────────────────────────────────────────────
TIME_WRITTEN = 1.0  # a date written in the memory falls in a range the query names
TIME_WRITTEN_WIDE = 0.7  # ... when the range is wider than a month (今年, 去年)
TIME_UPDATED = 0.25  # the memory was last updated inside the range
THEME_NAMED = 0.65  # the query names a theme outright ("来点音乐"): enough to pass the floor
TASK_FLOOR_FACTOR = 3.0  # a self-contained task (翻译, 算一下) needs much stronger evidence
HIT_PRIOR = 0.02  # per log(1 + hit): a tie-breaker, never enough to pass the floor
HIT_PRIOR_CAP = 0.06
RECENCY_DAYS = 10.0  # broad questions: recency decays with this scale (days)
BROAD_HIT_SHARE = 0.3  # broad questions: weight of hit count next to recency
BROAD_TOP = 5
BROAD_TOPIC_WEIGHT = 0.5  # broad questions with a topic word: its lexical score (capped at 2) counts this much
FULL_RELOAD_AFTER = 64  # more changed ids than this: re-read the whole bank (still diffed)


@dataclass
class _Doc:
    id: str
    description: str
    theme: str
    updated: datetime | None
    hit: int
    spans: list[DateRange]

    order_key: str = ""  # ties: most recently updated first
    prior: float = 0.0  # small lift for much-used memories

    def __post_init__(self) -> None:
        self.touch(self.hit, self.updated)

    def touch(self, hit: int, updated: datetime | None) -> None:
        self.hit, self.updated = hit, updated
        self.order_key = updated.isoformat() if updated else ""
        self.prior = min(HIT_PRIOR * math.log1p(max(hit, 0)), HIT_PRIOR_CAP)

    def public(self) -> dict:
        """What recall hands on: the memory with its date and use count (so nobody re-reads the store)."""
        when = self.updated.isoformat() if self.updated else ""
        return {"id": self.id, "description": self.description, "theme": self.theme, "date": when[:10],
                "latest_update_time": when, "hit": self.hit}


def _months(start: date, end: date, limit: int = 60) -> list[tuple[int, int]]:
    """(year, month) keys covering ``start`` .. ``end`` (at most ``limit``)."""
    out, (y, m) = [], (start.year, start.month)
    while (y, m) <= (end.year, end.month) and len(out) < limit:
        out.append((y, m))
        y, m = (y + 1, 1) if m == 12 else (y, m + 1)
    return out


class MechanicalRetriever:
    """Offline recall over a memory store. See the module docstring.

    ``min_score`` is the relevance floor of ``retrieve`` (0.45: tuned on the shared dev set and
    checked on our example set; about half a rare word); ``top_k`` its default result count.
    ``now`` supplies the current time (tests and benchmarks pin it).
    """

    def __init__(
        self,
        mm: BaseMemoryManager,
        *,
        now: Callable[[], datetime] | None = None,
        min_score: float = 0.45,
        top_k: int = 8,
        lexicon: Lexicon | None = None,
    ) -> None:
        self._mm = mm
        self._now = now or datetime.now
        self.min_score = min_score
        self.top_k = top_k
        self._lexicon = lexicon or default_lexicon()
        self._lock = threading.RLock()  # index and docs
        self._pending_lock = threading.Lock()  # what changed since the last refresh
        self._pending: set[str] = set()
        self._reload_all = True
        self._docs: dict[str, _Doc] = {}
        self._index = BM25Index()
        self._themes: dict[str, set[str]] = {}
        self._span_months: dict[tuple[int, int], set[str]] = {}  # month -> memories writing a date in it
        self._by_day: list[tuple[int, str]] | None = None  # (update day ordinal, id), sorted; rebuilt lazily
        self._unsubscribe: Callable[[], None] | None = mm.subscribe(self._on_change)

    # ── keeping the index in step with the store ─────────────────────────

    def _on_change(self, change: MemoryChange) -> None:
        """Runs on the writer's thread: only note what changed (cheap, never blocks on a query)."""
        if change.kind == "purge":
            return  # the trash is not searched
        if change.kind == "hit" and "hit" in change.extra and len(change.ids) == 1:
            doc = self._docs.get(change.ids[0])
            if doc is not None:
                doc.touch(int(change.extra["hit"]), doc.updated)
                return
        with self._pending_lock:
            self._pending.update(change.ids)
            if len(self._pending) > FULL_RELOAD_AFTER:
                self._reload_all = True

    def invalidate(self) -> None:
        """Re-read the whole bank on the next query (e.g. after another process wrote the store)."""
        with self._pending_lock:
            self._reload_all = True

    def _refresh(self) -> None:
        with self._pending_lock:
            reload_all, pending = self._reload_all, self._pending
            self._reload_all, self._pending = False, set()
        try:
            if reload_all:
                items = self._mm.all_items()
                for gone in set(self._docs) - set(items):
                    self._drop(gone)
                for mid, item in items.items():
                    self._upsert(mid, item)
                return
            for mid in pending:
                try:
                    self._upsert(mid, self._mm.get(mid))
                except MemoryNotFound:
                    self._drop(mid)
        except BaseException:
            self.invalidate()  # the store could not be read (locked, corrupt): try again next query
            raise

    def _upsert(self, mid: str, item: MemoryItem) -> None:
        old = self._docs.get(mid)
        updated = parse_time(item.latest_update_time)
        if old is not None and updated != old.updated:
            self._by_day = None
        if old is not None and old.description == item.description and old.theme == item.theme:
            old.touch(int(item.hit or 0), updated)
            return
        self._drop(mid)
        ref = updated or self._now()
        doc = _Doc(mid, item.description, item.theme, updated, int(item.hit or 0),
                   date_spans_in_text(item.description, ref))
        self._docs[mid] = doc
        self._by_day = None
        self._themes.setdefault(item.theme, set()).add(mid)
        for span in doc.spans:
            for key in _months(span.start, span.end):
                self._span_months.setdefault(key, set()).add(mid)
        self._index.add(mid, tok.document_terms(item.description))

    def _drop(self, mid: str) -> None:
        doc = self._docs.pop(mid, None)
        if doc is None:
            return
        self._by_day = None
        self._themes.get(doc.theme, set()).discard(mid)
        for span in doc.spans:
            for key in _months(span.start, span.end):
                self._span_months.get(key, set()).discard(mid)
        self._index.remove(mid)

    def warm_up(self) -> None:
        """Load jieba and build the index now (blocking, ~1-2 s for a big bank): call it from a
        worker thread at start-up so the first recall is fast."""
        tok.warm_up()
        with self._lock:
            self._refresh()

    def close(self) -> None:
        """Stop following the store's change feed."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    # ── scoring ─────────────────────────────────────────────────────────

    def _theme_members(self, theme: str) -> set[str]:
        members = set(self._themes.get(theme, ()))
        for name, ids in self._themes.items():
            if name != theme and theme in name:  # "音乐" also lifts a user's "音乐与声音"
                members |= ids
        return members

    def _theme_lifts(self, query: Query) -> dict[str, float]:
        """theme -> lift for the themes the query points at (named outright: a stronger lift)."""
        lifts: dict[str, float] = {}
        for theme, cues in query.themes.items():
            lifts[theme] = self._lexicon.theme_weight * min(1.0 + 0.25 * (cues - 1), 1.5)
        for theme in query.named_themes:
            lifts[theme] = max(lifts.get(theme, 0.0), THEME_NAMED)
        return lifts

    def _score(self, query: Query, limit: int | None = None) -> dict[str, float]:
        scores = self._index.score(query.terms)
        for mid, bonus in self._time_bonus(query.ranges).items():
            scores[mid] = scores.get(mid, 0.0) + bonus
        # Strongest lift first, so a memory in two cued themes keeps the larger one.
        lifts = sorted(self._theme_lifts(query).items(), key=lambda kv: -kv[1])
        members = [(self._theme_members(theme), lift) for theme, lift in lifts]
        lifted: set[str] = set()
        for ids, lift in members:
            for mid in ids & scores.keys() - lifted:
                scores[mid] += lift
            lifted |= ids
        # Memories lifted by their theme alone: skipped when enough better-scored ones exist.
        ceiling = (lifts[0][1] if lifts else 0.0) + HIT_PRIOR_CAP
        if members and (limit is None or sum(1 for v in scores.values() if v >= ceiling) < limit):
            for ids, lift in members:
                for mid in ids - scores.keys():
                    scores[mid] = lift
        docs = self._docs
        for mid in scores:
            scores[mid] += docs[mid].prior
        return scores

    def _time_bonus(self, ranges: list[DateRange]) -> dict[str, float]:
        """Dates written in a memory inside a query range (strong); last update inside it (weak)."""
        bonus: dict[str, float] = {}
        for rng in ranges:
            wide = (rng.end - rng.start).days > 31
            strong = TIME_WRITTEN_WIDE if wide else TIME_WRITTEN
            weak = TIME_UPDATED * (0.3 if wide else 1.0)
            for key in _months(rng.start, rng.end):
                for mid in self._span_months.get(key, ()):
                    if bonus.get(mid, 0.0) < strong and any(sp.overlaps(rng) for sp in self._docs[mid].spans):
                        bonus[mid] = strong
            days = self._sorted_days()
            lo = bisect.bisect_left(days, (rng.start.toordinal(), ""))
            hi = bisect.bisect_right(days, (rng.end.toordinal(), "\uffff"))
            for _, mid in days[lo:hi]:
                if bonus.get(mid, 0.0) < weak:
                    bonus[mid] = weak
        return bonus

    def _sorted_days(self) -> list[tuple[int, str]]:
        if self._by_day is None:
            self._by_day = sorted((d.updated.date().toordinal(), d.id) for d in self._docs.values() if d.updated)
        return self._by_day

    def _recency_value(self, doc: _Doc, today: int, top_hit: float) -> float:
        age = max(today - doc.updated.date().toordinal(), 0) if doc.updated else 10_000
        return math.exp(-age / RECENCY_DAYS) + BROAD_HIT_SHARE * math.log1p(max(doc.hit, 0)) / top_hit

    def _recency_ranking(self, now: datetime, k: int, exclude: set[str] = frozenset()) -> list[tuple[str, float]]:
        """Most recent and most used first: ``exp(-age / RECENCY_DAYS)`` plus a share for hits.
        Walks memories newest first and stops once no older one can enter the top ``k``."""
        today = now.date().toordinal()
        top_hit = math.log1p(max((d.hit for d in self._docs.values()), default=0)) or 1.0
        undated = [d.id for d in self._docs.values() if not d.updated]
        order = [mid for _, mid in reversed(self._sorted_days())] + undated
        best: list[tuple[float, str, str]] = []  # min-heap of (value, order key, id)
        for mid in order:
            doc = self._docs[mid]
            age = max(today - doc.updated.date().toordinal(), 0) if doc.updated else 10_000
            if len(best) >= k and math.exp(-age / RECENCY_DAYS) + BROAD_HIT_SHARE < best[0][0]:
                break
            if mid in exclude:
                continue
            item = (self._recency_value(doc, today, top_hit), doc.order_key, mid)
            if len(best) < k:
                heapq.heappush(best, item)
            elif item > best[0]:
                heapq.heapreplace(best, item)
        return [(mid, value) for value, _, mid in sorted(best, reverse=True)]

    def _broad_ranking(self, query: Query, now: datetime, k: int) -> list[tuple[str, float]]:
        """Recency and hits; a topic word in the question ("最近工作忙吗") moves its memories up."""
        pool = max(k, 50)
        ranked = dict(self._recency_ranking(now, pool))
        if query.terms:
            today = now.date().toordinal()
            top_hit = math.log1p(max((d.hit for d in self._docs.values()), default=0)) or 1.0
            topical = self._index.score(query.terms)
            for mid, score in heapq.nlargest(pool, topical.items(), key=lambda kv: kv[1]):
                base = ranked[mid] if mid in ranked else self._recency_value(self._docs[mid], today, top_hit)
                ranked[mid] = base + BROAD_TOPIC_WEIGHT * min(score, 2.0)
        docs = self._docs
        order = heapq.nlargest(k, ranked, key=lambda mid: (ranked[mid], docs[mid].order_key))
        return [(mid, ranked[mid]) for mid in order]

    def _rank(
        self, prompt: str, now: datetime | None, limit: int | None = None
    ) -> tuple[Query, list[tuple[str, float]], datetime]:
        """Scored memories, best first (the best ``limit`` only, if given)."""
        moment = now or self._now()
        with self._lock:
            self._refresh()
            query = analyze(prompt, moment, self._lexicon, frozenset(self._themes), self._index.doc_freq)
            if query.broad:
                return query, self._broad_ranking(query, moment, limit or len(self._docs)), moment
            scores = self._score(query, limit)
            docs = self._docs

            def key(mid: str) -> tuple[float, str]:
                return scores[mid], docs[mid].order_key

            order = heapq.nlargest(limit, scores, key=key) if limit else sorted(scores, key=key, reverse=True)
        return query, [(mid, scores[mid]) for mid in order], moment

    def _public(self, ranked: list[tuple[str, float]]) -> list[tuple[dict[str, str], float]]:
        with self._lock:
            return [(self._docs[mid].public(), round(score, 4)) for mid, score in ranked if mid in self._docs]

    # ── public API ──────────────────────────────────────────────────────

    def scored(self, prompt: str, k: int | None = None, *, now: datetime | None = None) -> list[tuple[dict, float]]:
        """Every memory with a positive score, best first, with its score (no floor). Broad questions
        are ranked by recency and hit count."""
        _, ranked, _ = self._rank(prompt, now, k)
        return self._public(ranked[:k] if k else ranked)

    def retrieve(self, prompt: str, k: int | None = None, *, now: datetime | None = None) -> list[dict]:
        """``[{id, description, theme}]`` most relevant first; ``[]`` when nothing clears the floor."""
        k = self.top_k if k is None else k
        if k <= 0:
            return []
        query, ranked, _ = self._rank(prompt, now, k)
        if query.broad:
            return [doc for doc, _ in self._public(ranked[:BROAD_TOP])]
        floor = self.min_score * (TASK_FLOOR_FACTOR if query.task else 1.0)
        kept = [(mid, s) for mid, s in ranked if s >= floor][:k]
        return [doc for doc, _ in self._public(kept)]

    def candidates(self, prompt: str, k: int = 60, *, now: datetime | None = None) -> list[dict]:
        """The top ``k`` by score without the floor, filled up with recent and much-used memories
        when the prompt matches fewer than ``k`` (for an LLM to choose from)."""
        if k <= 0:
            return []
        _, ranked, moment = self._rank(prompt, now, k)
        with self._lock:
            ranked = ranked[:k]
            if len(ranked) < k:
                seen = {mid for mid, _ in ranked}
                ranked += self._recency_ranking(moment, k - len(ranked), seen)
        return [doc for doc, _ in self._public(ranked)]

