"""A word-wrapped label that is always as tall as its text needs at its width.

Qt gives a wrapped label its height for its width only where every layout above it asks for it; a
page of a ``QStackedWidget`` does not, so there a long text got the label's one guess at a height and
its last lines were cut (the history import's how-to lines, seen at 1366 x 768 with room left below).
This label keeps its minimum height at what its text needs for the width it was given."""

from __future__ import annotations

from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QWidget


class WrappedLabel(QLabel):
    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setWordWrap(True)

    def setText(self, text: str) -> None:
        super().setText(text)
        self._fit()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        held = self.minimumHeight()
        if held:
            self.setMinimumHeight(0)  # (QLabel's height for a width is never less than its minimum height)
        need = max(self.heightForWidth(self.width()), 0) if self.text() else 0
        self.setMinimumHeight(need)
