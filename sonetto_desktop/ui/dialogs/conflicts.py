"""ConflictsDialog: contradictions the daily tidy-up flagged for the person to settle (issue 13, item 6).

Each row is a pair of memories that say different things about one matter, with the pass's note.
The person merges them (the wall's merge dialog, prefilled), or keeps both ("两条都对"), which
dismisses the flag. Memory texts are read in a worker and shown as plain text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import shiboken6
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QDialog, QListWidgetItem, QWidget

from sonetto_desktop import ops
from sonetto_desktop.memory.errors import MemoryNotFound
from sonetto_desktop.presentation.i18n import counted
from ..widgets.list_dialog import ListDialogFrame

_ROLE = Qt.ItemDataRole.UserRole


class ConflictsDialog(QDialog):
    loaded = Signal()

    def __init__(self, service: Any, merge: Callable[[str, str], Any], reveal: Callable[[str], Any],
                 parent: QWidget | None = None) -> None:
        """``service``: the UI's operation runner (``MemoryService`` over the app's services)."""
        super().__init__(parent)
        self.setObjectName("ConflictsDialog")
        self.setWindowTitle(self.tr("可能矛盾的记忆"))
        self.resize(600, 420)
        self._service = service
        self._services = service.services
        self._merge = merge
        self._reveal = reveal
        self._frame = frame = ListDialogFrame(self, scope="conflicts-dialog", heading=self.tr("加载中…"),
                                              list_name="ConflictList", multiline=True)
        self.summary, self.list = frame.heading, frame.list
        self.merge_button = frame.action(self.tr("合并这两条…"))
        self.keep_button = frame.action(self.tr("两条都对"))
        self.keep_button.setToolTip(self.tr("不再提示这一对"))
        self.show_button = frame.action(self.tr("在墙上查看"))
        frame.lay_out()
        self.merge_button.clicked.connect(self.merge_current)
        self.keep_button.clicked.connect(lambda: frame.spawn(self.keep_current(), name="keep-both"))
        self.show_button.clicked.connect(self.show_current)
        self.list.currentRowChanged.connect(lambda _row: self._update_buttons())
        self.loading = frame.spawn(self.load(), name="load-conflicts")
        self._update_buttons()

    async def load(self) -> None:
        hygiene = self._services.hygiene
        memory = self._services.memory

        def read() -> list[tuple[Any, list[str]]]:
            rows = []
            for conflict in (hygiene.conflicts() if hygiene is not None else []):
                texts = []
                for mid in conflict.ids:
                    try:
                        texts.append(memory.get(mid).description)
                    except MemoryNotFound:
                        texts = []
                        break
                if texts:  # a pair already merged or deleted is no longer a question
                    rows.append((conflict, texts))
            return rows

        rows = await self._service.run(ops.Call.of(read), on_error=self._frame.say)
        if rows is None or not shiboken6.isValid(self):
            return
        self.list.clear()
        for conflict, texts in rows:
            lines = [conflict.note, *(f"· {text}" for text in texts)]
            item = QListWidgetItem("\n".join(line for line in lines if line))
            item.setData(_ROLE, tuple(conflict.ids))
            self.list.addItem(item)
        if rows:
            self.list.setCurrentRow(0)
        self.summary.setText(self.tr("整理记忆时发现 %1 对说法不一致的记忆，请确认哪条是对的。").replace("%1", counted(len(rows)))
                             if rows else self.tr("没有待确认的矛盾。"))
        self._update_buttons()
        self.loaded.emit()

    def _current(self) -> tuple[str, str] | None:
        item = self.list.currentItem()
        return tuple(item.data(_ROLE)) if item is not None else None  # type: ignore[return-value]

    def _update_buttons(self) -> None:
        for button in (self.merge_button, self.keep_button, self.show_button):
            button.setEnabled(self._current() is not None)

    def merge_current(self) -> None:
        pair = self._current()
        if pair is not None:
            self._merge(*pair)  # the merge dialog; the flag goes once the pair is merged (see load)

    async def keep_current(self) -> None:
        pair = self._current()
        hygiene = self._services.hygiene
        if pair is not None and hygiene is not None:
            await self._service.run(ops.Call.of(hygiene.dismiss_conflict, pair))
            await self.load()

    def show_current(self) -> None:
        pair = self._current()
        if pair is not None:
            self._reveal(pair[0])
