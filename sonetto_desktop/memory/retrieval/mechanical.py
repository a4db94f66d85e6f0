"""MechanicalRetriever: offline, Chinese-aware recall. Never needs an LLM.

A memory's score is the sum of signals on a scale where one rare word matched once is ~1
(``scoring.py``): BM25 over jieba words, character bigrams and characters (lexicon and category
expansions count less than the query's own words); a date the memory mentions inside a range the
query names; the themes the query points at; a small prior for much-used memories.
``retrieve`` keeps what clears ``min_score`` (so "128 除以 16" recalls nothing); a general-knowledge
question ("香菜的学名是什么") keeps only memories that account for most of it (``general_questions.py``);
a broad question ("最近过得怎么样") is answered by recency and hit count instead.

The index (``postings.py`` + ``doc_table.py``, ~1 KB per memory) follows the store through its
change feed: only changed memories are re-read and re-tokenized; a ``reload`` change (another
process wrote the store) is handled by diffing per-memory fingerprints. It is saved beside the
store (``index_file.py``) when it was built or verified and when the retriever closes, and loaded
at the next start: answers are ready at once, while an index whose version token does not match
the store is verified in a background thread, and a missing or damaged one rebuilt in a background
thread; meanwhile queries answer from what is already indexed (never a memory as it no longer is).
A query never answers from before a write made before it: a verification, a reload or a bulk action
of thousands, diffed in the background in a large bank, is waited for as far as it has read the store
(what is gone or changed is out of the index then); what it has still to install and bears on the
query the query installs itself (``_take_in``), and answers while the diff goes on. A burst of changes
(an import) is applied in the background as it arrives (``follow.py``), so the next message finds it
done. Queries need no jieba (``segment.py``); documents are cut by jieba when they are
indexed. A lock guards the index; change callbacks never wait on it.
"""

from __future__ import annotations

import heapq
import logging
import re
import threading
import time
from dataclasses import dataclass, replace
from datetime import date, datetime
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

import numpy as np

from ..stores.base import BaseMemoryManager
from ..errors import MemoryNotFound
from ..events import MemoryChange
from .. import kinds
from ..item import MemoryItem, parse_time
from . import index_file
from .card_fields import CardFields, card_fields
from . import index_lifecycle as lc
from . import general_questions as gq
from . import scoring as sc
from . import tokenize as tok
from .doc_table import DocTable, fingerprint
from .lexicon import BROAD_FILLER, Lexicon, Query, analyze, default_lexicon
from .lexicon import warm_up as lexicon_warm_up
from .postings import Postings, key_counts, term_key
from .progress import REPORT_FROM, IndexProgress
from .shortlist import CONTEXT_SHARE, interleave, joined
from .time_expressions import date_spans_in_text

__all__ = ["MechanicalRetriever", "analyze", "warm_up"]

log = logging.getLogger(__name__)

warm_up = tok.warm_up

TASK_FLOOR_FACTOR = 3.0  # a self-contained task (翻译, 算一下) needs much stronger evidence
BROAD_TOP = 5
#: More pending changes than this (deletions aside), and than a tenth of the bank: one diff of the whole
#: store instead. (One by one, a change costs ~0.1 ms; the diff reads and compares every memory, ~0.01 ms
#: each, then tokenizes the changed ones: at 100,000 memories, 2,500 restored ones took 0.6 s one by one,
#: 3.6 s as a diff.)
INLINE_CHANGES_MAX = 2000
INLINE_SHARE = 10
#: A catch-up without a query (``follow.py``, the writer's duplicate search) waits at most this long for a diff
#: of the whole store that changes the index has not seen call for (``_in_step``: a reload's at 100,000
#: memories, ~1 s of CPU; an import of 100,000 more, ~9 s). A query does not: see ``_take_in``.
CATCH_UP_WAIT = 10.0
#: Both wait at most this long for a diff's first step, which takes out what is gone or changed (a read of the store).
PLAN_WAIT = 60.0
#: Analyses of query texts kept while the index is as they read it: one recall asks the words about one text
#: several times (the shortlist's own matches and its fill, each part and depth, the offline answer), a long
#: follow-up's message and joined query were analysed three times each.
ANALYSES_KEPT = 8
_READ = object()  # a pending change without the memory's card: read it from the store


@dataclass(slots=True)
class _Prepared:
    """A memory's fields the index keeps (not the store's item with its history), tokenized outside
    the lock when it is new or changed, ready to install."""

    id: str
    text: str
    theme: str
    stamp: str  # latest_update_time as the store wrote it
    hit: int
    updated: datetime | None
    fp: int
    keys: np.ndarray | None = None  # term keys with repeats (tok.batch_keys)
    spans: list[tuple[date, date]] | None = None


class MechanicalRetriever:
    """Offline recall over a memory store. See the module docstring.

    ``min_score`` is the relevance floor of ``retrieve`` (0.45: about half a rare word);
    ``top_k`` its default result count; ``now`` supplies the current time (tests and benchmarks
    pin it). ``index_path`` is where the index is saved (default: beside the store's file; pass
    ``False`` to keep it in memory only).
    """

    def __init__(
        self,
        mm: BaseMemoryManager,
        *,
        now: Callable[[], datetime] | None = None,
        min_score: float = 0.45,
        top_k: int = 8,
        lexicon: Lexicon | None = None,
        index_path: Path | bool | None = None,
    ) -> None:
        self._mm = mm
        self._now = now or datetime.now
        self.min_score = min_score
        self.top_k = top_k
        self._lexicon = lexicon or default_lexicon()
        path = (index_file.index_path_for(mm) if index_path in (None, True)
                else Path(index_path) if index_path else None)
        self._lock = threading.RLock()  # index, documents, state below
        self._postings = Postings()
        self._docs = DocTable()
        self._dirty = False  # changed since it was last saved
        self._life = lc.IndexLifecycle(self, path)  # the saved file, the first build, the worker
        self._pending_lock = threading.Lock()  # what changed since the last refresh
        self._pending: dict[str, Any] = {}  # id -> its card after the change, None (gone) or _READ
        self._work = 0  # of those, how many are not gone (to read or tokenize)
        self._pending_hits: dict[str, int] = {}
        self._diff_all = False  # re-read the whole store and diff (reload, invalidate, big batches)
        self._seq = 0  # change counter; ids changed while a background diff runs are left to the queue
        self._changed_at: dict[str, int] = {}
        self._analyses: dict[tuple[str, date], Query] = {}  # (text, day) -> its analysis (``_analyze``)
        self._analysed_on: tuple[Any, ...] = (None,)  # what those read: the index's state, the themes, jieba
        self._progress: Callable[[IndexProgress], None] | None = None  # warm_up's listener
        self._reported: tuple[int, int] | None = None
        self._unsubscribe: Callable[[], None] | None = mm.subscribe(self._on_change)

    # ── following the store ───────────────────────────────────────────────

    def _on_change(self, change: MemoryChange) -> None:
        """Runs on the writer's thread: only note what changed (cheap, never waits on a query)."""
        if not kinds.kind(change.kind).memories:
            return  # the trash is not searched
        states = getattr(change, "states", None) or {}
        with self._pending_lock:
            self._seq += 1
            if change.kind == kinds.HIT and "hit" in change.extra and len(change.ids) == 1:
                self._pending_hits[change.ids[0]] = int(change.extra["hit"])
                return
            if kinds.kind(change.kind).whole:
                self._diff_all = True
            for mid in change.ids:
                # the card after the change, when the change carries it: no need to re-read the store
                state = states[mid] if mid in states else _READ
                self._work += (state is not None) - (self._pending.get(mid, None) is not None)
                self._pending[mid] = state
                self._changed_at[mid] = self._seq
            # (a memory gone costs nothing to apply: a bulk delete is not counted)
            if self._work > max(INLINE_CHANGES_MAX, len(self._docs) // INLINE_SHARE):
                self._diff_all = True

    def _changed_since(self, since: int) -> set[str]:
        """Ids changed after change number ``since`` (a background diff leaves them to the queue)."""
        with self._pending_lock:
            return {mid for mid, seq in self._changed_at.items() if seq > since}

    def invalidate(self) -> None:
        """Re-read the whole store on the next query and re-index what differs (e.g. after another
        process wrote it without telling)."""
        with self._pending_lock:
            self._diff_all = True

    def _take_pending(self) -> tuple[bool, dict[str, Any], dict[str, int]]:
        with self._pending_lock:
            out = (self._diff_all, self._pending, self._pending_hits)
            self._diff_all, self._pending, self._pending_hits, self._work = False, {}, {}, 0
            return out

    def _refresh(self) -> None:
        """Bring the index up to date with what the change feed reported (caller holds the lock)."""
        if not self._life.started:
            self._life.start()
        diff_all, pending, hits = self._take_pending()
        try:
            for mid, hit in hits.items():
                slot = self._docs.slot_of.get(mid)
                if slot is not None:
                    self._docs.hit[slot] = hit
            if diff_all and len(self._docs) > lc.SYNC_BUILD_MAX and not self._life.busy():
                # it reads the store as it is now; queries wait for its first step, then take in (``_in_step``)
                self._life.begin_background(self._life.version_token(), catch_up=True)
            elif diff_all and len(self._docs) > lc.SYNC_BUILD_MAX:
                # A reload while a background diff runs: that diff read the store before it and leaves the
                # changes named since to the queue, so they are applied now (dropping them left a deleted
                # memory in the index), and the whole store is looked at again once it ends.
                with self._pending_lock:
                    self._diff_all = True
                self._apply(pending)
            elif diff_all:
                self._diff_inline()
            else:
                self._apply(pending)
        except BaseException:
            self.invalidate()  # the store could not be read (locked, corrupt): try again next query
            raise
        if self._postings.needs_compaction():
            self._compact()

    def _in_step(self, prompt: str | None = None, moment: datetime | None = None) -> None:
        """Before a query (``prompt`` at ``moment``): apply what the change feed reported. When that needs
        a diff of the whole store (a reload: another program wrote it; a bulk action of more than
        ``INLINE_CHANGES_MAX``) and the bank is large, the diff runs in the background: answering from
        before it recalled deleted memories, edited ones under their old text, and missed new ones. A
        saved index verified at start-up is such a diff too. The query waits for its first step, which
        takes out what is gone or changed, then installs itself what the diff has still to install and
        bears on it (``_take_in``) and answers, never from before a write, while the diff goes on (it
        waited for the whole diff, up to ``CATCH_UP_WAIT``: 10 s, then answered without what it had not
        reached). A reload that came while the diff runs (``_diff_again``), and a catch-up without a
        prompt (in the background), wait for the diffs, at most ``CATCH_UP_WAIT``. Of a first build only
        the first step is waited for (a query answers from what is indexed so far). Call it without
        holding the lock."""
        deadline = time.monotonic() + CATCH_UP_WAIT
        life = self._life
        for _ in range(2):  # the diff, and one more for a reload while it ran (a failing store: no more)
            with self._lock:
                self._refresh()
                worker, catching_up = (life.worker, life.catching_up) if life.busy() else (None, False)
            if worker is None:
                return
            life.planned.wait(PLAN_WAIT)
            if not catching_up:
                return
            if prompt is not None and not self._diff_again():
                self._take_in(prompt, moment or self._now())
                return
            worker.join(max(0.0, deadline - time.monotonic()))
            if worker.is_alive():
                if prompt is not None:
                    self._take_in(prompt, moment or self._now())
                return

    def _diff_again(self) -> bool:
        """Another diff of the whole store is due after the one running (a reload came meanwhile: what it
        changed is known only to the store, so a query waits for both, at most ``CATCH_UP_WAIT``)."""
        with self._pending_lock:
            return self._diff_all

    def _take_in(self, prompt: str, moment: datetime) -> None:
        """While a catch-up diff runs: what it installed made searchable, and the memories it has still to
        install that the query could find (``_bearing``) installed now, tokenized outside the lock as the
        diff does (each a copy: the diff may be tokenizing the same one). The diff then finds them
        installed with the same text and leaves them as they are (a use counted since kept). Another diff
        begun meanwhile read the store after these copies and keeps its own record of the changes since:
        they are left to it."""
        life = self._life
        with self._lock:
            self._postings.flush()  # what the diff installed so far, searchable now (it is, at its next flush)
            worker = life.worker
            left = [p for p in list(life.todo) if p is not None]
            if not left:
                return
            changed = self._changed_since(life.since)  # newer versions: applied from the queue already
            wanted = [replace(p, keys=None, spans=None) for p in self._bearing(self._analyze(prompt, moment), left)
                      if p.id not in changed and self._is_new(p)]
        if not wanted:
            return
        self._tokenize(wanted)
        with self._lock:
            if life.worker is not worker:  # (its changes since are not those of the diff these copies are of)
                return
            changed = self._changed_since(life.since)
            for p in wanted:
                if p.id not in changed:
                    self._install(p)
            self._postings.flush()  # (what the diff installed meanwhile, these among them)

    def _bearing(self, query: Query, left: list[_Prepared]) -> list[_Prepared]:
        """Of ``left``, the memories ``query`` could find: one of its terms written in their text (a word,
        a pair or a character of it; an English stem as its words may be written), a date when it names
        one (their time in its range, or a date in their text: digits or 月), a section it points at; and
        the newest ``lc.BATCH`` (a broad question, the recent memories that fill a shortlist)."""
        surfaces = {term[len(tok.WORD):] for term in query.terms}  # (every kind of term has a 2-character mark)
        probes = {s for s in surfaces if s and not s.isascii()}
        english = {s for s in surfaces if s and s.isascii()}  # stems: written so, or shorter (-ies / -ied: -y)
        probes.update(s[:-1] if s.endswith("y") and len(s) > 3 else s for s in english)
        if english:  # an irregular form is no longer the same letters (went: go)
            probes.update(form for form, base in tok.IRREGULAR.items() if tok.stem(base) in english)
        pattern = re.compile("|".join(map(re.escape, sorted(probes, key=len, reverse=True)))) if probes else None
        themes = [theme for theme, _ in sc.theme_lifts(self._lexicon, query)]
        ranges = [(r.start, r.end) for r in query.ranges]
        newest = {p.id for p in heapq.nlargest(lc.BATCH, left, key=lambda p: p.stamp)}

        def bears(p: _Prepared) -> bool:
            text = p.text.lower()
            if p.id in newest or (pattern is not None and pattern.search(text)):
                return True
            if themes and any(theme in p.theme for theme in themes):
                return True
            if ranges and ("月" in text or any(ch.isdigit() for ch in text)):
                return True
            day = p.updated.date() if p.updated is not None else None
            return day is not None and any(start <= day <= end for start, end in ranges)

        return [p for p in left if bears(p)]

    def catch_up(self) -> None:
        """Apply what the change feed reported now, as a query would first (``follow.py``: a burst of
        changes, in the background); nothing before the index's first use. Blocking."""
        if self._life.started:
            self._in_step()

    def _apply(self, pending: dict[str, Any]) -> None:
        """Install or drop the memories the change feed named (lock held)."""
        for mid, state in pending.items():
            item = self._item(mid, state)
            if item is None:
                self._drop(mid)
            else:
                self._install(self._prepare(mid, item, tokenize=False))  # tokenized only if changed

    # ── installing memories ───────────────────────────────────────────────

    def _item(self, mid: str, state: Any) -> MemoryItem | None:
        """The memory as a change described it, or as the store has it now (None: gone)."""
        if state is not _READ:
            if state is None:
                return None
            try:
                return MemoryItem(str(state["description"]), str(state["theme"]),
                                  latest_update_time=str(state["latest_update_time"]), hit=int(state.get("hit") or 0))
            except (KeyError, TypeError, ValueError):
                pass  # an incomplete card: read the store
        try:
            return self._mm.get(mid)
        except MemoryNotFound:
            return None

    def _prepare(self, mid: str, item: CardFields | MemoryItem, tokenize: bool = True) -> _Prepared:
        p = _Prepared(mid, item.description, item.theme, str(item.latest_update_time or ""), int(item.hit or 0),
                      parse_time(item.latest_update_time), fingerprint(item.description, item.theme))
        if tokenize:
            self._tokenize([p])
        return p

    def _tokenize(self, batch: Iterable[_Prepared]) -> None:
        """Term keys and mentioned dates of memories (a batch is keyed at once: ``tok.batch_keys``)."""
        batch = list(batch)
        for p, keys in zip(batch, tok.batch_keys([p.text for p in batch]), strict=True):
            p.keys = keys
            try:
                p.spans = [(s.start, s.end) for s in date_spans_in_text(p.text, p.updated or self._now())]
            except Exception:  # one memory's odd date never takes recall of every other one down
                log.warning("recall index: the dates of memory %s could not be read", p.id, exc_info=True)
                p.spans = []

    def _install(self, p: _Prepared, bulk: bool = False) -> None:
        docs = self._docs
        slot = docs.slot_of.get(p.id)
        if slot is not None and int(docs.fp[slot]) == p.fp:
            docs.touch(slot, p.hit, p.updated, p.stamp)
            return
        if p.keys is None:
            self._tokenize([p])
        if slot is not None:
            self._postings.remove(slot)
            docs.kill(slot)
        new = self._postings.stage(p.keys) if bulk else self._postings.add(*key_counts(p.keys))
        docs.add(new, p.id, p.text, p.theme, p.updated, p.hit, p.spans or [], p.stamp, p.fp)
        p.keys = None
        self._dirty = True
        if bulk and self._postings.needs_flush():
            self._postings.flush()

    def _drop(self, mid: str) -> None:
        slot = self._docs.slot_of.get(mid)
        if slot is not None:
            self._postings.remove(slot)
            self._docs.kill(slot)
            self._dirty = True

    def _compact(self) -> None:
        mapping = self._postings.compact()
        self._docs.compact(mapping)

    def _diff_plan(self, items: Mapping[str, CardFields | MemoryItem]) -> tuple[list[_Prepared], list[str]]:
        """(memories to install or touch, ids to drop); nothing tokenized yet. Only the fields the
        index keeps are taken from the store's snapshot, which the caller should not hold on to."""
        prepared = [self._prepare(mid, item, tokenize=False) for mid, item in items.items()]
        gone = [mid for mid in self._docs.slot_of if mid not in items]
        return prepared, gone

    def _is_new(self, p: _Prepared) -> bool:
        slot = self._docs.slot_of.get(p.id)
        return slot is None or int(self._docs.fp[slot]) != p.fp

    def _diff_inline(self) -> None:
        """Re-read the store and bring the index in line with it, tokenizing new or changed memories
        a batch at a time (lock held)."""
        prepared, gone = self._diff_plan(card_fields(self._mm))
        for mid in gone:
            self._drop(mid)
        todo = [p for p in prepared if self._is_new(p)]
        for p in prepared:
            if not self._is_new(p):
                self._install(p)  # a touch: hits and times
        del prepared  # what is installed lives in the index; the rest goes as it is installed
        self._report(0, len(todo))
        for start in range(0, len(todo), lc.BATCH):
            batch = todo[start : start + lc.BATCH]
            self._tokenize(batch)
            for p in batch:
                self._install(p, bulk=True)
            todo[start : start + lc.BATCH] = [None] * len(batch)  # installed: its fields live in the index
            self._report(start + len(batch), len(todo))
        self._postings.flush()
        tok.release_memos()

    # ── lifecycle ─────────────────────────────────────────────────────────

    def warm_up(self, progress: Callable[[IndexProgress], None] | None = None) -> None:
        """Load the saved index (or build it: jieba and ~0.1 s per 1,000 memories) and bring it up
        to date, then load jieba's dictionary (queries answer without it, but read unknown words
        better with it) and the lexicon's tables (the English one: ~0.2 s); blocking until done:
        call it from a worker thread at start-up.
        ``progress`` hears how far a build of more than ``progress.REPORT_FROM`` memories has come
        (from this thread or the build's), and once more with ``finished`` at the end."""
        self._progress = progress
        try:
            with self._lock:
                self._refresh()
            self._life.join_worker()
            with self._lock:
                self._refresh()
            if self._reported:
                self._report(self._reported[1], self._reported[1], finished=True)
        finally:
            self._progress, self._reported = None, None
        tok.warm_up()
        lexicon_warm_up()  # the English table too: never loaded on a reply's path

    def _report(self, done: int, total: int, finished: bool = False) -> None:
        listener = self._progress
        if listener is None or total < REPORT_FROM:
            return
        self._reported = (done, total)
        try:
            listener(IndexProgress(done, total, finished))
        except Exception:
            log.warning("recall index: progress listener failed", exc_info=True)

    def close(self) -> None:
        """Stop following the store's change feed and save the index if it changed."""
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        self._life.stop.set()
        self._life.join_worker()
        self._life.stop.clear()
        with self._lock:
            if not self._life.started:
                return
            try:
                # read first: a later write makes it stale, never wrong; an unfinished background
                # build or verification saves no token, so the next start verifies again
                token = self._life.version_token() if self._life.verified else None
                self._refresh()
                if self._dirty:
                    self._life.save(token)
            except Exception as exc:  # noqa: BLE001 - closing must not fail over a cache
                log.warning("recall index: not saved on close: %s", exc)

    # ── ranking ───────────────────────────────────────────────────────────

    def _known(self, terms: list[str]) -> list[bool]:
        return self._postings.holds(terms)  # (lock held: asked by ``_analyze``)

    def _analyze(self, prompt: str, moment: datetime) -> Query:
        """The query's analysis (lock held), made once while the index, its themes and the word cutter are
        as it read them (``ANALYSES_KEPT``): it reads only the day of ``moment``. Nobody changes a ``Query``."""
        on = (self._postings, self._postings.generation, tuple(self._docs.theme_names), tok.loaded_cut() is not None)
        if ANALYSES_KEPT <= 0 or on[0] is not self._analysed_on[0] or on[1:] != self._analysed_on[1:]:
            self._analyses, self._analysed_on = {}, on
        key = (prompt, moment.date())
        query = self._analyses.get(key)
        if query is None:
            query = analyze(prompt, moment, self._lexicon, frozenset(self._docs.theme_names), self._known)
            if ANALYSES_KEPT > 0:
                if len(self._analyses) >= ANALYSES_KEPT:
                    del self._analyses[next(iter(self._analyses))]
                self._analyses[key] = query
        return query

    def _public(self, ranked: list[tuple[int, float]]) -> list[tuple[dict, float]]:
        """What recall hands on: the memory with its date and use count (nobody re-reads the store)."""
        docs = self._docs
        names = docs.theme_names
        return [({"id": docs.ids[s], "description": docs.texts[s], "theme": names[int(docs.theme[s])],
                  "date": docs.stamps[s][:10], "latest_update_time": docs.stamps[s], "hit": int(docs.hit[s])},
                 round(score, 4)) for s, score in ranked]

    def _rank(self, prompt: str, now: datetime | None, limit: int | None,
              floor: bool = False) -> tuple[Query, list[tuple[dict, float]], float]:
        """Scored memories, best first (the best ``limit`` only, if given), and with ``floor`` the
        relevance floor of this query in this bank (``sc.bank_floor``; else ``min_score``)."""
        moment = now or self._now()
        self._in_step(prompt, moment)
        with self._lock:
            self._refresh()
            query = self._analyze(prompt, moment)
            if not len(self._docs):
                return query, [], self.min_score
            at = sc.bank_floor(self._postings, query, self.min_score) if floor and not query.broad else self.min_score
            if query.broad:
                ranked = sc.broad_ranking(self._postings, self._docs, query, moment, limit or len(self._docs))
            else:
                scores = sc.score(self._postings, self._docs, self._lexicon, query, limit, self.min_score)
                ranked = [(s, float(scores[s])) for s in sc.top(scores, self._docs, limit)]
            return query, self._public(ranked), at

    # ── public API ────────────────────────────────────────────────────────

    def scored(self, prompt: str, k: int | None = None, *, now: datetime | None = None) -> list[tuple[dict, float]]:
        """Every memory with a positive score, best first, with its score (no floor). Broad questions
        are ranked by recency and hit count."""
        return self._rank(prompt, now, k)[1]

    def scored_query(self, prompt: str, k: int | None = None, *,
                     now: datetime | None = None) -> tuple[bool, list[tuple[dict, float]]]:
        """(whether ``prompt`` is a broad question, answered by recency and hit count; ``scored``)."""
        query, ranked, _ = self._rank(prompt, now, k)
        return bool(query.broad), ranked

    def retrieve(self, prompt: str, k: int | None = None, *, now: datetime | None = None,
                 context: str = "") -> list[dict]:
        """``[{id, description, theme, date, latest_update_time, hit}]`` most relevant first; ``[]``
        when nothing clears the floor (``min_score`` scaled by how common the question's words are in
        the bank: ``sc.bank_floor``).

        ``context``: the conversation's lines before the message. A follow-up ("那它平时乖吗") names
        little of what it is about: one place in four (``CONTEXT_SHARE``, and every place the message's
        own memories leave) goes to the memories of the message after its context (``joined``), each
        clearing that query's floor. Not for a self-contained task or a general question (they ask for
        no memory unless they name it) nor a broad one (answered by recency). Measured with
        bench/recall_context.py (each bank among 10,000 others): MADial's follow-ups 0.306 → 0.380 of
        the gold in the answer; a question after two lines on another topic 0.695 → 0.672 (one place in
        eight: 0.346 / 0.684; filling only the places left: no change, a bank of 10,000 fills them)."""
        k = self.top_k if k is None else k
        if k <= 0:
            return []
        query, ranked, floor = self._rank(prompt, now, k, floor=True)
        if query.broad:
            return [doc for doc, _ in ranked[:BROAD_TOP]]
        floor *= TASK_FLOOR_FACTOR if query.task else 1.0
        kept = [doc for doc, score in ranked if score >= floor][:k]
        kept = self._covering(query, kept) if query.general and kept else kept
        if context.strip() and not (query.task or query.general):
            more = self.retrieve(joined(context, prompt), k, now=now)
            places = {doc["id"]: doc for doc in kept + more}
            kept = [places[mid] for mid in interleave([d["id"] for d in kept], [d["id"] for d in more],
                                                        1 - CONTEXT_SHARE)][:k]
        return kept

    def _covering(self, query: Query, docs: list[dict]) -> list[dict]:
        """A general-knowledge question keeps only the memories that account for most of it."""
        with self._lock:
            slots = [self._docs.slot_of.get(d["id"]) for d in docs]
            live = [(d, s) for d, s in zip(docs, slots, strict=True) if s is not None]
            shares = gq.coverage(self._postings, self._lexicon, query, [s for _, s in live], BROAD_FILLER)
        if shares is None:
            return docs
        return [d for d, s in live
                if shares[s] >= gq.MIN_COVERAGE or gq.names_subject(query.text, d.get("description") or "")]

    def candidates(self, prompt: str, k: int = 60, *, now: datetime | None = None) -> list[dict]:
        """The top ``k`` by score without the floor, filled up with recent and much-used memories
        when the prompt matches fewer than ``k`` (for an LLM to choose from)."""
        return self.scored_candidates(prompt, k, now=now)[1]

    def scored_candidates(self, prompt: str, k: int = 60, *,
                          now: datetime | None = None) -> tuple[list[tuple[dict, float]], list[dict]]:
        """(``scored``, ``candidates``) of ``prompt`` from one analysis of it."""
        if k <= 0:
            return [], []
        moment = now or self._now()
        _, ranked, _ = self._rank(prompt, moment, k)
        out = [doc for doc, _ in ranked[:k]]
        if len(out) < k:
            with self._lock:
                seen = {self._docs.slot_of[d["id"]] for d in out if d["id"] in self._docs.slot_of}
                more = sc.recency_ranking(self._docs, moment, k - len(out), seen)
                out += [doc for doc, _ in self._public(more)]
        return ranked, out

    def lookalikes(self, text: str, k: int) -> list[dict]:
        """The ``k`` memories that share the most of ``text``'s wording (BM25 over its character pairs
        and ASCII words as written: no word analysis, expansion, feedback, theme or date): the
        candidates of a duplicate search, which compares wording. Costs what the rarer terms'
        postings hold (``Postings.best``: the memories a common word alone could not lift among
        the best are not scored), the same memories in the same order as a full scoring."""
        keys = {term_key(term): 1.0 for term in tok.surface_terms(text)}
        if k <= 0 or not keys:
            return []
        self._in_step()
        with self._lock:
            self._refresh()
            if not len(self._docs):
                return []
            best = self._postings.best(keys, k)  # the same memories in the same order, most of them left unscored
            if best is None:
                scores = self._postings.score(keys)
                return [doc for doc, _ in self._public([(s, float(scores[s])) for s in sc.top(scores, self._docs, k)])]
            return [doc for doc, _ in self._public(sc.top_among(*best, self._docs, k))]

    def stats(self) -> dict[str, Any]:
        """Sizes of the index (for benchmarks and diagnostics)."""
        with self._lock:
            p = self._postings
            return {"memories": len(self._docs), "slots": p.n_slots, "terms": len(p.keys),
                    "postings": len(p.slots), "delta_docs": len(p.delta_docs)}
