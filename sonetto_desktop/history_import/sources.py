"""Telling which history format a picked path holds, and reading it with that format's reader."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from .formats import HistoryFormat, all_formats, format_named, names
from .model import History, HistoryFormatError
from .sniff import other_apps
from .source_files import Source, named_files, open_source


def _listed(items: list[str], zh: bool) -> str:
    """"a、b 或 c" / "a, b or c"."""
    if len(items) < 2:
        return "".join(items)
    return ("、".join(items[:-1]) + " 或 " if zh else ", ".join(items[:-1]) + " or ") + items[-1]


def detect(source: Source) -> str:
    """The format of ``source`` (a registered one: ``formats``), or ``HistoryFormatError`` saying what
    was found and what the app can read."""
    name = source.path.name
    formats = all_formats()
    if len(source.names) == 1 and source.names[0] == source.path.name:  # one plain file
        suffix = source.path.suffix.lower()
        candidates = [f for f in formats if suffix in f.suffixes]
        for fmt in candidates:
            if fmt.claims_file(source, name):
                return fmt.name
        if not candidates:
            known = [".zip", *dict.fromkeys(s for f in formats for s in f.suffixes)]
            raise HistoryFormatError(f"不认识 {name} 的文件类型：请选 {_listed(known, True)}",
                                     f"unknown file type of {name}: pick a {_listed(known, False)}")
        hint = next((f.hint for f in candidates if f.hint is not None), None)
        if hint is not None:
            raise HistoryFormatError(hint[0].format(name), hint[1].format(name))
        raise HistoryFormatError(f"{name} 不是能识别的聊天记录（{'，'.join(f.what[0] for f in candidates)}）",
                                 f"{name} is not a chat history this app knows ({', '.join(f.what[1] for f in candidates)})")
    for fmt in formats:
        if fmt.claims_archive(source):
            return fmt.name
    for fmt in formats:
        refusal = fmt.refuses(source)
        if refusal is not None:
            raise HistoryFormatError(*refusal)
    files = list(dict.fromkeys(n for f in formats for n in f.archive_files))
    raise HistoryFormatError(f"{name} 里没有聊天记录（找不到 {_listed(files, True)}）",
                             f"{name} holds no chat history (no {_listed(files, False)})")


def read_history(path: str | Path, fmt: str | None = None,
                 progress: Callable[[str, int, int], None] | None = None) -> History:
    """Read ``path`` as ``fmt`` (default: detected). Blocking; raises ``HistoryFormatError`` (the
    file is not a readable history: nothing was done) or ``OSError``. ``progress(name, done, size)``:
    told as the reader takes each file (``Source.on_read``)."""
    if fmt is not None and fmt not in names():
        raise HistoryFormatError(f"不认识的格式 {fmt}", f"unknown format {fmt}")
    source = open_source(path)
    chosen: HistoryFormat = format_named(fmt or detect(source))  # type: ignore[assignment]
    source.on_read = progress
    history = chosen.read(source)
    history.source = chosen.name
    history.digest = source.digest
    for kind, files in other_apps(source, chosen.name).items():
        other = format_named(kind)
        if other is not None:
            history.left_unread[kind] = files
            history.notes.append(_left_unread(source, chosen, other, files))
    return history


def _left_unread(source: Source, read: HistoryFormat, other: HistoryFormat, files: list[str]) -> tuple[str, str]:
    """The note of another app's files in the same zip or folder, not read: which app's were, and how to
    import the others (the format to pick in the window, or on the command line)."""
    zh, en = named_files(files)
    n = len(files)
    picker_zh, picker_en = other.choice
    return (f"{source.path.name} 里有不止一个应用的导出：只读取了 {read.label} 的聊天记录，{other.label} 的 {n} 个文件"
            f"没有读取（{zh}）。要导入它们，请再导入一次这个文件，格式选“{picker_zh}”（命令行：--format {other.name}）",
            f"{source.path.name} holds exports of more than one app: only {read.label}'s chats were read; "
            f"{n} file{'s' if n != 1 else ''} of {other.label} {'were' if n != 1 else 'was'} not ({en}). To import "
            f"them, import this file again with the format “{picker_en}” (command line: --format {other.name})")
