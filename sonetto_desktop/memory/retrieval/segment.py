"""Query words without jieba: find the words the bank and the lexicon know inside a prompt.

Memories are cut by jieba when they are indexed; a query only needs the words that can match
something, i.e. words of the bank (looked up in the index) and of the lexicon, so it is read by
looking up every substring of 2..``MAX_WORD`` characters of each Chinese run. That needs no
dictionary load (jieba's takes ~1 s), so a saved index answers right after start-up, and it
finds a bank word even where jieba would have cut the query differently.

What no known word covers is handled as jieba's unknown words were: a lone character is a
one-character word (猫, 歌, 干); a longer uncovered stretch is reported as one unknown word (its
character bigrams are matched instead).
"""

from __future__ import annotations

import re
from typing import Callable, Iterable

from . import tokenize as tok

MAX_WORD = 6
_RUN = re.compile(f"[{tok.CJK_CHARS}]+|[a-z0-9][a-z0-9_.+#-]*[a-z0-9+#]|[a-z0-9]")
_SPLIT_AT = tok.STOP_CHARS  # a stretch of unknown text breaks at function characters


def _uncovered(run: str, covered: list[bool]) -> Iterable[str]:
    piece = ""
    for ch, done in zip(run, covered, strict=True):
        if done or ch in _SPLIT_AT:
            if piece:
                yield piece
            piece = ""
        else:
            piece += ch
    if piece:
        yield piece


def query_words(
    text: str,
    known: Callable[[list[str]], list[bool]],
    char_word: Callable[[str], bool] = lambda ch: False,
    cut: Callable[[str], list[str]] | None = None,
    uncovered: list[str] | None = None,
) -> tuple[list[str], list[str]]:
    """(known words in order of appearance, unknown stretches) of a prompt.

    ``known(candidates)`` says which candidate words exist (in the bank or the lexicon): it is asked
    once, for the candidates of every distinct run of Chinese text together (a run said again is read
    once);
    ``char_word(ch)`` whether a character is a word on its own (猫, 吃, 歌): such characters
    inside an unknown stretch or a stop word (吃点) are words too. ``cut`` (jieba's, when it is
    loaded anyway) splits unknown stretches into dictionary words: its one-character words count
    as words (有多高 -> 高), longer ones stay unknown. ``uncovered`` (a list) receives every stretch
    of two or more characters no known word covers, as it was before ``cut`` split it."""
    words: list[str] = []
    unknown: list[str] = []

    def add_unknown(piece: str) -> None:
        singles(piece)
        if uncovered is not None:
            uncovered.append(piece)
        if cut is None:
            unknown.append(piece)
            return
        for part in cut(piece):
            if len(part) > 1:
                unknown.append(part)
            elif part not in tok.STOP_WORDS and part not in tok.WEAK_CHARS:
                words.append(part)

    def singles(piece: str) -> None:
        words.extend(ch for ch in piece if ch not in tok.STOP_WORDS and char_word(ch))

    runs = [match.group() for match in _RUN.finditer((text or "").lower())]
    # every candidate of every distinct Chinese run, asked of ``known`` at once
    spans: dict[str, list[tuple[int, int]]] = {}
    for run in runs:
        if run not in spans and tok.is_cjk(run):
            spans[run] = [(i, j) for i in range(len(run)) for j in range(i + 2, min(len(run), i + MAX_WORD) + 1)]
    candidates = [run[i:j] for run, cuts in spans.items() for i, j in cuts]
    answers = iter(known(candidates) if candidates else [])
    read: dict[str, list[str]] = {}  # a Chinese run already read -> its uncovered stretches
    for run in runs:
        if run not in spans:
            if run not in tok.STOP_WORDS:
                words.append(run)
            continue
        if run in read:  # said again (a chat repeats itself): the same words, already listed
            if uncovered is not None:
                uncovered.extend(read[run])
            continue
        stretches = read[run] = []
        covered = [False] * len(run)
        for i, j in spans[run]:
            if not next(answers):
                continue
            word = run[i:j]
            covered[i:j] = [True] * (j - i)
            if word in tok.STOP_WORDS:
                singles(word)
            else:
                words.append(word)
        for piece in _uncovered(run, covered):
            if len(piece) == 1:
                if piece not in tok.STOP_WORDS:
                    words.append(piece)
            else:
                stretches.append(piece)
                add_unknown(piece)
    return list(dict.fromkeys(words)), list(dict.fromkeys(unknown))
