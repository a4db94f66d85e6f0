"""YamlMemoryManager: the seed's ``memory.yaml``, written through an append-only log.

Files (``memory.yaml`` keeps the seed's format, see ``yaml_format``)::

    memory.yaml          every memory, as of the last compaction (plain ``yaml.safe_load`` reads it)
    memory.trash.yaml    the trash, as of the last compaction
    memory.yaml.log      the writes since then, one fsynced JSON line each (``yaml_journal``)
    memory.yaml.bak      memory.yaml before the last compaction
    memory.yaml.cache    memory.yaml as JSON, tied to its SHA-1 (opening parses JSON, not YAML)
    memory.yaml.lock     the cross-process write lock

A write appends one record to the log (a few hundred bytes and one fsync, whatever the store's size)
and is acknowledged once that is on disk. The log is compacted into ``memory.yaml`` and the trash
file (temp file, fsync, ``os.replace``; previous version kept as ``.bak``) when it grows past a
quarter of the store (at least 1 MiB) and when the store is closed, so at rest ``memory.yaml`` holds
everything. Every reader — this process, the command line, a second app — reads the files plus the
log, so it sees every committed write; another process's new records are read from where this
instance stopped reading (no re-parse), and a compaction or a mere touch is recognised without
re-parsing either (the log's header names the files it applies to; recent records are carried
over a compaction). Only content changed by something else (an editor, a restored backup) makes an
instance re-read the whole file.

A file that cannot be parsed is never written over: every write raises :class:`StoreCorrupt`.
A folder or file without write permission opens read-only (:class:`StoreReadOnly` on writes).
"""

from __future__ import annotations

import logging
import os
import threading
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import portalocker

from . import change_log as journal
from ..base import BaseMemoryManager, SelfCheckReport
from ...changes import MemoryChange
from ...errors import StoreCorrupt, StoreReadOnly, StoreWriteFailed, describe_os_error
from ...files import atomic_write, private_files, remove_stale_temps
from ...item import MemoryItem
from ..transaction import TrackingTransaction
from ..validation import oversize_fields
from .format import dump, serialise, write_cache
from .sync import CACHE_MIN_BYTES, YamlSync, sha1

__all__ = ["YamlMemoryManager"]

log = logging.getLogger(__name__)

#: The log is compacted when it is larger than this, or than a quarter of memory.yaml.
COMPACT_MIN_BYTES = 1 << 20
COMPACT_RATIO = 4
#: How much of the newest log a compaction carries over (other instances catch up from it).
CARRY_BYTES = 256 * 1024

class YamlMemoryManager(YamlSync, BaseMemoryManager):
    """Memories in one YAML file, trash beside it, recent writes in a log (module docstring)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        super().__init__()
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.lock_path = self.path.with_name(self.path.name + ".lock")
        self.backup_path = self.path.with_name(self.path.name + ".bak")
        self.trash_path = self.path.with_name(f"{self.path.stem}.trash.yaml")
        self.log_path = self.path.with_name(self.path.name + ".log")
        self.cache_path = self.path.with_name(self.path.name + ".cache")
        self._mutex = threading.RLock()
        self._lock_depth = 0
        self._origin = uuid.uuid4().hex
        self._closed = False
        #: How many times the whole store was parsed (diagnostics: benchmarks and tests read it).
        self.full_reads = 0
        self._reset_state()
        self.read_only = not os.access(self.path.parent, os.W_OK) or (
            self.path.exists() and not os.access(self.path, os.W_OK))
        if not self.read_only:
            with self._file_lock():
                if not self.path.exists():
                    atomic_write(self.path, b"{}\n")
                remove_stale_temps(self.path.parent, (self.path.name, self.trash_path.name, self.log_path.name))
            private_files(self.path, self.trash_path, self.backup_path, self.log_path, self.lock_path,
                          self.cache_path)

    def _reset_state(self) -> None:
        self._items: dict[str, MemoryItem] | None = None
        self._trash: dict[str, dict[str, Any]] | None = None
        self._trash_error: StoreCorrupt | None = None
        self._keys: tuple[Any, Any, Any] | None = None  # (memory.yaml, trash, log) as last taken in
        self._base_sha1 = ""
        self._trash_sha1: str | None = None
        self._base_size = 0
        self._log_end = 0
        self._head = b""  # the header line of the log we follow
        self._log_ok = False  # the log exists and its header describes the two files
        self._lineage = ""
        self._seq = 0
        self._base_seq: int | None = None  # the seq the two files hold (None: not one of ours)
        self._trash_dirty = False
        self._needs_rewrite = False
        self._fragments: dict[str, tuple[tuple, str]] = {}

    # ── locks ─────────────────────────────────────────────────────────

    @contextmanager
    def _file_lock(self) -> Iterator[None]:
        """This process's threads and other processes (none needed when nobody can write)."""
        with self._mutex:
            if self.read_only or self._lock_depth:  # re-entrant: this thread holds it already
                self._lock_depth += 1
                try:
                    yield
                finally:
                    self._lock_depth -= 1
                return
            with portalocker.Lock(str(self.lock_path), mode="a", flags=portalocker.LOCK_EX):
                self._lock_depth = 1
                try:
                    yield
                finally:
                    self._lock_depth = 0

    @contextmanager
    def _write_lock(self) -> Iterator[None]:
        if self.read_only:
            raise StoreReadOnly(str(self.path))
        with self._file_lock():
            yield

    def _forget(self) -> None:
        """Drop everything cached: the next access reads the files from scratch."""
        with self._mutex:
            self._reset_state()

    # ── reading ───────────────────────────────────────────────────────

    def _stat_keys(self) -> tuple[Any, Any, Any]:
        return journal.stat_key(self.path), journal.stat_key(self.trash_path), journal.stat_key(self.log_path)

    def _current(self) -> bool:
        return self._items is not None and self._stat_keys() == self._keys

    def _load_all(self) -> dict[str, MemoryItem]:
        with self._mutex:
            if not self._current():
                with self._file_lock():
                    self._sync()
            assert self._items is not None
            return self._items

    def _load_trash(self) -> dict[str, dict[str, Any]]:
        with self._mutex:
            self._load_all()
            if self._trash_error is not None:
                raise self._trash_error
            assert self._trash is not None
            return self._trash

    # ── writing ───────────────────────────────────────────────────────

    @contextmanager
    def _transaction(self) -> Iterator[TrackingTransaction]:
        with self._write_lock():
            self._sync()
            if self._trash_error is not None:
                raise self._trash_error
            assert self._items is not None and self._trash is not None
            txn = TrackingTransaction(self._items, self._trash)
            yield txn
            if txn.touched or txn.trash_touched:
                self._commit(txn)

    def _commit(self, txn: TrackingTransaction) -> None:
        seq = self._seq + 1
        record = {
            "seq": seq, "origin": self._origin,
            "items": {mid: (txn.items[mid].to_dict() if mid in txn.items else None) for mid in txn.touched},
            "trash": {mid: txn.trash.get(mid) for mid in txn.trash_touched},
            "changes": [c.to_dict() for c in txn.changes],
        }
        payload = journal.encode(record)
        try:
            if not self._log_ok:
                if self._base_seq == self._seq:
                    self._start_log()
                else:
                    self._compact()
            self._log_end = journal.append(self.log_path, payload, self._log_end)
        except OSError as exc:
            raise StoreWriteFailed(str(self.path), describe_os_error(exc)) from exc
        self._items, self._trash, self._seq = txn.items, txn.trash, seq
        if txn.trash_touched:
            self._trash_dirty = True
        self._keys = self._stat_keys()
        if self._log_end > max(COMPACT_MIN_BYTES, self._base_size // COMPACT_RATIO) + CARRY_BYTES:
            try:
                self._compact()
            except OSError as exc:  # the write itself is safe in the log; compaction is retried later
                log.warning("compacting %s failed (the log keeps every write): %s", self.path, exc)

    def _header(self) -> journal.Header:
        base, trash, _ = self._stat_keys()
        return journal.Header(self._lineage, self._seq, self._base_sha1, base, self._trash_sha1, trash)

    def _start_log(self) -> None:
        """A log for files that already hold the current state (nothing to compact)."""
        self._head = self._header().line()
        self._log_end = journal.start(self.log_path, self._head)
        self._log_ok, self._base_seq = True, self._seq
        private_files(self.log_path)

    def _carried(self) -> bytes:
        """The newest complete records of the current log (up to ``CARRY_BYTES``)."""
        if not self._log_ok or self._log_end <= 0:
            return b""
        with open(self.log_path, "rb") as fh:
            first = fh.readline()
            begin = max(len(first), self._log_end - CARRY_BYTES)
            fh.seek(begin)
            data = fh.read(self._log_end - begin)
        if begin > len(first):
            cut = data.find(b"\n")
            data = data[cut + 1:] if cut >= 0 else b""
        return data

    def _compact(self) -> None:
        """Write the state into memory.yaml (and the trash file when it changed), then start a new
        log carrying the newest records over. Lock held; state current."""
        assert self._items is not None
        carried = self._carried()
        if self._trash_dirty and self._trash is not None:
            trash_payload = dump(self._trash) if self._trash else b"{}\n"
            atomic_write(self.trash_path, trash_payload)
            self._trash_sha1 = sha1(trash_payload)
        payload, self._fragments = serialise(self._items, self._fragments)
        atomic_write(self.path, payload, backup=self.backup_path)
        self._base_sha1, self._base_size = sha1(payload), len(payload)
        if len(payload) > CACHE_MIN_BYTES:
            self._write_cache(self._base_sha1, self._items)
        self._head = self._header().line()
        atomic_write(self.log_path, self._head + carried)
        self._log_end = len(self._head) + len(carried)
        self._log_ok, self._base_seq, self._trash_dirty, self._needs_rewrite = True, self._seq, False, False
        self._keys = self._stat_keys()

    def _write_cache(self, base_sha1: str, items: dict[str, MemoryItem]) -> None:
        try:
            write_cache(self.cache_path, base_sha1, items)
        except OSError as exc:  # only an optimisation: memory.yaml is read instead
            log.info("could not write %s: %s", self.cache_path, exc)

    def compact(self) -> None:
        """Write every committed change into memory.yaml now (also done when the log grows and at
        ``close``)."""
        with self._write_lock():
            self._sync()
            try:
                self._compact()
            except OSError as exc:
                raise StoreWriteFailed(str(self.path), describe_os_error(exc)) from exc

    def _save_all(self, items: dict[str, MemoryItem]) -> None:
        self._sync()
        self._items, self._seq = dict(items), self._seq + 1
        self._compact()

    def _save_trash(self, trash: dict[str, dict[str, Any]]) -> None:
        self._sync()
        self._trash, self._seq, self._trash_dirty = dict(trash), self._seq + 1, True
        self._compact()

    def close(self) -> None:
        """Compact what the log holds (so memory.yaml is complete at rest). Safe to call twice."""
        with self._mutex:
            if self._closed:
                return
            self._closed = True
            if self.read_only or self._items is None:
                return
            try:
                with self._file_lock():
                    self._sync()
                    if self._base_seq != self._seq:  # writes only in the log
                        self._compact()
            except (OSError, StoreCorrupt) as exc:
                log.warning("could not compact %s at close (the log keeps every write): %s", self.path, exc)

    # ── other processes ───────────────────────────────────────────────

    def version_token(self) -> str | None:
        """``yaml:<lineage>:<seq>``: changes with every committed write (any process), not with a
        compaction or a touch."""
        with self._mutex:
            try:
                self._load_all()
            except StoreCorrupt:
                return None
            return f"yaml:{self._lineage}:{self._seq}"

    def poll_external(self) -> list[MemoryChange]:
        """Other processes' writes since the last look: new log records are published with the
        actor, reason and turn their writer recorded; content changed by something else is compared
        with what this instance held (``yaml_diff``)."""
        with self.capture() as published, self._mutex:
            if self._items is not None and not self._current():
                with self._file_lock():
                    self._sync()
        return published

    # ── self check ────────────────────────────────────────────────────

    def self_check(self) -> SelfCheckReport:
        with self._file_lock():
            try:
                issues, repaired = self._full_load(publish=True)
            except StoreCorrupt as exc:
                msg = f"{exc.path} cannot be parsed: {exc.detail}"
                if exc.backup:
                    msg += f" (last good version: {exc.backup})"
                return SelfCheckReport("FAIL", [msg], [], 0)
            assert self._items is not None
            for mid, item in self._items.items():
                issues += oversize_fields(mid, item)
            if self._trash_error is not None:
                issues.append(f"trash file {self.trash_path} cannot be parsed: {self._trash_error.detail}")
            if self.read_only:
                issues.append(f"{self.path} is read-only: memories can be read, not changed")
            elif self._needs_rewrite:
                try:
                    self._compact()
                except OSError as exc:
                    issues.append(f"repairs could not be saved: {describe_os_error(exc)}")
            count = len(self._items)
        return SelfCheckReport("WARN" if issues else "OK", issues, repaired, count)
