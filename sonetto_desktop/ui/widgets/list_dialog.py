"""The list dialogs' one skeleton (trash, review inbox, "don't remember", contradictions): a heading line,
the list, a row of action buttons (the dialog's own on the left, a stretch, the ones that act on the whole
list on the right), an optional status line, 关闭, and a task scope whose tasks end when the dialog closes.

A dialog owns one ``ListDialogFrame`` (composition, not a base class) and keeps only what is its own:
its texts (translated in its own context: the frame translates nothing), its rows, what its buttons do
and when they are enabled.
"""

from __future__ import annotations

import weakref
from collections.abc import Coroutine, Sequence
from typing import Any

import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QHBoxLayout, QLabel, QListWidget, QPushButton, QVBoxLayout, QWidget

from .focus import chain_tab_order
from .tasks import task_scope


class ListDialogFrame:
    """``dialog``'s heading, list, buttons, status line and close box; ``scope``: its task scope's name.
    ``multiline``: rows of several lines (wrapped, spaced apart, alternating colours). ``status``: the
    status line's object name ("" for one without a name; ``None``: no status line, ``say`` writes the
    heading). Add buttons with ``action``, then call ``lay_out`` once."""

    def __init__(self, dialog: QDialog, *, scope: str, heading: str, list_name: str = "", multiline: bool = False,
                 status: str | None = None) -> None:
        self._dialog = weakref.ref(dialog)  # the dialog owns the frame: no cycle back to it
        self.tasks = task_scope(dialog, scope)
        self._scope_name = scope
        self.heading = QLabel(heading, dialog)
        self.heading.setWordWrap(True)
        self.list = QListWidget(dialog)
        if list_name:
            self.list.setObjectName(list_name)
        if multiline:
            self.list.setWordWrap(True)
            self.list.setSpacing(4)  # one row is several lines: keep them apart
            self.list.setAlternatingRowColors(True)
        self.status: QLabel | None = None
        if status is not None:
            self.status = QLabel("", dialog)
            if status:
                self.status.setObjectName(status)
            self.status.setWordWrap(True)
            self.status.setTextFormat(Qt.TextFormat.PlainText)
        self._leading: list[QPushButton] = []
        self._trailing: list[QPushButton] = []
        self.close_box = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, dialog)
        self.close_box.rejected.connect(dialog.reject)
        dialog.finished.connect(lambda _code, tasks=self.tasks: tasks.cancel_all())

    def action(self, text: str, *, name: str = "", whole_list: bool = False, default: bool = False) -> QPushButton:
        """A button in the row (``whole_list``: on the right, after the stretch). Only a ``default`` one
        answers Enter; the others never do (an Enter in the list must not delete or approve)."""
        button = QPushButton(text, self._dialog())
        if name:
            button.setObjectName(name)
        button.setAutoDefault(default)
        button.setDefault(default)
        (self._trailing if whole_list else self._leading).append(button)
        return button

    def lay_out(self, *, notes: Sequence[QWidget] = ()) -> None:
        """Heading, list, ``notes`` (lines that belong to the list), buttons, status, close."""
        row = QHBoxLayout()
        for button in self._leading:
            row.addWidget(button)
        row.addStretch(1)
        for button in self._trailing:
            row.addWidget(button)
        layout = QVBoxLayout(self._dialog())
        layout.addWidget(self.heading)
        layout.addWidget(self.list, 1)
        for note in notes:
            layout.addWidget(note)
        layout.addLayout(row)
        if self.status is not None:
            layout.addWidget(self.status)
        layout.addWidget(self.close_box)
        # Tab in the order laid out: the close box was made first, and Tab went from the list to 关闭
        # before the buttons under the list (Tab, Enter for 添加… closed the dialog).
        chain_tab_order([self.list, *self._leading, *self._trailing, *self.close_box.buttons()])

    def spawn(self, coro: Coroutine[Any, Any, Any], name: str | None = None) -> Any:
        """Run ``coro`` in the dialog's scope (cancelled when the dialog closes or goes)."""
        return self.tasks.spawn(coro, name=name or self._scope_name)

    def say(self, text: str) -> None:
        """``text`` on the status line (or the heading, without one), unless the dialog is gone."""
        dialog = self._dialog()
        if dialog is not None and shiboken6.isValid(dialog):
            (self.status if self.status is not None else self.heading).setText(text)
