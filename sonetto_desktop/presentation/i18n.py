"""The translator presentation texts go through, installed by the front end (no Qt here).

``translate(context, text)`` is what every text of this package calls, with a literal context and
source text so that Qt's ``lupdate`` finds them (it reads calls named ``translate``). The desktop app
installs ``QCoreApplication.translate`` at start; until then (the command line, tests without Qt)
the Chinese source text is returned as it is. A front end without Qt that speaks English installs
``english()`` (the same table the .qm is compiled from), inside :func:`translating`.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import re
from typing import Any, Callable, Iterator

Translator = Callable[[str, str], str]
Wording = Callable[[], str]  # a text said in the front end's language of the moment it is called

ENGLISH_TABLE = "sonetto_en.yaml"  # in resources/translations: the source of the app's English .qm

_translator: Translator | None = None


def set_translator(translator: Translator | None) -> None:
    """Use ``translator(context, text)`` from now on (``None``: the source language)."""
    global _translator
    _translator = translator


def translate(context: str, text: str) -> str:
    """``text`` (Chinese) in the front end's language."""
    return _translator(context, text) if _translator is not None else text


def language() -> str:
    """``"en"`` or ``"zh"``: the front end's language now (Qt's own trick, cf. ``QT_LAYOUT_DIRECTION``: the
    source language's code is a translatable text, and the English table says ``"en"``)."""
    return "en" if translate("Language", "zh") == "en" else "zh"


def counted(n: int) -> str:
    """A count as every toast and label writes it: grouped by thousands ("3,303"), as the wall's count
    (in both languages: the window writes "3,303 条" too). ``short_number`` (``ui/i18n.py``) where
    room is short."""
    return f"{int(n):,}"


class Worded(str):
    """A text as said now that can be said again, in the language of then (``again()``): what outlives a
    language switch on screen (a toast) re-words itself with it, and everything else takes it as the
    ``str`` it is (a dialog's line, a log)."""

    wording: Wording

    def __new__(cls, wording: Wording) -> "Worded":
        said = super().__new__(cls, wording())
        said.wording = wording
        return said

    def again(self) -> str:
        return self.wording()

    def __reduce__(self) -> tuple[Any, ...]:  # (crossing a process: the text, not the way to word it)
        return (str, (str(self),))


def wording_of(text: "str | Wording") -> Wording:
    """How to say ``text`` again: a wording as it is, a ``Worded``'s own, a plain text as it was said."""
    if callable(text):
        return text
    if isinstance(text, Worded):
        return text.wording
    return lambda: text


_PLACE = re.compile(r"%([1-9])")


def filled(text: str, *values: object) -> str:
    """``text`` with its ``%1``…``%9`` replaced by ``values`` in one pass, as ``QString.arg`` does: a value
    that holds a ``%2`` itself (an address's ``%2F``) is said as it is, and a translation may put the
    places in any order. A place with no value stays as written."""
    def value(found: re.Match[str]) -> str:
        i = int(found.group(1))
        return str(values[i - 1]) if i <= len(values) else found.group(0)

    return _PLACE.sub(value, text)


@contextlib.contextmanager
def translating(translator: Translator | None) -> Iterator[None]:
    """Use ``translator`` inside the block, then the one before (a front end's ``main`` run in a
    process that already has one: a test, or the app itself)."""
    global _translator
    before, _translator = _translator, translator
    try:
        yield
    finally:
        _translator = before


def english() -> Translator:
    """The English translator without Qt, for the front ends that have none (the command line, the MCP
    server): from ``resources/translations/sonetto_en.yaml``, the table the app's .qm is compiled from.
    A text with no English there stays as it is; one with a count (``[one, other]``) takes ``other``.
    The table is read now, not at the first failure to word (that may come with no file handle left
    or after a process gave up its rights); unreadable, every text stays Chinese."""
    table = _english_table()

    def in_english(context: str, text: str) -> str:
        found = table.get(context, {}).get(text)
        if isinstance(found, list):
            found = found[-1] if found else None
        return found if isinstance(found, str) else text

    return in_english


def translator_for(language: str) -> Translator | None:
    """The translator of a front end speaking ``language`` ("en…" or Chinese: ``None``, the source)."""
    return english() if language.lower().startswith("en") else None


@functools.lru_cache(maxsize=1)
def _english_table() -> dict[str, dict[str, Any]]:
    import yaml

    from sonetto_desktop.resources import read_text

    try:
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml: 22 ms for the table here, 90 without
        table = yaml.load(read_text(f"translations/{ENGLISH_TABLE}"), Loader=loader) or {}
    except Exception:  # a damaged install still says everything, in Chinese
        logging.getLogger(__name__).warning("the English texts cannot be read", exc_info=True)
        return {}
    return table if isinstance(table, dict) else {}
