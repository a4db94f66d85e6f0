"""A client's name as the history shows it and the allow list and the app tokens match it: one line,
printable, bounded (``mcp:`` plus at most ``MAX_CLIENT_CHARS`` characters).

Names are compared as the eye reads them, since an app chooses the name it declares: ``client_label``
applies NFKC (full-width and other compatibility forms become the plain letters) and drops what shows
nothing (format characters, Unicode category Cf: zero-width spaces and joiners, the word joiner, bidi
marks; variation selectors; fillers that print blank), so a stored or shown name never carries an
invisible character; and it drops what a bridge adds (``Claude Desktop (via mcp-remote 0.1.38)`` is
``Claude Desktop``). ``name_key`` is what two names are equal by: the label, casefolded.
``lookalike_key`` goes further, for the names reserved by an app's own token: Cyrillic and Greek letters
that look like Latin ones read as those (``Сursor`` with a Cyrillic С is ``cursor``), and marks on
letters are dropped, so a look-alike of a reserved name can be told and refused.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

MAX_CLIENT_CHARS = 40
UNKNOWN_CLIENT = "unknown"
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
#: What a bridge adds to the name of the app it carries: mcp-remote (the bridge the settings page gives
#: Claude Desktop for HTTP) declares ``Claude Desktop (via mcp-remote 0.1.38)``, a new name with each of
#: its versions. The app is the app, whichever bridge and version carry it.
_BRIDGED = re.compile(r"\s*\(via [^()]*\)$")
#: Characters that print nothing but are not format characters (Cf): the combining grapheme joiner,
#: variation selectors, Hangul and braille blanks, the Mongolian vowel separator's neighbours.
_BLANK = frozenset(
    [0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180B, 0x180C, 0x180D, 0x180F, 0x2800, 0x3164, 0xFFA0]
    + list(range(0xFE00, 0xFE10)) + list(range(0xE0100, 0xE01F0)))

#: Letters that look like Latin ones, read before casefolding (a capital's look is not its small
#: letter's: Greek Η looks like H, η like n; a capital I like a small l).
_UPPER_LOOKALIKES = str.maketrans({
    # Cyrillic capitals
    "А": "A", "В": "B", "С": "C", "Е": "E", "Ё": "E", "Н": "H", "І": "l", "Ї": "l", "Ј": "J", "К": "K",
    "М": "M", "О": "O", "Р": "P", "Ѕ": "S", "Т": "T", "Х": "X", "Ү": "Y", "Ԁ": "D", "Ԛ": "Q", "Ԝ": "W",
    "Ӏ": "l",
    # Greek capitals
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "l", "Κ": "K", "Μ": "M", "Ν": "N", "Ο": "O",
    "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
    # Latin and digits that read as another letter
    "I": "l", "1": "l", "|": "l", "0": "O",
})
#: Small letters (after casefolding) that look like Latin ones.
_LOWER_LOOKALIKES = str.maketrans({
    # Cyrillic
    "а": "a", "в": "b", "с": "c", "ԁ": "d", "е": "e", "ё": "e", "һ": "h", "і": "i", "ї": "i", "ј": "j",
    "к": "k", "ӏ": "l", "м": "m", "о": "o", "р": "p", "ԛ": "q", "ѕ": "s", "т": "t", "у": "y", "ԝ": "w",
    "х": "x", "ү": "y", "ь": "b", "п": "n", "г": "r",
    # Greek
    "α": "a", "β": "b", "ϲ": "c", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p",
    "τ": "t", "υ": "u", "χ": "x", "γ": "y", "ω": "w", "μ": "u", "ϳ": "j", "ς": "c", "σ": "o",
    # Latin letters that read as others
    "ı": "i", "ȷ": "j", "ſ": "s", "ɑ": "a", "ɡ": "g",
})


def _shows(ch: str) -> bool:
    return unicodedata.category(ch) != "Cf" and ord(ch) not in _BLANK


def client_label(name: Any) -> str:
    """A client's name from the handshake (or an app token's) as shown and matched: NFKC, without
    invisible characters, control characters as spaces, one line, without a bridge's mark
    (:data:`_BRIDGED`), bounded."""
    text = unicodedata.normalize("NFKC", str(name or ""))
    text = "".join(ch for ch in text if _shows(ch))
    text = " ".join(_UNPRINTABLE.sub(" ", text).split())
    text = _BRIDGED.sub("", text) or text
    return text[:MAX_CLIENT_CHARS] or UNKNOWN_CLIENT


def name_key(name: Any) -> str:
    """What two names are the same by: their labels, casefolded."""
    return client_label(name).casefold()


def lookalike_key(name: Any) -> str:
    """What two names look the same by (see the module docstring): the casefolded label without marks on
    letters, Cyrillic and Greek look-alikes read as the Latin letters, I, i, 1 and | as l, 0 as o,
    spaces, dots, dashes and underscores left out."""
    decomposed = unicodedata.normalize("NFD", client_label(name))
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    latin = bare.translate(_UPPER_LOOKALIKES).casefold().translate(_LOWER_LOOKALIKES).replace("i", "l")
    return re.sub(r"[\s._\-‐-―·]+", "", latin)
