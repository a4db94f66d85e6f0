"""Qt's own file dialog in the UI's language.

The app installs qtbase's translations (``ui/i18n.py``), and most of the file dialog follows them.
Qt 6.11 asks for two labels by new source texts ("&Look in:", "Files of &type:") that qtbase's
Chinese catalogue has only in their older form ("Look in:", "Files of type:"), so in a Chinese UI
they stayed English. ``translated`` sets them from the older, translated form.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QFileDialog


def translated(dialog: QFileDialog) -> QFileDialog:
    """``dialog`` with its "look in" and "files of type" labels in the UI's language."""
    dialog.setLabelText(QFileDialog.DialogLabel.LookIn, QCoreApplication.translate("QFileDialog", "Look in:"))
    dialog.setLabelText(QFileDialog.DialogLabel.FileType, QCoreApplication.translate("QFileDialog", "Files of type:"))
    return dialog
