"""ReplyText: a reply as pieces (chunks of its text), one widget each.

A long reply is many small pieces instead of one big label: while it streams only the last piece
changes, so each re-render lays out a bounded amount of text (linear overall), and every piece is
sized to its content like any bubble text. A long reply shown at once (a transcript) is rendered a
few pieces per turn of the event loop, never more than ``BUDGET_S`` at a time.

A piece is prose (a :class:`BubbleText`), a fenced code block (a :class:`CodeBlock`: scrolls
sideways, copy button) or a table (a :class:`WideText`: scrolls sideways when it cannot wrap).
"""

from __future__ import annotations

import time
from typing import Callable

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QSizePolicy, QVBoxLayout, QWidget

from .bubble_text import BubbleText
from .code_block import CodeBlock, WideText
from .markdown_render import chunks, fence_parts, is_code, render_chunk, uses_markdown

Piece = BubbleText | CodeBlock | WideText
# Select and follow links with the mouse; the transcript itself is the keyboard's stop (no Tab
# through every link of a long chat).
MOUSE_TEXT = Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.LinksAccessibleByMouse

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
        self._pieces: list[Piece] = []
        self._sources: list[str] = []  # the chunk each piece shows
        self._wanted: list[str] = []
        self._render: Callable[[str], str] = str
        self._markdown = False  # the sources are Markdown chunks (code and tables get their own widgets)
        self._later = QTimer(self)
        self._later.setSingleShot(True)
        self._later.setInterval(0)
        self._later.timeout.connect(self._apply)

    @property
    def pieces(self) -> list[Piece]:
        return list(self._pieces)

    @property
    def code_blocks(self) -> list[CodeBlock]:
        return [piece for piece in self._pieces if isinstance(piece, CodeBlock)]

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
        self._wanted, self._render, self._markdown = list(sources), render, False
        self._apply()

    def set_markdown(self, text: str) -> None:
        """Show model text: Markdown in chunks (plain text when too long to be worth parsing)."""
        markdown = uses_markdown(text)
        self._wanted = chunks(text)
        self._render = lambda chunk: render_chunk(chunk, markdown=markdown)
        self._markdown = markdown
        self._apply()

    def _kind(self, source: str, rendered: str | None) -> type:
        if self._markdown and is_code(source):
            return CodeBlock
        if self._markdown and rendered is not None and "<table" in rendered:
            return WideText
        return BubbleText

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
            code = self._markdown and is_code(source)
            rendered = None if code else self._render(source)
            kind = self._kind(source, rendered)
            if index == len(self._pieces):
                self._pieces.append(self._new_piece(kind))
                self._sources.append("")
            elif type(self._pieces[index]) is not kind:  # e.g. a streaming table's first line was prose
                self._replace_piece(index, kind)
            piece = self._pieces[index]
            if isinstance(piece, CodeBlock):
                piece.set_code(*fence_parts(source))
            else:
                piece.setText(rendered)
            self._sources[index] = source

    def _new_piece(self, kind: type = BubbleText) -> Piece:
        piece = self._make_piece(kind)
        self._column.addWidget(piece)
        return piece

    def _make_piece(self, kind: type) -> Piece:
        if kind is CodeBlock:
            return CodeBlock(self, limit=self._limit)
        if kind is WideText:
            piece = WideText(self, limit=self._limit)
            piece.link_activated.connect(self.link_activated)
            return piece
        piece = BubbleText(self, limit=self._limit)
        piece.setObjectName("BubbleText")
        piece.setTextFormat(Qt.TextFormat.RichText)
        piece.setTextInteractionFlags(MOUSE_TEXT)
        piece.setOpenExternalLinks(False)  # every link goes through a confirmation
        piece.linkActivated.connect(self.link_activated)
        return piece

    def _replace_piece(self, index: int, kind: type) -> None:
        old = self._pieces[index]
        piece = self._make_piece(kind)
        self._column.replaceWidget(old, piece)
        old.hide()
        old.deleteLater()
        self._pieces[index] = piece
        self._sources[index] = ""
