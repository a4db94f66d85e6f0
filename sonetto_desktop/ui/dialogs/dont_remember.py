"""DontRememberDialog: the person's "don't remember" list (issue 12, capability 3) — see, add, edit
and remove what Sonetto must not store. Sonetto's writer is told the list and refused any write
that matches an entry; the person's own edits are not limited by it. File I/O runs in a worker.
"""

from __future__ import annotations

from typing import Any

import shiboken6
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QDialog, QInputDialog, QListWidgetItem, QWidget

from sonetto_desktop import ops
from sonetto_desktop.memory.dont_remember import MAX_ENTRY_CHARS

from sonetto_desktop.memory.changes import excerpt_of

from ..widgets.dialogs import destructive_question, execute_dialog
from ..widgets.list_dialog import ListDialogFrame

_ROLE = Qt.ItemDataRole.UserRole


class DontRememberDialog(QDialog):
    loaded = Signal()

    def __init__(self, service: Any, parent: QWidget | None = None) -> None:
        """``service``: the UI's operation runner (``MemoryService`` over the app's services)."""
        super().__init__(parent)
        self.setObjectName("DontRememberDialog")
        self.setWindowTitle(self.tr("不要记住的内容"))
        self.resize(520, 380)
        self._service = service
        self._services = service.services
        self._frame = frame = ListDialogFrame(
            self, scope="dont-remember-dialog", list_name="DontRememberList", status="",
            heading=self.tr("Sonetto 不会记住和这些内容有关的事。在对话里对一条消息选“别记住这个”，"
                            "它也会加到这里。你自己添加或编辑记忆不受限制。"))
        self.list, self.status, self._spawn = frame.list, frame.status, frame.spawn
        self.list.setAccessibleName(self.tr("不要记住的内容"))
        self.add_button = frame.action(self.tr("添加…"))
        self.edit_button = frame.action(self.tr("编辑…"))
        self.remove_button = frame.action(self.tr("移除"))
        frame.lay_out()
        self.add_button.clicked.connect(lambda: self._spawn(self.add_entry()))
        self.edit_button.clicked.connect(lambda: self._spawn(self.edit_entry()))
        self.remove_button.clicked.connect(self._on_remove_clicked)
        self.list.currentRowChanged.connect(lambda _row: self._update_buttons())
        self.loading = self._spawn(self.load())
        self._update_buttons()

    @property
    def _list(self) -> Any:
        return self._services.dont_remember

    async def load(self) -> None:
        # a damaged file is left as it is and said
        entries = await self._service.run(ops.Call.of(self._list.entries), on_error=self._frame.say) or []
        if not shiboken6.isValid(self):
            return
        self.list.clear()
        for entry in entries:
            item = QListWidgetItem(entry.text)
            item.setData(_ROLE, entry.id)
            self.list.addItem(item)
        self._update_buttons()
        self.loaded.emit()

    def _update_buttons(self) -> None:
        selected = self.list.currentItem() is not None
        self.edit_button.setEnabled(selected)
        self.remove_button.setEnabled(selected)

    async def _ask(self, title: str, text: str = "") -> str:
        box = QInputDialog(self)
        box.setWindowTitle(title)
        box.setLabelText(self.tr("不要记住（最多 %1 字）：").replace("%1", str(MAX_ENTRY_CHARS)))
        box.setTextValue(text)
        accepted = await execute_dialog(box) == QDialog.DialogCode.Accepted
        value = box.textValue().strip() if shiboken6.isValid(box) else ""
        if shiboken6.isValid(box):
            box.deleteLater()
        return value if accepted and shiboken6.isValid(self) else ""

    async def _change(self, action: Any) -> None:
        failed: list[str] = []  # said in the dialog, worded by the runner; nothing was saved
        await self._service.run(ops.Call.of(action), on_error=failed.append)
        if failed:
            self._frame.say(failed[0])
            return
        self._frame.say("")
        await self.load()

    async def add_entry(self) -> None:
        text = await self._ask(self.tr("添加"))
        if text:
            await self._change(lambda: self._list.add(text))

    async def edit_entry(self) -> None:
        item = self.list.currentItem()
        if item is None:
            return
        entry_id = item.data(_ROLE)
        text = await self._ask(self.tr("编辑"), item.text())
        if text:
            await self._change(lambda: self._list.update(entry_id, text))

    def _on_remove_clicked(self) -> None:
        """Ask first (it cannot be undone), naming the entry; 取消 is the default answer."""
        item = self.list.currentItem()
        if item is None:
            return
        entry_id = item.data(_ROLE)  # taken now: the question acts on this entry even if the list refills
        destructive_question(
            self, self.tr("移除"),
            self.tr("从列表里移除「{0}」？移除后 Sonetto 可能会再记住和它有关的事。").format(excerpt_of(item.text(), 60)),
            self.tr("移除"), lambda: self._spawn(self._change(lambda: self._list.remove(entry_id))))

    async def remove_entry(self) -> None:
        item = self.list.currentItem()
        if item is not None:
            entry_id = item.data(_ROLE)
            await self._change(lambda: self._list.remove(entry_id))
