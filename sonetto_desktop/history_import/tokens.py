"""An offline estimate of how many tokens an import costs, before any model is asked.

Tokenizers differ by model; this one is calibrated against the Qwen2.5 tokenizer (which
``bench/writer_tokens.py`` counts with) on Chinese, English, mixed and code samples, within about
±10% on each, and agrees with DeepSeek's published rule of thumb (~0.6 tokens per Chinese
character, ~0.3 per English character): a Chinese character ≈ 0.65 tokens, a Latin word or a digit
≈ 1 token plus one per 8 letters, any other symbol ≈ 0.8. Shown as "约" (about): other models'
tokenizers can differ by a quarter. ``bench/history_import.py`` compares it with counted tokens.
"""

from __future__ import annotations

import re

_CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")
_WORD = re.compile(r"[A-Za-z]+|\d")
_SYMBOL = re.compile(r"[^\sA-Za-z\d]")


def estimate_tokens(text: str) -> int:
    """About how many tokens ``text`` is for a model's tokenizer."""
    return round(estimate_tokens_unrounded(text))


def estimate_tokens_unrounded(text: str) -> float:
    """``estimate_tokens`` before rounding: texts joined by white space add up (a plan sums its
    exchanges' figures instead of keeping their text)."""
    cjk = len(_CJK.findall(text))
    rest = _CJK.sub(" ", text)
    words = sum(1 + len(w) // 8 for w in _WORD.findall(rest))
    symbols = len(_SYMBOL.findall(rest))
    return cjk * 0.65 + words + symbols * 0.8
