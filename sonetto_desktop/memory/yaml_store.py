"""YamlMemoryManager: the seed's ``memory.yaml`` format, written crash-safely.

File format (unchanged from SonettoHere, so an existing ``memory.yaml`` loads as is)::

    <id>:
      description: ...
      theme: ...
      history: [...]
      latest_update_time: '2026-12-02T10:15:00'
      hit: 0

Writes hold a ``portalocker`` lock on ``<file>.lock`` (other processes) and a thread lock, write a
temp file, fsync it, keep the previous version as ``<file>.bak`` and ``os.replace`` the temp file
over the store. A crash at any point leaves either the old or the new file, never half of one.
The trash lives in ``<stem>.trash.yaml`` so ``memory.yaml`` stays in the seed's format.
A file that cannot be parsed is never written over: every write raises :class:`StoreCorrupt`.
"""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import portalocker
import yaml

from .base import BaseMemoryManager, SelfCheckReport
from .changes import EXTERNAL, MemoryChange
from .errors import StoreCorrupt
from .yaml_diff import foreign_changes
from .item import MemoryItem
from .validation import item_from_raw, validate_item

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def _dump(data: Any) -> bytes:
    return yaml.dump(data, Dumper=_Dumper, default_flow_style=False, allow_unicode=True, sort_keys=False).encode(
        "utf-8"
    )


def _fsync_dir(path: Path) -> None:
    if os.name != "posix":
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write(path: Path, payload: bytes, *, backup: Path | None = None) -> None:
    """Write ``payload`` to ``path`` so that a crash leaves the old or the new file, whole."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    with open(tmp, "wb") as fh:
        fh.write(payload)
        fh.flush()
        os.fsync(fh.fileno())
    if backup is not None and path.exists():
        staged = backup.with_name(backup.name + ".new")
        try:
            staged.unlink(missing_ok=True)
            os.link(path, staged)  # the old version, kept without copying it
        except OSError:
            staged.write_bytes(path.read_bytes())
        os.replace(staged, backup)
    os.replace(tmp, path)
    _fsync_dir(path.parent)


class YamlMemoryManager(BaseMemoryManager):
    """Memories in one YAML file, trash beside it."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        super().__init__()
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.lock_path = self.path.with_name(self.path.name + ".lock")
        self.backup_path = self.path.with_name(self.path.name + ".bak")
        self.trash_path = self.path.with_name(f"{self.path.stem}.trash.yaml")
        self._mutex = threading.RLock()
        self._cache_key: tuple[int, int, int] | None = None
        self._cache: dict[str, MemoryItem] | None = None
        # id -> (fingerprint, YAML text of that one entry): a write re-serialises only what changed.
        self._fragments: dict[str, tuple[tuple, str]] = {}
        self._trash_key = self._trash_stat()
        if not self.path.exists():
            with self._write_lock():
                if not self.path.exists():
                    atomic_write(self.path, b"{}\n")

    # ── primitives ────────────────────────────────────────────────────

    @contextmanager
    def _write_lock(self) -> Iterator[None]:
        with self._mutex:
            with portalocker.Lock(str(self.lock_path), mode="a", flags=portalocker.LOCK_EX):
                try:
                    yield
                except BaseException:
                    self._forget()  # a failed write may have modified cached items in place
                    raise

    def _forget(self) -> None:
        self._cache = None
        self._cache_key = None
        self._fragments = {}

    def _serialise(self, items: dict[str, MemoryItem]) -> bytes:
        """The whole file, built from per-entry fragments (one-entry mappings concatenate into one mapping)."""
        parts = []
        fresh: dict[str, tuple[tuple, str]] = {}
        for mid, item in items.items():
            last = item.history[-1].get("time") if item.history and isinstance(item.history[-1], dict) else None
            fingerprint = (item.description, item.theme, item.latest_update_time, item.hit, len(item.history), last)
            cached = self._fragments.get(mid)
            text = cached[1] if cached and cached[0] == fingerprint else _dump({mid: item.to_dict()}).decode("utf-8")
            fresh[mid] = (fingerprint, text)
            parts.append(text)
        self._fragments = fresh
        return ("".join(parts) or "{}\n").encode("utf-8")

    def _stat_key(self) -> tuple[int, int, int] | None:
        try:
            st = self.path.stat()
        except FileNotFoundError:
            return None
        return (st.st_ino, st.st_mtime_ns, st.st_size)

    def _parse(self, raw: bytes, path: Path) -> dict[str, Any]:
        try:
            data = yaml.load(raw.decode("utf-8"), Loader=_Loader)
        except (yaml.YAMLError, UnicodeDecodeError) as exc:
            raise StoreCorrupt(str(path), str(exc).replace("\n", " "), self._backup_name(path)) from exc
        if data is None:
            return {}
        if not isinstance(data, dict):
            raise StoreCorrupt(
                str(path), f"top level is a {type(data).__name__}, expected a mapping of id -> memory",
                self._backup_name(path),
            )
        return data

    def _backup_name(self, path: Path) -> str | None:
        if path == self.path and self.backup_path.exists():
            return str(self.backup_path)
        return None

    def _load_all(self) -> dict[str, MemoryItem]:
        with self._mutex:
            key = self._stat_key()
            if key is not None and key == self._cache_key and self._cache is not None:
                return self._cache
            raw = self.path.read_bytes() if key is not None else b""
            data = self._parse(raw, self.path)
            self._fragments = {}
            items: dict[str, MemoryItem] = {}
            for memory_id, value in data.items():
                item, _ = item_from_raw(str(memory_id), value)
                validate_item(str(memory_id), item)
                items[str(memory_id)] = item
            previous = self._cache
            self._cache, self._cache_key = items, key
            if previous is not None:  # another process wrote the file since we last read it
                for change in foreign_changes(previous, items, self._load_trash_quietly):
                    self._publish(change)
            return items

    # ── other processes ───────────────────────────────────────────────

    def version_token(self) -> str | None:
        key = self._stat_key()
        return None if key is None else "yaml:{}:{}:{}".format(*key)

    def poll_external(self) -> list[MemoryChange]:
        """Another process's write shows as a new file identity (atomic replace): re-read it and
        publish what differs from what this instance last read (``yaml_diff``). Our own writes
        update the identity we remember, so they are never reported twice."""
        with self.capture() as published, self._mutex:
            trash_key = self._trash_stat()
            if self._cache is not None and self._stat_key() != self._cache_key:
                self._load_all()
            elif trash_key != self._trash_key:
                self._publish(MemoryChange("purge", (), EXTERNAL, local=False))  # only the trash changed
            self._trash_key = trash_key
        return published

    def _trash_stat(self) -> tuple[int, int, int] | None:
        try:
            st = self.trash_path.stat()
        except FileNotFoundError:
            return None
        return (st.st_ino, st.st_mtime_ns, st.st_size)

    def _load_trash_quietly(self) -> dict[str, dict[str, Any]]:
        try:
            return self._load_trash()
        except StoreCorrupt:
            return {}

    def _save_all(self, items: dict[str, MemoryItem]) -> None:
        # Never write over a file we cannot read: refuse first, loudly.
        if self._stat_key() != self._cache_key:
            self._parse(self.path.read_bytes(), self.path)
        atomic_write(self.path, self._serialise(items), backup=self.backup_path)
        self._cache, self._cache_key = items, self._stat_key()

    def _load_trash(self) -> dict[str, dict[str, Any]]:
        if not self.trash_path.exists():
            return {}
        data = self._parse(self.trash_path.read_bytes(), self.trash_path)
        return {str(k): v for k, v in data.items() if isinstance(v, dict)}

    def _save_trash(self, trash: dict[str, dict[str, Any]]) -> None:
        atomic_write(self.trash_path, _dump(trash))
        self._trash_key = self._trash_stat()

    # ── self check ────────────────────────────────────────────────────

    def self_check(self) -> SelfCheckReport:
        issues: list[str] = []
        repaired: list[str] = []
        with self._write_lock():
            key = self._stat_key()
            try:
                data = self._parse(self.path.read_bytes(), self.path) if self.path.exists() else {}
            except StoreCorrupt as exc:
                msg = f"{self.path} cannot be parsed: {exc.detail}"
                if exc.backup:
                    msg += f" (last good version: {exc.backup})"
                return SelfCheckReport("FAIL", [msg], [], 0)
            items: dict[str, MemoryItem] = {}
            for memory_id, value in data.items():
                item, note = item_from_raw(str(memory_id), value)
                if note:
                    repaired.append(note)
                items[str(memory_id)] = item
            found, fixed = self._validate_all_items(items)
            issues += found
            repaired += fixed
            try:
                self._load_trash()
            except StoreCorrupt as exc:
                issues.append(f"trash file {self.trash_path} cannot be parsed: {exc.detail}")
            if not os.access(self.path.parent, os.W_OK):
                issues.append(f"{self.path.parent} is not writable")
            elif repaired:
                self._forget()
                self._save_all(items)
            if not repaired and key is not None:
                self._cache, self._cache_key, self._fragments = items, key, {}  # the first read is free
        status = "WARN" if issues else "OK"
        return SelfCheckReport(status, issues, repaired, len(items))
