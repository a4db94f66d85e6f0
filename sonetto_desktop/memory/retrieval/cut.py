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
"""

from __future__ import annotations

import re
from math import log
from typing import Any, Iterator

# jieba's own patterns (jieba/__init__.py: re_han_default, re_skip_default, re_eng)
_HAN = re.compile("([\u4E00-\u9FD5a-zA-Z0-9+#&\\._%\\-]+)", re.U)
_SKIP = re.compile("(\r\n|\\s)", re.U)
_ENG = re.compile("[a-zA-Z0-9]", re.U)

MEMO_MAX = 10_000
ABSENT = 1.0  # a memoised weight above every real one (those are logs of probabilities: < 0)
RUN_MEMO_CHARS = 12  # runs up to this long are remembered whole


class SearchCut:
    """``lcut_for_search(text)`` over a read-only frequency table with ``lookup(word) -> freq or -1``
    and a ``total`` (``compact_dict.CompactFreq``)."""

    def __init__(self, table: Any, memo_max: int = MEMO_MAX) -> None:
        self._lookup = table.lookup
        self._log_total = log(table.total)
        self._memo: dict[str, float] = {}
        self._runs: dict[str, tuple[str, ...]] = {}  # short runs recur (names, set phrases)
        self.memo_max = memo_max

    def clear(self) -> None:
        """Forget the memos (they only speed things up)."""
        self._memo = {}
        self._runs = {}

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
