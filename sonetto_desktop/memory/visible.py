"""Text as a person sees it: what shows nothing on screen but a model reads is left out.

A text from outside the person's own typing — another app's memory or conversation over MCP, a chat
export being imported — could carry instructions in characters that show nothing: Unicode tag
characters (they spell hidden ASCII), zero-width spaces, bidi controls, variation selectors piled up
to carry bytes. The person reviews what they see; the model must read the same.
"""

from __future__ import annotations

import unicodedata

__all__ = ["shown_line", "shown_text"]

#: Joiners that shape what shows (emoji sequences, Persian and Indic words): kept in a text, not in a line.
_JOINERS = frozenset({"\u200c", "\u200d"})


def _is_selector(ch: str) -> bool:
    return "\ufe00" <= ch <= "\ufe0f"


def shown_text(text: str) -> str:
    """``text`` as the person sees it on a card: without what shows nothing but a model reads — format
    characters (Unicode category Cf: tag characters, which spell hidden text, zero-width spaces, bidi
    controls; the joiners kept), the supplementary variation selectors and a second selector in a row
    (hidden bytes ride on them), and control characters but line breaks and tabs."""
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
