"""Reach on our own phenomena set (``bench/datasets/recall-phenomena.yaml``), per phenomenon.

    python -m bench.recall_phenomena collect [--sizes 1000,10000] [--models e5]   # needs SONETTO_DATASETS
    python -m bench.recall_phenomena report  [--sizes 1000,10000] [--models e5]

``collect`` mixes the set into 1,000 / 10,000 memories with other people's memories as distractors
(``bench.recall_reach``'s public pool, spread over two years) and keeps, per question, what a budget
fill needs (``bench.recall_scale_e5._collect_set``: the offline rankings, each model's ranking over
the int8 vectors the app stores, the stable block per budget). ``report`` fills each budget as
``MemoryRecall._plan`` does with: words only (the app without embeddings), the model's vectors
only, and today's fusion (``Shortlist.ranking``), and prints reach (gold in the request / gold) per
kind, and for the set's two halves (``split: tune`` / ``heldout``).
"""

from __future__ import annotations

import argparse
import pickle
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.recall_scale_e5 import (BUDGETS, DATASETS, OUT, QueryData, Ranker, default_root,  # noqa: E402
                                   r_app, r_dense, r_lex, reach)

SET = DATASETS / "recall-phenomena.yaml"
KINDS = ("typo", "mixed", "slang", "cantonese", "long", "emoji", "twohop", "paraphrase")


def _path(size: int, models: list[str]) -> Path:
    return OUT / f"phenomena-{size}-{'-'.join(models) or 'words'}.pkl"


def collect(root: Path | None, sizes: list[int], models: list[str]) -> None:
    from bench.embed_models import Embedder
    from bench.recall_reach import public_pool, yaml_set
    from bench.recall_scale_e5 import _collect_set
    from sonetto_desktop.memory.retrieval.tokenize import warm_up

    if root is None:
        raise SystemExit("collect needs the shared datasets folder (--datasets or SONETTO_DATASETS) for distractors")
    warm_up()
    groups = yaml_set(SET, "phenomena")
    split = {c.q: c.split for g in groups for c in g.cases}
    pool = public_pool(root)
    embedders = {m: Embedder(m) for m in models}
    for size in sizes:
        out = _collect_set("phenomena", groups, size, pool, embedders)
        for qd in out:
            qd.extra["split"] = split[qd.q]
        path = _path(size, models)
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as f:
            pickle.dump(out, f, protocol=pickle.HIGHEST_PROTOCOL)
        print(f"wrote {path} ({len(out)} questions)", file=sys.stderr)


def load(size: int, models: list[str]) -> list[QueryData]:
    with _path(size, models).open("rb") as f:
        return pickle.load(f)


def rankers(models: list[str]) -> dict[str, Ranker]:
    out: dict[str, Ranker] = {"words only": r_lex}
    for m in models:
        out[f"{m} only"] = r_dense(m)
        out[f"today: words + {m}"] = r_app(m)
    return out


def report(sizes: list[int], models: list[str], out: Any = None) -> int:
    out = out or sys.stdout
    for size in sizes:
        qs = load(size, models)
        parts: dict[str, list[QueryData]] = {k: [q for q in qs if q.kind == k] for k in KINDS}
        parts["all (tune)"] = [q for q in qs if q.extra.get("split") == "tune"]
        parts["all (heldout)"] = [q for q in qs if q.extra.get("split") == "heldout"]
        parts["all"] = qs
        print(f"\n### Phenomena set mixed into {size:,} memories: reach by budget (estimated tokens)\n", file=out)
        print("| kind | ranking | " + " | ".join(f"{b // 1000}k" for b in BUDGETS) + " |", file=out)
        print("|---|---|" + "---:|" * len(BUDGETS), file=out)
        for name, part in parts.items():
            gold = sum(len(q.gold) for q in part)
            for rname, ranker in rankers(models).items():
                cells = [f"{reach(part, b, ranker):.3f}" for b in BUDGETS]
                print(f"| {name} ({gold} gold) | {rname} | " + " | ".join(cells) + " |", file=out, flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.recall_phenomena", description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["collect", "report"])
    parser.add_argument("--datasets", type=Path, default=default_root())
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--models", default="e5")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    models = [m.strip() for m in args.models.split(",") if m.strip()]
    if args.command == "collect":
        collect(args.datasets, sizes, models)
        return 0
    return report(sizes, models)


if __name__ == "__main__":
    raise SystemExit(main())
