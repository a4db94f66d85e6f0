"""Opening what the person picked — an export zip, its unpacked folder, or one file — as a set of
named files the format readers take what they need from.

Members are read from a zip without unpacking it; a member larger than ``MAX_MEMBER_BYTES`` is
refused before it is read (a zip bomb, or not an export). Everything read is hashed (``digest``),
so an import knows the exact file it came from.
"""

from __future__ import annotations

import hashlib
import json
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .model import HistoryFormatError

MAX_MEMBER_BYTES = 2 * 1024 ** 3


@dataclass
class Source:
    """The picked path, its files by name (path inside the zip or folder), and how to read one."""

    path: Path
    names: list[str]
    _read: Callable[[str], bytes]
    hasher: Any = field(default_factory=hashlib.sha256)
    _hashed: set[str] = field(default_factory=set)
    _parsed: dict[str, Any] = field(default_factory=dict)

    def read(self, name: str) -> bytes:
        data = self._read(name)
        if name not in self._hashed:
            self._hashed.add(name)
            self.hasher.update(name.encode("utf-8") + b"\0" + data)
        return data

    @property
    def digest(self) -> str:
        return self.hasher.hexdigest()

    def find(self, basename: str) -> str | None:
        """The shallowest file called ``basename`` (an export zip may hold one folder level)."""
        found = [n for n in self.names if n.rsplit("/", 1)[-1] == basename]
        return min(found, key=lambda n: n.count("/")) if found else None

    def matching(self, pattern: re.Pattern[str]) -> list[str]:
        return [n for n in self.names if pattern.search(n.rsplit("/", 1)[-1])]


def _too_big(name: str, size: int) -> HistoryFormatError:
    return HistoryFormatError(f"{name} 太大（{size / 1024 ** 3:.1f} GB），不像是聊天记录导出",
                              f"{name} is too large ({size / 1024 ** 3:.1f} GB) for a chat export")


def open_source(path: str | Path) -> Source:
    """The files at ``path`` (a .zip, a folder or a file). ``OSError`` when it cannot be read."""
    path = Path(path).expanduser()
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.is_file())
        names = [p.relative_to(path).as_posix() for p in files]

        def read_file(name: str) -> bytes:
            target = path / name
            size = target.stat().st_size
            if size > MAX_MEMBER_BYTES:
                raise _too_big(name, size)
            return target.read_bytes()

        return Source(path, names, read_file)
    if zipfile.is_zipfile(path):
        try:
            archive = zipfile.ZipFile(path)
        except zipfile.BadZipFile as exc:
            raise HistoryFormatError(f"{path.name} 不是完好的 zip 文件（{exc}）",
                                     f"{path.name} is not a sound zip file ({exc})") from None
        infos = {i.filename: i for i in archive.infolist() if not i.is_dir()}

        def read_member(name: str) -> bytes:
            info = infos[name]
            if info.file_size > MAX_MEMBER_BYTES:
                raise _too_big(name, info.file_size)
            try:
                with archive.open(info) as fh:
                    data = fh.read(MAX_MEMBER_BYTES + 1)
            except (zipfile.BadZipFile, EOFError, OSError) as exc:
                raise HistoryFormatError(f"zip 里的 {name} 读不出来（{exc}）",
                                         f"{name} in the zip cannot be read ({exc})") from None
            if len(data) > MAX_MEMBER_BYTES:
                raise _too_big(name, len(data))
            return data

        return Source(path, sorted(infos), read_member)
    if not path.is_file():
        raise FileNotFoundError(2, "No such file", str(path))
    size = path.stat().st_size
    if size > MAX_MEMBER_BYTES:
        raise _too_big(path.name, size)
    return Source(path, [path.name], lambda _name: path.read_bytes())


def load_json(source: Source, name: str) -> Any:
    """A JSON member (parsed once), or a clear error saying where it is broken."""
    if name in source._parsed:
        return source._parsed[name]
    data = source.read(name)
    try:
        source._parsed[name] = json.loads(data.decode("utf-8-sig"))
        return source._parsed[name]
    except UnicodeDecodeError:
        raise HistoryFormatError(f"{name} 不是 UTF-8 文本", f"{name} is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise HistoryFormatError(
            f"{name} 不是完整的 JSON（第 {exc.lineno} 行第 {exc.colno} 列：{exc.msg}），可能下载或解压不完整",
            f"{name} is not complete JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
            "the download or unpacking may have been cut short") from None


def text_of(source: Source, name: str) -> str:
    try:
        return source.read(name).decode("utf-8-sig")
    except UnicodeDecodeError:
        raise HistoryFormatError(f"{name} 不是 UTF-8 文本", f"{name} is not UTF-8 text") from None
