"""The YAML store's append-only change log (``memory.yaml.log``), one JSON line per committed write.

Line 1 is a header describing the ``memory.yaml`` (and trash file) the log applies to: the store's
``lineage``, the sequence number ``base_seq`` the files hold, and their SHA-1 and ``(inode, mtime,
size)``. Every later line is one write::

    {"seq": 42, "origin": "<instance>", "items": {"<id>": {<item>} | null},
     "trash": {"<id>": {<entry>} | null}, "change": {<MemoryChange.to_dict()>}}

Records carry absolute states (the item as it is after the write, or ``null`` when it left), so
replaying one twice is harmless: a crash between writing a compacted ``memory.yaml`` and resetting
the log loses nothing and duplicates nothing. A line is committed once it ends with a newline and
has been fsynced; a torn last line (a writer killed mid-append) is ignored and cut off by the next
writer. A damaged line before the last is :class:`JournalCorrupt` (never written over).
"""

from __future__ import annotations

import json
import os
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
    try:
        st = path.stat()
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

    def line(self) -> bytes:
        data = {"format": FORMAT, "version": VERSION, **asdict(self)}
        return (json.dumps(data, separators=(",", ":")) + "\n").encode("utf-8")

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

            return cls(str(data["lineage"]), int(data["base_seq"]), str(data["base_sha1"]),
                       stat(data.get("base_stat")), data.get("trash_sha1"), stat(data.get("trash_stat")))
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
