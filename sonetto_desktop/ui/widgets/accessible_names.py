"""Icon-only buttons get a name a screen reader can say.

A button that shows only an icon says nothing to assistive technology unless it has an accessible
name. ``name_icon_buttons(root)`` gives every such button under ``root`` that has none its tooltip
(without a trailing "(Enter)"-style key hint), and Qt's clear button inside a line edit "清除"."""

from __future__ import annotations

import re

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QAbstractButton, QLineEdit, QWidget

_KEY_HINT = re.compile(r"\s*[（(][^（()）]*[)）]\s*$")


def name_icon_buttons(root: QWidget) -> int:
    """Name every unnamed icon-only button under ``root``; returns how many were named."""
    named = 0
    for button in root.findChildren(QAbstractButton):
        if button.text().strip() or button.accessibleName().strip():
            continue
        name = _KEY_HINT.sub("", button.toolTip()).strip()
        if not name and isinstance(button.parentWidget(), QLineEdit):
            name = QCoreApplication.translate("AccessibleNames", "清除")
        if name:
            button.setAccessibleName(name)
            named += 1
    return named
