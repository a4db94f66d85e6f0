"""Python's full collections at moments nobody waits for them (issue 37).

A full collection (generation 2) walks every object the collector tracks while holding the GIL, on
whichever thread happened to allocate: in the running app 44–63 ms before the LLM stack is imported and
143–162 ms after it (~212,000 tracked objects, a machine at load 5). With Python's default thresholds
(700, 10, 10) one is started after every ten generation-1 collections once the objects that reached the
oldest generation since the last one exceed a quarter of it, so the LLM stack's import at the first chat
turn (~139,000 new objects) made three or four of them while the person waited for the reply (the
window 100–520 ms late), and every later one came in the middle of whatever the person was doing.

The collector stays on (issue 39: no ``gc.disable`` / ``gc.freeze``; the young generations are collected
as always). :class:`QuietPasses` lets the automatic full passes come a hundred times less often
(``FULL_PASS_EVERY`` generation-1 collections instead of ten) and says when one is due by Python's own
count (``DUE_AFTER``, the default's ten); the window runs it at a quiet moment (``ui/quiet_collector.py``:
no input for a while, no reply being written). Garbage in old cycles is still freed: at the next pause,
or, for a person who never pauses, by the automatic pass after ``FULL_PASS_EVERY`` (the first chat turn
at 100,000 memories, with the writer's index built, makes ~90 generation-1 collections: with 100 its
last steps started a full pass on the worker, 359-872 ms at load 6-7).

Only on CPython before 3.14: 3.14's incremental collector reads the thresholds differently (there it
does nothing and ``installed`` is False).
"""

from __future__ import annotations

import gc
import logging
import platform
import sys
import threading
import time

log = logging.getLogger(__name__)

#: generation-1 collections between automatic full passes while the policy is installed (Python's 10):
#: a backstop for a person who never pauses, far above what one burst of work makes (see the module doc)
FULL_PASS_EVERY = 1000
#: generation-1 collections since the last full pass after which one is due at the next quiet moment
DUE_AFTER = 10
#: a quiet pass takes at most this share of the time since the one before (Python's own rule, a quarter
#: of the heap new, is not known here: without it a worker that allocates while the window is idle, an
#: import say, would have a pass of 0.2 s every second)
DUTY = 0.05


def _supported() -> bool:
    return platform.python_implementation() == "CPython" and sys.version_info < (3, 14)


class QuietPasses:
    """The full-pass policy of one process. ``install`` / ``uninstall`` may be nested (each app of a
    test process installs it); the thresholds are Python's own again after the last ``uninstall``."""

    _lock = threading.Lock()
    _installs = 0
    _saved: tuple[int, ...] | None = None

    def __init__(self, clock=time.monotonic) -> None:
        self.installed = False
        self.passes = 0  # full passes run by ``run``
        self.last_ms = 0.0
        self._clock = clock
        self._last_end = -float("inf")

    def install(self) -> bool:
        """Let automatic full passes come ``FULL_PASS_EVERY`` generation-1 collections apart; whether
        the policy is in force (not on another interpreter, nor when the thresholds were changed
        before, e.g. by ``PYTHON`` options of an embedding program: those are left alone)."""
        if self.installed or not _supported():
            return self.installed
        cls = type(self)
        with cls._lock:
            if cls._installs == 0:
                current = gc.get_threshold()
                if current[1:] != (10, 10):
                    log.info("the collector's thresholds were set elsewhere (%s): left as they are", current)
                    return False
                cls._saved = current
                gc.set_threshold(current[0], current[1], FULL_PASS_EVERY)
            cls._installs += 1
        self.installed = True
        return True

    def uninstall(self) -> None:
        if not self.installed:
            return
        self.installed = False
        cls = type(self)
        with cls._lock:
            cls._installs -= 1
            if cls._installs == 0 and cls._saved is not None:
                gc.set_threshold(*cls._saved)
                cls._saved = None

    def due(self) -> bool:
        """A full pass is due: the collector is on, Python's default would have started one by its count
        (generation-1 collections since the last full pass), and the last one is long enough ago that
        passes take at most ``DUTY`` of the time."""
        if not (self.installed and gc.isenabled() and gc.get_count()[2] >= DUE_AFTER):
            return False
        return self._clock() - self._last_end >= self.last_ms / 1000 / DUTY

    def run(self) -> float:
        """One full pass now, on this thread; its length in ms."""
        started = time.perf_counter()
        found = gc.collect()
        self.last_ms = (time.perf_counter() - started) * 1000
        self.passes += 1
        self._last_end = self._clock()
        log.debug("full collection at a quiet moment: %.1f ms, %d unreachable", self.last_ms, found)
        return self.last_ms
