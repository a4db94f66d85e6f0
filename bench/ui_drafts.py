"""Saving a long chat draft (more than the UI state file keeps: its own file in ``chat-drafts/``), in the
real app (offscreen platform): what ``Drafts.save()`` costs the Qt thread.

    python -m bench.ui_drafts [--chars 250000] [--saves 30]

The composer holds ``--chars`` characters, a little different at each of ``--saves`` saves (as typing
would make it); each save is timed on the Qt thread (wall clock, and the thread's CPU in brackets),
then the bench waits until the file is on disk (where the write runs elsewhere) and a moment more.
Not a test: the numbers go to docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.proc import run_offscreen_app

ROOT = Path(__file__).resolve().parent.parent
for extra in (ROOT, ROOT / "tests", ROOT / "tests" / "ui"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))


async def measure(qapp, chars: int, saves: int) -> dict:
    from shell_fixtures import app_settings, running_app

    line = "很长的一段草稿，里面有中文也有 English words。"
    text = (line * (chars // len(line) + 1))[:chars]
    walls, cpus = [], []
    with tempfile.TemporaryDirectory() as folder:
        async with running_app(qapp, app_settings(Path(folder) / "data")) as shell:
            composer, drafts = shell.window.chat_panel.composer, shell.window.drafts
            for n in range(saves):
                composer.set_text(f"{text}{n}")
                cpu, began = time.thread_time(), time.perf_counter()
                drafts.save()
                walls.append(time.perf_counter() - began)
                cpus.append(time.thread_time() - cpu)
                if hasattr(drafts, "flush"):  # (a write off the Qt thread: on disk before the next one)
                    await drafts.flush()
                await asyncio.sleep(0.05)
    return {"chars": chars, "saves": saves,
            "save_ms_p50": round(1000 * statistics.median(walls), 2), "save_ms_max": round(1000 * max(walls), 2),
            "qt_cpu_ms_p50": round(1000 * statistics.median(cpus), 2), "qt_cpu_ms_max": round(1000 * max(cpus), 2)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chars", type=int, default=250_000)
    parser.add_argument("--saves", type=int, default=30)
    args = parser.parse_args(argv)
    return run_offscreen_app(lambda qapp: measure(qapp, args.chars, args.saves))


if __name__ == "__main__":
    sys.exit(main())
