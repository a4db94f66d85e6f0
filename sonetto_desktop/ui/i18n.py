"""UI language: Chinese (zh_CN) is the source language written in the code (``self.tr("…")``);
English comes from ``resources/translations/sonetto_en.qm``, compiled from ``sonetto_en.ts`` with
``pyside6-lrelease`` (shipped with PySide6-Essentials). Both files are committed; regenerate with
``python scripts/update_translations.py`` after changing UI strings.

The texts of ``sonetto_desktop/presentation`` (Qt-free) go through the same translators: installing
them installs ``QCoreApplication.translate`` as the presentation's translator.

Qt's own strings (standard buttons, file dialogs) come from the ``qtbase_<lang>.qm`` files in Qt's
translations folder when present. The language is chosen at start-up; a change in the settings
applies at once (``language_switch.py`` installs the new translators and rebuilds the views).

The default ``QLocale`` is the UI language's (zh_CN / en_US): a count worded with Qt's plurals is written
``%Ln`` (never ``%n``) and so grouped by thousands ("3,303"), as ``presentation.i18n.counted`` writes every
other count, whatever the system's locale (a C locale groups nothing, a German one writes "3.303").
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator

from sonetto_desktop.presentation.i18n import counted, set_translator
from sonetto_desktop.resources import resource

log = logging.getLogger(__name__)

LANGUAGES = ("zh_CN", "en")


def translation_file(language: str) -> str | None:
    """Path of the app's .qm for ``language`` (None for the source language)."""
    if language == "zh_CN":
        return None
    node = resource(f"translations/sonetto_{language}.qm")
    return str(node) if node.is_file() else None


_qt_translate = QCoreApplication.translate  # (Qt's own texts: nothing for lupdate to collect here)


class RenamedQtTexts(QTranslator):
    """Qt's own texts whose source changed after qtbase's catalogue was made: Qt 6.11 asks the file
    dialog's two labels as "&Look in:" and "Files of &type:", which qtbase's Chinese catalogue has
    only as "Look in:" and "Files of type:" — so every file dialog (``QFileDialog.getOpenFileName``
    too) showed them in English in a Chinese UI. Answered with the translation of the older text."""

    RENAMED = {("QFileDialog", "&Look in:"): "Look in:", ("QFileDialog", "Files of &type:"): "Files of type:"}

    def translate(self, context, source_text, disambiguation=None, n=-1):
        older = self.RENAMED.get((context, source_text))
        if older is None:
            return None  # (a null string: "not here", the next translator is asked)
        text = _qt_translate(context, older)
        return text if text != older else None

    def isEmpty(self) -> bool:
        return False


def install_translators(app: QCoreApplication, language: str) -> list[QTranslator]:
    """Install the app's and Qt's translators for ``language``; returns them (keep references)."""
    if language not in LANGUAGES:
        raise ValueError(f"language must be one of {LANGUAGES}, not {language!r}")
    set_translator(QCoreApplication.translate)  # presentation/ texts are translated as the UI's are
    QLocale.setDefault(QLocale(language))  # the digits of a count worded with plurals (%Ln): "3,303", as counted()
    installed: list[QTranslator] = []
    qt_dir = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    qt_translator = QTranslator(app)
    if qt_translator.load(QLocale(language), "qtbase", "_", qt_dir):
        app.installTranslator(qt_translator)
        installed.append(qt_translator)
        renamed = RenamedQtTexts(app)
        app.installTranslator(renamed)
        installed.append(renamed)
    path = translation_file(language)
    if language != "zh_CN":
        own = QTranslator(app)
        if path and own.load(path):
            app.installTranslator(own)
            installed.append(own)
        else:
            log.warning("no UI translation for %s; showing Chinese", language)
    return installed


def ui_language() -> str:
    """``"en"`` or ``"zh"``: the language the UI is shown in, for words Qt does not translate
    (``relative_time``). Qt's own trick (cf. ``QT_LAYOUT_DIRECTION``): the source language's code is
    a translatable string, and the English translation says ``"en"``."""
    return "en" if QCoreApplication.translate("Language", "zh") == "en" else "zh"


def short_number(n: int) -> str:
    """A big count in a few characters, as people read it: 12.3万 / 1.2亿 in Chinese, 123k / 1.2M in
    English (below 10,000 the number itself). For places that have little room (the wall's count)."""
    def trimmed(value: float) -> str:
        return f"{value:.1f}".rstrip("0").rstrip(".") if value < 100 else f"{value:.0f}"

    if abs(n) < 10_000:
        return counted(n) if ui_language() == "en" else str(n)
    if ui_language() == "en":
        return trimmed(n / 1_000_000) + "M" if abs(n) >= 1_000_000 else trimmed(n / 1_000) + "k"
    return trimmed(n / 100_000_000) + "亿" if abs(n) >= 100_000_000 else trimmed(n / 10_000) + "万"


def remove_translators(app: QCoreApplication, translators: list[QTranslator]) -> None:
    for translator in translators:
        app.removeTranslator(translator)
    QLocale.setDefault(QLocale.system())  # (as before install_translators)
