"""The garbage collector only frees Qt objects on the Qt thread."""

from __future__ import annotations

import gc
import sys
import threading
import weakref

from PySide6.QtCore import QObject, QTimer

from sonetto_desktop.ui.gc_guard import MainThreadGarbageCollector, settle_after_start_up


class _Cyclic(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.timer = QTimer(self)
        self.timer.start(60_000)
        self.me = self  # a reference cycle: only the cyclic collector frees it


def test_worker_allocations_never_collect_qt_objects(qapp):
    was_enabled = gc.isenabled()
    guard = MainThreadGarbageCollector(interval_ms=60_000)
    try:
        assert not gc.isenabled()
        ref = weakref.ref(_Cyclic())
        assert ref() is not None

        def churn():
            junk = []
            for _ in range(50_000):  # far past the generation-0 threshold
                junk.append([[]])
            del junk

        worker = threading.Thread(target=churn)
        worker.start()
        worker.join()
        assert ref() is not None  # nothing collected on the worker thread
        for _ in range(3):
            guard.collect_due()
        gc.collect()  # what the timer does on the Qt thread, whatever the counts
        assert ref() is None
    finally:
        guard.stop()
        guard.deleteLater()
    assert gc.isenabled() == was_enabled


def test_settling_start_up_moves_its_objects_out_of_collections(qapp):
    survivors = [[i] for i in range(1000)]  # lists are tracked by the collector
    garbage = _Cyclic()  # start-up garbage in a cycle: collected, not frozen
    ref = weakref.ref(garbage)
    del garbage
    guard = MainThreadGarbageCollector(interval_ms=60_000)
    try:
        frozen = settle_after_start_up()  # what the app does once its start-up is over
        assert ref() is None
        assert frozen >= len(survivors)
        gc.collect()
        # a full collection leaves the frozen objects alone: none of the survivors is back in a generation the
        # collector walks (the freeze count itself moves: a frozen object freed by reference counting leaves it,
        # a worker still importing for an earlier test may freeze more)
        mine = {id(survivor) for survivor in survivors}
        assert not any(id(obj) in mine for generation in range(3) for obj in gc.get_objects(generation))
    finally:
        guard.stop()
        guard.deleteLater()
        gc.unfreeze()
    assert gc.get_freeze_count() == 0
    assert settle_after_start_up() == 0 and gc.get_freeze_count() == 0  # no collector runs: nothing frozen


def test_start_up_garbage_frozen_by_an_earlier_import_is_still_collected(qapp):
    """A module imported off the loop during start-up froze what existed then (aio.imports_settled),
    start-up garbage in cycles included: the start-up collection must still find it."""
    from sonetto_desktop.aio import imports_settled

    guard = MainThreadGarbageCollector(interval_ms=60_000)
    garbage = _Cyclic()
    ref = weakref.ref(garbage)
    del garbage  # cyclic garbage, not yet collected
    sys.modules.pop("colorsys", None)
    try:
        with imports_settled():
            import colorsys  # noqa: F401 - an import happens: everything alive is frozen
        assert gc.get_freeze_count() > 0
        gc.collect()
        assert ref() is not None  # frozen: a plain collection does not see it
        guard.settle()
        assert ref() is None
    finally:
        guard.stop()
        guard.deleteLater()
        gc.unfreeze()


def test_without_the_apps_collector_imports_freeze_nothing(qapp):
    """Outside the desktop app's policy (command line, MCP server, tests) an import burst freezes nothing:
    a frozen cycle would never be collected there."""
    from sonetto_desktop.aio import imports_settled

    sys.modules.pop("colorsys", None)
    with imports_settled():
        import colorsys  # noqa: F401
    assert gc.get_freeze_count() == 0


def test_no_collection_on_the_qt_thread_while_an_import_burst_runs_elsewhere(qapp):
    """The writer's first turn imports LangChain on a worker (aio.imports_settled): a collection on
    the Qt thread meanwhile would walk what that import is making, holding the GIL (the loop stalled
    58-66 ms, issue 29). The collector waits for the burst's end, then collects what is due."""
    from sonetto_desktop.aio import importing, imports_settled

    def due_garbage():
        ref = weakref.ref(_Cyclic())  # freed only by a collection
        junk = [[[]] for _ in range(gc.get_threshold()[0] * 3)]  # generation 0 well past its threshold
        return ref, junk  # (kept until collected: freeing them would take the count back down)

    guard = MainThreadGarbageCollector(interval_ms=60_000)
    inside, leave = threading.Event(), threading.Event()

    def burst():
        with imports_settled():
            inside.set()
            leave.wait(10)

    worker = threading.Thread(target=burst)
    try:
        ref, junk = due_garbage()
        worker.start()
        assert inside.wait(10) and importing()
        assert guard.collect_due() == 0 and ref() is not None  # held while the burst runs
        leave.set()
        worker.join()
        assert not importing()
        assert guard.collect_due() > 0 and ref() is None  # the next tick collects what is due
        del junk
        guard.stop()
        unheld = MainThreadGarbageCollector(interval_ms=60_000, hold_during_imports=False)
        try:
            with imports_settled():  # the hold switched off: collects during a burst, as before
                ref, junk = due_garbage()
                assert unheld.collect_due() > 0 and ref() is None
        finally:
            unheld.stop()
            unheld.deleteLater()
    finally:
        leave.set()
        if worker.is_alive():
            worker.join()
        guard.stop()
        guard.deleteLater()
        gc.unfreeze()
