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

    python -m bench.history_import --overhead [--turns 1000] [--rounds 3] [--memories 0] [--filler varied|alike]

The import's own cost (issue 37): ``--rounds`` imports of ``--turns`` turns each (other chats each
round) in one process, after a 5-turn import that loads the LLM stack. Per round: the import's wall
time against a **bare replay** of the same requests (each request body the server received, posted
again in order over one HTTP client to the same scripted model: what the model calls cost with
nothing of the app around them) and the same replay through LangChain's ``ChatOpenAI`` (the client
the writer calls the model with), in wall time and in CPU time (every thread's of this process and
the scripted server's: steadier than wall time on a loaded machine); and the process's RSS (and its
anonymous part, the heaps) after the import (the runner let go, a full collection and glibc's
``malloc_trim``, as the window does when the import ends) against the baseline after the warm-up
import; the C heap shares one arena between threads as the app's (``sonetto_desktop/heap.py``; before it,
RSS climbed over ~4 imports to +8 MB of glibc's free space in the workers' arenas). The scripted model runs in a process of its own, as a model server does: in this one, its
threads' parsing of the ~230 requests of a round was counted as the import's RSS (1-2 MB of the
heaps' growth). The replays run after the last import (``rss_after_replays_mb``: what the bench's own
replay clients leave, which rounds measured before issue 37's third pass counted as the import's).
``--memories N``: the store holds N memories of someone's before the warm-up (the running app at
100,000; ``--filler``: words as common as in real text, or one sentence in every memory, see ``_fill``); ``--agents``: the app's writer runs beside the import, as in the window; ``fresh_process_rss_mb``: a new process on the store the rounds left, after the same
warm-up (what the store itself costs a process).

    python -m bench.history_import --reading [--mb 300]

Reading exports (issue 35): ``sonetto history import --dry-run`` in a child process on (1) a zip bomb
(one ChatGPT-shaped ``conversations.json`` of ``--mb`` MB that deflates about 200:1) and (2) a real-
shaped export of the same size that compresses like a real one; each reports the exit code, the
first line of its message, the wall time and the child's peak RSS.
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
from llm_payloads import listed_memories  # noqa: E402
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
    for mid, row in listed_memories(prompt).items():
        listed[mid] = row.text
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


# ── the import's own cost against a bare replay, and its memory over several imports ─────────


def _rss_mb() -> float:
    import gc
    import os

    gc.collect()
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass
    with open(f"/proc/{os.getpid()}/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1024 ** 2


def _anon_mb() -> float:
    """The process's anonymous RSS (its heaps; not the files it maps), after ``_rss_mb``."""
    import os

    with open(f"/proc/{os.getpid()}/status") as fh:
        return next(int(line.split()[1]) / 1024 for line in fh if line.startswith("RssAnon:"))


async def _replay(base_url: str, bodies: list[dict]) -> float:
    """Post every body again, in order, over one client: the model calls with nothing around them."""
    import httpx

    async with httpx.AsyncClient(timeout=60) as client:
        began, cpu = time.perf_counter(), time.process_time()
        for body in bodies:
            (await client.post(f"{base_url}/chat/completions", json=body)).raise_for_status()
        return time.perf_counter() - began, time.process_time() - cpu


async def _replay_langchain(base_url: str, bodies: list[dict]) -> float:
    """The same, through LangChain's ``ChatOpenAI`` with the request's tools bound: the model calls as
    the writer makes them, with nothing else of the app around them."""
    from langchain_openai import ChatOpenAI
    from langchain_openai.chat_models.base import _convert_dict_to_message

    llm = ChatOpenAI(base_url=base_url, api_key="sk-bench", model="test-model", max_retries=0, timeout=60)
    began, cpu = time.perf_counter(), time.process_time()
    for body in bodies:
        bound = llm.bind_tools(body["tools"]) if body.get("tools") else llm
        await bound.ainvoke([_convert_dict_to_message(m) for m in body["messages"]])
    return time.perf_counter() - began, time.process_time() - cpu


class _KeepingServer(ScriptedLLMServer):
    """The scripted server of ``--serve``, writing each request as one line of JSON to ``path`` (and
    keeping neither the parsed bodies nor the headers)."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self._file = path.open("ab")

    def _record(self, body: dict[str, Any], headers: dict[str, str]) -> None:
        with self._cond:
            self._file.write(json.dumps(body, ensure_ascii=False).encode("utf-8") + b"\n")
            self._file.flush()  # written before the answer goes out
            self._cond.notify_all()


def serve(path: Path) -> None:
    """``--serve PATH``: the scripted model (``good_writer``) until stdin closes; prints its base URL."""
    with _KeepingServer(path) as server:
        server.responder = good_writer
        print(server.base_url, flush=True)
        sys.stdin.read()


class _ServerProcess:
    """The scripted model in a child process (``serve``): its base URL, the requests it has received
    (``between`` two offsets of its file), and its CPU time (``cpu_seconds``; Linux ``/proc``)."""

    def __init__(self, folder: Path) -> None:
        import subprocess

        self.path = folder / "requests.jsonl"
        self.path.touch()
        self._process = subprocess.Popen([sys.executable, "-m", "bench.history_import", "--serve", str(self.path)],
                                         cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self._process.stdout is not None
        self.base_url = self._process.stdout.readline().strip()
        if not self.base_url:
            self.close()
            raise RuntimeError("the scripted model's process did not start")

    def offset(self) -> int:
        return self.path.stat().st_size

    def between(self, start: int, end: int) -> list[bytes]:
        """The request bodies (JSON, one per line) received between two offsets of the file."""
        with self.path.open("rb") as fh:
            fh.seek(start)
            return fh.read(end - start).splitlines()

    def cpu_seconds(self) -> float:
        import os

        with open(f"/proc/{self._process.pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime

    def close(self) -> None:
        import subprocess

        if self._process.stdin is not None:
            self._process.stdin.close()
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()


async def fresh(folder: str, base_url: str, seed: int, agents: bool = False) -> float:
    """``--overhead``'s anchor for "back to the baseline": a new process opens the store the rounds
    left and does what the long-lived one did before its baseline (a 5-turn import: the LLM stack, the
    writer's index, now over every memory the rounds made); its RSS then. What the long-lived process
    holds beyond it is what the imports left behind, not what the memories they made cost."""
    settings = Settings(data_dir=folder, store_backend="sqlite", retrieval_mode="mechanical",
                        base_url=base_url, model="test-model", api_key="sk-bench")
    services = await AppServices.open(settings=settings, watch=False)
    if agents:
        await services.start_agents(chat=False)
    imports = HistoryImports(services)
    try:
        history = synthetic_history(5, seed + 2000)
        await imports.start(await imports.plan(history), history, file_name="bench.jsonl")
        await imports.wait()
        del history
        await asyncio.to_thread(services.recall.mechanical.warm_up)
        return _rss_mb()
    finally:
        await imports.close()
        await services.close()


def _in_child(*args: str) -> str:
    """This bench run as a child process with ``args`` (the anchor, the filling); its stdout."""
    import subprocess

    return subprocess.run([sys.executable, "-m", "bench.history_import", *args], cwd=ROOT, capture_output=True,
                          text=True, check=True).stdout


def _fresh_rss(folder: str, base_url: str, seed: int, agents: bool = False) -> float:
    out = _in_child("--fresh", folder, "--base-url", base_url, "--seed", str(seed), *(["--agents"] if agents else []))
    return float(out.strip().splitlines()[-1])


FILLERS = ("varied", "alike")


async def _fill(folder: str, memories: int, filler: str = "varied") -> None:
    """``--memories``: the store holds that many memories of someone's before the warm-up (made in a
    child process: ``--fill``). ``varied`` (the default): ``bench.recall.synthetic_bank``'s sentences,
    whose words are drawn from jieba's dictionary by frequency, so a word is as common as in real
    text; ``alike``: every memory one sentence with its numbers changed, so six words are in every
    memory and each query of the writer's listing scores the whole store (a worst case, measured
    before issue 37's seventh pass)."""
    from sonetto_desktop.memory.item import MemoryItem

    if filler == "varied":
        from bench.recall import synthetic_bank

        items = {f"b{i:07x}": MemoryItem(m.description, m.theme, latest_update_time=m.latest_update_time, hit=m.hit)
                 for i, m in enumerate(synthetic_bank(memories))}
    else:
        items = {f"b{i:07x}": MemoryItem(f"第{i}条：小林记下了一件关于第{i % 17}个朋友的小事。", f"主题{i % 12}")
                 for i in range(memories)}
    services = await AppServices.open(settings=Settings(data_dir=folder, store_backend="sqlite"), watch=False)
    try:
        services.store.import_items(items)
    finally:
        await services.close()


def _fill_in_child(folder: str, memories: int, filler: str = "varied") -> None:
    _in_child("--fill", folder, "--memories", str(memories), "--filler", filler)


async def overhead(turns: int, rounds: int, seed: int, memories: int = 0, agents: bool = False,
                   filler: str = "varied") -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as folder:
        server = _ServerProcess(Path(folder))
        settings = Settings(data_dir=folder, store_backend="sqlite", retrieval_mode="mechanical",
                            base_url=server.base_url, model="test-model", api_key="sk-bench")
        if memories:  # filled by another process: this one starts as the fresh anchor does
            await asyncio.to_thread(_fill_in_child, folder, memories, filler)
        services = await AppServices.open(settings=settings, watch=False)
        if agents:  # the app's writer (and recall) running, as in the window: the import shares its index
            await services.start_agents(chat=False)
        imports = HistoryImports(services)
        try:
            async def one(history: History) -> tuple[float, float, tuple[int, int]]:
                plan = await imports.plan(history)
                start = server.offset()
                began, cpu, served = time.perf_counter(), time.process_time(), server.cpu_seconds()
                await imports.start(plan, history, file_name="bench.jsonl")
                await imports.wait()
                cpu = time.process_time() - cpu + server.cpu_seconds() - served
                return time.perf_counter() - began, cpu, (start, server.offset())

            await one(synthetic_history(5, seed + 1000))  # the LLM stack, the writer's index
            await asyncio.to_thread(services.recall.mechanical.warm_up)  # the recall index, built
            baseline, baseline_anon = _rss_mb(), _anon_mb()
            imported: list[dict[str, Any]] = []
            for n in range(rounds):
                # the requests stay in the server's file, replayed after the last import: the replay
                # clients' memory is not the import's
                wall, cpu, span = await one(synthetic_history(turns, seed + n))
                imported.append({"round": n + 1, "wall": wall, "cpu": cpu, "span": span})
                imported[-1].update(rss=_rss_mb(), anon=_anon_mb())
            anchor = await asyncio.to_thread(_fresh_rss, folder, server.base_url, seed, agents)
            for one_round in imported:
                start, end = one_round["span"]
                bodies = [json.loads(line) for line in server.between(start, end)]
                one_round["requests"] = len(bodies)
                served = server.cpu_seconds()
                replay, replay_cpu = await _replay(server.base_url, bodies)
                replay_cpu += server.cpu_seconds() - served
                served = server.cpu_seconds()
                chain, chain_cpu = await _replay_langchain(server.base_url, bodies)
                chain_cpu += server.cpu_seconds() - served
                bodies = []
                wall, cpu = one_round["wall"], one_round["cpu"]
                rows.append({"round": one_round["round"], "requests": one_round["requests"], "import_s": round(wall, 2),
                             "replay_s": round(replay, 2), "ratio": round(wall / replay, 2),
                             "langchain_replay_s": round(chain, 2), "langchain_ratio": round(wall / chain, 2),
                             "cpu_s": round(cpu, 2), "replay_cpu_s": round(replay_cpu, 2),
                             "langchain_replay_cpu_s": round(chain_cpu, 2),
                             "rss_mb": round(one_round["rss"], 1), "anon_mb": round(one_round["anon"], 1)})
            after_replays = (round(_rss_mb(), 1), round(_anon_mb(), 1))
        finally:
            await imports.close()
            await services.close()
            server.close()
    return {"turns": turns, "memories": memories, "filler": filler if memories else None, "agents": agents, "baseline_rss_mb": round(baseline, 1), "baseline_anon_mb": round(baseline_anon, 1),
            "rounds": rows, "fresh_process_rss_mb": round(anchor, 1),
            "last_round_over_fresh_mb": round(rows[-1]["rss_mb"] - anchor, 1) if rows else None,
            "rss_after_replays_mb": after_replays[0], "anon_after_replays_mb": after_replays[1]}


# ── reading exports: a zip bomb and a big real-shaped export ─────────────


#: Words the big export's replies are drawn from (so its text compresses like real chats, ~5:1).
_WORDS = [w for line in ZH_LINES + [REPLY_ZH] for w in line.replace("{s}", "").split("，")] + SUBJECTS_ZH + [
    chr(c) for c in range(0x4E00, 0x4E00 + 3000, 7)]


def _chatgpt_conversation(n: int, rng: random.Random, filler: str) -> dict[str, Any]:
    """One ChatGPT-shaped conversation (a root, a user message, a reply) made up here."""
    stamp = 1_700_000_000 + n * 60
    said = rng.choice(ZH_LINES).format(s=rng.choice(SUBJECTS_ZH)) + f"（{n}）"
    reply = filler or "".join(rng.choice(_WORDS) for _ in range(rng.randint(20, 300)))
    nodes = {"r": {"id": "r", "message": None, "parent": None, "children": ["u"]},
             "u": {"id": "u", "parent": "r", "children": ["a"], "message": {
                 "id": f"u{n}", "author": {"role": "user"}, "create_time": stamp,
                 "content": {"content_type": "text", "parts": [said]}}},
             "a": {"id": "a", "parent": "u", "children": [], "message": {
                 "id": f"a{n}", "author": {"role": "assistant"}, "create_time": stamp + 5,
                 "content": {"content_type": "text", "parts": [reply]}}}}
    return {"id": f"conv-{n:08d}", "title": f"对话 {n}", "create_time": stamp, "current_node": "a", "mapping": nodes}


def export_zip(folder: Path, megabytes: int, *, bomb: bool, seed: int = 7) -> Path:
    """``export.zip`` holding one ``conversations.json`` of about ``megabytes`` MB, written as a
    stream (the bench's own memory stays small). ``bomb``: every reply is the same long run of text,
    so the member deflates about 200:1 (a zip bomb); else the text varies like real chats do."""
    import zipfile

    rng = random.Random(seed)
    path = folder / ("bomb.zip" if bomb else "export.zip")
    filler = "哈" * 6_000 if bomb else ""
    target = megabytes * 1024 * 1024
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=6) as archive, \
            archive.open("conversations.json", "w", force_zip64=True) as member:
        member.write(b"[")
        written, n = 1, 0
        while written < target:
            chunk = (b"," if n else b"") + json.dumps(_chatgpt_conversation(n, rng, filler),
                                                      ensure_ascii=False).encode("utf-8")
            member.write(chunk)
            written += len(chunk)
            n += 1
        member.write(b"]")
    return path


_CHILD = """
import json, resource, sys, time
from sonetto_desktop.cli_history import main
began = time.perf_counter()
try:
    code = main(sys.argv[2:])
except BaseException as exc:
    code = f"{type(exc).__name__}: {exc}"[:200]
seconds = time.perf_counter() - began
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
open(sys.argv[1], "w").write(json.dumps({"code": code, "seconds": seconds, "peak_rss_mb": peak}))
"""


def dry_run(path: Path, folder: Path) -> dict[str, Any]:
    """``sonetto history import PATH --dry-run --json`` in a child process: exit code, first line
    of the message, wall time and peak RSS."""
    import os
    import subprocess

    report = folder / "child.json"
    env = {**os.environ, "SONETTO_CONFIG_DIR": str(folder / "config"), "SONETTO_DATA_DIR": str(folder / "data")}
    args = ["--store", str(folder / "memory.yaml"), "--create", "import", str(path), "--dry-run", "--json"]
    done = subprocess.run([sys.executable, "-c", _CHILD, str(report), *args], capture_output=True, text=True,
                          env=env, cwd=folder, timeout=3600)
    out = json.loads(report.read_text())
    said = (done.stderr.strip() or done.stdout.strip()).splitlines()
    return {"exit": out["code"], "said": said[0][:160] if said else "", "seconds": round(out["seconds"], 2),
            "peak_rss_mb": round(out["peak_rss_mb"])}


def reading(megabytes: int) -> dict[str, Any]:
    import zipfile

    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        for kind in ("bomb", "export"):
            path = export_zip(folder, megabytes, bomb=kind == "bomb")
            info = zipfile.ZipFile(path).infolist()[0]
            out[kind] = {"zip_mb": round(path.stat().st_size / 1024 ** 2, 1),
                         "member_mb": round(info.file_size / 1024 ** 2), "ratio": round(info.file_size / info.compress_size),
                         **dry_run(path, folder)}
            path.unlink()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=1000)
    parser.add_argument("--backend", choices=("sqlite", "yaml"), default="sqlite")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--reading", action="store_true", help="reading exports: a zip bomb and a big export")
    parser.add_argument("--overhead", action="store_true", help="the import against a bare replay, RSS per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--memories", type=int, default=0, help="with --overhead: memories in the store before")
    parser.add_argument("--agents", action="store_true", help="with --overhead: the app's writer runs, as in the window")
    parser.add_argument("--filler", choices=FILLERS, default="varied",
                        help="with --memories: words as common as in real text (varied) or six words in every memory (alike)")
    parser.add_argument("--mb", type=int, default=300, help="with --reading: the member's size")
    parser.add_argument("--serve", type=Path, help=argparse.SUPPRESS)  # --overhead's scripted model (a child)
    parser.add_argument("--fresh", help=argparse.SUPPRESS)  # --overhead's anchor (a child): the store's folder
    parser.add_argument("--fill", help=argparse.SUPPRESS)  # --overhead --memories: the store filled (a child)
    parser.add_argument("--base-url", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.fill is not None:
        asyncio.run(_fill(args.fill, args.memories, args.filler))
        return 0
    if args.fresh is not None:
        from sonetto_desktop.heap import share_one_arena

        share_one_arena()
        print(asyncio.run(fresh(args.fresh, args.base_url, args.seed, args.agents)))
        return 0
    if args.serve is not None:
        serve(args.serve)
        return 0
    if args.reading:
        print(json.dumps(reading(args.mb), ensure_ascii=False, indent=1))
        return 0
    if args.overhead:
        from sonetto_desktop.heap import share_one_arena

        share_one_arena()  # as the app's entry point does, before any thread starts
        print(json.dumps(asyncio.run(overhead(args.turns, args.rounds, args.seed, args.memories, args.agents, args.filler)),
                         ensure_ascii=False, indent=1))
        return 0
    print(json.dumps(asyncio.run(run(args.turns, args.backend, args.seed)), ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
