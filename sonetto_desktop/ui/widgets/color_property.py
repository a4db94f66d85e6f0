"""A widget's colour as a Qt property, so that the shared QSS can set it (``qproperty-<name>: #hex``).

Its getter and setter are made here, not in the widget's module: a PySide6 ``Property`` has a legacy
finalizer, so in a reference cycle the collector cannot free it (``gc.garbage``; "gc: N uncollectable
objects at shutdown"). Functions defined in the widget's module hold that module's globals, which hold
the widget's class, which holds the property: a cycle. These hold this module's globals only, which
hold no widget (``tests/test_shutdown_garbage.py``).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Property
from PySide6.QtGui import QColor


def color_property(name: str, default: str) -> Any:
    """The ``QColor`` property ``name`` (``default``, a colour name, until set), kept in ``_<name>``;
    setting it calls the widget's ``_color_changed()`` (a cache to drop, a repaint)."""
    attr = f"_{name}"

    def getter(widget: Any) -> QColor:
        return getattr(widget, attr, None) or QColor(default)

    def setter(widget: Any, value: QColor) -> None:
        setattr(widget, attr, QColor(value))
        widget._color_changed()

    return Property(QColor, getter, setter)
