"""Importing many memories into the PostgreSQL store against SQLite, in the same run (issue 29, item 4),
and migrating a local store onto the server.

    python -m bench.pg_import [--sizes 10000,50000,100000] [--reps 3] [--url postgresql://...]

For each size: ``import_items`` of that many memories (each with one history entry, as
``bench.memory_ops`` makes them) into a new SQLite store and into a new PostgreSQL store, and
``migrate_store`` of the SQLite store into another new PostgreSQL store (the switch of the settings'
backend does this; it includes the read-back check). Each PostgreSQL store keeps a local copy, as
the app's does; the copy is saved after the timed call. Without ``--url`` a throwaway server is
started on this machine (tests/pg_server.py, fsync on, like SQLite's ``synchronous=FULL``); a server
elsewhere adds its round-trip time to each of the few round trips. Prints a Markdown table (median
of ``--reps`` seconds). Not a test: the numbers go to docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.memory_ops import _items
from bench.pg_latency import bench_server
from sonetto_desktop.memory import SqliteMemoryManager
from sonetto_desktop.memory.stores.migrate import migrate_store
from sonetto_desktop.memory.stores.postgres.store import PostgresMemoryManager

def _drop(url: str, schema: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def _timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def measure(url: str, size: int, folder: Path, rep: int) -> dict[str, float]:
    items = _items(size)
    sqlite = SqliteMemoryManager(folder / f"import-{size}-{rep}.db")
    results = {"sqlite": _timed(lambda: sqlite.import_items(items))}
    for name, run in (("postgres", lambda store: store.import_items(items)),
                      ("migration", lambda store: migrate_store(sqlite, store))):
        schema = f"bench_{name}_{size}_{rep}"
        _drop(url, schema)
        store = PostgresMemoryManager(url, schema=schema, device="bench", listen=False,
                                      cache_path=folder / f"{schema}.pgcache.db")
        try:
            results[name] = _timed(lambda: run(store))
            assert store.count() == size
        finally:
            store.close()
            _drop(url, schema)
    sqlite.close()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,50000,100000")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--url", default="")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    rows = {}
    with bench_server(args.url) as url, tempfile.TemporaryDirectory() as folder:
        for size in sizes:
            runs = [measure(url, size, Path(folder), rep) for rep in range(args.reps)]
            rows[size] = {key: statistics.median(run[key] for run in runs) for key in runs[0]}
            print(f"{size}: {rows[size]}", file=sys.stderr, flush=True)
    print(f"\nmedian of {args.reps} runs, seconds\n")
    print("| memories | SQLite import | PostgreSQL import | PostgreSQL / SQLite | migration SQLite → PostgreSQL |")
    print("|---:|---:|---:|---:|---:|")
    for size, row in rows.items():
        print(f"| {size:,} | {row['sqlite']:.2f} | {row['postgres']:.2f} | {row['postgres'] / row['sqlite']:.1f}× |"
              f" {row['migration']:.2f} |")


if __name__ == "__main__":
    main()
