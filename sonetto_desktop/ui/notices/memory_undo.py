"""MemoryUndo: 编辑 ▸ 撤销 / 重做 (Ctrl+Z, Ctrl+Shift+Z) for the memories, beyond the toasts' few seconds.

It follows the change channel (the services' feed) and keeps the actions that can be taken back, newest
last: each of the person's own actions in this window (every one has its ``ui-…`` turn, see
``MemoryService._action``; a bulk action has its own turn) and each of Sonetto's turns. Changes made
elsewhere (the command line, other apps, another window) are not the person's last action here and
are left out. Undo takes the newest back as one action (``undo_turn``); redo undoes that undo. A new
action clears what could be redone. Each undo and redo says what happened in a toast; one refused
(a later change touched those memories) says why, and the action is dropped from the list.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable

from PySide6.QtCore import QCoreApplication, QObject, Signal

from sonetto_desktop.memory import kinds
from sonetto_desktop.memory.changes import AGENT, USER, MemoryChange
from sonetto_desktop import ops
from sonetto_desktop.memory.reasons import reason_text
from sonetto_desktop.memory.undo import new_undo_turn
from sonetto_desktop.presentation.turn_summary import quiet
from sonetto_desktop.presentation.undo_words import card_text

MAX_ACTIONS = 100
PREVIEW_CHARS = 16


def _verb(change: MemoryChange) -> str:
    kind = change.kind
    if kind == kinds.ADD:
        return QCoreApplication.translate("MemoryUndo", "新建")
    if kind == kinds.UPDATE:
        return QCoreApplication.translate("MemoryUndo", "修改")
    if kind == kinds.DELETE:
        return QCoreApplication.translate("MemoryUndo", "删除")
    if kind == kinds.MERGE:
        return QCoreApplication.translate("MemoryUndo", "合并")
    if kind == kinds.RESTORE:
        return QCoreApplication.translate("MemoryUndo", "恢复")
    if kind == kinds.REVERT:
        return QCoreApplication.translate("MemoryUndo", "还原")
    if kind == kinds.LOCK and change.extra.get("locked") is False:
        return QCoreApplication.translate("MemoryUndo", "解锁")
    if kind == kinds.LOCK:
        return QCoreApplication.translate("MemoryUndo", "锁定")
    if kind == kinds.IMPORT:
        return QCoreApplication.translate("MemoryUndo", "导入")
    if kind == kinds.SET and change.extra.get("field") == "pinned":
        return (QCoreApplication.translate("MemoryUndo", "置顶") if change.extra.get("value")
                else QCoreApplication.translate("MemoryUndo", "取消置顶"))
    return QCoreApplication.translate("MemoryUndo", "修改")  # any other change of a memory


def undoes_turn(turn_id: str) -> Callable[[MemoryChange], bool]:
    """A toast's ``undone_by`` when its 撤销 undoes turn ``turn_id``: a change of that turn's undo."""
    return lambda change: change.extra.get("undo_of") == turn_id


def restores(ids: Iterable[str]) -> Callable[[MemoryChange], bool]:
    """A toast's ``undone_by`` when its 撤销 (or 恢复) brings ``ids`` back from the trash: one of them
    restored (by Ctrl+Z, the trash, the history or another toast)."""
    wanted = frozenset(ids)
    return lambda change: change.kind == kinds.RESTORE and not wanted.isdisjoint(change.ids)


def _an_action(change: MemoryChange) -> bool:
    """Someone's change of memories (not a use counted, the trash emptied or a re-read of everything)."""
    kind = kinds.kind(change.kind)
    return kind.changes and kind.names_memories


@dataclass
class UndoEntry:
    turn_id: str
    label: str  # what the action was, for the menu ("删除「讨厌香菜」")


def _preview(change: MemoryChange) -> str:
    first = change.ids[0] if change.ids else ""
    state = change.state(first) if first else None
    return card_text(str((state or {}).get("description") or change.extra.get("description") or ""), PREVIEW_CHARS)


def describe(change: MemoryChange, count: int = 1) -> str:
    """The action a change belongs to, in words: "删除「讨厌香菜」", "Sonetto 的 3 处记忆变化"."""
    if change.actor == AGENT:
        return QCoreApplication.translate("MemoryUndo", "Sonetto 的 %Ln 处记忆变化", "", count)
    if count > 1:
        return QCoreApplication.translate("MemoryUndo", "%Ln 处记忆变化", "", count)
    verb = _verb(change)
    preview = _preview(change)
    return QCoreApplication.translate("MemoryUndo", "{0}「{1}」").format(verb, preview) if preview else verb


class MemoryUndo(QObject):
    """``service``: the UI's ``MemoryService`` (its feed, its runner); ``toasts()``: the overlay now."""

    changed = Signal()  # what undo / redo would do changed (the menu's texts follow)

    def __init__(self, service: Any, toasts: Any = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._service = service
        self._toasts = toasts if callable(toasts) else (lambda: toasts)
        self._done: list[UndoEntry] = []
        self._undone: list[UndoEntry] = []
        self._counts: dict[str, int] = {}
        self._own: set[str] = set()  # the undo turns this made: not new actions
        self.busy: Any = None  # the undo / redo running (tests await it)
        service.feed.memory_changed.connect(self._on_change)

    # ── what can be done ──────────────────────────────────────────────

    @property
    def undo_label(self) -> str | None:
        return self._done[-1].label if self._done else None

    @property
    def redo_label(self) -> str | None:
        return self._undone[-1].label if self._undone else None

    def _on_change(self, change: MemoryChange) -> None:
        turn = change.turn_id or ""
        if (not turn or turn in self._own or quiet(change) or not change.local
                or not _an_action(change) or change.actor not in (USER, AGENT)):
            return
        if self._done and self._done[-1].turn_id == turn:  # more of the same action
            self._counts[turn] = self._counts.get(turn, 1) + 1
            self._done[-1].label = describe(change, self._counts[turn])
        else:
            self._counts[turn] = 1
            self._done.append(UndoEntry(turn, describe(change)))
            del self._done[:-MAX_ACTIONS]
        self._undone.clear()  # a new action: what was undone before can no longer be redone
        self.changed.emit()

    # ── undo / redo ───────────────────────────────────────────────────

    def undo(self) -> Any:
        """Take back the newest action (in a worker); returns the task, or None with nothing to undo (or the
        memory server away: said, and the action is still offered once it is back)."""
        if not self._done or self._busy() or self._service.refuse_changes(self._toasts()):
            return None
        entry = self._done.pop()
        self.changed.emit()
        self.busy = self._service.start(self._run(entry, redo=False), name="menu-undo")
        return self.busy

    def redo(self) -> Any:
        if not self._undone or self._busy() or self._service.refuse_changes(self._toasts()):
            return None
        entry = self._undone.pop()
        self.changed.emit()
        self.busy = self._service.start(self._run(entry, redo=True), name="menu-redo")
        return self.busy

    def _busy(self) -> bool:
        return self.busy is not None and not self.busy.done()

    async def _run(self, entry: UndoEntry, *, redo: bool) -> None:
        reason = reason_text("redo.menu" if redo else "undo.menu")
        toasts = self._toasts()
        key = "menu-undo"

        def said(why: str) -> None:
            if toasts is not None:
                toasts.show_toast(why, key=key, kind="error")

        turn = new_undo_turn(entry.turn_id)
        self._own.add(turn.turn_id)  # known before its changes arrive: they are not a new action
        result = await self._service.run(ops.UndoTurn(entry.turn_id, reason, as_turn=turn), on_error=said)
        if result is None:
            return  # refused or failed: said; the action is no longer offered
        (self._done if redo else self._undone).append(UndoEntry(result.turn_id, entry.label))
        self.changed.emit()
        if toasts is not None:
            toasts.show_toast(lambda: (QCoreApplication.translate("MemoryUndo", "已重做：{0}") if redo
                                       else QCoreApplication.translate("MemoryUndo", "已撤销：{0}")).format(entry.label),
                              key=key, kind="success")
