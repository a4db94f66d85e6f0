"""The app's one garbage-collection policy: Python's cyclic collector runs on the Qt thread only.

Why it is needed (measured, not assumed): PySide6 widgets routinely sit in Python reference cycles —
a part that keeps its owner (``self._wall = wall``) while the owner keeps the part, a dialog's closure
over itself — so they are freed by the cyclic collector, not by reference counting. The collector
runs on whichever thread happens to allocate when a threshold is crossed, and our worker threads
(store writes, LangChain's sync tools, recall) allocate a lot: a collection there that frees a QObject
makes Qt destroy it on the wrong thread ("Timers cannot be stopped from another thread", or worse).

So, while a :class:`MainThreadGarbageCollector` runs (the app installs one for its lifetime):

- automatic collection is off, and a timer on the Qt thread collects whichever generations crossed
  their thresholds (:func:`collect_due`: usually the youngest, cheap);
- once start-up is over (:func:`settle_after_start_up`) and after a large import in a worker
  (``aio.imports_settled``), the long-lived objects are frozen (``gc.freeze``), so the Qt thread's
  later full collections walk only what was made since (LangChain alone makes ~150,000 objects).

Without a collector (a command line, a test building parts of the UI) nothing is frozen and the
caller decides when to collect (the UI tests collect the due generations after each test, as here).
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

from sonetto_desktop import aio


def collect_due() -> int:
    """Collect the oldest generation whose count passed its threshold (nothing if none did): what
    Python's automatic collection would do next. Returns the objects freed."""
    counts = gc.get_count()
    thresholds = gc.get_threshold()
    generation = -1
    for gen in range(3):
        if thresholds[gen] and counts[gen] > thresholds[gen]:
            generation = gen
    return gc.collect(generation) if generation >= 0 else 0


class MainThreadGarbageCollector(QObject):
    """The policy of the module docstring, for as long as it runs (``stop()`` gives collection back).
    ``hold_during_imports``: the timer collects nothing while an import burst runs on another thread
    (see :meth:`collect_due`); off only to measure what that saves (bench/ui_launch.py --gc-hold off)."""

    active: MainThreadGarbageCollector | None = None

    def __init__(self, parent: QObject | None = None, *, interval_ms: int = 500,
                 hold_during_imports: bool = True) -> None:
        super().__init__(parent)
        self._hold = hold_during_imports
        self._was_enabled = gc.isenabled()
        gc.disable()
        aio.freeze_after_imports(True)
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.collect_due)
        self._timer.start()
        MainThreadGarbageCollector.active = self

    def collect_due(self) -> int:
        """Collect the oldest generation whose count passed its threshold; returns objects freed.
        Nothing while an import burst (``aio.imports_settled``) runs on another thread: a collection
        would walk the objects that import is making while holding the GIL, so the Qt thread's loop
        stalls for tens of ms (the writer's first turn imports LangChain, issue 29), and they are
        frozen at the burst's end anyway; what is still due is collected at the first tick after it."""
        if self._hold and aio.importing():
            return 0
        return collect_due()

    def settle(self) -> int:
        """Start-up is over (Qt, LangChain, jieba loaded): collect everything once — what earlier
        imports froze included — then freeze the survivors, so later full collections scan only what
        was made since (the writer benchmark: longest full collection ~110 ms -> ~20 ms). Returns how
        many objects were frozen."""
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        return gc.get_freeze_count()

    def stop(self) -> None:
        """Stop the timer, collect once here, and give collection back to Python."""
        self._timer.stop()
        aio.freeze_after_imports(False)
        if MainThreadGarbageCollector.active is self:
            MainThreadGarbageCollector.active = None
        gc.collect()
        if self._was_enabled:
            gc.enable()


def settle_after_start_up() -> int:
    """The app's start-up is over: settle the running collector's heap (``settle``); 0 without one."""
    collector = MainThreadGarbageCollector.active
    return collector.settle() if collector is not None else 0
