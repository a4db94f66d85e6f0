"""The language the command lines (``sonetto``, ``sonetto memory``, ``sonetto history``, ``sonetto mcp``)
speak, and the words they share. English when the app's language is English or the terminal's locale
(``LC_ALL``, ``LC_MESSAGES``, ``LANG``) names a language other than Chinese, else Chinese. Only what is
printed for people: ``--json`` and the lines for scripts (an id alone) are the same in both. Their
parsers speak it too (``parsing``): argparse's own words and the help of every option.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
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


#: argparse's own words in Chinese, by the English it says them with (its gettext message ids; one it
#: says that is not here stays English). Only what a person meets: a parser's help and its refusals.
ARGPARSE_ZH = {
    "usage: ": "用法：",
    "positional arguments": "位置参数",
    "options": "选项",
    "optional arguments": "选项",  # (Python before 3.10)
    "show this help message and exit": "显示这份帮助并退出",
    "%(prog)s: error: %(message)s\n": "%(prog)s：错误：%(message)s\n",
    "argument %(argument_name)s: %(message)s": "参数 %(argument_name)s：%(message)s",
    "unrecognized arguments: %s": "无法识别的参数：%s",
    "the following arguments are required: %s": "缺少必需的参数：%s",
    "one of the arguments %s is required": "参数 %s 必须给出其中一个",
    "not allowed with argument %s": "不能和参数 %s 一起用",
    "ignored explicit argument %r": "这个选项不带值，却给了 %r",
    "expected one argument": "需要一个值",
    "expected at most one argument": "最多一个值",
    "expected at least one argument": "至少需要一个值",
    "expected %s argument": "需要 %s 个值",
    "expected %s arguments": "需要 %s 个值",
    "ambiguous option: %(option)s could match %(matches)s": "选项 %(option)s 不明确，可能是 %(matches)s",
    "unexpected option string: %s": "不该出现的选项：%s",
    "invalid %(type)s value: %(value)r": "%(value)r 不是有效的值",
    "invalid choice: %(value)r (choose from %(choices)s)": "无效的选择 %(value)r（可选：%(choices)s）",
    "unknown parser %(parser_name)r (choices: %(choices)s)": "没有命令 %(parser_name)r（可选：%(choices)s）",
    "can't open '%(filename)s': %(error)s": "打不开 '%(filename)s'：%(error)s",
}


@contextlib.contextmanager
def parsing(say: Words) -> Iterator[None]:
    """Inside the block argparse says its own words (``usage:``, ``error:``, "unrecognized arguments", the
    ``-h`` help…) in ``say``'s language: build the parser and parse inside it (a parser's headings and its
    ``-h`` are worded when it is built, refusals when it parses). argparse words everything through
    gettext's functions as its module names them (``_``, ``ngettext``: how it is translated, see Python's
    argparse how-to); they are put back after the block."""
    if say.en:
        yield
        return
    before = argparse._, argparse.ngettext  # type: ignore[attr-defined]

    def ngettext(one: str, many: str, count: int) -> str:
        english = one if count == 1 else many
        return ARGPARSE_ZH.get(english, english)

    argparse._ = lambda text: ARGPARSE_ZH.get(text, text)  # type: ignore[attr-defined]
    argparse.ngettext = ngettext  # type: ignore[attr-defined]
    try:
        yield
    finally:
        argparse._, argparse.ngettext = before  # type: ignore[attr-defined]


def error_line(message: str, say: Words) -> str:
    """A command's refusal as one line, with its ``error:`` in the person's language."""
    return say("错误：", "error: ") + message


def settings_language() -> str:
    """The app's language setting, read without opening the store (the default when unreadable). Only read:
    a damaged settings file is left as it is and not said here (the app sets it aside and says so when it
    opens it; ``sonetto mcp`` never touches it)."""
    from .config.settings import Settings

    quiet = logging.getLogger("sonetto_desktop.config.settings")
    before, quiet.disabled = quiet.disabled, True
    try:
        return Settings.load(with_secret=False, repair=False).with_env().language
    except Exception:  # noqa: BLE001 - a damaged settings file is said when the store opens
        return Settings().language
    finally:
        quiet.disabled = before


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
    return say(f"它在审核箱里等你确认的 {count:,} 项改动已一并撤回",
               f"its {count:,} changes waiting in the review inbox were withdrawn with it")
