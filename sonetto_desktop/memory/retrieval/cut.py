"""jieba's search-mode cut without HMM, with one dictionary lookup per fragment. No Qt.

Memories are cut the way ``jieba.Tokenizer.lcut_for_search(text, HMM=False)`` cuts them (the
output is identical: a test compares the two), but jieba asks its table up to three times per
fragment (``frag in FREQ``, ``FREQ[frag]`` when it builds the DAG, ``FREQ.get`` again when it
weighs the routes) and each question costs a hash and a binary search in the compact table
(``compact_dict.py``). Here each distinct fragment is looked up once and remembered: the DAG's
edges carry their log-frequency, so weighing the routes needs no lookup, and the search mode's
two- and three-character sub-words use the same memo; a short run of text seen before (a name, a
set phrase between two commas) is not cut again. The memos are bounded (cleared when full), so a
build of any size holds at most ``memo_max`` fragments and runs.

The algorithm, as jieba's: a text is split into runs of Han characters, letters, digits and
``+#&._%-`` and the rest; in a run, every position's DAG lists the ends of the dictionary words
starting there (a position with none keeps a single character); the best route maximises the
sum of log(freq / total) from the end backwards (ties: the longer word); consecutive single
letters or digits are glued; other characters of the rest are single tokens (whitespace runs as
jieba splits them).

A bulk build cuts many texts at once (:meth:`SearchCut.cut_for_search_many`, the same tokens): the
fragments of every run are keyed and looked up level by level in numpy (all one-character
fragments, then the two-character ones whose first character is an entry or a prefix, ...), and the
routes of all runs are weighed together, one character position from their ends per step. Only
building the tokens themselves stays a Python loop, once per word.
"""

from __future__ import annotations

import re
from math import log
from typing import Any, Iterator

import numpy as np

from .compact_dict import stable_hash

# jieba's own patterns (jieba/__init__.py: re_han_default, re_skip_default, re_eng)
_HAN = re.compile("([\u4E00-\u9FD5a-zA-Z0-9+#&\\._%\\-]+)", re.U)
_SKIP = re.compile("(\r\n|\\s)", re.U)
_ENG = re.compile("[a-zA-Z0-9]", re.U)

MEMO_MAX = 10_000
ABSENT = 1.0  # a memoised weight above every real one (those are logs of probabilities: < 0)
RUN_MEMO_CHARS = 12  # runs up to this long are remembered whole
# cut_for_search_many: fewer runs than this are cut one by one
VECTOR_MIN_RUNS = 12
PART_CHARS = 1 << 15  # characters weighed at once, at most (the weights: 8 bytes per character and length)
STEP_CHARS = 8  # one step of weighing many runs at once costs about as much as cutting this many characters alone


class SearchCut:
    """``lcut_for_search(text)`` over a read-only frequency table with ``lookup(word) -> freq or -1``
    and a ``total`` (``compact_dict.CompactFreq``)."""

    def __init__(self, table: Any, memo_max: int = MEMO_MAX) -> None:
        self._table = table
        self._lookup = table.lookup
        self._log_total = log(table.total)
        self._memo: dict[str, float] = {}
        self._runs: dict[str, tuple[str, ...]] = {}  # short runs recur (names, set phrases)
        self._logs: dict[int, float] = {}  # log(freq) - log(total) per frequency (a few thousand distinct ones)
        self.memo_max = memo_max

    def clear(self) -> None:
        """Forget the memos (they only speed things up)."""
        self._memo = {}
        self._runs = {}
        self._logs = {}

    def _weight(self, word: str) -> float:
        """log(freq / total) of a word (< 0); 0.0 for a prefix of a word that is no word itself,
        ``ABSENT`` (1.0) for anything else. Remembered."""
        memo = self._memo
        value = memo.get(word)
        if value is None:
            f = self._lookup(word)
            value = ABSENT if f < 0 else (log(f) - self._log_total if f else 0.0)
            if len(memo) >= self.memo_max:
                memo.clear()
            memo[word] = value
        return value

    def _run(self, run: str) -> Iterator[str]:
        """Words of a run of Han characters, letters and digits (jieba's no-HMM DAG cut)."""
        n = len(run)
        memo, weight_of = self._memo, self._weight
        alone = -self._log_total  # jieba: log(FREQ.get(...) or 1) - log(total) for a lone character
        score = [0.0] * (n + 1)
        ends = list(range(n + 1))
        # the route is weighed from the end: position k only needs the positions after it
        dag: list[list[tuple[float, int]]] = [[] for _ in range(n)]
        for k in range(n):
            edges = dag[k]
            end = k
            frag = run[k]
            while True:
                w = memo.get(frag)
                if w is None:
                    w = weight_of(frag)
                if w > 0.0:  # ABSENT: no word starts with it
                    break
                if w < 0.0:
                    edges.append((w, end))
                end += 1
                if end >= n:
                    break
                frag = run[k : end + 1]
        for i in range(n - 1, -1, -1):
            edges = dag[i]
            if not edges:
                score[i], ends[i] = alone + score[i + 1], i
            elif len(edges) == 1:
                w, e = edges[0]
                score[i], ends[i] = w + score[e + 1], e
            else:
                score[i], ends[i] = max((w + score[e + 1], e) for w, e in edges)
        x = 0
        glued = ""
        while x < n:
            y = ends[x] + 1
            word = run[x:y]
            if y - x == 1 and _ENG.match(word):
                glued += word
            else:
                if glued:
                    yield glued
                    glued = ""
                yield word
            x = y
        if glued:
            yield glued

    def cut(self, text: str) -> Iterator[str]:
        """``jieba.Tokenizer.cut(text, HMM=False)``."""
        for block in _HAN.split(text):
            if not block:
                continue
            if _HAN.match(block):
                yield from self._run(block)
            else:
                for piece in _SKIP.split(block):
                    if _SKIP.match(piece):
                        yield piece
                    else:
                        yield from piece

    def cut_for_search(self, text: str) -> list[str]:
        """``jieba.Tokenizer.lcut_for_search(text, HMM=False)``."""
        out: list[str] = []
        runs = self._runs
        for block in _HAN.split(text):
            if not block:
                continue
            if _HAN.match(block):
                words = runs.get(block)
                if words is None:
                    words = self._search_words(block)
                    if len(block) <= RUN_MEMO_CHARS:
                        if len(runs) >= self.memo_max:
                            runs.clear()
                        runs[block] = words
                out += words
            else:
                for piece in _SKIP.split(block):
                    if _SKIP.match(piece):
                        out.append(piece)
                    else:
                        out += piece
        return out

    def _search_words(self, run: str) -> tuple[str, ...]:
        """A run's words in search mode: each word after its dictionary sub-words of two and three
        characters."""
        out: list[str] = []
        weight = self._weight
        for word in self._run(run):
            n = len(word)
            if n > 2:
                for i in range(n - 1):
                    gram = word[i : i + 2]
                    if weight(gram) < 0.0:
                        out.append(gram)
                if n > 3:
                    for i in range(n - 2):
                        gram = word[i : i + 3]
                        if weight(gram) < 0.0:
                            out.append(gram)
            out.append(word)
        return tuple(out)

    def cut_for_search_many(self, texts: list[str]) -> list[list[str]]:
        """``[cut_for_search(text) for text in texts]`` (the same tokens), for many texts at once."""
        plans, runs = self.plan_many(texts)
        cuts = self.cut_runs(runs).words()
        out = []
        for plan in plans:
            tokens: list[str] = []
            for part in plan:
                tokens += cuts[part] if type(part) is int else part
            out.append(tokens)
        return out

    @staticmethod
    def plan_many(texts: list[str]) -> tuple[list[list[Any]], list[str]]:
        """(plans, runs): the distinct runs of Han characters, letters and digits of ``texts``, and for
        each text its parts in order, a run's number in ``runs`` or the list of the tokens between runs."""
        plans: list[list[Any]] = []
        runs: dict[str, int] = {}  # each distinct run is cut once
        for text in texts:
            plan: list[Any] = []
            # split() with its group alternates: text between runs at even places, runs at odd ones
            for at, block in enumerate(_HAN.split(text)):
                if not block:
                    continue
                if at & 1:
                    number = runs.get(block)
                    if number is None:
                        number = runs[block] = len(runs)
                    plan.append(number)
                else:
                    pieces: list[str] = []
                    for piece in _SKIP.split(block):
                        if _SKIP.match(piece):
                            pieces.append(piece)
                        else:
                            pieces += piece
                    plan.append(pieces)
            plans.append(plan)
        return plans, list(runs)

    def cut_runs(self, runs: list[str]) -> "RunCut":
        """:meth:`_search_words` of each run: in numpy, but for a few runs much longer than the rest
        (weighing them together takes a step per character of the longest) and for a handful of runs."""
        if len(runs) < VECTOR_MIN_RUNS:
            return RunCut(len(runs), [], dict(enumerate(map(self._search_words, runs))))
        lengths = sorted(map(len, runs), reverse=True)
        longest, cost, alone = lengths[0], STEP_CHARS * lengths[0], 0
        for at, n in enumerate(lengths):  # the longest run weighed together: the cheapest guess of the cost
            if alone >= cost or at >= len(lengths) - VECTOR_MIN_RUNS:
                break
            if n != lengths[at - 1] and STEP_CHARS * n + alone < cost:
                longest, cost = n, STEP_CHARS * n + alone
            alone += n
        parts, part, chars = [], [], 0
        for number, run in enumerate(runs):  # bounded parts: numpy's arrays hold a row per character
            if len(run) <= longest:
                if chars + len(run) > PART_CHARS and part:
                    parts.append(part)
                    part, chars = [], 0
                part.append(number)
                chars += len(run) + 1
        if part:
            parts.append(part)
        alone = {number: self._search_words(run) for number, run in enumerate(runs) if len(run) > longest}
        return RunCut(len(runs), [(self._vector_words([runs[i] for i in numbers]), np.array(numbers, dtype=np.int64))
                                  for numbers in parts], alone)

    def _vector_words(self, runs: list[str]) -> "RunWords":
        """:meth:`_search_words` of runs of Han characters, letters and digits (never empty), at once."""
        joined = "\0".join(runs) + "\0"  # each run ends at a separator, the end of its route
        size = len(joined)
        codes = np.frombuffer(joined.encode("utf-32-le"), dtype="<u4").astype(np.int64)  # all below 2**16
        lengths = np.fromiter(map(len, runs), dtype=np.int64, count=len(runs))
        starts = np.zeros(len(runs), dtype=np.int64)
        np.cumsum(lengths[:-1] + 1, out=starts[1:])
        ends = starts + lengths
        left = np.repeat(ends, lengths + 1) - np.arange(size)  # characters from here to the run's end
        # the dictionary, level by level: a fragment of L characters is looked up only where its first
        # L - 1 are an entry (a word or a prefix of one), as _run stops at the first miss
        at = np.flatnonzero(left)
        body = codes[at]
        levels: list[tuple[np.ndarray, np.ndarray]] = []
        while len(at):
            n = len(levels) + 1
            if n <= 3:  # compact_dict.stable_hash's exact key: the length, then the code points
                if n > 1:
                    body = (body << 20) | codes[at + n - 1]
                keys = body | (n << (20 * n))
            else:
                keys = np.array([stable_hash(joined[p : p + n]) for p in at.tolist()], dtype=np.int64)
            freqs = self._table.lookup_keys(keys)
            levels.append((at, freqs))
            going = (freqs >= 0) & (left[at] > n)
            at = at[going]
            if n < 3:
                body = body[going]
        # edge weights log(freq / total), as _weight computes them (math.log, once per distinct frequency)
        logs_of = self._logs
        width = len(levels)
        weights = np.full((size, width), -np.inf)
        has_edge = np.zeros(size, dtype=bool)
        for n, (at, freqs) in enumerate(levels, 1):
            word = freqs > 0
            distinct, which = np.unique(freqs[word], return_inverse=True)
            logs = [logs_of[f] if f in logs_of else logs_of.setdefault(f, log(f) - self._log_total)
                    for f in distinct.tolist()]
            weights[at[word], n - 1] = np.array(logs)[which]
            has_edge[at[word]] = True
        weights[(left > 0) & ~has_edge, 0] = -self._log_total  # a character alone (jieba: freq 1)
        # the routes, from the runs' ends backwards: step j weighs the j-th position from the end of every
        # run at least j + 1 long (ties: the longer word, as max() over (score, end) tuples in _run)
        score = np.zeros(size + width)
        choice = np.ones(size, dtype=np.int64)
        order = np.argsort(-lengths, kind="stable")
        last = ends[order] - 1
        active = np.cumsum(np.bincount(lengths, minlength=int(lengths.max()) + 1)[::-1])[::-1]  # runs ≥ j long
        reach = np.arange(width, 0, -1)  # longest first: argmax takes the first of equal scores
        backwards = weights[:, ::-1]
        for j in range(int(lengths.max())):
            pos = last[: active[j + 1]] - j
            totals = backwards[pos] + score[pos[:, None] + reach]
            best = totals.argmax(axis=1)
            score[pos] = totals[np.arange(len(pos)), best]
            choice[pos] = reach[best]
        return _route_words(joined, codes, starts, left, choice, levels, len(runs))


class RunWords:
    """The words of many runs cut at once (:meth:`SearchCut.cut_runs`): runs joined with a separator
    into ``text`` (``codes``: its code points), and the words of run ``r`` are the spans
    ``text[begin[i] : end[i]]`` for ``i`` in ``range(first[r], first[r + 1])``, in the cut's order."""

    __slots__ = ("text", "codes", "begin", "end", "first")

    def __init__(self, text: str, codes: np.ndarray, begin: np.ndarray, end: np.ndarray, first: np.ndarray) -> None:
        self.text, self.codes, self.begin, self.end, self.first = text, codes, begin, end, first

    def words(self) -> list[tuple[str, ...]]:
        """Each run's words as strings."""
        text = self.text
        found = [text[a:b] for a, b in zip(self.begin.tolist(), self.end.tolist(), strict=True)]
        edges = self.first.tolist()
        return [tuple(found[a:b]) for a, b in zip(edges, edges[1:], strict=False)]


class RunCut:
    """The words of many runs (:meth:`SearchCut.cut_runs`): ``together`` holds parts cut at once, each
    a :class:`RunWords` and the run numbers of its runs in order; the others are in ``alone`` (run
    number -> its words)."""

    __slots__ = ("count", "together", "alone")

    def __init__(self, count: int, together: list[tuple[RunWords, np.ndarray]],
                 alone: dict[int, tuple[str, ...]]) -> None:
        self.count, self.together, self.alone = count, together, alone

    def words(self) -> list[tuple[str, ...]]:
        """Every run's words, by run number."""
        out: list[tuple[str, ...]] = [()] * self.count
        for part, numbers in self.together:
            for number, words in zip(numbers.tolist(), part.words(), strict=True):
                out[number] = words
        for number, words in self.alone.items():
            out[number] = words
        return out


def _route_words(text: str, codes: np.ndarray, starts: np.ndarray, left: np.ndarray, choice: np.ndarray,
                 levels: list[tuple[np.ndarray, np.ndarray]], count: int) -> RunWords:
    """The words along each run's route (``choice[p]``: the length of the word chosen at ``p``), as
    _search_words lists them: consecutive single letters and digits glued into one word, and every
    word of more than two characters after its dictionary sub-words of two, then three, characters."""
    # the routes: every run's first word, then the word after each, all runs at once
    on_route = np.zeros(len(text), dtype=bool)
    at = starts
    while len(at):
        on_route[at] = True
        at = at + choice[at]
        at = at[left[at] > 0]  # a separator ends the route
    begin = np.flatnonzero(on_route)
    single = choice[begin] == 1
    code = codes[begin]
    glue = single & (((code >= 48) & (code <= 57)) | (((code | 32) >= 97) & ((code | 32) <= 122)))  # _ENG
    # a glued letter or digit right after another one (the same run: runs are apart) continues its word
    begin = begin[~(glue & np.concatenate(([False], glue[:-1] & (begin[:-1] + 1 == begin[1:]))))]
    run_end = begin + left[begin]
    end = np.minimum(np.append(begin[1:], len(text)), run_end)
    length = end - begin
    # sub-words: a two-character (three-character) fragment that is a word, inside a word longer than two
    # (three) characters; levels[n - 1] holds every n-character fragment that could be an entry
    parts_begin, parts_word = [], []
    for n in (2, 3):
        if len(levels) < n:
            break
        at, freqs = levels[n - 1]
        at = at[freqs > 0]
        owner = np.searchsorted(begin, at, side="right") - 1
        inside = (length[owner] > n) & (at + n <= end[owner])
        parts_begin.append(at[inside])
        parts_word.append(owner[inside])
    words = np.arange(len(begin))
    item_begin = np.concatenate([*parts_begin, begin])
    item_end = np.concatenate([b + n for b, n in zip(parts_begin, (2, 3), strict=False)] + [end])
    # each word's two-character parts (in order), its three-character parts, then itself
    rank = np.concatenate([w * 3 + k for k, w in enumerate(parts_word)] + [words * 3 + 2])
    order = np.argsort(rank, kind="stable")
    item_begin, item_end, item_word = item_begin[order], item_end[order], rank[order] // 3
    run_of = np.searchsorted(starts, begin[item_word], side="right") - 1
    first = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(np.bincount(run_of, minlength=count), out=first[1:])
    return RunWords(text, codes, item_begin, item_end, first)
