"""Search words against card text: tolerant of spaces, punctuation and case, and of Chinese typed as
pinyin — full (``kafei`` finds 咖啡) or initials (``kf``). Pure Python, no Qt.

Text is compared after *folding*: whitespace and punctuation dropped, case folded. A query matches
a card when each of its words (split at spaces and at punctuation like 「，、」) matches the card's
text or theme, or when the whole query with the spaces taken out does (``手冲 咖啡`` finds 手冲咖啡,
``咖啡，拿铁`` finds 咖啡 and 拿铁 anywhere in the card). ``SearchQuery.spans`` says where in the
card's text (its whitespace-collapsed form, as the card shows it) the words matched, for
highlighting.

Pinyin comes from ``pypinyin`` and costs ~0.3 ms a card, so it is never computed on the Qt thread
during a search: ``warm_pinyin`` fills the cache in a worker, and a query reads only the cache
(``pinyin_key`` returns None for text not warmed yet).
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from typing import Iterable

from sonetto_desktop.memory.unicode_text import query_words

_ASCII_WORD = re.compile(r"^[a-z]+$")
_CACHE_LIMIT = 200_000
_cache: dict[str, "PinyinKey"] = {}
_lock = threading.Lock()

Span = tuple[int, int]  # (start, length) in the collapsed text


def collapse(text: str) -> str:
    """The text as a card shows it: runs of whitespace as one space, trimmed."""
    return " ".join((text or "").split())


_folded: dict[str, tuple[str, list[int]]] = {}


def fold(text: str) -> tuple[str, list[int]]:
    """``text`` without whitespace or punctuation, case-folded; and for each kept character the
    index of the character of ``text`` it came from. Cached: a search folds every card's text."""
    found = _folded.get(text)
    if found is None:
        if len(_folded) >= _CACHE_LIMIT:
            _folded.clear()
        found = _folded[text] = _fold(text)
    return found


def _fold(text: str) -> tuple[str, list[int]]:
    out: list[str] = []
    where: list[int] = []
    for i, ch in enumerate(text):
        if not ch.isalnum():
            continue
        for piece in ch.casefold():
            out.append(piece)
            where.append(i)
    return "".join(out), where


@dataclass(frozen=True, slots=True)
class PinyinKey:
    full: str  # "xihuanshouchongkafei…"; other letters and digits folded as they are
    full_where: tuple[int, ...]
    initials: str  # "xhsckf…"
    initials_where: tuple[int, ...]


def _compute(text: str) -> PinyinKey:
    from pypinyin import lazy_pinyin  # ~0.6 s the first time: only ever imported in a worker

    syllables = lazy_pinyin(text, errors=lambda rest: list(rest))
    if len(syllables) != len(text):  # never seen; stay correct anyway, one character at a time
        syllables = [lazy_pinyin(ch, errors=lambda rest: list(rest))[0] if ch.strip() else ch for ch in text]
    full: list[str] = []
    full_where: list[int] = []
    initials: list[str] = []
    initials_where: list[int] = []
    for i, (ch, syllable) in enumerate(zip(text, syllables, strict=True)):
        if syllable != ch and syllable.isascii() and syllable.isalpha():  # a Chinese character
            full.extend(syllable)
            full_where.extend([i] * len(syllable))
            initials.append(syllable[0])
            initials_where.append(i)
        elif ch.isalnum():
            for piece in ch.casefold():
                full.append(piece)
                full_where.append(i)
                initials.append(piece)
                initials_where.append(i)
    return PinyinKey("".join(full), tuple(full_where), "".join(initials), tuple(initials_where))


def pinyin_key(text: str) -> PinyinKey | None:
    """The cached pinyin of ``text`` (collapsed), or None when it has not been warmed yet."""
    return _cache.get(text)


def warm_pinyin(texts: Iterable[str]) -> int:
    """Compute and cache the pinyin of ``texts`` (blocking: run it in a worker). Returns how many
    were new."""
    new = 0
    for text in texts:
        if text in _cache:
            continue
        key = _compute(text)
        with _lock:
            if len(_cache) >= _CACHE_LIMIT:
                _cache.clear()
            _cache[text] = key
        new += 1
    return new


def missing_pinyin(texts: Iterable[str]) -> list[str]:
    return [t for t in dict.fromkeys(texts) if t not in _cache]


def _occurrences(haystack: str, needle: str) -> Iterable[int]:
    start = haystack.find(needle)
    while start >= 0:
        yield start
        start = haystack.find(needle, start + len(needle))


def _spans(where: Iterable[int] | list[int], starts: Iterable[int], length: int) -> list[Span]:
    where = list(where)
    return [(where[s], where[s + length - 1] - where[s] + 1) for s in starts]


class SearchQuery:
    """What the person typed in the search box, ready to test cards against."""

    def __init__(self, text: str) -> None:
        self.text = (text or "").strip()
        words = [fold(w)[0] for w in query_words(self.text)]
        self.words: tuple[str, ...] = tuple(w for w in words if w)
        self.joined = "".join(self.words)

    def __bool__(self) -> bool:
        return bool(self.words)

    @property
    def wants_pinyin(self) -> bool:
        """Whether a word could be pinyin (letters only), so warming pinyin can find more."""
        return any(_ASCII_WORD.match(w) for w in (*self.words, self.joined))

    def _word_spans(self, word: str, text: str, folded: tuple[str, list[int]], key: PinyinKey | None) -> list[Span]:
        plain, where = folded
        spans = _spans(where, _occurrences(plain, word), len(word))
        if spans or key is None or not _ASCII_WORD.match(word):
            return spans
        for line, line_where in ((key.full, key.full_where), (key.initials, key.initials_where)):
            first = line.find(word)
            if first >= 0:
                return _spans(line_where, [first], len(word))
        return []

    def spans(self, description: str, theme: str = "") -> list[Span] | None:
        """Where the query matched in ``collapse(description)``; ``[]`` when it matched only the
        theme; None when the card does not match (an empty query matches everything)."""
        if not self.words:
            return []
        text = collapse(description)
        folded = fold(text)
        key = pinyin_key(text) if self.wants_pinyin else None
        theme_text = collapse(theme)
        theme_folded = fold(theme_text)
        theme_key = pinyin_key(theme_text) if self.wants_pinyin else None

        def match(word: str) -> list[Span] | None:
            found = self._word_spans(word, text, folded, key)
            if found:
                return found
            return [] if self._word_spans(word, theme_text, theme_folded, theme_key) else None

        found_all: list[Span] = []
        every = True
        for word in self.words:
            found = match(word)
            if found is None:
                every = False
                break
            found_all.extend(found)
        if every:
            return sorted(set(found_all))
        if len(self.words) > 1:
            found = match(self.joined)
            if found is not None:
                return found
        return None
