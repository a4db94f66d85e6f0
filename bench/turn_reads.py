"""Reading one turn's work in a big store (issue 37: the running app at 100,000 memories).

Undoing a turn (the toast's 撤销, "don't remember this turn", an import or one of its conversations)
and counting what an import left (at its end, and for the dialog's undo confirmation) looked at every
memory: the undo inside its write transaction, holding the store's lock. They now ask the store for
the memories whose history names the turn (``items_mentioning`` / ``Transaction.ids_mentioning``),
and the wall's refresh of many changed memories reads those rows (``items_of``).

    python -m bench.turn_reads [--size 100000] [--backend sqlite|yaml]

Fills a store with ``--size`` memories, then an "import" of 50 batches that creates 200 memories and
a chat turn that creates one; reports the time and the peak of Python memory (``tracemalloc``) of:
counting the import's work, undoing one of its batches, previewing the import's undo (its batches and
that undo, as the window's question does after a conversation was undone), undoing the chat turn, the wall's refresh of
100 memories a change named (``ops.Fetch``, which read every memory for more than 32), and (the
anchor, what each read before) reading every memory once.
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
from sonetto_desktop.history_import.runner import count_changes  # noqa: E402
from sonetto_desktop.memory.changes import Turn  # noqa: E402
from sonetto_desktop.memory.item import MemoryItem  # noqa: E402
from sonetto_desktop.memory.operations import MemoryOperations  # noqa: E402
from sonetto_desktop.memory.stores import backends  # noqa: E402
from sonetto_desktop.memory.undo import TurnSet  # noqa: E402
from sonetto_desktop.ops import Fetch, OpTarget  # noqa: E402


def _timed(fn):
    result, took, peak = timed_peak(fn)
    return result, {"ms": round(took * 1000, 1), "peak_mb": round(peak / 1e6, 2)}


def measure(size: int, backend: str) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / ("memory.db" if backend == "sqlite" else "memory.yaml")
        mm = backends.file_backend_named(backend).open(path)
        try:
            mm.import_items({f"{i:08x}": MemoryItem(f"第{i}条：小林记下了一件关于第{i % 17}个朋友的小事。", f"主题{i % 12}")
                             for i in range(size)})
            ops = MemoryOperations(mm)
            for n in range(200):
                mm.add(f"导入的第{n}条", "品味", actor="import:chatgpt", turn=Turn(f"imp-feedbeef-{n // 4:06d}"))
            mm.add("用户今天很累", "瞬间", actor="agent", turn=Turn("chat0000turn"))
            rows = {}
            counted, rows["count an import's work (200 memories, 50 batches)"] = _timed(
                lambda: count_changes(ops, "imp-feedbeef"))
            assert counted == (200, 0, 0), counted
            _undo, rows["undo one batch of the import"] = _timed(lambda: ops.undo_turn("imp-feedbeef-000003"))
            whole = TurnSet("imp-feedbeef", [*(f"imp-feedbeef-{seq:06d}" for seq in range(50)), _undo.turn_id])
            preview, rows["preview the import's undo, one batch undone (the window's question)"] = _timed(
                lambda: ops.preview_undo(whole))
            assert preview.effects == {"trashed": 196} and not preview.kept, preview
            _undo, rows["undo a chat turn (the toast's 撤销)"] = _timed(lambda: ops.undo_turn("chat0000turn"))
            wanted = tuple(f"{i:08x}" for i in range(0, size, max(1, size // 100)))
            fetched, rows["the wall refreshes 100 changed memories (ops.Fetch)"] = _timed(
                lambda: Fetch(wanted).apply(OpTarget(ops)))
            assert all(fetched.values()), "a memory the wall asked for is missing"
            everything, rows["read every memory (what each did before)"] = _timed(ops.all_items)
            assert len(everything) == size + 196
            del everything
        finally:
            mm.close()
    return {"size": size, "backend": backend, "rows": rows}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--backend", choices=("sqlite", "yaml"), default="sqlite")
    args = parser.parse_args(argv)
    print(json.dumps(measure(args.size, args.backend), ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
