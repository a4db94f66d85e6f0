"""Is a memory just written found by the next query, and never recalled as it was? (the offline index's freshness)

    python -m bench.recall_freshness [--size 100000] [--store sqlite|yaml] [--reps 3]

A store of ``size`` ``bench.recall.synthetic_bank`` memories is built once in a temporary folder with its
recall index saved beside it; each rep works on a fresh copy: the offline index loaded
(``MechanicalRetriever.warm_up``), then each write below, and the query right after it
(``MechanicalRetriever.retrieve`` for the start and the reload, top 8; ``scored``, every memory the query matches, for
the others) timed (wall ms, and the process's CPU ms in brackets: the fair figure on a shared machine) and
checked:

- **start**: the command line added a memory, edited one and deleted another while the app was closed;
  the first query after the start (its saved index is verified against the store). Wrong: the new memory
  not first for its words;
- **reload**: another program edits one memory and deletes another (what the store's watcher then
  publishes: ``reload``, no ids). Wrong (of 3): the edited memory not first for its new words, recalled
  under its old text, the deleted one recalled;
- **delete 2,100**: the wall's bulk delete (``delete_many``, in one transaction). Wrong: each deleted
  memory the query still matches (``scored``: every memory with a positive score);
- **undo 2,100**: the undo of that delete. Wrong: each restored memory the query does not match;
- **import 2,500**: one import (no cards in its change: the index reads each one). Wrong: each
  imported memory the query does not match.

Printed: the median over the reps of the query's time, its CPU in brackets, and the wrong answers.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

from bench.recall import fill_store, open_store, synthetic_bank
from sonetto_desktop.memory import MemoryItem
from sonetto_desktop.memory.events import MemoryChange
from sonetto_desktop.memory.operations import MemoryOperations
from sonetto_desktop.memory.retrieval.mechanical import MechanicalRetriever

SCENARIOS = ("start", "reload", "delete 2,100", "undo 2,100", "import 2,500")


def build(store: str, size: int, folder: Path) -> None:
    mm = open_store(store, folder)
    fill_store(mm, synthetic_bank(size))
    r = MechanicalRetriever(mm)
    r.warm_up()
    r.close()  # saved beside the store
    mm.close()


def _timed(query: Callable[[], Any]) -> tuple[Any, float, float]:
    start, cpu = time.perf_counter(), time.process_time()
    out = query()
    return out, (time.perf_counter() - start) * 1000, (time.process_time() - cpu) * 1000


def one_rep(store: str, built: Path) -> dict[str, tuple[float, float, int]]:
    """scenario -> (query ms, its CPU ms, wrong answers)."""
    with tempfile.TemporaryDirectory(prefix="sonetto-fresh-") as tmp:
        folder = Path(tmp)
        for f in built.iterdir():
            if f.is_file():
                shutil.copy(f, folder / f.name)
        other = open_store(store, folder)  # the command line, while the app is closed
        new = other.add("小夏报了一个陶艺班，每周六上课。", "学习", actor="cli")
        edited, deleted = sorted(mid for mid in other.all_items() if mid.startswith("s"))[:2]
        other.update(edited, "改", new_description="小夏的狗叫豆豆，是一只柴犬。", actor="cli")
        other.delete(deleted, "删", actor="cli")
        other.close()
        mm = open_store(store, folder)
        mm.count()  # (the store's own load is not recall's)
        r = MechanicalRetriever(mm)
        found, ms, cpu = _timed(lambda: [d["id"] for d in r.retrieve("陶艺班", 8)])
        out = {"start": (ms, cpu, int(found[:1] != [new]))}
        r.warm_up()
        ops = MemoryOperations(mm)
        ids = lambda q: [d["id"] for d in r.retrieve(q, 8)]  # noqa: E731
        matching = lambda q: {d["id"] for d, _ in r.scored(q)}  # noqa: E731  (every memory the query matches)

        cat = mm.add("小夏的猫叫汤圆，是一只橘猫。", "身份")
        bike = mm.add("小夏的自行车是一辆蓝色的捷安特。", "身份")
        r.warm_up()
        other = open_store(store, folder)  # another program
        other.update(cat, "改名", new_description="小夏的猫叫年糕，是一只狸花猫。")
        other.delete(bike, "卖了")
        other.close()
        if store == "yaml":
            mm.poll_external()  # (the store reads the file again)
        mm._publish(MemoryChange("reload", ()))  # what the watcher publishes for a write it cannot name
        found, ms, cpu = _timed(lambda: r.retrieve("年糕狸花猫", 8))
        wrong = int(not found or found[0]["id"] != cat)
        wrong += any(d["id"] == cat and "汤圆" in d["description"] for d in r.retrieve("汤圆橘猫", 8))
        wrong += bike in ids("蓝色捷安特自行车")
        out["reload"] = (ms, cpu, wrong)

        camping, _ = mm.import_items({f"c{i}": MemoryItem(f"小夏第{i}次去露营地烧烤，带了{i}号帐篷。", "瞬间")
                                      for i in range(2100)})
        r.warm_up()  # the index in step before the write measured
        with mm.group():
            result = ops.delete_many(camping)
        gone = set(camping)
        found, ms, cpu = _timed(lambda: matching("露营地烧烤帐篷"))
        out["delete 2,100"] = (ms, cpu, len(gone & found))
        r.warm_up()
        with mm.group():
            ops.undo_turn(result.turn_id)
        found, ms, cpu = _timed(lambda: matching("露营地烧烤帐篷"))
        out["undo 2,100"] = (ms, cpu, len(gone - found))

        r.warm_up()
        added, _ = mm.import_items({f"p{i}": MemoryItem(f"小夏第{i}次去陶艺工作室拉坯，做了第{i}个杯子。", "瞬间")
                                    for i in range(2500)})
        found, ms, cpu = _timed(lambda: matching("陶艺工作室拉坯杯子"))
        out["import 2,500"] = (ms, cpu, len(set(added) - found))
        r.close()
        mm.close()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--store", choices=("sqlite", "yaml"), default="sqlite")
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="sonetto-fresh-built-") as tmp:
        built = Path(tmp)
        build(args.store, args.size, built)
        reps = [one_rep(args.store, built) for _ in range(args.reps)]
    print(f"{args.size:,} memories, {args.store}, {args.reps} reps (median)")
    print(f"{'write':16s} {'next query':>22s}  wrong answers")
    for name in SCENARIOS:
        ms = statistics.median(rep[name][0] for rep in reps)
        cpu = statistics.median(rep[name][1] for rep in reps)
        wrong = [rep[name][2] for rep in reps]
        print(f"{name:16s} {ms:9.0f} ms [{cpu:6.0f} ms]  {'/'.join(map(str, wrong))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
