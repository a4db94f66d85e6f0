"""Recall on public data, side by side with the plain baselines in the same run.

    python -m bench.recall_public [--datasets DIR] [--sets dev,blind,heldout,memdaily,madial,locomo]
                                  [--memdaily-per-file 40] [--pad 100]

DIR is the folder of the evaluation datasets (its README documents them; default: the
``SONETTO_DATASETS`` environment variable). They are read in place and never copied.

- **memdaily**: MemDaily (MemSim), each trajectory's messages as the bank, its question as the
  query; banks padded to ``--pad`` memories with topic-disjoint messages (roles / events banks
  take items / places messages and the other way round; hybrid banks are not padded), as the
  dataset's README recommends.
- **madial**: MADial-Bench zh, the user's last turn before the memory-bringing assistant turn as
  the query (a new message, not the history), gold = all relevant ids, duplicates collapsed.
- **locomo**: LoCoMo observation level (answerable categories 1-4, questions whose every
  evidence turn is covered by an observation).
- **dev** (the shared ``retrieval-zh-dev.yaml`` in the benchmarks folder beside DIR), **blind**,
  **heldout**, **example** (``bench/datasets``): the hand-written sets, read against 2026-12-02 12:00.

``offline_recall(DIR, sets)`` returns the same figures (ours and the baselines' recall@5, same run) for
other benches (``bench/recall_reach.py``).

Every system answers with at most 5 memories: ours through ``retrieve`` (its relevance floor can
answer nothing), the baselines always rank everything. Each bank is shuffled (seeded) before the
baselines see it: the datasets list a query's own messages first, and a baseline that breaks ties
by position would otherwise get those for free (in a padded MemDaily bank most memories score 0). Printed per set: recall@5, MRR, the share
of answerable questions answered with nothing, per-kind recall@5.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import tempfile
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Iterable

from bench.recall import K, Memory, QueryCase, fill_store, open_store, print_report, summarize, timed
from bench.recall_baselines import BigramBaseline, JiebaBaseline
from sonetto_desktop.memory.retrieval.mechanical import MechanicalRetriever


@dataclass
class Group:
    """One bank and the queries asked of it."""

    name: str
    bank: list[Memory]
    cases: list[QueryCase]
    now: datetime


# ── MemDaily ───────────────────────────────────────────────────────────

_MEMDAILY_TIME = re.compile(r"(\d{4})年(\d{1,2})月(\d{1,2})日\D*?(\d{1,2}):(\d{2})")
_MEMDAILY_SIDES = {"roles": "a", "events": "a", "items": "b", "places": "b"}


def _memdaily_time(text: str) -> datetime:
    m = _MEMDAILY_TIME.search(text or "")
    if not m:
        return datetime(2024, 1, 1)
    y, mo, d, h, mi = (int(g) for g in m.groups())
    return datetime(y, mo, d, h, mi)


def memdaily_groups(root: Path, per_file: int = 40, pad_to: int = 100, seed: int = 11) -> list[Group]:
    folder = root / "memdaily" / "data_generation" / "final_dataset" / "messages_and_QAs"
    files = sorted(folder.glob("*.json"))
    pools: dict[str, list[tuple[str, str]]] = {"a": [], "b": []}
    loaded: dict[str, list[dict]] = {}
    for path in files:
        loaded[path.name] = json.loads(path.read_text(encoding="utf-8"))
        side = _MEMDAILY_SIDES.get(path.stem.rsplit("_", 1)[-1])
        if side:
            for t in loaded[path.name]:
                pools[side].extend((m["message"], m["time"]) for m in t["message_list"])
    for side in pools:
        pools[side] = sorted(set(pools[side]))
    rng = random.Random(seed)
    groups = []
    for path in files:
        scenario = path.stem.rsplit("_", 1)[-1]
        kind = path.stem.split("_", 1)[1].rsplit("_", 1)[0]
        taken = 0
        for t in loaded[path.name]:
            q = t["question_list"][0]
            if q["question"] == "[ERRORQ]" or q["answer"] == "[ERRORA]":
                continue
            if taken >= per_file:
                break
            taken += 1
            prefix = f"{path.stem}#{t['tid']}#"
            bank = [Memory(prefix + str(m["mid"]), m["message"], "记忆", _memdaily_time(m["time"]).isoformat())
                    for m in t["message_list"]]
            side = _MEMDAILY_SIDES.get(scenario)
            if side and pad_to > len(bank):
                other = pools["b" if side == "a" else "a"]
                texts = {m.description for m in bank}
                extra = [p for p in rng.sample(other, min(len(other), 3 * pad_to)) if p[0] not in texts]
                for i, (text, when) in enumerate(extra[: pad_to - len(bank)]):
                    bank.append(Memory(f"{prefix}pad{i}", text, "记忆", _memdaily_time(when).isoformat()))
            gold = [prefix + str(i) for i in q["target_step_id"]]
            groups.append(Group(prefix, bank, [QueryCase(q["question"], gold, kind)], _memdaily_time(q["time"])))
    return groups


# ── MADial-Bench zh, last user turn ─────────────────────────────────────

_TURN = re.compile(r'^\s*<[^>]*>\s*:\s*"?(.*?)"?\s*$', re.S)


def _lines(path: Path) -> list[Any]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def madial_groups(root: Path) -> list[Group]:
    folder = root / "madial_bench" / "data" / "ch"
    memories: dict[int, dict] = {}
    for line in _lines(folder / "MADial-Bench-zh-memory.json"):
        for key, value in line.items():
            memories[int(key)] = value
    canonical: dict[tuple[int, str], int] = {}
    collapse = {}
    for mid in sorted(memories):
        collapse[mid] = canonical.setdefault((memories[mid]["user-id"], memories[mid]["event"].strip()), mid)
    groups = []
    for user in sorted({m["user-id"] for m in memories.values()}):
        bank = [Memory(str(mid), m["event"].strip(), m.get("scene", "其他"), f"{m['time']}T12:00:00")
                for mid, m in sorted(memories.items()) if m["user-id"] == user and collapse[mid] == mid]
        cases = []
        for d in _lines(folder / "MADial-Bench-zh-dialogue.json"):
            if d["user-id"] != user:
                continue
            turn = d["test-turn"][0]
            m = _TURN.match(d["dialogue"][turn - 1])
            query = m.group(1) if m else d["dialogue"][turn - 1]
            cases.append(QueryCase(query, sorted({str(collapse[int(g)]) for g in d["relevant-id"]}), "last_turn"))
        latest = max(datetime.fromisoformat(m.latest_update_time) for m in bank)
        groups.append(Group(f"madial-user{user}", bank, cases, latest + timedelta(days=1)))
    return groups


# ── LoCoMo, observation level ───────────────────────────────────────────

_DIA = re.compile(r"^D\d+:\d+$")


def _dia_ids(value: Any) -> set[str]:
    parts = value if isinstance(value, list) else [value]
    out = set()
    for part in parts:
        out.update(p for p in re.split(r"[;,\s]+", str(part)) if _DIA.match(p))
    return out


def _locomo_time(text: str) -> datetime:
    try:
        return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y")
    except ValueError:
        return datetime(2023, 1, 1)


def locomo_groups(root: Path) -> list[Group]:
    folder = root / "locomo" / "data" / "multimodal_dialog" / "locomo10_v2"
    categories = {1: "multi_hop", 2: "temporal", 3: "open_domain", 4: "single_hop"}
    groups = []
    for path in sorted(folder.glob("*.json")):
        conv = json.loads(path.read_text(encoding="utf-8"))
        bank, sources, latest = [], {}, datetime(2000, 1, 1)
        for key in sorted(k for k in conv if re.fullmatch(r"session_\d+_observation", k)):
            n = key.split("_")[1]
            when = _locomo_time(conv.get(f"session_{n}_date_time", ""))
            latest = max(latest, when)
            for speaker, facts in conv[key].items():
                for i, (fact, dia) in enumerate(facts):
                    mid = f"S{n}:{speaker}:{i}"
                    bank.append(Memory(mid, fact, speaker, when.isoformat()))
                    sources[mid] = _dia_ids(dia)
        covered = set().union(*sources.values()) if sources else set()
        cases = []
        for qa in conv.get("qa", []):
            if qa.get("category") not in categories:
                continue
            evidence = _dia_ids(qa.get("evidence", []))
            if not evidence or not evidence <= covered:
                continue
            gold = sorted(mid for mid, src in sources.items() if src & evidence)
            cases.append(QueryCase(qa["question"], gold, categories[qa["category"]]))
        groups.append(Group(f"locomo-{path.stem}", bank, cases, latest + timedelta(days=1)))
    return groups


# ── running ────────────────────────────────────────────────────────────


def run_groups(groups: Iterable[Group], store: str = "sqlite", k: int = K,
               shuffle: bool = True) -> dict[str, dict[str, Any]]:
    """Our retriever (real store, ``retrieve(q, k)``) and both baselines over every group
    (``shuffle=False``: the baselines see the bank in the dataset's order)."""
    cases_all: list[QueryCase] = []
    results: dict[str, list[list[str]]] = {"mechanical": [], "bigram": [], "baseline": []}
    times: dict[str, list[float]] = {name: [] for name in results}
    with tempfile.TemporaryDirectory(prefix="sonetto-public-") as tmp:
        for n, group in enumerate(groups):
            folder = Path(tmp) / str(n)
            folder.mkdir()
            mm = open_store(store, folder)
            try:
                id_map = fill_store(mm, group.bank)
                back = {stored: orig for orig, stored in id_map.items()}
                retriever = MechanicalRetriever(mm, now=lambda g=group: g.now)
                retriever.warm_up()
                ranked, ms = timed(lambda q: [back[d["id"]] for d in retriever.retrieve(q, k)],
                                   [c.q for c in group.cases])
                retriever.close()
            finally:
                mm.close()
            results["mechanical"] += ranked
            times["mechanical"] += ms
            order = list(group.bank)
            if shuffle:  # ties must not follow the dataset's order
                random.Random(f"{n}:{group.name}").shuffle(order)
            docs = {m.id: m.description for m in order}
            for name, cls in (("bigram", BigramBaseline), ("baseline", JiebaBaseline)):
                system = cls(docs)
                ranked, ms = timed(lambda q, s=system: s.rank(q, k), [c.q for c in group.cases])
                results[name] += ranked
                times[name] += ms
            cases_all += group.cases
    return {name: summarize(cases_all, results[name], times[name], k) for name in results}


# ── the hand-written sets (the shared dev set and the project's own) ───────────────────────

OWN_SETS = Path(__file__).resolve().parent / "datasets"
NOW = datetime(2026, 12, 2, 12, 0)  # the date the hand-written sets' relative dates are read against


def yaml_group(path: Path, now: datetime = NOW) -> Group:
    """A dataset in the format of ``retrieval-zh-dev.yaml`` as one group (negatives included)."""
    from bench.recall import load_dataset

    ds = load_dataset(path, now)
    return Group(path.stem, ds.memories, ds.queries, now)


def dev_path(root: Path | None) -> Path:
    """The shared dev set: in the benchmarks folder beside the datasets folder."""
    if root is None:
        raise FileNotFoundError("the dev set is found beside the datasets folder: pass --datasets DIR")
    return Path(root).resolve().parent / "benchmarks" / "retrieval-zh-dev.yaml"


LOADERS = {
    "dev": lambda root, a: [yaml_group(dev_path(root))],
    "blind": lambda root, a: [yaml_group(OWN_SETS / "recall-blind.yaml")],
    "heldout": lambda root, a: [yaml_group(OWN_SETS / "recall-heldout.yaml")],
    "example": lambda root, a: [yaml_group(OWN_SETS / "recall-example.yaml")],
    "memdaily": lambda root, a: memdaily_groups(root, a.memdaily_per_file, a.pad),
    "madial": lambda root, a: madial_groups(root),
    "locomo": lambda root, a: locomo_groups(root),
}
PUBLIC = ("memdaily", "madial", "locomo")


def offline_recall(datasets: Path | None, sets: Iterable[str] = ("dev", *PUBLIC), *, store: str = "sqlite",
                   memdaily_per_file: int = 40, pad: int = 100) -> dict[str, dict[str, Any]]:
    """Offline recall@5 of our retriever and of the character-bigram and jieba baselines, measured in the
    same run, per set: ``{set: {"ours": R@5, "bigram": R@5, "jieba": R@5, "queries": n, "ours_empty":
    share of answerable questions answered with nothing, "negatives_empty": share or None,
    "systems": summarize() per system}}``. Sets: ``dev`` (beside ``datasets``), ``blind`` / ``heldout`` /
    ``example`` (``bench/datasets``) and the public ``memdaily``, ``madial``, ``locomo`` (read in place
    from ``datasets``). For ``bench/recall_reach.py`` and the command line (``--sets``)."""
    options = argparse.Namespace(memdaily_per_file=memdaily_per_file, pad=pad)
    out = {}
    for name in sets:
        if name not in LOADERS:
            raise ValueError(f"unknown set {name!r} (known: {', '.join(LOADERS)})")
        if name in PUBLIC and (datasets is None or not Path(datasets).is_dir()):
            raise FileNotFoundError(f"{name}: no datasets folder (pass it, or set SONETTO_DATASETS)")
        systems = run_groups(LOADERS[name](None if datasets is None else Path(datasets), options), store)
        mech = systems["mechanical"]
        out[name] = {"ours": mech["recall"], "bigram": systems["bigram"]["recall"],
                     "jieba": systems["baseline"]["recall"], "queries": mech["queries"], "ours_empty": mech["empty"],
                     "negatives_empty": mech["negatives_empty"], "systems": systems}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.recall_public", description=__doc__.split("\n\n")[0])
    parser.add_argument("--datasets", type=Path, default=os.environ.get("SONETTO_DATASETS"))
    parser.add_argument("--sets", default="memdaily,madial,locomo")
    parser.add_argument("--memdaily-per-file", type=int, default=40)
    parser.add_argument("--pad", type=int, default=100)
    parser.add_argument("--store", choices=["sqlite", "yaml"], default="sqlite")
    parser.add_argument("--keep-order", action="store_true",
                        help="baselines see each bank in the dataset's order (query's own messages first)")
    args = parser.parse_args(argv)
    names = [s.strip() for s in args.sets.split(",") if s.strip()]
    needs_folder = any(name in PUBLIC or name == "dev" for name in names)
    if needs_folder and (args.datasets is None or not Path(args.datasets).is_dir()):
        print("no datasets folder: pass --datasets DIR or set SONETTO_DATASETS", file=sys.stderr)
        return 2
    for name in names:
        if name not in LOADERS:
            print(f"unknown set {name!r} (known: {', '.join(LOADERS)})", file=sys.stderr)
            return 2
        groups = LOADERS[name](None if args.datasets is None else Path(args.datasets), args)
        order = "dataset order" if args.keep_order else "shuffled"
        print_report(f"{name} ({len(groups)} banks, {order})", run_groups(groups, args.store, shuffle=not args.keep_order))
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
