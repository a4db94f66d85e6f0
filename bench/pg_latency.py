"""Write and recall latency of the PostgreSQL store against SQLite, in the same run, and how long a
write on one device takes to reach another.

    python -m bench.pg_latency [--size 1000] [--reps 50] [--url postgresql://...] [--writes-only]

Without ``--url`` a throwaway server is started (tests/pg_server.py, fsync on, like SQLite's
``synchronous=FULL``) on this machine: the numbers are for a server on the same computer (a LAN or
a hosted server adds its round-trip time to each of the ~8 round trips of a write). Prints a
Markdown table (median / p95 ms), with the anchor a store's write is held against: a raw
one-statement transaction (INSERT + COMMIT on a table of its own, same server, same run).
``--writes-only`` leaves out the recall rows (an index build at 100,000 takes a while). ``--turns N``
adds a row the way the app writes: N turns of 5 adds, 2.5 s apart, on a store with its local copy
(the copy is refreshed between turns, as the writer's pauses let it).
Not a test: the numbers go to docs/benchmarks.md.
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


def raw_transaction(url: str, reps: int = 0, *, turns: int = 0) -> tuple[float, float]:
    """The anchor: one INSERT in a transaction of its own, committed (fsync), over one connection;
    ``reps`` back to back, or (``turns``) as the turns make their adds, 5 back to back 2.5 s apart, so
    that both pay the same wake-up after the pause."""
    import psycopg

    with psycopg.connect(url) as conn:
        conn.execute("CREATE TABLE IF NOT EXISTS bench_raw (id text PRIMARY KEY, description text)")
        conn.commit()

        def insert(i: int) -> None:
            conn.execute("INSERT INTO bench_raw VALUES (%s, %s)", (f"raw{i}-{time.monotonic_ns()}", f"新记忆{i}"))
            conn.commit()

        if not turns:
            return _time(insert, reps)
        samples: list[float] = []
        for turn in range(turns):
            for i in range(5):
                start = time.perf_counter()
                insert(turn * 5 + i)
                samples.append((time.perf_counter() - start) * 1000)
            time.sleep(2.5)
        return _stats(samples)


def in_turns(url: str, size: int, turns: int) -> tuple[float, float]:
    """Adds made in turns of 5, 2.5 s apart (the copy's debounce is 2 s), on a store with a local copy."""
    with tempfile.TemporaryDirectory() as folder:
        mm = PostgresMemoryManager(url, schema="bench_turns", device="bench", cache_path=Path(folder) / "copy.db")
        try:
            _populate(mm, size)
            time.sleep(5)
            samples: list[float] = []
            for turn in range(turns):
                for i in range(5):
                    start = time.perf_counter()
                    mm.add(f"第{turn}轮的新记忆{i}", "瞬间")
                    samples.append((time.perf_counter() - start) * 1000)
                time.sleep(2.5)
            return _stats(samples)
        finally:
            mm.close()


def measure(mm, size: int, reps: int, recall: bool = True) -> dict[str, tuple[float, float]]:
    ids = _populate(mm, size)
    results = {
        "add": _time(lambda i: mm.add(f"新记忆{i}", "瞬间"), reps),
        "update": _time(lambda i: mm.update(ids[i], "bench", new_description=f"改写{i}"), reps),
        "hit": _time(lambda i: mm.hit(ids[i]), reps),
        "get": _time(lambda i: mm.get(ids[i]), reps),
        "all_items": _time(lambda i: mm.all_items(), max(5, reps // 5)),
    }
    if not recall:
        return results

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
    parser.add_argument("--writes-only", action="store_true", help="leave out the recall rows")
    parser.add_argument("--turns", type=int, default=0, help="also add in N turns on a store with its local copy")
    args = parser.parse_args()
    recall = not args.writes_only
    with bench_server(args.url) as url:
        rows: dict[str, dict] = {}
        with tempfile.TemporaryDirectory() as folder:
            sqlite = SqliteMemoryManager(Path(folder) / "memory.db")
            rows["sqlite"] = measure(sqlite, args.size, args.reps, recall)
            sqlite.close()
        pg = PostgresMemoryManager(url, schema="bench_latency", device="bench")
        try:
            rows["postgres"] = measure(pg, args.size, args.reps, recall)
        finally:
            pg.close()
        raw = raw_transaction(url, args.reps)
        turns = in_turns(url, args.size, args.turns) if args.turns else None
        raw_turns = raw_transaction(url, turns=args.turns) if args.turns else None
        spread = propagation(url, "bench_propagation", args.reps)
    print(f"\n{args.size} memories, {args.reps} repetitions (median / p95 ms)\n")
    print("| op | SQLite | PostgreSQL |\n|---|---:|---:|")
    for op in rows["sqlite"]:
        s, p = rows["sqlite"][op], rows["postgres"][op]
        print(f"| {op} | {s[0]:.2f} / {s[1]:.2f} | {p[0]:.2f} / {p[1]:.2f} |")
    print(f"| add on device A (start) -> change on device B | — | {spread[0]:.2f} / {spread[1]:.2f} |")
    print(f"| anchor: raw one-statement transaction | — | {raw[0]:.2f} / {raw[1]:.2f} |")
    if turns is not None:
        print(f"| add in turns of 5, with the local copy ({args.turns} turns) | — | {turns[0]:.2f} / {turns[1]:.2f} |")
        print(f"| anchor in the same turns: raw one-statement transactions | — | {raw_turns[0]:.2f} / {raw_turns[1]:.2f} |")
    add = rows["postgres"]["add"]
    print(f"\nPostgreSQL add against the anchor: median {add[0] / raw[0]:.2f}×, p95 {add[1] / raw[1]:.2f}×")
    if turns is not None:
        print(f"in turns, with the local copy: median {turns[0] / raw[0]:.2f}×, p95 {turns[1] / raw[1]:.2f}× "
              f"(against the raw transactions in the same turns: median {turns[0] / raw_turns[0]:.2f}×, "
              f"p95 {turns[1] / raw_turns[1]:.2f}×)")


if __name__ == "__main__":
    main()
