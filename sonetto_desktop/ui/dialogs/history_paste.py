"""PasteBox: the box ChatGPT's saved memories are pasted into (File → 导入聊天记录…), which takes no
more than a saved-memory list can be (issue 35, item 14).

A paste or a drop that would make the box longer than ``limit`` characters is refused before the
text enters the document (``too_long`` says how long it was): laying out megabytes in a text box
blocks the window, and no saved-memory list is that long. Whether the box holds anything is asked
of the document in constant time (``has_text``), never by copying its text on each keystroke.
"""

from __future__ import annotations

from PySide6.QtCore import QMimeData, Signal
from PySide6.QtWidgets import QPlainTextEdit, QWidget


class PasteBox(QPlainTextEdit):
    #: A paste or drop of this many characters was refused.
    too_long = Signal(int)

    def __init__(self, limit: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.limit = limit

    def has_text(self) -> bool:
        return not self.document().isEmpty()

    def insertFromMimeData(self, source: QMimeData) -> None:  # Qt's name
        if source.hasText():
            incoming = len(source.text())
            selected = len(self.textCursor().selectedText())
            if self.document().characterCount() - 1 - selected + incoming > self.limit:
                self.too_long.emit(incoming)
                return
        super().insertFromMimeData(source)
