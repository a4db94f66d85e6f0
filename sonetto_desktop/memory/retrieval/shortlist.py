"""The query's shortlist beyond the stable listing: which of the other memories fill the rest of
the recall budget.

The offline retriever ranks by words (``MechanicalRetriever.candidates``: its scores without the
floor, then recent and much-used memories). With an embeddings model configured, the memories
nearest to the query's vector are a second ranking (a :class:`DenseRanker`, see ``vector_sync.py``),
and the two are fused (:func:`fuse`): by each memory's best rank in either list, ties broken by
reciprocal rank fusion (the sum of ``1 / (RRF_K + rank)``: found by both first). Plain RRF puts
memories that are mediocre in both lists above one that is second in one list and absent from
the other, so a common word matched by hundreds of memories ("最近") pushed the vectors' best out of
the budget; by best rank, the top n of each ranking are always among the first 2n, which is what
reach needs (the model then chooses). Without an embeddings model (or when it fails or is still
computing vectors) the word ranking alone decides: nothing changes and nothing fails.

One :class:`Shortlist` serves one recall, whose budget is shared by the person's memories and other
apps' (``recall.py``): the query's vector is asked for once (one paid request, within the query's
deadline, see ``vector_sync.QUERY_TIMEOUT``), the nearest memories are searched for locally as deep
as a part needs, and each part takes its own memories from that one ranking. Before, each part asked
for the vector again, and the apps' part, getting mostly the person's memories back, asked a third
time: three requests per reply, and three deadlines' wait with a slow endpoint.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Iterable, Protocol, Sequence

from .listing import HEADING_TOKENS

if TYPE_CHECKING:
    from .listing import ListingEntry, ListingSnapshot
    from .mechanical import MechanicalRetriever

__all__ = ["DenseRanker", "RRF_K", "Shortlist", "fuse", "rrf"]

log = logging.getLogger(__name__)

#: The usual constant of reciprocal rank fusion (Cormack et al. 2009): damps the very top ranks.
RRF_K = 60
#: The ranking is asked for this many more than the budget seems to need (some memories are in the
#: stable block, some are long); if that is not enough it is asked again for all of them.
SLACK = 32


class DenseRanker(Protocol):
    """The embeddings model's ranking of the memories for a query: the query's vector (a request to
    the model) and a search among the saved vectors (local), apart, so that one recall asks once."""

    def embed_query(self, prompt: str) -> Any | None:
        """The query's vector; None when it cannot rank now (no vectors yet, the endpoint fails).
        Blocking: one request, which must end within about two seconds."""

    def nearest(self, vector: Any, k: int) -> list[str]:
        """Up to ``k`` memory ids, nearest to ``vector`` first (local: no request to the model)."""


def rrf(rankings: Iterable[Sequence[str]], k: int = RRF_K) -> list[str]:
    """Reciprocal rank fusion of several rankings of ids (best first), ties kept in first-seen order."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        for rank, mid in enumerate(ranking):
            scores[mid] = scores.get(mid, 0.0) + 1.0 / (k + rank + 1)
    return sorted(scores, key=lambda mid: -scores[mid])


def fuse(rankings: Sequence[Sequence[str]], k: int = RRF_K) -> list[str]:
    """Several rankings as one: by the best rank a memory has in any of them, ties by :func:`rrf`."""
    best: dict[str, int] = {}
    for ranking in rankings:
        for rank, mid in enumerate(ranking):
            if rank < best.get(mid, rank + 1):
                best[mid] = rank
    tie = {mid: i for i, mid in enumerate(rrf(rankings, k))}
    return sorted(best, key=lambda mid: (best[mid], tie[mid]))


class Shortlist:
    """One query's shortlist (one recall); ``used_dense`` says whether the embeddings ranking took part."""

    def __init__(self, mechanical: "MechanicalRetriever", dense: DenseRanker | None = None) -> None:
        self._mechanical = mechanical
        self._dense = dense
        self.used_dense = False
        self._query: tuple[str, Any] | None = None  # (prompt, its vector or None): asked once
        self._nearest: list[str] = []  # the nearest memories found so far, nearest first
        self._searched = 0  # how many ``_nearest`` was asked for (fewer came back: that is all of them)

    def ranking(self, prompt: str, k: int, within: "ListingSnapshot | None" = None) -> list[str]:
        """Up to about ``k`` memory ids (of ``within`` when given), best first. Fused, the word ranking
        counts only memories that match; its filler of recent and much-used ones comes after the fused ones."""
        dense = self._dense_ranking(prompt, k, within)
        if not dense:
            return [doc["id"] for doc in self._mechanical.candidates(prompt, k)]
        self.used_dense = True
        matched = [doc["id"] for doc, _ in self._mechanical.scored(prompt, k)]
        fused = fuse([matched, dense])
        seen = set(fused)
        return fused + [doc["id"] for doc in self._mechanical.candidates(prompt, k) if doc["id"] not in seen]

    def _vector(self, prompt: str) -> Any | None:
        """The query's vector, asked of the model once per query (a failure too is asked once)."""
        if self._dense is None:
            return None
        if self._query is None or self._query[0] != prompt:
            try:
                vector = self._dense.embed_query(prompt)
            except Exception:  # the word ranking still answers
                log.warning("the embeddings ranking failed; the shortlist uses words only", exc_info=True)
                vector = None
            self._query, self._nearest, self._searched = (prompt, vector), [], 0
        return self._query[1]

    def _dense_ranking(self, prompt: str, k: int, within: "ListingSnapshot | None") -> list[str] | None:
        """Up to ``k`` ids (of ``within``) nearest to the query, searched locally as deep as it takes."""
        vector = self._vector(prompt)
        if vector is None:
            return None
        try:
            while True:
                found = [mid for mid in self._nearest if within is None or mid in within.by_id]
                if len(found) >= k or len(self._nearest) < self._searched:
                    return found[:k] or None
                # deeper, by how many of the part the depth searched so far held
                depth = max(k, 2 * self._searched)
                if self._searched and within is not None:
                    depth = max(depth, self._searched * (k + 1) // max(len(found), 1) * 2)
                self._nearest, self._searched = self._dense.nearest(vector, depth), depth
        except Exception:
            log.warning("the embeddings search failed; the shortlist uses words only", exc_info=True)
            self._query = (prompt, None)
            return None

    def fill(self, prompt: str, listing: "ListingSnapshot", exclude: set[str], tokens: int) -> list["ListingEntry"]:
        """The best-ranked memories of ``listing`` not in ``exclude`` that fit ``tokens``, in listing order."""
        total = len(listing.order)
        if tokens <= 0 or len(exclude) >= total:
            return []
        # enough even when the ranking's top is all in the stable block (recency, for a broad question)
        want = min(total, int(tokens / (listing.mean + HEADING_TOKENS) * 1.2) + len(exclude) + SLACK)
        while True:
            chosen, used, complete = self._take(self.ranking(prompt, want, listing), listing, exclude, tokens)
            if complete or want >= total:
                break
            want = total  # the ranking ran out before the budget did: once more, with every memory
        chosen.sort(key=lambda entry: entry.key)
        return chosen

    @staticmethod
    def _take(ranked: list[str], listing: "ListingSnapshot", exclude: set[str],
              tokens: int) -> tuple[list["ListingEntry"], int, bool]:
        chosen: list[ListingEntry] = []
        used = 0
        smallest = listing.smallest + HEADING_TOKENS
        for mid in ranked:
            entry = listing.by_id.get(mid)
            if entry is None or mid in exclude:
                continue
            cost = entry.tokens + HEADING_TOKENS
            if used + cost > tokens:
                if tokens - used < smallest:
                    return chosen, used, True
                continue  # a long one does not fit; a shorter one further down may
            chosen.append(entry)
            used += cost
        return chosen, used, tokens - used < smallest
