"""An editor saving memory.yaml while Sonetto writes to it (issue 35 item 2): how many saves are lost.

    python -m bench.yaml_editor_saves [--saves 65] [--mode inplace|rename|both]

A YAML store that rewrites memory.yaml 10 ms after each write holds 80 memories; a thread adds one
every 0-20 ms as Sonetto would in a busy import. An "editor" then saves the file 65 times, each time
changing one more entry in the text it just read: in place (truncate and write, as VS Code or Notepad++
do) or renamed over (as vim or a sync client do), and waits (up to 5 s) for the store to show the
edit before the next save. Counted at the end: edits the store (and the file) do not hold, and memories
moved to the trash as "deleted by hand" although nobody deleted any.
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
import threading
import time
from pathlib import Path

import yaml

from sonetto_desktop.memory import MemoryItem, YamlMemoryManager


def run(mode: str, saves: int) -> dict[str, int]:
    folder = Path(tempfile.mkdtemp(prefix="sonetto-editor-saves-"))
    path = folder / "memory.yaml"
    store = YamlMemoryManager(path, flush_delay=0.01)
    store.import_items({f"e{i:03d}": MemoryItem(f"原文{i}", "测试") for i in range(max(80, saves))})
    store.compact()
    stop = threading.Event()

    def sonetto() -> None:
        n = 0
        while not stop.is_set():
            store.add(f"Sonetto 写的第{n}条", "瞬间", actor="agent")
            n += 1
            time.sleep(random.uniform(0.0, 0.02))

    writer = threading.Thread(target=sonetto)
    writer.start()

    def edited(i: int) -> bool:
        item = store.all_items().get(f"e{i:03d}")
        return item is not None and item.description == f"改过{i}"

    try:
        for i in range(saves):
            time.sleep(random.uniform(0.01, 0.06))
            text = path.read_text(encoding="utf-8").replace(f"description: 原文{i}\n", f"description: 改过{i}\n")
            if mode == "inplace":
                with open(path, "w", encoding="utf-8") as fh:
                    fh.write(text)
            else:
                staged = folder / f".save{i}.tmp"
                staged.write_text(text, encoding="utf-8")
                os.replace(staged, path)
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline and not edited(i):
                time.sleep(0.01)
    finally:
        stop.set()
        writer.join()
    lost = sum(not edited(i) for i in range(saves))
    trashed = len(store.list_trash())
    written = len(store.all_items())
    store.close()
    on_disk = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    lost_on_disk = sum(on_disk.get(f"e{i:03d}", {}).get("description") != f"改过{i}" for i in range(saves))
    return {"saves": saves, "lost": lost, "lost_on_disk": lost_on_disk, "trashed": trashed, "memories": written}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--saves", type=int, default=65)
    parser.add_argument("--mode", choices=["inplace", "rename", "both"], default="both")
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    modes = ["inplace", "rename"] if args.mode == "both" else [args.mode]
    print("| mode | run | saves | edits lost (store / file) | memories trashed as 'deleted by hand' | memories |")
    print("|---|---:|---:|---|---:|---:|")
    for mode in modes:
        for run_no in range(args.runs):
            r = run(mode, args.saves)
            print(f"| {mode} | {run_no + 1} | {r['saves']} | {r['lost']} / {r['lost_on_disk']} | {r['trashed']} | {r['memories']} |")


if __name__ == "__main__":
    main()
