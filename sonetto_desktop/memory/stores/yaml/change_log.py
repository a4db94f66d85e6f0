"""The YAML store's append-only change log (``memory.yaml.log``), one JSON line per committed write.

Line 1 is a header describing the ``memory.yaml`` (and trash file) the log applies to: the store's
``lineage``, the sequence number ``base_seq`` the files hold, and their SHA-1 and ``(inode, mtime,
size)``. Every later line is one write::

    {"seq": 42, "origin": "<instance>", "items": {"<id>": {<item>} | null},
     "trash": {"<id>": {<entry>} | null}, "changes": [{<MemoryChange.to_dict()>}]}

Records carry absolute states (the item as it is after the write, or ``null`` when it left), so
replaying one twice is harmless. A line is committed once it ends with a newline and has been
fsynced; a torn last line (a writer killed mid-append) is ignored and cut off by the next writer.
A damaged line before the last is :class:`JournalCorrupt` (never written over).

Rewriting memory.yaml (``writer.FileWriter``) writes the new log *first*: its header names the new
files (``base_*``: their SHA-1 and identity, known before they are renamed into place) and the files
still on disk (``prev_*``: their SHA-1 and the ``prev_base_seq`` they hold), and it keeps every
record newer than ``prev_base_seq``; then the files are replaced. A crash at any point leaves files
that one of the two descriptions matches, and the records to replay over them.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ...files import atomic_write

FORMAT = "sonetto-memory-log"
VERSION = 1


class JournalCorrupt(ValueError):
    """A committed line of the log cannot be read."""


Stat = tuple[int, int, int]


def stat_key(path: Path) -> Stat | None:
    """A file's identity (a link's own, never its target's: a link swapped in is a change)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    return (st.st_ino, st.st_mtime_ns, st.st_size)


@dataclass(frozen=True)
class Header:
    lineage: str
    base_seq: int
    base_sha1: str
    base_stat: Stat | None
    trash_sha1: str | None
    trash_stat: Stat | None
    # While a rewrite is under way: the files still on disk and the seq they hold (see the module doc).
    prev_sha1: str | None = None
    prev_trash_sha1: str | None = None
    prev_base_seq: int | None = None

    def line(self) -> bytes:
        data = {"format": FORMAT, "version": VERSION, **asdict(self)}  # (older versions read the first six keys)
        if self.prev_base_seq is None:
            for key in ("prev_sha1", "prev_trash_sha1", "prev_base_seq"):
                data.pop(key)
        return (json.dumps(data, separators=(",", ":")) + "\n").encode("utf-8")

    def holds(self, base_sha1: str | None, trash_sha1: str | None) -> str | None:
        """Which description files with these SHA-1s match: ``"base"`` (the files the header names),
        ``"prev"`` (the files a rewrite was replacing) or ``None`` (something else wrote them)."""
        if base_sha1 == self.base_sha1 and trash_sha1 == self.trash_sha1:
            return "base"
        if self.prev_base_seq is not None and base_sha1 in (self.base_sha1, self.prev_sha1) and (
                trash_sha1 in (self.trash_sha1, self.prev_trash_sha1)):
            return "prev"  # (one file replaced, the other not yet: records from prev_base_seq on cover both)
        return None

    @classmethod
    def parse(cls, raw: bytes) -> "Header":
        try:
            data = json.loads(raw)
            if data.get("format") != FORMAT:
                raise ValueError("not a memory log")
            if data.get("version") != VERSION:
                raise ValueError(f"log format version {data.get('version')!r} is newer than this app")

            def stat(value: Any) -> Stat | None:
                return tuple(int(v) for v in value) if value else None  # type: ignore[return-value]

            prev = data.get("prev_base_seq")
            return cls(str(data["lineage"]), int(data["base_seq"]), str(data["base_sha1"]),
                       stat(data.get("base_stat")), data.get("trash_sha1"), stat(data.get("trash_stat")),
                       data.get("prev_sha1"), data.get("prev_trash_sha1"), int(prev) if prev is not None else None)
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise JournalCorrupt(f"header: {exc}") from exc


@dataclass
class Tail:
    """What ``read`` found: the header (when read from the start), the complete records, and the
    offset just past the last complete record (where the next append goes)."""

    header: Header | None
    records: list[dict[str, Any]]
    end: int
    size: int
    head: bytes = b""  # the header line as stored (read from the start only)


def read(path: Path, offset: int = 0) -> Tail | None:
    """The log from ``offset`` (0: from the header on). ``None`` when there is no log."""
    try:
        with open(path, "rb") as fh:
            fh.seek(offset)
            data = fh.read()
    except FileNotFoundError:
        return None
    header = None
    pos = 0
    if offset == 0:
        nl = data.find(b"\n")
        if nl < 0:
            raise JournalCorrupt("the header line is incomplete")
        header = Header.parse(data[:nl])
        pos = nl + 1
    head = data[:pos]
    records: list[dict[str, Any]] = []
    while pos < len(data):
        nl = data.find(b"\n", pos)
        if nl < 0:
            break  # torn: a writer died mid-append; not committed
        try:
            record = json.loads(data[pos:nl])
            if not isinstance(record, dict) or not isinstance(record.get("seq"), int):
                raise ValueError("not a record")
        except ValueError as exc:
            raise JournalCorrupt(f"record at byte {offset + pos}: {exc}") from exc
        records.append(record)
        pos = nl + 1
    return Tail(header, records, offset + pos, offset + len(data), head)


def head_of(path: Path, length: int) -> bytes:
    """The first ``length`` bytes of the log (b"" when there is none)."""
    try:
        with open(path, "rb") as fh:
            return fh.read(length)
    except FileNotFoundError:
        return b""


def encode(record: dict[str, Any]) -> bytes:
    return (json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=str) + "\n").encode("utf-8")


def append(path: Path, payload: bytes, end: int) -> int:
    """Append ``payload`` at ``end`` (cutting off a torn tail first), fsync, return the new end."""
    fd = os.open(path, os.O_RDWR | getattr(os, "O_BINARY", 0))
    try:
        size = os.fstat(fd).st_size
        if size != end:
            os.ftruncate(fd, end)
        os.lseek(fd, end, os.SEEK_SET)
        view = memoryview(payload)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        os.fsync(fd)
    except BaseException:
        try:
            os.ftruncate(fd, end)  # a failed append (disk full) leaves nothing half-written behind
        except OSError:
            pass
        raise
    finally:
        os.close(fd)
    return end + len(payload)


def start(path: Path, head: bytes) -> int:
    """Replace the log with one holding only the header line ``head``; returns its length."""
    atomic_write(path, head)
    return len(head)


class ChangeLog:
    """``memory.yaml.log`` as one store instance follows it: the header line it read or wrote
    (``head``, ``header``) and the offset just past the last complete record it knows (``end``,
    where its next record goes). ``ok``: the log exists and its header describes the files."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.reset()

    def reset(self) -> None:
        self.head = b""
        self.header: Header | None = None
        self.end = 0
        self.ok = False

    def follow(self, tail: Tail | None, *, ok: bool) -> None:
        """Follow the log read into ``tail`` (``None``: there is none)."""
        self.head = tail.head if tail is not None else b""
        self.header = tail.header if tail is not None else None
        self.end = tail.end if tail is not None else 0
        self.ok = ok

    def read(self, offset: int = 0) -> Tail | None:
        return read(self.path, offset)

    def read_new(self) -> Tail | None:
        """The records appended since ``end``."""
        return read(self.path, self.end)

    def appended_only(self, key: Stat | None, known: Stat | None) -> bool:
        """Whether the log on disk (``key``) is the one we follow with records appended (no
        other instance restarted it since we last looked at ``known``)."""
        return (key is not None and known is not None and key[0] == known[0] and key[2] >= self.end
                and bool(self.head) and head_of(self.path, len(self.head)) == self.head)

    def append(self, payload: bytes) -> None:
        self.end = append(self.path, payload, self.end)

    def write(self, header: Header, records: bytes = b"") -> None:
        """Replace the log with ``header`` and ``records`` (whole lines), atomically."""
        head = header.line()
        atomic_write(self.path, head + records)
        self.head, self.header, self.end, self.ok = head, header, len(head) + len(records), True

    def lines(self) -> list[tuple[int, bytes]]:
        """Every complete record of the log as far as we follow it: ``(seq, line)``, in order."""
        try:
            with open(self.path, "rb") as fh:
                data = fh.read(self.end)
        except FileNotFoundError:
            return []
        return [(_seq_of(line), line + b"\n") for line in data.split(b"\n")[1:-1]]


_SEQ = re.compile(rb'\{\s*"seq"\s*:\s*(\d+)\s*[,}]')


def _seq_of(line: bytes) -> int:
    """A record's seq (records start with it: read without parsing a record of megabytes)."""
    match = _SEQ.match(line)
    return int(match.group(1)) if match else int(json.loads(line)["seq"])


def carry(lines: list[tuple[int, bytes]], seq: int, limit: int) -> bytes:
    """The newest records up to ``seq`` within ``limit`` bytes (carried over a rewrite, so that
    other instances catch up from the log instead of reading the files)."""
    picked: list[bytes] = []
    size = 0
    for n, line in reversed(lines):
        if n > seq:
            continue
        size += len(line)
        if size > limit:
            break
        picked.append(line)
    return b"".join(reversed(picked))
