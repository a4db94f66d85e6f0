"""EditDialog: write or change one memory — description, theme (completed from existing themes),
and why. The dialog only collects values; the caller hands them to :class:`MemoryService`."""

from __future__ import annotations

from typing import Iterable

from PySide6.QtCore import Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import (
    QCompleter,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)


def finish_form(dialog: QDialog, form: QFormLayout, *extra: QWidget) -> QDialogButtonBox:
    """Lay out a memory dialog: the form, any extra widgets, then OK / Cancel wired to accept / reject."""
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, dialog)
    buttons.accepted.connect(dialog.accept)
    buttons.rejected.connect(dialog.reject)
    layout = QVBoxLayout(dialog)
    layout.addLayout(form)
    for widget in extra:
        layout.addWidget(widget)
    layout.addWidget(buttons)
    return buttons


def theme_completer(themes: Iterable[str], parent: QWidget) -> QCompleter:
    completer = QCompleter(sorted(set(themes)), parent)
    completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
    completer.setFilterMode(Qt.MatchFlag.MatchContains)
    return completer


class EditDialog(QDialog):
    """``values()`` -> (description, theme, reason); OK is enabled only with a description and a theme."""

    def __init__(
        self,
        *,
        description: str = "",
        theme: str = "",
        themes: Iterable[str] = (),
        reason: str = "",
        creating: bool = False,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("EditDialog")
        self.setWindowTitle(self.tr("新建记忆") if creating else self.tr("编辑记忆"))
        self.setMinimumWidth(420)
        self._original = (description.strip(), theme.strip())
        self._creating = creating

        self.description_edit = QPlainTextEdit(description, self)
        self.description_edit.setObjectName("EditDescription")
        self.description_edit.setPlaceholderText(self.tr("关于你的一件事，例如：喜欢手冲咖啡，不加糖"))
        self.description_edit.setTabChangesFocus(True)  # Tab goes on to the theme, never a tab character
        self.description_edit.moveCursor(QTextCursor.MoveOperation.End)  # typing continues the text
        self.theme_edit = QLineEdit(theme, self)
        self.theme_edit.setObjectName("EditTheme")
        self.theme_edit.setPlaceholderText(self.tr("主题，例如：品味、工作、家人"))
        self.theme_edit.setCompleter(theme_completer(themes, self.theme_edit))
        self.reason_edit = QLineEdit(reason, self)
        self.reason_edit.setObjectName("EditReason")
        self.reason_edit.setPlaceholderText(self.tr("为什么这样改（可选，会记入历史）"))
        self.hint = QLabel(self)
        self.hint.setObjectName("DialogHint")
        self.hint.setWordWrap(True)

        form = QFormLayout()
        form.addRow(self.tr("内容"), self.description_edit)
        form.addRow(self.tr("主题"), self.theme_edit)
        form.addRow(self.tr("原因"), self.reason_edit)
        self.buttons = finish_form(self, form, self.hint)

        self.description_edit.textChanged.connect(self._validate)
        self.theme_edit.textChanged.connect(self._validate)
        self._validate()

    def values(self) -> tuple[str, str, str]:
        return (
            self.description_edit.toPlainText().strip(),
            self.theme_edit.text().strip(),
            self.reason_edit.text().strip(),
        )

    def changed(self) -> bool:
        description, theme, _ = self.values()
        return (description, theme) != self._original

    def _validate(self) -> None:
        description, theme, _ = self.values()
        ok_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        if not description:
            self.hint.setText(self.tr("内容不能为空。"))
        elif not theme:
            self.hint.setText(self.tr("主题不能为空。"))
        elif not self._creating and not self.changed():
            self.hint.setText(self.tr("还没有改动。"))
        else:
            self.hint.setText("")
        ok_button.setEnabled(bool(description and theme) and (self._creating or self.changed()))

    def accept(self) -> None:
        description, theme, _ = self.values()
        if not description or not theme or (not self._creating and not self.changed()):
            return  # the hint says why; nothing typed is lost
        super().accept()
