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
import unicodedata
from dataclasses import dataclass
from typing import Iterable

from sonetto_desktop.memory.unicode_text import query_words

_ASCII_WORD = re.compile(r"^[a-z]+$")
_CACHE_LIMIT = 200_000
_cache: dict[str, "PinyinKey"] = {}
_lock = threading.Lock()
_cleared = 0  # times the cache was emptied (cache_generation)

Span = tuple[int, int]  # (start, length) in the collapsed text


def collapse(text: str) -> str:
    """The text as a card shows it: runs of whitespace as one space, trimmed."""
    return " ".join((text or "").split())


_folded: dict[str, str] = {}
_NOT_ALNUM = re.compile(r"[\W_]+")  # (``[^\W_]`` is exactly ``str.isalnum``)


def fold(text: str) -> str:
    """``text`` without whitespace or punctuation, case-folded. Cached: a search folds every card's
    text (most of them only to find that it does not match)."""
    found = _folded.get(text)
    if found is None:
        if len(_folded) >= _CACHE_LIMIT:
            _folded.clear()
        found = _folded[text] = _NOT_ALNUM.sub("", text).casefold()
    return found


def fold_where(text: str) -> tuple[str, list[int]]:
    """``fold(text)``, and for each of its characters the index of the character of ``text`` it
    came from (for the matches' highlights: made only for the cards that match)."""
    out: list[str] = []
    where: list[int] = []
    for i, ch in enumerate(text):
        if not ch.isalnum():
            continue
        for piece in ch.casefold():
            out.append(piece)
            where.append(i)
    return "".join(out), where


_VARIATION = ("\ufe0e", "\ufe0f")  # text / emoji presentation: ❤ and ❤️ are one symbol


def _symbols(text: str) -> str:
    """``text`` case-folded without variation selectors (what a search for symbols compares)."""
    for selector in _VARIATION:
        text = text.replace(selector, "")
    return text.casefold()


def _symbols_where(text: str) -> tuple[str, list[int]]:
    """``_symbols(text)`` and for each of its characters the index in ``text`` it came from."""
    out: list[str] = []
    where: list[int] = []
    for i, ch in enumerate(text):
        if ch in _VARIATION:
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
                global _cleared
                _cache.clear()
                _cleared += 1
            _cache[text] = key
        new += 1
    return new


def cache_generation() -> int:
    """How many times the pinyin cache was emptied (when full): pinyin made under an older
    generation may be gone."""
    return _cleared


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
        words = [fold(w) for w in query_words(self.text)]
        self.words: tuple[str, ...] = tuple(w for w in words if w)
        self.joined = "".join(self.words)
        self._pinyin = any(_ASCII_WORD.match(w) for w in (*self.words, self.joined))
        # Only symbols typed (😋, ★, ♥): symbols are no words (「咖啡😋」 looks for 咖啡), but alone they
        # are what is looked for, as written. Punctuation alone still searches for nothing.
        self.symbols = "" if self.words or not any(unicodedata.category(ch)[0] == "S" for ch in self.text) \
            else _symbols(collapse(self.text))

    def __bool__(self) -> bool:
        return bool(self.words or self.symbols)

    @property
    def wants_pinyin(self) -> bool:
        """Whether a word could be pinyin (letters only), so warming pinyin can find more."""
        return self._pinyin

    @staticmethod
    def _word_spans(word: str, text: str, folded: str, key: PinyinKey | None) -> list[Span]:
        if word in folded:
            plain, where = fold_where(text)
            return _spans(where, _occurrences(plain, word), len(word))
        if key is None or not _ASCII_WORD.match(word):
            return []
        for line, line_where in ((key.full, key.full_where), (key.initials, key.initials_where)):
            first = line.find(word)
            if first >= 0:
                return _spans(line_where, [first], len(word))
        return []

    def matches(self, description: str, theme: str = "") -> bool:
        """Whether the card matches (an empty query matches everything), on the folded texts alone."""
        return not self or self._matched(description, theme) is not None

    def spans(self, description: str, theme: str = "") -> list[Span] | None:
        """Where the query matched in ``collapse(description)``; ``[]`` when it matched only the
        theme; None when the card does not match (an empty query matches everything). Whether it
        matches is found on the folded texts alone; where, only for a card that does."""
        if not self:
            return []
        found = self._matched(description, theme)
        if found is None:
            return None
        matched, text, folded, key = found
        if self.symbols:
            plain, where = _symbols_where(text)
            return _spans(where, _occurrences(plain, self.symbols), len(self.symbols))
        return sorted({span for word in matched for span in self._word_spans(word, text, folded, key)})

    def _matched(self, description: str, theme: str) -> tuple[tuple[str, ...], str, str, PinyinKey | None] | None:
        """The words that matched, the card's collapsed and folded text and its pinyin; None: no match."""
        text = collapse(description)
        if self.symbols:
            found_symbols = self.symbols in _symbols(text) or self.symbols in _symbols(collapse(theme))
            return ((), text, "", None) if found_symbols else None
        folded = fold(text)
        theme_folded = fold(collapse(theme))
        keys: tuple[PinyinKey | None, PinyinKey | None] | None = None
        if self._pinyin:
            keys = (pinyin_key(text), pinyin_key(collapse(theme)))

        def found(word: str) -> bool:
            if word in folded or word in theme_folded:
                return True
            if keys is None or not _ASCII_WORD.match(word):
                return False
            return any(key is not None and (word in key.full or word in key.initials) for key in keys)

        if all(found(word) for word in self.words):
            matched = self.words
        elif len(self.words) > 1 and found(self.joined):
            matched = (self.joined,)
        else:
            return None
        return matched, text, folded, keys[0] if keys is not None else None
