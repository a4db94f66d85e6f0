"""YamlMemoryManager: the seed's ``memory.yaml``, written through an append-only log and kept
current in the background.

Files (``memory.yaml`` keeps the seed's format, see ``format``)::

    memory.yaml          every memory (plain ``yaml.safe_load`` reads it; a person may edit it)
    memory.trash.yaml    the trash
    memory.yaml.log      the writes memory.yaml may not hold yet, one fsynced JSON line each (``change_log``)
    memory.yaml.bak      memory.yaml before the last rewrite (a copy of it as left, once the store closed): with
                         the log, it restores the file exactly
    memory.yaml.cache    memory.yaml as JSON, tied to its SHA-1 (opening parses JSON, not YAML)
    memory.yaml.versions the recent versions of memory.yaml as the entries each later one changed (``versions``)
    memory.yaml.lock     the cross-process write lock

A write appends one record to the log (a few hundred bytes and one fsync, whatever the store's
size) and is acknowledged once that is on disk; it records what it changed beside the state instead
of copying it (``OverlayTransaction``), so it costs what it touches. memory.yaml follows within a
second (``writer.FileWriter``: in the background, only changed entries dumped, every other entry's
text kept byte for byte). Every reader — this process, the command line, a second app — reads the
files plus the log, so it sees every committed write. A hand edit of memory.yaml while the store is
open becomes the memories' state, recorded as the person's (actor ``file``), and no older change is
replayed over it (``sync.YamlSync``).

The store is made of parts that own their state: ``files`` (the paths), ``log`` (the change log as
this instance follows it), ``state`` (the committed memories and trash, and snapshots for readers),
``disk`` (what it knows memory.yaml holds), ``cache`` (the parse cache), ``sync`` (taking in what is
on disk) and ``writer`` (rewriting the files).

A file that cannot be parsed is never written over: every write raises :class:`StoreCorrupt` (a store
that was reading it keeps serving its last good state, and says so). A memory.yaml that is gone — while
the store is open, or when it opens with its log and backup still there — is damage, not an empty
store: it is written out again from what the store holds, or restored (``recovery``), and said
(``notices``). A folder or file without write permission opens read-only (:class:`StoreReadOnly` on
writes).
"""

from __future__ import annotations

import errno
import logging
import os
import stat
import threading
import uuid
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any, Iterator

from . import change_log as journal
from ..base import BaseMemoryManager, SelfCheckReport
from ..lock_wait import exclusive
from ...changes import MemoryChange
from ...errors import MemoryNotFound, StoreCorrupt, StoreReadOnly, StoreWriteFailed, describe_os_error
from ...files import atomic_write, private_dir, private_files, remove_stale_temps
from ...item import MemoryItem
from ..transaction import OverlayTransaction
from ..validation import Finding, not_saved, oversize_fields, read_only, said_once
from .cache import ParseCache
from .state import DiskState, MemoryState
from .recovery import recover_missing
from .sync import YamlFiles, YamlSync
from .writer import FLUSH_DELAY, LAG_DELAY, FileWriter

__all__ = ["YamlMemoryManager"]

log = logging.getLogger(__name__)

#: How many changes from outside wait for ``poll_external`` (older ones were published all the same).
_FOUND_KEPT = 1000


def _emptied(path: Path) -> bool:
    """A regular memory.yaml of no bytes: a save cut short or a sync client's placeholder (the store
    writes ``{}`` for no memories)."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode) and st.st_size == 0


class YamlMemoryManager(BaseMemoryManager):
    """Memories in one YAML file, trash beside it, recent writes in a log (module docstring).
    ``flush_delay``: seconds from a write until memory.yaml is rewritten in the background (``None``:
    only by ``compact()`` and ``close()``)."""

    def __init__(self, path: str | os.PathLike[str], *, flush_delay: float | None = FLUSH_DELAY) -> None:
        super().__init__()
        self.files = YamlFiles(Path(path))
        private_dir(self.files.path.parent)
        self._mutex = threading.RLock()
        self._lock_depth = 0
        self._origin = uuid.uuid4().hex
        self._closed = False
        self.read_only = not os.access(self.path.parent, os.W_OK) or (
            self.path.exists() and not os.access(self.path, os.W_OK))
        self.state = MemoryState()
        self.disk = DiskState()
        self.log = journal.ChangeLog(self.files.log_path)
        self.cache = ParseCache(self.files.cache_path)
        self._found: list[MemoryChange] = []  # changes from outside, published since the last poll_external
        self.sync = YamlSync(self.files, self.log, self.state, self.disk, self.cache, origin=self._origin,
                             read_only=self.read_only, publish=self._publish_found, commit=self._commit_edit,
                             notice=self._notice, rewrite_soon=self._rewrite_soon, look_later=self._look_later,
                             new_id=self._new_id)
        self.writer = FileWriter(self.files, self.log, self.state, self.disk, self.sync, self.cache, self._file_lock,
                                 delay=None if self.read_only else flush_delay)
        if not self.read_only:
            with self._file_lock():
                if not os.path.lexists(self.path) or _emptied(self.path):
                    if self.files.companions():  # gone or emptied while closed: damage, never "no memories"
                        self._notice(recover_missing(self.files, self.cache))
                    elif not os.path.lexists(self.path):
                        atomic_write(self.path, b"{}\n")
                remove_stale_temps(self.path.parent, (self.path.name, self.trash_path.name, self.log_path.name))
            private_files(self.path, self.trash_path, self.backup_path, self.log_path, self.lock_path,
                          self.cache_path, self.files.versions_path)

    # ── the files ─────────────────────────────────────────────────────

    @property
    def path(self) -> Path:
        return self.files.path

    @property
    def trash_path(self) -> Path:
        return self.files.trash_path

    @property
    def log_path(self) -> Path:
        return self.files.log_path

    @property
    def backup_path(self) -> Path:
        return self.files.backup_path

    @property
    def cache_path(self) -> Path:
        return self.files.cache_path

    @property
    def lock_path(self) -> Path:
        return self.files.lock_path

    @property
    def full_reads(self) -> int:
        """How many times the whole store was parsed (diagnostics: benchmarks and tests read it)."""
        return self.sync.full_reads

    @property
    def flush_times(self) -> list[float]:
        """Seconds each rewrite of memory.yaml took (benchmarks read it)."""
        return self.writer.flush_times

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
            with exclusive(self.lock_path, self.path, stop=self._stop_waits):
                self._lock_depth = 1
                try:
                    yield
                finally:
                    self._lock_depth = 0

    @contextmanager
    def _write_lock(self) -> Iterator[None]:
        if self.read_only:
            raise StoreReadOnly(str(self.path))
        with ExitStack() as held:
            try:
                held.enter_context(self._file_lock())
            except OSError as exc:  # the folder turned read-only (a remount, a pulled permission) since opening
                if exc.errno not in (errno.EROFS, errno.EACCES, errno.EPERM):
                    raise
                raise StoreReadOnly(str(self.path), describe_os_error(exc), folder=str(self.path.parent)) from exc
            yield

    def _forget(self) -> None:
        """Drop everything cached: the next access reads the files from scratch."""
        with self._mutex:
            self.state.__init__()  # type: ignore[misc]
            self.disk.__init__()  # type: ignore[misc]
            self.log.reset()
            self.sync.keys = None

    # ── reading ───────────────────────────────────────────────────────

    def _current(self) -> dict[str, MemoryItem]:
        """The committed items, after taking in what changed on disk (mutex held)."""
        if not self.sync.current():
            with self._file_lock():
                self.sync.sync(settle=True)
            if self.writer.behind and not self.read_only:
                self.writer.schedule(LAG_DELAY)  # e.g. a crashed writer's records: the file catches up
        assert self.state.items is not None
        return self.state.items

    def _rewrite_soon(self) -> None:
        """memory.yaml must be written out again (it is gone, or a save left it behind the memories)."""
        if self.writer.delay is not None:
            self.writer.schedule(0.0)

    def _look_later(self, delay: float) -> None:
        """Look at the files in ``delay`` seconds (the background rewrite takes in what it finds)."""
        if self.writer.delay is not None:
            self.writer.schedule(delay)

    def _load_all(self) -> dict[str, MemoryItem]:
        with self._mutex:
            self._current()
            return self.state.view()

    def _load_trash(self) -> dict[str, dict[str, Any]]:
        with self._mutex:
            self._current()
            if self.state.trash_error is not None:
                raise self.state.trash_error
            return self.state.trash_view()

    def get(self, memory_id: str) -> MemoryItem:
        with self._mutex:
            item = self._current().get(memory_id)
        if item is None:
            raise MemoryNotFound(memory_id)
        return item.copy()

    def count(self) -> int:
        with self._mutex:
            return len(self._current())

    # ── writing ───────────────────────────────────────────────────────

    @contextmanager
    def _transaction(self) -> Iterator[OverlayTransaction]:
        with self._write_lock():
            self.sync.sync(settle=False, strict=True)  # a hand edit is taken in before the write (or it fails)
            if self.state.trash_error is not None:
                raise self.state.trash_error
            txn = self.state.transaction()
            yield txn
            if txn.touched:
                self._commit(txn)

    def _commit(self, txn: OverlayTransaction, **extra: Any) -> None:
        """Append ``txn``'s record to the log (the acknowledgement), then make it the state (lock held)."""
        seq = self.state.seq + 1
        record = {
            "seq": seq, "origin": self._origin,
            "items": {mid: (item.to_dict(copy=False) if item is not None else None) for mid, item in txn.items.items()},
            "trash": dict(txn.trash),
            "changes": [c.to_dict() for c in txn.changes],
            **extra,
        }
        payload = journal.encode(record)
        try:
            if not self.log.ok:  # no log of ours yet (a new or foreign file, a cut-short rewrite)
                if self.disk.base_seq == self.state.seq:
                    self._start_log()
                else:
                    self.writer.flush_locked()
            self.log.append(payload)
        except OSError as exc:
            raise StoreWriteFailed(str(self.path), describe_os_error(exc)) from exc
        self.state.apply(txn, seq)
        base, trash, _ = self.sync.keys or (None, None, None)
        self.sync.keys = (base, trash, journal.stat_key(self.log_path))
        self.writer.schedule()

    def _commit_edit(self, txn: OverlayTransaction, *, file_sha1: str, **extra: Any) -> None:
        """A hand edit of memory.yaml taken in (``sync.fold``): one write, naming the file it came from."""
        self._commit(txn, file_sha1=file_sha1, **extra)

    def _start_log(self) -> None:
        """A log for files that already hold the current state."""
        base, trash, _ = self.files.keys()
        self.log.write(journal.Header(self.disk.lineage, self.state.seq, self.disk.sha1, base,
                                      self.disk.trash_sha1, trash))
        private_files(self.log_path)

    def compact(self) -> None:
        """Write memory.yaml (and the trash file) now (also done in the background after writes and at
        ``close``)."""
        if self.read_only:
            raise StoreReadOnly(str(self.path))
        try:
            self.writer.flush(force=True)
        except OSError as exc:
            raise StoreWriteFailed(str(self.path), describe_os_error(exc)) from exc

    def _save_all(self, items: dict[str, MemoryItem]) -> None:
        with self._transaction() as txn:
            for memory_id in list(txn.ids()):
                if memory_id not in items:
                    txn.remove(memory_id)
            for memory_id, item in items.items():
                txn.put(memory_id, item)

    def _save_trash(self, trash: dict[str, dict[str, Any]]) -> None:
        with self._transaction() as txn:
            for memory_id in list(txn.trash_ids()):
                if memory_id not in trash:
                    txn.trash_remove(memory_id)
            for memory_id, entry in trash.items():
                txn.trash_put(memory_id, entry)

    def close(self) -> None:
        """Write what memory.yaml lacks (so it is complete at rest). Safe to call twice."""
        with self._mutex:
            if self._closed:
                return
            self._closed = True
            if self.read_only or self.state.items is None:
                return
        try:
            self.writer.close()
        except (OSError, StoreCorrupt) as exc:
            log.warning("could not write %s at close (the log keeps every write): %s", self.path, exc)
        finally:
            with self._mutex:
                self.sync.close()

    # ── other processes ───────────────────────────────────────────────

    def version_token(self) -> str | None:
        """``yaml:<lineage>:<seq>``: changes with every committed write (any process), not with a
        rewrite of the files or a touch."""
        with self._mutex:
            try:
                self._current()
            except StoreCorrupt:
                return None
            return f"yaml:{self.disk.lineage}:{self.state.seq}"

    def _publish_found(self, change: MemoryChange) -> None:
        """A change from outside (another process, a hand edit), published by whichever thread took
        it in (a reader, a write, the background rewrite) and returned by the next ``poll_external``."""
        self._found.append(change)
        del self._found[:-_FOUND_KEPT]
        self._publish(change)

    def poll_external(self) -> list[MemoryChange]:
        """Changes from outside since the last look (published when they were taken in, on whichever
        thread did): other processes' log records with the actor, reason and turn their writer
        recorded; a hand edit of memory.yaml (actor ``file``); other content changed by something
        else, compared with what this instance held."""
        with self._mutex:
            if self.state.items is not None:
                self._current()
            found, self._found = self._found, []
        return found

    def catch_up(self) -> None:
        """``poll_external``: a look at the files' identity when nothing changed."""
        self.poll_external()

    # ── self check ────────────────────────────────────────────────────

    def self_check(self) -> SelfCheckReport:
        with self._file_lock():
            try:
                issues, repaired = self.sync.full_load(publish=True)
            except StoreCorrupt as exc:
                en, zh = f"{exc.path} cannot be read: {exc.detail}", f"{exc.path} 无法读取：{exc.detail}"
                if exc.backup:
                    en, zh = en + f" (last good version: {exc.backup})", zh + f"（上一个完好的版本：{exc.backup}）"
                return SelfCheckReport("FAIL", [Finding(en, zh)], [], 0)
            items = self.state.items
            assert items is not None
            for mid, item in items.items():
                issues += oversize_fields(mid, item)
            if self.state.trash_error is not None:
                detail = self.state.trash_error.detail
                issues.append(Finding(f"trash file {self.trash_path} cannot be parsed: {detail}",
                                      f"回收站文件 {self.trash_path} 无法解析：{detail}"))
            if self.read_only:
                issues.append(read_only(self.path))
            elif self.disk.needs_rewrite:  # repairs are written (only the repaired entries' text changes)
                try:
                    self.writer.flush_locked()
                except OSError as exc:
                    issues.append(not_saved(describe_os_error(exc)))
            count = len(items)
        return SelfCheckReport("WARN" if issues else "OK", issues, said_once(repaired), count)
