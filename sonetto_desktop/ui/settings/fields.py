"""Small pieces of the settings dialog, each with one job: a field locked by an environment
variable (read-only, the variable's name shown under it), a show/hide toggle for a secret, the
trash-retention spin box, and the "is this form changed?" snapshot."""

from __future__ import annotations

import os

from PySide6.QtCore import QCoreApplication, QSize, Qt
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLayout,
    QLineEdit,
    QScrollArea,
    QSpinBox,
    QTabWidget,
    QToolButton,
    QWidget,
)

#: The environment variables that can set a field (the first one set wins, as in ``Settings.with_env``).
ENV_VARIABLES = {"base_url": ("SONETTO_BASE_URL", "OPENAI_BASE_URL"), "api_key": ("OPENAI_API_KEY",),
                 "model": ("SONETTO_MODEL",), "data_dir": ("SONETTO_DATA_DIR",)}



def env_variable(name: str, environ: dict[str, str] | None = None) -> str:
    """The variable that sets field ``name`` now (else all that could, joined with " / ")."""
    env = os.environ if environ is None else environ
    candidates = ENV_VARIABLES.get(name, ())
    for variable in candidates:
        if env.get(variable, "").strip():
            return variable
    return " / ".join(candidates)


def lock_to_env(form: QFormLayout, field: QWidget | QLayout, editor: QWidget, variable: str) -> QLabel:
    """Make ``editor`` read-only (still selectable and copyable) and say under ``field`` (its row in
    ``form``) which variable sets it. Returns the note."""
    note_text = mark_env_locked(editor, variable)
    note = QLabel(note_text, editor.parentWidget())
    note.setObjectName("EnvNote")
    note.setWordWrap(True)
    if isinstance(field, QLayout):
        row, _ = form.getLayoutPosition(field)
    else:
        row, _ = form.getWidgetPosition(field)
    form.insertRow(row + 1, "", note)
    return note


def mark_env_locked(editor: QWidget, variable: str) -> str:
    """Make ``editor`` read-only (a line edit: still selectable and copyable; a combo box: disabled),
    styled as locked, its tool tip saying which variable sets it. Returns that sentence."""
    note_text = QCoreApplication.translate("SettingsDialog", "由环境变量 %1 设置，在这里不能修改。").replace("%1", variable)
    if isinstance(editor, QLineEdit):
        editor.setReadOnly(True)
    elif isinstance(editor, QComboBox):
        editor.setEnabled(False)
    editor.setProperty("envLocked", True)
    editor.style().unpolish(editor)  # the dynamic property's QSS applies from now on
    editor.style().polish(editor)
    editor.setToolTip(note_text)
    editor.setAccessibleDescription(note_text)
    return note_text


def with_secret_toggle(edit: QLineEdit, parent: QWidget) -> tuple[QHBoxLayout, QToolButton]:
    """``edit`` (a password field) with a 显示 / 隐藏 button after it."""
    button = QToolButton(parent)
    button.setObjectName("ShowSecret")
    button.setCheckable(True)
    button.setText(QCoreApplication.translate("SettingsDialog", "显示"))
    button.setAccessibleName(QCoreApplication.translate("SettingsDialog", "显示密钥"))
    button.setToolTip(QCoreApplication.translate("SettingsDialog", "显示或隐藏密钥"))

    def toggled(shown: bool) -> None:
        edit.setEchoMode(QLineEdit.EchoMode.Normal if shown else QLineEdit.EchoMode.Password)
        if shown:
            button.setText(QCoreApplication.translate("SettingsDialog", "隐藏"))
            button.setAccessibleName(QCoreApplication.translate("SettingsDialog", "隐藏密钥"))
        else:
            button.setText(QCoreApplication.translate("SettingsDialog", "显示"))
            button.setAccessibleName(QCoreApplication.translate("SettingsDialog", "显示密钥"))

    button.toggled.connect(toggled)
    row = QHBoxLayout()
    row.setContentsMargins(0, 0, 0, 0)
    row.addWidget(edit, 1)
    row.addWidget(button)
    return row, button


def retention_spin(parent: QWidget) -> QSpinBox:
    """Days the trash keeps a deleted memory; 0 reads "一直保留"."""
    spin = QSpinBox(parent)
    spin.setObjectName("TrashRetention")
    spin.setRange(0, 36500)
    spin.setSuffix(QCoreApplication.translate("SettingsDialog", " 天"))
    spin.setSpecialValueText(QCoreApplication.translate("SettingsDialog", "一直保留"))
    return spin


class _PageScroll(QScrollArea):
    """Scrolls up and down only, so it is never narrower than its page's minimum: otherwise a page
    whose rows need more width (English labels, a row of buttons) is cut at the right edge."""

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        page = self.widget()
        if page is None:
            return hint
        width = page.minimumSizeHint().width() + self.verticalScrollBar().sizeHint().width() + 2 * self.frameWidth()
        return QSize(max(hint.width(), width), hint.height())

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        return QSize(max(hint.width(), self.minimumSizeHint().width()), hint.height())


def scrolling(page: QWidget, tabs: QTabWidget, title: str) -> QScrollArea:
    """``page`` as the tab ``title`` of ``tabs``, in a frameless scroll area that follows its width: a
    page taller than the dialog scrolls up and down instead of squeezing its rows (Qt shrinks form rows
    below their text's height); it never scrolls sideways (its labels wrap to the width), and is never
    narrower than the page's minimum width. The area is in its tab before the page goes in: a page
    moved to another parent once styled is styled again under the app's style sheet, all its widgets
    (that was a third of the settings dialog's opening, issue 37)."""
    area = _PageScroll()
    area.setObjectName(f"{page.objectName() or 'Page'}Scroll")
    area.setFrameShape(QScrollArea.Shape.NoFrame)
    area.setWidgetResizable(True)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # the page wraps to its width
    tabs.addTab(area, title)
    area.setWidget(page)
    return area
