"""An incremental BM25 index that behaves on small banks.

``BM25Okapi``'s idf, ``log((N - n + 0.5) / (n + 0.5))``, is zero or negative once a term is in
half the documents — on a 10-memory bank a word in five memories counts *against* them. We use the
smoothed idf ``log(1 + (N - n + 0.5) / (n + 0.5))`` (always positive, Lucene's choice) and divide it
by the idf of a term found in a single document, so scores sit on a scale that does not drift with
the bank's size: a rare word matched once contributes about ``weight``; a word in every memory
contributes almost nothing. That is what lets one relevance floor work for 10 and 10,000 memories.

Documents are added and removed one at a time (an inverted index of postings), so keeping the
index in step with the store costs only the changed memories.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Hashable, Iterable, Mapping


class BM25Index:
    """Inverted-index BM25 with smoothed, size-normalised idf. Not thread-safe on its own."""

    def __init__(self, k1: float = 1.2, b: float = 0.4) -> None:
        self.k1 = k1
        self.b = b
        self._docs: dict[Hashable, Counter[str]] = {}
        self._lengths: dict[Hashable, int] = {}
        self._postings: dict[str, dict[Hashable, int]] = {}
        self._total_length = 0

    def __len__(self) -> int:
        return len(self._docs)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._docs

    def add(self, key: Hashable, terms: Iterable[str]) -> None:
        """Index a document (replacing any previous version under ``key``)."""
        if key in self._docs:
            self.remove(key)
        counts = Counter(terms)
        self._docs[key] = counts
        length = sum(counts.values())
        self._lengths[key] = length
        self._total_length += length
        for term, tf in counts.items():
            self._postings.setdefault(term, {})[key] = tf

    def remove(self, key: Hashable) -> None:
        counts = self._docs.pop(key, None)
        if counts is None:
            return
        self._total_length -= self._lengths.pop(key, 0)
        for term in counts:
            posting = self._postings.get(term)
            if posting is not None:
                posting.pop(key, None)
                if not posting:
                    del self._postings[term]

    def doc_freq(self, term: str) -> int:
        return len(self._postings.get(term, ()))

    def idf(self, term: str) -> float:
        """Smoothed idf divided by that of a term found in one document: in (0, 1]."""
        n_docs = len(self._docs)
        if n_docs == 0:
            return 0.0
        df = self.doc_freq(term)
        if df == 0:
            return 0.0
        top = math.log(1.0 + (n_docs - 1 + 0.5) / 1.5)
        return math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5)) / top

    def score(self, weighted_terms: Mapping[str, float]) -> dict[Hashable, float]:
        """``{doc key: score}`` for every document matching at least one term."""
        n_docs = len(self._docs)
        if n_docs == 0:
            return {}
        avg_len = self._total_length / n_docs or 1.0
        k1, b = self.k1, self.b
        lengths = self._lengths
        scores: dict[Hashable, float] = {}
        for term, weight in weighted_terms.items():
            posting = self._postings.get(term)
            if not posting or weight <= 0:
                continue
            factor = weight * self.idf(term) * (k1 + 1)
            for key, tf in posting.items():
                norm = k1 * (1 - b + b * lengths[key] / avg_len)
                scores[key] = scores.get(key, 0.0) + factor * tf / (tf + norm)
        return scores
