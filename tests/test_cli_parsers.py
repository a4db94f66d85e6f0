"""What the command lines' parsers say — argparse's own words (``usage:``, ``error:``, "unrecognized
arguments", the ``-h`` help) and the help of our options — in the terminal's language, as the rest of
what the commands print (``cli_words``). In a zh_CN terminal they were English: ``sonetto memory --bogus``
ended "sonetto memory: error: unrecognized arguments: --bogus", ``sonetto history --help`` was English
from "usage:" to "show this help message and exit". Exit codes stay argparse's (2; 0 for ``--help``)."""

from __future__ import annotations

import re

import pytest

from sonetto_desktop.__main__ import main as sonetto

#: argparse's own English words, and our own English prefixes: none of them in a Chinese terminal.
ENGLISH = ("usage:", "error:", "unrecognized arguments", "the following arguments are required", "invalid choice",
           "show this help message and exit", "positional arguments", "options:", "expected one argument",
           "invalid float value", "invalid int value")

_CJK = re.compile(r"[\u4e00-\u9fff]")


def _said(capsys, argv: list[str]) -> tuple[int, str, str]:
    try:
        code = sonetto(argv)
    except SystemExit as ended:
        code = ended.code
    out, err = capsys.readouterr()
    return code, out, err


REFUSED = [
    (["memory", "--bogus", "list"], "sonetto memory：错误：无法识别的参数：--bogus",
     "sonetto memory: error: unrecognized arguments: --bogus"),
    (["memory", "delete"], "sonetto memory delete：错误：缺少必需的参数：id",
     "sonetto memory delete: error: the following arguments are required: id"),
    (["memory"], "sonetto memory：错误：缺少必需的参数：命令",
     "sonetto memory: error: the following arguments are required: command"),
    (["memory", "show"], "sonetto memory：错误：参数 命令：无效的选择 'show'（可选：",  # (the choices quoted or not,
     "sonetto memory: error: argument command: invalid choice: 'show' (choose from "),    # as Python's version says)
    (["memory", "export", "--format", "pdf"], "sonetto memory export：错误：参数 --format：无效的选择 'pdf'（可选：",
     "sonetto memory export: error: argument --format: invalid choice: 'pdf' (choose from "),
    (["memory", "list", "--theme"], "sonetto memory list：错误：参数 --theme：需要一个值",
     "sonetto memory list: error: argument --theme: expected one argument"),
    (["history", "import"], "sonetto history import：错误：缺少必需的参数：path",
     "sonetto history import: error: the following arguments are required: path"),
    (["history", "import", "x.json", "--price-in", "cheap"], "sonetto history import：错误：参数 --price-in：'cheap' 不是有效的值",
     "sonetto history import: error: argument --price-in: invalid float value: 'cheap'"),
    (["history", "undo", "imp-1", "--bogus"], "sonetto history：错误：无法识别的参数：--bogus",
     "sonetto history: error: unrecognized arguments: --bogus"),
    (["mcp", "--bogus"], "sonetto mcp：错误：无法识别的参数：--bogus", "sonetto mcp: error: unrecognized arguments: --bogus"),
    (["mcp", "--port", "x"], "sonetto mcp：错误：参数 --port：'x' 不是有效的值",
     "sonetto mcp: error: argument --port: invalid int value: 'x'"),
    (["mcp", "--port", "8000"], "sonetto mcp：错误：--port 要和 --http 一起用", "sonetto mcp: error: --port needs --http"),
    (["mcp", "--http", "--port", "70000"], "sonetto mcp：错误：--port 应在 0 到 65535 之间，不是 70000",
     "sonetto mcp: error: --port must be from 0 to 65535, not 70000"),
    (["mcp", "token", "--bogus"], "sonetto mcp token：错误：无法识别的参数：--bogus",
     "sonetto mcp token: error: unrecognized arguments: --bogus"),
    (["--bogus"], "sonetto：错误：无法识别的参数：--bogus", "sonetto: error: unrecognized arguments: --bogus"),
]


@pytest.mark.parametrize("argv, chinese, english", REFUSED, ids=[" ".join(case[0]) for case in REFUSED])
def test_wrong_arguments_are_refused_in_a_chinese_terminals_words(capsys, chinese_terminal, argv, chinese, english):
    code, out, err = _said(capsys, argv)
    assert code == 2 and out == ""
    assert chinese in err, err
    assert not [word for word in ENGLISH if word in err], err
    if "：错误：无法识别" in chinese or "缺少" in chinese or "参数 " in chinese:  # argparse's: its usage first
        assert err.startswith("用法："), err


@pytest.mark.parametrize("argv, chinese, english", REFUSED, ids=[" ".join(case[0]) for case in REFUSED])
def test_wrong_arguments_are_refused_in_english_in_an_english_terminal(capsys, english_terminal, argv, chinese,
                                                                      english):
    code, out, err = _said(capsys, argv)
    assert code == 2 and out == ""
    assert english in err, err
    assert not _CJK.search(err.replace("设置 → 其他应用", "")), err


HELPS = [["--help"], ["memory", "--help"], ["memory", "add", "-h"], ["memory", "undo", "--help"],
         ["history", "--help"], ["history", "import", "--help"], ["history", "undo", "--help"], ["mcp", "--help"],
         ["mcp", "token", "--help"]]


def _entries(help_text: str) -> list[tuple[str, str]]:
    """``(name, its help)`` of every argument and command a help lists: in a section (a heading ending in a
    colon), a line indented less than 8 starts an entry (its help after two spaces, or on the lines
    below); a line indented more goes on with the entry's help."""
    entries: list[list[str]] = []
    section = False
    for line in help_text.splitlines():
        if not line.startswith(" "):
            section = line.rstrip().endswith((":", "："))
            continue
        if not section or not line.strip():
            continue
        if len(line) - len(line.lstrip()) < 8:
            name, _, text = line.strip().partition("  ")
            entries.append([name, text.strip()])
        elif entries:
            entries[-1][1] += " " + line.strip()
    return [(name, text.strip()) for name, text in entries]


@pytest.mark.parametrize("argv", HELPS, ids=[" ".join(a) for a in HELPS])
def test_every_help_speaks_the_chinese_terminals_language(capsys, chinese_terminal, argv):
    code, out, err = _said(capsys, argv)
    assert code == 0 and err == ""
    assert out.startswith("用法：sonetto"), out
    assert "选项:" in out and "显示这份帮助并退出" in out, out  # (argparse puts its own colon after a heading)
    assert not [word for word in ENGLISH if word in out], out
    entries = _entries(out)
    assert len(entries) >= 2, out
    english_only = [(name, text) for name, text in entries if not _CJK.search(text)]
    assert not english_only, english_only  # every argument, option and command is explained in Chinese


@pytest.mark.parametrize("argv", HELPS, ids=[" ".join(a) for a in HELPS])
def test_every_help_stays_english_in_an_english_terminal(capsys, english_terminal, argv):
    code, out, err = _said(capsys, argv)
    assert code == 0 and err == ""
    assert out.startswith("usage: sonetto"), out
    assert "options:" in out and "show this help message and exit" in out, out
    assert "用法" not in out and "选项" not in out


def test_the_app_set_to_english_keeps_the_parsers_english_in_a_chinese_terminal(capsys, chinese_terminal):
    from sonetto_desktop.config.settings import Settings

    Settings(language="en").save(with_secret=False)
    code, out, err = _said(capsys, ["memory", "--bogus", "list"])
    assert code == 2 and "sonetto memory: error: unrecognized arguments: --bogus" in err, err


def test_a_refusal_with_json_is_one_object_in_the_terminals_language(capsys, chinese_terminal):
    import json

    code, out, err = _said(capsys, ["history", "import", "x.json", "--json", "--price-in", "cheap"])
    assert code == 2
    assert json.loads(out) == {"error": "sonetto history import: 参数 --price-in：'cheap' 不是有效的值", "exit_code": 2}


@pytest.mark.parametrize("argv", [["--help"], ["mcp", "--help"], ["memory", "--help"]])
def test_reading_the_language_leaves_a_damaged_settings_file_to_the_app(capsys, chinese_terminal, argv):
    """The language is read from the settings before the parser is made: a damaged settings file was moved
    aside by that read (before the app's own, which then had nothing to tell the person; `sonetto mcp`
    must never touch it, and let the apps in on the defaults)."""
    from sonetto_desktop.config.paths import config_dir
    from sonetto_desktop.config.settings import SETTINGS_FILE, Settings

    Settings(language="en").save(with_secret=False)
    path = config_dir() / SETTINGS_FILE
    damaged = path.read_bytes()[:-7]
    path.write_bytes(damaged)
    code, out, err = _said(capsys, argv)
    assert code == 0 and out.startswith("用法：") and err == ""  # (unreadable: the app's default, Chinese)
    assert path.read_bytes() == damaged and [p.name for p in config_dir().iterdir()] == [SETTINGS_FILE]
