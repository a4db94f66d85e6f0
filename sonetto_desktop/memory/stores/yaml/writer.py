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
   the file being replaced (a hard link: nothing copied), so it is always the last good copy and,
   with the log (whose header names it as the previous file), restores the file exactly.

The file being replaced stays open for a moment after the rename: an editor that saved into it in
place (it opened the file before the rename) has its save taken in as a hand edit, not lost.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import os
import shutil
import stat as stat_mode
import threading
import time
import weakref
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Callable

from . import change_log as journal
from ...errors import StoreCorrupt
from ...files import exchange, fsync_dir, keep_backup, private_file, temp_name, write_private
from ..notices import StoreNotice, unsaved
from .cache import CACHE_MIN_BYTES, ParseCache
from .format import Layout, dump_flags, dump_mapping, flags_of, serialise
from .state import DiskState, MemoryState
from .sync import SETTLE_SECONDS, YamlFiles, YamlSync, sha1
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
#: At close, a rewrite given up (another instance replaced the files meanwhile) is tried again this many
#: times at most, for this long at most (seconds): the writes stay in the log either way.
CLOSE_TRIES = 20
CLOSE_WAIT = 5.0


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
        self._closing = False  # (close tries again itself: nothing is scheduled for the background thread)
        self._flags_written: bytes | None = None  # the flags sidecar as last written (``format.flags_of``)
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
        if self.delay is None or self._closed or self._closing:
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
            self.sync.say(unsaved(str(self.files.path), exc))  # (once, until a rewrite lands)
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
                if self.sync.damage is not None:  # memory.yaml cannot be read: never written over
                    raise self.sync.damage
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
                        done = (not self.sync.edit_pending and self.sync.damage is None
                                and self._swap(snapshot, prepared))
                    finally:
                        if not done:
                            self._discard(prepared)
            finally:
                if not done:
                    with self._lock():
                        self.state.give_back(snapshot["changed"])
        if done:
            self.sync.ended("file_unsaved", StoreNotice("file_saved", str(self.files.path)))
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
            "old_base_seq": disk.base_seq, "flags": flags_of(state.items),
        }

    def _prepare(self, snap: dict[str, Any]) -> dict[str, Any]:
        """The new files' text in temp files, flushed to disk (no lock held)."""
        payload, layout = serialise(snap["changed"], snap["layout"])
        prepared: dict[str, Any] = {"layout": layout, "sha1": sha1(payload), "size": len(payload),
                                    "tmp": temp_name(self.files.path), "trash_tmp": None,
                                    "trash_sha1": snap["old_trash_sha1"], "flags_tmp": None}
        try:
            write_private(prepared["tmp"], payload)
            _stamp(prepared["tmp"])
            flags = dump_flags(snap["flags"])
            if flags != self._flags_written and (snap["flags"] or self.files.flags_path.exists()):
                prepared["flags"] = flags
                prepared["flags_tmp"] = temp_name(self.files.flags_path)
                write_private(prepared["flags_tmp"], flags)
            if snap["trash"] is not None:
                trash_payload = dump_mapping(snap["trash"])
                prepared["trash_tmp"] = temp_name(self.files.trash_path)
                prepared["trash_sha1"] = sha1(trash_payload)
                write_private(prepared["trash_tmp"], trash_payload)
        except BaseException:
            self._discard(prepared)
            raise
        return prepared

    @staticmethod
    def _discard(prepared: dict[str, Any]) -> None:
        for key in ("tmp", "trash_tmp", "flags_tmp"):
            if prepared.get(key) is not None:
                try:
                    os.unlink(prepared[key])
                except OSError:
                    pass

    def _swap(self, snap: dict[str, Any], prepared: dict[str, Any]) -> bool:
        """Step 3 (lock held). False (nothing changed) when the files changed since the snapshot."""
        files, disk = self.files, self.disk
        replaced = _Replaced.open(files.path)
        try:
            if self._closed or files.keys()[:2] != snap["keys"]:
                self._discard(prepared)
                if replaced is not None:
                    replaced.close()
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
            if prepared["trash_tmp"] is not None:
                os.replace(prepared["trash_tmp"], files.trash_path)
            if prepared["flags_tmp"] is not None:  # before memory.yaml: its entries no longer say them
                os.replace(prepared["flags_tmp"], files.flags_path)
                self._flags_written = prepared["flags"]
            keep = replaced is not None and disk.file_known  # (else: gone, emptied, a link: no copy worth keeping)
            if not keep and snap["layout"].split and snap["old_sha1"]:
                self._restore_backup(snap["layout"])  # the last text known is the copy the log names
            stray = self._put_in_place(prepared["tmp"], snap["keys"][0], replaced, keep=keep)
            fsync_dir(files.path.parent)
        except _SavedMeanwhile:
            self._discard(prepared)
            if replaced is not None:
                replaced.close()
            return False  # (taken in as a hand edit at the next look, and written again)
        except BaseException:
            self._discard(prepared)
            if replaced is not None:
                replaced.close()
            raise
        if len(kept) > 2 * CARRY_BYTES:  # (a big import): the log shrinks to what other instances may need
            newer = b"".join(line for n, line in lines if n > seq)
            self.log.write(journal.Header(disk.lineage, seq, prepared["sha1"], base_stat, prepared["trash_sha1"],
                                          trash_stat), journal.carry(lines, seq, CARRY_BYTES) + newer)
            self._copy_backup()  # the log no longer names the previous file: the backup is this one
        self.sync.versions.advance(disk.sha1, disk.layout, list(snap["changed"]) if snap["layout"].split else None)
        disk.layout, disk.sha1, disk.size = prepared["layout"], prepared["sha1"], prepared["size"]
        disk.ids = None
        disk.trash_sha1, disk.base_seq = prepared["trash_sha1"], seq
        if snap["trash"] is not None:
            disk.trash_written = snap["trash_version"]
        disk.needs_rewrite = False
        disk.file_known = True
        # What was put in place, as known before the renames: a save landing just after them is a change.
        self.sync.keys = (base_stat, trash_stat, journal.stat_key(files.log_path))
        if replaced is not None:
            self.sync.watch_replaced(replaced.watch(snap["old_sha1"]))
        if stray is not None:  # a save renamed over memory.yaml at the last moment: taken in, not lost
            self.sync.watch_replaced(stray.watch(snap["old_sha1"]))
        return True

    def _put_in_place(self, tmp: Path, expected: journal.Stat | None,
                      replaced: "_Replaced | None", *, keep: bool) -> "_Replaced | None":
        """Move the new memory.yaml into place; the file it displaces becomes memory.yaml.bak (the last
        good copy; a gone file or a link is not one). Where the system can, the two are exchanged in
        one step, so a save landing on memory.yaml at the last moment is displaced, not lost: the
        displaced file is returned, open, to be taken in once it has settled (it may still be being
        written). Elsewhere the file is checked once more just before the rename."""
        path = self.files.path
        if replaced is not None and exchange(tmp, path):
            if journal.stat_key(tmp) == expected:
                if keep:
                    private_file(tmp)
                    os.replace(tmp, self.files.backup_path)
                else:
                    os.unlink(tmp)
                return None
            kept = self.files.displaced_path()  # (kept on disk until taken in: a crash meanwhile loses nothing)
            os.replace(tmp, kept)
            return _Replaced.open(kept, saved=True)
        if replaced is not None and keep:
            self._keep_backup(replaced)
        if journal.stat_key(path) != expected:
            raise _SavedMeanwhile
        os.replace(tmp, path)
        return None

    def _keep_backup(self, replaced: "_Replaced") -> None:
        """The file about to be replaced, kept as memory.yaml.bak (a hard link: nothing copied)."""
        keep_backup(self.files.path, self.files.backup_path, replaced.data, follow_symlinks=False)

    def _restore_backup(self, layout: Layout) -> None:
        """memory.yaml.bak written from the text this store last knew memory.yaml to hold (the file is
        gone, or a link is in its place): the backup stays the last good copy the log names."""
        backup = self.files.backup_path
        staged = backup.with_name(backup.name + ".new")
        write_private(staged, b"".join([layout.preamble, *(chunk.text for chunk in layout.chunks.values())]))
        os.replace(staged, backup)

    def _copy_backup(self) -> None:
        """memory.yaml as just written, copied as memory.yaml.bak (not linked: an edit in place would
        change both)."""
        backup = self.files.backup_path
        staged = backup.with_name(backup.name + ".new")
        try:
            shutil.copyfile(self.files.path, staged, follow_symlinks=False)
            private_file(staged)
            os.replace(staged, backup)
        except OSError as exc:
            log.info("could not copy %s to %s: %s", self.files.path, backup, exc)

    # ── the end ────────────────────────────────────────────────────────

    def close(self) -> None:
        """Write what the files lack, and the parse cache for the next opening. Safe to call twice."""
        with self._flushing:
            if self._closed:
                return
            self._closing = True
            try:
                self._write_at_close()
                if not self.behind and self.disk.file_known and self.sync.damage is None:
                    with self._lock():
                        if self.sync.keys is None or self.files.keys()[0] != self.sync.keys[0]:
                            return  # (changed since it was last taken in: left for the next opening)
                        if self.flush_times or len(self.sync.versions):  # (nothing to keep after only reading)
                            # memory.yaml as left, copied (an edit in place while closed must not change the copy),
                            # and the versions leading to it: a save made while closed is merged at the next opening.
                            self._copy_backup()
                            self.sync.versions.save(self.files.versions_path, self.disk.sha1)
                        if self.disk.size > CACHE_MIN_BYTES and self.cache.base_sha1() != self.disk.sha1:
                            self.cache.write(self.disk.sha1, self.state.view())
            finally:
                self._closed = True
                self._due = None

    def _write_at_close(self) -> None:
        """Rewrite until the files hold the state: a rewrite is given up when another instance replaced
        the files between its snapshot and its swap (two instances closing together), and no later one
        is scheduled once closed, so it is tried again here, from a new snapshot, until it is done or
        the files another instance wrote hold every write already (not behind once taken in); at most
        ``CLOSE_TRIES`` times and ``CLOSE_WAIT`` seconds (what is still left is in the log: replayed at
        the next opening)."""
        deadline = time.monotonic() + CLOSE_WAIT
        for _ in range(CLOSE_TRIES):
            if not self.behind or self._rewrite(force=False):
                return
            if time.monotonic() >= deadline:
                break
            time.sleep(0.05)
        if self.behind:
            log.warning("%s was not rewritten at close (the files kept changing; the log keeps every write)",
                        self.files.path)


class _SavedMeanwhile(Exception):
    """memory.yaml changed between a rewrite's check and its rename: the rewrite is given up."""


#: How long the file a rewrite replaced stays open for an editor's save in place to be caught.
REPLACED_WATCH = 2.0


class _Replaced:
    """The memory.yaml a rewrite is replacing, kept open (POSIX): whether something wrote into it after
    the rename's check (an editor saving in place into the file it opened before; the rename would
    lose that save)."""

    def __init__(self, fd: int, st: os.stat_result, *, saved: bool = False, path: Path | None = None) -> None:
        self.fd: int | None = fd
        self._seen: tuple[int, int] | None = None if saved else (st.st_mtime_ns, st.st_size)
        self.until = 0.0
        self.made_from = ""  # the SHA-1 of the memory.yaml it was (a save into it was made from that, or older)
        self.path = path  # where a displaced save is kept until taken in (removed then)

    @classmethod
    def open(cls, path: os.PathLike[str] | str, *, saved: bool = False) -> "_Replaced | None":
        """The regular file at ``path`` (``None``: gone, a link, or not kept open on this system).
        ``saved``: its text is a save to take in (once it has settled), not the text already known."""
        if os.name != "posix":  # (Windows cannot rename over an open file)
            return None
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            return None
        try:
            st = os.fstat(fd)
        except OSError:
            os.close(fd)
            return None
        if not stat_mode.S_ISREG(st.st_mode):
            os.close(fd)
            return None
        return cls(fd, st, saved=saved, path=Path(path) if saved else None)

    @property
    def is_open(self) -> bool:
        return self.fd is not None

    def data(self) -> bytes:
        assert self.fd is not None
        return _read_all(self.fd)

    def pending(self) -> bool:
        """Whether something wrote into it that was not taken in yet (one ``fstat``)."""
        if self.fd is None:
            return False
        if self._seen is None:
            return True
        try:
            st = os.fstat(self.fd)
        except OSError:
            return False
        return (st.st_mtime_ns, st.st_size) != self._seen

    def written(self) -> bytes | None:
        """The file's text when something wrote into it since it was opened and it has been still for
        ``SETTLE_SECONDS`` since (an editor saving in place empties the file first: half a save is not
        one); else ``None`` (a save under way keeps the file watched until it settles)."""
        if self.fd is None:
            return None
        try:
            st = os.fstat(self.fd)
            seen = (st.st_mtime_ns, st.st_size)
            if seen == self._seen:
                return None
            if time.time() - st.st_mtime_ns / 1e9 < SETTLE_SECONDS:
                self.until = max(self.until, time.monotonic() + SETTLE_SECONDS * 2)
                return None
            data = _read_all(self.fd)
            after = os.fstat(self.fd)
        except OSError:
            return None
        if (after.st_mtime_ns, after.st_size) != seen:
            return None
        self._seen = seen
        return data or None

    def watch(self, made_from: str) -> "_Replaced":
        self.until = time.monotonic() + REPLACED_WATCH
        self.made_from = made_from
        return self

    def taken(self) -> None:
        """Its save was taken in: a displaced save's file is no longer needed."""
        if self.path is not None:
            self.path.unlink(missing_ok=True)
            self.path = None

    def close(self) -> None:
        if self.fd is not None:
            fd, self.fd = self.fd, None
            os.close(fd)


def _stamp(path: Path) -> None:
    """Give a file this process wrote a modification time to the nanosecond, which the kernel's coarse
    clock (a tick of milliseconds) practically never gives a later write: an editor saving into it in
    place a moment later, with text of the same length, still changes its identity (time and size)."""
    stamp = time.time_ns() | 1
    try:
        os.utime(path, ns=(stamp, stamp))
    except OSError:
        pass


def _read_all(fd: int) -> bytes:
    chunks = []
    offset = 0
    while True:
        chunk = os.pread(fd, 1 << 20, offset)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        offset += len(chunk)


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
