"""Reading and planning a big ChatGPT export the way the app does (issue 37): peak RSS added, RSS
kept, and the longest stall of the main loop.

    python -m bench.import_footprint [--mb 200] [--runs 1] [--before DIR] [--keep-file]

A child process per run opens the app's services (SQLite store, no model), then calls
``HistoryImports.read`` and ``HistoryImports.plan`` — each in a worker, as the window does — while a
probe on the main loop wakes every 5 ms and records how late it woke. Reported per run:

- ``peak_added_mb``: the process's high-water RSS during read + plan above the RSS before it (the
  high-water mark is reset first through ``/proc/self/clear_refs``);
- ``kept_mb``: RSS above that baseline with the history and the plan held (the preview is open);
- ``after_mb``: above the baseline once they are let go and collected (the window closed), and
  ``after_trim_mb`` once the freed heap is handed back (``malloc_trim``, as the window does on closing);
- ``stall_ms``: the longest the loop woke late; ``late_over_100ms``: how many times it was over 100 ms;
- ``read_s``, ``plan_s``: wall times; the plan's conversations, turns and batches (both sides must agree).

``--before DIR``: also run the code of another checkout (``git worktree add DIR <commit>``), run
for run interleaved with this one, so the row prints as before → after under the same load.
The export is made by ``bench.chatgpt_export`` in a temporary folder and deleted after.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

_CHILD = r"""
import asyncio, ctypes, ctypes.util, gc, json, os, sys, tempfile, time
import psutil
from sonetto_desktop.config.settings import Settings
from sonetto_desktop.history_import.service import HistoryImports
from sonetto_desktop.services import AppServices

PROC = psutil.Process()

def rss():
    return PROC.memory_info().rss / 1024 ** 2

def hwm():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0

async def main(path, out):
    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(data_dir=folder, store_backend="sqlite", retrieval_mode="mechanical")
        services = await AppServices.open(settings=settings, watch=False)
        imports = HistoryImports(services)
        gc.collect()
        await asyncio.sleep(0.2)
        base = rss()
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        late = []
        stop = False

        async def probe():
            while not stop:
                began = time.perf_counter()
                await asyncio.sleep(0.005)
                late.append(time.perf_counter() - began - 0.005)

        task = asyncio.create_task(probe())
        began = time.perf_counter()
        history = await imports.read(path)
        read_s = time.perf_counter() - began
        began = time.perf_counter()
        plan = await imports.plan(history)
        plan_s = time.perf_counter() - began
        peak = hwm()
        stop = True
        await task
        kept = rss()
        counts = {"conversations": plan.conversations, "turns": plan.turns, "batches": len(plan.batches),
                  "characters": plan.characters, "estimated_tokens": plan.estimated_tokens}
        del history, plan
        gc.collect()
        await asyncio.sleep(0.2)
        after = rss()
        ctypes.CDLL(ctypes.util.find_library("c")).malloc_trim(0)  # as the window does when it closes
        trimmed = rss()
        await imports.close()
        await services.close()
    late.sort()
    result = {"base_mb": round(base), "peak_added_mb": round(peak - base), "kept_mb": round(kept - base),
              "after_mb": round(after - base), "after_trim_mb": round(trimmed - base), "stall_ms": round(1000 * late[-1], 1),
              "p99_late_ms": round(1000 * late[int(0.99 * (len(late) - 1))], 1),
              "late_over_100ms": sum(1 for x in late if x > 0.1), "wakes": len(late),
              "read_s": round(read_s, 2), "plan_s": round(plan_s, 2), **counts}
    open(out, "w").write(json.dumps(result))

asyncio.run(main(sys.argv[1], sys.argv[2]))
"""


def child(code_root: Path, export: Path, folder: Path) -> dict[str, Any]:
    report = folder / "child.json"
    env = {**os.environ, "PYTHONPATH": str(code_root), "SONETTO_CONFIG_DIR": str(folder / "config"),
           "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([sys.executable, "-c", _CHILD, str(export), str(report)], env=env, cwd=code_root,
                          capture_output=True, text=True, timeout=7200)
    if done.returncode:
        raise SystemExit(done.stderr[-3000:])
    return json.loads(report.read_text())


def main(argv: list[str] | None = None) -> int:
    from bench.chatgpt_export import write_export

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=200)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--before", type=Path, help="another checkout to run too (before → after)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        export = folder / "conversations.json"
        made = write_export(export, args.mb, args.seed)
        print(json.dumps({"export_mb": round(made["bytes"] / 1024 ** 2), "conversations": made["conversations"]}))
        sides = ([("before", args.before)] if args.before else []) + [("after", ROOT)]
        for run in range(args.runs):
            for side, root in sides:
                result = child(root.resolve(), export, folder)
                load = os.getloadavg()
                print(json.dumps({"run": run + 1, "code": side, **result,
                                  "load": [round(x, 2) for x in load]}, ensure_ascii=False), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
