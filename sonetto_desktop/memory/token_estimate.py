"""The app's one offline token estimate: one token per CJK (and full-width) character and per digit,
one per four other characters.

Everything that counts tokens without a tokenizer uses it: the recall budget and its listing
(``retrieval/budget.py``), the chat history kept for the model (``agent/graph.py``), the history
import's plan and its cost (``history_import/plan.py``). It is the unit budgets are set in; what a
provider's own tokenizer makes of it was measured per tokenizer family (``retrieval/token_count.py``:
``Family.per_estimate``, 0.73-1.23 real tokens per estimated token on memory text) and is converted
there. Cheap (two regex passes), the same on every machine, no imports beyond ``re``.
"""

from __future__ import annotations

import re

__all__ = ["estimate_tokens", "estimate_tokens_unrounded"]

_ONE_EACH = re.compile(r"[0-9\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef\U00020000-\U0003134f]")


def estimate_tokens(text: str) -> int:
    """Estimated tokens of ``text``: the unrounded figure rounded up."""
    single = len(_ONE_EACH.findall(text))
    return single + (len(text) - single + 3) // 4


def estimate_tokens_unrounded(text: str) -> float:
    """``estimate_tokens`` before rounding up: texts joined by white space add up (the import's plan
    sums its exchanges' figures instead of keeping their text)."""
    single = len(_ONE_EACH.findall(text))
    return single + (len(text) - single) / 4
