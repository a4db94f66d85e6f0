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

import hashlib
import logging
import os
import threading
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import portalocker
import yaml

from . import yaml_journal as journal
from .base import BaseMemoryManager, SelfCheckReport
from .changes import EXTERNAL, MemoryChange
from .errors import StoreCorrupt, StoreReadOnly, StoreWriteFailed, describe_os_error
from .files import atomic_write, private_files, remove_stale_temps
from .item import MemoryItem
from .transaction import SnapshotTransaction
from .validation import item_from_raw, oversize_fields, validate_item
from .yaml_diff import foreign_changes
from .yaml_format import dump, parse_items, parse_trash, read_cache, serialise, split_fragments, write_cache
from .yaml_safe import YamlRefused

__all__ = ["YamlMemoryManager", "atomic_write"]

log = logging.getLogger(__name__)

#: The log is compacted when it is larger than this, or than a quarter of memory.yaml.
COMPACT_MIN_BYTES = 1 << 20
COMPACT_RATIO = 4
#: memory.yaml files larger than this get a JSON parse cache (``memory.yaml.cache``, checked by SHA-1).
CACHE_MIN_BYTES = 64 * 1024
#: How much of the newest log a compaction carries over (other instances catch up from it).
CARRY_BYTES = 256 * 1024

_PARSE_ERRORS = (yaml.YAMLError, UnicodeDecodeError, YamlRefused, TypeError, RecursionError)


def _sha1(data: bytes) -> str:
    return hashlib.sha1(data, usedforsecurity=False).hexdigest()


class _TrackingTransaction(SnapshotTransaction):
    """A snapshot transaction that remembers what it touched (the log records only that)."""

    def __init__(self, items: dict[str, MemoryItem], trash: dict[str, dict[str, Any]]) -> None:
        super().__init__(items, trash)
        self.touched: set[str] = set()
        self.trash_touched: set[str] = set()
        self.changes: list[MemoryChange] = []

    def put(self, memory_id: str, item: MemoryItem) -> None:
        super().put(memory_id, item)
        self.touched.add(memory_id)

    def remove(self, memory_id: str) -> None:
        super().remove(memory_id)
        self.touched.add(memory_id)

    def trash_put(self, memory_id: str, entry: dict[str, Any]) -> None:
        super().trash_put(memory_id, entry)
        self.trash_touched.add(memory_id)

    def trash_remove(self, memory_id: str) -> None:
        super().trash_remove(memory_id)
        self.trash_touched.add(memory_id)

    def record(self, change: MemoryChange) -> None:
        self.changes.append(change)


class YamlMemoryManager(BaseMemoryManager):
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

    def _corrupt(self, path: Path, exc: BaseException) -> StoreCorrupt:
        backup = str(self.backup_path) if path == self.path and self.backup_path.exists() else None
        return StoreCorrupt(str(path), str(exc).replace("\n", " "), backup)

    def _read(self, path: Path) -> bytes | None:
        try:
            return path.read_bytes()
        except FileNotFoundError:
            return None

    def _sync(self) -> None:
        """Take in what changed on disk since we last looked (lock held)."""
        keys = self._stat_keys()
        if self._items is None:
            self._full_load(publish=False)
            return
        if keys == self._keys:
            return
        assert self._keys is not None
        base, trash, log_key = keys
        old_base, old_trash, old_log = self._keys
        appended = (log_key is not None and old_log is not None and log_key[0] == old_log[0]
                    and log_key[2] >= self._log_end and bool(self._head)
                    and journal.head_of(self.log_path, len(self._head)) == self._head)
        if not appended:
            if not self._adopt_compaction(keys):
                self._full_load(publish=True)
            return
        if base != old_base:
            raw = self._read(self.path)
            if raw is None or _sha1(raw) != self._base_sha1:
                self._full_load(publish=True)
                return
        if trash != old_trash:
            raw = self._read(self.trash_path)
            if (_sha1(raw) if raw is not None else None) != self._trash_sha1:
                self._full_load(publish=True)
                return
        tail = self._read_log(self._log_end)
        if tail is None:
            self._full_load(publish=True)
            return
        self._take_records([r for r in tail.records if r["seq"] > self._seq], publish=True)
        self._log_end = tail.end
        self._keys = keys

    def _read_log(self, offset: int) -> journal.Tail | None:
        try:
            return journal.read(self.log_path, offset)
        except journal.JournalCorrupt as exc:
            raise self._corrupt(self.log_path, exc) from exc

    def _files_match(self, header: journal.Header, base: Any, trash: Any) -> tuple[bool, bytes | None, bytes | None]:
        """Whether memory.yaml and the trash file are the ones ``header`` describes (by identity,
        else by content). Also returns whatever it had to read."""
        base_raw = trash_raw = None
        if base != header.base_stat:
            base_raw = self._read(self.path)
            if base_raw is None or _sha1(base_raw) != header.base_sha1:
                return False, base_raw, None
        if trash != header.trash_stat:
            trash_raw = self._read(self.trash_path)
            if (_sha1(trash_raw) if trash_raw is not None else None) != header.trash_sha1:
                return False, base_raw, trash_raw
        return True, base_raw, trash_raw

    def _adopt_compaction(self, keys: tuple[Any, Any, Any]) -> bool:
        """Another instance compacted: when its files hold what we hold, or what we hold plus
        records it carried over, take them in without parsing. False when a full read is needed."""
        base, trash, _ = keys
        tail = self._read_log(0)
        if tail is None or tail.header is None or tail.header.lineage != self._lineage:
            return False
        header = tail.header
        seqs = {r["seq"] for r in tail.records}
        if not (self._seq == header.base_seq or (self._seq < header.base_seq and self._seq + 1 in seqs)):
            return False
        matches, _, _ = self._files_match(header, base, trash)
        if not matches:
            return False
        newer = [r for r in tail.records if r["seq"] > self._seq]
        self._base_sha1, self._trash_sha1 = header.base_sha1, header.trash_sha1
        self._base_seq, self._log_ok, self._log_end, self._head = header.base_seq, True, tail.end, tail.head
        self._base_size = base[2] if base else 0
        self._take_records(newer, publish=True)
        self._trash_dirty = any(r.get("trash") for r in newer if r["seq"] > header.base_seq)
        self._keys = keys
        return True

    def _full_load(self, *, publish: bool) -> tuple[list[str], list[str]]:
        """Parse the files and replay the log. Returns (issues, repaired) of the parse."""
        self.full_reads += 1
        keys = self._stat_keys()
        base, trash, _ = keys
        raw = self._read(self.path) or b""
        base_sha1 = _sha1(raw)
        cached = read_cache(self.cache_path, base_sha1) if len(raw) > CACHE_MIN_BYTES else None
        if cached is not None:
            items, issues, repaired = cached
        else:
            try:
                items, issues, repaired = parse_items(raw, str(self.path))
            except _PARSE_ERRORS as exc:
                raise self._corrupt(self.path, exc) from exc
            if len(raw) > CACHE_MIN_BYTES and not (issues or repaired or self.read_only):
                self._write_cache(base_sha1, items)
        trash_raw = self._read(self.trash_path)
        trash_items: dict[str, dict[str, Any]] | None
        trash_error = None
        try:
            trash_items = parse_trash(trash_raw, str(self.trash_path)) if trash_raw is not None else {}
        except _PARSE_ERRORS as exc:
            trash_items, trash_error = None, self._corrupt(self.trash_path, exc)
        tail = self._read_log(0)
        header = tail.header if tail is not None else None
        trash_sha1 = _sha1(trash_raw) if trash_raw is not None else None
        matches = header is not None and (header.base_stat == base or header.base_sha1 == base_sha1) and (
            header.trash_stat == trash or header.trash_sha1 == trash_sha1)
        records = tail.records if tail is not None else []
        # Records up to the header's base_seq are in the files it describes (or in files written
        # later: a crash mid-compaction, an edit by hand), so only newer ones are replayed; those
        # are absolute states, harmless to apply to files that already hold them.
        replay = [r for r in records if r["seq"] > (header.base_seq if header else 0)]
        seq = max([header.base_seq if header else 0, *(r["seq"] for r in records)])
        if matches:
            assert header is not None
            lineage, base_seq = header.lineage, header.base_seq
            fragments = {} if issues or repaired else split_fragments(raw.decode("utf-8"), items)
        else:  # no log, or files changed by something else: a new lineage, compacted at the next write
            lineage, fragments = "h" + base_sha1[:16], {}
            base_seq = None if replay else seq
        previous_items, previous_trash = self._items, self._trash
        self._items, self._trash, self._trash_error = items, trash_items, trash_error
        self._fragments = fragments
        self._take_records(replay, publish=False)
        self._base_sha1, self._trash_sha1, self._base_size = base_sha1, trash_sha1, len(raw)
        self._lineage, self._seq, self._base_seq = lineage, seq, base_seq
        self._log_ok = matches
        self._log_end = tail.end if tail is not None else 0
        self._head = tail.head if tail is not None else b""
        self._trash_dirty = any(r.get("trash") for r in replay)
        self._needs_rewrite = bool(repaired) or any(i.startswith("duplicate id") for i in issues)
        self._keys = keys
        if publish and previous_items is not None:
            changes = foreign_changes(previous_items, self._items, lambda: self._trash or {})
            if not changes and previous_trash != self._trash:
                changes = [MemoryChange("purge", (), EXTERNAL, local=False)]  # only the trash changed
            for change in changes:
                self._publish(change)
        return issues, repaired

    def _take_records(self, records: list[dict[str, Any]], *, publish: bool) -> None:
        """Apply log records (absolute states) to the state; publish their changes when asked."""
        if not records:
            return
        assert self._items is not None
        items = dict(self._items)
        trash = dict(self._trash) if self._trash is not None else None  # None: the trash file is damaged
        changes: list[MemoryChange] = []
        for record in records:
            for mid, raw in (record.get("items") or {}).items():
                if raw is None:
                    items.pop(mid, None)
                    continue
                item, _ = item_from_raw(mid, raw)
                validate_item(mid, item)
                items[mid] = item
            for mid, entry in (record.get("trash") or {}).items() if trash is not None else ():
                if entry is None:
                    trash.pop(mid, None)
                else:
                    trash[mid] = entry
            if record.get("trash"):
                self._trash_dirty = True
            self._seq = max(self._seq, int(record["seq"]))
            if publish and record.get("origin") != self._origin:
                recorded = record.get("changes") or []
                changes += [MemoryChange.from_dict(c, local=False) for c in recorded if isinstance(c, dict)]
                if not recorded:
                    changes.append(MemoryChange("reload", (), EXTERNAL, local=False))
        self._items, self._trash = items, trash
        for change in changes:
            self._publish(change)

    # ── writing ───────────────────────────────────────────────────────

    @contextmanager
    def _transaction(self) -> Iterator[_TrackingTransaction]:
        with self._write_lock():
            self._sync()
            if self._trash_error is not None:
                raise self._trash_error
            assert self._items is not None and self._trash is not None
            txn = _TrackingTransaction(self._items, self._trash)
            yield txn
            if txn.touched or txn.trash_touched:
                self._commit(txn)

    def _commit(self, txn: _TrackingTransaction) -> None:
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
            self._trash_sha1 = _sha1(trash_payload)
        payload, self._fragments = serialise(self._items, self._fragments)
        atomic_write(self.path, payload, backup=self.backup_path)
        self._base_sha1, self._base_size = _sha1(payload), len(payload)
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
