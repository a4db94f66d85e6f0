"""One chat message: Markdown text, tool activity, recalled-memory chips and an inline error."""

from __future__ import annotations

import html
from typing import Any

import markdown
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QSizePolicy, QVBoxLayout, QWidget

from .flow_layout import FlowLayout
from .icons import icon

CHIP_CHARS = 16
RENDER_DELAY_MS = 40  # streaming re-renders at most ~25 times a second


def render_markdown(text: str) -> str:
    """Markdown -> HTML for a QLabel. Raw HTML in the text is shown as text, never interpreted."""
    md = markdown.Markdown(extensions=["fenced_code", "tables", "sane_lists", "nl2br"])
    md.preprocessors.deregister("html_block")
    md.inlinePatterns.deregister("html")
    return md.convert(text)


def chip_text(description: str, limit: int = CHIP_CHARS) -> str:
    text = " ".join((description or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class MessageBubble(QFrame):
    """``role`` is "user" or "assistant". Assistant bubbles stream (``append_token``)."""

    memory_clicked = Signal(str)
    retry_requested = Signal()

    def __init__(self, role: str, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.role = role
        self._text = text
        self._memories: list[dict[str, Any]] = []
        self.setObjectName("UserBubble" if role == "user" else "AssistantBubble")
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 12, 8)
        layout.setSpacing(6)

        self.label = QLabel(self)
        self.label.setObjectName("BubbleText")
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.RichText if role != "user" else Qt.TextFormat.PlainText)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextBrowserInteraction)
        self.label.setOpenExternalLinks(True)
        layout.addWidget(self.label)

        self.tool_label = QLabel(self)
        self.tool_label.setObjectName("ToolLine")
        self.tool_label.setWordWrap(True)
        self.tool_label.hide()
        layout.addWidget(self.tool_label)

        self.chips = QWidget(self)
        self.chip_layout = FlowLayout(self.chips)
        self.chips.hide()
        layout.addWidget(self.chips)

        self.error_box = QFrame(self)
        self.error_box.setObjectName("ErrorBox")
        error_layout = QHBoxLayout(self.error_box)
        error_layout.setContentsMargins(10, 6, 6, 6)
        self.error_label = QLabel(self.error_box)
        self.error_label.setWordWrap(True)
        self.retry_button = QPushButton(icon("retry"), self.tr("重试"), self.error_box)
        self.retry_button.clicked.connect(self.retry_requested)
        error_layout.addWidget(self.error_label, 1)
        error_layout.addWidget(self.retry_button, 0, Qt.AlignmentFlag.AlignTop)
        self.error_box.hide()
        layout.addWidget(self.error_box)

        self._render_timer = QTimer(self)
        self._render_timer.setSingleShot(True)
        self._render_timer.setInterval(RENDER_DELAY_MS)
        self._render_timer.timeout.connect(self._render)
        self._render()

    # ── content ────────────────────────────────────────────────────────

    @property
    def text(self) -> str:
        return self._text

    @property
    def memories(self) -> list[dict[str, Any]]:
        return list(self._memories)

    def set_text(self, text: str) -> None:
        self._text = text
        self._render()

    def append_token(self, token: str) -> None:
        self._text += token
        if not self._render_timer.isActive():
            self._render_timer.start()

    def flush(self) -> None:
        """Render now (end of a stream)."""
        self._render_timer.stop()
        self._render()

    def _render(self) -> None:
        if self.role == "user":
            self.label.setText(self._text)
        elif self._text:
            self.label.setText(render_markdown(self._text))
        else:
            thinking = html.escape(self.tr("思考中…"))
            self.label.setText(f"<span>{thinking}</span>")
        self.label.setVisible(bool(self._text) or self.role != "user")

    def set_tool_activity(self, text: str) -> None:
        self.tool_label.setText(text)
        self.tool_label.setVisible(bool(text))

    def set_memories(self, memories: list[dict[str, Any]]) -> None:
        while self.chip_layout.count():
            item = self.chip_layout.takeAt(0)
            if item is not None and item.widget() is not None:
                item.widget().deleteLater()
        self._memories = [m for m in memories if m.get("id")]
        for memory in self._memories:
            chip = QPushButton(icon("memory"), chip_text(str(memory.get("description", ""))), self.chips)
            chip.setObjectName("MemoryChip")
            chip.setCursor(Qt.CursorShape.PointingHandCursor)
            chip.setToolTip(self.tr("{0}：{1}").format(memory.get("theme", ""), memory.get("description", "")))
            chip.setProperty("memory_id", memory["id"])
            chip.clicked.connect(lambda _=False, mid=memory["id"]: self.memory_clicked.emit(mid))
            self.chip_layout.addWidget(chip)
        self.chips.setVisible(bool(self._memories))

    def chip_buttons(self) -> list[QPushButton]:
        return [self.chip_layout.itemAt(i).widget() for i in range(self.chip_layout.count())]

    def set_error(self, message: str, *, retry: bool = True) -> None:
        self.flush()
        self.error_label.setText(message)
        self.retry_button.setVisible(retry)
        self.error_box.setVisible(bool(message))
        if not self._text:
            self.label.hide()

    @property
    def error_text(self) -> str:
        return self.error_label.text() if self.error_box.isVisibleTo(self) else ""
