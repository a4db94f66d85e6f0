"""Building the offline recall index from nothing, against plain jieba + BM25Okapi (issue 29 item 2).

    python -m bench.recall_build [--sizes 10000,50000,100000] [--reps 3] [--store sqlite|yaml]
                                 [--json OUT]

For each size a store in a temporary folder is filled with ``bench.recall.synthetic_bank``
memories (jieba-frequency filler, ~54 postings per memory). Every measurement runs in a fresh
Python process, the rounds interleaved (anchor, ours, anchor, ours, ...), median reported:

- **anchor**: ``jieba.lcut_for_search`` (jieba's defaults: its own dictionary, HMM on) over every
  description, then ``rank_bm25.BM25Okapi`` on the token lists. The descriptions are read from
  the store and jieba's dictionary is loaded before the clock starts (reading is not counted).
- **ours**: ``MechanicalRetriever(mm, index_path=False).warm_up()``, i.e. reading the store
  (counted: the anchor is given its texts),
  tokenizing, hashing and installing every memory, compacting; jieba's dictionary and the
  lexicon with its tables (~4.5 MB, the same at any size) are loaded before the clock starts and
  before ``tracemalloc`` (the store's own open is not counted either).
Times are wall clock and CPU seconds (CPU is the fair figure on a shared machine).
- **memory** (ours, one more process under ``tracemalloc``): the resident index after the build
  (traced bytes still allocated, after a collection) and the build's traced peak; "transient" is
  peak minus resident, the issue's target being transient ≤ 2 × resident.

Printed per size: anchor and our build time (median; wall clock and CPU seconds of the process,
the fair figure on a shared machine), the ratios (target ≤ 1.5), resident, peak and transient MB.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.recall import fill_store, open_store, synthetic_bank


def _child(mode: str, folder: Path, store: str) -> dict[str, Any]:
    mm = open_store(store, folder)
    mm.count()  # the store's own load is not recall's cost
    out: dict[str, Any] = {"memories": mm.count()}
    if mode == "anchor":
        import logging

        import jieba
        from rank_bm25 import BM25Okapi

        jieba.setLogLevel(logging.WARNING)
        jieba.initialize()
        texts = [item.description for item in mm.all_items().values()]
        gc.collect()
        start, cpu = time.perf_counter(), time.process_time()
        corpus = [jieba.lcut_for_search(text) for text in texts]
        BM25Okapi(corpus)
        out["s"], out["cpu_s"] = time.perf_counter() - start, time.process_time() - cpu
        mm.close()
        return out
    from sonetto_desktop.memory.retrieval.lexicon import warm_up as lexicon_warm_up
    from sonetto_desktop.memory.retrieval.mechanical import MechanicalRetriever
    from sonetto_desktop.memory.retrieval.tokenize import warm_up

    warm_up()
    lexicon_warm_up()  # the lexicon and its English / traditional tables: fixed, like jieba's dictionary
    gc.collect()
    if mode == "memory":
        import tracemalloc

        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        retriever = MechanicalRetriever(mm, index_path=False)
        retriever.warm_up()
        gc.collect()
        current, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        out.update(resident=current - base, peak=peak - base)
    else:
        start, cpu = time.perf_counter(), time.process_time()
        retriever = MechanicalRetriever(mm, index_path=False)
        retriever.warm_up()
        out["s"], out["cpu_s"] = time.perf_counter() - start, time.process_time() - cpu
        out["stats"] = retriever.stats()
    retriever.close()
    mm.close()
    return out


def _spawn(mode: str, folder: Path, store: str) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "bench.recall_build", "--child", mode, "--folder", str(folder), "--store", store]
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run(cmd, cwd=root, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{mode} child failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def run_size(n: int, store: str, reps: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="sonetto-recall-build-") as tmp:
        folder = Path(tmp)
        mm = open_store(store, folder)
        try:
            fill_store(mm, synthetic_bank(n))
        finally:
            mm.close()
        anchor, ours = [], []
        for _ in range(reps):
            anchor.append(_spawn("anchor", folder, store))
            ours.append(_spawn("build", folder, store))
        memory = _spawn("memory", folder, store)
    row = {"size": n, **{f"{who}_{key}": statistics.median(run[key] for run in runs)
                         for who, runs in (("anchor", anchor), ("ours", ours)) for key in ("s", "cpu_s")},
           "anchor_runs": anchor, "ours_runs": ours, **memory}
    row["ratio"] = row["ours_s"] / row["anchor_s"]
    row["cpu_ratio"] = row["ours_cpu_s"] / row["anchor_cpu_s"]
    row["transient"] = row["peak"] - row["resident"]
    return row


def print_row(row: dict[str, Any], out: Any = None) -> None:
    mb = 2**20
    print(f"{row['size']:>7} | anchor {row['anchor_s']:6.2f} s ({row['anchor_cpu_s']:6.2f} s CPU) | "
          f"ours {row['ours_s']:6.2f} s ({row['ours_cpu_s']:6.2f} s CPU) | "
          f"x{row['ratio']:4.2f} (CPU x{row['cpu_ratio']:4.2f}) | resident {row['resident'] / mb:6.1f} MB | peak {row['peak'] / mb:6.1f} MB | "
          f"transient {row['transient'] / mb:6.1f} MB = {row['transient'] / max(row['resident'], 1):4.2f} x resident",
          file=out or sys.stdout, flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.recall_build", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,50000,100000")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--store", choices=["sqlite", "yaml"], default="sqlite")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--child", choices=["anchor", "build", "memory"], default=None, help=argparse.SUPPRESS)
    parser.add_argument("--folder", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(_child(args.child, args.folder, args.store)))
        return 0
    rows = []
    for n in [int(s) for s in args.sizes.split(",") if s.strip()]:
        rows.append(run_size(n, args.store, args.reps))
        print_row(rows[-1])
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
