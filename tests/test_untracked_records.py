"""What the app keeps per memory is not walked by the collector (issue 37).

At 100,000 memories every generation-2 collection walked 300,000 per-memory records — the wall's
cards, the recall listing's entries, the writer index's entries — and stalled the Qt loop for about
90 ms each time while the wall filled. They are kept as exact tuples of strings, numbers and None,
which CPython stops tracking at the first collection that sees them, so what they cost a full
collection does not grow with the number of memories. (The collector stays on: tests/test_import_rule.py.)

Each test builds one of the three over a real SQLite store of a few hundred and of a few thousand
memories and counts what the collector tracks (``gc.get_objects()`` after ``gc.collect()``) before
and after: the difference may not grow with the store. A dataclass record, slotted or not, or a
namedtuple, would add one tracked object per memory.
"""

from __future__ import annotations

import gc
from datetime import datetime, timedelta
from typing import Any, Callable

import pytest

from helpers import wait_for_quiet
from sonetto_desktop.memory.item import MemoryItem
from sonetto_desktop.memory.retrieval.listing import RecallListing
from sonetto_desktop.memory.stores.sqlite import SqliteMemoryManager
from sonetto_desktop.memory.writer.index import WriterIndex
from sonetto_desktop.presentation.cards import read_card_index

SMALL, LARGE = 300, 3_000
START = datetime(2026, 1, 1, 9, 0, 0)
#: Tracked objects a structure may gain per memory added (a record per memory would be 1 or more).
PER_MEMORY = 0.1


def _store(path, n: int) -> SqliteMemoryManager:
    """``n`` memories as the app has them: several themes, dated to-dos, stated names, pinned ones,
    a sixth of them written by another app."""
    mm = SqliteMemoryManager(path)
    items = {}
    for i in range(n):
        theme = ("时效待办", "品味", "瞬间", "工作", "朋友")[i % 5]
        text = (f"用户{i % 12 + 1}月{i % 28 + 1}日要交第{i}份报告" if theme == "时效待办" else
                f"用户的昵称是小林{i % 7}" if i % 11 == 0 else f"第{i}条：小林记下了一件关于第{i % 17}个朋友的小事。")
        stamp = (START + timedelta(minutes=7 * i)).isoformat(timespec="seconds")
        actor = "mcp:claude" if i % 6 == 0 else "user"
        items[f"m{i:05d}"] = MemoryItem(text, theme, latest_update_time=stamp, hit=i % 9, pinned=i % 29 == 0, history=[
            {"time": stamp, "action": "create", "actor": actor, "reason": "由 " + actor + " 添加"}])
    mm.import_items(items)
    return mm


def _tracked_growth(tmp_path, build: Callable[[SqliteMemoryManager], Any]) -> tuple[int, int]:
    """(tracked objects that what ``build`` returns keeps at SMALL memories, at LARGE), after a first
    build that loads what is made once (modules, compiled patterns, caches)."""
    kept = []
    for n in (SMALL, SMALL, LARGE):
        mm = _store(tmp_path / f"m{len(kept)}.db", n)
        try:
            wait_for_quiet()  # what another test's leftover thread makes is not the structure's
            gc.collect()
            before = len(gc.get_objects())
            held = build(mm)
            gc.collect()
            kept.append(len(gc.get_objects()) - before)
            close = getattr(held, "close", None)
            if close is not None:
                close()
            del held
        finally:
            mm.close()
    return kept[1], kept[2]


def _listing(mm: SqliteMemoryManager) -> RecallListing:
    listing = RecallListing(mm)
    listing.parts()  # read, sorted into its two parts, and frozen into snapshots (as a recall leaves it)
    listing.snapshot()
    return listing


def _writer_index(mm: SqliteMemoryManager) -> WriterIndex:
    index = WriterIndex(mm)
    index.warm_up()
    return index


@pytest.mark.parametrize("build", [read_card_index, _listing, _writer_index],
                         ids=["wall cards", "recall listing", "writer index"])
def test_what_is_kept_per_memory_is_not_tracked_by_the_collector(tmp_path, build):
    small, large = _tracked_growth(tmp_path, build)
    assert large - small <= PER_MEMORY * (LARGE - SMALL), (small, large)
