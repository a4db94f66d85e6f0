"""Plain BM25 baselines the offline retriever is compared with (same run, same banks).

- ``BigramBaseline``: ``rank_bm25.BM25Okapi`` over character bigrams of Chinese text (a run of
  one character counts as itself) and lower-cased words of other text: the "character-bigram
  BM25" of the issues (for English text it is plain word BM25).
- ``JiebaBaseline``: ``BM25Okapi`` over ``jieba.lcut`` words, the original issue-4 baseline.

Both rank every memory and keep the top ``k``: they never answer "nothing", except when no
query term occurs in the bank.
"""

from __future__ import annotations

import re
from typing import Callable

_RUNS = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+|[a-z0-9]+")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def bigram_tokens(text: str) -> list[str]:
    out: list[str] = []
    for run in _RUNS.findall((text or "").lower()):
        if _CJK.match(run):
            out.extend([run[i : i + 2] for i in range(len(run) - 1)] or [run])
        else:
            out.append(run)
    return out


class _BM25Baseline:
    def __init__(self, docs: dict[str, str], tokens: Callable[[str], list[str]]) -> None:
        from rank_bm25 import BM25Okapi

        self._tokens = tokens
        self._ids = list(docs)
        self._bm25 = BM25Okapi([tokens(text) or [""] for text in docs.values()]) if docs else None

    def rank(self, query: str, k: int = 5) -> list[str]:
        terms = self._tokens(query)
        if self._bm25 is None or not terms:
            return []
        scores = self._bm25.get_scores(terms)
        order = sorted(range(len(self._ids)), key=lambda i: -scores[i])
        return [self._ids[i] for i in order[:k]]


class BigramBaseline(_BM25Baseline):
    def __init__(self, docs: dict[str, str]) -> None:
        super().__init__(docs, bigram_tokens)


class JiebaBaseline(_BM25Baseline):
    def __init__(self, docs: dict[str, str]) -> None:
        import jieba

        super().__init__(docs, jieba.lcut)
