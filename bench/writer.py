"""Writer quality harness: replay short Chinese conversations through the real memory writer (and
the daily hygiene pass) and check the resulting store with rules. Prints a score.

    python -m bench.writer bench/writer_scenarios.yaml [--only ID,ID] [--kind KIND] [--json OUT]

The endpoint comes from SONETTO_BENCH_BASE_URL / SONETTO_BENCH_MODEL / SONETTO_BENCH_API_KEY (any
OpenAI-compatible server), else from the app's settings and environment (``get_default_llm()``).
Without one it says so and exits 0. CI replays every scenario against the scripted server
(tests/test_writer_harness.py): that checks the plumbing and that the rules can fail, not the model.

A scenario: ``memories`` (``description``, ``theme``, optional ``updated`` — default the day before
``now`` — and ``hit``), ``turns`` (``user``/``assistant``), optional ``user_name`` (the settings'
name), optional ``hygiene: true`` (a hygiene pass runs after the turns; a hygiene scenario may have
no turns).

Rules (every scenario): no duplicate items, nothing secret-looking stored, no relative date words
("明天", "后天", …) in what the writer wrote. Per scenario (``expect``): ``present`` (each entry: a
list of keywords that one memory must all contain), ``present_in`` (section -> such entries, the
memory in that section), ``absent`` (substrings no memory may contain), ``absent_in`` (section ->
substrings no memory of that section may contain), ``unique`` (at most one memory outside "瞬间"
contains it: a dated moment is not a duplicate of a fact), ``deleted`` (no live memory contains it
any more), ``history`` (some memory keeps an old value containing it), ``unchanged`` (texts and
sections are as they were), ``max_items``, ``hit`` (the memory containing it was marked as
referenced), ``sections`` (sections that must exist), ``only_sections`` (no other section may
exist), ``written_contain`` (every memory the writer wrote or changed contains it: the user's
name), ``written_avoid`` (no written memory contains these), ``flagged`` (at least this many
contradictions flagged by the hygiene pass), ``max_refusals`` (at most this many writes refused by
the secret filter).
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
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from sonetto_desktop.memory import YamlMemoryManager  # noqa: E402
from sonetto_desktop.memory.item import MemoryItem  # noqa: E402
from sonetto_desktop.memory.operations import MemoryOperations  # noqa: E402
from sonetto_desktop.memory.retrieval.mechanical import MechanicalRetriever  # noqa: E402
from sonetto_desktop.memory.writer.consumer import MemoryConsumer  # noqa: E402
from sonetto_desktop.memory.writer.hygiene_pass import run_pass  # noqa: E402
from sonetto_desktop.memory.writer.index import MOMENT_THEME, WriterIndex  # noqa: E402
from sonetto_desktop.memory.writer.names import resolve_name  # noqa: E402
from sonetto_desktop.memory.writer.tools import find_secret  # noqa: E402

RELATIVE_WORDS = ("今天", "明天", "后天", "大后天", "昨天", "前天", "下周", "下星期", "这周", "本周", "下个月", "今晚",
                  "明早", "明晚")
KINDS = ("new_fact", "changed_fact", "relative_date", "duplicate_merge", "expired_todo", "small_talk", "secret",
         "hit_reference", "moment", "new_section", "name", "contradiction", "injection", "hygiene")
EXPECT_KEYS = frozenset({"present", "present_in", "absent", "absent_in", "unique", "deleted", "history", "unchanged",
                         "max_items", "hit", "sections", "only_sections", "written_contain", "written_avoid",
                         "flagged", "max_refusals"})


@dataclass
class Scenario:
    id: str
    kind: str
    now: datetime
    turns: list[list[dict[str, str]]]
    memories: list[dict[str, str]] = field(default_factory=list)
    expect: dict[str, Any] = field(default_factory=dict)
    user_name: str = ""
    hygiene: bool = False


@dataclass
class Outcome:
    scenario: Scenario
    failures: list[str]
    llm_calls: list[int] = field(default_factory=list)
    prompt_tokens: list[int] = field(default_factory=list)
    error: str | None = None
    refusals: int = 0
    flagged: int = 0

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
        if not turns and not data.get("hygiene"):
            raise ValueError(f"scenario {sid}: needs at least one turn (or hygiene: true)")
        unknown = set(data.get("expect") or {}) - EXPECT_KEYS
        if unknown:
            raise ValueError(f"scenario {sid}: unknown expect keys {sorted(unknown)}")
        if not data.get("expect"):
            raise ValueError(f"scenario {sid}: needs expectations")
        for mem in data.get("memories") or []:
            if not isinstance(mem, dict) or not mem.get("description") or not mem.get("theme"):
                raise ValueError(f"scenario {sid}: a memory needs description and theme")
        out.append(Scenario(sid, data["kind"], datetime.fromisoformat(str(data["now"])), turns,
                            list(data.get("memories") or []), dict(data.get("expect") or {}),
                            str(data.get("user_name") or ""), bool(data.get("hygiene"))))
    return out


def _entries(value: Any) -> list[list[str]]:
    return [[str(v)] if isinstance(v, (str, int)) else [str(k) for k in v] for v in value or []]


def check_store(mm: YamlMemoryManager, scenario: Scenario, initial: dict[str, tuple[str, str]],
                outcome: Outcome | None = None) -> list[str]:
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
    written = [item for mid, item in items.items() if initial.get(mid) != (item.description, item.theme)]
    for item in written:
        bad = [w for w in RELATIVE_WORDS if w in item.description]
        if bad:
            failures.append(f"relative date {bad} in written memory: {item.description}")
    exp = scenario.expect
    for keywords in _entries(exp.get("present")):
        if not any(all(k in t for k in keywords) for t in texts):
            failures.append(f"missing a memory with {keywords}")
    for section, entries in (exp.get("present_in") or {}).items():
        in_section = [i.description for i in items.values() if i.theme == section]
        for keywords in _entries(entries):
            if not any(all(k in t for k in keywords) for t in in_section):
                failures.append(f"missing a memory in {section} with {keywords}")
    for word in exp.get("absent", []):
        if any(word in t for t in texts):
            failures.append(f"must not be stored: {word}")
    for section, words in (exp.get("absent_in") or {}).items():
        for word in words:
            if any(word in i.description for i in items.values() if i.theme == section):
                failures.append(f"must not be in {section} any more: {word}")
    facts = [i.description for i in items.values() if i.theme != MOMENT_THEME]
    for word in exp.get("unique", []):
        if sum(word in t for t in facts) > 1:
            failures.append(f"more than one memory mentions {word}")
    themes = {i.theme for i in items.values()}
    for section in exp.get("sections", []):
        if section not in themes:
            failures.append(f"no section {section}")
    if "only_sections" in exp and themes - set(exp["only_sections"]):
        failures.append(f"unexpected sections {sorted(themes - set(exp['only_sections']))}")
    if exp.get("written_contain"):
        name = exp["written_contain"]
        if not written:
            failures.append(f"nothing written (expected memories naming {name})")
        for item in written:
            if name not in item.description:
                failures.append(f"written memory does not use the name {name}: {item.description}")
    for word in exp.get("written_avoid", []):
        for item in written:
            if item.description.startswith(word):
                failures.append(f"written memory starts with {word}: {item.description}")
    if outcome is not None and "flagged" in exp and outcome.flagged < int(exp["flagged"]):
        failures.append(f"{outcome.flagged} contradictions flagged, expected at least {exp['flagged']}")
    if outcome is not None and "max_refusals" in exp and outcome.refusals > int(exp["max_refusals"]):
        failures.append(f"{outcome.refusals} writes refused by the secret filter, expected at most {exp['max_refusals']}")
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


def _seed(mm: YamlMemoryManager, scenario: Scenario) -> None:
    default = (scenario.now - timedelta(days=1)).isoformat(timespec="seconds")
    mm.import_items({f"m{n:03d}": MemoryItem(str(m["description"]), str(m["theme"]),
                                             latest_update_time=str(m.get("updated") or default),
                                             hit=int(m.get("hit") or 0))
                     for n, m in enumerate(scenario.memories)})


async def run_scenario(scenario: Scenario, llm: Any, folder: Path) -> Outcome:
    mm = YamlMemoryManager(folder / f"{scenario.id}.yaml")
    related = MechanicalRetriever(mm, now=lambda: scenario.now)  # as the app: the listing of a big store
    refused: list[str] = []
    try:
        _seed(mm, scenario)
        initial = {mid: (i.description, i.theme) for mid, i in mm.all_items().items()}
        outcome = Outcome(scenario, [])
        consumer = MemoryConsumer(llm, mm, now=lambda: scenario.now, retriever=lambda: related,
                                  user_name=lambda: scenario.user_name)
        for n, turn in enumerate(scenario.turns):
            try:
                result = await consumer.consume(f"bench-{scenario.id}", f"{scenario.id}-{n}", turn)
            except Exception as exc:  # noqa: BLE001 - reported per scenario
                outcome.error = f"{type(exc).__name__}: {exc}"
                return outcome
            outcome.llm_calls.append(result.llm_calls)
            outcome.prompt_tokens.append(result.prompt_tokens)
            refused += [m for m in result.tool_error_texts if "拒绝写入" in m]
        if scenario.hygiene:
            index = WriterIndex(mm)
            subject = resolve_name(scenario.user_name, *index.name_hints())[0]
            try:
                report = await asyncio.to_thread(run_pass, MemoryOperations(mm, actor="agent"), llm, index, related,
                                                  now=scenario.now, subject=subject)
            except Exception as exc:  # noqa: BLE001 - reported per scenario
                outcome.error = f"hygiene: {type(exc).__name__}: {exc}"
                return outcome
            finally:
                index.close()
            outcome.llm_calls.append(report.llm_calls)
            outcome.prompt_tokens.append(report.prompt_tokens)
            outcome.flagged = len(report.conflicts)
        outcome.refusals = len(refused)
        outcome.failures = check_store(mm, scenario, initial, outcome)
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
        "score": round(sum(o.passed for o in outcomes) / len(outcomes), 4) if outcomes else 0.0,
        "by_kind": {k: {"passed": sum(o.passed for o in v), "total": len(v)} for k, v in sorted(by_kind.items())},
        "turns": len(calls),
        "llm_calls_per_turn": round(sum(calls) / len(calls), 2) if calls else None,
        "prompt_tokens_per_turn": round(sum(tokens) / len(tokens)) if tokens else None,
        "failures": {o.scenario.id: (o.failures or [o.error]) for o in outcomes if not o.passed},
    }


def print_report(summary: dict[str, Any]) -> None:
    print(f"score: {summary['score']:.3f} (passed {summary['passed']}/{summary['scenarios']} scenarios)")
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
