"""CharCounter: "12 / 5,000" under a text box, marked when the text is over the domain's limit
(``memory/item.py``'s ``MAX_DESCRIPTION_CHARS``), so a person sees the limit before saving."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QPlainTextEdit, QWidget


class CharCounter(QLabel):
    def __init__(self, editor: QPlainTextEdit, limit: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("CharCounter")
        self._editor = editor
        self.limit = limit
        editor.textChanged.connect(self._update)
        self._update()

    def count(self) -> int:
        return len(self._editor.toPlainText().strip())

    def over(self) -> bool:
        return self.count() > self.limit

    def _update(self) -> None:
        self.setText(f"{self.count():,} / {self.limit:,}")
        over = self.over()
        if self.property("over") != over:
            self.setProperty("over", over)
            self.style().unpolish(self)
            self.style().polish(self)
