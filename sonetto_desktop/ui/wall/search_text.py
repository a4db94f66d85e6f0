"""Search words against card text: tolerant of spaces, punctuation and case, and of Chinese typed as
pinyin — full (``kafei`` finds 咖啡) or initials (``kf``). Pure Python, no Qt.

Text is compared after *folding*: whitespace and punctuation dropped, case folded. A query matches
a card when each of its words (split at spaces and at punctuation like 「，、」) matches the card's
text or theme, or when the whole query with the spaces taken out does (``手冲 咖啡`` finds 手冲咖啡,
``咖啡，拿铁`` finds 咖啡 and 拿铁 anywhere in the card). ``SearchQuery.spans`` says where in the
card's text (its whitespace-collapsed form, as the card shows it) the words matched, for
highlighting.

Pinyin comes from a table of our own, ``memory/retrieval/pinyin_readings.tsv`` (every reading CC-CEDICT
gives ~14,500 characters, simplified and traditional; 47 KB, read in ~4-12 ms into ~2 MB at the first
pinyin search): a polyphonic character matches by any of its readings (重庆 ``chongqing``, 重要
``zhongyao``, 曾老师 ``zenglaoshi``); a character the table lacks is found by itself only. Pinyin is
never made on the Qt thread during a search: ``warm_pinyin`` reads the table and fills the cache in a
worker (~10 µs a card), and a query reads only the cache (``pinyin_key`` returns None for text not
warmed yet). (``pypinyin``, used before, loaded its dictionaries at the first pinyin search: ~270 ms
holding the GIL, ~55-78 MB, issue 37.)
"""

from __future__ import annotations

import functools
import re
import threading
import unicodedata
from dataclasses import dataclass
from importlib import resources
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


# A line of pinyin holds the reading of each character; a character with several readings is set
# apart, its readings between ``_NEXT`` and ``_NEXT`` with ``_OR`` between them
# ("kafei\x01chong\x02zhong\x01qing"). A word matches a line when it is a stretch of one of the
# strings the line stands for (one reading chosen for each character): ``SearchQuery._pattern``.
_NEXT, _OR = "\x01", "\x02"
# From the last letter of a reading to the first of one of the next character's readings (two
# characters set apart side by side meet at "\x01\x01").
_SKIP = r"(?:(?:\x02[^\x01]*)?\x01+(?:[^\x01\x02]*\x02)*)?"


@functools.lru_cache(maxsize=1)
def _tables() -> tuple[dict[int, str], dict[int, str]]:
    """For ``str.translate`` (``_through``): each character's part of the full line and of the
    initials line, from ``pinyin_readings.tsv`` (toneless readings, ``ü`` written ``v``)."""
    text = resources.files("sonetto_desktop.memory.retrieval").joinpath("pinyin_readings.tsv").read_text(encoding="utf-8")
    full: dict[int, str] = {}
    initials: dict[int, str] = {}
    several: dict[int, list[str]] = {}  # the ~830 characters read more than one way
    for line in text.splitlines():  # (~420 lines: each one's characters set at C speed)
        if line and not line.startswith("#"):
            syllable, _, chars = line.partition("\t")
            codes = list(map(ord, chars))
            for code in [code for code in codes if code in full]:
                several.setdefault(code, [full[code]]).append(syllable)
            full.update(dict.fromkeys(codes, syllable))
            initials.update(dict.fromkeys(codes, syllable[0]))
    for code, these in several.items():
        heads = list(dict.fromkeys(r[0] for r in these))
        full[code] = _NEXT + _OR.join(these) + _NEXT
        initials[code] = heads[0] if len(heads) == 1 else _NEXT + _OR.join(heads) + _NEXT
    return full, initials


# ``str.translate`` by another name: lupdate (and tests/ui/test_translations.py) read every
# ``.translate(…)`` call in the UI as a string to translate.
_through = str.translate


@dataclass(frozen=True, slots=True)
class PinyinKey:
    full: str  # "xihuanshouchong\x01ga\x02ka\x01fei…" (see _NEXT); other letters and digits folded
    initials: str  # "xhsc\x01g\x02k\x01f…"


def _compute(text: str) -> PinyinKey:
    full, initials = _tables()
    folded = fold(text)  # (a character the table lacks stays itself: found by itself only)
    return PinyinKey(_through(folded, full), _through(folded, initials))


def _lines_where(text: str) -> list[tuple[str, list[int]]]:
    """``_compute(text)``'s full and initials lines, each with the index in ``text`` each of its
    characters comes from (``fold`` a character at a time)."""
    out = []
    for table in _tables():
        pieces: list[str] = []
        where: list[int] = []
        for i, ch in enumerate(text):
            if ch.isalnum():
                piece = _through(ch.casefold(), table)
                pieces.append(piece)
                where.extend([i] * len(piece))
        out.append(("".join(pieces), where))
    return out


def _locate(word: str, line: str, pattern: re.Pattern[str]) -> tuple[int, int] | None:
    """Where ``word`` is in a line of pinyin: (start, end) in the line, or None."""
    if _NEXT not in line:  # every character read one way: the plain text search
        start = line.find(word)
        return None if start < 0 else (start, start + len(word))
    found = pattern.search(line)
    return None if found is None else found.span()


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
        self._patterns: dict[str, re.Pattern[str]] = {}
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

    def _pattern(self, word: str) -> re.Pattern[str]:
        """``word`` (letters) as a stretch of a line of pinyin (``_NEXT``)."""
        pattern = self._patterns.get(word)
        if pattern is None:
            pattern = self._patterns[word] = re.compile(_SKIP.join(word))
        return pattern

    def _word_spans(self, word: str, text: str, folded: str, key: PinyinKey | None) -> list[Span]:
        if word in folded:
            plain, where = fold_where(text)
            return _spans(where, _occurrences(plain, word), len(word))
        if key is None or not _ASCII_WORD.match(word):
            return []
        for line, line_where in _lines_where(text):
            found = _locate(word, line, self._pattern(word))
            if found is not None:
                start, end = found
                return [(line_where[start], line_where[end - 1] - line_where[start] + 1)]
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
            pattern = self._pattern(word)
            return any(key is not None and (_locate(word, key.full, pattern) is not None
                                            or _locate(word, key.initials, pattern) is not None) for key in keys)

        if all(found(word) for word in self.words):
            matched = self.words
        elif len(self.words) > 1 and found(self.joined):
            matched = (self.joined,)
        else:
            return None
        return matched, text, folded, keys[0] if keys is not None else None
