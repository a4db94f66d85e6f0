"""Writer quality harness: replay short Chinese conversations through the real memory writer and
check the resulting store with rules.

    python -m bench.writer bench/writer_scenarios.yaml [--only ID,ID] [--kind KIND] [--json OUT]

The endpoint comes from SONETTO_BENCH_BASE_URL / SONETTO_BENCH_MODEL / SONETTO_BENCH_API_KEY, else
from the app's settings and environment (``get_default_llm()``). Without one it says so and exits 0.

Rules (every scenario): no duplicate items, nothing secret-looking stored, no relative date words
("明天", "后天", …) in what the writer wrote. Per scenario (``expect``): ``present`` (each entry: a
list of keywords that one memory must all contain), ``absent`` (substrings no memory may contain),
``unique`` (at most one memory contains it), ``deleted`` (no live memory contains it any more),
``history`` (some memory keeps an old value containing it), ``unchanged`` (the store is as it was),
``max_items``, ``hit`` (the memory containing it was marked as referenced).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from sonetto_desktop.memory import YamlMemoryManager  # noqa: E402
from sonetto_desktop.memory.writer.consumer import MemoryConsumer  # noqa: E402
from sonetto_desktop.memory.retrieval.mechanical import MechanicalRetriever  # noqa: E402
from sonetto_desktop.memory.writer.tools import find_secret  # noqa: E402

RELATIVE_WORDS = ("今天", "明天", "后天", "大后天", "昨天", "前天", "下周", "下星期", "这周", "本周", "下个月", "今晚",
                  "明早", "明晚")
KINDS = ("new_fact", "changed_fact", "relative_date", "duplicate_merge", "expired_todo", "small_talk", "secret",
         "hit_reference")


@dataclass
class Scenario:
    id: str
    kind: str
    now: datetime
    turns: list[list[dict[str, str]]]
    memories: list[dict[str, str]] = field(default_factory=list)
    expect: dict[str, Any] = field(default_factory=dict)


@dataclass
class Outcome:
    scenario: Scenario
    failures: list[str]
    llm_calls: list[int] = field(default_factory=list)
    prompt_tokens: list[int] = field(default_factory=list)
    error: str | None = None

    @property
    def passed(self) -> bool:
        return not self.failures and self.error is None


def load_scenarios(path: str | os.PathLike[str]) -> list[Scenario]:
    """Parse and validate the dataset; ``ValueError`` naming the scenario on a mistake."""
    raw = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    items = raw.get("scenarios") if isinstance(raw, dict) else raw
    if not isinstance(items, list) or not items:
        raise ValueError(f"{path}: expected a list of scenarios")
    out, seen = [], set()
    for n, data in enumerate(items):
        sid = str(data.get("id") or f"#{n}")
        if sid in seen:
            raise ValueError(f"scenario {sid}: duplicate id")
        seen.add(sid)
        if data.get("kind") not in KINDS:
            raise ValueError(f"scenario {sid}: kind must be one of {KINDS}")
        turns = []
        for turn in data.get("turns") or []:
            msgs = [{"role": "user", "content": str(turn["user"])}]
            if turn.get("assistant"):
                msgs.append({"role": "assistant", "content": str(turn["assistant"])})
            turns.append(msgs)
        if not turns:
            raise ValueError(f"scenario {sid}: needs at least one turn")
        unknown = set(data.get("expect") or {}) - {"present", "absent", "unique", "deleted", "history", "unchanged",
                                                   "max_items", "hit"}
        if unknown:
            raise ValueError(f"scenario {sid}: unknown expect keys {sorted(unknown)}")
        out.append(Scenario(sid, data["kind"], datetime.fromisoformat(str(data["now"])), turns,
                            list(data.get("memories") or []), dict(data.get("expect") or {})))
    return out


def check_store(mm: YamlMemoryManager, scenario: Scenario, initial: dict[str, tuple[str, str]]) -> list[str]:
    """The rules a scenario's final store breaks (empty: passed)."""
    items = mm.all_items()
    texts = [item.description for item in items.values()]
    failures = []
    normalized = [t.replace(" ", "").rstrip("。") for t in texts]
    if len(set(normalized)) != len(normalized):
        failures.append("duplicate items")
    for text in texts:
        if find_secret(text):
            failures.append(f"secret stored: {text}")
    for mid, item in items.items():
        if initial.get(mid) != (item.description, item.theme):
            bad = [w for w in RELATIVE_WORDS if w in item.description]
            if bad:
                failures.append(f"relative date {bad} in written memory: {item.description}")
    exp = scenario.expect
    for keywords in exp.get("present", []):
        keywords = [keywords] if isinstance(keywords, str) else keywords
        if not any(all(k in t for k in keywords) for t in texts):
            failures.append(f"missing a memory with {keywords}")
    for word in exp.get("absent", []):
        if any(word in t for t in texts):
            failures.append(f"must not be stored: {word}")
    for word in exp.get("unique", []):
        if sum(word in t for t in texts) > 1:
            failures.append(f"more than one memory mentions {word}")
    for word in exp.get("deleted", []):
        if any(word in t for t in texts):
            failures.append(f"should have been deleted: {word}")
    for word in exp.get("history", []):
        olds = [h.get("old_description") or "" for item in items.values() for h in item.history]
        olds += [h.get("merged_description") or "" for item in items.values() for h in item.history]
        if not any(word in old for old in olds):
            failures.append(f"old value not kept in history: {word}")
    for word in exp.get("hit", []):
        if not any(word in i.description and int(i.hit or 0) > 0 for i in items.values()):
            failures.append(f"memory about {word} was not marked as referenced (hit)")
    if exp.get("unchanged") and {mid: (i.description, i.theme) for mid, i in items.items()} != initial:
        failures.append("store changed although nothing should be remembered")
    if "max_items" in exp and len(items) > int(exp["max_items"]):
        failures.append(f"{len(items)} items, expected at most {exp['max_items']}")
    return failures


async def run_scenario(scenario: Scenario, llm: Any, folder: Path) -> Outcome:
    mm = YamlMemoryManager(folder / f"{scenario.id}.yaml")
    related = MechanicalRetriever(mm)  # as the app does: read_memories lists related ones on big stores
    try:
        for mem in scenario.memories:
            mm.add(mem["description"], mem["theme"])
        initial = {mid: (i.description, i.theme) for mid, i in mm.all_items().items()}
        outcome = Outcome(scenario, [])
        consumer = MemoryConsumer(llm, mm, now=lambda: scenario.now, retriever=lambda: related)
        for n, turn in enumerate(scenario.turns):
            try:
                result = await consumer.consume(f"bench-{scenario.id}", f"{scenario.id}-{n}", turn)
            except Exception as exc:  # noqa: BLE001 - reported per scenario
                outcome.error = f"{type(exc).__name__}: {exc}"
                return outcome
            outcome.llm_calls.append(result.llm_calls)
            outcome.prompt_tokens.append(result.prompt_tokens)
        outcome.failures = check_store(mm, scenario, initial)
        return outcome
    finally:
        related.close()
        mm.close()


async def run_all(scenarios: list[Scenario], llm: Any) -> list[Outcome]:
    with tempfile.TemporaryDirectory(prefix="sonetto-writer-bench-") as tmp:
        return [await run_scenario(s, llm, Path(tmp)) for s in scenarios]


def summarize(outcomes: list[Outcome]) -> dict[str, Any]:
    by_kind: dict[str, list[Outcome]] = defaultdict(list)
    for o in outcomes:
        by_kind[o.scenario.kind].append(o)
    calls = [c for o in outcomes for c in o.llm_calls]
    tokens = [t for o in outcomes for t in o.prompt_tokens]
    return {
        "scenarios": len(outcomes),
        "passed": sum(o.passed for o in outcomes),
        "by_kind": {k: {"passed": sum(o.passed for o in v), "total": len(v)} for k, v in sorted(by_kind.items())},
        "turns": len(calls),
        "llm_calls_per_turn": round(sum(calls) / len(calls), 2) if calls else None,
        "prompt_tokens_per_turn": round(sum(tokens) / len(tokens)) if tokens else None,
        "failures": {o.scenario.id: (o.failures or [o.error]) for o in outcomes if not o.passed},
    }


def print_report(summary: dict[str, Any]) -> None:
    print(f"passed {summary['passed']}/{summary['scenarios']} scenarios")
    for kind, row in summary["by_kind"].items():
        print(f"  {kind:<16} {row['passed']}/{row['total']}")
    print(f"turns: {summary['turns']}, LLM calls/turn: {summary['llm_calls_per_turn']}, "
          f"prompt tokens/turn: {summary['prompt_tokens_per_turn']}")
    for sid, problems in summary["failures"].items():
        print(f"  FAIL {sid}: " + "; ".join(str(p) for p in problems))


def endpoint_llm() -> Any:
    """The bench endpoint (SONETTO_BENCH_*), else the app's configured model, else ``None``."""
    base = os.environ.get("SONETTO_BENCH_BASE_URL")
    if base:
        from langchain_openai import ChatOpenAI

        return ChatOpenAI(base_url=base, model=os.environ.get("SONETTO_BENCH_MODEL", "gpt-4o-mini"),
                          api_key=os.environ.get("SONETTO_BENCH_API_KEY", "not-needed"), temperature=0,
                          timeout=120, max_retries=2)
    from sonetto_desktop.agent.llm import get_default_llm

    return get_default_llm()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.writer", description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", nargs="?", default=str(Path(__file__).with_name("writer_scenarios.yaml")))
    parser.add_argument("--only", default="", help="comma-separated scenario ids")
    parser.add_argument("--kind", default="", help="only scenarios of this kind")
    parser.add_argument("--json", default="", help="also write the summary here")
    args = parser.parse_args(argv)
    scenarios = load_scenarios(args.dataset)
    if args.only:
        wanted = set(args.only.split(","))
        scenarios = [s for s in scenarios if s.id in wanted]
    if args.kind:
        scenarios = [s for s in scenarios if s.kind == args.kind]
    llm = endpoint_llm()
    if llm is None:
        print(f"No LLM endpoint configured (SONETTO_BENCH_BASE_URL or the app settings): "
              f"{len(scenarios)} scenarios loaded and valid, nothing replayed.\n"
              f"未配置模型端点：已载入并校验 {len(scenarios)} 个场景，未执行回放。")
        return 0
    summary = summarize(asyncio.run(run_all(scenarios, llm)))
    print_report(summary)
    if args.json:
        Path(args.json).write_text(json.dumps(summary, ensure_ascii=False, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
