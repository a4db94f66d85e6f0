"""The memory wall's pinyin search without the window: what its first use costs (issue 37).

    python -m bench.pinyin_search [--cards 10000]

In a fresh process: the first ``warm_pinyin`` (one card: what the first pinyin search's worker loads)
timed, with the RSS it adds and the longest a second Python thread (a 1 ms sleep loop) was kept
waiting meanwhile (how long the load held the GIL: the Qt thread waits as long); then the pinyin of
``--cards`` cards (the texts ``bench/ui_launch.py`` fills a store with) made, per card; then
matching those cards against a pinyin query, per card (what the wall's slices do on the Qt thread).
Not a test: the numbers go to docs/benchmarks.md ("What a person does after start-up").
"""

from __future__ import annotations

import argparse
import json
import threading
import time

from bench.proc import rss_mb

THEMES = ["身份", "品味", "瞬间", "项目", "音乐", "爱好", "工作", "家人", "朋友", "健康", "学习", "旅行"]


class Waiter:
    """A thread sleeping 1 ms at a time: the longest it woke late (the GIL held elsewhere)."""

    def __init__(self) -> None:
        self.longest = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        last = time.perf_counter()
        while not self._stop.is_set():
            time.sleep(0.001)
            now = time.perf_counter()
            self.longest = max(self.longest, now - last - 0.001)
            last = now

    def stop(self) -> float:
        self._stop.set()
        self._thread.join()
        return self.longest * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cards", type=int, default=10_000)
    args = parser.parse_args()
    import sonetto_desktop.memory.retrieval  # noqa: F401  (the running app has it: recall, the wall's table)
    from sonetto_desktop.ui.wall import search_text
    from sonetto_desktop.ui.wall.search_text import SearchQuery, warm_pinyin

    texts = [f"用户提到的第 {i} 件事：周末去了{THEMES[i % 12]}相关的地方" for i in range(args.cards)]
    time.sleep(0.2)
    rss = rss_mb()
    waiter = Waiter()
    time.sleep(0.05)
    t0 = time.perf_counter()
    warm_pinyin(texts[:1])
    first = (time.perf_counter() - t0) * 1000
    held = waiter.stop()
    out = {"first_warm_ms": round(first, 1), "longest_gil_hold_ms": round(held, 1),
           "rss_added_mb": round(rss_mb() - rss, 1)}
    table = getattr(search_text, "_tables", None)
    if table is not None:  # the table of our own: read again, alone
        table.cache_clear()
        t0 = time.perf_counter()
        table()
        out["table_read_ms"] = round((time.perf_counter() - t0) * 1000, 1)
    t0 = time.perf_counter()
    warm_pinyin(texts[1:])
    out["warm_us_per_card"] = round((time.perf_counter() - t0) / max(1, len(texts) - 1) * 1e6, 1)
    out["rss_added_with_cards_mb"] = round(rss_mb() - rss, 1)
    for typed in ("yinyue", "zmql", "zzqx"):  # matches every 12th card / every card (initials) / none
        query = SearchQuery(typed)
        t0 = time.perf_counter()
        shown = sum(1 for text in texts if query.matches(text, THEMES[0]))
        out[f"match_us_per_card:{typed}"] = round((time.perf_counter() - t0) / len(texts) * 1e6, 2)
        out[f"matched:{typed}"] = shown
    print(json.dumps(out, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
