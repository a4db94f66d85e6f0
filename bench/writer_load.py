"""Memory-writer pipeline under load, against the scripted OpenAI-compatible server (127.0.0.1).

    python -m bench.writer_load [--turns 20] [--delay 0.05] [--seed 0,200] [--backend yaml|sqlite]

For each store size in ``--seed`` (memories already in the store), ``--turns`` chat turns are sent
through ``MemoryWriter.send_history`` in a burst while a loop-lag probe runs; the scripted model
answers every call after ``--delay`` seconds with a realistic script: the memory listing comes
with the turn, so one reply creates a memory and the run ends (writer/budget.py).
The recall index is warmed up first, as the app does at start-up: above 40 memories the
listing shows only the memories related to the turn (writer/listing.py).

Printed: send_history latency (journal write + fsync included) p50 / p95 / max, the longest
event-loop stall while the turns are consumed (target <= 50 ms), turns per second, and LLM calls
and prompt tokens per turn (the server's usage numbers).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for extra in (ROOT, ROOT / "tests"):  # the scripted server lives with the tests
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

import httpx  # noqa: E402
from langchain_openai import ChatOpenAI  # noqa: E402
from llm_server import ScriptedLLMServer, tool_calls  # noqa: E402

from sonetto_desktop.memory import SqliteMemoryManager, YamlMemoryManager  # noqa: E402
from sonetto_desktop.memory.item import MemoryItem  # noqa: E402
from sonetto_desktop.memory.retrieval.mechanical import MechanicalRetriever  # noqa: E402
from sonetto_desktop.memory.writer.pipeline import MemoryWriter  # noqa: E402

THEMES = ["身份", "音乐", "品味", "地点与路径", "瞬间", "时效待办"]


def responder(body: dict) -> object:
    """The memory listing comes with the turn: one reply creates a memory, which ends the run."""
    messages = body["messages"]
    if messages[-1]["role"] == "user":
        return tool_calls([("create_memory", {"content": f"用户的新事实：喜欢第{time.perf_counter_ns() % 100000}种口味的冰淇淋",
                                              "section": "品味"})])
    return "已记录。"


async def probe(stop: asyncio.Event, lags: list[float], period: float = 0.005) -> None:
    loop = asyncio.get_running_loop()
    while not stop.is_set():
        start = loop.time()
        await asyncio.sleep(period)
        lags.append(loop.time() - start - period)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


async def run_once(server: ScriptedLLMServer, folder: Path, backend: str, seed: int, turns: int) -> dict:
    path = folder / ("memory.yaml" if backend == "yaml" else "memory.db")
    mm = YamlMemoryManager(path) if backend == "yaml" else SqliteMemoryManager(path)
    if seed:
        mm.import_items({f"s{i:05d}": MemoryItem(f"用户的第{i}条记忆：常去{i % 31}号楼的咖啡店", THEMES[i % 6])
                         for i in range(seed)})
    client = httpx.AsyncClient(timeout=30)  # owned and closed here, as the app's services do
    llm = ChatOpenAI(base_url=server.base_url, api_key="sk-bench", model="test-model", max_retries=0, timeout=30,
                     http_async_client=client)
    retriever = MechanicalRetriever(mm)
    # drain_per_minute=0: the pipeline at full speed (the app writes a backlog at 6 turns a minute)
    ltm = MemoryWriter(mm, llm, backoff=(0.05,), retriever=lambda: retriever, drain_per_minute=0.0)
    done: list[str] = []
    details: list[str] = []
    ltm.events.subscribe(lambda e: (done.append(e.turn_id), details.append(e.detail)) if e.kind == "done" else None)
    # As the app does at start-up: load jieba and build the offline index that read_memories
    # uses to pick the turn's memories once the store is large (off the loop).
    await asyncio.to_thread(retriever.warm_up)
    ltm.start()
    stop, lags = asyncio.Event(), []
    probe_task = asyncio.create_task(probe(stop, lags))
    await asyncio.sleep(0.2)  # let the consumer task load the (empty) journal
    requests_before = len(server.requests)
    sends = []
    t0 = time.perf_counter()
    for i in range(turns):
        msgs = [{"role": "user", "content": f"第{i}轮：我最近迷上了一种新口味的冰淇淋，开心！"},
                {"role": "assistant", "content": "听起来好好吃！"}]
        s = time.perf_counter()
        await ltm.send_history(msgs, session_id="bench")
        sends.append(time.perf_counter() - s)
        await asyncio.sleep(0)  # a chat app sends one turn per reply; keep the loop turning
    while len(done) < turns:
        await asyncio.sleep(0.01)
    elapsed = time.perf_counter() - t0
    stop.set()
    await probe_task
    await ltm.stop()
    await client.aclose()
    retriever.close()
    mm.close()
    calls = len(server.requests) - requests_before
    prompt_tokens = [int(d.split("prompt_tokens=")[1]) for d in details]
    return {
        "seed": seed,
        "send_p50_ms": statistics.median(sends) * 1000,
        "send_p95_ms": pct(sends, 0.95) * 1000,
        "send_max_ms": max(sends) * 1000,
        "stall_max_ms": max(lags) * 1000,
        "stall_p99_ms": pct(lags, 0.99) * 1000,
        "stalls_over_50ms": sum(lag > 0.05 for lag in lags),
        "turns_per_s": turns / elapsed,
        "llm_calls_per_turn": calls / turns,
        "prompt_tokens_per_turn": statistics.mean(prompt_tokens),
    }


async def main_async(args: argparse.Namespace) -> list[dict]:
    server = ScriptedLLMServer().start()
    server.responder = responder
    server.delay = args.delay
    rows = []
    try:
        for seed in args.seed:
            with tempfile.TemporaryDirectory(prefix="sonetto-writer-load-") as tmp:
                rows.append(await run_once(server, Path(tmp), args.backend, seed, args.turns))
    finally:
        server.stop()
    return rows


def journal_append_ms(n: int = 50) -> tuple[float, float]:
    """p50 / p95 of one durable journal append (write + fsync file + rename + fsync dir), idle writer."""
    from sonetto_desktop.memory.writer.journal import TurnJournal

    with tempfile.TemporaryDirectory(prefix="sonetto-journal-") as tmp:
        journal = TurnJournal(Path(tmp) / "memory.journal")
        times = []
        for i in range(n):
            s = time.perf_counter()
            journal.append(f"t{i}", "bench", [{"role": "user", "content": "我最近迷上了冰淇淋" * 20}])
            times.append(time.perf_counter() - s)
    return statistics.median(times) * 1000, pct(times, 0.95) * 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.writer_load")
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--delay", type=float, default=0.05, help="model latency per call, seconds")
    parser.add_argument("--seed", type=lambda s: [int(x) for x in s.split(",")], default=[0, 200],
                        help="memories already in the store, comma-separated sizes")
    parser.add_argument("--backend", choices=("yaml", "sqlite"), default="yaml")
    parser.add_argument("--freeze-gc", action="store_true",
                        help="gc.collect(); gc.freeze() after start-up, as an app can do once its modules are loaded")
    args = parser.parse_args(argv)
    if args.freeze_gc:
        gc.collect()
        gc.freeze()  # start-up objects leave the collector's view: full collections get short
    gc_pauses: list[float] = []
    gc_started: list[float] = []

    def on_gc(phase: str, info: dict) -> None:
        if info["generation"] == 2:
            if phase == "start":
                gc_started.append(time.perf_counter())
            elif gc_started:
                gc_pauses.append(time.perf_counter() - gc_started.pop())

    gc.callbacks.append(on_gc)
    rows = asyncio.run(main_async(args))
    gc.callbacks.remove(on_gc)
    print(f"backend={args.backend} turns={args.turns} model delay={args.delay * 1000:.0f} ms "
          f"freeze_gc={args.freeze_gc}")
    print("seed | send p50 / p95 / max ms | loop stall max / p99 ms (n > 50 ms) | turns/s | LLM calls/turn | "
          "prompt tokens/turn")
    for r in rows:
        print(f"{r['seed']:>4} | {r['send_p50_ms']:.2f} / {r['send_p95_ms']:.2f} / {r['send_max_ms']:.2f} | "
              f"{r['stall_max_ms']:.1f} / {r['stall_p99_ms']:.1f} ({r['stalls_over_50ms']}) | {r['turns_per_s']:.1f} | "
              f"{r['llm_calls_per_turn']:.2f} | {r['prompt_tokens_per_turn']:.0f}")
    if gc_pauses:
        print(f"full (gen 2) garbage collections: {len(gc_pauses)}, longest {max(gc_pauses) * 1000:.1f} ms")
    p50, p95 = journal_append_ms()
    print(f"journal append alone (fsync file + dir): p50 {p50:.2f} ms, p95 {p95:.2f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
