"""FileWriter: keeps ``memory.yaml`` (and the trash file) current with the log (the store's writing
part), and the one background thread that runs every store's rewrites.

A write is acknowledged once its log record is on disk; memory.yaml follows within a second:
:data:`FLUSH_DELAY` after the first write it does not hold yet (not after the last: a steady stream
of writes cannot put it off), the background thread rewrites it. A rewrite costs at most one
``serialise`` of the store — only the entries that changed are dumped, the others are their chunks
of text as they were — and holds the store's lock only to take a snapshot and to swap the files,
so writes go on meanwhile. When rewrites take long (a very large store on a slow disk) the next one
waits at least as long as the last one took, so writes keep at least half of the machine.

A rewrite, in three steps:

1. under the lock: take in what is on disk (other instances' records, a hand edit) and snapshot the
   state (the dicts are copied once; items are immutable);
2. without the lock: the new memory.yaml (and trash file) into temp files, flushed to disk;
3. under the lock, if nothing changed the files meanwhile (else it is given up and tried again): the
   new log first — its header names the new files (their identities are known before the rename)
   and the files still on disk, and it keeps every record the old files lack plus the newest ones
   for other instances to catch up from — then the files are replaced. ``memory.yaml.bak`` keeps
   the file as it was before this instance's first rewrite and before a hand edit was taken in.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import os
import threading
import time
import weakref
from contextlib import AbstractContextManager
from typing import Any, Callable

from . import change_log as journal
from ...errors import StoreCorrupt
from ...files import fsync_dir, private_file, temp_name, write_private
from .cache import CACHE_MIN_BYTES, ParseCache
from .format import Layout, dump, serialise
from .state import DiskState, MemoryState
from .sync import YamlFiles, YamlSync, sha1
from ....aio import start_thread

log = logging.getLogger(__name__)

#: memory.yaml is rewritten this long after the first write it does not hold yet (seconds).
FLUSH_DELAY = 0.25
#: How much of the newest log a rewrite carries over (other instances catch up from it).
CARRY_BYTES = 256 * 1024
#: After a failed rewrite (disk full), the next try waits this long.
RETRY_DELAY = 5.0
#: An instance that sees memory.yaml lag the log this long (its writer died before rewriting it) rewrites it.
LAG_DELAY = 1.0


class FileWriter:
    """Rewrites memory.yaml and the trash file from ``state`` (see the module doc). ``lock``: the
    store's file lock (re-entrant); ``delay``: seconds from a first unwritten write to the rewrite
    (``None``: only when asked — ``flush()`` — and at close)."""

    def __init__(self, files: YamlFiles, log_: journal.ChangeLog, state: MemoryState, disk: DiskState,
                 sync: YamlSync, cache: ParseCache, lock: Callable[[], AbstractContextManager[None]],
                 delay: float | None = FLUSH_DELAY) -> None:
        self.files = files
        self.log = log_
        self.state = state
        self.disk = disk
        self.sync = sync
        self.cache = cache
        self._lock = lock
        self.delay = delay
        self._flushing = threading.Lock()  # one rewrite at a time (background, compact, close)
        self._due: float | None = None
        self._not_before = 0.0
        self._closed = False
        self._backup_next = True  # the file as it was before this instance's first rewrite
        #: Seconds each rewrite took (benchmarks read it).
        self.flush_times: list[float] = []

    # ── when ───────────────────────────────────────────────────────────

    @property
    def behind(self) -> bool:
        """Whether the files lack something the state holds."""
        return (self.disk.base_seq != self.state.seq or self.disk.trash_written != self.state.trash_version
                or self.disk.needs_rewrite)

    def schedule(self, delay: float | None = None) -> None:
        """Rewrite in ``delay`` seconds (default: the writer's delay), unless one is due sooner."""
        if self.delay is None or self._closed:
            return
        due = max(time.monotonic() + (self.delay if delay is None else delay), self._not_before)
        if self._due is not None and self._due <= due:
            return
        self._due = due
        FLUSHER.schedule(self, due)

    def run_due(self, due: float) -> None:
        """Called by the background thread at ``due``."""
        if self._due != due or self._closed:
            return  # rescheduled or closed since
        self._due = None
        try:
            self.flush()
        except StoreCorrupt as exc:  # memory.yaml does not parse: never written over; writes say why
            log.warning("memory.yaml is not rewritten while it cannot be read: %s", exc.detail)
        except OSError as exc:  # every write is safe in the log; tried again later
            log.warning("could not rewrite %s (the log keeps every write): %s", self.files.path, exc)
            self.schedule(RETRY_DELAY)
        except Exception:  # a background thread must go on for the other stores
            log.exception("rewriting %s failed", self.files.path)

    # ── how ────────────────────────────────────────────────────────────

    def flush(self, *, force: bool = False) -> bool:
        """Rewrite the files now if they lack anything (``force``: even when they do not). True
        when the files hold the state afterwards. Raises ``OSError`` / ``StoreCorrupt``."""
        with self._flushing:
            if self._closed:
                return False
            return self._rewrite(force=force)

    def flush_locked(self) -> None:
        """Rewrite while the caller holds the store's lock and has taken in what is on disk (a write
        that cannot go to the log first, a self-check's repairs)."""
        self._rewrite(force=True, locked=True)

    def _rewrite(self, *, force: bool, locked: bool = False) -> bool:
        with self._lock():
            if not locked:
                self.sync.sync(settle=True)
                if self.sync.edit_pending:  # a hand edit still being saved: after it is taken in
                    self.schedule(0.2)
                    return False
            if not (force or self.behind):
                return True
            snapshot = self._snapshot()
        started = time.monotonic()
        if locked:
            with self._lock():
                try:
                    done = self._swap(snapshot, self._prepare(snapshot))
                except BaseException:
                    self.state.give_back(snapshot["changed"])
                    raise
        else:
            done = False
            try:
                prepared = self._prepare(snapshot)
                with self._lock():
                    try:
                        self.sync.sync(settle=True)  # others' records since the snapshot go into the new log
                        done = not self.sync.edit_pending and self._swap(snapshot, prepared)
                    finally:
                        if not done:
                            self._discard(prepared)
            finally:
                if not done:
                    with self._lock():
                        self.state.give_back(snapshot["changed"])
        took = time.monotonic() - started
        self.flush_times.append(took)
        self._not_before = time.monotonic() + took  # rewrites take at most half the time
        if not done:
            self.schedule(0.05)
        elif self.behind:
            self.schedule()
        return done

    def _snapshot(self) -> dict[str, Any]:
        """What the rewrite needs of the state: the entries changed since the file was written (all
        of them when the file is not in a layout we can keep), the trash when it changed."""
        state, disk = self.state, self.disk
        write_trash = disk.trash_written != state.trash_version
        assert state.items is not None
        if disk.layout.split:
            changed, layout = state.take_changed(), disk.layout
        else:
            state.take_changed()
            changed, layout = dict(state.items), Layout()
        return {
            "changed": changed, "layout": layout, "seq": state.seq, "trash_version": state.trash_version,
            "trash": state.trash_view() if write_trash and state.trash is not None else None,
            "keys": self.files.keys()[:2], "old_sha1": disk.sha1, "old_trash_sha1": disk.trash_sha1,
            "old_base_seq": disk.base_seq,
        }

    def _prepare(self, snap: dict[str, Any]) -> dict[str, Any]:
        """The new files' text in temp files, flushed to disk (no lock held)."""
        payload, layout = serialise(snap["changed"], snap["layout"])
        prepared: dict[str, Any] = {"layout": layout, "sha1": sha1(payload), "size": len(payload),
                                    "tmp": temp_name(self.files.path), "trash_tmp": None,
                                    "trash_sha1": snap["old_trash_sha1"]}
        try:
            write_private(prepared["tmp"], payload)
            if snap["trash"] is not None:
                trash_payload = dump(snap["trash"]) if snap["trash"] else b"{}\n"
                prepared["trash_tmp"] = temp_name(self.files.trash_path)
                prepared["trash_sha1"] = sha1(trash_payload)
                write_private(prepared["trash_tmp"], trash_payload)
        except BaseException:
            self._discard(prepared)
            raise
        return prepared

    @staticmethod
    def _discard(prepared: dict[str, Any]) -> None:
        for key in ("tmp", "trash_tmp"):
            if prepared.get(key) is not None:
                try:
                    os.unlink(prepared[key])
                except OSError:
                    pass

    def _swap(self, snap: dict[str, Any], prepared: dict[str, Any]) -> bool:
        """Step 3 (lock held). False (nothing changed) when the files changed since the snapshot."""
        files, disk = self.files, self.disk
        try:
            if self._closed or files.keys()[:2] != snap["keys"]:
                self._discard(prepared)
                return False
            seq, old_base = snap["seq"], snap["old_base_seq"] or 0
            lines = self.log.lines() if self.log.header is not None or files.log_path.exists() else []
            # The files' identities are known before they are renamed (a rename keeps inode, time, size).
            base_stat = journal.stat_key(prepared["tmp"])
            trash_stat = journal.stat_key(prepared["trash_tmp"]) if prepared["trash_tmp"] else snap["keys"][1]
            header = journal.Header(disk.lineage, seq, prepared["sha1"], base_stat, prepared["trash_sha1"], trash_stat,
                                    snap["old_sha1"], snap["old_trash_sha1"], old_base)
            kept = journal.carry(lines, old_base, CARRY_BYTES) + b"".join(line for n, line in lines if n > old_base)
            self.log.write(header, kept)  # first: it describes the files on disk either way
            if self._backup_next and files.path.exists():
                self._keep_backup()
            if prepared["trash_tmp"] is not None:
                os.replace(prepared["trash_tmp"], files.trash_path)
            os.replace(prepared["tmp"], files.path)
            fsync_dir(files.path.parent)
        except BaseException:
            self._discard(prepared)
            raise
        self._backup_next = False
        if len(kept) > 2 * CARRY_BYTES:  # (a big import): the log shrinks to what other instances may need
            newer = b"".join(line for n, line in lines if n > seq)
            self.log.write(journal.Header(disk.lineage, seq, prepared["sha1"], base_stat, prepared["trash_sha1"],
                                          trash_stat), journal.carry(lines, seq, CARRY_BYTES) + newer)
        disk.layout, disk.sha1, disk.size = prepared["layout"], prepared["sha1"], prepared["size"]
        disk.ids = None
        disk.trash_sha1, disk.base_seq = prepared["trash_sha1"], seq
        if snap["trash"] is not None:
            disk.trash_written = snap["trash_version"]
        disk.needs_rewrite = False
        self.sync.keys = files.keys()
        return True

    def _keep_backup(self) -> None:
        """memory.yaml as it is now, kept as memory.yaml.bak (a hard link: nothing copied)."""
        backup = self.files.backup_path
        staged = backup.with_name(backup.name + ".new")
        try:
            staged.unlink(missing_ok=True)
            os.link(self.files.path, staged)
        except OSError:
            write_private(staged, self.files.path.read_bytes())
        private_file(staged)
        os.replace(staged, backup)

    def keep_backup_next(self) -> None:
        """The next rewrite keeps the file on disk as memory.yaml.bak first (a hand edit taken in)."""
        self._backup_next = True

    # ── the end ────────────────────────────────────────────────────────

    def close(self) -> None:
        """Write what the files lack, and the parse cache for the next opening. Safe to call twice."""
        with self._flushing:
            if self._closed:
                return
            try:
                if self.behind:
                    self._rewrite(force=False)
                if self.disk.size > CACHE_MIN_BYTES and not self.behind:
                    with self._lock():
                        if self.cache.base_sha1() != self.disk.sha1:
                            self.cache.write(self.disk.sha1, self.state.view())
            finally:
                self._closed = True
                self._due = None


class _Flusher:
    """One background thread for every store of the process: runs each writer's rewrite when it is
    due (it holds the writers weakly: a store dropped without ``close`` is not kept alive)."""

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, weakref.ref[FileWriter]]] = []
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._order = itertools.count()

    def schedule(self, writer: FileWriter, due: float) -> None:
        with self._cond:
            heapq.heappush(self._heap, (due, next(self._order), weakref.ref(writer)))
            if self._thread is None or not self._thread.is_alive():
                self._thread = start_thread(self._run, name="sonetto-memory-yaml-rewrite", daemon=True)
            self._cond.notify()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._heap or self._heap[0][0] > time.monotonic():
                    timeout = self._heap[0][0] - time.monotonic() if self._heap else None
                    self._cond.wait(timeout)
                due, _, ref = heapq.heappop(self._heap)
            writer = ref()
            if writer is not None:
                writer.run_due(due)
            del writer


FLUSHER = _Flusher()
