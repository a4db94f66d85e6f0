"""Importing history (issue 31): 1,000 turns of synthetic chats through the real import — plan,
journal, the import's own writer, the ledger — with the scripted model, on a real store.

    python -m bench.history_import [--turns 1000] [--backend sqlite|yaml] [--seed 7]

The chats are seeded and mixed like a person's export: about a year of conversations, one to twelve
turns each, 70% Chinese and 30% English, replies of 60–900 characters (clipped for the writer), some
pasted secrets. The scripted model behaves like a good writer: per batch it remembers one fact, and
updates a listed memory when the batch returns to a subject it has seen. Nothing waits for a model,
so the wall time is the app's own cost per batch (planning, journal fsyncs, the listing, the store).

Reported: the plan (conversations, turns, batches, characters, the offline estimate) and how long
making it took; the import's wall time and time per batch; prompt tokens per turn and per batch as
the server received them, counted with the Qwen2.5 tokenizer like ``bench.writer_tokens``; and the
estimate against that count.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
for extra in (ROOT, ROOT / "tests"):  # the scripted server lives with the tests
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

from bench.writer_tokens import Counter  # noqa: E402
from llm_server import ScriptedLLMServer, tool_calls  # noqa: E402

from sonetto_desktop.config.settings import Settings  # noqa: E402
from sonetto_desktop.history_import.model import Conversation, History, Message  # noqa: E402
from sonetto_desktop.history_import.service import HistoryImports  # noqa: E402
from sonetto_desktop.services import AppServices  # noqa: E402

SUBJECTS_ZH = ["搬家", "换工作", "学日语", "养猫", "跑步", "考研", "装修", "旅行", "做饭", "弹吉他", "减肥", "看病"]
SUBJECTS_EN = ["moving", "new job", "learning Japanese", "my cat", "running", "grad school", "renovation",
               "a trip", "cooking", "guitar", "diet", "a doctor visit"]
ZH_LINES = ["我最近在{s}，有点累但挺开心。", "关于{s}，我下周三要去处理一下。", "跟你说，{s}的事终于有进展了！",
            "帮我想想{s}该怎么安排，我周末有空。", "{s}这件事我纠结了好久，你怎么看？"]
EN_LINES = ["I've been busy with {s} lately, tired but happy.", "About {s}: I need to sort it out next Wednesday.",
            "Good news, {s} is finally moving along!", "Can you help me plan {s}? I'm free this weekend."]
REPLY_ZH = "听起来不错！我的建议是先列个清单，把最重要的事情放在前面，然后一步一步来。"
REPLY_EN = "That sounds great! My suggestion is to make a list first, put the most important things at the top. "


def synthetic_history(turns: int, seed: int) -> History:
    """``turns`` exchanges in conversations of 1–12 turns over about a year, seeded."""
    rng = random.Random(seed)
    start = datetime(2024, 1, 1, 9, 0)
    conversations: list[Conversation] = []
    made = 0
    while made < turns:
        english = rng.random() < 0.3
        subjects = SUBJECTS_EN if english else SUBJECTS_ZH
        subject = rng.randrange(len(subjects))
        size = min(rng.randint(1, 12), turns - made)
        at = start + timedelta(days=rng.randint(0, 365), minutes=rng.randint(0, 600))
        messages: list[Message] = []
        for n in range(size):
            line = rng.choice(EN_LINES if english else ZH_LINES).format(s=subjects[subject])
            if rng.random() < 0.02:
                line += " 我的密码是 hunter" + str(rng.randint(1000, 9999)) if not english else " key: sk-" + "x" * 24
            reply = (REPLY_EN if english else REPLY_ZH) * rng.randint(1, 12)
            messages.append(Message("user", f"{line}（{n}）", at, f"c{len(conversations)}-u{n}"))
            messages.append(Message("assistant", reply[:rng.randint(60, 900)], at + timedelta(seconds=20)))
            at += timedelta(minutes=rng.randint(1, 30))
        conversations.append(Conversation(f"c{len(conversations)}", f"{subjects[subject]} {len(conversations)}",
                                          messages))
        made += size
    return History("jsonl", conversations, digest=f"bench-{seed}-{turns}")


def good_writer(body: dict) -> Any:
    """One fact per batch; an update when the batch is about something a listed memory holds."""
    messages = body["messages"]
    if any(m.get("role") == "tool" for m in messages):
        return "已记录。"
    prompt = [m for m in messages if m["role"] == "user"][-1]["content"]
    listed = {}
    for line in prompt.splitlines():
        parts = line.split(" | ")
        if len(parts) >= 4 and parts[0][:1].isalnum():
            listed[parts[0]] = parts[3]
    said = "\n".join(line for line in prompt.splitlines() if line.startswith("> 用户："))
    subject = next((s for s in SUBJECTS_ZH + SUBJECTS_EN if s in said), "生活")
    same = next((mid for mid, text in listed.items() if subject in text), None)
    if same is not None:
        return tool_calls([("update_memory", {"id": same, "content": f"用户在忙{subject}的事，有新进展",
                                              "reason": "同一件事有了新进展"})])
    return tool_calls([("create_memory", {"content": f"用户在忙{subject}的事", "section": "身份"})])


async def run(turns: int, backend: str, seed: int) -> dict[str, Any]:
    history = synthetic_history(turns, seed)
    counter = Counter()
    with tempfile.TemporaryDirectory() as folder, ScriptedLLMServer() as server:
        server.responder = good_writer
        settings = Settings(data_dir=folder, store_backend=backend, retrieval_mode="mechanical",
                            base_url=server.base_url, model="test-model", api_key="sk-bench")
        services = await AppServices.open(settings=settings, watch=False)
        imports = HistoryImports(services)
        try:
            began = time.perf_counter()
            plan = await imports.plan(history)
            plan_s = time.perf_counter() - began
            batch_times: list[float] = []
            marks: dict[int, float] = {}

            def follow(progress: Any) -> None:
                now = time.perf_counter()
                if progress.batches_done not in marks:
                    marks[progress.batches_done] = now

            began = time.perf_counter()
            await imports.start(plan, history, file_name="bench.jsonl")
            imports.runner.progress.subscribe(follow)
            result = await imports.wait()
            wall = time.perf_counter() - began
            times = [marks[k] for k in sorted(marks)]
            batch_times = [b - a for a, b in zip(times, times[1:], strict=False)]
            per_request = [counter.request(body) for body in server.requests]
            memories = services.memory.count()
        finally:
            await imports.close()
            await services.close()
    batches = len(plan.batches)
    counted = sum(per_request)
    return {
        "turns": plan.turns, "conversations": plan.conversations, "batches": batches,
        "characters": plan.characters, "secrets_hidden": plan.secrets_hidden, "plan_s": round(plan_s, 3),
        "estimated_input": plan.input_tokens, "estimated_total": plan.estimated_tokens,
        "wall_s": round(wall, 2), "ms_per_batch_median": round(1000 * statistics.median(batch_times), 1),
        "ms_per_batch_p95": round(1000 * sorted(batch_times)[int(0.95 * (len(batch_times) - 1))], 1),
        "requests": len(per_request), "prompt_tokens": counted,
        "prompt_tokens_per_turn": round(counted / max(1, plan.turns), 1),
        "prompt_tokens_per_batch_mean": round(counted / max(1, batches)),
        "prompt_tokens_per_batch_max": max(per_request),
        "estimate_vs_counted": round(plan.input_tokens / max(1, counted), 3),
        "turns_written": result.turns_written, "memories_created": result.memories_created,
        "memories_updated": result.memories_updated, "memories": memories, "tokenizer": counter.name,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=1000)
    parser.add_argument("--backend", choices=("sqlite", "yaml"), default="sqlite")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    print(json.dumps(asyncio.run(run(args.turns, args.backend, args.seed)), ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
