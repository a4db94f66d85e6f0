"""ReplyText: a reply as pieces (chunks of its text), one :class:`BubbleText` each.

A long reply is many small labels instead of one big one: while it streams only the last piece
changes, so each re-render lays out a bounded amount of text (linear overall), and every piece is
sized to its content like any bubble text. A long reply shown at once (a transcript) is rendered a
few pieces per turn of the event loop, never more than ``BUDGET_S`` at a time.
"""

from __future__ import annotations

import time
from typing import Callable

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QSizePolicy, QVBoxLayout, QWidget

from .bubble_text import BubbleText

BUDGET_S = 0.025
PIECE_SPACING = 10


class ReplyText(QWidget):
    link_activated = Signal(str)

    def __init__(self, parent: QWidget | None = None, *, limit: int = 480) -> None:
        super().__init__(parent)
        self._limit = limit
        self._column = QVBoxLayout(self)
        self._column.setContentsMargins(0, 0, 0, 0)
        self._column.setSpacing(PIECE_SPACING)  # the paragraph gap a label drops at its edges
        self._column.setSizeConstraint(QVBoxLayout.SizeConstraint.SetMinimumSize)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self._pieces: list[BubbleText] = []
        self._sources: list[str] = []  # the chunk each piece shows
        self._wanted: list[str] = []
        self._render: Callable[[str], str] = str
        self._later = QTimer(self)
        self._later.setSingleShot(True)
        self._later.setInterval(0)
        self._later.timeout.connect(self._apply)

    @property
    def pieces(self) -> list[BubbleText]:
        return list(self._pieces)

    def text(self) -> str:
        return "\n".join(piece.text() for piece in self._pieces)

    def set_width_limit(self, limit: int) -> None:
        self._limit = limit
        for piece in self._pieces:
            piece.set_width_limit(limit)

    @property
    def pending(self) -> bool:
        """Pieces are still being rendered (a long text shown at once)."""
        return self._later.isActive()

    def set_pieces(self, pieces: list[str]) -> None:
        """Show ready-made HTML pieces."""
        self.set_sources(pieces, str)

    def set_sources(self, sources: list[str], render: Callable[[str], str]) -> None:
        """Show ``render(source)`` for each source; unchanged pieces are left alone."""
        self._wanted, self._render = list(sources), render
        self._apply()

    def _apply(self) -> None:
        deadline = time.perf_counter() + BUDGET_S
        wanted = self._wanted
        while len(self._pieces) > len(wanted):
            piece = self._pieces.pop()
            self._sources.pop()
            self._column.removeWidget(piece)
            piece.hide()
            piece.deleteLater()
        for index, source in enumerate(wanted):
            if index < len(self._sources) and self._sources[index] == source:
                continue
            if time.perf_counter() > deadline:
                self._later.start()  # the rest on the next turn of the loop
                return
            if index == len(self._pieces):
                self._pieces.append(self._new_piece())
                self._sources.append("")
            self._pieces[index].setText(self._render(source))
            self._sources[index] = source

    def _new_piece(self) -> BubbleText:
        piece = BubbleText(self, limit=self._limit)
        piece.setObjectName("BubbleText")
        piece.setTextFormat(Qt.TextFormat.RichText)
        piece.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        piece.setOpenExternalLinks(False)  # every link goes through a confirmation
        piece.linkActivated.connect(self.link_activated)
        self._column.addWidget(piece)
        return piece
