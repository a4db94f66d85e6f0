"""ImportPreviewDialog: what an import will change — how many memories are new, how many come
with an id that is already taken (added beside it, nothing overwritten), how many are skipped as
duplicates — and the list, before anything is written. 导入 applies it; 取消 (the default) leaves
the store as it is. Memory text is shown as plain text."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from sonetto_desktop.memory.import_preview import NEW, NEW_ID, SKIPPED, ImportPreview

from ..widgets.tooltips import plain_tooltip

SHOWN_ROWS = 2000  # a huge file still opens at once; the counts cover everything


class ImportPreviewDialog(QDialog):
    def __init__(self, preview: ImportPreview, file_name: str, parent: QWidget | None = None, *,
                 note: str = "") -> None:
        """``note``: a part of the file left out (a YAML export's damaged trash file), in words."""
        super().__init__(parent)
        self.setObjectName("ImportPreviewDialog")
        self.setWindowTitle(self.tr("导入记忆"))
        self.resize(640, 460)
        self.preview = preview
        labels = {NEW: self.tr("新增"), NEW_ID: self.tr("新增（编号已被占用，换新编号）"), SKIPPED: self.tr("跳过（已有相同记忆）")}

        self.summary = QLabel(self)
        self.summary.setObjectName("ImportSummary")
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setWordWrap(True)
        self.summary.setText(self.tr("从 {0} 导入：新增 {1} 条，其中 {2} 条换了新编号；跳过 {3} 条重复的。已有的记忆不会被覆盖。").format(
            file_name, preview.count(NEW) + preview.count(NEW_ID), preview.count(NEW_ID), preview.count(SKIPPED)))
        if preview.trashed and not preview.count(NEW) + preview.count(NEW_ID):  # the trash alone: nothing to undo
            self.summary.setText(self.summary.text() + self.tr(
                "另有 %Ln 条删除了的记忆会放回回收站（不上记忆墙；这次导入不新增记忆，无从撤销，不需要的可以在回收站里永久删除）。", "",
                preview.trashed))
        elif preview.trashed:  # an export's trash: restorable again, not on the wall
            self.summary.setText(self.summary.text() + self.tr(
                "另有 %Ln 条删除了的记忆会放回回收站（不上记忆墙；撤销这次导入时它们仍留在回收站）。", "", preview.trashed))
        if note:
            self.summary.setText(f"{self.summary.text()}\n{note}")
        self.list = QTreeWidget(self)
        self.list.setObjectName("ImportList")
        self.list.setRootIsDecorated(False)
        self.list.setHeaderLabels([self.tr("结果"), self.tr("内容"), self.tr("主题")])
        self.list.setAccessibleName(self.tr("将要导入的记忆"))
        for row in preview.rows[:SHOWN_ROWS]:
            text = " ".join(row.description.split())
            item = QTreeWidgetItem([labels.get(row.outcome, row.outcome), text, row.theme])
            item.setToolTip(1, plain_tooltip(row.description))
            item.setData(0, Qt.ItemDataRole.UserRole, row.outcome)
            self.list.addTopLevelItem(item)
        self.list.setColumnWidth(0, 170)
        self.list.setColumnWidth(1, 330)
        self.more = QLabel(self.tr("（只列出前 {0} 条）").format(SHOWN_ROWS), self)
        self.more.setObjectName("HintLabel")
        self.more.setVisible(len(preview.rows) > SHOWN_ROWS)

        self.buttons = QDialogButtonBox(self)
        self.import_button = self.buttons.addButton(self.tr("导入"), QDialogButtonBox.ButtonRole.AcceptRole)
        self.import_button.setObjectName("ImportApply")
        self.import_button.setEnabled(preview.changes_anything)
        self.import_button.setAutoDefault(False)
        cancel = self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        cancel.setText(self.tr("取消"))
        cancel.setDefault(True)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.more)
        layout.addWidget(self.buttons)
