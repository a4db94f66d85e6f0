"""Per-operation cost of the memory stores at growing sizes (the store half of the scaling table).

    python -m bench.memory_ops [--sizes 10000,50000,100000] [--reps 30] [--stores yaml,yaml-quiet,sqlite]

For each store and size it fills a store in a temp dir (one bulk import, then closed), and measures
through the public API, everything a real write does included (locks, the transaction, fsync; for
YAML the log append and whatever the background rewrite of memory.yaml costs the writes it runs
beside):

- ``fsync``: the disk's floor in the same folder: appending 400 bytes to a file and fsyncing it
  (every acknowledged write of both stores pays one; compare writes with it, not across runs);
- ``open+check``: constructing the store and running ``self_check()`` (what the app does before
  the window shows), on the files as a previous session closed them;
- ``add`` / ``update`` / ``hit`` / ``delete``: one write each, median and p95;
- ``add|trash1k`` / ``delete|trash1k``: the same with 1,000 memories in the trash;
- ``foreign+update``: an update right after another instance wrote (this instance catches up first);
- ``file lag`` (YAML): from an acknowledged add until ``memory.yaml`` holds it (``>5000``: not
  within 5 s, i.e. only at close);
- ``flush`` (YAML): one rewrite of memory.yaml (the store's own timing, median / max);
- ``show`` / ``get``: reads;
- ``close``: closing (YAML: writing what memory.yaml does not hold yet);
- ``size``: the store's files on disk after closing, in MB.

Not a test: the numbers go to docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

from sonetto_desktop.memory import MemoryItem, SqliteMemoryManager, YamlMemoryManager

STORES = {
    "yaml": ("memory.yaml", YamlMemoryManager),
    # the write path alone: memory.yaml rewritten only at close (what the background rewrite costs the writes)
    "yaml-quiet": ("memory.yaml", lambda path: YamlMemoryManager(path, flush_delay=None)),
    "sqlite": ("memory.db", SqliteMemoryManager),
}


def _items(size: int) -> dict[str, MemoryItem]:
    return {
        f"{i:08x}": MemoryItem(f"第{i}条记忆：小林喜欢第{i % 97}种东西，顺便记一点细节。", f"主题{i % 12}",
                               history=[{"time": "2026-11-01T10:00:00", "action": "create", "actor": "agent",
                                         "reason": "用户在聊天里提到", "new_description": f"第{i}条记忆"}])
        for i in range(size)
    }


def _time(fn: Callable[[int], Any], reps: int) -> tuple[float, float]:
    samples = []
    for i in range(reps):
        start = time.perf_counter()
        fn(i)
        samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    p95 = samples[min(len(samples) - 1, int(round(0.95 * (len(samples) - 1))))]
    return statistics.median(samples), p95


def _once(fn: Callable[[], Any]) -> tuple[float, float]:
    start = time.perf_counter()
    fn()
    ms = (time.perf_counter() - start) * 1000
    return ms, ms


def fsync_floor(folder: Path, reps: int) -> tuple[float, float]:
    """Appending 400 bytes and fsyncing them, in ``folder`` (the floor under every acknowledged write)."""
    path = folder / "fsync-probe"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        def once(_: int) -> None:
            os.write(fd, b"x" * 399 + b"\n")
            os.fsync(fd)

        return _time(once, reps)
    finally:
        os.close(fd)
        path.unlink()


def file_lag(mm: Any, path: Path, reps: int, limit: float = 5.0) -> tuple[float, float]:
    """From an acknowledged add until memory.yaml holds it (ms; ``limit`` s when it never does)."""
    samples = []
    for i in range(reps):
        mid = mm.add(f"文件里何时出现{i}", "瞬间")
        start = time.perf_counter()
        needle = f"{mid}:".encode()
        while time.perf_counter() - start < limit:
            try:
                if needle in path.read_bytes():
                    break
            except FileNotFoundError:
                pass
            time.sleep(0.01)
        samples.append((time.perf_counter() - start) * 1000)
        time.sleep(0.3)
    samples.sort()
    return statistics.median(samples), samples[-1]


def _size_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.iterdir() if p.is_file() and not p.name.endswith(".bak")) / 1e6


def measure(name: str, size: int, reps: int) -> dict[str, tuple[float, float]]:
    filename, cls = STORES[name]
    results: dict[str, tuple[float, float]] = {}
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_DIR")) as tmp:
        path = Path(tmp) / filename
        results["fsync"] = fsync_floor(Path(tmp), reps)
        seed = cls(path)
        seed.import_items(_items(size))
        seed.close()
        start = time.perf_counter()
        mm = cls(path)
        report = mm.self_check()
        ms = (time.perf_counter() - start) * 1000
        results["open+check"] = (ms, ms)
        if report.status == "FAIL":
            raise RuntimeError(report.issues)
        ids = list(mm.all_items())
        results["add"] = _time(lambda i: mm.add(f"新记忆{i}", "瞬间", reason="bench"), reps)
        results["update"] = _time(lambda i: mm.update(ids[i], "bench", new_description=f"改写{i}"), reps)
        results["hit"] = _time(lambda i: mm.hit(ids[i]), reps)
        results["delete"] = _time(lambda i: mm.delete(ids[len(ids) // 2 + i], "bench"), reps)
        results["show"] = _time(lambda i: mm.show(), max(5, reps // 3))
        results["get"] = _time(lambda i: mm.get(ids[i]), reps)
        other = cls(path)  # another instance (as the command line or a second app would be)
        other.count()
        samples = []
        for i in range(max(5, reps // 3)):
            other.hit(ids[-1 - i])  # not timed
            start = time.perf_counter()
            mm.update(ids[reps + i], "bench", new_description=f"外来之后{i}")
            samples.append((time.perf_counter() - start) * 1000)
        samples.sort()
        results["foreign+update"] = (statistics.median(samples), samples[int(round(0.95 * (len(samples) - 1)))])
        other.close()
        trashed = ids[-1000:] if size >= 2000 else []
        if trashed:
            with mm._transaction() as txn:  # 1,000 deletions in one go (setup, untimed)
                from sonetto_desktop.memory.item import now_iso

                for mid in trashed:
                    item = txn.get(mid)
                    txn.trash_put(mid, {"item": item.to_dict(), "deleted_at": now_iso(), "reason": "bench",
                                        "actor": "user"})
                    txn.remove(mid)
            results["add|trash1k"] = _time(lambda i: mm.add(f"回收站满时{i}", "瞬间"), reps)
            results["delete|trash1k"] = _time(lambda i: mm.delete(ids[2 * reps + i], "bench"), reps)
        if name == "yaml":  # (not yaml-quiet: its file follows at close only)
            results["file lag"] = file_lag(mm, path, 5)
            flushes = list(getattr(mm, "flush_times", []))
            if flushes:
                results["flush"] = (statistics.median(flushes) * 1000, max(flushes) * 1000)
        results["close"] = _once(mm.close)
        results["fsync after"] = fsync_floor(Path(tmp), reps)
        results["size MB"] = (_size_mb(Path(tmp)), 0.0)
        if name.startswith("yaml"):
            results["full reads"] = (float(mm.full_reads), 0.0)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,50000,100000")
    parser.add_argument("--reps", type=int, default=30)
    parser.add_argument("--stores", default="yaml,yaml-quiet,sqlite")
    args = parser.parse_args()
    rows = []
    for name in args.stores.split(","):
        for size in (int(s) for s in args.sizes.split(",")):
            started = time.perf_counter()
            results = measure(name, size, args.reps)
            rows.append((name, size, results))
            shown = "  ".join(f"{op} {med:.2f}/{p95:.2f}" for op, (med, p95) in results.items())
            print(f"{name:6} {size:>6} ({time.perf_counter() - started:.0f}s)  {shown}", flush=True)
    ops = list(dict.fromkeys(op for _, _, results in rows for op in results))
    print("\n| store | items | " + " | ".join(ops) + " |")
    print("|---|---:|" + "---|" * len(ops))
    for name, size, results in rows:
        cells = []
        for op in ops:
            if op not in results:
                cells.append("")
            elif op in ("size MB", "full reads"):
                cells.append(f"{results[op][0]:.1f}" if op == "size MB" else f"{results[op][0]:.0f}")
            elif op in ("open+check", "close"):
                cells.append(f"{results[op][0]:.0f}")
            else:
                cells.append(f"{results[op][0]:.2f} / {results[op][1]:.2f}")
        print(f"| {name} | {size:,} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
