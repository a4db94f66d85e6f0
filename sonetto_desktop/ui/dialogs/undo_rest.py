"""UndoRestDialog: before an undo that keeps the cards the person changed since (issue 35, item 4).

An import (or any turn) whose memories the person edited, moved, merged, deleted or restored after
it cannot be taken back whole without throwing those changes away. This asks instead: it lists the
cards that stay as they are — by their text, with who changed them, how and when — and says what
undoing the rest does (how many go to the trash, get their text back…). 取消 is the default;
撤销其余的改动 confirms. Texts are plain text (a memory never renders as markup).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from sonetto_desktop.memory.undo import UndoPreview
from sonetto_desktop.presentation.undo_words import kept_headline, kept_line, rest_line

from ..i18n import ui_language
from ..widgets.tooltips import plain_tooltip


class UndoRestDialog(QDialog):
    def __init__(self, preview: UndoPreview, title: str, parent: QWidget | None = None) -> None:
        """``preview``: what the refused undo said (``UndoConflict.preview``); ``title``: what is undone."""
        super().__init__(parent)
        self.setObjectName("UndoRestDialog")
        self.setWindowTitle(title)
        self.resize(560, 380)
        lang = ui_language()
        self.headline = QLabel(kept_headline(len(preview.kept), lang), self)
        self.headline.setWordWrap(True)
        self.headline.setTextFormat(Qt.TextFormat.PlainText)
        self.cards = QListWidget(self)
        self.cards.setObjectName("KeptCards")
        self.cards.setAccessibleName(self.tr("保留的卡片"))
        self.cards.setWordWrap(True)
        self.cards.setSelectionMode(QListWidget.SelectionMode.NoSelection)
        for touched in sorted(preview.kept, key=lambda t: (t.description, t.memory_id)):
            item = QListWidgetItem(kept_line(touched, lang), self.cards)
            item.setToolTip(plain_tooltip(touched.description))  # the whole text (the line may be cut)
        self.rest = QLabel(rest_line(preview.effects, lang, "will"), self)
        self.rest.setObjectName("ImportNote")
        self.rest.setWordWrap(True)
        self.rest.setTextFormat(Qt.TextFormat.PlainText)
        hint = QLabel(self.tr("撤销之后也可以再撤销它，把这些改动找回来。"), self)
        hint.setObjectName("HintLabel")
        hint.setWordWrap(True)
        buttons = QDialogButtonBox(self)
        self.confirm = QPushButton(self.tr("撤销其余的改动"), self)
        self.confirm.setObjectName("DestructiveConfirm")
        self.cancel = QPushButton(self.tr("取消"), self)
        buttons.addButton(self.confirm, QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.addButton(self.cancel, QDialogButtonBox.ButtonRole.RejectRole)
        self.cancel.setDefault(True)  # Enter never undoes
        self.confirm.setAutoDefault(False)
        self.confirm.setEnabled(preview.rest > 0)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.headline)
        layout.addWidget(self.cards, 1)
        layout.addWidget(self.rest)
        layout.addWidget(hint)
        layout.addWidget(buttons)
