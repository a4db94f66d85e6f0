"""ShortcutsDialog: every keyboard shortcut of the window in one list (F1 or Ctrl+/).

The list is the app's fixed keys plus, read from the window at opening time, every ``QAction`` and
``QShortcut`` that has a key and a description (an action's text, a shortcut's ``whatsThis``), so a
part of the window that adds a shortcut only has to describe it to be listed here.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)



def fixed_shortcuts() -> list[tuple[str, str]]:
    """Keys that belong to widgets rather than to actions (the composer, dialogs, lists)."""
    return [
        ("Enter", QCoreApplication.translate("ShortcutsDialog", "发送消息")),
        ("Shift+Enter", QCoreApplication.translate("ShortcutsDialog", "在消息里换行")),
        ("Tab / Shift+Tab", QCoreApplication.translate("ShortcutsDialog", "在输入框、对话列表、记忆墙和按钮之间移动")),
        ("Esc", QCoreApplication.translate("ShortcutsDialog", "关闭对话框（有未保存的修改时会先询问）")),
        ("Ctrl+Enter", QCoreApplication.translate("ShortcutsDialog", "保存编辑或合并记忆的对话框")),
        ("Delete", QCoreApplication.translate("ShortcutsDialog", "删除选中的记忆卡片（可撤销）")),
        ("↑ ↓ ← →", QCoreApplication.translate("ShortcutsDialog", "在记忆墙的卡片之间移动（到一个主题的边上就进到相邻的主题）")),
        ("Enter", QCoreApplication.translate("ShortcutsDialog", "编辑记忆墙上当前的卡片")),
        ("Shift+F10", QCoreApplication.translate("ShortcutsDialog", "记忆墙上当前卡片的菜单（历史、合并、锁定、置顶…）")),
    ]


def _key_text(sequence: QKeySequence) -> str:
    return sequence.toString(QKeySequence.SequenceFormat.NativeText)


def _typed(sequence: QKeySequence) -> bool:
    """A key combination a person types: with a modifier, or a function key. A platform's extra
    bindings for a standard action include media keys ("Redo", which a Chinese window names 重做,
    the action's own name) that read as a mistake in the key column."""
    first = sequence[0]
    return first.keyboardModifiers() != Qt.KeyboardModifier.NoModifier or Qt.Key.Key_F1 <= first.key() <= Qt.Key.Key_F35


#: The most key combinations listed for one action (Windows binds 重做 to three: Ctrl+Y, Alt+Shift+Backspace
#: and Ctrl+Shift+Z; the column took half the dialog and cut the descriptions beside it).
MAX_KEYS = 2


def window_shortcuts(window: QWidget) -> list[tuple[str, str]]:
    """(keys, what) for every described action and shortcut of ``window``."""
    rows: dict[str, str] = {}
    for action in window.findChildren(QAction):
        keys = [k for k in action.shortcuts() if not k.isEmpty() and _typed(k)][:MAX_KEYS]
        text = action.text().replace("&", "").rstrip("…").strip()
        if keys and text:
            rows.setdefault(" / ".join(_key_text(k) for k in keys), text)
    for shortcut in window.findChildren(QShortcut):
        text = shortcut.whatsThis().strip()
        key = shortcut.key()
        if text and not key.isEmpty():
            rows.setdefault(_key_text(key), text)
    return list(rows.items())


class ShortcutsDialog(QDialog):
    def __init__(self, window: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent or window)
        self.setObjectName("ShortcutsDialog")
        self.setWindowTitle(self.tr("键盘快捷键"))
        self.resize(520, 420)
        rows = window_shortcuts(window)
        known = {keys for keys, _ in rows}
        rows += [row for row in fixed_shortcuts() if row[0] not in known]
        self.table = QTableWidget(len(rows), 2, self)
        self.table.setObjectName("ShortcutTable")
        self.table.setAccessibleName(self.tr("键盘快捷键"))
        self.table.setHorizontalHeaderLabels([self.tr("按键"), self.tr("作用")])
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        # A description longer than its column wraps (the row grows) rather than being cut with "…".
        self.table.setWordWrap(True)
        self.table.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        for row, (keys, what) in enumerate(rows):
            self.table.setItem(row, 0, QTableWidgetItem(keys))
            self.table.setItem(row, 1, QTableWidgetItem(what))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.button(QDialogButtonBox.StandardButton.Close).setText(self.tr("关闭"))
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table, 1)
        layout.addWidget(buttons)

    def rows(self) -> list[tuple[str, str]]:
        return [(self.table.item(r, 0).text(), self.table.item(r, 1).text()) for r in range(self.table.rowCount())]
