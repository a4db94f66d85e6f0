"""The main window's menu bar: 文件 (导入记忆…, 导出记忆…, 导入聊天记录…, 回收站…, 设置… Ctrl+,, 退出 Ctrl+Q),
编辑 (撤销 / 重做 the last memory action, Ctrl+Z / Ctrl+Shift+Z) and 帮助 (键盘快捷键 F1 / Ctrl+/). Actions only emit the window's request signals, ask the wall (its
``actions.show_trash``) or open the shortcut list; the app decides what they do. Every dialog is so
reachable from the keyboard (Alt+F / Alt+H)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QAction, QKeySequence

from .dialogs.shortcuts import ShortcutsDialog

if TYPE_CHECKING:
    from .main_window import MainWindow



@dataclass
class WindowMenus:
    import_action: QAction
    export_action: QAction
    history_action: QAction
    settings_action: QAction
    trash_action: QAction
    quit_action: QAction
    shortcuts_action: QAction
    undo_action: QAction
    redo_action: QAction


def show_shortcuts(window: "MainWindow") -> ShortcutsDialog:
    dialog = ShortcutsDialog(window)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.setWindowModality(Qt.WindowModality.WindowModal)
    dialog.open()
    window.shortcuts_dialog = dialog
    return dialog


def open_trash(window: "MainWindow") -> object:
    actions = getattr(window.wall, "actions", None)
    show = getattr(actions, "show_trash", None)
    return show() if callable(show) else None


def build_menus(window: "MainWindow") -> WindowMenus:
    bar = window.menuBar()
    bar.setObjectName("MenuBar")
    file_menu = bar.addMenu(QCoreApplication.translate("MainWindow", "文件(&F)"))
    import_action = file_menu.addAction(QCoreApplication.translate("MainWindow", "导入记忆…"), window.import_requested.emit)
    export_action = file_menu.addAction(QCoreApplication.translate("MainWindow", "导出记忆…"), window.export_requested.emit)
    history_action = file_menu.addAction(QCoreApplication.translate("MainWindow", "导入聊天记录…"),
                                         window.history_import_requested.emit)
    trash_action = file_menu.addAction(QCoreApplication.translate("MainWindow", "回收站…"), lambda: open_trash(window))
    file_menu.addSeparator()
    settings_action = file_menu.addAction(QCoreApplication.translate("MainWindow", "设置…"), window.settings_requested.emit)
    settings_action.setShortcut(QKeySequence("Ctrl+,"))
    file_menu.addSeparator()
    quit_action = file_menu.addAction(QCoreApplication.translate("MainWindow", "退出"), window.quit_requested.emit)
    quit_action.setShortcut(QKeySequence("Ctrl+Q"))
    edit_menu = bar.addMenu(QCoreApplication.translate("MainWindow", "编辑(&E)"))
    # The memories' undo (a text field with the focus keeps Ctrl+Z for its own text: it takes the
    # shortcut first). Texts and state follow MainWindow.attach_undo.
    undo_action = edit_menu.addAction(QCoreApplication.translate("MainWindow", "撤销"))
    undo_action.setShortcut(QKeySequence(QKeySequence.StandardKey.Undo))
    redo_action = edit_menu.addAction(QCoreApplication.translate("MainWindow", "重做"))
    redo_action.setShortcuts(QKeySequence.keyBindings(QKeySequence.StandardKey.Redo))
    for action in (undo_action, redo_action):
        action.setEnabled(False)
    help_menu = bar.addMenu(QCoreApplication.translate("MainWindow", "帮助(&H)"))
    shortcuts_action = help_menu.addAction(QCoreApplication.translate("MainWindow", "键盘快捷键"), lambda: show_shortcuts(window))
    shortcuts_action.setShortcuts([QKeySequence("F1"), QKeySequence("Ctrl+/")])
    # 设置, 退出 and the shortcut list work from the app's non-modal windows too (the import's window: Ctrl+Q
    # did nothing there); a modal dialog still blocks them (as it blocks the menu), and a text field with the
    # focus keeps a key it uses. Undo / redo stay the main window's: they act on the wall behind it.
    for action in (settings_action, quit_action, shortcuts_action):
        action.setShortcutContext(Qt.ShortcutContext.ApplicationShortcut)
    for action in (undo_action, redo_action):
        action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
    return WindowMenus(import_action, export_action, history_action, settings_action, trash_action, quit_action,
                       shortcuts_action, undo_action, redo_action)
