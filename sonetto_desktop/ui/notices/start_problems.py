"""What the window says when the memory store cannot be used as configured.

- :func:`choose_data_dir_after` — the data folder cannot be used at all (no permission, not a
  folder, full disk): the app does not die at start; it explains and offers another folder or quit.
- :func:`migration_problem_box` — a backend switch (YAML ⇄ SQLite) failed or was interrupted: the
  store that is open still holds everything; the box says which one is open and why.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox, QWidget

from ..widgets.dialogs import execute_dialog
from ..widgets.file_dialogs import translated
from ..i18n import ui_language


async def choose_data_dir_after(problem: Any, current: Path, parent: QWidget | None = None) -> Path | None:
    """Explain ``problem`` (a ``StoreUnavailable``) and let the person pick another data folder.
    Returns the folder chosen, or ``None`` when they chose to quit."""
    box = QMessageBox(QMessageBox.Icon.Critical, QApplication.translate("StartProblems", "无法打开记忆库"), QApplication.translate("StartProblems", "Sonetto 无法使用这个数据文件夹，没有读写任何内容。"),
                      QMessageBox.StandardButton.NoButton, parent)
    reason = getattr(problem, "zh", "") if ui_language() == "zh" else str(problem)
    box.setInformativeText(reason or str(problem))
    choose = box.addButton(QApplication.translate("StartProblems", "选择其他文件夹…"), QMessageBox.ButtonRole.AcceptRole)
    box.addButton(QApplication.translate("StartProblems", "退出"), QMessageBox.ButtonRole.RejectRole)
    box.setDefaultButton(choose)
    await execute_dialog(box)
    if box.clickedButton() is not choose:
        box.deleteLater()
        return None
    box.deleteLater()
    picker = translated(QFileDialog(parent, QApplication.translate("StartProblems", "选择数据文件夹"),
                                    str(current.parent if current.parent.exists() else Path.home())))
    picker.setFileMode(QFileDialog.FileMode.Directory)
    picker.setOption(QFileDialog.Option.ShowDirsOnly, True)
    picker.setOption(QFileDialog.Option.DontUseNativeDialog, True)  # the same everywhere, and testable
    accepted = await execute_dialog(picker) == QFileDialog.DialogCode.Accepted
    chosen = picker.selectedFiles() if accepted else []
    picker.deleteLater()
    return Path(chosen[0]) if chosen else None


def migration_problem_box(problem: Any, data_dir: Path, parent: QWidget | None) -> QMessageBox:
    """A window-modal warning about a failed or interrupted backend switch (opened, deleted on close)."""
    box = QMessageBox(QMessageBox.Icon.Warning, QApplication.translate("StartProblems", "切换存储方式没有完成"),
                      QApplication.translate("StartProblems", "你的记忆都还在：Sonetto 打开的是仍然完整的那个记忆库。"), QMessageBox.StandardButton.Ok, parent)
    box.setInformativeText(problem.zh if ui_language() == "zh" else problem.en)
    open_button = box.addButton(QApplication.translate("StartProblems", "打开数据文件夹"), QMessageBox.ButtonRole.ActionRole)
    open_button.clicked.connect(lambda: QDesktopServices.openUrl(QUrl.fromLocalFile(str(data_dir))))
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()
    return box
