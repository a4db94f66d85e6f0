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


def run_offscreen_app(measure: Callable[[Any], Any]) -> int:
    """Run ``await measure(qapp)`` on a qasync loop over an offscreen QApplication, with a throwaway
    profile (``SONETTO_CONFIG_DIR`` / ``SONETTO_DATA_DIR`` unless set), and print its result as JSON."""
    import asyncio
    import json
    import os
    import tempfile
    from pathlib import Path

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("QT_API", "pyside6")
    with tempfile.TemporaryDirectory() as home:
        os.environ.setdefault("SONETTO_CONFIG_DIR", str(Path(home) / "config"))
        os.environ.setdefault("SONETTO_DATA_DIR", str(Path(home) / "data"))
        import qasync
        from PySide6.QtWidgets import QApplication

        qapp = QApplication.instance() or QApplication([])
        loop = qasync.QEventLoop(qapp)
        asyncio.set_event_loop(loop)
        with loop:
            out = loop.run_until_complete(measure(qapp))
    print(json.dumps(out, ensure_ascii=False, indent=1))
    return 0
