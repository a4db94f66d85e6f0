"""What recall costs per message: tokens sent to the recall model, the share a prefix cache serves,
and money where the provider's list price is known. Shown beside the budget setting
(``presentation/recall_cost.py`` words it). No Qt; nothing here blocks except :func:`bank_count`.

Per message the recall request is the system prompt, the memory listing, then the message, the date
and hints. The listing:

- the whole bank when it fits the budget (estimated tokens): consecutive requests then repeat
  everything up to the new memories at the listing's end and the message (1,000 memories at a
  48,000 budget: 100 % of the request repeats the previous one, docs/benchmarks.md, "Tokens and time
  per message");
- above the budget, with a cloud endpoint, the conversation block (``conversation.py``): a request
  holds about ``BLOCK_FILL`` of the budget and ``BLOCK_DIFFERS`` of it differs from the previous one
  (both measured at 10,000 memories over unrelated messages and over a conversation:
  ``python -m bench.recall_issue36 differs``, docs/benchmarks.md "Recall at scale (issue 36)");
- above the budget, with a local server, the whole budget for each message's shortlist, of which
  ``LOCAL_REPEATS`` repeats (docs/benchmarks.md, "Tokens and time per message", 6,000 budget).

Tokens are the provider's (``token_count``): the bank's lines are counted with the family's tokenizer
(a sample of a large bank), the budget turned into the family's tokens by this bank's own ratio.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .budget import is_local_endpoint
from .token_count import BankCount, Family, TokenCounter, count_bank

__all__ = ["BLOCK_DIFFERS", "BLOCK_FILL", "LIST_PRICES", "LOCAL_REPEATS", "MESSAGE_TOKENS", "Price", "RecallCost",
           "bank_count", "list_price", "own_price", "recall_cost"]

#: Above the budget (cloud): a request holds this share of the budget on average (0.92-0.95 measured:
#: the block keeps its beginning and fills the rest; before it only grew, and held 0.57-0.69) ...
BLOCK_FILL = 0.95
#: ... and this share of it differs from the previous request (27-33 % measured: the upper end).
BLOCK_DIFFERS = 0.33
#: Above the budget (local server): the share of a request that repeats the previous one (38-39 % measured).
LOCAL_REPEATS = 0.38
#: The message, the date, the hints and the listing's headers after the listing (estimated tokens):
#: what differs from one request to the next even when the whole bank is read.
MESSAGE_TOKENS = 300


@dataclass(frozen=True)
class Price:
    """A list price per million input tokens: ``input`` (cache miss) and ``cached`` (cache hit),
    in ``currency``; ``source`` names the price list and when it was read."""

    input: float
    cached: float
    currency: str
    source: str


# List prices per 1M input tokens, as published by each provider (read 2026-12-06; prices change:
# the person's own price in the settings wins, ``price_input_per_mtok``). Matched in order on
# (host part, model pattern); the first hit wins.
#   DeepSeek: api-docs.deepseek.com "模型 & 价格" (read 2026-12-07): deepseek-flash (V4.1 Flash; the old
#     name deepseek-v4-flash is served and billed as it) ¥2 cache miss / ¥0.04 cache hit, deepseek-v4-pro
#     ¥9 / ¥0.30, at peak hours (Beijing weekdays 9-12, 14-18; half that otherwise: the higher one is
#     shown). Before: deepseek-chat / deepseek-reasoner (V3.2) $0.28 / $0.028 (2025-09-29, retired).
#   OpenAI: openai.com/api/pricing: gpt-4o-mini $0.15 / cached $0.075; gpt-4.1-mini $0.40 / $0.10;
#     gpt-4.1 $2.00 / $0.50; gpt-4o $2.50 / $1.25.
#   Alibaba Cloud Model Studio (DashScope), mainland (dashscope.aliyuncs.com): qwen-plus ¥0.8, qwen-flash
#     ¥0.15 per 1M input up to 128k; implicit cache hits billed at 20 % of the input price.
#     International (dashscope-intl): qwen-plus $0.40, cache hits 20 %.
LIST_PRICES: tuple[tuple[str, re.Pattern[str], Price], ...] = (
    ("deepseek.com", re.compile(r"deepseek-(v4-)?flash"), Price(2.0, 0.04, "¥", "DeepSeek 2026-10")),
    ("deepseek.com", re.compile(r"deepseek-v4-pro"), Price(9.0, 0.30, "¥", "DeepSeek 2026-10")),
    ("deepseek.com", re.compile(r"deepseek-(chat|reasoner)"), Price(0.28, 0.028, "$", "DeepSeek 2025-09")),
    ("openai.com", re.compile(r"^gpt-4o-mini"), Price(0.15, 0.075, "$", "OpenAI 2024-07")),
    ("openai.com", re.compile(r"^gpt-4\.1-mini"), Price(0.40, 0.10, "$", "OpenAI 2025-04")),
    ("openai.com", re.compile(r"^gpt-4\.1(-20|$)"), Price(2.00, 0.50, "$", "OpenAI 2025-04")),
    ("openai.com", re.compile(r"^gpt-4o(-20|$)"), Price(2.50, 1.25, "$", "OpenAI 2024-10")),
    ("dashscope-intl", re.compile(r"^qwen-plus"), Price(0.40, 0.08, "$", "Alibaba Cloud 2025")),
    ("dashscope.aliyuncs.com", re.compile(r"^qwen-plus"), Price(0.8, 0.16, "¥", "阿里云百炼 2025")),
    ("dashscope.aliyuncs.com", re.compile(r"^qwen-flash"), Price(0.15, 0.03, "¥", "阿里云百炼 2025")),
)


def own_price(input_per_mtok: float, currency: str, base_url: str, model: str) -> Price | None:
    """The person's own input price (settings), its cache hits at the list price's discount when
    the model's list price is known, else at full price (None: no price set)."""
    if not input_per_mtok or input_per_mtok <= 0:
        return None
    listed = list_price(base_url, model)
    share = listed.cached / listed.input if listed and listed.input else 1.0
    return Price(input_per_mtok, input_per_mtok * share, currency or "¥", "")


def list_price(base_url: str, model: str) -> Price | None:
    """The provider's list price for ``model`` at ``base_url`` (None: not in the table)."""
    from urllib.parse import urlsplit

    host = (urlsplit((base_url or "").strip()).hostname or "").lower()
    name = (model or "").strip().lower()
    for part, pattern, price in LIST_PRICES:
        if part in host and pattern.search(name):
            return price
    return None


@dataclass(frozen=True)
class RecallCost:
    """One message's recall, on average. ``tokens`` in ``family`` tokens (the estimate when it is
    unknown), ``listing`` the memories' part of them (the rest: the system prompt, the message, the
    date, the hints and the listing's headings), ``repeats`` the share of them a prefix cache can
    serve, ``per_message`` the money in ``price.currency`` (None: no price known, or a local server)."""

    memories: int
    budget: int  # the listing budget, estimated tokens (the setting's unit)
    whole_bank: bool
    local: bool
    family: Family
    exact: bool  # counted with the family's own tokenizer
    tokens: int
    repeats: float
    price: Price | None
    per_message: float | None
    listing: int = 0


def recall_cost(bank: BankCount, budget: int, *, base_url: str, model: str, prompt_tokens: int,
                family: Family, price: Price | None = None) -> RecallCost:
    """The cost of one message's recall for a bank counted as ``bank`` (``token_count.count_bank``)
    under a listing budget of ``budget`` estimated tokens. ``prompt_tokens``: the system prompt in
    the family's tokens. ``price``: the person's own (else the list price, when known)."""
    local = is_local_endpoint(base_url)
    if bank.memories == 0:  # recall asks no model when there is nothing to find (``MemoryRecall._plan``)
        return RecallCost(0, budget, True, local, family, bank.exact, 0, 0.0, None, None, 0)
    ratio = bank.per_estimate if bank.estimated else family.per_estimate
    whole = bank.estimated <= budget
    tail = round(MESSAGE_TOKENS * family.per_estimate)
    if whole:
        listing = bank.real
        tokens = prompt_tokens + listing + tail
        repeats = (prompt_tokens + listing) / tokens if tokens else 0.0
    elif local:
        listing = round(budget * ratio)
        tokens = prompt_tokens + listing + tail
        repeats = LOCAL_REPEATS
    else:
        listing = round(budget * BLOCK_FILL * ratio)
        tokens = prompt_tokens + listing + tail
        repeats = 1 - BLOCK_DIFFERS
    chosen = None if local else (price or list_price(base_url, model))
    money = None
    if chosen is not None and (chosen.input or chosen.cached):
        money = tokens * (repeats * chosen.cached + (1 - repeats) * chosen.input) / 1_000_000
    return RecallCost(bank.memories, budget, whole, local, family, bank.exact, tokens, repeats, chosen, money, listing)


def bank_count(listing: Any, counter: TokenCounter) -> tuple[BankCount, int]:
    """Count a ``RecallListing``'s memories (every part) and the system prompt with ``counter``.
    Blocking (reads the store on first use, loads the tokenizer): call it from a worker."""
    from .listing import BODY, TOKENS
    from .llm_prompt import FIND_RELATED_MEMORY

    order = listing.snapshot().order
    bank = count_bank([e[BODY] for e in order], [e[TOKENS] for e in order], counter)
    return bank, counter.count(FIND_RELATED_MEMORY)

