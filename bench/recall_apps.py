"""Another app flooding the memories, and what the recall request looks like (issue 35, item 7).

    python -m bench.recall_apps [--flood 2000] [--budget 0] [--question 0|1]

A SQLite store with 20 of the person's memories; a recall request (HYBRID, the default) through the
scripted OpenAI-compatible server; then one app adds ``--flood`` long memories (~300 characters
each, through ``MemoryOperations`` as ``mcp:flood``, as ``add_memory`` does) and the same question is
asked again; then the app edits one of its memories and adds one more, and it is asked a third
time. Reported for each request: its characters, estimated tokens, numbered lines, how many of the
person's 20 it holds, the apps' lines and estimated tokens, and how much of it repeats the
previous request from its first character (what a provider's prefix cache can serve), in total and
of the person's part. ``--budget``: the listing budget in tokens (0: the cloud default, 48,000).
``--question``: 0 asks a general question the offline shortlist finds nothing for, 1 one that
shares words with the app's memories and the person's (the shortlist then fills the budget).

Not a test: the numbers go to docs/benchmarks.md (the test suite: tests/test_recall_apps.py).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

QUESTIONS = ("今晚吃点什么好", "周末去哪家咖啡馆坐坐")
PERSON = [("小林养了一只叫汤圆的布偶猫", "身份"), ("小林对花生过敏", "品味"), ("小林在上海做前端开发", "身份"),
          ("小林每周三晚上去游泳", "习惯"), ("小林喜欢喝冰美式，不加糖", "品味")]
PERSON += [(f"小林的第{i}件小事：周末和朋友去了第{i}家咖啡馆", "瞬间") for i in range(15)]
LONG = "。".join(f"应用记下的第{{i}}条很长的笔记，片段{j}：关于吃饭、咖啡和周末安排的种种细节" for j in range(8))


def _common(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--flood", type=int, default=2000)
    parser.add_argument("--budget", type=int, default=0)
    parser.add_argument("--question", type=int, choices=(0, 1), default=1)
    args = parser.parse_args()

    import httpx
    from langchain_openai import ChatOpenAI
    from llm_server import ScriptedLLMServer
    from recall_banks import parse_listing

    from sonetto_desktop.memory.operations import MemoryOperations
    from sonetto_desktop.memory.retrieval.budget import estimate_tokens
    from sonetto_desktop.memory.retrieval.llm_prompt import LISTING_HEADER
    from sonetto_desktop.memory.retrieval.recall import MemoryRecall
    from sonetto_desktop.memory.stores.sqlite import SqliteMemoryManager

    person_texts = {d for d, _ in PERSON}
    with ScriptedLLMServer() as server, tempfile.TemporaryDirectory() as tmp:
        mm = SqliteMemoryManager(Path(tmp) / "memory.db")
        for description, theme in PERSON:
            mm.add(description, theme, actor="user")
        llm = ChatOpenAI(base_url=server.base_url, api_key="sk-test", model="test-model", max_retries=0, timeout=30,
                         http_client=httpx.Client())
        recall = MemoryRecall(mm, llm, timeout=30, budget=args.budget or None)
        previous = ""

        def ask(label: str) -> None:
            nonlocal previous
            server.add_text("[]")
            began = time.perf_counter()
            recall.retrieve(QUESTIONS[args.question])
            took = time.perf_counter() - began
            requests = [r for r in server.requests if r["messages"][0]["content"].startswith("你是 Sonetto")]
            text = requests[-1]["messages"][1]["content"]
            shown = parse_listing(text)
            mine = sum(1 for _, d, _ in shown.values() if d in person_texts)
            theirs = [line for line in text.splitlines() if line.startswith("[") and "应用" in line]
            own_part = text.split("\n\n", 1)[0] if text.startswith(LISTING_HEADER) else ""
            row: dict[str, Any] = {
                "request": label, "chars": len(text), "tokens": estimate_tokens(text), "lines": len(shown),
                "person_shown": f"{mine}/20", "app_lines": len(theirs),
                "app_tokens": sum(estimate_tokens(line) for line in theirs),
                "repeats_previous": f"{_common(previous, text) / len(text):.0%}" if previous else "-",
                "person_part_repeated": (previous.startswith(own_part) if previous and own_part else "-"),
                "recall_ms": round(took * 1000, 1)}
            print(row)
            previous = text

        ask("20 of the person's")
        began = time.perf_counter()
        ops = MemoryOperations(mm, actor="mcp:flood")
        ids = [ops.add(LONG.format(i=i), "应用笔记").ids[0] for i in range(args.flood)]
        print(f"{args.flood} app memories added in {time.perf_counter() - began:.1f} s")
        recall.warm_up()  # the offline index (the shortlist's ranking) as a running app has it
        ask(f"+ {args.flood} of one app")
        ask("the same question again")
        ops.update(ids[len(ids) // 2], description="应用改写了自己的一条笔记", reason="更正")
        ops.add("应用又记了一条", "应用笔记")
        ask("after the app edited one and added one")
        recall.close()
        mm.close()


if __name__ == "__main__":
    main()
