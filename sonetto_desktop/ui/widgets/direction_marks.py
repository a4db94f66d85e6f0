"""Direction controls in a text box: shown, not obeyed.

Unicode's direction controls (U+202A-U+202E, U+2066-U+2069) are invisible and act on what follows them:
a right-to-left override (U+202E) pasted into a memory's text made everything typed after it show
reversed, with nothing on screen to say why. In a box this is installed on, each such control is shown
as a mark (⬚) that stands for it and does nothing to the text around it, so what is typed reads as it
is typed; the text read back (:func:`written_text`) has the control again where its mark is, so a
memory saved without touching it keeps exactly what it held. A mark deleted deletes its control; a
control pasted or typed becomes a mark (in the same undo step as the paste). While the box holds a
mark its tooltip says what the marks are."""

from __future__ import annotations

import re

from PySide6.QtCore import QCoreApplication, QObject
from PySide6.QtGui import QTextCharFormat, QTextCursor, QTextDocument, QTextFormat, QValidator
from PySide6.QtWidgets import QLineEdit, QPlainTextEdit

from ...presentation.undo_words import DIRECTION_CONTROLS as CONTROLS
from .tooltips import plain_tooltip

MARK = "\u2b1a"  # ⬚ (a dotted square: a character that is there and not seen)
_HELD = int(QTextFormat.Property.UserProperty) + 0x202E  # a mark's format: the control it stands for
_CONTROL = re.compile(f"[{CONTROLS}]")


def marked(text: str) -> str:
    """``text`` to be drawn as it reads (a card's): each direction control as a mark, as a box shows it."""
    return _CONTROL.sub(MARK, text)


class DirectionMarks(QObject):
    """Shows ``edit``'s direction controls as marks (from now on, the text already in it too)."""

    def __init__(self, edit: QPlainTextEdit) -> None:
        super().__init__(edit)
        self._edit = edit
        self._busy = False
        edit.document().contentsChange.connect(self._on_contents_change)
        edit.cursorPositionChanged.connect(self._plain_typing)
        if self._mark(0, edit.document().characterCount()):  # the text it holds: marked as if loaded so
            edit.document().clearUndoRedoStacks()
            self._say()

    def _on_contents_change(self, position: int, removed: int, added: int) -> None:
        if self._busy:
            return
        if added and self._mark(position, position + added) or removed and self._edit.toolTip():
            self._say()

    def _say(self) -> None:
        """The box's tooltip says what its marks are while it has one."""
        marked = not self._edit.document().find(MARK, 0, QTextDocument.FindFlag.FindCaseSensitively).isNull()
        self._edit.setToolTip(marks_tooltip() if marked else "")

    def _mark(self, start: int, end: int) -> bool:
        """Each control between ``start`` and ``end`` (document positions) becomes a mark; whether any did."""
        doc = self._edit.document()
        found: list[QTextCursor] = []
        for control in CONTROLS:
            at = doc.find(control, start, QTextDocument.FindFlag.FindCaseSensitively)
            while not at.isNull() and at.selectionStart() < end:
                found.append(at)
                at = doc.find(control, at.selectionEnd(), QTextDocument.FindFlag.FindCaseSensitively)
        if not found:
            return False
        self._busy = True
        try:
            edit = QTextCursor(doc)
            edit.joinPreviousEditBlock()  # (one undo step with the paste or the keystroke that brought them)
            for at in found:
                control = at.selectedText()
                mark = QTextCharFormat()
                mark.setProperty(_HELD, control)
                at.insertText(MARK, mark)
            edit.endEditBlock()
        finally:
            self._busy = False
        return True

    def _plain_typing(self) -> None:
        """What is typed right after a mark is text, not another mark (it would take the mark's format)."""
        if self._edit.currentCharFormat().hasProperty(_HELD):
            self._edit.setCurrentCharFormat(QTextCharFormat())


def marks_tooltip() -> str:
    """What a box's marks are (its tooltip while it holds one; rich text: Qt wraps it)."""
    return plain_tooltip(QCoreApplication.translate(
        "DirectionMarks", "⬚ 是文字方向控制字符（例如从网页复制来的 U+202E），这里只显示、不起作用；保存时原样保留。"))


class LineMarks(QValidator):
    """``DirectionMarks`` for a one-line box (a theme, a reason): each direction control in ``edit`` shows as
    a mark; what each mark stands for is kept in order (a ⬚ typed or pasted stands for itself), and
    :func:`written_text` reads the box with its controls again. Installed as the box's validator, so a paste,
    a keystroke, a completion or ``setText`` all pass through it."""

    def __init__(self, edit: QLineEdit) -> None:
        super().__init__(edit)
        self._edit = edit
        text = edit.text()
        self._held = [ch for ch in text if ch == MARK or ch in CONTROLS]  # what each mark stands for, in order
        self._shown = marked(text)
        edit.setValidator(self)
        edit.setText(self._shown)  # (marked as loaded)
        edit.textChanged.connect(self._say)
        self._say()

    def validate(self, text: str, pos: int) -> object:  # (Qt's signature: the text as it is to be)
        if text != self._shown:
            shown, start = self._shown, 0
            while start < min(len(text), len(shown)) and text[start] == shown[start]:
                start += 1
            end = 0
            while end < min(len(text), len(shown)) - start and text[-1 - end] == shown[-1 - end]:
                end += 1
            added = text[start:len(text) - end]
            before, dropped = shown[:start].count(MARK), shown[start:len(shown) - end].count(MARK)
            self._held[before:before + dropped] = [ch for ch in added if ch == MARK or ch in CONTROLS]
            text = self._shown = text[:start] + marked(added) + text[len(text) - end:]
        return QValidator.State.Acceptable, text, pos

    def written(self, text: str) -> str:
        if MARK not in text:
            return text
        held = iter(self._held)
        return "".join(next(held, MARK) if ch == MARK else ch for ch in text)

    def _say(self) -> None:
        self._edit.setToolTip(marks_tooltip() if any(ch != MARK for ch in self._held) else "")


def load_text(edit: QPlainTextEdit, text: str) -> None:
    """``edit.setPlainText(text)`` in a box with marks: its controls are marked as loaded, not as an edit
    that Ctrl+Z would take back."""
    edit.setPlainText(text)
    edit.document().clearUndoRedoStacks()


def written_text(edit: QPlainTextEdit | QLineEdit) -> str:
    """``edit``'s text as written: its marks (``DirectionMarks``, ``LineMarks``) are the controls they stand for."""
    if isinstance(edit, QLineEdit):
        marks = edit.validator()
        return marks.written(edit.text()) if isinstance(marks, LineMarks) else edit.text()
    plain = edit.toPlainText()
    if MARK not in plain:
        return plain
    lines = []
    block = edit.document().begin()
    while block.isValid():
        parts = []
        fragments = block.begin()
        while not fragments.atEnd():
            fragment = fragments.fragment()
            text = fragment.text()
            held = fragment.charFormat().property(_HELD) if fragment.charFormat().hasProperty(_HELD) else None
            parts.append(text.replace(MARK, held) if isinstance(held, str) and held else text)
            fragments += 1
        lines.append("".join(parts).replace("\u00a0", " "))  # (as toPlainText says a no-break space)
        block = block.next()
    return "\n".join(lines)
