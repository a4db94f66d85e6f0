"""TrashDialog: deleted (and merged-away) memories — restore them, or delete them for good.

The first row is selected once the list loads, so 恢复 works at once. When the list refills (a live
change: Sonetto deleted or restored something meanwhile) the selection stays on the same memories, by
id, never by row number; only when none of them is left (after a restore) the row that took the
restored one's place is selected. The keyboard focus stays where it was (the list or 恢复), never
landing on 清空回收站 while the list refills. Deleting for good (one entry or the whole trash) is never
a default button and always asks, with 取消 as the default answer; for one memory the question names it.
A merged-away memory names the memory it went into by its text, never by its id. The retention
policy (``trash_retention_days``) is said under the list when the app knows it.
"""

from __future__ import annotations

import asyncio
from typing import Any

import shiboken6
from PySide6.QtCore import QCoreApplication, QItemSelectionModel, QSize, Qt, Signal
from PySide6.QtWidgets import QApplication, QDialog, QLabel, QListWidget, QListWidgetItem, QWidget

from sonetto_desktop import ops
from sonetto_desktop.memory.changes import excerpt_of
from sonetto_desktop.memory.events import MemoryChange
from sonetto_desktop.memory import kinds
from sonetto_desktop.memory.reasons import parse_reason
from sonetto_desktop.presentation.i18n import counted
from sonetto_desktop.presentation.reasons import render_reason

from ..widgets.dialogs import destructive_question
from ..widgets.focus import focus_within, give_focus
from ..widgets.tooltips import plain_tooltip
from ..i18n import ui_language
from ..memory_service import MemoryService, call
from ..qt_bridge import disconnect_quietly
from sonetto_desktop.presentation.relative_time import relative_time
from ..widgets.list_dialog import ListDialogFrame


QUESTION_CHARS = 60  # a memory named in a question: its text up to here


def word_rows(rows: list[dict[str, Any]], language: str) -> list[tuple[str, str, str]]:
    """Each trash row as the list shows it (blocking: a worker): its two lines (the text on one line;
    theme and when), its reason in ``language`` (for a merged-away memory the merge's own reason:
    what it went into is said on the Qt thread) and its tooltip."""
    worded = []
    for row in rows:
        when = relative_time(row.get("deleted_at"), lang=language)
        description = " ".join(str(row.get("description") or "").split())  # one line: the row is two high
        reason, target = str(row.get("reason") or ""), row.get("merged_into")
        if not target:
            why = render_reason(reason, language)
        else:
            parsed = parse_reason(reason)  # "合并到 <id>：<the merge's reason>" (memory/reasons.py: merge.into)
            why = render_reason(parsed[1][1], language) if parsed and parsed[0] == "merge.into" else \
                render_reason(reason.replace(str(target), "").strip(" ：:"), language)
            why = " ".join(why.split())
        worded.append((f"{description}\n{row.get('theme') or ''} · {when}", why,
                       plain_tooltip(str(row.get("description") or ""))))
    return worded


class TrashDialog(QDialog):
    loaded = Signal()

    def __init__(self, service: MemoryService, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("TrashDialog")
        self.setWindowTitle(self.tr("回收站"))
        self.resize(560, 420)
        self._service = service
        self._rows: list[dict[str, Any]] = []
        self._filling = False

        self._frame = frame = ListDialogFrame(self, scope="trash-dialog", heading=self.tr("加载中…"), list_name="TrashList")
        self.summary, self.list = frame.heading, frame.list
        self.summary.setObjectName("TrashSummary")
        self.retention = QLabel(self._retention_text(service.trash_retention_days), self)
        self.retention.setObjectName("HintLabel")
        self.retention.setWordWrap(True)
        self.retention.setVisible(bool(self.retention.text()))
        self.list.setSelectionMode(QListWidget.SelectionMode.ExtendedSelection)
        self.restore_button = frame.action(self.tr("恢复"), name="TrashRestore", default=True)
        self.purge_button = frame.action(self.tr("永久删除"), name="TrashPurge")  # Enter must never delete for good
        self.empty_button = frame.action(self.tr("清空回收站"), name="TrashEmpty", whole_list=True)
        frame.lay_out(notes=[self.retention])
        self.restore_button.clicked.connect(self.restore_selected)
        self.purge_button.clicked.connect(self._on_purge_clicked)
        self.empty_button.clicked.connect(self._on_empty_clicked)

        self.list.itemSelectionChanged.connect(self._update_buttons)
        service.memory_changed.connect(self._on_memory_changed)
        self._load_task: asyncio.Task[None] | None = frame.spawn(self.load(), name="load-trash")
        self._update_buttons()

    async def load(self) -> None:
        rows = await self._service.run(ops.Trash())
        if not shiboken6.isValid(self):
            return
        rows = rows or []
        kept_ids = {row["merged_into"] for row in rows if row.get("merged_into")}
        kept = (await self._service.run(ops.Fetch(ops.ids(kept_ids))) or {}) if kept_ids else {}
        if not shiboken6.isValid(self):
            return
        # worded in a worker: a trash of thousands (a large store) held the window here
        worded = await call(word_rows, rows, ui_language())
        if not shiboken6.isValid(self):
            return
        had_focus = QApplication.focusWidget() if focus_within(self) else None
        was_at = self.list.currentRow()
        was_selected = set(self.selected_ids())
        current = self.list.currentItem()
        was_current = current.data(Qt.ItemDataRole.UserRole) if current is not None else None
        self._filling = True  # no button is disabled (and no focus moved on) while the list refills
        self._rows = rows
        self.list.clear()
        size = QSize(0, 2 * self.list.fontMetrics().lineSpacing() + 12)
        lines = worded.value if worded.ok else [(str(row.get("description") or ""), "", "") for row in rows]
        for row, (text, why, tooltip) in zip(rows, lines, strict=True):
            target = row.get("merged_into")
            reason = self._merged_text(kept.get(target), why) if target else why
            item = QListWidgetItem(f"{text} · {reason}" if reason else text)
            item.setToolTip(tooltip)
            item.setSizeHint(size)
            item.setData(Qt.ItemDataRole.UserRole, row["id"])
            self.list.addItem(item)
        self.summary.setText(
            self.tr("回收站是空的。") if not self._rows else self.tr("{0} 条已删除的记忆").format(counted(len(self._rows)))
        )
        self._reselect(was_selected, was_current)
        if self.list.count() and not self.list.selectedItems():
            # 恢复 works without a click on a row first; after a restore, on the row that took its place
            self.list.setCurrentRow(min(max(was_at, 0), self.list.count() - 1))
        self._filling = False
        self._update_buttons()
        if had_focus is not None:
            give_focus(had_focus, lambda: self.list)
        self.loaded.emit()

    def _reselect(self, ids: set[str], current_id: str | None) -> None:
        """Select the rows of ``ids`` that are still in the list (the current row on ``current_id`` if
        it still is, else on the first of them): a refill must not move the selection to other memories."""
        current: QListWidgetItem | None = None
        for index in range(self.list.count()):
            item = self.list.item(index)
            memory_id = item.data(Qt.ItemDataRole.UserRole)
            if memory_id not in ids:
                continue
            if current is None or memory_id == current_id:
                current = item
        if current is None:
            return
        self.list.setCurrentItem(current, QItemSelectionModel.SelectionFlag.NoUpdate)
        for index in range(self.list.count()):
            item = self.list.item(index)
            item.setSelected(item.data(Qt.ItemDataRole.UserRole) in ids)

    async def wait_loaded(self) -> None:
        while self._load_task is not None and not self._load_task.done():
            await asyncio.shield(self._load_task)

    def ids(self) -> list[str]:
        return [row["id"] for row in self._rows]

    def selected_ids(self) -> list[str]:
        return [item.data(Qt.ItemDataRole.UserRole) for item in self.list.selectedItems()]

    def select_ids(self, ids: list[str]) -> None:
        for index in range(self.list.count()):
            item = self.list.item(index)
            item.setSelected(item.data(Qt.ItemDataRole.UserRole) in ids)

    def restore_selected(self) -> list["asyncio.Task[Any]"]:
        """Bring the selected memories back; several as one action (one Ctrl+Z takes them back)."""
        ids = self.selected_ids()
        if len(ids) > 1:
            return [self._service.submit(ops.RestoreMany(ops.ids(ids)))]
        return [self._service.submit(ops.RestoreMemory(memory_id)) for memory_id in ids]

    def purge_selected(self) -> list["asyncio.Task[Any]"]:
        return [self._purge(self.selected_ids())]

    def _purge(self, ids: list[str]) -> "asyncio.Task[Any]":
        """Delete ``ids`` for good, in one write: those still in the trash (one restored meanwhile stays)."""
        if len(ids) == 1:
            return self._service.submit(ops.PurgeTrash(ids[0]))
        return self._service.submit(ops.PurgeTrash(None, among=ops.ids(ids)))

    def empty_trash(self, ids: list[str] | None = None) -> "asyncio.Task[Any]":
        """Delete for good the memories the list shows (``ids``: those it showed when the person was asked),
        never one deleted since, which nobody saw here."""
        return self._service.submit(ops.PurgeTrash(None, among=ops.ids(self.ids() if ids is None else ids)))

    def _on_empty_clicked(self) -> None:
        ids = self.ids()  # taken now: a memory Sonetto deletes while the question is open stays in the trash
        if not ids:
            return
        destructive_question(self, self.tr("清空回收站"),
                             self.tr("永久删除回收站里的全部 {0} 条记忆？此操作无法撤销。").format(counted(len(ids))),
                             self.tr("清空回收站"), lambda: self.empty_trash(ids))

    def _on_purge_clicked(self) -> None:
        ids = self.selected_ids()  # taken now: the question acts on these even if the list refills meanwhile
        if not ids:
            return
        if len(ids) == 1:
            text = self.tr("永久删除「{0}」？此操作无法撤销。").format(self._short_text(ids[0]))
        else:
            text = self.tr("永久删除选中的 {0} 条记忆？此操作无法撤销。").format(counted(len(ids)))
        destructive_question(self, self.tr("永久删除"), text, self.tr("永久删除"), lambda: self._purge(ids))

    def _short_text(self, memory_id: str) -> str:
        """The memory's text on one line, elided past ``QUESTION_CHARS`` (for a question that names it)."""
        row = next((row for row in self._rows if row["id"] == memory_id), None)
        return excerpt_of(row.get("description") if row is not None else memory_id, QUESTION_CHARS)

    def _merged_text(self, item: Any, why: str) -> str:
        """A merged-away memory's reason: the text of the memory it went into (never its id), then why."""
        if item is not None:
            text = " ".join(str(item.description).split())
            text = text if len(text) <= 24 else text[:23] + "…"
            into = self.tr("并入「{0}」").format(text)
        else:
            into = self.tr("并入另一条记忆（已不在）")
        return f"{into}：{why}" if why else into

    @staticmethod
    def _retention_text(days: float | None) -> str:
        if days is None:
            return ""
        if days <= 0:
            return QCoreApplication.translate("TrashDialog", "回收站里的记忆会一直保留，直到你永久删除。")
        return QCoreApplication.translate("TrashDialog", "删除超过 {0} 天的记忆会在启动时被永久清除。").format(f"{days:g}")

    def _update_buttons(self) -> None:
        if self._filling:
            return
        selected = bool(self.list.selectedItems())
        self.restore_button.setEnabled(selected)
        self.purge_button.setEnabled(selected)
        self.empty_button.setEnabled(bool(self._rows))

    def _on_memory_changed(self, change: MemoryChange) -> None:
        if kinds.kind(change.kind).trash and shiboken6.isValid(self):
            self._load_task = self._frame.spawn(self.load(), name="load-trash")

    def done(self, result: int) -> None:
        disconnect_quietly(self._service.memory_changed, self._on_memory_changed)
        super().done(result)
