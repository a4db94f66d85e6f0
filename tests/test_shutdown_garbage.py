"""No module of the window leaves objects the collector cannot free: a PySide6 ``Property`` (a type with
a legacy finalizer, ``tp_del``) in a reference cycle is "uncollectable" and stays in ``gc.garbage``; at
the end of a process that imported the wall, Python said "gc: 6 uncollectable objects at shutdown" (the
card view's six colour properties, whose getters and setters, defined in its module, held the module's
globals and so the class holding them). Checked in a clean child process, as a test run's end showed it."""

from __future__ import annotations

import os
import subprocess
import sys

_IMPORT_EVERY_UI_MODULE = """
import importlib, pkgutil, sys
sys.path[:0] = {path!r}
import sonetto_desktop.ui
for found in pkgutil.walk_packages(sonetto_desktop.ui.__path__, "sonetto_desktop.ui."):
    if not found.name.endswith("__main__"):
        importlib.import_module(found.name)
print("sonetto_desktop.ui.wall.card_view" in sys.modules)
"""


def test_no_window_module_leaves_uncollectable_objects_at_shutdown():
    done = subprocess.run([sys.executable, "-W", "default", "-c", _IMPORT_EVERY_UI_MODULE.format(path=sys.path)],
                          capture_output=True, text=True, timeout=300, env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True"  # the wall among them
    assert "uncollectable" not in done.stderr, done.stderr
