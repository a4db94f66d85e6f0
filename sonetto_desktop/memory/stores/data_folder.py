"""Another data folder chosen in the settings: when it holds no memory store and the current one
does, the current folder's files (memories with their history and trash, the turn journal, chats,
the don't-remember list, the review inbox, the recall index) are copied into it, the way a backend
switch migrates the memories; the current folder is left as it is. A folder that holds a store
already is used as it is (``carry_data``).

Only the app's own files go: the stores' (named after their main file's stem: ``memory.yaml``,
``memory.db``, ``memory.trash.yaml``, ``memory.journal/``, ``memory_hygiene.json``…) and the other
data files the caller names. A data folder may be a folder of the person's (Documents, a synced
folder): what else it holds is theirs, not the app's to copy."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import logging
import os
import shutil
import sqlite3
import threading
from collections.abc import Callable, Collection
from pathlib import Path

from ..files import atomic_write, private_dir
from .backends import file_backends
from .migrate import MIGRATION_LOCK, _migration_lock
from .migration_files import store_path

log = logging.getLogger(__name__)

#: In a folder ``carry_data`` is filling: the folder it copies from, until the copy is whole (the
#: settings name the new folder before the copy begins: a start after a copy cut short finishes it).
#: A copy stopped (cancelled or failed) leaves it marked ``stopped`` until the settings name the old
#: folder again (``forget_stopped``): a start before that goes back to the old folder (``carry_stopped``).
#: ``why`` it stopped: ``STOPPED_WHY`` (said at that start: ``stopped_why``).
CARRYING = ".carrying.json"
#: Why a copy stopped: the person's 取消, the app quitting (``cancel.why``), or an error.
CANCELLED, QUIT, FAILED = "cancelled", "quit", "failed"
STOPPED_WHY = (CANCELLED, QUIT, FAILED)
#: The first bytes of an SQLite database (the SQLite store, the server's copy, the chats, the index).
SQLITE_HEADER = b"SQLite format 3\x00"
#: The files an SQLite database keeps beside it while it is open or after a crash.
SQLITE_SIDE_FILES = ("-wal", "-shm", "-journal")

#: The server store's local copy (``postgres/migrate.CACHE_FILE``): a folder of a device on the server.
SERVER_COPY = "memory.pgcache.db"
#: The stem every store's files are named with (``memory.yaml`` and its ``memory.*`` companions).
STORE_STEM = "memory"
#: Pages an SQLite database is copied by at a time (``_copy_file``): about 4 MB between two looks at
#: a cancel and two progress reports.
BACKUP_PAGES = 1024


class CopyCancelled(Exception):
    """The person stopped the copy into the new data folder (``carry_data(cancel=...)``): what it had
    copied there is removed again; the old folder, never written to, is the one used."""


class CancelledElsewhere(CopyCancelled):
    """Another process (the app) copied into the new data folder while this one (``sonetto mcp``,
    following the same settings) waited to, and the person cancelled that copy there: this one does not
    copy either, and keeps the old folder (the app saves the settings back to it)."""

    def __init__(self, old: Path, new: Path) -> None:
        super().__init__(f"the copy of {old} into {new} was cancelled in another Sonetto process (the app) "
                         f"while this one waited for it; {old} stays in use")


@dataclasses.dataclass(frozen=True)
class CarryProgress:
    """How far a copy into a new data folder (``carry_data``) has come: files and bytes done of all.
    ``finished``: the copy is over — whole, or stopped (failed or cancelled: nothing of it left)."""

    source: Path
    target: Path
    files_done: int
    files: int
    bytes_done: int
    total_bytes: int
    finished: bool = False


Progress = Callable[[CarryProgress], None]


def ours(name: str, data_files: Collection[str] = ()) -> bool:
    """Whether a data folder's top-level entry ``name`` is the app's: a store's, or one of ``data_files``."""
    return name in data_files or name == STORE_STEM or name.startswith((STORE_STEM + ".", STORE_STEM + "_"))


def store_files(folder: Path) -> list[Path]:
    """The memory stores in ``folder`` (a file backend's, or the server's local copy)."""
    return [path for path in [*(store_path(folder, b.name) for b in file_backends()), folder / SERVER_COPY]
            if path.exists()]


def carry_data(old: str | os.PathLike[str], new: str | os.PathLike[str], *,
               data_files: Collection[str] = (), progress: Progress | None = None,
               cancel: threading.Event | None = None, follows: bool = False) -> list[Path]:
    """Copy ``old``'s files — its stores' and ``data_files`` (top-level names: ``ours``), nothing else it
    holds — into ``new`` when ``new`` holds no memory store and ``old`` does (blocking;
    the stores must be closed; one process at a time, under the
    folder's switch lock). A file ``new`` has already is never replaced; locks are not copied,
    each file is copied whole (a temporary name, then renamed) and the stores last, so an interrupted
    copy is made again next time (``carrying_from``). On a failure what was copied is removed and the error raised.
    ``progress`` is told how far the copy has come (files and bytes, from this worker); ``cancel``,
    once set, stops it between two files or two steps of a database's copy: what was copied is removed
    (the folders it made too) and :class:`CopyCancelled` raised; ``cancel.why``, when it has one, is
    the reason recorded (``QUIT``: the app quitting; else ``CANCELLED``). A copy another process makes
    into ``new`` is waited for (a ``cancel`` meanwhile stops the wait): found whole, nothing is copied;
    cancelled there by the person, nothing is either (:class:`CancelledElsewhere`); stopped there
    otherwise (that process quit, or its copy failed), this one copies. ``follows``: this process follows
    a choice made in another (``sonetto mcp`` following the settings the app saved, a start finishing a
    copy it found under way): a copy the person cancelled there is not made either when this one came
    after it ended (the app saves the settings back a moment later); only the person's own choice of the
    folder copies over such a mark (an earlier choice's).
    Returns the files made in ``new`` (none: nothing to carry)."""
    old, new = Path(old).expanduser().absolute(), Path(new).expanduser().absolute()
    if old == new or not old.is_dir() or store_files(new) or not store_files(old):
        if old != new and carry_stopped(new) is not None:
            (new / CARRYING).unlink(missing_ok=True)  # (an earlier copy's, stopped: this folder is chosen now)
        return []
    folders = [str(folder) for folder in _missing_folders(new, Path(new.anchor))]  # the ones this copy makes
    private_dir(new)
    def waiting() -> None:
        if cancel is not None and cancel.is_set():
            raise CopyCancelled(str(new))

    # (the app and ``sonetto mcp`` follow the same settings: one copies, the other waits for its end)
    with _migration_lock(new, waiting) as waited:
        if store_files(new):
            return []
        found = _marker(new) if waited or follows else None
        if found is not None and found.get("stopped") and found.get("why") == CANCELLED:
            log.warning("not copying %s into %s: the copy another Sonetto process made there was cancelled",
                        old, new)
            raise CancelledElsewhere(old, new)
        atomic_write(new / CARRYING, json.dumps({"from": str(old)}, ensure_ascii=False).encode("utf-8"))
        try:
            made = _copy(old, new, data_files, progress, cancel)
        except BaseException as exc:
            # (nothing copied stays: the old folder is used; the settings still name this one until
            # they are saved again, and a start before that goes back to the old folder: ``carry_stopped``)
            why = (getattr(cancel, "why", CANCELLED) if isinstance(exc, CopyCancelled) else FAILED)
            try:
                atomic_write(new / CARRYING, json.dumps({"from": str(old), "stopped": True, "why": why,
                                                         "made": folders}, ensure_ascii=False).encode("utf-8"))
            except OSError:  # (a full disk: not copied again at the next start at least)
                (new / CARRYING).unlink(missing_ok=True)
            raise
        (new / CARRYING).unlink()
        return made


def _marker(folder: str | os.PathLike[str]) -> dict | None:
    marker = Path(folder).expanduser().absolute() / CARRYING
    try:
        found = json.loads(marker.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        log.warning("cannot read %s; a copy into that folder cut short is not finished", marker, exc_info=True)
        return None
    source = found.get("from") if isinstance(found, dict) else None
    return found if isinstance(source, str) and source else None


def carrying_from(folder: str | os.PathLike[str]) -> Path | None:
    """The folder a copy into ``folder`` cut short (the app killed) came from, to copy it again
    (``carry_data``): None when none was, or it is whole, or it was stopped (blocking)."""
    found = _marker(folder)
    return Path(found["from"]) if found is not None and not found.get("stopped") else None


def carry_pending(folder: str | os.PathLike[str]) -> Path | None:
    """The folder a copy into ``folder`` cut short came from (``carrying_from``) when the copy is still
    to be made: that folder has a memory store and ``folder`` none (blocking)."""
    source = carrying_from(folder)
    if source is None or store_files(Path(folder).expanduser().absolute()) or not store_files(source):
        return None
    return source


def carry_stopped(folder: str | os.PathLike[str]) -> Path | None:
    """The folder a copy into ``folder`` came from when it was stopped (cancelled, failed) and ``folder``
    has no memory store: the memories are there, and the settings that still name ``folder`` (the app
    killed before it saved them again) are to go back to it. None otherwise (blocking)."""
    found = _marker(folder)
    if found is None or not found.get("stopped") or store_files(Path(folder).expanduser().absolute()):
        return None
    return Path(found["from"])


def stopped_why(folder: str | os.PathLike[str]) -> str:
    """Why the copy into ``folder`` that ``carry_stopped`` names stopped (``STOPPED_WHY``; an older
    marker without it: ``FAILED``, "cancelled or failed" as it was said then) (blocking)."""
    found = _marker(folder)
    why = found.get("why") if found is not None else None
    return why if why in STOPPED_WHY else FAILED


class _GaveUp(Exception):
    """``forget_stopped``'s wait for another process's lock was told to stop."""


def forget_stopped(folder: str | os.PathLike[str], stop: Callable[[], bool] | None = None) -> bool:
    """After a stopped copy into ``folder`` (``carry_stopped``), once the settings name the old folder
    again: its marker and the copy's lock file go (the folder may be the person's: nothing of the app's
    stays there), and the folders the copy made, when nothing else was put there (blocking; nothing when
    no copy was stopped there). While another process holds the folder's lock, ``stop()`` is asked
    every ``LOCK_POLL`` s: True gives up (the app quits), and False is returned with nothing removed
    (the marker stays; a later copy into the folder replaces it: ``carry_data``)."""
    folder = Path(folder).expanduser().absolute()
    found = _marker(folder)
    if found is None or not found.get("stopped"):
        return True

    def waiting() -> None:
        if stop is not None and stop():
            raise _GaveUp

    try:
        with _migration_lock(folder, waiting):  # (not while another process copies into it)
            found = _marker(folder)
            if found is None or not found.get("stopped"):
                return True
            (folder / CARRYING).unlink(missing_ok=True)
            if not store_files(folder):  # (else a data folder of its own, whose lock this is)
                with contextlib.suppress(OSError):  # (removed while held: see ``_migration_lock``)
                    (folder / MIGRATION_LOCK).unlink()
    except _GaveUp:
        log.info("another process holds %s; its stopped copy's marker stays for now", folder)
        return False
    made = [Path(one) for one in found.get("made") or () if isinstance(one, str)]
    for one in reversed(made):  # the innermost first; one not empty (something else put there) stays
        with contextlib.suppress(OSError):
            one.rmdir()
    return True


def _sqlite(path: Path) -> bool:
    try:
        with path.open("rb") as file:
            return file.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except OSError:
        return False


def _side_file(path: Path) -> bool:
    """A database's -wal, -shm or -journal file: its database is copied whole with them (``_copy_file``)."""
    return any(path.name.endswith(suffix) and _sqlite(path.with_name(path.name.removesuffix(suffix)))
               for suffix in SQLITE_SIDE_FILES)


def _copy_file(source: Path, target: Path, step: Callable[[int, int], None] | None = None) -> None:
    """``source`` into ``target``, the mode too (owner-only files stay so). An SQLite database is copied
    through SQLite (its backup): the database as it was at one moment, the writes its -wal file
    holds included, even while another process (``sonetto mcp``) writes to it; its files copied
    one by one, a -wal of one moment laid over the database of a later one made a damaged copy.
    It is copied ``BACKUP_PAGES`` at a time, ``step(pages done, pages)`` called after each (what it
    raises stops the copy)."""
    if not _sqlite(source):
        shutil.copy2(source, target)
        return

    def stepped(_status: int, remaining: int, total: int) -> None:
        if step is not None:
            step(total - remaining, total)

    try:
        with contextlib.closing(sqlite3.connect(source, timeout=60)) as src, \
                contextlib.closing(sqlite3.connect(target)) as dst:
            src.backup(dst, pages=BACKUP_PAGES, progress=stepped, sleep=0)
    except sqlite3.OperationalError:  # (busy past the wait, unreadable: the copy fails, the old folder is used)
        raise
    except sqlite3.DatabaseError as exc:  # damaged: copied as it is, as any file (said where it is opened)
        log.warning("%s is damaged (%s); copied as it is", source, exc)
        target.unlink(missing_ok=True)
        shutil.copy2(source, target)
        return
    shutil.copymode(source, target)


def _size(path: Path) -> int:
    """Bytes ``path`` (with a database's -wal beside it) stands for in the progress."""
    total = 0
    for one in (path, path.with_name(path.name + "-wal")):
        with contextlib.suppress(OSError):
            total += one.stat().st_size
    return total


def _copy(old: Path, new: Path, data_files: Collection[str], progress: Progress | None = None,
          cancel: threading.Event | None = None) -> list[Path]:
    stores = set(store_files(old))
    entries = [entry for entry in old.iterdir() if ours(entry.name, data_files)]  # (nothing else is walked)
    found = [path for entry in entries for path in ([entry] if entry.is_file() else entry.rglob("*"))]
    sources = [path for path in found if path.is_file() and not path.name.endswith(".lock")
               and not path.is_relative_to(new)  # (``new`` inside ``old``: never into itself)
               and not _side_file(path) and path.name != CARRYING]
    sources.sort(key=lambda path: (path in stores, str(path)))
    sizes = {source: _size(source) for source in sources}
    total, done = sum(sizes.values()), 0
    made: list[Path] = []
    folders: list[Path] = []  # the folders the copy made in ``new`` (removed again with its files)
    part: Path | None = None  # the file being copied

    def tell(files_done: int, bytes_done: int, *, finished: bool = False) -> None:
        if progress is not None:
            progress(CarryProgress(old, new, files_done, len(sources), min(bytes_done, total), total, finished))

    def look() -> None:
        if cancel is not None and cancel.is_set():
            raise CopyCancelled(str(new))

    try:
        tell(0, 0)
        for number, source in enumerate(sources):
            look()
            target = new / source.relative_to(old)
            if target.exists():
                done += sizes[source]
                continue
            if target.parent != new:
                folders.extend(_missing_folders(target.parent, new))
                private_dir(target.parent)
            part = target.with_name(f".{target.name}.copying")

            def step(pages: int, of: int, before: int = done, size: int = sizes[source], files: int = number) -> None:
                tell(files, before + (size * pages // of if of else 0))
                look()

            _copy_file(source, part, step)
            os.replace(part, target)
            part = None
            made.append(target)
            done += sizes[source]
            tell(number + 1, done)
        look()  # (a cancel while the last file, often the store, was copied: still undone)
        tell(len(sources), total, finished=True)
    except BaseException:
        parts = [] if part is None else [part, *(part.with_name(part.name + suffix) for suffix in SQLITE_SIDE_FILES)]
        for path in [*parts, *reversed(made)]:
            try:
                path.unlink()
            except OSError:
                pass
        for folder in reversed(folders):
            with contextlib.suppress(OSError):  # (not empty: something else was put there meanwhile)
                folder.rmdir()
        with contextlib.suppress(Exception):
            tell(0, 0, finished=True)  # over, nothing of it left (the failure is the caller's to say)
        raise
    return made


def _missing_folders(folder: Path, top: Path) -> list[Path]:
    """The folders from ``top`` (excluded) down to ``folder`` that do not exist yet, the outermost first."""
    missing = []
    while folder != top and not folder.exists():
        missing.append(folder)
        folder = folder.parent
    return missing[::-1]
