"""The dialog shown when the memory store fails its self-check: nothing is written, and the way
to the data folder (and its ``.bak`` backups) is one click away."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from sonetto_desktop.memory.stores.base import SelfCheckReport
from sonetto_desktop.memory.stores.validation import said_in

from ..i18n import ui_language


def store_problem_box(report: SelfCheckReport | None, data_dir: Path, parent: QWidget | None) -> QMessageBox:
    """A window-modal warning (opened, not exec'd), deleted on close."""
    text = QApplication.translate("SonettoApp", "记忆库文件无法读取，为了不丢失任何内容，Sonetto 不会写入它。")
    box = QMessageBox(QMessageBox.Icon.Warning, QApplication.translate("SonettoApp", "记忆库有问题"), text,
                      QMessageBox.StandardButton.Ok, parent)
    box.setInformativeText(QApplication.translate("SonettoApp", "可以在数据文件夹里用备份（.bak）恢复，然后重新启动。"))
    box.setDetailedText("\n".join(said_in(line, ui_language()) for line in report.issues) if report else "")
    open_button = box.addButton(QApplication.translate("SonettoApp", "打开数据文件夹"), QMessageBox.ButtonRole.ActionRole)
    open_button.clicked.connect(lambda: QDesktopServices.openUrl(QUrl.fromLocalFile(str(data_dir))))
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()
    return box
