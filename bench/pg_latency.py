"""Write and recall latency of the PostgreSQL store against SQLite, in the same run, and how long a
write on one device takes to reach another.

    python -m bench.pg_latency [--size 1000] [--reps 50] [--url postgresql://...]

Without ``--url`` a throwaway server is started (tests/pg_server.py, fsync on, like SQLite's
``synchronous=FULL``) on this machine: the numbers are for a server on the same computer (a LAN or
a hosted server adds its round-trip time to each of the ~8 round trips of a write). Prints a
Markdown table (median / p95 ms). Not a test: the numbers go to docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from sonetto_desktop.memory import MemoryItem, SqliteMemoryManager
from sonetto_desktop.memory.stores.postgres.store import PostgresMemoryManager
from sonetto_desktop.memory.retrieval.mechanical import MechanicalRetriever

ROOT = Path(__file__).resolve().parent.parent


def _stats(samples: list[float]) -> tuple[float, float]:
    samples = sorted(samples)
    return statistics.median(samples), samples[min(len(samples) - 1, int(round(0.95 * (len(samples) - 1))))]


def _time(fn, reps: int) -> tuple[float, float]:
    samples = []
    for i in range(reps):
        start = time.perf_counter()
        fn(i)
        samples.append((time.perf_counter() - start) * 1000)
    return _stats(samples)


def _populate(mm, size: int) -> list[str]:
    items = {f"{i:08x}": MemoryItem(f"第{i}条记忆：小林喜欢第{i % 97}种东西，顺便记一点细节。", f"主题{i % 12}")
             for i in range(size)}
    return mm.import_items(items)[0]


def measure(mm, size: int, reps: int) -> dict[str, tuple[float, float]]:
    ids = _populate(mm, size)
    results = {
        "add": _time(lambda i: mm.add(f"新记忆{i}", "瞬间"), reps),
        "update": _time(lambda i: mm.update(ids[i], "bench", new_description=f"改写{i}"), reps),
        "hit": _time(lambda i: mm.hit(ids[i]), reps),
        "get": _time(lambda i: mm.get(ids[i]), reps),
        "all_items": _time(lambda i: mm.all_items(), max(5, reps // 5)),
    }

    def index_build(_: int) -> None:
        retriever = MechanicalRetriever(mm)
        retriever.retrieve("小林喜欢什么")
        retriever.close()

    results["recall, index built"] = _time(index_build, max(3, reps // 10))
    warm = MechanicalRetriever(mm)
    warm.retrieve("预热")
    results["recall, warm index"] = _time(lambda i: warm.retrieve(f"小林喜欢第{i}种东西吗"), reps)
    warm.close()
    return results


def propagation(url: str, schema: str, reps: int) -> tuple[float, float]:
    """ms from a write starting on one device to its change on the other device's channel."""
    desk = PostgresMemoryManager(url, schema=schema, device="desk")
    laptop = PostgresMemoryManager(url, schema=schema, device="laptop")
    arrived: dict[str, float] = {}
    event = threading.Event()

    def on_change(change) -> None:
        if not change.local and change.kind == "add":
            arrived[change.ids[0]] = time.perf_counter()
            event.set()

    laptop.subscribe(on_change)
    laptop.poll_external()
    laptop.wait_listening(10)
    samples = []
    for i in range(reps):
        event.clear()
        before = time.perf_counter()
        memory_id = desk.add(f"跨设备{i}", "瞬间")
        event.wait(5)
        if memory_id in arrived:
            samples.append((arrived[memory_id] - before) * 1000)
    desk.close()
    laptop.close()
    return _stats(samples)


@contextmanager
def bench_server(url: str = "") -> Iterator[str]:
    """``url``, or for the block a throwaway server on this machine (tests/pg_server.py, fsync on)."""
    if url:
        yield url
        return
    sys.path.insert(0, str(ROOT / "tests"))
    from pg_server import PgServer

    server = PgServer.start(Path(tempfile.mkdtemp(prefix="sonetto-bench-pg-")), fsync=True)
    try:
        yield server.url
    finally:
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=1000)
    parser.add_argument("--reps", type=int, default=50)
    parser.add_argument("--url", default="")
    args = parser.parse_args()
    with bench_server(args.url) as url:
        rows: dict[str, dict] = {}
        with tempfile.TemporaryDirectory() as folder:
            sqlite = SqliteMemoryManager(Path(folder) / "memory.db")
            rows["sqlite"] = measure(sqlite, args.size, args.reps)
            sqlite.close()
        pg = PostgresMemoryManager(url, schema="bench_latency", device="bench")
        try:
            rows["postgres"] = measure(pg, args.size, args.reps)
        finally:
            pg.close()
        spread = propagation(url, "bench_propagation", args.reps)
    print(f"\n{args.size} memories, {args.reps} repetitions (median / p95 ms)\n")
    print("| op | SQLite | PostgreSQL |\n|---|---:|---:|")
    for op in rows["sqlite"]:
        s, p = rows["sqlite"][op], rows["postgres"][op]
        print(f"| {op} | {s[0]:.2f} / {s[1]:.2f} | {p[0]:.2f} / {p[1]:.2f} |")
    print(f"| add on device A (start) -> change on device B | — | {spread[0]:.2f} / {spread[1]:.2f} |")


if __name__ == "__main__":
    main()
