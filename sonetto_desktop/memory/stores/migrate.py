"""Copy a whole memory store into another backend (YAML <-> SQLite) without losing anything, and
open a data dir's store, switching its backend when the settings ask for the other one.

Items keep their ids, histories, hit counts and times; the trash comes along too. A switch is a
resumable, crash-safe operation (steps and marker: ``migration_files``): the old store stays
authoritative — and is what gets opened — until the new one is verified and installed; every
failure comes back in :attr:`MigrationReport.problem` for the app to show (nothing is only logged).
"""

from __future__ import annotations

import contextlib
import copy
import logging
import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

import portalocker

from . import migration_files as mf
from .base import BaseMemoryManager
from ..changes import MemoryChange
from .. import kinds
from ..errors import StoreUnavailable, describe_os_error
from ..files import private_dir, private_file
from .backends import file_backend_named, file_backends, for_file, store_files
from .migration_files import store_path

__all__ = ["MigrationError", "MigrationProblem", "MigrationReport", "make_store", "migrate_store",
           "open_store", "open_store_file", "store_path"]

log = logging.getLogger(__name__)

Progress = Callable[[str], None]


class MigrationError(RuntimeError):
    """The destination does not match the source after the copy (or was not empty to begin with)."""


@dataclass(frozen=True)
class MigrationProblem:
    """Why a backend switch did not (fully) happen, for a person (``en`` / ``zh``) — and which
    store is open instead."""

    source: str
    target: str
    en: str
    zh: str
    opened: str  # the backend whose store was opened

    def __str__(self) -> str:
        return self.en


@dataclass(frozen=True)
class MigrationReport:
    """What ``open_store`` did about a backend switch: ``items`` / ``trash`` moved (0 when it failed),
    ``problem`` when something needs the user's attention, ``resumed`` when an interrupted switch
    was finished or rolled back first."""

    items: int
    trash: int
    source: str = ""
    target: str = ""
    problem: MigrationProblem | None = None
    resumed: bool = False

    @property
    def ok(self) -> bool:
        return self.problem is None


def _noop(step: str) -> None:
    pass


# ── copying one store into another ─────────────────────────────────────────────────────────────


def _copy(items: dict, trash: dict, dst_mm: BaseMemoryManager, progress: Progress, *, at_once: bool = False) -> None:
    """``at_once``: one transaction for both (a server's store: a copy that fails or is cut off
    leaves nothing behind; two left the trash there, and a store with a trash is not empty, so the
    move was never tried again)."""
    if at_once:
        with dst_mm._transaction() as txn:
            txn.trash_put_many({memory_id: copy.deepcopy(entry) for memory_id, entry in trash.items()})
            txn.put_new(items)
        progress("items_copied")
        return
    with dst_mm._transaction() as txn:  # the trash first, as the red-team's crash case had it
        txn.trash_put_many({memory_id: copy.deepcopy(entry) for memory_id, entry in trash.items()})
    progress("trash_copied")
    with dst_mm._transaction() as txn:  # into an empty store: every id is free; ``items`` are the caller's copies
        txn.put_new(items)
    progress("items_copied")


def migrate_store(src_mm: BaseMemoryManager, dst_mm: BaseMemoryManager, *, at_once: bool = False,
                  clean: Callable[[Any], Any] | None = None) -> MigrationReport:
    """Copy every item and trash entry of ``src_mm`` into the empty store ``dst_mm``, then verify.

    Raises :class:`MigrationError` when the destination already holds memories (a merge is not a
    migration) or when the copy does not read back identical; ``ValueError``/``StoreCorrupt`` from
    reading a broken source propagate unchanged. The source is only read. ``at_once``: memories and
    trash in one transaction; ``clean``: what the destination makes of a memory it is given (a server
    writes a NUL as U+FFFD), so the copy is compared with that.
    """
    items = src_mm.all_items()
    trash = src_mm._load_trash()
    if dst_mm.count() or dst_mm.list_trash():
        raise MigrationError("the destination store is not empty; refusing to mix two stores")
    if clean is not None:
        items = {memory_id: clean(item) for memory_id, item in items.items()}
    _copy(items, trash, dst_mm, _noop, at_once=at_once)
    _verify(items, trash, dst_mm)
    dst_mm._publish(MemoryChange(kinds.RELOAD, (), "user", "migrate"))  # views re-read once
    return MigrationReport(items=len(items), trash=len(trash))


def _verify(items: dict, trash: dict, dst_mm: BaseMemoryManager) -> None:
    copied = dst_mm.all_items()
    if set(copied) != set(items):
        missing = sorted(set(items) - set(copied))
        raise MigrationError(f"{len(copied)} of {len(items)} memories arrived; missing: {missing[:5]}")
    for memory_id, item in items.items():
        if copied[memory_id] != item:  # field by field, nothing copied
            raise MigrationError(f"memory {memory_id} differs after the copy")
    copied_trash = dst_mm._load_trash()
    if set(copied_trash) != set(trash):
        raise MigrationError(f"{len(copied_trash)} of {len(trash)} trash entries arrived")


# ── opening a store ────────────────────────────────────────────────────────────────────────────


def make_store(backend: str, path: str | Path) -> BaseMemoryManager:
    """The ``backend`` store in ``path`` (a file backend of ``backends``), opened."""
    return file_backend_named(backend).open(path)


def open_store_file(path: str | Path) -> BaseMemoryManager:
    """A store file opened as it is, with the file backend its suffix names (``.db`` / ``.sqlite`` /
    ``.sqlite3``: SQLite), anything else as the seed's YAML (no migration: an explicitly named file is
    what the caller wants)."""
    path = Path(path)
    try:
        return for_file(path).open(path)
    except OSError as exc:
        raise StoreUnavailable(str(path.parent), describe_os_error(exc)) from exc


def _other(folder: Path, backend: str) -> str:
    """The file backend a switch to ``backend`` moves the memories from: the first other one whose
    store is in ``folder`` (the first other one when none is)."""
    others = [b.name for b in file_backends() if b.name != backend]
    return next((name for name in others if store_path(folder, name).exists()), others[0])


def _problem(source: str, target: str, opened: str, en: str, zh: str) -> MigrationProblem:
    return MigrationProblem(source, target, en, zh, opened)


def _has_items(mm: BaseMemoryManager) -> bool:
    return mm.count() > 0


#: The lock file of a data folder's switches and copies into it (``_migration_lock``).
MIGRATION_LOCK = ".migration.lock"
#: Seconds between two tries at a lock another process holds (``_migration_lock``).
LOCK_POLL = 0.05


@contextlib.contextmanager
def _migration_lock(folder: Path, waiting: Callable[[], None] | None = None) -> Iterator[bool]:
    """One process at a time decides about (and performs) a switch in this data dir, or a copy into it
    (``data_folder.carry_data``). Yields whether another process held it first (this one waited for
    it); ``waiting`` is called while it does (what it raises ends the wait). Its holder may remove the
    lock file (``data_folder.forget_stopped``): a process that locked the removed file meanwhile takes
    the lock again on the file at that path (else two would hold "the" lock)."""
    path = folder / MIGRATION_LOCK
    waited = False
    while True:
        lock = portalocker.Lock(str(path), mode="a", flags=portalocker.LOCK_EX | portalocker.LOCK_NB,
                                fail_when_locked=True)
        try:
            try:
                handle = lock.acquire()
            except portalocker.exceptions.AlreadyLocked:
                waited = True
                if waiting is not None:
                    waiting()
                time.sleep(LOCK_POLL)
                continue
            try:
                held = os.path.samestat(os.fstat(handle.fileno()), os.stat(path))
            except OSError:
                held = False  # (removed meanwhile)
            if not held:
                lock.release()
                continue
            with contextlib.suppress(OSError):
                private_file(path)
        except (OSError, portalocker.exceptions.LockException):
            yield waited  # a read-only data dir: nobody can switch anything here
            return
        break
    try:
        yield waited
    finally:
        lock.release()


def open_store(data_dir: str | Path, backend: str, *, progress: Progress | None = None) -> tuple[
        BaseMemoryManager, MigrationReport | None]:
    """Open the ``backend`` store of ``data_dir`` (created 0700 if missing), first finishing or
    undoing an interrupted switch, then migrating the other backend's store into it when that one
    holds memories and this one holds none (a switch made in the settings).

    Returns the open store and a report (``None`` when there was nothing to migrate). When a
    switch fails the old store — still authoritative — is the one opened, and
    ``report.problem`` says why. Raises :class:`StoreUnavailable` when the data dir cannot be used.
    ``progress(step)`` is called at each step (see ``migration_files``).
    """
    store_path(data_dir, backend)  # checks the backend name
    try:
        folder = private_dir(data_dir)
    except OSError as exc:
        raise StoreUnavailable(str(data_dir), describe_os_error(exc),
                               f"无法使用数据文件夹 {data_dir}：{describe_os_error(exc)}") from exc
    progress = progress or _noop
    try:
        with _migration_lock(folder):
            return _open_locked(folder, backend, progress)
    except OSError as exc:
        raise StoreUnavailable(str(folder), describe_os_error(exc)) from exc


def _open_locked(folder: Path, backend: str, progress: Progress) -> tuple[BaseMemoryManager, MigrationReport | None]:
    resumed = False
    marker = mf.read_marker(folder)
    if marker is not None:
        problem = _resume(folder, marker, progress)
        if problem is not None:
            store = make_store(problem.opened, store_path(folder, problem.opened))
            return store, MigrationReport(0, 0, problem.source, problem.target, problem, resumed=True)
        resumed = True
    target_path = store_path(folder, backend)
    other = _other(folder, backend)
    source_path = store_path(folder, other)
    if not source_path.exists():
        return make_store(backend, target_path), (MigrationReport(0, 0, other, backend, resumed=True)
                                                  if resumed else None)
    # Not created before it is needed; opened when any of its files exists (an old trash is merged).
    target = make_store(backend, target_path) if any(p.exists() for p in mf.companions(backend, target_path)) else None
    try:
        target_has_items = target is not None and _has_items(target)
    except Exception:  # noqa: BLE001 - an unreadable target is reported by its own self_check
        return target, None  # type: ignore[return-value]
    source = make_store(other, source_path)
    try:
        source_items = source.count()
        source_trash = len(source.list_trash())
    except Exception as exc:  # noqa: BLE001 - the old store cannot be read: it stays, and is what opens
        source.close()
        if target is not None and target_has_items:
            return target, None
        if target is not None:
            target.close()
        detail = str(exc)
        problem = _problem(other, backend, other,
                           f"The {other} memory store could not be read, so it was not moved to {backend}: {detail}",
                           f"无法读取 {other} 记忆库，未切换到 {backend}：{detail}")
        return make_store(other, source_path), MigrationReport(0, 0, other, backend, problem, resumed)
    if target is not None and target_has_items:
        try:
            leftover = set(source.all_items()) <= set(target.all_items()) | set(target._load_trash())
        except Exception:  # noqa: BLE001
            leftover = False
        source.close()
        if source_items == 0:
            return target, None
        if leftover:  # an earlier switch copied it all but never renamed it (killed before that step)
            marker = mf.new_marker(other, backend)
            mf.retire(folder, marker)
            log.warning("%s was a leftover of an earlier switch to %s; renamed *.migrated-%s",
                        source_path.name, backend, marker["stamp"])
            return target, MigrationReport(0, 0, other, backend, resumed=True)
        problem = _problem(other, backend, backend,
                           f"Both {target_path.name} and {source_path.name} hold memories; {target_path.name} is "
                           f"in use and {source_path.name} ({source_items} memories) was left as it is",
                           f"{target_path.name} 和 {source_path.name} 都有记忆；正在使用 {target_path.name}，"
                           f"{source_path.name}（{source_items} 条）保持原样")
        return target, MigrationReport(0, 0, other, backend, problem, resumed)
    if source_items == 0 and source_trash == 0:
        source.close()
        return (target or make_store(backend, target_path)), None
    return _switch(folder, source, target, other, backend, progress, resumed)


def _switch(folder: Path, source: BaseMemoryManager, target: BaseMemoryManager | None, other: str, backend: str,
            progress: Progress, resumed: bool) -> tuple[BaseMemoryManager, MigrationReport | None]:
    marker = mf.new_marker(other, backend)
    existing_trash: dict[str, Any] = {}
    if target is not None:  # an empty target's trash (a leftover of an old interrupted switch) is kept
        try:
            existing_trash = dict(target._load_trash())
        except Exception:  # noqa: BLE001
            existing_trash = {}
        target.close()
    try:
        mf.write_marker(folder, marker)
        staging = mf.fresh_staging(folder)
        progress("copy")
        staged = make_store(backend, staging / store_files()[backend])
        try:
            with source._write_lock():  # a consistent snapshot: nobody writes the old store meanwhile
                items = source.all_items()
                trash = {**existing_trash, **source._load_trash()}  # an old target's trash is kept too
                _copy(items, trash, staged, progress)
        finally:
            staged.close()
        file_backend_named(backend).settle_staged(staging / store_files()[backend])
        progress("verify")
        check = make_store(backend, staging / store_files()[backend])
        try:
            _verify(items, trash, check)
        finally:
            check.close()
    except Exception as exc:  # noqa: BLE001 - the old store stays authoritative and is opened
        source.close()
        mf.clear(folder)
        log.warning("migration %s -> %s failed, nothing was moved: %s", other, backend, exc)
        detail = describe_os_error(exc) if isinstance(exc, OSError) else str(exc)
        problem = _problem(other, backend, other,
                           f"Switching the memory store from {other} to {backend} failed; still using {other} "
                           f"(nothing was moved): {detail}",
                           f"记忆库从 {other} 切换到 {backend} 失败，仍在使用 {other}（没有移动任何内容）：{detail}")
        return make_store(other, store_path(folder, other)), MigrationReport(0, 0, other, backend, problem, resumed)
    source.close()
    marker["staged"] = mf.staged_files(folder, backend)
    problem = _finish(folder, marker, progress)
    if problem is not None:
        return make_store(problem.opened, store_path(folder, problem.opened)), MigrationReport(
            0, 0, other, backend, problem, resumed)
    store = make_store(backend, store_path(folder, backend))
    store._publish(MemoryChange(kinds.RELOAD, (), "user", "migrate"))  # views re-read once
    return store, MigrationReport(len(items), len(trash), other, backend, resumed=resumed)


def settle_sqlite(path: Path) -> None:
    """A staged SQLite store is moved as one file: fold any write-ahead log into it first."""
    if not path.with_name(path.name + "-wal").exists():
        return
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()


def _finish(folder: Path, marker: dict[str, Any], progress: Progress) -> MigrationProblem | None:
    """Install and retire (from wherever an earlier run stopped). ``None`` when done."""
    source, target = marker["from"], marker["to"]
    if marker["step"] == "copy":
        marker["step"] = "install"
        mf.write_marker(folder, marker)
    try:
        if marker["step"] == "install":
            progress("install")
            mf.install(folder, marker)
            progress("installed")
            marker["step"] = "retire"
            mf.write_marker(folder, marker)
        progress("retire")
        mf.retire(folder, marker)
    except OSError as exc:
        if not mf.installed(folder, marker):  # before the commit point: undo, the old store rules
            mf.clear(folder)
            return _problem(source, target, source,
                            f"The new {target} store could not be put in place ({describe_os_error(exc)}); "
                            f"still using {source}",
                            f"新的 {target} 记忆库无法就位（{describe_os_error(exc)}），仍在使用 {source}")
        return _problem(source, target, target,
                        f"Memories were moved to {target}, but the old {source} files could not be renamed "
                        f"({describe_os_error(exc)}); this is finished at the next start",
                        f"记忆已迁移到 {target}，但旧的 {source} 文件无法改名（{describe_os_error(exc)}），下次启动时完成")
    mf.clear(folder)
    progress("done")
    return None


def _resume(folder: Path, marker: dict[str, Any], progress: Progress) -> MigrationProblem | None:
    """An earlier switch was interrupted: before its new store was verified it is thrown away (the
    old store is authoritative and a switch starts over if still wanted); after, it is finished."""
    if marker.get("step") not in ("install", "retire") or marker.get("from") not in store_files():
        mf.clear(folder)
        log.warning("an interrupted memory store switch was rolled back; the old store is kept")
        return None
    if marker["step"] == "install" and not mf.installed(folder, marker) and not (
            folder / mf.STAGING / store_files()[marker["to"]]).exists():
        mf.clear(folder)  # nothing verified is left to install
        return None
    log.warning("finishing an interrupted memory store switch %s -> %s", marker["from"], marker["to"])
    return _finish(folder, marker, progress)
