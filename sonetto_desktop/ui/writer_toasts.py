"""WriterToasts: what the background writer (or another app) did to the memories, told as toasts.

Toasts follow the one change channel: every committed change not made by the person in this window
(actor ``user``) — the writer's (``agent``), another process's, another app's — may be told;
``toast_for`` decides what (if anything) to say. The writer's own events are used only for its
failures. Clicking a toast about a memory that still exists reveals its card. While the window is
hidden, ``tray_notify`` gets the text instead (when it returns True, no toast is shown).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from PySide6.QtCore import QCoreApplication, QObject

from sonetto_desktop.memory.changes import USER, MemoryChange

from .qt_bridge import QtEventBridge
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


def _described(change: MemoryChange) -> str | None:
    first = change.ids[0] if change.ids else None
    state = change.state(first) if first else None
    text = (state or {}).get("description") or change.extra.get("description")
    return _preview(text) if text else None


def toast_for(event: Any) -> ToastSpec | None:
    """What to show for a change (``MemoryChange``) or a writer event (``WriterEvent``); ``None`` for
    what a person need not see (hits, the person's own edits, queue states)."""
    if isinstance(event, MemoryChange):
        return _change_toast(event)
    kind = getattr(event, "kind", "")
    if kind in ("failed", "gave_up"):
        detail = _preview(getattr(event, "detail", ""))
        if kind == "gave_up":
            text = (QCoreApplication.translate("WriterToasts", "这轮对话的记忆整理已放弃：{0}").format(detail) if detail
                    else QCoreApplication.translate("WriterToasts", "这轮对话的记忆整理已放弃"))
        elif detail:
            text = QCoreApplication.translate("WriterToasts", "整理记忆失败：{0}").format(detail)
        else:
            text = QCoreApplication.translate("WriterToasts", "整理记忆失败")
        # One error toast at a time: repeated failures refresh it instead of piling up.
        return ToastSpec(text, "error", "writer-error", None)
    return None


def _change_toast(change: MemoryChange) -> ToastSpec | None:
    spec = _what_changed(change)
    if spec is not None and change.actor.startswith("mcp:"):  # another AI app: say which
        text = QCoreApplication.translate("WriterToasts", "{0}（其他应用）· {1}").format(change.actor[4:], spec.text)
        spec = ToastSpec(text, spec.kind, spec.key, spec.reveal_id)
    return spec


def _what_changed(change: MemoryChange) -> ToastSpec | None:
    if change.actor == USER or change.kind in ("hit", "purge", "reload"):
        return None
    first = change.ids[0] if change.ids else None
    key = f"{change.kind}:{','.join(change.ids)}:{change.turn_id or ''}"
    description = _described(change)
    if change.kind in ("add", "restore"):
        text = (QCoreApplication.translate("WriterToasts", "记住了：{0}").format(description) if description
                else QCoreApplication.translate("WriterToasts", "记住了一件新事"))
        return ToastSpec(text, "success", key, first)
    if change.kind in ("update", "revert"):
        text = (QCoreApplication.translate("WriterToasts", "更新了记忆：{0}").format(description) if description
                else QCoreApplication.translate("WriterToasts", "更新了记忆"))
        return ToastSpec(text, "info", key, first)
    if change.kind == "merge":
        return ToastSpec(QCoreApplication.translate("WriterToasts", "合并了两条记忆"), "info", key, first)
    if change.kind == "delete":
        text = (QCoreApplication.translate("WriterToasts", "删除了过时的记忆：{0}").format(description) if description
                else QCoreApplication.translate("WriterToasts", "删除了过时的记忆"))
        return ToastSpec(text, "info", key, None)
    if change.kind == "import":
        text = QCoreApplication.translate("WriterToasts", "导入了 {0} 条记忆").format(len(change.ids))
        return ToastSpec(text, "info", key, None)
    return None


class WriterToasts(QObject):
    """Shows toasts for ``services``' change channel (``subscribe``) and writer events
    (``subscribe_writer``), on the GUI thread."""

    def __init__(
        self,
        overlay: ToastOverlay,
        services: Any,
        *,
        reveal: Callable[[str], Any] | None = None,
        tray_notify: Callable[[str], bool] | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._overlay = overlay
        self._reveal = reveal
        self._tray_notify = tray_notify
        self._bridge = QtEventBridge(services.subscribe, self)
        if hasattr(services, "subscribe_writer"):
            self._bridge.attach(services.subscribe_writer)
        self._bridge.event.connect(self._on_event)

    def close(self) -> None:
        self._bridge.close()

    def _on_event(self, event: Any) -> None:
        spec = toast_for(event)
        if spec is None:
            return
        if spec.kind != "error" and self._tray_notify is not None and self._tray_notify(spec.text):
            return
        on_click = None
        if spec.reveal_id and self._reveal is not None:
            reveal, memory_id = self._reveal, spec.reveal_id
            on_click = lambda: reveal(memory_id)  # noqa: E731
        self._overlay.show_toast(spec.text, key=spec.key, kind=spec.kind, on_click=on_click)
