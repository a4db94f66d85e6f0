"""Keyboard focus that stays where the person is.

A control that hides itself when used (a toast's 撤销, a failed reply's 重试, a list refilled under
its buttons) would otherwise hand the focus to whatever Qt finds next in the window's chain —
often a header button, where one Space pauses memory writing. These helpers put it back: on the
widget that had it before (when it still can take it) or on a fallback (the chat's input).

Buttons that act on something else (toolbars, bubble actions, toasts) use ``TabFocus``: reachable
with Tab, never taking the focus from the text the person is typing when clicked.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Callable

import shiboken6
from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication, QWidget

from .owner import Owner

Fallback = Callable[[], "QWidget | None"] | None


def focus_within(widget: QWidget | None) -> bool:
    """The keyboard focus is on ``widget`` or inside it."""
    focused = QApplication.focusWidget()
    return bool(widget is not None and focused is not None and shiboken6.isValid(widget)
                and (focused is widget or widget.isAncestorOf(focused)))


def can_take_focus(widget: QWidget | None) -> bool:
    return bool(widget is not None and shiboken6.isValid(widget) and widget.isVisible() and widget.isEnabled()
                and widget.focusPolicy() != Qt.FocusPolicy.NoFocus)


def give_focus(target: QWidget | None, fallback: Fallback = None) -> QWidget | None:
    """Focus ``target`` if it can take it, else what ``fallback()`` returns; the widget focused."""
    for widget in (target, fallback() if fallback is not None else None):
        if can_take_focus(widget):
            widget.setFocus(Qt.FocusReason.OtherFocusReason)
            return widget
    return None


def tab_buttons(*buttons: QWidget) -> None:
    """Reachable by Tab, not taking the focus on a click (see the module docstring)."""
    for button in buttons:
        button.setFocusPolicy(Qt.FocusPolicy.TabFocus)


class _EnterClicks(QObject):
    """Enter (or the keypad's) on the button it watches clicks it, as Space does."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent)
                and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and not event.isAutoRepeat()
                and event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier == Qt.KeyboardModifier.NoModifier
                and watched.isEnabled()):
            watched.click()
            return True
        return False


def enter_clicks(*buttons: QWidget) -> None:
    """Enter clicks these buttons (outside a dialog a button takes only Space; a link-like one, and
    the one the first screen gives the focus to, is followed with Enter)."""
    for button in buttons:
        button.installEventFilter(_EnterClicks(button))


def chain_tab_order(widgets: list[QWidget | None]) -> None:
    """Tab visits ``widgets`` in this order (None entries are skipped)."""
    present = [w for w in widgets if w is not None and shiboken6.isValid(w)]
    for first, second in pairwise(present):
        QWidget.setTabOrder(first, second)


class FocusMemory(QObject):
    """Remembers the last widget that had the focus outside ``area`` (a toast overlay), so the focus
    can go back there when a control inside the area that took it goes away."""

    _area = Owner()  # held weakly, so the owner and this part form no reference cycle (widgets/owner.py)

    def __init__(self, area: QWidget) -> None:
        super().__init__(area)
        self._area = area
        self._outside: QWidget | None = None
        app = QApplication.instance()
        if app is not None:
            app.focusChanged.connect(self._on_focus_changed)

    def _on_focus_changed(self, old: QWidget | None, new: QWidget | None) -> None:
        if not shiboken6.isValid(self._area):
            return
        if new is not None and self._area.isAncestorOf(new) and old is not None and not self._area.isAncestorOf(old):
            self._outside = old

    @property
    def outside(self) -> QWidget | None:
        widget = self._outside
        return widget if widget is not None and shiboken6.isValid(widget) else None
