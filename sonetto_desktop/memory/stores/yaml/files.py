"""The files of one YAML store and how they are read: a link is never followed, a file that is not
a regular one, larger than :data:`MAX_FILE_BYTES` or unreadable is refused (:class:`Refused`)."""

from __future__ import annotations

import hashlib
import os
import stat as stat_mode
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from . import change_log as journal
from ...errors import StoreCorrupt, describe_os_error
from .format import parse_flags
from .safe import YamlRefused

#: memory.yaml (or the trash file) larger than this is not read: a store this big belongs in SQLite.
MAX_FILE_BYTES = 128 * 1024 * 1024
#: What parsing a store file may raise when the file is not one.
PARSE_ERRORS = (yaml.YAMLError, UnicodeDecodeError, YamlRefused, TypeError, RecursionError)

Keys = tuple[Any, Any, Any]


def sha1(data: bytes) -> str:
    return hashlib.sha1(data, usedforsecurity=False).hexdigest()


@dataclass(frozen=True)
class YamlFiles:
    """The files of one YAML store."""

    path: Path

    @property
    def trash_path(self) -> Path:
        return self.path.with_name(f"{self.path.stem}.trash.yaml")

    @property
    def flags_path(self) -> Path:
        """The app's own fields of the memories (``format.flags_of``), beside memory.yaml."""
        return self.path.with_name(f"{self.path.stem}.flags.yaml")

    def read_flags(self) -> dict[str, dict[str, Any]]:
        try:
            return parse_flags(self.read(self.flags_path))
        except Refused:
            return {}

    @property
    def log_path(self) -> Path:
        return self.path.with_name(self.path.name + ".log")

    @property
    def backup_path(self) -> Path:
        return self.path.with_name(self.path.name + ".bak")

    @property
    def cache_path(self) -> Path:
        return self.path.with_name(self.path.name + ".cache")

    @property
    def lock_path(self) -> Path:
        return self.path.with_name(self.path.name + ".lock")

    @property
    def versions_path(self) -> Path:
        return self.path.with_name(self.path.name + ".versions")

    def displaced_path(self) -> Path:
        """A new name for a save a rewrite displaced (kept until it is taken in)."""
        return self.path.with_name(f"{self.path.name}.displaced-{time.time_ns()}")

    def displaced(self) -> list[Path]:
        """Displaced saves not taken in yet, oldest first."""
        return sorted(self.path.parent.glob(f"{self.path.name}.displaced-*"))

    def keys(self) -> Keys:
        return journal.stat_key(self.path), journal.stat_key(self.trash_path), journal.stat_key(self.log_path)

    def companions(self) -> bool:
        """Whether anything of a store is here besides memory.yaml (its log, backup, trash or cache)."""
        return any(os.path.lexists(p) for p in (self.log_path, self.backup_path, self.trash_path, self.cache_path))

    def corrupt(self, path: Path, exc: BaseException) -> StoreCorrupt:
        """The error for a file of the store that cannot be read (naming the backup of memory.yaml)."""
        backup = str(self.backup_path) if path == self.path and self.backup_path.exists() else None
        return StoreCorrupt(str(path), str(exc).replace("\n", " "), backup, getattr(exc, "words", ()))

    def read(self, path: Path) -> bytes | None:
        """The file's bytes (``None``: there is none). A link is never followed, and a file that is
        not a regular one, larger than :data:`MAX_FILE_BYTES` or not readable raises :class:`Refused`."""
        try:
            st = os.lstat(path)
            if stat_mode.S_ISLNK(st.st_mode):
                target = os.readlink(path)
                raise Refused("link", f"{path} is a link to {target}: links are not followed", "link", str(path), target)
            if not stat_mode.S_ISREG(st.st_mode):
                raise Refused("unreadable", f"{path} is not a regular file", "not_regular", str(path))
            if st.st_size > MAX_FILE_BYTES:
                raise _too_large(path, st.st_size)
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0))
            with os.fdopen(fd, "rb") as fh:
                data = fh.read(MAX_FILE_BYTES + 1)
        except FileNotFoundError:
            return None
        except Refused:
            raise
        except OSError as exc:
            raise Refused("unreadable", f"{path} cannot be read: {describe_os_error(exc)}",
                          "unreadable", str(path), str(exc.errno or "")) from exc
        if len(data) > MAX_FILE_BYTES:
            raise _too_large(path, len(data))
        return data


def _too_large(path: Path, size: int) -> "Refused":
    mb, limit = f"{size / 2**20:.0f}", str(MAX_FILE_BYTES // 2**20)
    return Refused("unreadable", f"{path} is {mb} MB, more than the {limit} MB a YAML store reads "
                   "(a store this large belongs in SQLite: settings, store backend)", "too_large", str(path), mb, limit)


class Refused(Exception):
    """A store file that is not read: ``kind`` "link" (a link in its place) or "unreadable". ``words``:
    ``detail`` as a kind and its values (``StoreCorrupt.words``), when it is our own wording."""

    def __init__(self, kind: str, detail: str, *words: str) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail
        self.words = words


__all__ = ["MAX_FILE_BYTES", "PARSE_ERRORS", "Keys", "Refused", "YamlFiles", "sha1"]
