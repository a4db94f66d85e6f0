"""Card wall speed at 2,000 cards (offscreen Qt).

    python -m bench.ui_wall [--cards 2000] [--themes 12] [--reps 5]

Measures, on the GUI thread: the first render (model filled with the cards, theme sections built,
laid out and painted — in slices since issue 14: the first slice, the longest single loop step
until the whole wall is shown, the number of steps and the time to all of it), a search filter and
clearing it, switching the sort, and applying one live change — each as the loop runs it (the
step, then every loop pass until the wall shows the result: the longest pass, wall clock and CPU
time of the GUI thread). Reading the cards from the store happens in a worker in the app (``read_cards``); its cost
is printed separately, cold (first read after opening: YAML parse) and warm. Not a test: the numbers go to docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import random
import statistics
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6 import __version__ as pyside_version
from PySide6.QtWidgets import QApplication

from sonetto_desktop.memory import MemoryItem, YamlMemoryManager
from sonetto_desktop.ui.wall.cards import Card, CardIndex, read_cards
from sonetto_desktop.ui.memory_service import MemoryService
from sonetto_desktop.ui.wall.memory_wall import MemoryWall

WORDS = "喜欢 讨厌 咖啡 绿茶 周末 爬山 猫 狗 工作 项目 Rust Python 电影 音乐 乐队 妈妈 朋友 北京 上海 跑步 早起 熬夜 火锅 旅行".split()


def make_items(count: int, themes: int, seed: int = 7) -> dict[str, MemoryItem]:
    rng = random.Random(seed)
    items = {}
    for i in range(count):
        text = "".join(rng.choice(WORDS) for _ in range(rng.randint(4, 14)))
        stamp = f"2026-{rng.randint(1, 11):02d}-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:00:00"
        items[f"{i:08x}"] = MemoryItem(f"{i}：{text}", f"主题{i % themes}", latest_update_time=stamp, hit=rng.randint(0, 30))
    return items


def settle(app: QApplication, wall: MemoryWall) -> None:
    """Run layouts and paint the visible part now (what the user waits for)."""
    app.processEvents()
    wall.repaint()
    app.processEvents()


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


def timed_cpu(fn) -> tuple[float, float]:
    """(wall-clock ms, this thread's CPU ms): on a shared machine the second leaves out the time
    other processes had the core."""
    start, cpu = time.perf_counter(), time.thread_time()
    fn()
    return (time.perf_counter() - start) * 1000, (time.thread_time() - cpu) * 1000


def loop_passes(app: QApplication, wall: MemoryWall, fn) -> list[tuple[float, float]]:
    """Run ``fn`` as one loop step, then the loop's passes (``processEvents``) until the wall shows
    its finished state (``wall.loading()``: slices still queued), then a settle pass: (wall-clock ms,
    GUI-thread CPU ms) of each. Python's collector is off during the passes, as in the app."""
    gc.disable()
    try:
        durations = [timed_cpu(fn)]
        while wall.loading():
            durations.append(timed_cpu(app.processEvents))
        durations.append(timed_cpu(lambda: settle(app, wall)))
    finally:
        gc.enable()
    return durations


def record(results: dict[str, list[float]], key: str, durations: list[tuple[float, float]]) -> None:
    results[key].append(sum(d for d, _ in durations))
    results[f"{key}_pass"].append(max(d for d, _ in durations))
    results[f"{key}_cpu"].append(max(c for _, c in durations))
    results[f"{key}_steps"].append(len(durations))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cards", type=int, default=2000)
    parser.add_argument("--themes", type=int, default=12)
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()

    app = QApplication.instance() or QApplication([])
    tmp = Path(tempfile.mkdtemp(prefix="sonetto-bench-"))
    store = YamlMemoryManager(tmp / "memory.yaml")
    store.import_items(make_items(args.cards, args.themes))
    store.close()
    results: dict[str, list[float]] = {
        k: [] for k in ("cold", "snapshot", "render", "longest", "longest_cpu", "over50", "steps", "loaded",
                        "gc")
    }
    for key in ("filter", "clear", "sort", "live"):
        for suffix in ("", "_pass", "_cpu", "_steps"):
            results[key + suffix] = []
    for _ in range(args.reps):
        store = YamlMemoryManager(tmp / "memory.yaml")  # a fresh open: the first read parses the file
        results["cold"].append(timed(lambda: read_cards(store)))
        service = MemoryService(store)
        wall = MemoryWall(service)
        wall.resize(1000, 800)
        wall.show()
        settle(app, wall)
        cards: list[Card] = []
        results["snapshot"].append(timed(lambda: cards.extend(read_cards(store))))  # a worker, in the app

        # The model reset runs the first slice in the same step (in the app: the slot that gets
        # the cards from the worker).
        index = CardIndex.build(cards)  # in the app: in the worker, with the cards
        # As in the app (ui/gc_guard.py), Python's collector does not run inside these steps: the
        # app collects on its own timer; the cost of a full collection at this heap is shown apart.
        gc.disable()
        first, first_cpu = timed_cpu(lambda: wall.model.set_cards(index))
        results["render"].append(first)
        # Then the loop runs the remaining slices: each processEvents() is one pass of the loop
        # (a slice, the layouts and paints it queued); the longest of them is the UI freeze.
        durations = [(first, first_cpu)]
        while wall.loading():
            durations.append(timed_cpu(app.processEvents))
        durations.append(timed_cpu(lambda: settle(app, wall)))
        gc.enable()
        results["longest"].append(max(d for d, _ in durations))
        results["longest_cpu"].append(max(c for _, c in durations))
        results["over50"].append(sum(1 for d, _ in durations if d > 50))
        results["steps"].append(len(durations))
        results["loaded"].append(sum(d for d, _ in durations))
        results["gc"].append(timed(gc.collect))
        assert wall.model.rowCount() == args.cards
        assert sum(len(s.proxy.ids()) for s in wall.sections().values()) == args.cards
        record(results, "filter", loop_passes(app, wall, lambda: wall.set_search("咖啡 猫")))
        shown = sum(s.shown_count() for s in wall.sections().values())
        assert 0 < shown < args.cards, shown
        record(results, "clear", loop_passes(app, wall, lambda: wall.set_search("")))
        assert sum(s.shown_count() for s in wall.sections().values()) == args.cards
        record(results, "sort", loop_passes(app, wall, lambda: wall.set_sort_mode("hits")))
        changed = store.get("00000001")
        changed.description += "（改）"
        record(results, "live", loop_passes(app, wall, lambda: wall.model.apply_items({"00000001": changed})))
        wall.close()
        wall.deleteLater()
        service.close()
        service.deleteLater()
        app.processEvents()
        store.close()

    print(f"{args.cards} cards in {args.themes} themes, {args.reps} runs, offscreen, "
          f"Python {platform.python_version()}, PySide6 {pyside_version}, {platform.machine()}")
    print()
    print("| step | median ms | max ms |")
    print("|---|---:|---:|")
    labels = {
        "cold": "first read after opening the YAML store (file parse; worker thread)",
        "snapshot": "cards from the loaded store (worker thread in the app)",
        "render": "first step: model filled + first slice of sections laid out",
        "longest": "longest single loop pass until the whole wall is shown",
        "longest_cpu": "the same, CPU time of the GUI thread",
        "over50": "loop passes over 50 ms (count)",
        "steps": "loop passes until the whole wall is shown (count)",
        "loaded": "whole wall shown (sum of the steps)",
        "filter": "search filter applied (2 words) + repaint: all of its passes",
        "filter_pass": "  longest single loop pass",
        "filter_cpu": "  the same, CPU time of the GUI thread",
        "filter_steps": "  loop passes (count)",
        "clear": "search cleared + repaint: all of its passes",
        "clear_pass": "  longest single loop pass",
        "clear_cpu": "  the same, CPU time of the GUI thread",
        "clear_steps": "  loop passes (count)",
        "sort": "sort switched to hits + repaint: all of its passes",
        "sort_pass": "  longest single loop pass",
        "sort_cpu": "  the same, CPU time of the GUI thread",
        "sort_steps": "  loop passes (count)",
        "live": "one live change applied + repaint: all of its passes",
        "live_pass": "  longest single loop pass",
        "live_cpu": "  the same, CPU time of the GUI thread",
        "live_steps": "  loop passes (count)",
        "gc": "a full gc.collect() after the load (the app's collector timer, not the wall)",
    }
    for key, label in labels.items():
        values = results[key]
        print(f"| {label} | {statistics.median(values):.1f} | {max(values):.1f} |")


if __name__ == "__main__":
    main()
