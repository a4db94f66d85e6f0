"""EditDialog: write or change one memory — description, theme (completed from existing themes),
and why. The dialog only collects values; the caller hands them to :class:`MemoryService`.

The description shows a counter against the domain's limit (OK waits until it fits); closing with
unsaved changes (Esc, the close button, 取消) asks first (``discard_guard``). Ctrl+Enter saves, as a
click on OK would (Enter in the description is a new line)."""

from __future__ import annotations

from typing import Iterable

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QKeySequence, QShortcut, QTextCursor
from PySide6.QtWidgets import (
    QCompleter,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from sonetto_desktop.memory.item import MAX_DESCRIPTION_CHARS, MAX_REASON_CHARS, MAX_THEME_CHARS
from sonetto_desktop.presentation.i18n import counted

from ..widgets.char_counter import CharCounter
from ..widgets.direction_marks import DirectionMarks, LineMarks, load_text, written_text
from ..widgets.discard_guard import guard_reject
from .history_paste import PasteBox


def finish_form(dialog: QDialog, form: QFormLayout, *extra: QWidget) -> QDialogButtonBox:
    """Lay out a memory dialog: the form, any extra widgets, then OK / Cancel wired to accept / reject.
    Ctrl+Enter (the main keyboard's or the keypad's) clicks OK: nothing while OK is disabled."""
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, dialog)
    buttons.accepted.connect(dialog.accept)
    buttons.rejected.connect(dialog.reject)
    save = buttons.button(QDialogButtonBox.StandardButton.Ok)
    for keys in ("Ctrl+Return", "Ctrl+Enter"):
        QShortcut(QKeySequence(keys), dialog).activated.connect(save.click)
    save.setToolTip(QCoreApplication.translate("EditDialog", "保存（{0}）").format(
        QKeySequence("Ctrl+Enter").toString(QKeySequence.SequenceFormat.NativeText)))
    layout = QVBoxLayout(dialog)
    layout.addLayout(form)
    for widget in extra:
        layout.addWidget(widget)
    layout.addWidget(buttons)
    return buttons


#: The most a memory's text box takes by a paste or a drop: room to paste a text over the limit and cut
#: it, not megabytes to lay out (a 1 MB paste held the window 2.3 s, then ~1 s at each keystroke).
BOX_CHARS = 4 * MAX_DESCRIPTION_CHARS


def description_box(parent: QWidget, hint: QLabel) -> PasteBox:
    """A memory's text box (the edit and merge dialogs'): a paste that would make it longer than
    ``BOX_CHARS`` is refused, ``hint`` saying so; a direction control (U+202E…) in it is shown as a mark
    that does not turn what is typed after it around (``DirectionMarks``: read it with ``written_text``)."""
    box = PasteBox(BOX_CHARS, parent)
    DirectionMarks(box)
    said = [""]

    def refused(characters: int) -> None:
        said[0] = QCoreApplication.translate("EditDialog", "没有粘贴：粘贴的内容有 {0} 个字，一条记忆最多 {1} 个字。").format(
            counted(characters), f"{MAX_DESCRIPTION_CHARS:,}")
        hint.setText(said[0])

    def changed() -> None:  # the refusal is said until the text changes
        if said[0] and hint.text() == said[0]:
            hint.setText("")

    box.too_long.connect(refused)
    box.textChanged.connect(changed)
    return box


def theme_completer(themes: Iterable[str], parent: QWidget) -> QCompleter:
    completer = QCompleter(sorted(set(themes)), parent)
    completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
    completer.setFilterMode(Qt.MatchFlag.MatchContains)
    return completer


class EditDialog(QDialog):
    """``values()`` -> (description, theme, reason); ``changes()``: only the fields the person changed.
    OK is enabled only with a description and a theme."""

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
        self._initial = (description, theme, reason)
        self._creating = creating
        self._refused = ""

        self.hint = QLabel(self)
        self.description_edit = description_box(self, self.hint)
        load_text(self.description_edit, description)
        self.description_edit.setObjectName("EditDescription")
        self.description_edit.setPlaceholderText(self.tr("关于你的一件事，例如：喜欢手冲咖啡，不加糖"))
        self.description_edit.setTabChangesFocus(True)  # Tab goes on to the theme, never a tab character
        self.description_edit.moveCursor(QTextCursor.MoveOperation.End)  # typing continues the text
        self.theme_edit = QLineEdit(theme, self)
        self.theme_edit.setObjectName("EditTheme")
        self.theme_edit.setPlaceholderText(self.tr("主题，例如：品味、工作、家人"))
        self.theme_edit.setCompleter(theme_completer(themes, self.theme_edit))
        self.theme_edit.setMaxLength(MAX_THEME_CHARS)
        LineMarks(self.theme_edit)  # (a direction control in it shows as a mark, as in the text's box)
        self.counter = CharCounter(self.description_edit, MAX_DESCRIPTION_CHARS, self)
        self.reason_edit = QLineEdit(reason, self)
        self.reason_edit.setMaxLength(MAX_REASON_CHARS)
        LineMarks(self.reason_edit)
        self.reason_edit.setObjectName("EditReason")
        self.reason_edit.setPlaceholderText(self.tr("为什么这样改（可选，会记入历史）"))
        self.hint.setObjectName("DialogHint")
        self.hint.setWordWrap(True)

        form = QFormLayout()
        form.addRow(self.tr("内容"), self.description_edit)
        form.addRow("", self.counter)
        form.addRow(self.tr("主题"), self.theme_edit)
        form.addRow(self.tr("原因"), self.reason_edit)
        self.buttons = finish_form(self, form, self.hint)

        self.description_edit.textChanged.connect(self._validate)
        self.theme_edit.textChanged.connect(self._validate)
        self._validate()

    def values(self) -> tuple[str, str, str]:
        return (
            written_text(self.description_edit).strip(),
            written_text(self.theme_edit).strip(),
            written_text(self.reason_edit).strip(),
        )

    def original(self) -> tuple[str, str]:
        """(description, theme) as the dialog opened with them (stripped)."""
        return self._original

    def changes(self) -> tuple[str | None, str | None]:
        """(description, theme) the person changed; ``None`` for a field left as it opened, so a save
        sends only what they changed (not a stale copy of what Sonetto changed meanwhile)."""
        description, theme, _ = self.values()
        return (description if description != self._original[0] else None,
                theme if theme != self._original[1] else None)

    def changed(self) -> bool:
        description, theme, _ = self.values()
        return (description, theme) != self._original

    def set_refused(self, why: str) -> None:
        """While ``why`` is said (the memory server away, or refusing this computer: nothing can be saved), OK
        waits and the hint says why; what was typed stays. "" when changes are taken again."""
        self._refused = why
        self._validate()

    def _validate(self) -> None:
        description, theme, _ = self.values()
        ok_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        if self._refused:
            self.hint.setText(self._refused)
        elif not description:
            self.hint.setText(self.tr("内容不能为空。"))
        elif self.counter.over():
            self.hint.setText(self.tr("内容太长了：最多 {0} 个字，现在 {1} 个。").format(
                counted(self.counter.limit), counted(self.counter.count())))
        elif not theme:
            self.hint.setText(self.tr("主题不能为空。"))
        elif not self._creating and not self.changed():
            self.hint.setText(self.tr("还没有改动。"))
        else:
            self.hint.setText("")
        ok_button.setEnabled(self._acceptable())

    def _acceptable(self) -> bool:
        description, theme, _ = self.values()
        return (bool(description and theme) and not self.counter.over() and (self._creating or self.changed())
                and not self._refused)

    def accept(self) -> None:
        if not self._acceptable():
            return  # the hint says why; nothing typed is lost
        super().accept()

    def dirty(self) -> bool:
        """Anything typed that closing would lose."""
        now = (written_text(self.description_edit), written_text(self.theme_edit), written_text(self.reason_edit))
        return now != self._initial

    def reject(self) -> None:
        guard_reject(self, self.dirty, super().reject)
