"""The card wall at 10,000-100,000 cards against a bare QListView of the same strings (issues 6, 14, 29).

    python -m bench.ui_wall --sizes 10000,50000,100000 [--themes 12] [--runs 1] [--pages 60]

For every size, two kinds of fresh child process are run (``--runs`` of each, interleaved), so that
memory is measured in a process that held nothing else:

* **anchor**: the same descriptions as plain strings in a ``QStringListModel`` on a plain
  ``QListView`` (list mode, Qt's own delegate) in a 1000x800 window: what Qt itself costs to show
  that many strings.
* **wall**: a ``MemoryWall`` at 1000x800 showing the same memories as cards (12 themes).

Measured in both, on the GUI thread (offscreen platform), each as the loop runs it:

* *every card shown*: from handing the strings / cards to the view until the last one is laid out
  and the window repainted: the sum of the loop passes, the longest single pass (the freeze), the
  number of passes and how many were over 100 ms. The wall fills in slices (the model reset runs the
  first one, then one per loop pass); the anchor lays everything out in one pass.
* *page scroll*: the scroll bar moved down by a page ``--pages`` times from the top, each move with
  the repaint it causes (p50 / p95 / max); *jump*: the scroll bar set to ``--pages`` random places
  across the whole height (dragging the bar), each with its repaint.
* *memory per card*: resident memory (RSS, after a collection and ``malloc_trim``) once every card
  is shown, minus the same before the strings or cards were made, divided by the cards. The items
  (the store's data) exist before both baselines; what is counted is what showing them adds: for the
  anchor the model's copies of the strings and the view's layout, for the wall the ``Card`` objects,
  the card model, every section's list and layout and the widgets. (Not whole-app RSS per memory:
  that also counts the store, the recall index and the LLM stack.)

Only in the wall: how often each card was measured (``CardDelegate.sizeHint`` calls, which Qt makes
for every card of a section each time it lays the section out, and the cards whose natural size was
computed from their text), and a search, clearing it, a sort and a live change at that size (every
pass until the wall shows the result, then a settle pass).

Python's collector is off during the passes, to time the wall's own work (the app leaves it on since
issue 39: ``bench/ui_launch.py --table`` measures its collections in the running app); the cost of one
full collection at that heap is printed apart. On a shared machine the wall
clock of a pass includes other processes' time: the GUI thread's CPU time of the longest pass is
given too. Not a test: the numbers go to docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time

WORDS = "喜欢 讨厌 咖啡 绿茶 周末 爬山 猫 狗 工作 项目 Rust Python 电影 音乐 乐队 妈妈 朋友 北京 上海 跑步 早起 熬夜 火锅 旅行".split()
WIDTH, HEIGHT = 1000, 800
STALL_MS = 100  # a pass longer than this is a visible freeze


def make_items(count: int, themes: int, seed: int = 7) -> dict:
    from sonetto_desktop.memory import MemoryItem

    rng = random.Random(seed)
    items = {}
    for i in range(count):
        text = "".join(rng.choice(WORDS) for _ in range(rng.randint(4, 14)))
        stamp = f"2026-{rng.randint(1, 11):02d}-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:00:00"
        items[f"{i:08x}"] = MemoryItem(f"{i}：{text}", f"主题{i % themes}", latest_update_time=stamp, hit=rng.randint(0, 30))
    return items


# ── measuring helpers (child processes) ───────────────────────────────────


def rss_bytes() -> int:
    """Resident memory now, after a full collection and giving freed heap back to the system."""
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except OSError:
        pass
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def timed_cpu(fn) -> tuple[float, float]:
    """(wall-clock ms, this thread's CPU ms) of ``fn()``."""
    start, cpu = time.perf_counter(), time.thread_time()
    fn()
    return (time.perf_counter() - start) * 1000, (time.thread_time() - cpu) * 1000


def passes_summary(durations: list[tuple[float, float]]) -> dict:
    return {
        "total_ms": sum(d for d, _ in durations),
        "total_cpu_ms": sum(c for _, c in durations),
        "longest_ms": max(d for d, _ in durations),
        "longest_cpu_ms": max(c for _, c in durations),
        "passes": len(durations),
        "over_stall": sum(1 for d, _ in durations if d > STALL_MS),
    }


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * (len(ordered) - 1) + 0.5))]


def scrolling(app, bar, repaint, pages: int) -> dict:
    """Page down ``pages`` times from the top, then jump to ``pages`` random places: each move with
    its repaint, in ms."""
    gc.disable()
    try:
        bar.setValue(0)
        app.processEvents()
        repaint()
        page, page_cpu = [], []
        for _ in range(pages):
            def down() -> None:
                bar.setValue(bar.value() + bar.pageStep())
                app.processEvents()
                repaint()
            ms, cpu = timed_cpu(down)
            page.append(ms)
            page_cpu.append(cpu)
        rng = random.Random(29)
        jump = []
        for _ in range(pages):
            target = rng.randint(0, bar.maximum())

            def move(target: int = target) -> None:
                bar.setValue(target)
                app.processEvents()
                repaint()
            jump.append(timed_cpu(move)[0])
    finally:
        gc.enable()
    return {"page_p50_ms": statistics.median(page), "page_p95_ms": percentile(page, 0.95), "page_max_ms": max(page),
            "page_p95_cpu_ms": percentile(page_cpu, 0.95),
            "jump_p50_ms": statistics.median(jump), "jump_p95_ms": percentile(jump, 0.95), "jump_max_ms": max(jump),
            "height_px": bar.maximum() + bar.pageStep()}


def child_anchor(cards: int, themes: int, pages: int) -> dict:
    from PySide6.QtCore import QStringListModel
    from PySide6.QtWidgets import QApplication, QListView, QVBoxLayout, QWidget

    app = QApplication.instance() or QApplication([])
    items = make_items(cards, themes)
    window = QWidget()
    window.resize(WIDTH, HEIGHT)
    view = QListView(window)
    QVBoxLayout(window).addWidget(view)
    window.show()
    for _ in range(3):
        app.processEvents()
    before = rss_bytes()
    gc.disable()
    durations = []
    holder: list = []

    def fill() -> None:
        texts = [item.description for item in items.values()]
        model = QStringListModel(texts)
        holder.append(model)
        view.setModel(model)

    durations.append(timed_cpu(fill))
    durations.append(timed_cpu(lambda: (app.processEvents(), window.repaint(), app.processEvents())))
    gc.enable()
    result = {"fill": passes_summary(durations)}
    result["memory_per_card_kb"] = (rss_bytes() - before) / cards / 1024
    result["scroll"] = scrolling(app, view.verticalScrollBar(), view.viewport().repaint, pages)
    assert view.model().rowCount() == cards
    return result


def child_wall(cards: int, themes: int, pages: int, ops: bool) -> dict:
    import tempfile
    from pathlib import Path

    from PySide6.QtWidgets import QApplication

    from sonetto_desktop.memory import YamlMemoryManager
    from sonetto_desktop.ui.memory_service import MemoryService
    from sonetto_desktop.ui.wall import card_delegate
    from sonetto_desktop.presentation.cards import CardIndex, card_from_item
    from sonetto_desktop.ui.wall.memory_wall import MemoryWall

    counts = {"sizeHint": 0, "measured": 0}
    size_hint = card_delegate.CardDelegate.sizeHint

    def counted_size_hint(self, option, index):
        counts["sizeHint"] += 1
        return size_hint(self, option, index)

    card_delegate.CardDelegate.sizeHint = counted_size_hint
    # where a card is measured from its text: CardMetrics.measure (card_delegate.CardDelegate.card_layout
    # before issue 29)
    owner = getattr(card_delegate, "CardMetrics", card_delegate.CardDelegate)
    measure_name = "measure" if hasattr(owner, "measure") else "card_layout"
    measure = getattr(owner, measure_name)

    def counted_measure(self, cards_, *args, **kwargs):
        counts["measured"] += len(cards_)
        return measure(self, cards_, *args, **kwargs)

    setattr(owner, measure_name, counted_measure)

    app = QApplication.instance() or QApplication([])
    items = make_items(cards, themes)
    store = YamlMemoryManager(Path(tempfile.mkdtemp(prefix="sonetto-bench-")) / "memory.yaml")
    service = MemoryService(store)
    wall = MemoryWall(service)
    wall.resize(WIDTH, HEIGHT)
    wall.show()
    for _ in range(3):
        app.processEvents()
    before = rss_bytes()
    built: list = []
    # in the app the worker builds the cards and the model's lookups (read_card_index)
    result = {"cards_built_ms": timed_cpu(lambda: built.append(
        CardIndex.build([card_from_item(mid, item) for mid, item in items.items()])))[0]}
    gc.disable()
    durations = [timed_cpu(lambda: wall.model.set_cards(built.pop()))]
    while wall.loading():
        durations.append(timed_cpu(app.processEvents))
    durations.append(timed_cpu(lambda: (app.processEvents(), wall.repaint(), app.processEvents())))
    gc.enable()
    result["fill"] = passes_summary(durations)
    result["size_hints_per_card"] = counts["sizeHint"] / cards
    result["measured_per_card"] = counts["measured"] / cards
    result["memory_per_card_kb"] = (rss_bytes() - before) / cards / 1024
    result["gc_full_ms"] = timed_cpu(gc.collect)[0]
    shown = sum(len(s.proxy.ids()) for s in wall.sections().values())
    assert shown == cards, (shown, cards)
    result["scroll"] = scrolling(app, wall.scroll.verticalScrollBar(), wall.scroll.viewport().repaint, pages)
    if ops:
        result["ops"] = wall_ops(app, wall, cards)
    wall.close()
    service.close()
    store.close()
    return result


def wall_ops(app, wall, cards: int) -> dict:
    from sonetto_desktop.presentation.cards import DESCRIPTION, ID, replaced

    def passes(fn) -> dict:
        gc.disable()
        try:
            durations = [timed_cpu(fn)]
            while wall.loading():
                durations.append(timed_cpu(app.processEvents))
            durations.append(timed_cpu(lambda: (app.processEvents(), wall.repaint(), app.processEvents())))
        finally:
            gc.enable()
        return passes_summary(durations)

    wall.scroll.verticalScrollBar().setValue(0)
    ops = {"search": passes(lambda: wall.set_search("咖啡 猫"))}
    shown = sum(s.shown_count() for s in wall.sections().values())
    assert 0 < shown < cards, shown
    ops["clear"] = passes(lambda: wall.set_search(""))
    assert sum(s.shown_count() for s in wall.sections().values()) == cards
    ops["sort"] = passes(lambda: wall.set_sort_mode("hits"))
    card = wall.model.card("00000001")  # an edit: the card moves to the top of its theme
    changed = replaced(card, description=card[DESCRIPTION] + "（改）", time="2027-01-01T00:00:00")
    ops["live"] = passes(lambda: wall.model.apply_cards({card[ID]: changed}))
    return ops


# ── the parent: runs the children, prints the tables ──────────────────────


def run_child(kind: str, cards: int, args: argparse.Namespace) -> dict:
    command = [sys.executable, "-m", "bench.ui_wall", "--child", kind, "--cards", str(cards),
               "--themes", str(args.themes), "--pages", str(args.pages)]
    if args.no_ops:
        command.append("--no-ops")
    env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{kind} at {cards} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def median_of(runs: list[dict], *path: str) -> float:
    values = []
    for run in runs:
        value = run
        for key in path:
            value = value[key]
        values.append(value)
    return statistics.median(values)


def report(size: int, anchors: list[dict], walls: list[dict]) -> None:
    def row(label: str, *path: str, ratio: bool = True, fmt: str = "{:,.1f}") -> None:
        wall = median_of(walls, *path)
        anchor = median_of(anchors, *path) if anchors and path[0] != "ops" and _has(anchors[0], path) else None
        cells = [fmt.format(wall), fmt.format(anchor) if anchor is not None else "—"]
        cells.append(f"{wall / anchor:.2f}×" if ratio and anchor else "—")
        print(f"| {label} | " + " | ".join(cells) + " |")

    print(f"### {size:,} cards ({len(walls)} run(s) each, medians)")
    print()
    print("| measure | wall | bare QListView | wall / anchor |")
    print("|---|---:|---:|---:|")
    row("every card shown, ms (sum of the loop passes)", "fill", "total_ms")
    row("  the same, GUI-thread CPU ms", "fill", "total_cpu_ms")
    row("  longest single loop pass, ms", "fill", "longest_ms", ratio=False)
    row("  the same, GUI-thread CPU ms", "fill", "longest_cpu_ms", ratio=False)
    row("  loop passes (count)", "fill", "passes", ratio=False, fmt="{:,.0f}")
    row(f"  passes over {STALL_MS} ms (count)", "fill", "over_stall", ratio=False, fmt="{:,.0f}")
    row("sizeHint calls per card", "size_hints_per_card", ratio=False, fmt="{:.2f}")
    row("cards measured from their text, per card", "measured_per_card", ratio=False, fmt="{:.2f}")
    row("memory per card, KB (RSS added by showing them)", "memory_per_card_kb", fmt="{:.2f}")
    row("page scroll p50, ms", "scroll", "page_p50_ms")
    row("page scroll p95, ms", "scroll", "page_p95_ms")
    row("  the same, GUI-thread CPU ms", "scroll", "page_p95_cpu_ms")
    row("page scroll max, ms", "scroll", "page_max_ms", ratio=False)
    row("jump (scroll bar dragged) p95, ms", "scroll", "jump_p95_ms")
    row("jump max, ms", "scroll", "jump_max_ms", ratio=False)
    print(f"| wall's scroll height, px | {median_of(walls, 'scroll', 'height_px'):,.0f} | — | — |")
    if all("ops" in w for w in walls):
        for op, label in (("search", "search (2 words)"), ("clear", "search cleared"), ("sort", "sort by hits"),
                          ("live", "one live change (an edit)")):
            row(f"{label}: all passes, ms", "ops", op, "total_ms", ratio=False)
            row(f"{label}: longest pass, ms (CPU)", "ops", op, "longest_cpu_ms", ratio=False)
    row("cards built (worker thread in the app), ms", "cards_built_ms", ratio=False)
    row("a full gc.collect() after the fill, ms", "gc_full_ms", ratio=False)
    print()


def _has(run: dict, path: tuple[str, ...]) -> bool:
    value = run
    for key in path:
        if not isinstance(value, dict) or key not in value:
            return False
        value = value[key]
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,50000,100000", help="card counts, comma separated")
    parser.add_argument("--themes", type=int, default=12)
    parser.add_argument("--runs", type=int, default=1, help="child processes of each kind per size")
    parser.add_argument("--pages", type=int, default=60)
    parser.add_argument("--no-ops", action="store_true", help="skip the search / sort / live change passes")
    parser.add_argument("--json", action="store_true", help="also print every child's raw result")
    parser.add_argument("--child", choices=("anchor", "wall"), help=argparse.SUPPRESS)
    parser.add_argument("--cards", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.child:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        if args.child == "anchor":
            result = child_anchor(args.cards, args.themes, args.pages)
        else:
            result = child_wall(args.cards, args.themes, args.pages, not args.no_ops)
        print(json.dumps(result))
        return

    from PySide6 import __version__ as pyside_version

    sizes = [int(s) for s in args.sizes.split(",") if s]
    load = os.getloadavg()[0]
    print(f"{args.themes} themes, {WIDTH}x{HEIGHT}, offscreen, Python {platform.python_version()}, "
          f"PySide6 {pyside_version}, {platform.machine()}, {os.cpu_count()} CPUs, load average {load:.1f}")
    print()
    for size in sizes:
        anchors, walls = [], []
        for _ in range(args.runs):
            anchors.append(run_child("anchor", size, args))
            walls.append(run_child("wall", size, args))
        if args.json:
            print(json.dumps({"size": size, "anchor": anchors, "wall": walls}))
        report(size, anchors, walls)
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
