"""What the LLM path of memory recall costs, and (with a real endpoint) what it buys.

    python -m bench.recall_llm [--delay 0.2] [--sizes 50,200,1000,5000] [--queries 20]
    python -m bench.recall_llm --quality [DATASET.yaml]

Part 1 (always): MECHANICAL vs HYBRID vs LLM through ``MemoryRecall.aretrieve`` against the scripted
OpenAI-compatible server of the test suite (127.0.0.1) answering after a fixed ``--delay``. It prints
per-query latency, the extra cost over MECHANICAL *beyond* the model's own delay (prompt building,
HTTP, parsing, the offline shortlist) and the size of the recall prompt, which must stay bounded
as the bank grows.

Part 2 (``--quality``): recall@5 / MRR / negatives answered empty on a dataset in the
``retrieval-zh-dev.yaml`` format, for the three modes, against a real endpoint configured with
SONETTO_BENCH_BASE_URL, SONETTO_BENCH_MODEL and SONETTO_BENCH_API_KEY. Without them it says so
and exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for extra in (ROOT, ROOT / "tests"):  # the scripted server lives with the tests
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

from bench.recall import QueryCase, fill_store, load_dataset, p95, summarize  # noqa: E402
from sonetto_desktop.memory.item import MemoryItem  # noqa: E402
from sonetto_desktop.memory.retrieval import MechanicalRetriever, MemoryRecall, RetrievalMode  # noqa: E402
from sonetto_desktop.memory.stores.sqlite import SqliteMemoryManager  # noqa: E402

DEFAULT_DATASET = ROOT.parent / "shared" / "benchmarks" / "retrieval-zh-dev.yaml"
QUERIES = [
    "最近在忙什么",
    "工具3号放在哪",
    "今晚想吃点什么",
    "下周有什么要交的",
    "12号楼的咖啡店怎么样",
    "帮我把 128 除以 16 算一下",
    "第42个项目进展如何",
    "推荐几首歌",
]
ORDER = (RetrievalMode.MECHANICAL, RetrievalMode.HYBRID, RetrievalMode.LLM)
THEMES = ["项目", "品味", "瞬间", "身份", "地点与路径", "时效待办", "音乐"]


def synthetic_bank(n: int) -> dict[str, MemoryItem]:
    return {
        f"m{i:05d}": MemoryItem(
            f"第{i}条：小林在第{i % 97}个项目里用了工具{i % 13}号，常去{i % 31}号楼的咖啡店，"
            f"{1 + i % 12}月{1 + i % 28}日记下。",
            THEMES[i % len(THEMES)],
            latest_update_time=f"2026-{1 + i % 11:02d}-{1 + i % 27:02d}T10:00:00",
            hit=i % 9,
        )
        for i in range(n)
    }


def _ms(values: list[float]) -> str:
    return f"{statistics.median(values):7.1f} {p95(values):7.1f}"


async def latency(delay: float, sizes: list[int], rounds: int) -> list[dict]:
    from langchain_openai import ChatOpenAI
    from llm_server import ScriptedLLMServer, estimate_tokens

    rows = []
    with ScriptedLLMServer() as server, tempfile.TemporaryDirectory(prefix="sonetto-bench-llm-") as tmp:
        server.delay = delay
        server.responder = lambda body: "[0, 1]"
        llm = ChatOpenAI(base_url=server.base_url, api_key="sk-bench", model="test-model", max_retries=0, timeout=30)
        for size in sizes:
            mm = SqliteMemoryManager(Path(tmp) / f"bank-{size}.db")
            mm.import_items(synthetic_bank(size))
            mechanical = MechanicalRetriever(mm)
            recall = MemoryRecall(mm, llm, mechanical=mechanical, timeout=30)
            await recall.aretrieve("预热", RetrievalMode.MECHANICAL)  # jieba + first index build
            await recall.aretrieve("预热", RetrievalMode.LLM)  # connection pool
            times: dict[RetrievalMode, list[float]] = {mode: [] for mode in RetrievalMode}
            prompt_chars: dict[RetrievalMode, list[int]] = {mode: [] for mode in RetrievalMode}
            prompt_tokens: dict[RetrievalMode, list[int]] = {mode: [] for mode in RetrievalMode}
            lines: dict[RetrievalMode, list[int]] = {mode: [] for mode in RetrievalMode}
            for i in range(rounds):
                query = QUERIES[i % len(QUERIES)]
                for mode in ORDER:
                    before = len(server.requests)
                    start = time.perf_counter()
                    await recall.aretrieve(query, mode)
                    times[mode].append((time.perf_counter() - start) * 1000)
                    assert recall.last_fallback_reason is None, recall.last_fallback_reason
                    if len(server.requests) > before:
                        user = server.last_messages()[1]["content"]
                        prompt_chars[mode].append(len(user))
                        prompt_tokens[mode].append(sum(estimate_tokens(m["content"]) for m in server.last_messages()))
                        lines[mode].append(sum(1 for line in user.splitlines() if line.startswith("[")))
            base = statistics.median(times[RetrievalMode.MECHANICAL])
            for mode in ORDER:
                rows.append(
                    {
                        "size": size,
                        "mode": mode.value,
                        "effective": recall.last_mode.value if mode is RetrievalMode.LLM else mode.value,
                        "ms": times[mode],
                        "extra_ms": (statistics.median(times[mode]) - base - (delay * 1000 if lines[mode] else 0)),
                        "numbered": max(lines[mode], default=0),
                        "chars": max(prompt_chars[mode], default=0),
                        "tokens": max(prompt_tokens[mode], default=0),
                    }
                )
            recall.close()
            mechanical.close()
            mm.close()
    return rows


def print_latency(rows: list[dict], delay: float, rounds: int) -> None:
    print(f"\n## Recall latency, scripted endpoint answering after {delay * 1000:.0f} ms ({rounds} queries per cell)\n")
    print("| memories | mode (runs as) | median ms | p95 ms | extra over MECHANICAL beyond the model delay, ms "
          "| numbered memories | recall prompt chars | prompt tokens (est.) |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        runs_as = row["mode"] if row["mode"] == row["effective"] else f"{row['mode']} ({row['effective']})"
        median, tail = _ms(row["ms"]).split()
        extra = "—" if row["mode"] == "mechanical" else f"{row['extra_ms']:.1f}"
        print(f"| {row['size']} | {runs_as} | {median} | {tail} | {extra} | {row['numbered']} | {row['chars']} "
              f"| {row['tokens']} |")


async def quality(dataset: Path) -> int:
    base_url = os.environ.get("SONETTO_BENCH_BASE_URL")
    model = os.environ.get("SONETTO_BENCH_MODEL")
    if not base_url or not model:
        print("\n## Recall quality with a real model\n")
        print("skipped: set SONETTO_BENCH_BASE_URL, SONETTO_BENCH_MODEL (and SONETTO_BENCH_API_KEY) to run it.")
        return 0
    from langchain_openai import ChatOpenAI

    llm = ChatOpenAI(base_url=base_url, model=model, api_key=os.environ.get("SONETTO_BENCH_API_KEY", "none"),
                     max_retries=1, temperature=0)
    now = datetime.now().replace(microsecond=0)
    ds = load_dataset(dataset, now)
    print(f"\n## Recall quality: {dataset.name}, model {model}\n")
    print("| mode | recall@5 | MRR | negatives empty | fallbacks | ms mean | ms p95 | per kind |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory(prefix="sonetto-bench-llm-q-") as tmp:
        mm = SqliteMemoryManager(Path(tmp) / "bank.db")
        id_map = fill_store(mm, ds.memories)
        cases = [QueryCase(c.q, sorted({id_map[g] for g in c.gold}), c.kind) for c in ds.queries]
        mechanical = MechanicalRetriever(mm, now=lambda: now)
        recall = MemoryRecall(mm, llm, mechanical=mechanical, clock=lambda: now, timeout=30)
        for mode in ORDER:
            results, times, fallbacks = [], [], 0
            for case in cases:
                start = time.perf_counter()
                found = await recall.aretrieve(case.q, mode)
                times.append((time.perf_counter() - start) * 1000)
                fallbacks += recall.last_fallback_reason is not None
                results.append([m["id"] for m in found])
            s = summarize(cases, results, times)
            kinds = ", ".join(f"{k} {v:.2f}" for k, v in s["per_kind"].items())
            neg = "—" if s["negatives_empty"] is None else f"{s['negatives_empty']:.2f}"
            print(f"| {mode.value} | {s['recall']:.3f} | {s['mrr']:.3f} | {neg} | {fallbacks} | {s['ms_mean']:.0f} "
                  f"| {s['ms_p95']:.0f} | {kinds} |")
        recall.close()
        mechanical.close()
        mm.close()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--delay", type=float, default=0.2, help="scripted model delay in seconds (default 0.2)")
    parser.add_argument("--sizes", default="50,200,1000,5000", help="bank sizes, comma separated")
    parser.add_argument("--queries", type=int, default=16, help="queries per cell (default 16)")
    parser.add_argument("--quality", nargs="?", const=str(DEFAULT_DATASET), default=None, metavar="DATASET",
                        help="also score recall quality against SONETTO_BENCH_BASE_URL (dataset path)")
    args = parser.parse_args(argv)
    sizes = [int(part) for part in args.sizes.split(",") if part.strip()]
    rows = asyncio.run(latency(args.delay, sizes, args.queries))
    print_latency(rows, args.delay, args.queries)
    if args.quality is not None:
        return asyncio.run(quality(Path(args.quality)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
