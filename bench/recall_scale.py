"""Offline recall at scale: index memory, build time, ready-after-start time, query latency.

    python -m bench.recall_scale [--sizes 100,1000,10000,50000,100000] [--store sqlite|yaml]
                                 [--dataset bench/datasets/recall-example.yaml] [--json OUT]

For each size a store in a temporary folder is filled with the dataset's bank padded with
synthetic memories (``bench.recall.synthetic_bank``). Each measurement runs in a fresh Python
process, as an app start would:

- **build**: no saved index; time from constructing the retriever to ``warm_up()`` returning
  (jieba's dictionary is loaded before the clock starts). Then query latency: the dataset's
  queries plus date and broad ones, with a store write (an add or a hit) before every third
  query, so "after a change" costs are in the figures (p50 / p95 over all queries, and p95 of
  the date and broad queries alone). Closing the retriever saves its index beside the store.
- **memory**: the same build under ``tracemalloc`` (jieba and the lexicon loaded first, so only
  the index is counted): bytes still allocated after the build, per memory; and the RSS growth
  of the process over the build (it includes the build's transient peak, which Python keeps).
- **restart**: a new process opens the store and times constructing the retriever plus the
  first ``retrieve`` (nothing warmed up before the clock starts): "recall ready after start";
  and the RSS growth over it (the steady state of an app that loads its saved index).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from bench.recall import fill_store, load_dataset, open_store, p95, synthetic_bank

NOW = datetime(2026, 12, 2, 12, 0)
EXTRA_QUERIES = {
    "date": ["明天有什么安排", "这周五之前要交什么", "8月份我干了什么", "下周有什么事"],
    "broad": ["最近过得怎么样", "这阵子在忙什么", "最近工作忙吗"],
}


def _rss_bytes() -> int:
    try:
        with open("/proc/self/statm", encoding="ascii") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return 0


def _child(mode: str, folder: Path, store: str, dataset: Path) -> dict[str, Any]:
    from sonetto_desktop.memory.retrieval.lexicon import default_lexicon
    from sonetto_desktop.memory.retrieval.mechanical import MechanicalRetriever
    from sonetto_desktop.memory.retrieval.tokenize import warm_up

    mm = open_store(store, folder)
    mm.count()  # the store's own load is not recall's cost
    out: dict[str, Any] = {"memories": mm.count()}
    if mode == "restart":
        gc.collect()
        rss0 = _rss_bytes()
        start = time.perf_counter()
        retriever = MechanicalRetriever(mm, now=lambda: NOW)
        retriever.retrieve("最近在忙什么项目")
        out["ready_s"] = time.perf_counter() - start
        gc.collect()
        out["rss_ready"] = _rss_bytes() - rss0
        retriever.close()
        mm.close()
        return out
    warm_up()
    default_lexicon()  # shared by every retriever, loaded once: not the index's cost
    gc.collect()
    if mode == "memory":
        import tracemalloc

        rss0 = _rss_bytes()
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        retriever = MechanicalRetriever(mm, now=lambda: NOW)
        retriever.warm_up()
        gc.collect()
        out["index_bytes"] = tracemalloc.get_traced_memory()[0] - base
        tracemalloc.stop()
        out["rss_delta"] = _rss_bytes() - rss0
        retriever.close()
        mm.close()
        return out
    start = time.perf_counter()
    retriever = MechanicalRetriever(mm, now=lambda: NOW)
    retriever.warm_up()
    out["build_s"] = time.perf_counter() - start
    ds = load_dataset(dataset, NOW)
    tagged = [(c.q, "dataset") for c in ds.queries] + [(q, k) for k, qs in EXTRA_QUERIES.items() for q in qs]
    times: dict[str, list[float]] = {}
    ids = list(mm.all_items())[:50]
    for round_ in range(5):
        for i, (q, kind) in enumerate(tagged):
            if i % 3 == 0:
                if i % 2:
                    mm.hit(ids[(i + round_) % len(ids)])
                else:
                    mm.add(f"第{round_}轮第{i}条：今天学了一点新的{q[:4]}。", "瞬间")
            t = time.perf_counter()
            retriever.retrieve(q)
            times.setdefault(kind, []).append((time.perf_counter() - t) * 1000)
    every = [v for vs in times.values() for v in vs]
    out.update(p50_ms=statistics.median(every), p95_ms=p95(every),
               date_p95_ms=p95(times["date"]), broad_p95_ms=p95(times["broad"]))
    retriever.close()
    mm.close()
    return out


def _spawn(mode: str, folder: Path, store: str, dataset: Path) -> dict[str, Any]:
    cmd = [sys.executable, "-m", "bench.recall_scale", "--child", mode, "--folder", str(folder),
           "--store", store, "--dataset", str(dataset)]
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run(cmd, cwd=root, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{mode} child failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def run_size(n: int, store: str, dataset: Path) -> dict[str, Any]:
    ds = load_dataset(dataset, NOW)
    with tempfile.TemporaryDirectory(prefix="sonetto-recall-scale-") as tmp:
        folder = Path(tmp)
        mm = open_store(store, folder)
        try:
            fill_store(mm, ds.memories + synthetic_bank(max(n - len(ds.memories), 0)))
        finally:
            mm.close()
        row = {"size": n}
        row.update(_spawn("memory", folder, store, dataset))
        for extra in folder.glob("*.recall-index*"):
            extra.unlink()  # the build below starts from nothing too
        for mode in ("build", "restart"):
            res = _spawn(mode, folder, store, dataset)
            res.pop("memories")  # the build's latency loop adds a few
            row.update(res)
    row["bytes_per_memory"] = row["index_bytes"] / max(row["memories"], 1)
    return row


def print_row(row: dict[str, Any], out: Any = None) -> None:
    print(f"{row['size']:>7} | {row['bytes_per_memory']:>8.0f} B | RSS +{row['rss_delta'] / 2**20:6.1f} MB | "
          f"RSS at ready +{row.get('rss_ready', 0) / 2**20:6.1f} MB | "
          f"build {row['build_s']:6.2f} s | ready {row['ready_s']:5.2f} s | p50 {row['p50_ms']:6.2f} ms | "
          f"p95 {row['p95_ms']:6.2f} ms | date p95 {row['date_p95_ms']:6.2f} | broad p95 {row['broad_p95_ms']:6.2f}",
          file=out or sys.stdout, flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.recall_scale", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="100,1000,10000,50000,100000")
    parser.add_argument("--store", choices=["sqlite", "yaml"], default="sqlite")
    parser.add_argument("--dataset", type=Path,
                        default=Path(__file__).resolve().parent / "datasets" / "recall-example.yaml")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--child", choices=["build", "memory", "restart"], default=None, help=argparse.SUPPRESS)
    parser.add_argument("--folder", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(_child(args.child, args.folder, args.store, args.dataset)))
        return 0
    rows = []
    for n in [int(s) for s in args.sizes.split(",") if s.strip()]:
        rows.append(run_size(n, args.store, args.dataset))
        print_row(rows[-1])
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
