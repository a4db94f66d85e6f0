"""Text that can be stored: Python strings may hold lone surrogates (a model's JSON can carry
``"\\ud83d"`` alone), which UTF-8, SQLite, YAML and JSON files refuse. And the words of a search
query. No Qt."""

from __future__ import annotations

import re
import unicodedata

_SURROGATE = re.compile("[\ud800-\udfff]")


def storable(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD (a surrogate pair becomes its character)."""
    if not _SURROGATE.search(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


_UNSTORABLE_ON_SERVER = re.compile("[\ud800-\udfff\x00]")


def server_storable(text: str) -> str:
    """Text PostgreSQL accepts: a lone surrogate or a NUL (which SQLite, YAML and JSON files keep,
    PostgreSQL's ``text`` and ``jsonb`` refuse) becomes U+FFFD."""
    return _UNSTORABLE_ON_SERVER.sub("\ufffd", text)


_ASCII_SEPARATORS = frozenset(",;|/")


def _separates(ch: str) -> bool:
    if ch.isspace() or ch in _ASCII_SEPARATORS:
        return True
    # Chinese and other non-ASCII punctuation (，、；。「」…) and symbols separate words; ASCII
    # punctuation inside a word ("e-mail", "C++", "3.5") stays part of it
    return ord(ch) > 127 and unicodedata.category(ch)[0] in "PSZ"


def query_words(text: str) -> list[str]:
    """The words of a search query: split at whitespace and at punctuation such as 「，、；。」
    (「咖啡，拿铁」 is two words, as 「咖啡 拿铁」 is)."""
    words: list[str] = []
    current: list[str] = []
    for ch in str(text or ""):
        if _separates(ch):
            if current:
                words.append("".join(current))
                current = []
        else:
            current.append(ch)
    if current:
        words.append("".join(current))
    return words
