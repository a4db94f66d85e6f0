"""Undo one conversation of an import (issue 38, item 4): the import's window offers 按对话撤销… once
the import is done; this dialog lists its conversations still in place, each with what it left
("新建 3 条 · 改过 1 条"), and takes the chosen one back after saying how many memories that touches.
Memories a later change touched (the person's edit, a later conversation of the import) are asked
about first, as for the whole import (``UndoRestDialog``). After an undo, 撤回刚才的撤销 brings the
conversation back (the undo is itself undone). The work runs in the services (``HistoryImports``).
"""

from __future__ import annotations

import logging
from typing import Any

import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (QDialog, QHBoxLayout, QLabel, QListWidget, QListWidgetItem, QPushButton, QVBoxLayout, QWidget)

from sonetto_desktop.presentation.errors import error_detail
from sonetto_desktop.memory.undo import UndoConflict
from sonetto_desktop.presentation.i18n import counted

from ..widgets.dialogs import Question, execute_dialog
from ..widgets.tasks import task_scope
from .undo_rest import UndoRestDialog

log = logging.getLogger(__name__)
_ID = Qt.ItemDataRole.UserRole


class ConversationUndoDialog(QDialog):
    """See the module docstring. ``imports``: the services' ``HistoryImports``; ``import_id``: the
    import whose conversations are listed. ``loading`` / ``working``: the running reads and undos
    (tests await them)."""

    def __init__(self, imports: Any, import_id: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ConversationUndoDialog")
        self.setWindowTitle(self.tr("按对话撤销"))
        self.resize(560, 420)
        self._imports = imports
        self.import_id = import_id
        self._tasks = task_scope(self, "ConversationUndoDialog")
        self.last_undo: tuple[str, str] | None = None  # (title, the undo's turn id)
        intro = QLabel(self.tr("撤销这次导入里一个对话写下的记忆，其余对话的记忆保留。"), self)
        intro.setWordWrap(True)
        self.list = QListWidget(self)
        self.list.setAccessibleName(self.tr("这次导入的对话"))
        self.note = QLabel("", self)
        self.note.setObjectName("ImportNote")
        self.note.setWordWrap(True)
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.undo_button = QPushButton(self.tr("撤销这个对话"), self)
        self.undo_button.setObjectName("DestructiveConfirm")
        self.take_back_button = QPushButton(self.tr("撤回刚才的撤销"), self)
        self.take_back_button.setVisible(False)
        close = QPushButton(self.tr("关闭"), self)
        for button in (self.undo_button, self.take_back_button, close):
            button.setAutoDefault(False)
        row = QHBoxLayout()
        row.addWidget(self.take_back_button)
        row.addStretch(1)
        row.addWidget(self.undo_button)
        row.addWidget(close)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.note)
        layout.addLayout(row)
        self.list.currentItemChanged.connect(lambda *_: self._enable())
        self.undo_button.clicked.connect(lambda: self._run(self.undo_selected()))
        self.take_back_button.clicked.connect(lambda: self._run(self.take_back()))
        close.clicked.connect(self.accept)
        self.question: Any = None
        self.undo_confirm: Any = None
        self.working: Any = None
        self.loading = self._tasks.spawn(self.reload(), name="conversations")
        self._enable()

    def _run(self, coro: Any) -> None:
        self.working = self._tasks.spawn(coro, name="conversation-undo")

    def _enable(self) -> None:
        self.undo_button.setEnabled(self.list.currentItem() is not None)

    async def reload(self) -> None:
        try:
            rows = await self._imports.conversations(self.import_id)
        except Exception as exc:
            log.exception("listing the conversations of %s failed", self.import_id)
            rows, error = [], error_detail(exc)
        else:
            error = ""
        if not shiboken6.isValid(self):
            return
        self.list.clear()
        for cid, title, (created, updated, deleted) in rows:
            parts = [self.tr("新建 {0} 条").format(created)] if created else []
            if updated:
                parts.append(self.tr("改过 {0} 条").format(updated))
            if deleted:
                parts.append(self.tr("删掉 {0} 条").format(counted(deleted)))
            item = QListWidgetItem(f"「{title or cid}」 · {' · '.join(parts)}", self.list)
            item.setData(_ID, (cid, title or cid, created + updated + deleted))
            item.setToolTip(title or cid)
        if error:
            self.note.setText(self.tr("读不了这次导入的对话：{0}").format(error))
        elif not rows:
            self.note.setText(self.tr("没有可以单独撤销的对话（更早的导入没有记下每批来自哪个对话）。"))
        self._enable()

    async def _agree_to_rest(self, preview: Any) -> bool:
        """Asked when some of the conversation's memories were changed since: those are kept, the rest
        undone (``UndoRestDialog``); whether the person agreed."""
        ask = UndoRestDialog(preview, self.tr("撤销这个对话"), self)
        ask.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.question = ask
        return await execute_dialog(ask) == QDialog.DialogCode.Accepted

    async def undo_selected(self) -> Any:
        item = self.list.currentItem()
        if item is None:
            return None
        cid, title, _total = item.data(_ID)
        try:  # what the undo will do, asked before it (cards changed since are named in this first question)
            preview = await self._imports.preview_undo(self.import_id, cid)
        except Exception as exc:  # noqa: BLE001 - said in place; nothing was undone
            if shiboken6.isValid(self):
                self.note.setText(self.tr("无法撤销：{0}").format(error_detail(exc)))
            return None
        if not shiboken6.isValid(self):
            return None
        if preview.kept and not preview.rest:
            self.note.setText(self.tr("无法撤销：这个对话写下的记忆之后都被改过了"))
            return None
        if preview.kept:
            agreed = await self._agree_to_rest(preview)
        else:
            question = Question(self, self.tr("撤销这个对话？"), self.tr(
                "撤销对话「{0}」写下的 {1} 条记忆？之后还可以撤回这次撤销。").format(title, preview.rest),
                self.tr("撤销这个对话"))
            self.undo_confirm, self.question = question.confirm, question.box
            agreed = await question.answer()
        if not agreed or not shiboken6.isValid(self):
            return None
        try:
            result = await self._imports.undo_conversation(self.import_id, cid, rest=bool(preview.kept))
        except UndoConflict as exc:  # changed again meanwhile: asked again
            if not exc.rest or not shiboken6.isValid(self):
                if shiboken6.isValid(self):
                    self.note.setText(self.tr("无法撤销：这个对话写下的记忆之后都被改过了"))
                return None
            if not await self._agree_to_rest(exc.preview) or not shiboken6.isValid(self):
                return None
            result = await self._imports.undo_conversation(self.import_id, cid, rest=True)
        except Exception as exc:  # noqa: BLE001 - said in place; nothing was undone
            if shiboken6.isValid(self):
                self.note.setText(self.tr("无法撤销：{0}").format(error_detail(exc)))
            return None
        if not shiboken6.isValid(self):
            return result
        self.last_undo = (title, result.turn_id)
        kept = len(result.kept)
        text = self.tr("已撤销对话「{0}」").format(title)
        if kept:
            text += self.tr("；你之后改过的 {0} 张卡片原样保留").format(counted(kept))
        self.note.setText(text)
        self.take_back_button.setVisible(True)
        self.take_back_button.setEnabled(True)
        await self.reload()
        return result

    async def take_back(self) -> Any:
        """Undo the last conversation undo: the conversation's memories come back."""
        if self.last_undo is None:
            return None
        title, turn_id = self.last_undo
        self.take_back_button.setEnabled(False)
        try:
            result = await self._imports.take_back(turn_id)
        except Exception as exc:  # noqa: BLE001 - said in place
            if shiboken6.isValid(self):
                self.note.setText(self.tr("无法撤回：{0}").format(error_detail(exc)))
                self.take_back_button.setEnabled(True)
            return None
        if not shiboken6.isValid(self):
            return result
        self.last_undo = None
        self.take_back_button.setVisible(False)
        self.note.setText(self.tr("对话「{0}」的记忆已恢复").format(title))
        await self.reload()
        return result
