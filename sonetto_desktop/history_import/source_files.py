"""Opening what the person picked — an export zip, its unpacked folder, or one file — as a set of
named files the format readers take what they need from, a chunk at a time.

Nothing is read whole: a reader takes a file as chunks of bytes (``Source.chunks``), a JSON file as
a :class:`~.json_stream.JsonStream` (``open_json``), JSON Lines line by line (``lines_of``); only small
text files (a chat exported from Sonetto, saved memories) are read whole, up to ``MAX_TEXT_BYTES``.
Readers see UTF-8: a file saved as UTF-16 with a byte order mark is re-encoded as it is read.

Limits, said plainly and checked before anything is read where the zip declares the sizes (and
counted again while reading, whatever a damaged header claims):

- a file larger than ``MAX_MEMBER_BYTES`` unpacked, or everything one source reads beyond
  ``MAX_TOTAL_BYTES``, is not a chat export;
- a zip member that unpacks to more than ``MAX_RATIO`` times its packed size (beyond the first
  ``RATIO_FROM_BYTES``) is a zip bomb: real exports are text and JSON, a few times smaller packed.

A zip member with a password is refused when it is to be read, saying so (``Source.check``).

Everything read in full is hashed (``digest``): an import knows the exact file it came from.
"""

from __future__ import annotations

import codecs
import hashlib
import itertools
import logging
import re
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from .json_stream import CHUNK, MAX_ELEMENT_CHARS, JsonStream
from .json_stream import Skipped
from .model import BadConversation, History, HistoryFormatError

log = logging.getLogger(__name__)

#: Reading holds about one conversation whatever the size (issue 37: a 2 GB export reads in a few
#: tens of MB), so these only refuse what cannot be one person's chats; zip bombs meet ``MAX_RATIO``.
MAX_MEMBER_BYTES = 8 * 1024 ** 3
MAX_TOTAL_BYTES = 16 * 1024 ** 3
MAX_RATIO = 100
RATIO_FROM_BYTES = 1024 ** 2
#: A file that is read whole (``text_of``).
MAX_TEXT_BYTES = 32 * 1024 ** 2
#: Files a note names (``named_files``): the rest are counted.
NAMED_UNREAD = 5


def named_files(names: list[str]) -> tuple[str, str]:
    """The first ``NAMED_UNREAD`` of ``names`` for a note, in Chinese and in English, with how many
    there are in all ("a、b 等 7 个") / how many more ("a, b and 5 more") when there are more."""
    shown = names[:NAMED_UNREAD]
    more = len(names) - len(shown)
    return ("、".join(shown) + (f" 等 {len(names)} 个" if more else ""),
            ", ".join(shown) + (f" and {more} more" if more else ""))


@dataclass(frozen=True)
class Member:
    """One file's size (unpacked, as declared by the zip or the disk) and, in a zip, its packed size."""

    size: int
    packed: int | None = None
    encrypted: bool = False  # a zip member with a password (``Source.check``: refused, said plainly)


@dataclass
class Source:
    """The picked path, its files by name (path inside the zip or folder) and how to open one."""

    path: Path
    members: dict[str, Member]
    _open: Callable[[str], IO[bytes]]
    hasher: Any = field(default_factory=hashlib.sha256)
    read_bytes: int = 0  # everything read so far (``MAX_TOTAL_BYTES``)
    _hashed: set[str] = field(default_factory=set)
    kinds: dict[str, str | None] = field(default_factory=dict)  # what each file was found to be (``sniff``)
    #: ``on_read(name, done, size)``: told after each chunk a reader takes of a file (its bytes so far
    #: and its size), so a long read can say how far it got.
    on_read: Callable[[str, int, int], None] | None = None

    @property
    def names(self) -> list[str]:
        return list(self.members)

    @property
    def digest(self) -> str:
        return self.hasher.hexdigest()

    @property
    def read_names(self) -> frozenset[str]:
        """The files a reader has read (towards ``digest``)."""
        return frozenset(self._hashed)

    def find(self, basename: str) -> str | None:
        """The shallowest file called ``basename`` (an export zip may hold one folder level)."""
        found = [n for n in self.members if n.rsplit("/", 1)[-1] == basename]
        return min(found, key=lambda n: n.count("/")) if found else None

    def same_named(self, name: str) -> list[str]:
        """The other files called as ``name`` is, in other folders (a second export in one zip)."""
        base = name.rsplit("/", 1)[-1]
        return [n for n in self.members if n != name and n.rsplit("/", 1)[-1] == base]

    def note_unread(self, history: History, name: str) -> None:
        """Say in ``history``'s notes which files called as ``name`` is were not read (a reader that
        reads one export's file: the others would be ignored without a word)."""
        others = self.same_named(name)
        if not others:
            return
        zh, en = named_files(others)
        history.notes.append((
            f"{self.path.name} 里有不止一份导出：只读取了 {name}，没有读取 {zh}（请分开导入）",
            f"{self.path.name} holds more than one export: only {name} was read, not {en} (import them one at a time)"))

    def matching(self, pattern: re.Pattern[str]) -> list[str]:
        return [n for n in self.members if pattern.search(n.rsplit("/", 1)[-1])]

    def check(self, name: str) -> Member:
        """``name``'s member, or ``HistoryFormatError`` when its declared size breaks a limit."""
        member = self.members[name]
        if member.encrypted:
            raise HistoryFormatError(
                f"{self.path.name} 里的 {name} 设了密码，读不了：请重新导出，不要给 zip 加密码",
                f"{name} in {self.path.name} is encrypted (password-protected) and cannot be read: "
                "export it again without a password")
        if member.size > MAX_MEMBER_BYTES:
            raise too_big(name, member.size)
        if member.packed is not None and member.size > RATIO_FROM_BYTES and member.size > MAX_RATIO * max(
                member.packed, 1):
            raise bomb(name, member.size, member.packed)
        return member

    def chunks(self, name: str, *, hashed: bool = True) -> Iterator[bytes]:
        """``name``'s bytes, ``CHUNK`` at a time, within the limits (see the module docstring), as UTF-8:
        a file saved as UTF-16 with a byte order mark (Windows PowerShell 5's ``>`` and ``Out-File``)
        is handed on re-encoded, so every reader takes it as the same text. ``hashed``: they count
        towards ``digest`` (a reader's full read; a look at the start to tell the format is not); the
        digest, the limits and the progress count the file's own bytes."""
        return _as_utf8(self._chunks(name, hashed=hashed), name)

    def _chunks(self, name: str, *, hashed: bool) -> Iterator[bytes]:
        member = self.check(name)
        hasher = self.hasher if hashed and name not in self._hashed else None
        if hasher is not None:
            self._hashed.add(name)
            hasher.update(name.encode("utf-8") + b"\0")
        count = 0
        try:
            with self._open(name) as fh:
                while raw := fh.read(CHUNK):
                    count += len(raw)
                    self.read_bytes += len(raw)
                    if count > MAX_MEMBER_BYTES:
                        raise too_big(name, count)
                    if member.packed is not None and count > RATIO_FROM_BYTES and count > MAX_RATIO * max(
                            member.packed, 1):
                        raise bomb(name, count, member.packed)
                    if self.read_bytes > MAX_TOTAL_BYTES:
                        raise HistoryFormatError(
                            f"{self.path.name} 里的文件合计超过 {size_text(MAX_TOTAL_BYTES)}，不像是聊天记录导出",
                            f"the files of {self.path.name} come to more than {size_text(MAX_TOTAL_BYTES)}: "
                            "not a chat export")
                    if hasher is not None:
                        hasher.update(raw)
                    if self.on_read is not None and hashed:
                        self.on_read(name, count, member.size)
                    yield raw
        except (zipfile.BadZipFile, EOFError, zlib.error, NotImplementedError) as exc:
            log.warning("%s in %s cannot be unpacked: %s", name, self.path.name, exc)
            if isinstance(exc, NotImplementedError):  # (a compression method zipfile does not have)
                raise HistoryFormatError(f"zip 里的 {name} 用了读不了的压缩方式：请用常见的 zip 格式重新打包",
                                         f"{name} in the zip is packed in a way that cannot be read: pack it "
                                         "again as an ordinary zip") from None
            raise HistoryFormatError(f"zip 里的 {name} 读不出来：zip 文件已损坏或不完整，请重新下载",
                                     f"{name} in the zip cannot be read: the zip file is damaged or incomplete; "
                                     "download it again") from None


def _as_utf8(chunks: Iterator[bytes], name: str) -> Iterator[bytes]:
    """``chunks`` as they are, or, when they begin with a UTF-16 byte order mark (not UTF-32's), the
    text re-encoded as UTF-8 a chunk at a time (the mark dropped)."""
    first = next(chunks, b"")
    if not first.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)) or first.startswith(codecs.BOM_UTF32_LE):
        if first:
            yield first
        yield from chunks
        return
    decoder = codecs.getincrementaldecoder("utf-16")()
    for raw in itertools.chain((first,), chunks, (b"",)):
        try:
            text = decoder.decode(raw, final=not raw)
        except UnicodeDecodeError:
            raise HistoryFormatError(f"{name} 以 UTF-16 开头，但后面有读不了的字节：文件可能不完整",
                                     f"{name} begins as UTF-16 text but holds bytes that are not: "
                                     "the file may be incomplete") from None
        if text:
            yield text.encode("utf-8")


def size_text(size: int) -> str:
    if size >= 1024 ** 3:
        return f"{size / 1024 ** 3:.1f} GB"
    return f"{size / 1024 ** 2:.1f} MB"


def too_big(name: str, size: int, limit: int = MAX_MEMBER_BYTES) -> HistoryFormatError:
    return HistoryFormatError(f"{name} 太大（{size_text(size)}，上限 {size_text(limit)}），不像是聊天记录导出",
                              f"{name} is too large ({size_text(size)}; at most {size_text(limit)}) for a chat export")


def bomb(name: str, size: int, packed: int) -> HistoryFormatError:
    ratio = size // max(packed, 1)
    return HistoryFormatError(
        f"{name} 解压后有 {size_text(size)}，是压缩时的 {ratio} 倍（聊天记录导出一般不到 {MAX_RATIO} 倍）："
        "像是 zip 炸弹，没有读取",
        f"{name} unpacks to {size_text(size)}, {ratio} times its packed size (a chat export stays under "
        f"{MAX_RATIO} times): it looks like a zip bomb and was not read")


def open_source(path: str | Path) -> Source:
    """The files at ``path`` (a .zip, a folder or a file). ``OSError`` when it cannot be read."""
    path = Path(path).expanduser()
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.is_file())
        members = {p.relative_to(path).as_posix(): Member(p.stat().st_size) for p in files}
        return Source(path, members, lambda name: open(path / name, "rb"))
    if zipfile.is_zipfile(path):
        try:
            archive = zipfile.ZipFile(path)
        except zipfile.BadZipFile as exc:
            log.warning("%s cannot be opened as a zip: %s", path.name, exc)
            raise HistoryFormatError(f"{path.name} 不是完好的 zip 文件：它已损坏或不完整，请重新下载",
                                     f"{path.name} is not a sound zip file: it is damaged or incomplete; "
                                     "download it again") from None
        infos = {i.filename: i for i in archive.infolist() if not i.is_dir()}
        members = {name: Member(info.file_size, info.compress_size, bool(info.flag_bits & 0x1))
                   for name, info in sorted(infos.items())}
        return Source(path, members, lambda name: archive.open(infos[name]))
    if not path.is_file():
        raise FileNotFoundError(2, "No such file", str(path))
    if path.suffix.lower() == ".zip":  # no zip's end: a download or a copy that stopped part-way
        raise HistoryFormatError(f"{path.name} 不是完整的 zip 文件，可能下载或复制不完整：请重新下载",
                                 f"{path.name} is not a complete zip file; the download or copy may be incomplete: "
                                 "download it again")
    return Source(path, {path.name: Member(path.stat().st_size)}, lambda _name: open(path, "rb"))


def open_json(source: Source, name: str, *, hashed: bool = True) -> JsonStream:
    """``name`` as a :class:`JsonStream` (``hashed``: see ``Source.chunks``)."""
    return JsonStream(source.chunks(name, hashed=hashed), name)


def text_of(source: Source, name: str, *, hashed: bool = True) -> str:
    """A small text file whole (at most ``MAX_TEXT_BYTES``; ``hashed``: see ``Source.chunks``)."""
    if source.members[name].size > MAX_TEXT_BYTES:
        raise too_big(name, source.members[name].size, MAX_TEXT_BYTES)
    data = bytearray()
    for raw in source.chunks(name, hashed=hashed):
        data += raw
        if len(data) > MAX_TEXT_BYTES:
            raise too_big(name, len(data), MAX_TEXT_BYTES)
    try:
        return bytes(data).decode("utf-8-sig")
    except UnicodeDecodeError:
        raise HistoryFormatError(f"{name} 不是 UTF-8 文本", f"{name} is not UTF-8 text") from None


def lines_of(source: Source, name: str) -> Iterator[str]:
    """``name``'s lines, read a chunk at a time (a line longer than one conversation may be refuses the file)."""
    decoder = codecs.getincrementaldecoder("utf-8-sig")()
    rest = ""
    number = 0
    for raw in _with_end(source.chunks(name)):
        try:
            text = rest + decoder.decode(raw, final=not raw)
        except UnicodeDecodeError:
            raise HistoryFormatError(f"{name} 不是 UTF-8 文本", f"{name} is not UTF-8 text") from None
        lines = text.split("\n")
        rest = lines.pop() if raw else ""
        for line in lines:
            number += 1
            yield line.rstrip("\r")
        if len(rest) > MAX_ELEMENT_CHARS:
            raise HistoryFormatError(f"{name} 的第 {number + 1} 行太长（超过 {MAX_ELEMENT_CHARS // 1024 ** 2} MB）",
                                     f"line {number + 1} of {name} is too long (over "
                                     f"{MAX_ELEMENT_CHARS // 1024 ** 2} MB)")


def _with_end(chunks: Iterator[bytes]) -> Iterator[bytes]:
    yield from chunks
    yield b""


def listed_conversations(history: History, name: str, stream: JsonStream) -> Iterator[tuple[int, Any]]:
    """(index, raw value) of each conversation in the JSON list ``stream`` reads (the member ``name``):
    one that could not be read (a bad value, too deep, too large) is left out and named in
    ``history.bad`` as it comes; a file that is not a list is refused."""
    if stream.peek() != "[":
        raise HistoryFormatError(f"{name} 应是对话的列表", f"{name} should be a list of conversations")
    for index in stream.items():
        raw = stream.value()
        if isinstance(raw, Skipped):
            history.bad.append(BadConversation(name, index, "", raw.zh, raw.en))
            continue
        yield index, raw
