"""First-token latency of the chat engine: what ``send`` adds on top of the model server.

    python -m bench.first_token [--memories 1000] [--delay 0.2] [--turns 30] [--store yaml|sqlite]

A scripted OpenAI-compatible server on 127.0.0.1 answers every request after a fixed ``--delay``.
The engine (real ChatOpenAI, real LongTermMemory (recall + writer) over a real store of ``--memories`` synthetic
memories, real AsyncSqliteSaver) runs ``--turns`` turns per retrieval mode; for each turn we time
``send`` -> first ``token`` event. Printed per mode (p50 / p95 / max, ms):

- first token, and its overhead beyond the server's delay (target for MECHANICAL: <= 50 ms);
- overhead beyond a bare ``ChatOpenAI.astream`` to the same server (the HTTP client's own cost);
- the recall step alone, and the extra latency of HYBRID / LLM recall over MECHANICAL.

Recall is warmed up first as the app does at start-up (index, jieba, the lexicon's tables, in a
worker; ``--cold`` skips it). The first turn of each mode is reported separately. Two of the
twelve questions are English (they read the English table).
The memory writer is not started, so its background calls do not disturb the timings.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
for extra in (ROOT, ROOT / "tests"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

from langchain_core.messages import HumanMessage  # noqa: E402
from langchain_openai import ChatOpenAI  # noqa: E402

from llm_server import ScriptedLLMServer  # noqa: E402
from sonetto_desktop.agent.engine import ChatEngine  # noqa: E402
from sonetto_desktop.aio import run_blocking  # noqa: E402
from sonetto_desktop.memory import MemoryItem, SqliteMemoryManager, YamlMemoryManager  # noqa: E402
from sonetto_desktop.memory.retrieval.modes import RetrievalMode  # noqa: E402
from sonetto_desktop.memory.ltm import LongTermMemory  # noqa: E402
from sonetto_desktop.memory.retrieval.recall import MemoryRecall  # noqa: E402

PEOPLE = ["Miso", "妈妈", "室友小林", "导师", "表妹", "老同学阿杰"]
THINGS = ["橘猫团子", "塔罗牌", "期末考试", "Rust 编程", "山竹", "夜跑", "吉他", "咖啡", "毕业论文", "夏天的海边",
          "拿铁", "周末爬山", "日语课", "旧相机", "火锅", "羽毛球", "钢琴", "读书会", "租房", "面试"]
FEELINGS = ["很喜欢", "有点烦", "一直想试试", "最近在忙", "放不下", "总是提起", "不太擅长", "偷偷期待"]
THEMES = ["身份", "品味", "项目", "瞬间", "关系", "计划"]
QUERIES = ["团子最近还挑食吗", "我的论文写到哪了", "周末去爬山吧", "想喝咖啡了", "面试好紧张",
           "要不要学吉他", "塔罗牌准不准", "好想去海边", "今晚吃火锅", "日语课好难",
           "should I learn the guitar?", "my thesis is due soon"]  # English: the English table is read


def synthetic_memories(n: int, seed: int = 7) -> dict[str, MemoryItem]:
    rng = random.Random(seed)
    items = {}
    for i in range(n):
        text = (f"{rng.choice(PEOPLE)}{rng.choice(FEELINGS)}{rng.choice(THINGS)}，"
                f"还提到了{rng.choice(THINGS)}（第{i}条）。")
        day = f"2026-{rng.randint(1, 11):02d}-{rng.randint(1, 28):02d}T{rng.randint(8, 22):02d}:00:00"
        items[f"m{i:05d}"] = MemoryItem(text, rng.choice(THEMES), latest_update_time=day)
    return items


def ms(values: list[float]) -> str:
    values = sorted(values)
    p95 = values[min(len(values) - 1, round(0.95 * (len(values) - 1)))]
    return f"p50 {statistics.median(values) * 1000:7.1f}  p95 {p95 * 1000:7.1f}  max {values[-1] * 1000:7.1f}"


def respond(body: dict[str, Any]) -> str:
    if body.get("stream"):
        return "嗯，我记得呢，我们慢慢聊。"
    return "[0, 1]"  # a recall request: the model picks the first two candidates


async def bare_client_first_token(llm: ChatOpenAI, turns: int) -> list[float]:
    times = []
    for _ in range(turns):
        start = time.perf_counter()
        async for chunk in llm.astream([HumanMessage(content="你好")]):
            if chunk.text:
                times.append(time.perf_counter() - start)
                break
    return times


async def run_mode(engine: ChatEngine, ltm: LongTermMemory, mode: RetrievalMode, turns: int) -> dict[str, Any]:
    engine.set_retrieval_mode(mode)
    first: list[float] = []
    recall: list[float] = []
    for i in range(turns + 1):
        query = QUERIES[i % len(QUERIES)]
        start = time.perf_counter()
        got = None
        async for event in engine.send(f"bench-{mode.value}-{i}", query):
            if event.kind == "token" and got is None:
                got = time.perf_counter() - start
            elif event.kind == "error":
                raise RuntimeError(f"turn failed: {event.error_code} {event.error_en}")
        first.append(got if got is not None else float("nan"))
        start = time.perf_counter()
        await ltm.aget_related_memory_from(query, mode)
        recall.append(time.perf_counter() - start)
    return {"cold": first[0], "first": first[1:], "recall": recall[1:]}


async def main(args: argparse.Namespace) -> None:
    server = ScriptedLLMServer().start()
    server.responder = respond
    server.delay = args.delay
    tmp = Path(tempfile.mkdtemp(prefix="sonetto-bench-"))
    store_cls = SqliteMemoryManager if args.store == "sqlite" else YamlMemoryManager
    mm = store_cls(tmp / ("memory.db" if args.store == "sqlite" else "memory.yaml"))
    mm.import_items(synthetic_memories(args.memories))

    def make_llm(streaming: bool) -> ChatOpenAI:
        return ChatOpenAI(base_url=server.base_url, api_key="sk-bench", model="test-model",
                          max_retries=0, timeout=30, streaming=streaming)

    ltm = LongTermMemory(MemoryRecall(mm, make_llm(False)))  # recall's model; no writer
    engine = ChatEngine(ltm, data_dir=tmp / "data", llm_factory=lambda: make_llm(True))
    await engine.start()
    if not args.cold:  # as the app does at start-up (services.warm_up): index, jieba, lexicon tables
        await run_blocking(ltm.recall.warm_up)
    try:
        bare = await bare_client_first_token(make_llm(True), args.turns)
        results = {mode: await run_mode(engine, ltm, mode, args.turns) for mode in
                   (RetrievalMode.MECHANICAL, RetrievalMode.HYBRID, RetrievalMode.LLM)}
    finally:
        await engine.close()
        mm.close()
        server.stop()
        shutil.rmtree(tmp, ignore_errors=True)

    delay = args.delay
    bare_p50 = statistics.median(bare)
    print(f"memories: {args.memories} ({args.store})   server delay: {delay * 1000:.0f} ms   turns/mode: {args.turns}")
    print(f"bare ChatOpenAI.astream first token:  {ms(bare)}   (beyond delay p50 {(bare_p50 - delay) * 1000:.1f} ms)")
    mech = statistics.median(results[RetrievalMode.MECHANICAL]["first"])
    for mode, r in results.items():
        print(f"\n[{mode.value}] cold first turn: {r['cold'] * 1000:.1f} ms")
        print(f"  send -> first token        {ms(r['first'])}")
        print(f"  overhead beyond delay      {ms([t - delay for t in r['first']])}")
        print(f"  overhead beyond bare client p50 {(statistics.median(r['first']) - bare_p50) * 1000:7.1f}")
        print(f"  recall alone               {ms(r['recall'])}")
        if mode is not RetrievalMode.MECHANICAL:
            print(f"  extra vs MECHANICAL p50    {(statistics.median(r['first']) - mech) * 1000:7.1f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--memories", type=int, default=1000)
    parser.add_argument("--delay", type=float, default=0.2)
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--store", choices=("yaml", "sqlite"), default="yaml")
    parser.add_argument("--cold", action="store_true",
                        help="no warm-up before the turns (the first turn loads the index, jieba and the tables)")
    asyncio.run(main(parser.parse_args()))
