"""WriterToasts: the memory writer's events, told to the person as toasts.

The writer publishes :class:`MemoryEvent` s on its own thread; a :class:`QtEventBridge` brings
them to the GUI thread, where ``toast_for`` decides what (if anything) to say. Clicking a toast
about a memory that still exists reveals its card.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from PySide6.QtCore import QCoreApplication, QObject

from sonetto_desktop.memory.events import MemoryEvent

from .qt_bridge import QtEventBridge, Subscribe
from .toasts import ToastOverlay

PREVIEW_CHARS = 40


def _preview(text: str) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= PREVIEW_CHARS else text[: PREVIEW_CHARS - 1] + "…"


@dataclass(frozen=True)
class ToastSpec:
    text: str
    kind: str
    key: str
    reveal_id: str | None  # the card a click opens (None: nothing to open)


def toast_for(event: MemoryEvent) -> ToastSpec | None:
    """What to show for a writer event; ``None`` for events a person need not see (hits, reads, queue)."""
    first = event.ids[0] if event.ids else None
    key = f"{event.kind}:{','.join(event.ids)}:{event.turn_id or ''}"
    description = _preview(event.description) if event.description else None
    if event.kind == "create":
        if description is not None:
            text = QCoreApplication.translate("WriterToasts", "记住了：{0}").format(description)
        else:
            text = QCoreApplication.translate("WriterToasts", "记住了一件新事")
        return ToastSpec(text, "success", key, first)
    if event.kind == "update":
        if description is not None:
            text = QCoreApplication.translate("WriterToasts", "更新了记忆：{0}").format(description)
        else:
            text = QCoreApplication.translate("WriterToasts", "更新了记忆")
        return ToastSpec(text, "info", key, first)
    if event.kind == "merge":
        return ToastSpec(QCoreApplication.translate("WriterToasts", "合并了两条记忆"), "info", key, first)
    if event.kind == "delete":
        if description is not None:
            text = QCoreApplication.translate("WriterToasts", "删除了过时的记忆：{0}").format(description)
        else:
            text = QCoreApplication.translate("WriterToasts", "删除了过时的记忆")
        return ToastSpec(text, "info", key, None)
    if event.kind in ("turn_failed", "turn_gave_up", "tool_error"):
        detail = _preview(event.detail or event.reason)
        if event.kind == "turn_gave_up":
            if detail:
                text = QCoreApplication.translate("WriterToasts", "这轮对话的记忆整理已放弃：{0}").format(detail)
            else:
                text = QCoreApplication.translate("WriterToasts", "这轮对话的记忆整理已放弃")
        elif detail:
            text = QCoreApplication.translate("WriterToasts", "整理记忆失败：{0}").format(detail)
        else:
            text = QCoreApplication.translate("WriterToasts", "整理记忆失败")
        # One error toast at a time: repeated failures refresh it instead of piling up.
        return ToastSpec(text, "error", "writer-error", None)
    return None


class WriterToasts(QObject):
    """Shows toasts for writer events. ``attach`` any ``subscribe``-shaped source of MemoryEvents."""

    def __init__(
        self,
        overlay: ToastOverlay,
        *,
        reveal: Callable[[str], Any] | None = None,
        subscribe: Subscribe | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._overlay = overlay
        self._reveal = reveal
        self._bridge = QtEventBridge(subscribe, self)
        self._bridge.event.connect(self._on_event)

    def attach(self, subscribe: Subscribe) -> None:
        self._bridge.attach(subscribe)

    def close(self) -> None:
        self._bridge.close()

    def _on_event(self, event: Any) -> None:
        if not isinstance(event, MemoryEvent):
            return
        spec = toast_for(event)
        if spec is None:
            return
        on_click = None
        if spec.reveal_id and self._reveal is not None:
            reveal, memory_id = self._reveal, spec.reveal_id
            on_click = lambda: reveal(memory_id)  # noqa: E731
        self._overlay.show_toast(spec.text, key=spec.key, kind=spec.kind, on_click=on_click)
