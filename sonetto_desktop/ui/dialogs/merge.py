"""MergeDialog: merge two memories into one. Prefilled with both texts; the first card is kept
(with both histories), the second goes to the trash. The caller checks on OK that neither memory
changed since the dialog opened (``opened``), else opens it again from the texts as they are now. Memory text is shown as plain text only
(never parsed as HTML), and the merged text has the domain's length limit with a counter."""

from __future__ import annotations

from typing import Iterable, Sequence

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import (
    QComboBox,
    QCompleter,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QWidget,
)

from sonetto_desktop.memory.item import MAX_DESCRIPTION_CHARS, MAX_REASON_CHARS, MAX_THEME_CHARS

from sonetto_desktop.presentation.cards import DESCRIPTION, ID, THEME, Card
from ..widgets.char_counter import CharCounter
from ..widgets.discard_guard import guard_reject
from ..widgets.direction_marks import LineMarks, load_text, written_text
from .edit import description_box, finish_form, theme_completer

_END_PUNCT = "。；;.!！?？…"


def merged_text(first: str, second: str) -> str:
    """The prefilled merged description: both texts, joined with "；" unless the first already ends a sentence."""
    first, second = first.strip(), second.strip()
    if not second:
        return first
    if not first:
        return second
    return first + second if first[-1] in _END_PUNCT else f"{first}；{second}"


def _label(card: Card) -> str:
    text = " ".join(card[DESCRIPTION].split())
    text = text if len(text) <= 48 else text[:47] + "…"
    return QCoreApplication.translate("MergeDialog", "{0}（{1}）").format(text, card[THEME])


class MergeDialog(QDialog):
    """``values()`` -> (keep_id, gone_id, description, theme, reason)."""

    def __init__(
        self,
        first: Card,
        candidates: Sequence[Card],
        *,
        second: Card | None = None,
        themes: Iterable[str] = (),
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("MergeDialog")
        self.setWindowTitle(self.tr("合并记忆"))
        self.setMinimumWidth(460)
        self._first = first
        self._cards = {card[ID]: card for card in candidates if card[ID] != first[ID]}
        if second is not None:
            self._cards.setdefault(second[ID], second)
        self._prefilled = ""

        self.first_label = QLabel(_label(first), self)
        self.first_label.setObjectName("MergeFirst")
        self.first_label.setTextFormat(Qt.TextFormat.PlainText)  # memory text is data, never markup
        self.first_label.setWordWrap(True)
        self.second_combo = QComboBox(self)
        self.second_combo.setObjectName("MergeSecond")
        self.second_combo.setEditable(True)
        self.second_combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        for card in self._cards.values():
            self.second_combo.addItem(_label(card), card[ID])
        completer = self.second_combo.completer()  # typed words find a card by any part of it
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        self._pick_hint = ""
        self._refused = ""  # why nothing can be saved now (``set_refused``)
        self.hint = QLabel(self)
        self.description_edit = description_box(self, self.hint)
        self.description_edit.setObjectName("MergeDescription")
        self.description_edit.setTabChangesFocus(True)
        self.counter = CharCounter(self.description_edit, MAX_DESCRIPTION_CHARS, self)
        self.theme_edit = QLineEdit(first[THEME], self)
        self.theme_edit.setObjectName("MergeTheme")
        self.theme_edit.setCompleter(theme_completer(themes, self.theme_edit))
        self.theme_edit.setMaxLength(MAX_THEME_CHARS)
        LineMarks(self.theme_edit)  # (a direction control in it shows as a mark, as in the text's box)
        self.reason_edit = QLineEdit(self)  # optional: without one the history keeps the app's own (手动合并),
        self.reason_edit.setMaxLength(MAX_REASON_CHARS)  # shown in the reader's language
        LineMarks(self.reason_edit)
        self.reason_edit.setObjectName("MergeReason")
        self.reason_edit.setPlaceholderText(self.tr("为什么合并（可选，会记入历史）"))
        self.hint.setObjectName("DialogHint")
        self.hint.setTextFormat(Qt.TextFormat.PlainText)  # may quote memory text
        self.hint.setWordWrap(True)

        form = QFormLayout()
        form.addRow(self.tr("保留"), self.first_label)
        form.addRow(self.tr("并入"), self.second_combo)
        form.addRow(self.tr("合并后"), self.description_edit)
        form.addRow("", self.counter)
        form.addRow(self.tr("主题"), self.theme_edit)
        form.addRow(self.tr("原因"), self.reason_edit)
        self.buttons = finish_form(self, form, self.hint)

        self.second_combo.currentIndexChanged.connect(self._on_second_changed)
        self.second_combo.editTextChanged.connect(self._validate)
        self.description_edit.textChanged.connect(self._validate)
        self.theme_edit.textChanged.connect(self._validate)
        self.reason_edit.textChanged.connect(self._validate)
        if second is not None:
            self.second_combo.setCurrentIndex(self.second_combo.findData(second[ID]))
        self._on_second_changed()
        self._initial = self._form_state()

    def second_id(self) -> str | None:
        """The card picked in 并入; None while the box shows typed words rather than a card of the
        list (its current item is then one the person no longer sees named)."""
        combo = self.second_combo
        if combo.currentIndex() < 0 or combo.currentText() != combo.itemText(combo.currentIndex()):
            return None
        memory_id = combo.currentData()
        return memory_id if memory_id in self._cards else None

    def values(self) -> tuple[str, str, str, str, str]:
        return (
            self._first[ID],
            self.second_id() or "",
            written_text(self.description_edit).strip(),
            written_text(self.theme_edit).strip(),
            written_text(self.reason_edit).strip(),
        )

    def opened(self, memory_id: str) -> Card | None:
        """The card ``memory_id`` as the dialog opened with it (the kept one or a candidate)."""
        return self._first if memory_id == self._first[ID] else self._cards.get(memory_id)

    def own_text(self) -> bool:
        """The person wrote the merged text themselves (it is not the prefill of the two texts)."""
        return written_text(self.description_edit).strip() not in ("", self._prefilled)

    def _on_second_changed(self, *_: object) -> None:
        second = self._cards.get(self.second_id() or "")
        text = merged_text(self._first[DESCRIPTION], second[DESCRIPTION] if second else "")
        # Re-prefill only while the person has not written their own text.
        if written_text(self.description_edit).strip() in ("", self._prefilled):
            load_text(self.description_edit, text)
        self._prefilled = text
        self._validate()

    def set_refused(self, why: str) -> None:
        """As ``EditDialog.set_refused``: while ``why`` is said, OK waits and the hint says why."""
        self._refused = why
        self._validate()

    def _validate(self, *_: object) -> None:
        picked = self.second_id() is not None or not self._cards
        hint = self._refused or ("" if picked else self.tr("从列表里选出要并入的那条记忆。"))
        if hint or self.hint.text() == self._pick_hint:  # (not over a note of the caller's)
            self.hint.setText(hint)
        self._pick_hint = hint
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(self._acceptable())

    def _acceptable(self) -> bool:
        _, gone, description, theme, _ = self.values()
        return bool(gone and description and theme) and not self.counter.over() and not self._refused

    def accept(self) -> None:
        if self._acceptable():
            super().accept()

    def _form_state(self) -> tuple[str, str, str]:
        return written_text(self.description_edit), written_text(self.theme_edit), written_text(self.reason_edit)

    def dirty(self) -> bool:
        """The person typed something: the merged text is no longer a prefill, or the theme or reason
        changed (picking another memory alone is not typing)."""
        description, theme, reason = self._form_state()
        typed = description not in (self._prefilled, self._initial[0])
        return typed or (theme, reason) != self._initial[1:]

    def reject(self) -> None:
        guard_reject(self, self.dirty, super().reject)
