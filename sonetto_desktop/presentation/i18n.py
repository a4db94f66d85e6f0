"""The translator presentation texts go through, installed by the front end (no Qt here).

``translate(context, text)`` is what every text of this package calls, with a literal context and
source text so that Qt's ``lupdate`` finds them (it reads calls named ``translate``). The desktop app
installs ``QCoreApplication.translate`` at start; until then (the command line, tests without Qt)
the Chinese source text is returned as it is.
"""

from __future__ import annotations

from typing import Callable

Translator = Callable[[str, str], str]

_translator: Translator | None = None


def set_translator(translator: Translator | None) -> None:
    """Use ``translator(context, text)`` from now on (``None``: the source language)."""
    global _translator
    _translator = translator


def translate(context: str, text: str) -> str:
    """``text`` (Chinese) in the front end's language."""
    return _translator(context, text) if _translator is not None else text
