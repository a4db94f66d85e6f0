"""What the writer's journal holds in memory when it lists a long journal (issue 37: never hold an
import whole). An import journals every batch before its writer starts; at its start and each resume
the runner lists the journal, a retry moves every batch given up on back, and each start of the
writer reads its failed list. Before, each of those read every batch's text into memory at once.

    python -m bench.journal_memory [--batches 5000]

Writes ``--batches`` entries shaped like an import's batches (a few exchanges, ~13 KB of JSON each),
then reports the peak of Python memory (``tracemalloc``) and the time of: ``pending()`` (what an
import's start used to list), ``pending_turn_ids()`` (what it lists now), ``failed()`` /
``failed(text=False)`` (the writer's failed list, before / now) and ``requeue_failed()`` (a retry:
what it returns now is without text; before it returned, and the writer queued, every entry whole).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.proc import timed_peak  # noqa: E402
from sonetto_desktop.memory.writer.journal import TurnJournal  # noqa: E402

BATCH = [{"role": "user", "content": "我最近在旅行，有点累但挺开心。" * 120},
         {"role": "assistant", "content": "听起来不错！先列个清单，一步一步来。" * 150}]


def _peak(fn):
    result, took, peak = timed_peak(fn)
    return result, peak, took


def measure(batches: int) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        journal = TurnJournal(Path(folder) / "j")
        entries = [journal.append(f"imp-bench-{n:06d}", None, BATCH, actor="import:chatgpt") for n in range(batches)]
        on_disk = sum(p.stat().st_size for p in journal.pending_dir.iterdir())
        rows = {}
        for name, fn in (("pending() (before)", journal.pending), ("pending_turn_ids() (now)", journal.pending_turn_ids)):
            result, peak, took = _peak(fn)
            rows[name] = {"peak_mb": round(peak / 1e6, 1), "seconds": round(took, 2), "listed": len(result)}
            del result
        for entry in entries:
            journal.move_to_failed(entry)
        del entries
        for name, fn in (("failed() (before)", journal.failed),
                         ("failed(text=False) (now)", lambda: journal.failed(text=False)),
                         ("requeue_failed() (now: without text)", journal.requeue_failed)):
            result, peak, took = _peak(fn)
            rows[name] = {"peak_mb": round(peak / 1e6, 1), "seconds": round(took, 2), "listed": len(result)}
            del result
    return {"batches": batches, "journal_mb": round(on_disk / 1e6, 1), "rows": rows}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=5000)
    args = parser.parse_args(argv)
    print(json.dumps(measure(args.batches), ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
