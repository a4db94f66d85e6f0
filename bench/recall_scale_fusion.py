"""``bench.recall_scale_e5 fusion``: reach of each ranking by budget, and fusions compared against both inputs.

Reads what ``collect`` saved. Rows: words only (the app without embeddings), vectors only, today's
fusion (``Shortlist.ranking``), and the candidate fusions of ``recall_scale_e5`` with parameters
chosen on the project's own sets (TRAIN: blind, heldout, example; the calibration is counted there
too). The summary gives, per model and per group of sets, the mean reach over both sizes and every
budget, and the worst shortfall against the better of words only and vectors only at the same
budget (for wordllama, against words only: what the weak model costs), with where it happens.
"""

from __future__ import annotations

import sys
from typing import Any, Callable

from bench.recall_scale_e5 import (BUDGETS, HELD_OUT, TRAIN, QueryData, Ranker, agreement, by_set, fit_calibration,
                                   load, r_app, r_calib, r_dense, r_gate, r_lex, r_router, r_rrf, r_share, r_words_first,
                                   reach, table)


def candidates(train: list[QueryData], models: list[str]) -> dict[str, Callable[[str], Ranker]]:
    cal = {m: fit_calibration(train, m) for m in models}
    ref = models[0]
    agree = {m: agreement(train, m) for m in models}
    return {
        "today (best rank, RRF ties)": r_app,
        "share 0.8 to words": lambda m: r_share(m, 0.8),
        "weighted RRF, vectors 0.25": lambda m: r_rrf(m, 0.25),
        "gate 0.8 / 0.8": lambda m: r_gate(m, 0.8, 0.8),
        "calibrated (own curve) x0.1": lambda m: r_calib(m, cal[m].scaled(0.1)),
        f"calibrated ({ref} curve x agreement) x0.2": lambda m: r_calib(m, cal[ref].scaled(0.2 * agree[m] / agree[ref])),
        "words first (score >= 0.3), then 0.5 / 0.5": lambda m: r_words_first(m, 0.3, 0.5),
        "words first (score >= 0.5), then 0.5 / 0.5": lambda m: r_words_first(m, 0.5, 0.5),
        "words first (score >= 0.3, at most half), then 0.5 / 0.5": lambda m: r_words_first(m, 0.3, 0.5, 0.5),
        "router: long message → today, short → words first": r_router,
        "router, and a model below the agreement bar left out": lambda m: (
            r_lex if agree[m] < AGREEMENT_MIN else r_router(m)),
    }


def summary(data: dict[int, dict[str, list[QueryData]]], models: list[str], make: Callable[[str], Ranker],
            single: dict[tuple, float]) -> list[str]:
    cells = []
    for m in models:
        for part in (TRAIN, HELD_OUT):
            worst, where, total, n = 0.0, "", 0.0, 0
            for size, groups in data.items():
                for name in part:
                    qs = groups.get(name)
                    if not qs:
                        continue
                    ranker = make(m)
                    for b in BUDGETS:
                        r = reach(qs, b, ranker)
                        best = single[(size, name, "lex", b)]
                        if m == models[0]:
                            best = max(best, single[(size, name, m, b)])
                        if best - r > worst:
                            worst, where = best - r, f"{name} {size // 1000}k @{b // 1000}k"
                        total += r
                        n += 1
            cells.append(f"{total / n:.3f} / {worst:.3f} {where}")
    return cells


def report(sizes: list[int], models: list[str], out: Any = None) -> int:
    out = out or sys.stdout
    data = {size: by_set(load(size, models)) for size in sizes}
    for size, groups in data.items():
        rankers: dict[str, Ranker] = {"words only": r_lex}
        for model in models:
            rankers[f"{model} only"] = r_dense(model)
            rankers[f"today: words + {model}"] = r_app(model)
        table(f"{size:,} memories: reach by budget (estimated tokens)", groups, rankers, out=out)
    single: dict[tuple, float] = {}
    for size, groups in data.items():
        for name, qs in groups.items():
            for b in BUDGETS:
                single[(size, name, "lex", b)] = reach(qs, b, r_lex)
                for m in models:
                    single[(size, name, m, b)] = reach(qs, b, r_dense(m))
    train = [q for groups in data.values() for n in TRAIN for q in groups.get(n, [])]
    cands = candidates(train, models)
    strong, weak = models[0], models[-1]
    print(f"\n### Fusions: mean reach / worst shortfall (where), both sizes, budgets {BUDGETS[0] // 1000}k–"
          f"{BUDGETS[-1] // 1000}k\n", file=out)
    print(f"| fusion | {strong}, own sets | {strong}, held out | {weak}, own sets (vs words) | {weak}, held out (vs words) |",
          file=out)
    print("|---|---|---|---|---|", file=out)
    print("| words only | " + " | ".join(summary(data, models, lambda m: r_lex, single)) + " |", file=out, flush=True)
    for name, make in cands.items():
        print(f"| {name} | " + " | ".join(summary(data, models, make, single)) + " |", file=out, flush=True)
    best = {k: cands[k] for k in ("words first (score >= 0.3, at most half), then 0.5 / 0.5",
                                  "router, and a model below the agreement bar left out")}
    for size, groups in data.items():
        for model in models:
            rankers = {"words only": r_lex, f"{model} only": r_dense(model), "today": r_app(model)}
            rankers.update({name: make(model) for name, make in best.items()})
            table(f"{size:,} memories, {model}: every set (held out: dev, madial, memdaily)", groups, rankers, out=out)
    curve(sizes, models, out)
    return share_table(sizes, models, out)


def share_table(sizes: list[int], models: list[str], out: Any = None) -> int:
    """Reach by the stable block's share of the budget (0.25 is the app's), words only and today's e5 fusion."""
    from bench.recall_scale_e5 import SHARE_BUDGETS, SHARES

    out = out or sys.stdout
    print("\n### Reach by stable share (every set pooled, micro)\n", file=out)
    print("| memories | ranking | budget | " + " | ".join(f"share {s}" for s in (0.0, 0.25, *SHARES[1:])) + " |", file=out)
    print("|---:|---|---:|" + "---:|" * (len(SHARES) + 1), file=out)
    for size in sizes:
        qs = load(size, models)
        for rname, ranker in (("words only", r_lex), (f"today + {models[0]}", r_app(models[0]))):
            for b in SHARE_BUDGETS:
                cells = [f"{reach(qs, b, ranker, s):.3f}" for s in (0.0, 0.25, *SHARES[1:])]
                print(f"| {size:,} | {rname} | {b:,} | " + " | ".join(cells) + " |", file=out, flush=True)
    return 0


def curve(sizes: list[int], models: list[str], out: Any = None) -> None:
    """Reach against budget, every set pooled (micro), with the request's size: what a budget buys."""
    from bench.recall_scale_e5 import agreement

    out = out or sys.stdout
    print("\n### Reach against budget, every set pooled (micro); held-out sets only in brackets\n", file=out)
    print("| memories | ranking | " + " | ".join(f"{b // 1000}k" for b in BUDGETS) + " |", file=out)
    print("|---:|---|" + "---:|" * len(BUDGETS), file=out)
    for size in sizes:
        qs = load(size, models)
        held = [q for q in qs if q.set in HELD_OUT]
        train = [q for q in qs if q.set in TRAIN]
        rankers = {"words only": r_lex}
        for m in models:
            weak = agreement(train, m) < AGREEMENT_MIN
            rankers[f"today + {m}"] = r_app(m)
            rankers[f"words first + {m}" + (" (agreement below the bar: words only)" if weak else "")] = (
                r_lex if weak else r_words_first(m, 0.3, 0.5, 0.5))
            rankers[f"router + {m}" + (" (agreement below the bar: words only)" if weak else "")] = (
                r_lex if weak else r_router(m))
        for name, ranker in rankers.items():
            cells = [f"{reach(qs, b, ranker):.3f} ({reach(held, b, ranker):.3f})" for b in BUDGETS]
            print(f"| {size:,} | {name} | " + " | ".join(cells) + " |", file=out, flush=True)


#: Below this share of "the words' surest memory is in the vectors' top 10", a model is treated as
#: weak (its ranking is left out): e5 0.73, wordllama 0.37 on our own sets (``agreement``).
AGREEMENT_MIN = 0.5
