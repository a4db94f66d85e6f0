"""The query's shortlist beyond the stable listing: which of the other memories fill the rest of
the recall budget.

The offline retriever ranks by words (``MechanicalRetriever.candidates``: its scores without the
floor, then recent and much-used memories). With an embeddings model configured, the memories
nearest to the query's vector are a second ranking (a :class:`DenseRanker`, see ``vector_sync.py``).
A second ranking may only add what the first misses, so they are fused by the message's form
(bench/recall_scale_e5.py measured each rule with real e5 and wordllama vectors at 1,000 and 10,000
memories; learned on the project's own sets, checked on the shared ones held out):

- a short message (at most ``LONG_MESSAGE`` estimated tokens: a question): *words first*. Every
  word match scoring at least ``STRONG_MATCH`` comes first (at most ``STRONG_PLACES`` of the places
  asked for), then the rest of the word ranking (weak matches, then recent and much-used memories)
  alternates with the vectors' ranking, ``WORDS_SHARE`` of the places to the words. Each place the
  vectors take was a weak match or filler, never a memory the words were sure of;
- a long, chatty message (its words match many memories weakly): an equal share, by each memory's
  best rank in either list, ties broken by reciprocal rank fusion (:func:`fuse`): the top n of each
  ranking are among the first 2n;
- a broad question ("最近怎么样"): words only (recency and use count answer it; the vectors'
  nearest to a greeting are noise).

A model takes part only while it *agrees* with the words often enough (``agreement.py``: counted on
the person's own messages, no gold needed): a weak model is left out and costs nothing. A message
whose surest memory has no vector yet (the model's vectors are still being computed) is not counted. Without an
embeddings model (or when it fails, is still computing vectors or is left out) the word ranking
alone decides: nothing changes and nothing fails.

In a conversation the vectors also read what was said just before (``context``: the conversation's
last lines before the message): a follow-up ("我特别期待那天晚上") names little of what it is about.
The vectors' ranking is then the message's nearest memories with, in one place of four
(``CONTEXT_SHARE``), those nearest to the message leaning on its context (:func:`lean`,
``CONTEXT_WEIGHT``). A query leaning on its context alone would cost a message that changes the
topic what it gains for a follow-up; the alternation keeps most of the gain. e5, the gold among the
nearest 100 / 300 / 1,000 of 10,000 other memories (bench/recall_context.py): MADial's 160 follow-ups
0.393 / 0.499 / 0.647 alone, 0.499 / 0.632 / 0.798 leaning (weight 1), **0.519 / 0.637 / 0.773** so;
our phenomena questions after two lines on another topic 0.672 / 0.757 / 0.898 alone, 0.345 / 0.463 /
0.706 leaning, **0.633 / 0.734 / 0.893** so. The model's agreement is counted on the message's own nearest.

The words read the context the same way (``_words``, ``_context_ranking``): their ranking gives one
place in four to that of the message after its context's lines (:func:`joined`). Fused with the
vectors, that share is kept: a short message's sure matches take, one place in four beside them (as
many as they allow), the sure matches of the message after its context, and the rest alternates the
message's own words with the vectors' before the conversation's words take every fourth place; a long
message fuses three rankings (its matches, its context's, the vectors'). Before, the context's words
came only through the words' half of the places after the sure matches (one in eight), and the
follow-ups' first 100 reached less fused than with words alone. The app's whole ranking, asked as
``fill`` asks it, each bank among 10,000 other memories, gold among its first 100 / 300 / 1,000
(bench/recall_context.py ``--shortlist``): words only, MADial's follow-ups 0.563 / 0.640 / 0.706 alone,
**0.748 / 0.837 / 0.916** reading the context, a question after another topic 0.831 / 0.864 / 0.921 →
0.836 / 0.870 / 0.927; words and e5, follow-ups 0.560 / 0.694 / 0.783 alone, 0.723 / 0.849 / 0.948 with
the context's words in one place of eight, **0.753 / 0.869 / 0.951** now; after another topic 0.870 /
0.898 / 0.938 alone, 0.870 / 0.898 / 0.944 → **0.870 / 0.904 / 0.944**.

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

from .agreement import AGREEMENT_TOP, STRONG_WORDS, ModelAgreement, model_key
from ..token_estimate import estimate_tokens
from .listing import HEADING_TOKENS, KEY, TOKENS
from .llm_prompt import said_text

if TYPE_CHECKING:
    from .listing import ListingEntry, ListingSnapshot
    from .mechanical import MechanicalRetriever

__all__ = ["CONTEXT_SHARE", "CONTEXT_WEIGHT", "DenseRanker", "LONG_MESSAGE", "RRF_K", "Shortlist", "fuse", "interleave", "joined", "lean", "rrf"]

log = logging.getLogger(__name__)

#: The usual constant of reciprocal rank fusion (Cormack et al. 2009): damps the very top ranks.
RRF_K = 60
#: The ranking is asked for this many more than the budget seems to need (some memories are in the
#: stable block, some are long); if that is not enough it is asked again for all of them.
SLACK = 32
#: A message longer than this (estimated tokens) is chatty: words and vectors get an equal share.
#: Read off the held-out sets (our own have short questions only): 12-16 lose least there.
LONG_MESSAGE = 16
#: Short messages: word matches scoring at least this go first (0.5: with 0.3, learned on our own
#: lexical sets, weak word matches of paraphrased and Cantonese questions filled the places; on the
#: recall-phenomena set 0.5 keeps every set's reach or adds to it, bench/recall_issue36.py; 0.7 and
#: above reach more there but let a model that disagrees take places from word-found memories,
#: tests/test_recall_fusion.py) ...
STRONG_MATCH = 0.5
#: In a conversation, the vectors' second query: the message's vector plus this much of its context's
#: (both unit length), made unit length again ...
CONTEXT_WEIGHT = 2.0
#: ... whose nearest memories take this share of the vectors' places (the message's own the rest).
#: Read off MADial's follow-ups and the phenomena set after another topic (weights 0.5 / 1 / 2, shares
#: 0.2 / 0.25 / 0.33 / 0.5 / 1): no conversational set of our own exists to hold out.
CONTEXT_SHARE = 0.25
#: ... taking at most this share of the places asked for; then the rest of the words' ranking and
#: the vectors' alternate, this share of the places to the words.
STRONG_PLACES = 0.5
WORDS_SHARE = 0.5


class DenseRanker(Protocol):
    """The embeddings model's ranking of the memories for a query: the query's vector (a request to
    the model) and a search among the saved vectors (local), apart, so that one recall asks once."""

    def embed_query(self, prompt: str) -> Any | None:
        """The query's vector; None when it cannot rank now (no vectors yet, the endpoint fails).
        Blocking: one request, which must end within about two seconds."""

    def nearest(self, vector: Any, k: int) -> list[str]:
        """Up to ``k`` memory ids, nearest to ``vector`` first (local: no request to the model)."""

    # Optional: ``embed_queries(texts) -> list | None``, several queries' vectors in one request (the
    # message and its context; a ranker without it is asked for the message's alone). The context's
    # may be None (its request refused, the message's alone answered): the message's nearest only.
    # Optional: ``has_vector(mid) -> bool``, whether the model has a current vector of memory ``mid``
    # (a ranker without it is taken to hold every memory's). A memory without one cannot be among the
    # model's nearest, so its absence there is not counted against the model (``_count_agreement``).


def joined(context: str, prompt: str) -> str:
    """The words' second query in a conversation: the lines said before (on one line, without who said
    them), then the message."""
    return " ".join(said_text(context).splitlines()) + "\n" + prompt


def lean(vector: Any, toward: Any, weight: float = CONTEXT_WEIGHT) -> Any:
    """``vector`` (unit length) leaning toward ``toward`` (unit length) by ``weight``, unit length."""
    import numpy as np

    mixed = np.asarray(vector, dtype=np.float32) + np.float32(weight) * np.asarray(toward, dtype=np.float32)
    norm = float(np.linalg.norm(mixed))
    return mixed / norm if norm > 0 else np.asarray(vector, dtype=np.float32)


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


def interleave(first: Sequence[str], second: Sequence[str], share: float = 0.5) -> list[str]:
    """Both rankings as one, ``share`` of each prefix from ``first`` (as long as both last), each id once."""
    out: list[str] = []
    seen: set[str] = set()
    i = j = taken = 0
    while i < len(first) or j < len(second):
        from_first = j >= len(second) or (i < len(first) and taken < share * (len(out) + 1))
        if from_first:
            mid, i = first[i], i + 1
        else:
            mid, j = second[j], j + 1
        if mid in seen:
            continue
        seen.add(mid)
        out.append(mid)
        taken += from_first
    return out


class Shortlist:
    """One query's shortlist (one recall); ``used_dense`` says whether the embeddings ranking took part."""

    def __init__(self, mechanical: "MechanicalRetriever", dense: DenseRanker | None = None,
                 agreement: ModelAgreement | None = None, context: str = "") -> None:
        self._mechanical = mechanical
        self._dense = dense
        self._context = said_text(context)  # the conversation's lines before the message (the vectors' second query)
        self._leaned: Any | None = None  # that second query's vector
        self._joined: tuple[tuple[str, int], list, list[str]] | None = None  # the words' second query's scored, ranking
        self._own: tuple[tuple[str, int], list[str]] | None = None  # the words' ranking of the message alone
        self._agreement = agreement if agreement is not None else ModelAgreement()
        self._model = model_key(dense) if dense is not None else ""
        self.used_dense = False
        self.left_out = False  # the model was left out: its agreement is below the bar
        self._query: tuple[str, Any] | None = None  # (prompt, its vector or None): asked once
        self._nearest: list[str] = []  # the nearest memories found so far, nearest first
        self._searched = 0  # how many ``_nearest`` was asked for (fewer came back: that is all of them)
        self._counted = False  # this query's agreement was counted

    def ranking(self, prompt: str, k: int, within: "ListingSnapshot | None" = None) -> list[str]:
        """Up to about ``k`` memory ids (of ``within`` when given), best first (see the module docstring)."""
        dense = self._dense_ranking(prompt, k, within)
        if not dense:
            return self._words(prompt, k)
        broad, scored = self._mechanical.scored_query(prompt, k)
        self._count_agreement(scored, broad)
        if broad or not self._agreement.trusted(self._model):
            self.left_out = not broad
            return self._words(prompt, k)
        self.used_dense = True
        filler = self._words(prompt, k)
        context_scored, context_words = self._context_ranking(prompt, k)
        if estimate_tokens(prompt) > LONG_MESSAGE:
            fused = fuse([[doc["id"] for doc, _ in scored], [doc["id"] for doc, _ in context_scored], dense])
        else:
            places = max(1, int(STRONG_PLACES * k))
            strong = [doc["id"] for doc, score in scored if score >= STRONG_MATCH][:places]
            if strong and context_scored:  # the context's own sure matches, one place in four beside them
                mine = set(strong)
                theirs = [doc["id"] for doc, score in context_scored if score >= STRONG_MATCH and doc["id"] not in mine]
                beside = int(len(strong) * CONTEXT_SHARE / (1 - CONTEXT_SHARE) + 0.999)  # one for each three
                strong = interleave(strong, theirs[:beside], 1 - CONTEXT_SHARE)[:places]
            head = set(strong)
            own = [mid for mid in (self._own_words(prompt, k) if context_words else filler) if mid not in head]
            fused = strong + interleave(interleave(own, [mid for mid in dense if mid not in head], WORDS_SHARE),
                                        [mid for mid in context_words if mid not in head], 1 - CONTEXT_SHARE)
        seen = set(fused)
        return fused + [mid for mid in filler if mid not in seen]

    def _own_words(self, prompt: str, k: int) -> list[str]:
        """The words' ranking of the message alone (matches, then recent and much-used memories)."""
        if self._own is None or self._own[0] != (prompt, k):
            self._own = ((prompt, k), [doc["id"] for doc in self._mechanical.candidates(prompt, k)])
        return self._own[1]

    def _context_ranking(self, prompt: str, k: int) -> tuple[list[tuple[dict, float]], list[str]]:
        """The words' second query in a conversation, the message after its context's lines (:func:`joined`):
        its scored matches and its ranking (matches, then recent and much-used memories); none without a
        context. Analysed once per recall."""
        if not self._context:
            return [], []
        if self._joined is None or self._joined[0] != (prompt, k):
            scored, ranked = self._mechanical.scored_candidates(joined(self._context, prompt), k)
            self._joined = ((prompt, k), scored, [doc["id"] for doc in ranked])
        return self._joined[1], self._joined[2]

    def _words(self, prompt: str, k: int) -> list[str]:
        """The words' ranking (matches, then recent and much-used memories); in a conversation the
        matches of the message with its context before it take one place in four (``CONTEXT_SHARE``)."""
        own = self._own_words(prompt, k)
        if not self._context:
            return own
        return interleave(own, self._context_ranking(prompt, k)[1], 1 - CONTEXT_SHARE)[:max(k, len(own))]

    def _count_agreement(self, scored: list[tuple[dict, float]], broad: bool) -> None:
        """Once per query: when the words are sure of a memory, is it among the model's nearest ten?"""
        if self._counted or broad or not scored or scored[0][1] < STRONG_WORDS:
            return
        self._counted = True
        if not self._holds(scored[0][0]["id"]):  # no vector of it yet (still computing): says nothing of the model
            return
        own = self._leaned is None  # (with a context, ``_nearest`` holds the second query's too)
        top = self._nearest[:AGREEMENT_TOP] if own and (self._searched >= AGREEMENT_TOP or len(self._nearest) < self._searched) \
            else self._search(AGREEMENT_TOP)
        self._agreement.record(self._model, scored[0][0]["id"] in top)

    def _holds(self, mid: str) -> bool:
        has_vector = getattr(self._dense, "has_vector", None)
        if has_vector is None:
            return True
        try:
            return bool(has_vector(mid))
        except Exception:  # not known: count nothing
            log.warning("the embeddings ranker could not say which memories it holds", exc_info=True)
            return False

    def _search(self, k: int) -> list[str]:
        vector = self._query[1] if self._query is not None else None
        if vector is None or self._dense is None:
            return []
        try:
            return self._dense.nearest(vector, k)
        except Exception:  # counted as a disagreement is wrong: count nothing
            log.warning("the embeddings search failed", exc_info=True)
            return []

    def _vector(self, prompt: str) -> Any | None:
        """The query's vector, asked of the model once per query (a failure too is asked once)."""
        if self._dense is None:
            return None
        if self._query is None or self._query[0] != prompt:
            both = getattr(self._dense, "embed_queries", None) if self._context else None
            leaned = None
            try:
                if both is not None:
                    vectors = both([prompt, self._context])
                    vector = vectors[0] if vectors is not None else None
                    leaned = lean(vectors[0], vectors[1]) if vectors is not None and vectors[1] is not None else None
                else:
                    vector = self._dense.embed_query(prompt)
            except Exception:  # the word ranking still answers
                log.warning("the embeddings ranking failed; the shortlist uses words only", exc_info=True)
                vector = leaned = None
            self._query, self._leaned, self._nearest, self._searched = (prompt, vector), leaned, [], 0
        return self._query[1]

    def _nearest_to(self, vector: Any, depth: int) -> list[str]:
        """The ``depth`` memories nearest to the message's ``vector``; with a context, alternating
        with those nearest to the second query (``CONTEXT_SHARE`` of the places), each once."""
        own = self._dense.nearest(vector, depth)
        if self._leaned is None:
            return own
        return interleave(own, self._dense.nearest(self._leaned, depth), 1 - CONTEXT_SHARE)

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
                self._nearest, self._searched = self._nearest_to(vector, depth), depth
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
        chosen.sort(key=lambda entry: entry[KEY])
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
            cost = entry[TOKENS] + HEADING_TOKENS
            if used + cost > tokens:
                if tokens - used < smallest:
                    return chosen, used, True
                continue  # a long one does not fit; a shorter one further down may
            chosen.append(entry)
            used += cost
        return chosen, used, tokens - used < smallest
