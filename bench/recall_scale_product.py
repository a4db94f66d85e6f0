"""``python -m bench.recall_scale_product``: the app's shortlist (``Shortlist.ranking`` itself) on
the rankings ``bench.recall_scale_e5 collect`` saved, against words only, vectors only and the
fusion before issue 36 (best rank, RRF ties).

The product's code runs unchanged: a stand-in offline retriever hands it each question's saved word
ranking (``scored_query`` / ``candidates`` as the app asked them at that budget) and a stand-in
dense ranker the saved nearest memories. The models' agreement is counted first on the project's
own sets (as the app counts it on the person's messages), then frozen for the evaluation.

Reports (markdown on stdout): per set, size and budget, reach of words only, vectors only, the
fusion before and the shortlist now; then, per model and group of sets, the mean and the worst
shortfall against the better of words only and vectors only (for a weak model: against words
only, what it costs); then reach against budget, every set pooled.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from bench.recall_scale_e5 import (BUDGETS, HELD_OUT, TRAIN, QueryData, Ranker, by_set, cands, load, r_app,
                                   r_dense, r_lex, reach, words)
from sonetto_desktop.memory.retrieval.agreement import ModelAgreement
from sonetto_desktop.memory.retrieval.shortlist import Shortlist


class _Words:
    """The offline retriever as ``Shortlist`` reads it, answering from one question's saved rankings."""

    def __init__(self, qd: QueryData) -> None:
        self.qd = qd

    def candidates(self, prompt: str, k: int = 60) -> list[dict]:
        return [{"id": mid} for mid in cands(self.qd, k)]

    def scored_query(self, prompt: str, k: int | None = None) -> tuple[bool, list[tuple[dict, float]]]:
        return self.qd.broad, [({"id": mid}, score) for mid, score in words(self.qd, k or self.qd.total)]


class _Vectors:
    """A ``DenseRanker`` over one question's saved nearest memories."""

    def __init__(self, qd: QueryData, model: str) -> None:
        self.qd, self.model_key = qd, model

    def embed_query(self, prompt: str) -> Any:
        return prompt

    def nearest(self, vector: Any, k: int) -> list[str]:
        return [mid for mid, _ in self.qd.dense[self.model_key][:k]]


class _Frozen(ModelAgreement):
    """Counts taken before, not changed by the evaluation."""

    def record(self, key: str, agreed: bool) -> None:
        return None


def counted(train: list[QueryData], models: list[str]) -> ModelAgreement:
    """The agreement the app would have counted on these messages (each counted once)."""
    agreement = ModelAgreement()
    for model in models:
        for qd in train:
            Shortlist(_Words(qd), _Vectors(qd, model), agreement).ranking(qd.q, 60)
    frozen = _Frozen()
    frozen._counts = {k: list(v) for k, v in agreement._counts.items()}
    return frozen


def r_product(model: str, agreement: ModelAgreement) -> Ranker:
    def rank(qd: QueryData, k: int) -> list[str]:
        return Shortlist(_Words(qd), _Vectors(qd, model), agreement).ranking(qd.q, k)
    return rank


def report(sizes: list[int], models: list[str], out: Any = None) -> int:
    out = out or sys.stdout
    data = {size: by_set(load(size, models)) for size in sizes}
    train = [q for groups in data.values() for n in TRAIN for q in groups.get(n, [])]
    agreement = counted(train, models)
    print("\n### Agreement counted on the project's own sets (words' surest memory in the model's nearest 10)\n",
          file=out)
    for m in models:
        print(f"- {m}: {agreement.rate(m):.2f} over {agreement.counted(m)} messages "
              f"({'takes part' if agreement.trusted(m) else 'left out'})", file=out)
    single: dict[tuple, float] = {}
    for size, groups in data.items():
        for name, qs in groups.items():
            for b in BUDGETS:
                single[(size, name, "lex", b)] = reach(qs, b, r_lex)
                for m in models:
                    single[(size, name, m, b)] = reach(qs, b, r_dense(m))
    for size, groups in data.items():
        print(f"\n### {size:,} memories: reach by budget (estimated tokens)\n", file=out)
        print("| set | ranking | " + " | ".join(f"{b // 1000}k" for b in BUDGETS) + " |", file=out)
        print("|---|---|" + "---:|" * len(BUDGETS), file=out)
        for name, qs in groups.items():
            gold = sum(len(q.gold) for q in qs)
            rows: dict[str, Ranker] = {"words only": r_lex}
            for m in models:
                rows[f"{m} only"] = r_dense(m)
                rows[f"before: words + {m}"] = r_app(m)
                rows[f"now: words + {m}"] = r_product(m, agreement)
            for rname, ranker in rows.items():
                cells = [f"{reach(qs, b, ranker):.3f}" for b in BUDGETS]
                print(f"| {name} ({gold} gold) | {rname} | " + " | ".join(cells) + " |", file=out, flush=True)
    print(f"\n### Mean reach / worst shortfall against the better single ranking (where), both sizes, "
          f"budgets {BUDGETS[0] // 1000}k–{BUDGETS[-1] // 1000}k\n", file=out)
    print("| model | fusion | own sets | held out |", file=out)
    print("|---|---|---|---|", file=out)
    for m in models:
        for fname, ranker in (("before", r_app(m)), ("now", r_product(m, agreement))):
            cells = []
            for part in (TRAIN, HELD_OUT):
                worst, where, total, n = 0.0, "", 0.0, 0
                for size, groups in data.items():
                    for name in part:
                        qs = groups.get(name)
                        if not qs:
                            continue
                        for b in BUDGETS:
                            r = reach(qs, b, ranker)
                            best = single[(size, name, "lex", b)]
                            if agreement.trusted(m):
                                best = max(best, single[(size, name, m, b)])
                            if best - r > worst + 1e-9:
                                worst, where = best - r, f"{name} {size // 1000}k @{b // 1000}k"
                            total += r
                            n += 1
                cells.append(f"{total / n:.3f} / {worst:.3f} {where}")
            print(f"| {m} | {fname} | " + " | ".join(cells) + " |", file=out, flush=True)
    print("\n### Reach against budget, every set pooled (micro); held-out sets only in brackets\n", file=out)
    print("| memories | ranking | " + " | ".join(f"{b // 1000}k" for b in BUDGETS) + " |", file=out)
    print("|---:|---|" + "---:|" * len(BUDGETS), file=out)
    for size, groups in data.items():
        qs = [q for g in groups.values() for q in g]
        held = [q for q in qs if q.set in HELD_OUT]
        rows = {"words only": r_lex}
        for m in models:
            rows[f"before: words + {m}"] = r_app(m)
            rows[f"now: words + {m}"] = r_product(m, agreement)
        for rname, ranker in rows.items():
            cells = [f"{reach(qs, b, ranker):.3f} ({reach(held, b, ranker):.3f})" for b in BUDGETS]
            print(f"| {size:,} | {rname} | " + " | ".join(cells) + " |", file=out, flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.recall_scale_product", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--models", default="e5,wordllama")
    args = parser.parse_args(argv)
    return report([int(s) for s in args.sizes.split(",")], [m.strip() for m in args.models.split(",")])


if __name__ == "__main__":
    raise SystemExit(main())
