"""Typos from a pinyin keyboard: 航州 for 杭州, 过民 for 过敏, 深证 for 深圳.

Typing pinyin, a person picks a character that sounds like the one meant (the same syllable, or one a
keyboard's "fuzzy" setting pairs with it: zh/z, ch/c, sh/s, n/l, -ang/-an, -eng/-en, -ing/-in). Such a
slip leaves a stretch of the question that is no word of the bank (``lexicon.analyze``'s unknown
pieces). :func:`sound_alike_words` reads each two- and three-character stretch of such a piece with one
character swapped for one that sounds like it, and keeps the readings the bank holds as words: a guess,
weighed below the question's own words by the caller.

The table (``pinyin_zh.tsv``, from CC-CEDICT by ``scripts/build_pinyin.py``, CC BY-SA 4.0) is read
once, when the first piece needs it (27 KB).
"""

from __future__ import annotations

import functools
from importlib import resources
from typing import Callable

__all__ = ["sound_alike_words", "sounds_like"]

_PACKAGE = "sonetto_desktop.memory.retrieval"
_INITIALS = (("zh", "z"), ("ch", "c"), ("sh", "s"))
_FINALS = (("ang", "an"), ("eng", "en"), ("ing", "in"))
MAX_PIECE = 6  # longer unknown stretches are rambling text, not one word typed wrong
MAX_SOUNDS = 80  # characters tried for one (the same syllable first, then the fuzzy ones; common first)
MAX_WORDS = 4  # sound-alike words kept per piece, the most common readings first


@functools.lru_cache(maxsize=1)
def _table() -> tuple[dict[str, tuple[str, ...]], dict[str, str]]:
    """(character -> its syllables, syllable -> its characters, most common first)."""
    text = resources.files(_PACKAGE).joinpath("pinyin_zh.tsv").read_text(encoding="utf-8")
    chars: dict[str, str] = {}
    readings: dict[str, list[str]] = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            syllable, _, members = line.partition("\t")
            chars[syllable] = members
            for ch in members:
                readings.setdefault(ch, []).append(syllable)
    return {ch: tuple(s) for ch, s in readings.items()}, chars


def _fuzzy(syllable: str) -> set[str]:
    """The syllable and those a pinyin keyboard's fuzzy setting takes it for."""
    out = {syllable}
    for a, b in _INITIALS:
        for s in list(out):
            if s.startswith(a):
                out.add(b + s[len(a):])
            elif s.startswith(b) and not s.startswith(a):
                out.add(a + s[len(b):])
    for s in list(out):
        if s[:1] in "nl" and len(s) > 1:
            out.add(("l" if s[0] == "n" else "n") + s[1:])
    for a, b in _FINALS:
        for s in list(out):
            if s.endswith(a):
                out.add(s[:-len(a)] + b)
            elif s.endswith(b):
                out.add(s + a[len(b):])
    return out


@functools.lru_cache(maxsize=4096)
def sounds_like(ch: str) -> str:
    """Characters that sound like ``ch`` (same or fuzzy syllable), most common first, ``ch`` left out."""
    readings, chars = _table()
    out: dict[str, None] = {}
    for syllable in readings.get(ch, ()):
        for s in sorted(_fuzzy(syllable), key=lambda x: x != syllable):  # the same syllable first
            for other in chars.get(s, ""):
                if other != ch:
                    out[other] = None
    return "".join(out)[:MAX_SOUNDS]


def _readings(piece: str) -> dict[str, int]:
    """``piece``'s two- and three-character stretches with one character swapped for one that sounds
    like it -> how far down that character's list it was (0: the most common)."""
    out: dict[str, int] = {}
    if len(piece) < 2 or len(piece) > MAX_PIECE:
        return out
    get = out.get
    for size in (2, 3):
        for start in range(len(piece) - size + 1):
            window = piece[start:start + size]
            for i, ch in enumerate(window):
                head, tail = window[:i], window[i + 1:]
                for rank, other in enumerate(sounds_like(ch)):
                    word = head + other + tail
                    if rank < get(word, MAX_SOUNDS):
                        out[word] = rank
    return out


def sound_alike_words(pieces: list[str], known: Callable[[list[str]], list[bool]]) -> list[str]:
    """Words of the bank that ``pieces`` may have meant, each with one character typed for another
    that sounds like it; up to ``MAX_WORDS`` a piece, a longer word and a more common swap first.
    ``known(words)`` says which words the bank holds: asked once, for every piece together."""
    readings = [_readings(piece) for piece in dict.fromkeys(pieces)]
    words = list(dict.fromkeys(w for r in readings for w in r))
    if not words:
        return []
    held = {w for w, hit in zip(words, known(words), strict=True) if hit}
    out: dict[str, None] = {}
    for r in readings:
        found = sorted((w for w in r if w in held), key=lambda w: (-len(w), r[w]))
        out.update(dict.fromkeys(found[:MAX_WORDS]))
    return list(out)
