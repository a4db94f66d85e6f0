"""A part's reference back to its owner, held weakly, so widgets and their parts form no cycles.

A part (the wall's loader, search, selection…) is owned by a widget that keeps it in an attribute,
and it needs its owner back. Held strongly, the pair is a reference cycle: reference counting never
frees it, and Python's cyclic collector frees it later on whichever thread happens to allocate — a
worker thread included, where destroying a Qt object is wrong. Held through :class:`Owner`, the
back reference does not count, so a closed widget and its parts go the moment the last outside
reference does, on the thread that dropped it (the Qt thread), and the collector can stay on.

    class WallLoader(QObject):
        _wall = Owner()                    # declared once on the class

        def __init__(self, wall):
            self._wall = wall              # stored as a weak reference
            ...self._wall.model...         # read back as the object (None once it is gone)

A bound method is held by :class:`weakref.WeakMethod` (its object weakly, the function strongly);
a plain function or lambda is refused: nothing else would keep it alive. Parts that only tell their
owner something use a signal instead (Qt drops the connection with either end).
"""

from __future__ import annotations

import inspect
import weakref
from typing import Any


class Owner:
    """A data descriptor: the attribute holds its value weakly (see the module docstring)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self._slot = f"_{name.lstrip('_')}__weak"

    def __get__(self, obj: Any, objtype: type | None = None) -> Any:
        if obj is None:
            return self
        ref = obj.__dict__.get(self._slot)
        return ref() if ref is not None else None

    def __set__(self, obj: Any, value: Any) -> None:
        if value is None:
            obj.__dict__[self._slot] = None
        elif inspect.ismethod(value):
            obj.__dict__[self._slot] = weakref.WeakMethod(value)
        elif inspect.isbuiltin(value) and not inspect.ismodule(getattr(value, "__self__", None)):
            obj.__dict__[self._slot] = _WeakBuiltinMethod(value)  # a Qt method: ``widget.close``
        elif inspect.isfunction(value) or isinstance(value, weakref.ref):
            raise TypeError(f"Owner holds objects and bound methods weakly, not {value!r}")
        else:
            obj.__dict__[self._slot] = weakref.ref(value)


class _WeakBuiltinMethod:
    """``WeakMethod`` for a method implemented in C (a Qt widget's own ``close``, ``update``…)."""

    def __init__(self, method: Any) -> None:
        self._self = weakref.ref(method.__self__)
        self._name = method.__name__

    def __call__(self) -> Any:
        target = self._self()
        return getattr(target, self._name) if target is not None else None
