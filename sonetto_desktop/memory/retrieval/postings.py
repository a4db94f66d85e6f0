"""Compact BM25 postings over hashed terms: a frozen, sorted base segment plus a small delta.

Terms are never stored as strings: a term is its 64-bit hash (``term_key``), so the term table
costs 16 bytes per distinct term. Documents are numbered by *slot* (an int); the base segment is
a CSR layout in numpy arrays (``keys`` sorted, ``starts``, ``slots`` uint32, ``tfs`` uint8), about
5 bytes per (term, document) pair. New and changed documents go to the delta (plain dicts) and
removed ones are only marked dead; :meth:`Postings.compact` folds the delta into a new base,
drops the dead and renumbers the slots (returning the old -> new map), in O(postings) numpy work.

Scores use a smoothed idf (Lucene's, always positive) divided by the idf of a term found in one document, so
a rare term matched once scores about its weight whatever the bank's size.
"""

from __future__ import annotations

import functools
import hashlib
import math
from array import array
from collections import Counter
from typing import Iterable, Mapping

import numpy as np

TF_MAX = 255
COMPACT_AFTER = 512  # delta documents (or dead slots) tolerated before compaction, at least
EXACT_BELOW = 2_000  # ... except that a bank smaller than this keeps no dead document (see needs_compaction)
FLUSH_AFTER = 100_000  # staged postings merged into the base at once, at least (and a quarter of the base)
KEEP_FRESH_MAX = 2_048  # a query asking more new terms than this, and mostly new ones, keeps none of them
HELD_MAX = 30_000  # terms whose answer ``holds`` keeps, ~3.4 MB (then it starts again; an import asks ~7,500)
MERGE_CHUNK = 1 << 15  # base terms merged with new postings per step (bounds a flush's temporary arrays)
SEARCH_ABOVE = 16  # best: a term with more postings than this many per candidate is searched, not read
BEST_FROM = 20_000  # best: with fewer postings than this nothing is left out (as quick) ...
SPARSE_BELOW = 4  # ... and they are scored document by document when 4 times as many are fewer than the slots
CHUNK_POSTINGS = 1 << 18  # best's one-off passes over the base read this many postings at a time, at most
CEILING_FROM = 256  # best: a term with more postings keeps its highest tf and shortest length
FIRST_READ = 1024  # best: the rarest terms' postings read first, at least (for a first k-th best score)


_KINDS = {"w:": 1, "b:": 2, "c:": 3}  # tokenize.WORD, BIGRAM, CHAR


def hash_term(term: str) -> int:
    """A stable 64-bit key for an index term (the same in every process and version): exact for a
    term of up to three characters below U+100000 (its kind in the top two bits, then its length
    and code points), else a blake2b digest."""
    kind = _KINDS.get(term[:2])
    n = len(term) - 2
    if kind is not None and 0 < n <= 3:
        key = n
        for ch in term[2:]:
            code = ord(ch)
            if code >> 20:
                break
            key = (key << 20) | code
        else:
            return (kind << 62) | key
    return int.from_bytes(hashlib.blake2b(term.encode("utf-8"), digest_size=8).digest(), "little")


term_key = functools.lru_cache(maxsize=4096)(hash_term)  # lexicon terms recur in every query

_KIND_OF_CODE = {ord(kind[0]): number for kind, number in _KINDS.items()}  # all three end in ":"


def term_keys(terms: list[str]) -> list[int]:
    """``hash_term`` of many terms (a query's candidate words: thousands): the terms of one to three
    characters below U+100000, most of them, are keyed together in numpy, the rest one by one."""
    out: list[int] = [0] * len(terms)
    by_size: dict[int, list[int]] = {}
    for i, term in enumerate(terms):
        by_size.setdefault(len(term), []).append(i)
    for size, where in by_size.items():
        n = size - 2
        if not 0 < n <= 3 or len(where) < 8:
            for i in where:
                out[i] = hash_term(terms[i])
            continue
        codes = np.frombuffer("".join([terms[i] for i in where]).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        codes = codes.reshape(len(where), size).astype(np.uint64)
        kinds = np.zeros(len(where), dtype=np.uint64)
        for code, number in _KIND_OF_CODE.items():
            kinds[codes[:, 0] == code] = number
        exact = (kinds > 0) & (codes[:, 1] == ord(":")) & (codes[:, 2:] < (1 << 20)).all(axis=1)
        keys = np.full(len(where), n, dtype=np.uint64)
        for column in range(2, size):  # as hash_term: the length, then each code point, 20 bits apiece
            keys = (keys << np.uint64(20)) | codes[:, column]
        keys |= kinds << np.uint64(62)
        for i, key, ok in zip(where, keys.tolist(), exact.tolist(), strict=True):
            out[i] = key if ok else hash_term(terms[i])
    return out


def _chunks(terms: np.ndarray, starts: np.ndarray) -> Iterable[np.ndarray]:
    """``terms`` (base term indices) in runs holding about ``CHUNK_POSTINGS`` postings (a term with more: alone)."""
    ends = np.cumsum(starts[terms + 1] - starts[terms])
    j0 = 0
    while j0 < len(terms):
        done = int(ends[j0 - 1]) if j0 else 0
        j1 = max(j0 + 1, int(np.searchsorted(ends, done + CHUNK_POSTINGS, side="right")))
        yield terms[j0:j1]
        j0 = j1


def term_counts(terms: Iterable[str], cache: dict[str, int] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(keys uint64, term frequencies uint8) of one document's terms."""
    counts = Counter(terms)
    keys = np.empty(len(counts), dtype=np.uint64)
    tfs = np.empty(len(counts), dtype=np.uint8)
    for i, (term, tf) in enumerate(counts.items()):
        if cache is None:
            key = term_key(term)
        else:
            key = cache.get(term)
            if key is None:
                key = cache[term] = term_key(term)
        keys[i] = key
        tfs[i] = min(tf, TF_MAX)
    return keys, tfs


def _numpy(values: array, dtype: type) -> np.ndarray:
    """A flat ``array.array`` as numpy (shared memory when it holds anything)."""
    return np.frombuffer(values, dtype=dtype) if len(values) else np.empty(0, dtype=dtype)


def key_counts(keys: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """(distinct keys uint64 sorted, term frequencies uint8) of one document's term keys."""
    distinct, counts = np.unique(np.array(keys, dtype=np.uint64), return_counts=True)
    return distinct, np.minimum(counts, TF_MAX).astype(np.uint8)


def smoothed_idf(n_docs: int, df: int) -> float:
    """``log(1 + (N - df + .5) / (df + .5))`` over the same for df = 1: in (0, 1]."""
    if n_docs <= 0 or df <= 0:
        return 0.0
    df = min(df, n_docs)
    top = math.log(1.0 + (n_docs - 1 + 0.5) / 1.5)
    return math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5)) / top


class Postings:
    """Inverted index of slots. Not thread-safe on its own (the retriever holds a lock)."""

    def __init__(self, k1: float = 1.2, b: float = 0.4) -> None:
        self.k1, self.b = k1, b
        self.keys = np.empty(0, dtype=np.uint64)  # base: sorted distinct term keys
        self.starts = np.zeros(1, dtype=np.int64)  # base: postings of keys[i] are [starts[i], starts[i+1])
        self.slots = np.empty(0, dtype=np.uint32)
        self.tfs = np.empty(0, dtype=np.uint8)
        self.delta: dict[int, dict[int, int]] = {}  # key -> {slot: tf}
        self.delta_docs: dict[int, np.ndarray] = {}  # slot -> its keys (to take it out again)
        self.lengths = np.zeros(0, dtype=np.uint32)  # per slot (dead slots keep theirs until compaction)
        self.alive = np.zeros(0, dtype=bool)
        self.n_slots = 0
        self.n_live = 0
        self.total_length = 0  # of live documents
        self.base_slots = 0  # slots below this may have base postings
        # added in bulk, not yet searchable: each document's term key occurrences, its slot, their count
        self._staged_keys: list[np.ndarray] = []
        self._staged_docs = array("q")
        self._staged_sizes = array("q")
        self.staged_postings = 0
        self._norm: np.ndarray | None = None
        self.generation = 0  # counts the changes: what a query's analysis read of the index is still so while it holds
        self._in_order: bool | None = None  # whether each base term's postings are in slot order (see best)
        self._ceilings: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None  # common terms' highest tf, shortest length
        self._mark: np.ndarray | None = None  # scratch for best (see _marks)
        # ``holds``'s answers by term, kept while no change could alter them, and the term each key answers for
        self._held: dict[str, bool] = {}
        self._held_key: dict[int, str] = {}

    # ── building ────────────────────────────────────────────────────────

    def _grow(self, need: int) -> None:
        if need <= len(self.alive):
            return
        size = max(need, 2 * len(self.alive), 64)
        self.lengths = np.resize(self.lengths, size)
        self.lengths[self.n_slots :] = 0
        alive = np.zeros(size, dtype=bool)
        alive[: self.n_slots] = self.alive[: self.n_slots]
        self.alive = alive

    def add(self, keys: np.ndarray, tfs: np.ndarray) -> int:
        """Index one document now (its distinct term keys and frequencies); returns its new slot."""
        slot = self._new_slot()
        length = int(tfs.sum(dtype=np.int64))
        self.lengths[slot] = length
        self.total_length += length
        held, held_key = self._held, self._held_key
        for key, tf in zip(keys.tolist(), tfs.tolist(), strict=True):
            self.delta.setdefault(key, {})[slot] = tf
            if key in held_key:
                held[held_key[key]] = True  # a document holds it now
        self.delta_docs[slot] = keys
        return slot

    def stage(self, occurrences: np.ndarray | list[int]) -> int:
        """Index one document in bulk, given its term keys with repeats; returns its new slot.

        The document is only searchable after :meth:`flush`, which merges everything staged into
        the base at once: staging keeps the document's key array, no per-posting objects."""
        slot = self._new_slot()
        self._staged_keys.append(np.asarray(occurrences, dtype=np.uint64))
        self._staged_docs.append(slot)
        self._staged_sizes.append(len(occurrences))
        self.staged_postings += len(occurrences)
        return slot

    def _new_slot(self) -> int:
        slot = self.n_slots
        self._grow(slot + 1)
        self.n_slots += 1
        self.alive[slot] = True
        self.n_live += 1
        self._norm = None
        self.generation += 1
        return slot

    @property
    def staged(self) -> bool:
        return bool(self._staged_docs)

    def remove(self, slot: int) -> None:
        """Take a document out: delta postings are dropped now, base ones at the next compaction."""
        if slot >= self.n_slots or not self.alive[slot]:
            return
        self.alive[slot] = False
        self.n_live -= 1
        self.total_length -= int(self.lengths[slot])
        keys = self.delta_docs.pop(slot, None)
        if keys is not None:
            for key in keys.tolist():
                posting = self.delta.get(key)
                if posting is not None:
                    posting.pop(slot, None)
                    if not posting:
                        del self.delta[key]
                        self._forget_held(key)  # held by a base document or by none now: asked again
        self._norm = None
        self.generation += 1

    def needs_compaction(self) -> bool:
        """Whether to fold the delta and drop the dead now. A dead base document still counts in its
        terms' document frequencies until then, which in a small bank moves a word's rarity a lot
        (two memories, one edited: the edited one's own words read as common and fell under recall's
        floor): a bank under ``EXACT_BELOW`` documents is compacted at its first dead one (a few ms)."""
        dead = self.n_slots - self.n_live
        if dead and self.n_live < EXACT_BELOW:
            return True
        return (len(self.delta_docs) > max(COMPACT_AFTER, self.n_live // 16)
                or dead > max(COMPACT_AFTER, self.n_slots // 8))

    def needs_flush(self) -> bool:
        return self.staged_postings > max(FLUSH_AFTER, len(self.slots) // 4)

    def flush(self) -> None:
        """Merge the staged documents into the base (slots unchanged)."""
        if not self._staged_docs:
            return
        keys = np.concatenate(self._staged_keys)
        self._staged_keys = []
        staged = _numpy(self._staged_docs, np.int64)
        slots = np.repeat(staged.astype(np.uint32), _numpy(self._staged_sizes, np.int64))
        if len(keys):
            # each posting as one number, the rank of its key then its slot: one plain sort of them gives
            # each document's distinct terms and counts in (key, slot) order (a stable argsort of the
            # keys took 5x as long)
            distinct, rank = np.unique(keys, return_inverse=True)
            pairs = np.sort((rank.astype(np.uint64) << np.uint64(32)) | slots)
            del keys, slots, rank
            firsts = np.flatnonzero(np.concatenate(([True], pairs[1:] != pairs[:-1])))
            counts = np.diff(np.append(firsts, len(pairs)))
            pairs = pairs[firsts]
            keys = distinct[(pairs >> np.uint64(32)).astype(np.intp)]
            slots = (pairs & np.uint64(0xFFFFFFFF)).astype(np.uint32)
            tfs = np.minimum(counts, TF_MAX).astype(np.uint8)
            del firsts, counts, pairs, distinct
        else:
            tfs = np.empty(0, dtype=np.uint8)
        lengths = np.bincount(slots, weights=tfs, minlength=self.n_slots)[: self.n_slots].astype(np.uint32)
        live = staged[self.alive[staged]]
        self.lengths[staged] = lengths[staged]
        self.total_length += int(lengths[live].sum(dtype=np.int64))
        del lengths, staged, live
        self._staged_docs, self._staged_sizes = array("q"), array("q")
        self.staged_postings = 0
        if len(self.slots):
            self._merge_newer(keys, slots, tfs)
        else:  # a first build: the staged postings are the base
            self._set_base(keys, slots.astype(np.uint32), tfs)
        self.base_slots = self.n_slots
        self._norm = None
        self.generation += 1
        self._forget_held()  # the staged documents' terms are held now

    def compact(self) -> np.ndarray:
        """Fold the delta (and anything staged) into the base, drop dead documents and renumber
        the live ones 0..n-1. Returns ``old slot -> new slot`` (-1 for dropped slots)."""
        self.flush()
        if not self.delta and self.n_live == self.n_slots:  # nothing to fold or drop (a fresh build)
            self.delta_docs, self._norm = {}, None
            self.generation += 1
            self.lengths = self.lengths[: self.n_slots].copy()
            self.alive = np.ones(self.n_slots, dtype=bool)
            self.base_slots = self.n_slots
            return np.arange(self.n_slots, dtype=np.int64)
        alive = self.alive[: self.n_slots]
        mapping = np.full(self.n_slots, -1, dtype=np.int64)
        mapping[alive] = np.arange(int(alive.sum()))
        # base postings, per posting: its key, new slot, tf (dead ones dropped)
        counts = np.diff(self.starts)
        post_keys = np.repeat(self.keys, counts)
        keep = alive[self.slots] if len(self.slots) else np.zeros(0, dtype=bool)
        post_keys, post_slots, post_tfs = post_keys[keep], mapping[self.slots[keep]], self.tfs[keep]
        d_keys, d_slots, d_tfs = [], [], []
        for key, posting in self.delta.items():
            for slot, tf in posting.items():
                d_keys.append(key)
                d_slots.append(slot)
                d_tfs.append(tf)
        self._merge(post_keys, post_slots, post_tfs, np.array(d_keys, dtype=np.uint64),
                    mapping[np.array(d_slots, dtype=np.int64)], np.array(d_tfs, dtype=np.uint8))
        live = int(alive.sum())
        self.lengths = self.lengths[: self.n_slots][alive].copy()
        self.alive = np.ones(live, dtype=bool)
        self.n_slots = self.n_live = self.base_slots = live
        self.delta, self.delta_docs, self._norm = {}, {}, None
        self.generation += 1
        self._forget_held()  # the terms of dead documents only are gone
        return mapping

    def _merge_newer(self, new_keys: np.ndarray, new_slots: np.ndarray, new_tfs: np.ndarray) -> None:
        """New base = base + postings sorted by (key, slot) whose slots are all above the base's,
        merged ``MERGE_CHUNK`` base terms at a time into the new arrays (no full-size temporaries)."""
        keys, starts, slots, tfs = self.keys, self.starts, self.slots, self.tfs
        total = len(slots) + len(new_keys)
        out_slots = np.empty(total, dtype=np.uint32)
        out_tfs = np.empty(total, dtype=np.uint8)
        key_parts: list[np.ndarray] = []
        start_parts: list[np.ndarray] = []
        at = lo = 0
        for j0 in range(0, len(keys), MERGE_CHUNK):
            j1 = min(j0 + MERGE_CHUNK, len(keys))
            # the new postings of keys below the next step's first key (all the rest at the last step)
            hi = len(new_keys) if j1 == len(keys) else int(np.searchsorted(new_keys, keys[j1], side="left"))
            part_keys = np.repeat(keys[j0:j1], np.diff(starts[j0 : j1 + 1]))
            part_slots, part_tfs = slots[starts[j0] : starts[j1]], tfs[starts[j0] : starts[j1]]
            if hi > lo:  # a key's new postings go after its base ones (newer slots)
                where = np.searchsorted(part_keys, new_keys[lo:hi], side="right")
                part_keys = np.insert(part_keys, where, new_keys[lo:hi])
                part_slots = np.insert(part_slots, where, new_slots[lo:hi])
                part_tfs = np.insert(part_tfs, where, new_tfs[lo:hi])
            n = len(part_keys)
            out_slots[at : at + n] = part_slots
            out_tfs[at : at + n] = part_tfs
            firsts = np.concatenate(([0], np.flatnonzero(part_keys[1:] != part_keys[:-1]) + 1))
            key_parts.append(part_keys[firsts])
            start_parts.append(firsts + at)
            at += n
            lo = hi
        self.keys = np.concatenate(key_parts)
        self.starts = np.concatenate((*start_parts, [total])).astype(np.int64)
        self.slots, self.tfs = out_slots, out_tfs
        self._in_order = self._ceilings = None

    def _merge(self, post_keys: np.ndarray, post_slots: np.ndarray, post_tfs: np.ndarray,
               dk: np.ndarray, ds: np.ndarray, dt: np.ndarray) -> None:
        """New base = base postings (sorted by key) + extra postings (any order)."""
        if len(dk):
            order = np.lexsort((ds, dk))
            dk, ds, dt = dk[order], ds[order], dt[order]
            at = np.searchsorted(post_keys, dk, side="right")
            post_keys = np.insert(post_keys, at, dk)
            post_slots = np.insert(post_slots.astype(np.uint32), at, ds.astype(np.uint32))
            post_tfs = np.insert(post_tfs, at, dt)
        self._set_base(post_keys, post_slots.astype(np.uint32, copy=False), post_tfs)

    def _set_base(self, post_keys: np.ndarray, slots: np.ndarray, tfs: np.ndarray) -> None:
        if len(post_keys):
            edges = np.flatnonzero(post_keys[1:] != post_keys[:-1]) + 1
            firsts = np.concatenate(([0], edges))
            self.keys = post_keys[firsts].copy()
            self.starts = np.concatenate((firsts, [len(post_keys)])).astype(np.int64)
        else:
            self.keys = np.empty(0, dtype=np.uint64)
            self.starts = np.zeros(1, dtype=np.int64)
        self.slots, self.tfs = slots, tfs
        self._in_order = self._ceilings = None

    # ── persistence (arrays only) ─────────────────────────────────────────

    def arrays(self) -> dict[str, np.ndarray]:
        """The compacted index as arrays (call :meth:`compact` first)."""
        assert not self.delta_docs and not self.staged and self.n_slots == self.n_live, "compact before saving"
        return {"keys": self.keys, "starts": self.starts, "slots": self.slots, "tfs": self.tfs,
                "lengths": self.lengths[: self.n_slots]}

    @classmethod
    def from_arrays(cls, data: Mapping[str, np.ndarray]) -> "Postings":
        p = cls()
        keys, starts = np.asarray(data["keys"], np.uint64), np.asarray(data["starts"], np.int64)
        slots, tfs = np.asarray(data["slots"], np.uint32), np.asarray(data["tfs"], np.uint8)
        lengths = np.asarray(data["lengths"], np.uint32)
        n = len(lengths)
        ok = (len(starts) == len(keys) + 1 and starts[0] == 0 and starts[-1] == len(slots) == len(tfs)
              and bool(np.all(np.diff(starts) > 0)) and bool(np.all(keys[1:] > keys[:-1]))
              and (not len(slots) or int(slots.max()) < n))
        if not ok:
            raise ValueError("inconsistent postings arrays")
        p.keys, p.starts, p.slots, p.tfs = keys, starts, slots, tfs
        p.lengths = lengths.copy()
        p.alive = np.ones(n, dtype=bool)
        p.n_slots = p.n_live = p.base_slots = n
        p.total_length = int(lengths.sum(dtype=np.int64))
        return p

    # ── queries ─────────────────────────────────────────────────────────

    def _base_ranges(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if not len(self.keys):
            zero = np.zeros(len(keys), dtype=np.int64)
            return zero, zero
        at = np.minimum(np.searchsorted(self.keys, keys), len(self.keys) - 1)
        found = self.keys[at] == keys
        return np.where(found, self.starts[at], 0), np.where(found, self.starts[at + 1], 0)

    def doc_freqs(self, keys: list[int]) -> list[int]:
        """How many documents contain each key (dead base documents count until compaction)."""
        if not keys:
            return []
        lo, hi = self._base_ranges(np.array(keys, dtype=np.uint64))
        return [int(h - low) + len(self.delta.get(k, ())) for k, low, h in zip(keys, lo, hi, strict=True)]

    def contains(self, keys: list[int]) -> list[bool]:
        """Whether any document contains each key (``doc_freqs(keys)`` > 0, without counting them)."""
        if not keys:
            return []
        lo, hi = self._base_ranges(np.array(keys, dtype=np.uint64))
        found = (hi > lo).tolist()
        delta = self.delta
        return [hit or key in delta for key, hit in zip(keys, found, strict=True)] if delta else found

    def holds(self, terms: list[str]) -> list[bool]:
        """``contains`` of index terms, each answer kept until a change could alter it: a document
        added holds its terms (the answer becomes True), one taken out asks its delta terms again, a flush
        or a compaction asks everything again. The same answers as ``contains(term_keys(terms))``; the
        query analyses of an import's batches, which write between them, ask mostly the same terms."""
        held = self._held
        fresh = [t for t in terms if t not in held]
        if not fresh:
            return [held[t] for t in terms]
        keys = term_keys(fresh)
        answers = self.contains(keys)
        if len(fresh) == len(terms):
            out = answers
        else:
            got = dict(zip(fresh, answers, strict=True))
            out = [got[t] if t in got else held[t] for t in terms]
        if len(fresh) > KEEP_FRESH_MAX and 2 * len(fresh) > len(terms):
            return out  # mostly new words (a new text's sound-alike guesses): keeping them costs more than it saves
        if len(held) + len(fresh) > HELD_MAX:
            self._forget_held()
            held = self._held
        held_key = self._held_key
        held.update(zip(fresh, answers, strict=True))
        held_key.update(zip(keys, fresh, strict=True))
        if len(held_key) != len(held):  # two terms of one key (a 64-bit digest's collision): keep none
            self._forget_held()
        return out

    def _forget_held(self, key: int | None = None) -> None:
        if key is None:
            self._held, self._held_key = {}, {}
        elif (term := self._held_key.pop(key, None)) is not None:
            del self._held[term]

    def _norms(self) -> np.ndarray:
        if self._norm is None or len(self._norm) != self.n_slots:
            avg = (self.total_length / self.n_live) if self.n_live else 1.0
            lengths = self.lengths[: self.n_slots].astype(np.float64)
            self._norm = self.k1 * (1.0 - self.b + self.b * lengths / (avg or 1.0))
        return self._norm

    def score(self, weighted: Mapping[int, float]) -> np.ndarray:
        """Dense float64 scores over slots (0 for documents matching nothing, and for dead ones).

        Every matched posting's share is computed at once and summed per slot by ``np.bincount`` in
        the terms' order, the order a loop over the terms adds them in (a slot's postings are all in
        the base or all in the delta): the same sums to the last bit, without a numpy pass per term."""
        scores = np.zeros(self.n_slots, dtype=np.float64)
        items = [(k, w) for k, w in weighted.items() if w > 0]
        if not items or not self.n_live:
            return scores
        keys = np.array([k for k, _ in items], dtype=np.uint64)
        lo, hi = self._base_ranges(keys)
        norm = self._norms()
        k1, n_live, delta = self.k1, self.n_live, self.delta
        counts = hi - lo
        extras = [delta.get(key) for key, _ in items] if delta else None
        dfs = counts + np.array([len(extra) if extra else 0 for extra in extras]) if extras else counts
        factors = [0.0] * len(items)
        d_slots: list[int] = []
        d_tfs: list[int] = []
        d_factors: list[float] = []
        for i, df in zip(np.flatnonzero(dfs).tolist(), dfs[dfs > 0].tolist(), strict=True):  # the terms found
            factor = factors[i] = items[i][1] * smoothed_idf(n_live, df) * (k1 + 1)
            extra = extras[i] if extras else None
            if extra:
                d_slots.extend(extra)
                d_tfs.extend(extra.values())
                d_factors.extend([factor] * len(extra))
        total = int(counts.sum())
        if total:
            # the base postings of every term, one after another: posting i of term t at lo[t] + i
            at = np.repeat(lo - (np.cumsum(counts) - counts), counts) + np.arange(total)
            slots = self.slots[at]
            tf = self.tfs[at].astype(np.float64)
            share = np.repeat(np.array(factors), counts) * tf / (tf + norm[slots])
            scores = np.bincount(slots, weights=share, minlength=self.n_slots)  # (0 + each sum: the sum)
        if d_slots:
            slots = np.array(d_slots, dtype=np.intp)
            tf = np.array(d_tfs, dtype=np.float64)
            share = np.array(d_factors) * tf / (tf + norm[slots])
            scores += np.bincount(slots, weights=share, minlength=self.n_slots)
        if self.n_live < self.n_slots:
            scores[~self.alive[: self.n_slots]] = 0.0
        return scores

    # ── the best documents without scoring them all ────────────────────

    def _slot_ordered(self) -> bool:
        """Put every base term's postings in slot order (``best`` searches them), as a flush and a
        compaction mostly leave them: not a memory written while others were being added in bulk,
        whose postings a compaction puts after theirs. Checked once per base; the terms out of order
        are sorted where they are (the content is the same)."""
        if self._in_order is None:
            slots, starts = self.slots, self.starts
            last = len(slots) - 1
            falls = [np.flatnonzero(slots[a + 1 : b + 1] <= slots[a:b]) + a + 1  # (bounded temporaries)
                     for a in range(0, max(last, 0), CHUNK_POSTINGS) for b in [min(a + CHUNK_POSTINGS, last)]]
            falls = np.concatenate(falls) if falls else np.empty(0, dtype=np.int64)
            inside = falls[starts[np.searchsorted(starts, falls)] != falls]  # a term may only start lower
            if len(inside):
                terms = np.unique(np.searchsorted(starts, inside, side="right") - 1)
                # in place (the retriever's lock is held, as when the index is saved): no second base
                # (28 MB at 100,000 memories) for a moment
                if not (slots.flags.writeable and self.tfs.flags.writeable):
                    self.slots, self.tfs = slots.copy(), self.tfs.copy()
                slots, tfs = self.slots, self.tfs
                for part in _chunks(terms, starts):
                    counts = starts[part + 1] - starts[part]
                    at = np.repeat(starts[part] - (np.cumsum(counts) - counts), counts) + np.arange(int(counts.sum()))
                    rank = np.repeat(np.arange(len(part), dtype=np.uint64), counts)
                    order = np.argsort((rank << np.uint64(32)) | slots[at].astype(np.uint64))
                    slots[at] = slots[at][order]
                    tfs[at] = tfs[at][order]
            self._in_order = True
        return self._in_order

    def _base_ceilings(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(terms, highest tf, shortest length) of the base terms with more than ``CEILING_FROM``
        postings (the common words, ~1 in 20: 7 bytes each), made once per base; a rarer term's are
        read with its postings when asked (:meth:`_ceilings_of`)."""
        if self._ceilings is None:
            terms = np.flatnonzero(np.diff(self.starts) > CEILING_FROM).astype(np.int32)
            self._ceilings = (terms, *self._ceilings_of(terms))
        return self._ceilings

    def _ceilings_of(self, terms: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per base term of ``terms``, the highest tf and the shortest document length among its
        postings (the length capped at 65,535: a lower bound still)."""
        top_tf = np.empty(len(terms), dtype=np.uint8)
        shortest = np.empty(len(terms), dtype=np.uint16)
        j0 = 0
        for part in _chunks(terms, self.starts):
            lo = self.starts[part]
            counts = self.starts[part + 1] - lo
            firsts = np.cumsum(counts) - counts
            at = np.repeat(lo - firsts, counts) + np.arange(int(counts.sum()))
            top_tf[j0 : j0 + len(part)] = np.maximum.reduceat(self.tfs[at], firsts)
            lengths = np.minimum.reduceat(self.lengths[self.slots[at]], firsts)
            shortest[j0 : j0 + len(part)] = np.minimum(lengths, 0xFFFF)
            j0 += len(part)
        return top_tf, shortest

    def _shares(self, terms: np.ndarray, lo: np.ndarray, counts: np.ndarray,
                factors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(slots, shares) of the base postings of ``terms`` (indices into ``lo``/``counts``/``factors``),
        one term after another, each share as :meth:`score` computes it."""
        counts = counts[terms]
        total = int(counts.sum())
        if not total:
            return np.empty(0, dtype=np.uint32), np.empty(0)
        at = np.repeat(lo[terms] - (np.cumsum(counts) - counts), counts) + np.arange(total)
        slots = self.slots[at]
        tf = self.tfs[at].astype(np.float64)
        return slots, np.repeat(factors[terms], counts) * tf / (tf + self._norms()[slots])

    def best(self, weighted: Mapping[int, float], k: int) -> tuple[np.ndarray, np.ndarray] | None:
        """(slots in ascending order, their scores): every live document whose :meth:`score` can be
        among the ``k`` best (each tie with the k-th included), scored exactly as :meth:`score` scores
        it (the same sums to the last bit), without scoring the others; None when no document can be
        left out (the caller scores them all).

        MaxScore: a term's share in a document is at most its factor times ``tf / (tf + norm)`` with
        the term's highest tf and its shortest document's norm (``_base_ceilings``), so a document
        found only under the terms whose bounds add up to less than the k-th best score cannot be
        among the best (nor can one whose sum so far and the bounds of the terms not read stay
        below it). The k-th best is bounded from below by the k-th best sum over the rarest terms'
        postings (few: read first, ``FIRST_READ``); the documents left are then scored over every
        term (a common word's postings, in slot order, are searched for them, not read). Below
        ``BEST_FROM`` postings, or when more than half of them would be read, nothing is left out:
        every document holding a term is scored when they are few next to the slots (no pass over
        every slot), else None (the caller scores every slot at once)."""
        items = [(key, w) for key, w in weighted.items() if w > 0]
        if k <= 0 or not items or not self.n_live:
            return None
        keys = np.array([key for key, _ in items], dtype=np.uint64)
        lo, hi = self._base_ranges(keys)
        counts = hi - lo
        delta = self.delta
        extras = [delta.get(key) for key, _ in items] if delta else [None] * len(items)
        dfs = counts + np.array([len(extra) if extra else 0 for extra in extras], dtype=np.int64)
        # a document holding none of the terms scores 0: when they hold few postings next to the
        # slots, every document holding one is scored (no pass over every slot), else all at once
        total = int(dfs.sum())
        sparse = total * SPARSE_BELOW < self.n_slots
        if (total < BEST_FROM and not sparse) or not self._slot_ordered():
            return None  # (decided before any more work: the caller scores every slot at once)
        n_live, k1 = self.n_live, self.k1
        factors = np.array([w * smoothed_idf(n_live, df) * (k1 + 1) if df else 0.0
                            for (_, w), df in zip(items, dfs.tolist(), strict=True)])
        bound = self._bounds(keys, counts, extras, factors)
        order = np.argsort(-bound, kind="stable")
        order = order[factors[order] > 0]
        if not len(order):
            return None
        rest = np.append(np.cumsum(bound[order][::-1])[::-1], 0.0)  # rest[j]: what order[j:] can add at most
        sizes = dfs[order]
        if total < BEST_FROM:
            return self._holding(order, lo, counts, extras, factors)
        budget = total // 2  # reading more than half of the postings: score them all
        alive = self.alive
        j = max(1, int(np.searchsorted(np.cumsum(sizes), min(FIRST_READ, budget), side="right")))
        while True:
            taken = order[:j]
            if int(sizes[:j].sum()) > budget:
                return self._holding(order, lo, counts, extras, factors) if sparse else None
            slots, shares = self._shares(taken, lo, counts, factors)
            d_slots, d_shares, _ = self._delta_shares(taken, extras, factors)
            every = np.concatenate((slots, d_slots))
            found, where = np.unique(every, return_inverse=True)
            partial = np.bincount(where, weights=np.concatenate((shares, d_shares)))
            live = partial[alive[found]]
            theta = float(np.partition(live, len(live) - k)[len(live) - k]) if len(live) >= k else 0.0
            theta *= 1.0 - 1e-9  # (a sum in another order)
            enough = np.flatnonzero(rest < theta)  # from enough[0] on the terms cannot lift a document to theta
            if len(enough) and int(enough[0]) <= j:
                needed = int(enough[0])
                break
            if j >= len(order):
                return self._holding(order, lo, counts, extras, factors) if sparse else None
            j = int(enough[0]) if len(enough) else min(len(order), 2 * j)  # (theta only grows with j)
        # the documents of the terms from order[needed:] on only are left out; of the others, those
        # whose sum so far and all the other terms could add stay below theta too
        keep = alive[found] & ((partial + rest[j]) * (1.0 + 1e-9) >= theta)
        if needed < j:
            held = np.zeros(len(found), dtype=bool)
            held[where[: int(counts[order[:needed]].sum())]] = True
            d_part = sum(len(extras[i] or ()) for i in order[:needed].tolist())
            held[where[len(slots) : len(slots) + d_part]] = True
            keep &= held
        cand = found[keep].astype(np.int64)
        return cand, self._scores_of(cand, lo, counts, extras, factors)

    def _bounds(self, keys: np.ndarray, counts: np.ndarray, extras: list, factors: np.ndarray) -> np.ndarray:
        """``best``'s bound of each term's share in a document: at most its factor times tf / (tf + norm)
        with its highest tf and its shortest document's norm (a delta document's share is computed)."""
        bound = np.zeros(len(keys))
        found = np.flatnonzero(counts)
        if len(found):
            at = np.searchsorted(self.keys, keys[found])
            common, common_tf, common_short = self._base_ceilings()
            place = np.minimum(np.searchsorted(common, at), max(len(common) - 1, 0))
            kept = common[place] == at if len(common) else np.zeros(len(at), dtype=bool)
            tf, short = np.empty(len(at)), np.empty(len(at))
            tf[kept], short[kept] = common_tf[place[kept]], common_short[place[kept]]
            tf[~kept], short[~kept] = self._ceilings_of(at[~kept])
            avg = (self.total_length / self.n_live) or 1.0
            bound[found] = factors[found] * tf / (tf + self.k1 * (1.0 - self.b + self.b * short / avg))
        if self.delta:
            d_terms = np.flatnonzero([bool(extra) for extra in extras])
            _, d_shares, d_term = self._delta_shares(d_terms, extras, factors)
            np.maximum.at(bound, d_term, d_shares)
        return bound * (1.0 + 1e-9)  # (the shares' rounding)

    def _holding(self, terms: np.ndarray, lo: np.ndarray, counts: np.ndarray, extras: list,
                 factors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``best``'s answer with nothing left out: every live document holding one of ``terms``, scored."""
        slots, _ = self._shares(terms, lo, counts, factors)
        d_slots, _, _ = self._delta_shares(terms, extras, factors)
        cand = np.unique(np.concatenate((slots, d_slots))).astype(np.int64)
        cand = cand[self.alive[cand]]
        return cand, self._scores_of(cand, lo, counts, extras, factors)

    def _delta_shares(self, terms: np.ndarray, extras: list,
                      factors: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(slots, shares, term of each) of the delta postings of ``terms``, one term after another."""
        d_slots: list[int] = []
        d_tfs: list[int] = []
        d_factors: list[float] = []
        d_terms: list[int] = []
        for i in terms.tolist():
            extra = extras[i]
            if extra:
                d_slots.extend(extra)
                d_tfs.extend(extra.values())
                d_factors.extend([float(factors[i])] * len(extra))
                d_terms.extend([i] * len(extra))
        if not d_slots:
            return np.empty(0, dtype=np.uint32), np.empty(0), np.empty(0, dtype=np.int64)
        slots = np.array(d_slots, dtype=np.uint32)
        tf = np.array(d_tfs, dtype=np.float64)
        return slots, np.array(d_factors) * tf / (tf + self._norms()[slots]), np.array(d_terms, dtype=np.int64)

    def _scores_of(self, cand: np.ndarray, lo: np.ndarray, counts: np.ndarray, extras: list,
                   factors: np.ndarray) -> np.ndarray:
        """:meth:`score`'s values of the slots ``cand`` (ascending): each term's shares in the terms'
        order, as ``np.bincount`` adds them there. A term with few postings is read and its slots
        looked up among ``cand``; a common one's postings (in slot order) are searched for ``cand``."""
        norm = self._norms()
        n = len(cand)
        if not n:
            return np.zeros(0)
        terms = np.flatnonzero(factors > 0)
        small = terms[counts[terms] <= SEARCH_ABOVE * n]
        mark = self._marks()
        mark[cand] = np.arange(n)  # slot -> its place in cand (-1 elsewhere: put back below)
        try:
            parts_term: list[np.ndarray] = []
            parts_at: list[np.ndarray] = []
            parts_share: list[np.ndarray] = []
            if len(small):
                slots, shares = self._shares(small, lo, counts, factors)
                at = mark[slots]
                hit = at >= 0
                parts_term.append(np.repeat(small, counts[small])[hit])
                parts_at.append(at[hit])
                parts_share.append(shares[hit])
            wanted = cand.astype(self.slots.dtype)  # (searched as they are: an int64 one would copy the segment)
            for i in np.setdiff1d(terms, small, assume_unique=True).tolist():
                segment = self.slots[lo[i] : lo[i] + counts[i]]
                at = np.minimum(np.searchsorted(segment, wanted), len(segment) - 1)
                hit = np.flatnonzero(segment[at] == wanted)
                tf = self.tfs[lo[i] + at[hit]].astype(np.float64)
                parts_term.append(np.full(len(hit), i))
                parts_at.append(hit)
                parts_share.append(np.repeat(factors[i], len(hit)) * tf / (tf + norm[cand[hit]]))
            # delta documents have no base postings: their sums come after, in the terms' order as well
            d_slots, d_shares, _ = self._delta_shares(terms, extras, factors)
            if len(d_slots):
                at = mark[d_slots]
                hit = at >= 0
                parts_term.append(np.full(int(hit.sum()), len(factors)))
                parts_at.append(at[hit])
                parts_share.append(d_shares[hit])
        finally:
            mark[cand] = -1
        in_order = np.argsort(np.concatenate(parts_term), kind="stable")
        return np.bincount(np.concatenate(parts_at)[in_order], weights=np.concatenate(parts_share)[in_order],
                           minlength=n)

    def _marks(self) -> np.ndarray:
        """A slot-sized scratch array of -1 (each use puts back what it set)."""
        if self._mark is None or len(self._mark) < self.n_slots:
            self._mark = np.full(max(self.n_slots, 64) * 5 // 4, -1, dtype=np.int32)
        return self._mark
