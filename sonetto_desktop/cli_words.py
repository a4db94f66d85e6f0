"""The language the command lines (``sonetto memory``, ``sonetto history``) speak, and the words they
share. English when the app's language is English or the terminal's locale (``LC_ALL``,
``LC_MESSAGES``, ``LANG``) names a language other than Chinese, else Chinese. Only what is printed for
people: ``--json`` and the lines for scripts (an id alone) are the same in both.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any, Callable, Iterator

from .presentation.errors import describe_error_exactly
from .presentation.i18n import translating, translator_for


def cli_language(setting: str, environ: Any = None) -> str:
    """``"en"`` or ``"zh_CN"``: the language of what is printed. English when the app is set to it;
    else the terminal's locale decides (the first of ``LC_ALL``, ``LC_MESSAGES``, ``LANG`` that is
    set, as POSIX reads them): Chinese for ``zh…``, English for any other language; with no locale
    (or ``C`` / ``POSIX``), the app's setting."""
    if setting == "en":
        return "en"
    environ = os.environ if environ is None else environ
    locale = next((environ[k] for k in ("LC_ALL", "LC_MESSAGES", "LANG") if environ.get(k)), "")
    language = locale.split(".", 1)[0].split("@", 1)[0].strip()
    if not language or language in ("C", "POSIX"):
        return setting
    return "zh_CN" if language.lower().startswith("zh") else "en"


class Words:
    """The language of what is printed for people (``cli_language``)."""

    def __init__(self, language: str) -> None:
        self.en = language == "en"

    @property
    def language(self) -> str:
        return "en" if self.en else "zh_CN"

    @property
    def lang(self) -> str:
        """``"en"`` / ``"zh"``: the language as ``presentation.undo_words`` takes it."""
        return "en" if self.en else "zh"

    def __call__(self, zh: str, en: str) -> str:
        return en if self.en else zh

    @contextlib.contextmanager
    def speaking(self) -> Iterator[None]:
        """Inside the block the shared wordings (``presentation``: failures, a store's notices) are in
        this language; the translator before it is back after (a command run in-process)."""
        with translating(translator_for(self.language)):
            yield


def settings_language() -> str:
    """The app's language setting, read without opening the store (the default when unreadable)."""
    from .config.settings import Settings, load_settings

    try:
        return load_settings(with_secret=False).language
    except Exception:  # noqa: BLE001 - a damaged settings file is said when the store opens
        return Settings().language


def terminal_words() -> Words:
    """The words of a command run now: the app's setting and this terminal's locale."""
    return Words(cli_language(settings_language()))


def words_of(exc: BaseException, say: Words) -> str:
    """An error's text in the person's language: its own Chinese where it has one (a ``zh`` beside it),
    else presentation.errors' wording in that language (as the window says it)."""
    zh = getattr(exc, "zh", None)
    if isinstance(zh, str) and zh and not say.en:
        return zh
    with say.speaking():
        return describe_error_exactly(exc)


def lock_wait_words(say: Words) -> Callable[[str], str]:
    """The line a command prints while it waits for another process's store lock (``say_lock_waits``)."""
    return lambda name: say(f"在等另一个程序（Sonetto 或 sonetto mcp）写完 {name}……（Ctrl+C 停止）",
                            f"waiting for another process (Sonetto or sonetto mcp) that is writing {name}… "
                            "(Ctrl+C to stop)")


def no_such_store(store: Path, say: Words) -> str:
    """``--store FILE`` names a file that is not there (and no ``--create``)."""
    return say(f"{store} 不存在（加 --create 在那里新建一个记忆库）",
               f"{store} does not exist (add --create to start a new store there)")


def withdrawn_line(count: int, say: Words) -> str:
    """An undo took back ``count`` changes that waited in the review inbox with the rest."""
    return say(f"它在审核箱里等你确认的 {count} 项改动已一并撤回",
               f"its {count} changes waiting in the review inbox were withdrawn with it")
