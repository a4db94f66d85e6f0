"""Text as a person sees it: what shows nothing on screen but a model reads is left out.

A text from outside the person's own typing — another app's memory or conversation over MCP, a chat
export being imported — could carry instructions in characters that show nothing: Unicode tag
characters (they spell hidden ASCII), zero-width spaces, bidi controls, variation selectors piled up
to carry bytes. The person reviews what they see; the model must read the same.
"""

from __future__ import annotations

import functools
import itertools
import re
import unicodedata

__all__ = ["shown_line", "shown_text"]

#: Joiners that shape what shows (emoji sequences, Persian and Indic words): kept in a text, not in a line.
_JOINERS = frozenset({"\u200c", "\u200d"})


def _is_selector(ch: str) -> bool:
    return "\ufe00" <= ch <= "\ufe0f"


@functools.cache
def _suspect() -> re.Pattern[str]:
    """Any character :func:`shown_text` may leave out (control and format characters, variation
    selectors): a text without one is shown as it is, found at C speed (an imported export's every
    message goes through here). Built once, from the planes that hold such characters."""
    codes = (c for c in itertools.chain(range(0x20000), range(0xE0000, 0xE0200)) if chr(c) not in "\n\t" and (
             unicodedata.category(chr(c)) in ("Cc", "Cf") or 0xFE00 <= c <= 0xFE0F or 0xE0100 <= c <= 0xE01EF))
    spans: list[list[int]] = []  # one pass, nothing held per code point (a list of them was 4.4 MB at once)
    for code in codes:  # as ranges: a class of single characters is searched one by one
        if spans and code == spans[-1][1] + 1:
            spans[-1][1] = code
        else:
            spans.append([code, code])
    return re.compile("[" + "".join(re.escape(chr(a)) + ("-" + re.escape(chr(b)) if b > a else "") for a, b in spans) + "]")


def shown_text(text: str) -> str:
    """``text`` as the person sees it on a card: without what shows nothing but a model reads — format
    characters (Unicode category Cf: tag characters, which spell hidden text, zero-width spaces, bidi
    controls; the joiners kept), the supplementary variation selectors and a second selector in a row
    (hidden bytes ride on them), and control characters but line breaks and tabs."""
    if not _suspect().search(text):
        return text
    kept: list[str] = []
    for ch in text:
        if ch in "\n\t":
            kept.append(ch)
        elif (unicodedata.category(ch) in ("Cc", "Cf") and ch not in _JOINERS) or "\U000e0100" <= ch <= "\U000e01ef":
            continue
        elif not (_is_selector(ch) and kept and _is_selector(kept[-1])):
            kept.append(ch)
    return "".join(kept)


def shown_line(text: str) -> str:
    """:func:`shown_text` on one line, without joiners (a theme: one that reads as another is the other)."""
    return " ".join("".join(ch for ch in shown_text(text) if ch not in _JOINERS).split())
