"""Opening a link from model text: only http(s), and only after the person saw the full URL."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QMessageBox, QWidget

from .markdown_render import safe_link


def confirm_open_link(parent: QWidget, url: str) -> QMessageBox | None:
    """Ask (non-blocking) before opening ``url`` in the browser; None (nothing shown, nothing opened)
    for any scheme other than http / https."""
    if not safe_link(url):
        return None
    target = QUrl(url.strip())
    if not target.isValid() or target.scheme().lower() not in ("http", "https"):
        return None
    box = QMessageBox(
        QMessageBox.Icon.Question,
        QCoreApplication.translate("LinkConfirm", "打开链接"),
        QCoreApplication.translate("LinkConfirm", "在浏览器中打开这个链接？"),
        QMessageBox.StandardButton.Open | QMessageBox.StandardButton.Cancel,
        parent,
    )
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setText(box.text() + "\n\n" + target.toString())  # the whole URL, as it will be opened
    box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

    def clicked(button) -> None:
        if box.standardButton(button) == QMessageBox.StandardButton.Open:
            QDesktopServices.openUrl(target)

    box.buttonClicked.connect(clicked)
    box.open()
    return box
