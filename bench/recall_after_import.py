"""The first recall after an import: where its time goes while the vectors are still being made.

    python -m bench.recall_after_import [--memories 3000] [--vectors 112] [--load 5] [--runs 3]

Each run: a SQLite store of 20 memories, recall warmed up as the app does at start (offline index,
listing) with a chat model on a scripted server playing a local Ollama on 127.0.0.1 (its context
asked at the first recall) and the built-in embeddings model (e5, in this process) that has embedded
those 20. Then ``--memories`` more arrive in one import (the vector sync starts embedding them) and,
once ``--vectors`` of them have vectors, the person's message is recalled (HYBRID: the bank is above
the budget), then two more. ``--load`` busy processes stand for a machine busy elsewhere (the red
team saw load ~7 on two cores). Printed per run, in ms: the first recall and its parts (the offline
index's catch-up before the query, the listing's, the wait for the server's context, the query's
vector, the recall model's call, the rest: the shortlist's ranking and the hops to a worker), then the
next recalls.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
for extra in (ROOT, ROOT / "tests"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

from langchain_openai import ChatOpenAI  # noqa: E402

from bench.first_token import QUERIES, respond, synthetic_memories  # noqa: E402
from llm_server import ScriptedLLMServer  # noqa: E402
from sonetto_desktop.aio import run_blocking  # noqa: E402
from sonetto_desktop.memory import SqliteMemoryManager  # noqa: E402
from sonetto_desktop.memory.retrieval.budget import BudgetPolicy  # noqa: E402
from sonetto_desktop.memory.retrieval.builtin_model import E5_SMALL, builtin_config  # noqa: E402
from sonetto_desktop.memory.retrieval.recall import MemoryRecall  # noqa: E402
from sonetto_desktop.memory.retrieval.vector_sync import VectorSync  # noqa: E402

PARTS = ("index", "listing", "context", "query vector", "model")
BEFORE = 20


def timed(spent: dict[str, float], obj: Any, name: str, part: str) -> None:
    """Add the time of each call of ``obj.name`` to ``spent[part]``."""
    inner = getattr(obj, name)

    if asyncio.iscoroutinefunction(inner):
        @functools.wraps(inner)
        async def wrapper(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return await inner(*args, **kwargs)
            finally:
                spent[part] = spent.get(part, 0.0) + time.perf_counter() - started
    else:
        @functools.wraps(inner)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                spent[part] = spent.get(part, 0.0) + time.perf_counter() - started
    setattr(obj, name, wrapper)


async def one_run(args: argparse.Namespace, seed: int) -> dict[str, Any]:
    server = ScriptedLLMServer()
    server.context_api, server.responder = "ollama", respond
    server.start()
    tmp = Path(tempfile.mkdtemp(prefix="sonetto-bench-"))
    mm = SqliteMemoryManager(tmp / "memory.db")
    items = list(synthetic_memories(BEFORE + args.memories, seed=seed).items())
    mm.import_items(dict(items[:BEFORE]))
    llm = ChatOpenAI(base_url=server.base_url, api_key="sk-bench", model="test-model", max_retries=0, timeout=30)
    recall = MemoryRecall(mm, llm, budget=BudgetPolicy(server.base_url, "test-model"))
    sync = VectorSync(mm, builtin_config(E5_SMALL)).start()
    recall.dense = sync
    try:
        await run_blocking(recall.warm_up)
        await run_blocking(sync.wait_idle, 120)
        mm.import_items(dict(items[BEFORE:]))
        imported = time.perf_counter()
        while sync.status.done < BEFORE + args.vectors:
            await asyncio.sleep(0.05)
        waited = time.perf_counter() - imported
        spent: dict[str, float] = {}
        timed(spent, recall.mechanical, "_in_step", "index")
        timed(spent, recall.listing, "parts", "listing")
        timed(spent, recall.budget, "settle", "context")
        timed(spent, sync, "embed_queries", "query vector")
        timed(spent, recall._llm_retriever, "aretrieve", "model")
        recalls = []
        for query in QUERIES[:3]:
            spent.clear()
            started = time.perf_counter()
            await recall.aretrieve(query, "llm")
            recalls.append({"total": time.perf_counter() - started, **spent, "dense": recall.last_listing.dense,
                            "fallback": recall.last_fallback_reason})
        return {"waited": waited, "vectors": sync.status.done - BEFORE, "recalls": recalls}
    finally:
        sync.stop()
        recall.close()
        mm.close()
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)


async def main(args: argparse.Namespace) -> None:
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.load)]
    try:
        runs = [await one_run(args, seed) for seed in range(7, 7 + args.runs)]
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()
    print(f"{args.memories} memories imported, {args.load} busy processes, load at the end "
          f"{os.getloadavg()[0]:.1f}; ms")
    print("| run | import → message (s) | first recall | " + " | ".join(PARTS) + " | rest | 2nd | 3rd |")
    print("|---|---:|---:|" + "---:|" * len(PARTS) + "---:|---:|---:|")
    for i, run in enumerate(runs, 1):
        first, *rest = run["recalls"]
        print(f"| {i} | {run['waited']:.1f} | **{first['total'] * 1000:.0f}** | "
              + " | ".join(f"{first.get(p, 0.0) * 1000:.0f}" for p in PARTS)
              + f" | {(first['total'] - sum(first.get(p, 0.0) for p in PARTS)) * 1000:.0f} | "
              + " | ".join(f"{r['total'] * 1000:.0f}" for r in rest) + " |")
        if any(r["fallback"] for r in run["recalls"]):
            print(f"  fell back: {[r['fallback'] for r in run['recalls']]}")
    firsts = [run["recalls"][0]["total"] * 1000 for run in runs]
    print(f"first recall median {statistics.median(firsts):.0f} ms, max {max(firsts):.0f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--memories", type=int, default=3000)
    parser.add_argument("--vectors", type=int, default=112, help="of the imported memories, embedded before the message")
    parser.add_argument("--load", type=int, default=5, help="busy processes beside the run")
    parser.add_argument("--runs", type=int, default=3)
    asyncio.run(main(parser.parse_args()))
