"""WriterToasts: what the background writer (or another app) did to the memories, told as toasts.

Toasts follow the one change channel: every committed change not made by the person in this window
(actor ``user``) — the writer's (``agent``), another process's, another app's — may be told;
``toast_for`` decides what (if anything) to say. Sonetto's changes of one turn share one toast that
grows into a summary ("记住了 2 条，更新了 1 条", see ``turn_summary``) with a 撤销 button that takes
the whole turn back (``undo_turn``, itself undoable from the history). The writer's own events are
used only for its failures. Clicking a toast about a memory that still exists reveals its card. While
the window is hidden, ``tray_notify`` gets the text instead (when it returns True, no toast is shown).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from PySide6.QtCore import QCoreApplication, QObject

from sonetto_desktop.aio import TaskKeeper, run_blocking
from sonetto_desktop.memory.changes import USER, MemoryChange
from sonetto_desktop.memory.undo import NothingToUndo, UndoConflict

from ..qt_bridge import QtEventBridge
from .toasts import ToastOverlay
from .turn_summary import TurnTallies, quiet, summarised

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
    repeat: bool = True  # the same news again is counted (×N); False: the text says what is new


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
        elif detail and getattr(event, "attempt", 0):
            text = QCoreApplication.translate("WriterToasts", "整理记忆第 {0} 次失败：{1}").format(event.attempt, detail)
        elif detail:
            text = QCoreApplication.translate("WriterToasts", "整理记忆失败：{0}").format(detail)
        else:
            text = QCoreApplication.translate("WriterToasts", "整理记忆失败")
        # One error toast at a time: repeated failures refresh it instead of piling up (an attempt's
        # number is in its text: no "×2" after "第 2 次").
        return ToastSpec(text, "error", "writer-error", None, repeat=not getattr(event, "attempt", 0))
    return None


def _change_toast(change: MemoryChange) -> ToastSpec | None:
    spec = _what_changed(change)
    if spec is not None and change.actor.startswith("mcp:"):  # another AI app: say which
        text = QCoreApplication.translate("WriterToasts", "{0}（其他应用）· {1}").format(change.actor[4:], spec.text)
        spec = ToastSpec(text, spec.kind, spec.key, spec.reveal_id)
    return spec


def _what_changed(change: MemoryChange) -> ToastSpec | None:
    if change.actor == USER or change.kind in ("hit", "purge", "reload") or quiet(change):
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
        self._services = services
        self._reveal = reveal
        self._tray_notify = tray_notify
        self._tallies = TurnTallies()
        self._tasks = TaskKeeper("WriterToasts")
        self.undoing: Any = None  # the last undo started from a toast (tests await it)
        self._bridge = QtEventBridge(services.subscribe, self)
        if hasattr(services, "subscribe_writer"):
            self._bridge.attach(services.subscribe_writer)
        self._bridge.event.connect(self._on_event)

    def close(self) -> None:
        self._bridge.close()
        self._tasks.cancel_all()  # an undo still running is cancelled (the store write is atomic)

    def _on_event(self, event: Any) -> None:
        spec = toast_for(event)
        if spec is None:
            return
        if isinstance(event, MemoryChange) and summarised(event):
            self._show_turn(event, spec)
            return
        if spec.kind != "error" and self._tray_notify is not None and self._tray_notify(spec.text):
            return
        on_click = None
        if spec.reveal_id and self._reveal is not None:
            reveal, memory_id = self._reveal, spec.reveal_id
            on_click = lambda: reveal(memory_id)  # noqa: E731
        self._overlay.show_toast(spec.text, key=spec.key, kind=spec.kind, on_click=on_click, repeat=spec.repeat)

    # ── one toast per turn ────────────────────────────────────────────

    def _show_turn(self, change: MemoryChange, spec: ToastSpec) -> None:
        tally = self._tallies.add(change)
        text = tally.text(single=spec.text)
        if self._tray_notify is not None and self._tray_notify(text):
            return
        key = f"turn:{tally.turn_id}"
        for toast in self._overlay.toasts():
            if toast.key == key and not toast.is_dismissed:
                toast.refresh(text, count=False)
                return
        on_click = None
        if tally.ids and self._reveal is not None:
            reveal, first = self._reveal, tally.ids[0]
            on_click = lambda: reveal(first)  # noqa: E731
        turn_id = tally.turn_id
        self._overlay.show_toast(text, key=key, kind=spec.kind, on_click=on_click,
                                 action_text=QCoreApplication.translate("WriterToasts", "撤销"),
                                 on_action=lambda: self.undo_turn(turn_id))

    def undo_turn(self, turn_id: str) -> None:
        """Take back every change of ``turn_id`` (in a worker), then say how it went."""
        self.undoing = self._tasks.spawn(self._undo(turn_id), name=f"undo-{turn_id}")

    async def _undo(self, turn_id: str) -> None:
        memory = self._services.memory
        try:
            result = await run_blocking(lambda: memory.undo_turn(turn_id, reason=QCoreApplication.translate("WriterToasts", "从提示里撤销")))
        except NothingToUndo:
            self._overlay.show_toast(QCoreApplication.translate("WriterToasts", "这轮已经没有可撤销的记忆变化了"), key=f"undo:{turn_id}")
            return
        except UndoConflict as exc:
            text = QCoreApplication.translate("WriterToasts", "没有撤销：之后又有改动碰到了其中 {0} 条记忆（{1}）。可以在历史里逐条还原。").format(
                len(exc.conflicts), "、".join(sorted(exc.conflicts)[:3]))
            self._overlay.show_toast(text, key=f"undo:{turn_id}", kind="error")
            return
        except Exception as exc:  # noqa: BLE001 - said, never raised into Qt
            self._overlay.show_toast(QCoreApplication.translate("WriterToasts", "撤销失败：{0}").format(str(exc) or type(exc).__name__),
                                     key=f"undo:{turn_id}", kind="error")
            return
        self._overlay.show_toast(QCoreApplication.translate("WriterToasts", "已撤销这轮的 {0} 处记忆变化").format(len(result.changes)),
                                 key=f"undo:{turn_id}", kind="success")
