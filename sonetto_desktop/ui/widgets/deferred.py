"""Deferred calls that never outlive what they touch.

``later(owner, fn)`` runs ``fn`` on a later turn of the Qt event loop, with ``owner`` as the
timer's context object: when ``owner`` (or a parent of it) is destroyed first, Qt drops the call,
so ``fn`` never runs against a deleted widget. Pass the innermost object ``fn`` captures (a view,
not the window): its parents' deletion deletes it too.

``alive(obj)`` is the check for code resumed after an ``await`` (a task cannot be dropped by Qt):
``if not alive(self): return`` before touching a widget again.

Every ``QTimer.singleShot`` in ``ui/`` goes through ``later``; repeating timers are created with
a parent (``QTimer(self)``), which Qt deletes with it.
"""

from __future__ import annotations

from typing import Callable

import shiboken6
from PySide6.QtCore import QObject, QTimer


def alive(obj: object) -> bool:
    """Whether ``obj`` (a Qt object, or anything else) can still be used."""
    if obj is None:
        return False
    if isinstance(obj, QObject):
        return shiboken6.isValid(obj)
    return True


def later(owner: QObject, fn: Callable[[], object], ms: int = 0) -> None:
    """Call ``fn()`` after ``ms`` milliseconds unless ``owner`` is destroyed first."""
    if not alive(owner):
        return

    def run() -> None:
        if alive(owner):  # belt and braces: Qt already drops the timer with its context object
            fn()

    QTimer.singleShot(ms, owner, run)
