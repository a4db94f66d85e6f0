"""Per-operation cost of the memory stores at growing sizes.

    python -m bench.memory_ops [--sizes 100,1000,10000] [--reps 30]

Prints a Markdown table (median and p95 milliseconds per op) for add / update / hit / show on the
YAML and SQLite stores. Not a test: the numbers go to docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from sonetto_desktop.memory import MemoryItem, SqliteMemoryManager, YamlMemoryManager

STORES = {"yaml": ("memory.yaml", YamlMemoryManager), "sqlite": ("memory.db", SqliteMemoryManager)}


def _populate(mm, size: int) -> list[str]:
    items = {
        f"{i:08x}": MemoryItem(f"第{i}条记忆：小林喜欢第{i % 97}种东西，顺便记一点细节。", f"主题{i % 12}")
        for i in range(size)
    }
    added, _ = mm.import_items(items)
    return added


def _drop_cache(mm) -> None:
    forget = getattr(mm, "_forget", None)
    if forget is not None:
        forget()


def _time(fn, reps: int) -> tuple[float, float]:
    samples = []
    for i in range(reps):
        start = time.perf_counter()
        fn(i)
        samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    p95 = samples[min(len(samples) - 1, int(round(0.95 * (len(samples) - 1))))]
    return statistics.median(samples), p95


def run(sizes: list[int], reps: int) -> list[tuple]:
    rows = []
    for name, (filename, cls) in STORES.items():
        for size in sizes:
            with tempfile.TemporaryDirectory() as folder:
                mm = cls(Path(folder) / filename)
                ids = _populate(mm, size)
                n = reps if not (name == "yaml" and size >= 10000) else max(5, reps // 3)
                results = {
                    "add": _time(lambda i: mm.add(f"新记忆{i}", "瞬间"), n),
                    "update": _time(lambda i: mm.update(ids[i], "bench", new_description=f"改写{i}"), n),
                    "hit": _time(lambda i: mm.hit(ids[i]), n),
                    "show": _time(lambda i: mm.show(), n),
                    # as after another process wrote the file: nothing cached, full parse + full dump
                    "update-cold": _time(lambda i: (_drop_cache(mm), mm.update(ids[i], "bench", new_description=f"冷{i}")), n),
                }
                mm.close()
            for op, (med, p95) in results.items():
                rows.append((name, size, op, med, p95))
                print(f"{name:6} {size:>6} {op:6} median {med:8.2f} ms  p95 {p95:8.2f} ms", flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="100,1000,10000")
    parser.add_argument("--reps", type=int, default=30)
    args = parser.parse_args()
    rows = run([int(s) for s in args.sizes.split(",")], args.reps)
    print("\n| store | items | op | median ms | p95 ms |\n|---|---:|---|---:|---:|")
    for name, size, op, med, p95 in rows:
        print(f"| {name} | {size} | {op} | {med:.2f} | {p95:.2f} |")


if __name__ == "__main__":
    main()
