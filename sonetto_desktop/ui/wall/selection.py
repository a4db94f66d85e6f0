"""WallBulk: what the person does to several cards — or a whole theme — at once: move, delete, lock or
unlock, pin or unpin the selection, rename a theme (merging it into another of that name), and "删除 Sonetto 今天写的".

Each is one action of the domain's bulk API (one ``bulk-…`` turn id), so one toast says how many
were changed and what was skipped (locked, or gone meanwhile), and its 撤销 takes the whole action
back with ``undo_turn``. Questions (a new theme name, "merge the two themes?", "delete what Sonetto
wrote today?") are dialogs opened with ``open()``; the risky ones have 取消 as the default button.
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import TYPE_CHECKING, Any

import shiboken6
from PySide6.QtCore import QCoreApplication, QObject
from PySide6.QtWidgets import QInputDialog, QMessageBox

from sonetto_desktop import ops
from sonetto_desktop.memory.changes import AGENT
from sonetto_desktop.presentation.i18n import Wording

from ..notices.memory_undo import undoes_turn
from ..widgets.deferred import alive
from ..widgets.owner import Owner
from ..widgets.tasks import task_scope
from .actions import theme_name_dialog

if TYPE_CHECKING:
    from .memory_wall import MemoryWall


def skipped_text(skipped: dict[str, str]) -> str:
    """"（跳过 2 条：已锁定 1 条，已不在 1 条）" for a bulk result's skipped ids ("" when none)."""
    if not skipped:
        return ""
    locked = sum(1 for why in skipped.values() if why == "locked")
    gone = len(skipped) - locked
    parts = []
    if locked:
        parts.append(QCoreApplication.translate("WallBulk", "已锁定 {0} 条").format(locked))
    if gone:
        parts.append(QCoreApplication.translate("WallBulk", "已不在 {0} 条").format(gone))
    return QCoreApplication.translate("WallBulk", "（跳过 {0} 条：{1}）").format(
        len(skipped), QCoreApplication.translate("WallBulk", "，").join(parts))


def start_of_today() -> datetime:
    return datetime.now().replace(hour=0, minute=0, second=0, microsecond=0)


class WallBulk(QObject):
    """Bulk actions of a :class:`MemoryWall` (``wall.bulk``); its tasks run in its scope (ended with the wall)."""

    _wall = Owner()  # held weakly, so the owner and this part form no reference cycle (widgets/owner.py)

    def __init__(self, wall: "MemoryWall") -> None:
        super().__init__(wall)
        self._wall = wall
        self._tasks = task_scope(self, "wall-bulk")
        self.last_result: Any = None  # the last BulkResult shown (tests, and the toast's 撤销)

    def _keep(self, coro: Any) -> "asyncio.Task[Any]":
        return self._tasks.spawn(coro, name="wall-bulk")

    # ── the selection ─────────────────────────────────────────────────

    def move(self, ids: list[str], theme: str, reason: str = "") -> "asyncio.Task[Any] | None":
        theme = (theme or "").strip()
        if not theme or not ids:
            return None
        write = self._wall.service.submit(ops.MoveMany(ops.ids(ids), theme, reason))
        return self._keep(self._report(write, lambda: QCoreApplication.translate("WallBulk", "已把 {0} 条移到「{1}」"), theme))

    def delete(self, ids: list[str]) -> "asyncio.Task[Any] | None":
        if not ids:
            return None
        write = self._wall.service.submit(ops.DeleteMany(ops.ids(ids)))
        return self._keep(self._report(write, lambda: QCoreApplication.translate("WallBulk", "已删除 {0} 条记忆")))

    def lock(self, ids: list[str], locked: bool) -> "asyncio.Task[Any] | None":
        if not ids:
            return None
        write = self._wall.service.submit(ops.LockMany(ops.ids(ids), locked))
        text = ((lambda: QCoreApplication.translate("WallBulk", "已锁定 {0} 条：Sonetto 和其他应用不能再改动它们")) if locked
                else (lambda: QCoreApplication.translate("WallBulk", "已解锁 {0} 条")))
        return self._keep(self._report(write, text))

    def pin(self, ids: list[str], pinned: bool) -> "asyncio.Task[Any] | None":
        """Pin (or unpin) the selection as one action: one write, one toast with 撤销."""
        if not ids:
            return None
        write = self._wall.service.submit(ops.PinMany(ops.ids(ids), pinned))
        text = ((lambda: QCoreApplication.translate("WallBulk", "已置顶 {0} 条")) if pinned
                else (lambda: QCoreApplication.translate("WallBulk", "已取消置顶 {0} 条")))
        return self._keep(self._report(write, text))

    # ── "删除 Sonetto 今天写的" ───────────────────────────────────────

    def ask_forget_today(self) -> QMessageBox:
        """Second click: a question whose default button is 取消; 删除 moves them to the trash."""
        box = QMessageBox(QMessageBox.Icon.Warning, QCoreApplication.translate("WallBulk", "删除 Sonetto 今天写的记忆"),
                          QCoreApplication.translate("WallBulk", "把 Sonetto 今天新写下的记忆都移到回收站？之后可以在提示里撤销，或从回收站恢复。"),
                          QMessageBox.StandardButton.NoButton, self._wall.window())
        box.setObjectName("ForgetTodayDialog")
        delete = box.addButton(QCoreApplication.translate("WallBulk", "删除"), QMessageBox.ButtonRole.DestructiveRole)
        delete.setObjectName("confirm")
        cancel = box.addButton(QCoreApplication.translate("WallBulk", "取消"), QMessageBox.ButtonRole.RejectRole)
        cancel.setObjectName("cancel")
        box.setDefaultButton(cancel)
        box.setEscapeButton(cancel)
        delete.clicked.connect(self.forget_today)
        return self._wall.actions._open(box)

    def forget_today(self) -> "asyncio.Task[Any]":
        write = self._wall.service.submit(ops.ForgetWrittenBy(start_of_today(), AGENT))
        return self._keep(self._report(write, lambda: QCoreApplication.translate("WallBulk", "已删除 Sonetto 今天写的 {0} 条记忆"),
                                       empty=lambda: QCoreApplication.translate("WallBulk", "Sonetto 今天还没有写下新的记忆。")))

    # ── a theme ───────────────────────────────────────────────────────

    def ask_rename_theme(self, theme: str) -> QInputDialog:
        dialog = theme_name_dialog(self._wall.window())
        dialog.setObjectName("RenameThemeDialog")
        dialog.setWindowTitle(QCoreApplication.translate("WallBulk", "重命名主题"))
        dialog.setLabelText(QCoreApplication.translate("WallBulk", "「{0}」的新名字：").format(theme))
        dialog.setTextValue(theme)
        dialog.textValueSelected.connect(lambda name: self.rename_theme(theme, name))
        return self._wall.actions._open(dialog)

    def rename_theme(self, old: str, new: str, *, confirmed: bool = False) -> Any:
        """Rename ``old`` to ``new``; when ``new`` is another theme already, ask first (the two merge)."""
        new = (new or "").strip()
        if not new or new == old:
            return None
        if new in self._wall.model.theme_counts() and not confirmed:
            return self._ask_merge_themes(old, new)
        if not confirmed:
            self._keep_look(old, new)
        write = self._wall.service.submit(ops.RenameTheme(old, new))
        text = ((lambda: QCoreApplication.translate("WallBulk", "已把「{1}」并入「{2}」（{0} 条）")) if confirmed
                else (lambda: QCoreApplication.translate("WallBulk", "已把「{1}」改名为「{2}」（{0} 条）")))
        return self._keep(self._report(write, text, old, new))

    def _keep_look(self, old: str, new: str) -> None:
        """A plain rename keeps the theme's look: folded or not, its colour (picked, or its palette
        slot), over whatever an earlier theme named ``new`` left remembered. The old name gives its
        colour and its fold up once its cards have moved (a theme made later under it has its own colour
        and starts unfolded), and an undo of the rename gives them back (``ThemeColors.rename`` /
        ``moved_back``, ``WallSections.fold_back``)."""
        wall = self._wall
        wall.state.set_collapsed(new, old in wall.state.collapsed())
        wall.theme_colors.rename(old, new)
        wall.state.set_color_slots(wall.theme_colors.slots)
        wall.state.set_custom_colors(wall.theme_colors.custom)

    def _ask_merge_themes(self, old: str, new: str) -> QMessageBox:
        box = QMessageBox(QMessageBox.Icon.Question, QCoreApplication.translate("WallBulk", "合并主题"),
                          QCoreApplication.translate("WallBulk", "已经有主题「{0}」了。要把「{1}」的记忆都并入「{0}」吗？")
                          .format(new, old),
                          QMessageBox.StandardButton.NoButton, self._wall.window())
        box.setObjectName("MergeThemesDialog")
        merge = box.addButton(QCoreApplication.translate("WallBulk", "合并"), QMessageBox.ButtonRole.AcceptRole)
        merge.setObjectName("confirm")
        cancel = box.addButton(QCoreApplication.translate("WallBulk", "取消"), QMessageBox.ButtonRole.RejectRole)
        cancel.setObjectName("cancel")
        box.setDefaultButton(cancel)
        box.setEscapeButton(cancel)
        merge.clicked.connect(lambda: self.rename_theme(old, new, confirmed=True))
        return self._wall.actions._open(box)

    # ── the toast: how many, what was skipped, 撤销 ───────────────────

    async def _report(self, write: "asyncio.Task[Any]", text: Wording, *args: Any, empty: Wording | None = None) -> Any:
        """The bulk action's toast; ``text`` (its ``{0}``: how many) and ``empty`` are wordings: said again
        on a language switch."""
        result = await write
        if result is None or not shiboken6.isValid(self) or not alive(self._wall.toasts):
            return result  # failed (the service's toast said why), or the wall went away
        self.last_result = result
        done = len(result.changes)
        if not done and not result.skipped:
            if empty is not None:
                self._wall.toasts.show_toast(empty, key=f"bulk:{result.turn_id}")
            return result
        skipped, turn_id = result.skipped, result.turn_id
        self._wall.toasts.show_toast(
            lambda: text().format(done, *args) + skipped_text(skipped), key=f"bulk:{turn_id}",
            kind="success" if done else "info",
            action_text=(lambda: QCoreApplication.translate("WallBulk", "撤销")) if done else None,
            on_action=(lambda: self.undo(turn_id)) if done else None, timeout_ms=8000,
            undone_by=undoes_turn(turn_id) if done else None)
        return result

    def undo(self, turn_id: str) -> "asyncio.Task[Any]":
        return self._keep(self._undo(turn_id))

    async def _undo(self, turn_id: str) -> Any:
        result = await self._wall.service.submit(ops.UndoTurn(turn_id))
        if result is not None and shiboken6.isValid(self) and alive(self._wall.toasts):
            changes = len(result.changes)
            self._wall.toasts.show_toast(
                lambda: QCoreApplication.translate("WallBulk", "已撤销（{0} 条记忆）").format(changes),
                key=f"undo:{turn_id}", kind="success")
        return result
