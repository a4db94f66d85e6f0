"""Recall benchmark: the MechanicalRetriever against a plain jieba + BM25Okapi baseline.

    python -m bench.recall DATASET.yaml [--now 2026-12-02T12:00] [--store sqlite|yaml]
                           [--scale 10000] [--madial] [--madial-dir PATH]

DATASET follows the format documented in the header of the shared ``retrieval-zh-dev.yaml``
(``bench/datasets/recall-example.yaml`` is the project's own small set in that format).
The bank is loaded into a real store in a temporary directory. Printed, side by side: recall@5,
MRR, share of negative queries answered with nothing, recall@5 per kind, ms per query.
``--madial`` also scores MADial-Bench zh (not shipped; pass its folder) with R@1 / R@3 beside the
authors' embedding-model rankings, scored with the same gold. ``--scale N`` pads the bank with
synthetic memories to N and reports query latency (p50 / p95), index build and refresh costs.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Callable, Iterable

import yaml

from bench.recall_baselines import BigramBaseline, JiebaBaseline
from sonetto_desktop.memory import MemoryItem, SqliteMemoryManager, YamlMemoryManager
from sonetto_desktop.memory.stores.base import BaseMemoryManager
from sonetto_desktop.memory.retrieval.mechanical import MechanicalRetriever
from sonetto_desktop.memory.retrieval.tokenize import warm_up

K = 5
_PLACEHOLDER = re.compile(r"\{d([+-])(\d+)\}")


# ── dataset ────────────────────────────────────────────────────────────


@dataclass
class Memory:
    id: str
    description: str
    theme: str
    latest_update_time: str
    hit: int = 0


@dataclass
class QueryCase:
    q: str
    gold: list[str]
    kind: str = "literal"
    split: str = ""  # "tune" / "heldout" where the set marks it (recall-phenomena.yaml), else ""


@dataclass
class Dataset:
    memories: list[Memory]
    queries: list[QueryCase]
    persona: str = ""
    now: datetime = field(default_factory=datetime.now)


def expand_placeholders(text: str, now: datetime) -> str:
    """``{d+N}`` / ``{d-N}`` -> the date N days after / before ``now`` as ``M月D日``."""

    def repl(m: re.Match) -> str:
        days = int(m.group(2)) * (1 if m.group(1) == "+" else -1)
        day = (now + timedelta(days=days)).date()
        return f"{day.month}月{day.day}日"

    return _PLACEHOLDER.sub(repl, text)


def load_dataset(source: str | Path | dict, now: datetime) -> Dataset:
    """Read a dataset file (or an already parsed mapping), expanding placeholders against ``now``."""
    data = source if isinstance(source, dict) else yaml.safe_load(Path(source).read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("memories"), list):
        raise ValueError("a recall dataset needs a 'memories' list and a 'queries' list")
    memories, queries = [], []
    try:
        for raw in data["memories"]:
            at = raw.get("at")
            stamp = datetime.fromisoformat(str(at)) if at else now - timedelta(days=float(raw.get("days_ago", 0)))
            memories.append(Memory(str(raw["id"]), expand_placeholders(str(raw["description"]), now),
                                   str(raw["theme"]), stamp.replace(microsecond=0).isoformat(), int(raw.get("hit", 0))))
        ids = {m.id for m in memories}
        for raw in data.get("queries") or []:
            gold = [str(g) for g in raw.get("gold") or []]
            if unknown := [g for g in gold if g not in ids]:
                raise ValueError(f"query {raw.get('q')!r}: gold ids not in the bank: {unknown}")
            queries.append(QueryCase(str(raw["q"]), gold, str(raw.get("kind", "literal")), str(raw.get("split", ""))))
    except (KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"malformed entry (missing or wrong field: {exc})") from exc
    return Dataset(memories, queries, str(data.get("persona", "")), now)


def open_store(kind: str, folder: Path) -> BaseMemoryManager:
    if kind == "yaml":
        return YamlMemoryManager(folder / "memory.yaml")
    if kind == "sqlite":
        return SqliteMemoryManager(folder / "memory.sqlite3")
    raise ValueError(f"unknown store {kind!r}: use sqlite or yaml")


def fill_store(mm: BaseMemoryManager, memories: Iterable[Memory]) -> dict[str, str]:
    """Import the bank keeping ids, times and hits. Returns dataset id -> stored id
    (an exact duplicate text is stored once: its ids all map to the kept one)."""
    items = {m.id: MemoryItem(m.description, m.theme, latest_update_time=m.latest_update_time, hit=m.hit)
             for m in memories}
    mm.import_items(items)
    stored = {(item.description, item.theme): mid for mid, item in mm.all_items().items()}
    return {m.id: stored[(m.description, m.theme)] for m in memories}


# ── metrics ────────────────────────────────────────────────────────────


def recall_at(ranked: list[str], gold: Iterable[str], k: int) -> float:
    gold = set(gold)
    return len(gold & set(ranked[:k])) / len(gold) if gold else 0.0


def reciprocal_rank(ranked: list[str], gold: Iterable[str], k: int | None = None) -> float:
    gold = set(gold)
    for rank, mid in enumerate(ranked[:k] if k else ranked, start=1):
        if mid in gold:
            return 1.0 / rank
    return 0.0


def p95(values: list[float]) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]


def summarize(cases: list[QueryCase], results: list[list[str]], times_ms: list[float], k: int = K) -> dict[str, Any]:
    """recall@k and MRR over queries with gold, share of negatives answered empty, per-kind recall."""
    positive = [(c, r) for c, r in zip(cases, results, strict=True) if c.gold]
    negative = [(c, r) for c, r in zip(cases, results, strict=True) if not c.gold]
    per_kind: dict[str, list[float]] = {}
    for case, ranked in positive:
        per_kind.setdefault(case.kind, []).append(recall_at(ranked, case.gold, k))
    return {
        "recall": statistics.fmean(recall_at(r, c.gold, k) for c, r in positive) if positive else 0.0,
        "mrr": statistics.fmean(reciprocal_rank(r, c.gold, k) for c, r in positive) if positive else 0.0,
        "negatives_empty": (sum(1 for _, r in negative if not r) / len(negative)) if negative else None,
        "empty": (sum(1 for _, r in positive if not r) / len(positive)) if positive else 0.0,
        "negatives": len(negative),
        "per_kind": {kind: statistics.fmean(v) for kind, v in sorted(per_kind.items())},
        "ms_mean": statistics.fmean(times_ms) if times_ms else 0.0,
        "ms_p95": p95(times_ms),
        "queries": len(cases),
    }


# ── systems ────────────────────────────────────────────────────────────


Baseline = JiebaBaseline  # the issue-4 name


def timed(fn: Callable[[str], list[str]], queries: list[str]) -> tuple[list[list[str]], list[float]]:
    results, times = [], []
    for q in queries:
        start = time.perf_counter()
        results.append(fn(q))
        times.append((time.perf_counter() - start) * 1000)
    return results, times


def run_dataset(ds: Dataset, store: str = "sqlite", k: int = K) -> dict[str, dict[str, Any]]:
    """Score the mechanical retriever (real store) and the baseline on one dataset."""
    with tempfile.TemporaryDirectory(prefix="sonetto-bench-") as tmp:
        mm = open_store(store, Path(tmp))
        try:
            id_map = fill_store(mm, ds.memories)
            cases = [QueryCase(c.q, sorted({id_map[g] for g in c.gold}), c.kind) for c in ds.queries]
            retriever = MechanicalRetriever(mm, now=lambda: ds.now)
            retriever.warm_up()  # jieba load and first index build are not per-query costs
            ours, ours_ms = timed(lambda q: [d["id"] for d in retriever.retrieve(q, k)], [c.q for c in cases])
            retriever.close()
            docs = {mid: item.description for mid, item in mm.all_items().items()}
        finally:
            mm.close()
    out = {"mechanical": summarize(cases, ours, ours_ms, k)}
    for name, cls in (("baseline", JiebaBaseline), ("bigram", BigramBaseline)):
        system = cls(docs)
        ranked, ms = timed(lambda q, s=system: s.rank(q, k), [c.q for c in cases])
        out[name] = summarize(cases, ranked, ms, k)
    return out


def synthetic_bank(n: int, seed: int = 7) -> list[Memory]:
    """``n`` filler memories for the speed test: Chinese sentences mixing lexicon words, names,
    numbers, dates and words drawn from jieba's dictionary by frequency (so the bank's vocabulary
    grows with its size the way real text does; their relevance is irrelevant)."""
    import itertools
    import random

    from sonetto_desktop.memory.retrieval import tokenize as tok
    from sonetto_desktop.memory.retrieval.lexicon import default_lexicon

    rng = random.Random(seed)
    lexicon = default_lexicon()  # its Mandarin words (a memory is not written in Cantonese or slang)
    vocab = sorted(k for k in lexicon.expansions if not k.isascii() and k not in lexicon.variant_only)
    tok.warm_up()
    entries = sorted((w, f) for w, f in _full_jieba_freq().items() if f >= 3 and tok.is_cjk(w) and len(w) <= 4)
    words_all = [w for w, _ in entries]
    cum = list(itertools.accumulate(f ** 0.75 for _, f in entries))
    names = ["小周", "阿杰", "小陈", "老王", "小雨", "思思", "大伟", "乐乐"]
    verbs = ["喜欢", "最近在", "打算", "讨厌", "常去", "提到", "想学", "买了", "约了", "在准备"]
    themes = ["身份", "音乐", "品味", "地点与路径", "瞬间", "时效待办", "项目"]
    bank = []
    for i in range(n):
        words = "、".join(rng.sample(vocab, 2))
        filler = "".join(rng.choices(words_all, cum_weights=cum, k=rng.randint(4, 9)))
        date = f"{rng.randint(1, 12)}月{rng.randint(1, 28)}日" if rng.random() < 0.3 else ""
        text = f"{date}{rng.choice(names)}{rng.choice(verbs)}{words}，{filler}，大概{rng.randint(2, 99)}次。"
        stamp = datetime(2026, 1, 1) + timedelta(minutes=rng.randint(0, 480_000))
        bank.append(Memory(f"s{i:05d}", text, rng.choice(themes), stamp.isoformat(), rng.randint(0, 20)))
    return bank


def run_scale(ds: Dataset, n: int, store: str = "sqlite", rounds: int = 5) -> dict[str, float]:
    """Query latency with the dataset's bank padded to ``n`` memories; plus index build and refresh costs."""
    with tempfile.TemporaryDirectory(prefix="sonetto-scale-") as tmp:
        mm = open_store(store, Path(tmp))
        try:
            fill_store(mm, ds.memories + synthetic_bank(max(n - len(ds.memories), 0)))
            retriever = MechanicalRetriever(mm, now=lambda: ds.now)
            start = time.perf_counter()
            retriever.warm_up()
            build_ms = (time.perf_counter() - start) * 1000
            queries = [c.q for c in ds.queries] * rounds
            _, times = timed(lambda q: [d["id"] for d in retriever.retrieve(q)], queries)
            _, cand_times = timed(lambda q: [d["id"] for d in retriever.candidates(q, 60)], queries[: len(ds.queries)])
            mm.add("新加的一条记忆：喜欢在雨天听爵士乐。", "音乐")
            start = time.perf_counter()
            retriever.retrieve("爵士乐")
            refresh_ms = (time.perf_counter() - start) * 1000
            retriever.close()
        finally:
            mm.close()
    return {"memories": n, "build_ms": build_ms, "p50_ms": statistics.median(times), "p95_ms": p95(times),
            "candidates60_p95_ms": p95(cand_times), "query_after_add_ms": refresh_ms}


# ── MADial-Bench zh ────────────────────────────────────────────────────


def _read_json_lines(path: Path) -> list[Any]:
    text = path.read_text(encoding="utf-8")
    try:
        data = json.loads(text)
        return data if isinstance(data, list) else [data]
    except json.JSONDecodeError:
        return [json.loads(line) for line in text.splitlines() if line.strip()]


def load_madial(folder: Path) -> tuple[dict[int, dict], list[dict]]:
    """(memories id -> record, dialogues) of MADial-Bench zh, per the shared README's recipe."""
    memories: dict[int, dict] = {}
    for line in _read_json_lines(folder / "data" / "ch" / "MADial-Bench-zh-memory.json"):
        for key, value in line.items():
            memories[int(key)] = value
    return memories, _read_json_lines(folder / "data" / "ch" / "MADial-Bench-zh-dialogue.json")


def madial_cases(memories: dict[int, dict], dialogues: list[dict]) -> tuple[list[dict], dict[int, int]]:
    """Cases {id, user, query, gold_all, gold_primary}; duplicate texts collapse to their lowest id."""
    canonical: dict[tuple[int, str], int] = {}
    collapse: dict[int, int] = {}
    for mid in sorted(memories):
        key = (memories[mid]["user-id"], memories[mid]["event"].strip())
        collapse[mid] = canonical.setdefault(key, mid)
    cases = []
    for d in dialogues:
        turn = d["test-turn"][0]
        gold = [collapse[int(g)] for g in d["relevant-id"]]
        cases.append({"id": d["id"], "user": d["user-id"], "query": "".join(d["dialogue"][:turn]),
                      "gold_all": sorted(set(gold)), "gold_primary": [gold[0]]})
    return cases, collapse


def _madial_metrics(rankings: dict[Any, list[int]], cases: list[dict]) -> dict[str, float]:
    out: dict[str, float] = {}
    for label in ("gold_all", "gold_primary"):
        scored = [c for c in cases if c["id"] in rankings]
        for k in (1, 3, 5):
            out[f"{label}@{k}"] = statistics.fmean(recall_at(rankings[c["id"]], c[label], k) for c in scored)
        out[f"{label}_mrr10"] = statistics.fmean(reciprocal_rank(rankings[c["id"]], c[label], 10) for c in scored)
    return out


def run_madial(folder: Path, store: str = "sqlite") -> dict[str, dict[str, float]]:
    memories, dialogues = load_madial(folder)
    cases, collapse = madial_cases(memories, dialogues)
    results: dict[str, dict[str, float]] = {}
    ours: dict[Any, list[int]] = {}
    base: dict[Any, list[int]] = {}
    for user in sorted({c["user"] for c in cases}):
        bank = [Memory(str(mid), m["event"].strip(), m.get("scene", "其他"), f"{m['time']}T12:00:00")
                for mid, m in memories.items() if m["user-id"] == user and collapse[mid] == mid]
        latest = max(datetime.fromisoformat(m.latest_update_time) for m in bank)
        with tempfile.TemporaryDirectory(prefix="sonetto-madial-") as tmp:
            mm = open_store(store, Path(tmp))
            try:
                fill_store(mm, bank)
                retriever = MechanicalRetriever(mm, now=lambda: latest + timedelta(days=1))
                baseline = Baseline({m.id: m.description for m in bank})
                for c in (c for c in cases if c["user"] == user):
                    ours[c["id"]] = [int(d["id"]) for d in retriever.candidates(c["query"], 10)]
                    base[c["id"]] = [int(i) for i in baseline.rank(c["query"], 10)]
                retriever.close()
            finally:
                mm.close()
    results["mechanical (ours)"] = _madial_metrics(ours, cases)
    results["jieba+BM25Okapi"] = _madial_metrics(base, cases)
    for path in sorted((folder / "embeddings" / "ch").glob("*_zh_top_20_ids.json")):
        ranks = {r["id"]: [collapse.get(int(i), int(i)) for i in r["top_20_ids"]] for r in _read_json_lines(path)}
        results[path.name.replace("_zh_top_20_ids.json", "")] = _madial_metrics(ranks, cases)
    return results


# ── command line ──────────────────────────────────────────────────────


def _fmt(value: float | None) -> str:
    return "  n/a" if value is None else f"{value:5.3f}"


def print_report(name: str, res: dict[str, dict[str, Any]], out: Any = None) -> None:
    out = out or sys.stdout
    systems = [s for s in ("mechanical", "bigram", "baseline") if s in res]
    first = res[systems[0]]
    labels = {"mechanical": "mechanical", "bigram": "char-bigram", "baseline": "jieba-bm25"}
    print(f"\n{name}: {first['queries']} queries ({first['negatives']} negative)", file=out)
    print(f"{'metric':<22}" + "".join(f"{labels[s]:>13}" for s in systems), file=out)
    rows = [(f"recall@{K}", "recall"), ("MRR", "mrr"), ("answerable, empty", "empty"),
            ("negatives empty", "negatives_empty"), ("ms/query (mean)", "ms_mean"), ("ms/query (p95)", "ms_p95")]
    for label, key in rows:
        print(f"{label:<22}" + "".join(f"{_fmt(res[s].get(key)):>13}" for s in systems), file=out)
    for kind in first["per_kind"]:
        print(f"{'  R@5 ' + kind:<22}" + "".join(f"{_fmt(res[s]['per_kind'].get(kind)):>13}" for s in systems),
              file=out)


def print_madial(res: dict[str, dict[str, float]], out: Any = None) -> None:
    out = out or sys.stdout
    print("\nMADial-Bench zh (test-turn[0], history query, duplicates collapsed)", file=out)
    cols = ["gold_all@1", "gold_all@3", "gold_all@5", "gold_all_mrr10", "gold_primary@1", "gold_primary@3"]
    print(f"{'system':<22}" + "".join(f"{c.replace('gold_', ''):>14}" for c in cols), file=out)
    for system, metrics in res.items():
        print(f"{system:<22}" + "".join(f"{metrics[c]:>14.3f}" for c in cols), file=out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.recall", description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", type=Path)
    parser.add_argument("--now", type=datetime.fromisoformat, default=None, help="ISO time; default: now")
    parser.add_argument("--store", choices=["sqlite", "yaml"], default="sqlite")
    parser.add_argument("--madial", action="store_true", help="also score MADial-Bench zh")
    parser.add_argument("--scale", type=int, default=0, metavar="N",
                        help="also time queries with the bank padded to N synthetic memories")
    parser.add_argument("--madial-dir", type=Path,
                        default=Path(__file__).resolve().parent.parent.parent / "shared" / "datasets" / "madial_bench")
    args = parser.parse_args(argv)
    now = (args.now or datetime.now()).replace(microsecond=0)
    warm_up()
    try:
        ds = load_dataset(args.dataset, now)
    except (OSError, ValueError, yaml.YAMLError) as exc:
        print(f"cannot read {args.dataset}: {exc}", file=sys.stderr)
        return 2
    print(f"now = {now.isoformat()}  store = {args.store}")
    print_report(args.dataset.name, run_dataset(ds, args.store))
    if args.scale:
        res = run_scale(ds, args.scale, args.store)
        print(f"\nscale: {res['memories']} memories ({args.store}): first build {res['build_ms']:.0f} ms, "
              f"retrieve p50 {res['p50_ms']:.2f} ms / p95 {res['p95_ms']:.2f} ms, "
              f"candidates(60) p95 {res['candidates60_p95_ms']:.2f} ms, "
              f"first query after an add {res['query_after_add_ms']:.2f} ms")
    if args.madial:
        if not (args.madial_dir / "data" / "ch").is_dir():
            print(f"MADial-Bench not found in {args.madial_dir} (use --madial-dir)", file=sys.stderr)
            return 2
        print_madial(run_madial(args.madial_dir, args.store))
    return 0


def _full_jieba_freq() -> dict[str, int]:
    """jieba's own dict-of-strings table (the app keeps a compact one that cannot be listed)."""
    import jieba

    jieba.initialize()
    return jieba.dt.FREQ


if __name__ == "__main__":
    raise SystemExit(main())
