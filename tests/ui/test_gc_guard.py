"""The garbage collector only frees Qt objects on the Qt thread."""

from __future__ import annotations

import gc
import threading
import weakref

from PySide6.QtCore import QObject, QTimer

from sonetto_desktop.ui.gc_guard import MainThreadGarbageCollector


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


def test_freezing_startup_objects_moves_them_out_of_collections(qapp):
    from sonetto_desktop.ui.gc_guard import freeze_startup_objects

    survivors = [[i] for i in range(1000)]  # lists are tracked by the collector
    garbage = _Cyclic()  # start-up garbage in a cycle: collected, not frozen
    ref = weakref.ref(garbage)
    del garbage
    try:
        frozen = freeze_startup_objects()
        assert ref() is None
        assert frozen >= len(survivors) and gc.get_freeze_count() == frozen
        gc.collect()
        assert gc.get_freeze_count() == frozen  # a full collection leaves the frozen objects alone
    finally:
        gc.unfreeze()
    assert gc.get_freeze_count() == 0
