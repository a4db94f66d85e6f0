"""The filled wall keeps nothing per card that the collector walks (issue 37): at 100,000 memories
every generation-2 collection walked the wall's 100,000 ``Card`` objects and stalled the loop while
the wall filled. A card is an exact tuple of strings, numbers and None, which CPython stops tracking
at its first collection; the model's lookups, the sections' id lists and the flows hold strings and
numbers only. So the objects the collector tracks once a wall is shown do not grow with its cards.

A real wall over a real store at two sizes; counted with ``gc.get_objects()`` after ``gc.collect()``
(see tests/test_untracked_records.py for the recall listing and the writer's index)."""

from __future__ import annotations

import gc
from statistics import median

from PySide6.QtCore import QCoreApplication, QEvent

from helpers import quiet
from service_fixtures import memory_service_over
from sonetto_desktop.memory.stores.sqlite import SqliteMemoryManager
from test_wall_loading import _items, _wall, loaded, shown_ids

SMALL, LARGE = 300, 3_000
#: Tracked objects the shown wall may gain per card added (a record per card would be 1 or more).
PER_CARD = 0.1


async def _tracked_by_wall(tmp_path, qtbot, wait, cards: int) -> int:
    tmp_path.mkdir(parents=True, exist_ok=True)
    store = SqliteMemoryManager(tmp_path / f"w{cards}.db")  # (a store that keeps no copy of its memories)
    store.import_items(_items(cards))
    service_of = memory_service_over(store)
    service = next(service_of)
    try:
        await quiet()  # what another test's leftover thread makes is not the wall's
        QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)  # what an earlier wall left to delete
        gc.collect()
        before = len(gc.get_objects())
        wall = _wall(service, qtbot)
        await wall.reload()
        await loaded(wall, wait)
        assert len(shown_ids(wall)) == cards
        gc.collect()
        kept = len(gc.get_objects()) - before
        wall.close()
        return kept
    finally:
        next(service_of, None)
        store.close()


async def test_the_shown_wall_keeps_nothing_per_card_that_the_collector_walks(tmp_path, qtbot, wait):
    await _tracked_by_wall(tmp_path, qtbot, wait, SMALL)  # what a first wall makes once (styles, fonts, caches)
    # Each size counted three times, each count begun when the process's other threads
    # are idle: what the wall keeps is there every time, while a thread another test of this process
    # left running (a build finishing) adds objects to a count (seen in CI: 919 against 24, and
    # 303 / 853, with code that passed the run before; once more with two counts each).
    # (The median of three: one count thrown off either way — objects made by another thread, or freed
    # during it: a small count of -249 once — does not decide.)
    small = median([await _tracked_by_wall(tmp_path / f"s{n}", qtbot, wait, SMALL) for n in range(3)])
    large = median([await _tracked_by_wall(tmp_path / f"l{n}", qtbot, wait, LARGE) for n in range(3)])
    if large - small > PER_CARD * (LARGE - SMALL):
        # Once more, after a longer quiet: in a full run on two loaded workers a thread that another test
        # of this process left working kept making objects through all three counts (877 / 268 once, the
        # file alone and tests/ui alone passing). What the wall itself keeps per card is there every time.
        busy = _busy_threads()
        await quiet(30)
        small = median([await _tracked_by_wall(tmp_path / f"s{n}b", qtbot, wait, SMALL) for n in range(3)])
        large = median([await _tracked_by_wall(tmp_path / f"l{n}b", qtbot, wait, LARGE) for n in range(3)])
        assert large - small <= PER_CARD * (LARGE - SMALL), (small, large, busy, _busy_threads())


def _busy_threads() -> list[str]:
    """The threads of this process not waiting (what may have made objects during a count)."""
    import sys
    import threading

    from helpers import _WAITING

    names = {t.ident: t.name for t in threading.enumerate()}
    return [f"{names.get(ident, ident)}: {frame.f_code.co_filename.rsplit('/', 1)[-1]}:{frame.f_lineno} {frame.f_code.co_name}"
            for ident, frame in sys._current_frames().items()
            if ident != threading.get_ident() and frame.f_code.co_name not in _WAITING]
