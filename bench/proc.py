"""What the benches read of their own process."""

from __future__ import annotations

import time
import tracemalloc
from typing import Any, Callable


def rss_mb() -> float:
    """Resident memory of this process in MB (Linux ``/proc``; 0.0 where it cannot be read)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def timed_peak(fn: Callable[[], Any]) -> tuple[Any, float, float]:
    """``fn()``'s result, its wall time in seconds and the peak of Python memory it took in bytes
    (``tracemalloc``, started and stopped around it)."""
    tracemalloc.start()
    began = time.perf_counter()
    try:
        result = fn()
        took = time.perf_counter() - began
        _now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return result, took, peak
