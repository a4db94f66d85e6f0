"""WriterToasts: what the background writer (or another app) did to the memories, told as toasts.

Toasts follow the services' one event feed (``AppFeed``): every committed change not made by the person
in this window (actor ``user``) — the writer's (``agent``), another process's, another app's — may be
told; ``presentation.toasts.toast_for`` decides what (if anything) to say. Sonetto's changes of one
turn share one toast that grows into a summary ("记住了 2 条，更新了 1 条", see
``presentation/turn_summary.py``) with a 撤销 button that takes the whole turn back (through the UI's
one operation runner, ``MemoryService.undo_turn``; itself undoable from the history). The writer's
own events are used only for its failures. Clicking a toast about a memory that still exists reveals
its card. While the window is hidden, ``tray_notify`` gets the text instead (when it returns True, no
toast is shown). When the writer is refused by a memory the person locked, that is said once per memory
("想更新「…」，但它已锁定") with 解锁, which unlocks it through the same runner.
"""

from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import QCoreApplication, QObject

from sonetto_desktop.memory.changes import MemoryChange
from sonetto_desktop import ops
from sonetto_desktop.memory.reasons import reason_text
from sonetto_desktop.presentation.others import SourceTally, from_elsewhere
from sonetto_desktop.presentation.toasts import ToastSpec, toast_for
from sonetto_desktop.presentation.turn_summary import TurnTallies, quiet, summarised

from ..memory_service import MemoryService
from .memory_undo import undoes_turn
from .toasts import ToastOverlay

__all__ = ["ToastSpec", "WriterToasts", "toast_for"]


class WriterToasts(QObject):
    """Shows toasts for the memory changes and writer events of ``service``'s feed, on the GUI thread;
    undoes through ``service``."""

    def __init__(
        self,
        overlay: ToastOverlay,
        service: MemoryService,
        *,
        reveal: Callable[[str], Any] | None = None,
        tray_notify: Callable[[str], bool] | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._overlay = overlay
        self._service = service
        self._reveal = reveal
        self._tray_notify = tray_notify
        self._tallies = TurnTallies()
        self._elsewhere: dict[str, SourceTally] = {}
        self._told_locked: set[str] = set()  # memories whose lock refusal was said (once each)
        self.undoing: Any = None  # the last undo started from a toast (tests await it)
        self.unlocking: Any = None  # the last unlock started from a toast (tests await it)
        self._feed = service.feed
        self._feed.memory_changed.connect(self._on_event)
        self._feed.writer_changed.connect(self._on_event)

    def close(self) -> None:
        for signal in (self._feed.memory_changed, self._feed.writer_changed):
            try:
                signal.disconnect(self._on_event)
            except (RuntimeError, TypeError):
                pass

    def _on_event(self, event: Any) -> None:
        if isinstance(event, MemoryChange) and from_elsewhere(event) and not quiet(event):
            self._show_elsewhere(event)
            return
        spec = toast_for(event)
        if spec is None:
            return
        if isinstance(event, MemoryChange) and summarised(event):
            self._show_turn(event, spec)
            return
        if spec.unlock_id is not None:
            self._show_locked(event, spec)
            return
        if spec.kind != "error" and self._tray_notify is not None and self._tray_notify(spec.text):
            return
        on_click = None
        if spec.reveal_id and self._reveal is not None:
            reveal, memory_id = self._reveal, spec.reveal_id
            on_click = lambda: reveal(memory_id)  # noqa: E731
        self._overlay.show_toast(_said_again(event, spec), key=spec.key, kind=spec.kind, on_click=on_click,
                                 repeat=spec.repeat)

    # ── a lock that refused the writer ────────────────────────────────

    def _show_locked(self, event: Any, spec: Any) -> None:
        memory_id = spec.unlock_id
        if memory_id in self._told_locked:
            return
        self._told_locked.add(memory_id)
        on_click = None
        if self._reveal is not None:
            reveal = self._reveal
            on_click = lambda: reveal(memory_id)  # noqa: E731
        self._overlay.show_toast(_said_again(event, spec), key=spec.key, kind=spec.kind, on_click=on_click,
                                 repeat=False, action_text=lambda: QCoreApplication.translate("WriterToasts", "解锁"),
                                 on_action=lambda: self.unlock(memory_id, spec.key))

    def unlock(self, memory_id: str, key: str) -> None:
        """Unlock ``memory_id`` as the person (in a worker), then say so."""
        self.unlocking = self._service.start(self._unlock(memory_id, key), name=f"unlock-{memory_id}")

    async def _unlock(self, memory_id: str, key: str) -> None:
        overlay = self._overlay
        reason = reason_text("unlock.toast")
        failed: list[str] = []

        def said(text: str) -> None:
            failed.append(text)
            overlay.show_toast(text, key=key, kind="error")

        await self._service.run(ops.SetLocked(memory_id, False, reason, own_action=False), on_error=said)
        if not failed:  # unlocked now (or already): the writer may change it from its next turn
            overlay.show_toast(lambda: QCoreApplication.translate("WriterToasts", "已解锁：Sonetto 之后可以更新这条记忆了"),
                               key=key, kind="success")

    # ── one quiet notice per other source ─────────────────────────────

    def _show_elsewhere(self, change: MemoryChange) -> None:
        """The command line's, another app's or another program's changes: theirs, grouped, quiet."""
        fresh = SourceTally.of(change)
        key = fresh.key
        toast = next((t for t in self._overlay.toasts() if t.key == key and not t.is_dismissed), None)
        tally = self._elsewhere.get(key)
        if tally is None or toast is None and not tally.goes_on(change):  # (an import's: its whole count)
            tally = self._elsewhere[key] = fresh
        tally.add(change)
        if toast is not None:
            toast.refresh(tally.text, count=False)
            return
        on_click = None
        if self._reveal is not None:
            reveal = self._reveal
            on_click = lambda: tally.ids and reveal(tally.ids[-1])  # noqa: E731 - the newest one
        self._overlay.show_toast(tally.text, key=key, kind="info", on_click=on_click, repeat=False)

    # ── one toast per turn ────────────────────────────────────────────

    def _show_turn(self, change: MemoryChange, spec: ToastSpec) -> None:
        tally = self._tallies.add(change)
        single = _said_again(change, spec)
        text = lambda: tally.text(single=single())  # noqa: E731 - the tally as it is when said
        if self._tray_notify is not None and self._tray_notify(text()):
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
                                 action_text=lambda: QCoreApplication.translate("WriterToasts", "撤销"),
                                 on_action=lambda: self.undo_turn(turn_id), undone_by=undoes_turn(turn_id))

    def undo_turn(self, turn_id: str, overlay: Any = None) -> None:
        """Take back every change of ``turn_id`` (in a worker), then say how it went (in ``overlay``
        when given: where the person asked, e.g. the quick chat while the window is in the tray). The memory
        server away: refused up front, as the wall refuses a change."""
        if self._service.refuse_changes(overlay or self._overlay):
            return
        self.undoing = self._service.start(self._undo(turn_id, overlay), name=f"undo-{turn_id}")

    async def _undo(self, turn_id: str, overlay: Any = None) -> None:
        key = f"undo:{turn_id}"
        overlay = overlay or self._overlay
        reason = reason_text("undo.toast")
        result = await self._service.run(ops.UndoTurn(turn_id, reason),
                                         on_error=lambda text: overlay.show_toast(text, key=key, kind="error"))
        if result is not None:
            changes = len(result.changes)
            overlay.show_toast(lambda: QCoreApplication.translate("WriterToasts", "已撤销这轮的 %Ln 处记忆变化", "", changes),
                               key=key, kind="success")


def _said_again(event: Any, spec: ToastSpec) -> Callable[[], str]:
    """``spec``'s text, worded again for ``event`` in the UI's language of then (a language switch)."""
    return lambda: (toast_for(event) or spec).text
