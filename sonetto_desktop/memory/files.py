"""Files the app owns: private modes, crash-safe replacement, leftovers of killed writers.

Every file that holds the user's memories or chats (stores, trash, backups, exports, the turn
journal, ``sessions.db``) is readable by its owner only on POSIX (0600, folders 0700), including
files created by older versions (tightened when they are opened). ``atomic_write`` leaves the old or
the new file whole, never a mix, and never leaves its temp file behind when it fails.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import logging
import os
import re
import sys
import threading
import time
from pathlib import Path
from typing import Any, BinaryIO, Callable, Iterator

log = logging.getLogger(__name__)

FILE_MODE = 0o600
DIR_MODE = 0o700
_POSIX = os.name == "posix"


def private_file(path: str | os.PathLike[str]) -> None:
    """Make an existing file owner-only (0600) on POSIX; quietly nothing when it is missing or not
    ours to change (a read-only mount, another user's file)."""
    if not _POSIX:
        return
    try:
        st = os.stat(path)
        if st.st_mode & 0o077 and st.st_uid == os.getuid():
            os.chmod(path, FILE_MODE)
    except OSError:
        pass


def private_opener(path: str, flags: int) -> int:
    """``open(..., opener=private_opener)``: a file created by ``open`` is owner-only (0600)."""
    return os.open(path, flags, FILE_MODE)


def private_log_file(folder: Path, name: str) -> Path:
    """``folder/name`` as a fresh owner-only (0600) regular file to write a report to, never through a
    link: whatever is at that name (a symlink out of the folder, a folder) is replaced, not followed."""
    path = private_dir(folder) / name
    atomic_write(path, b"")  # a new file renamed over the name: a link there is replaced, its target untouched
    return path


def private_sqlite_file(path: str | os.PathLike[str]) -> None:
    """Before SQLite opens ``path``: create it owner-only if missing (SQLite gives its ``-wal`` and
    ``-shm`` files the database file's mode), and tighten an existing one and its companions."""
    path = Path(path)
    if _POSIX and not path.exists():
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))
        except OSError:
            pass  # an empty file is a new database; if we cannot make one, SQLite reports why
    private_files(path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm"))


def private_dir(path: str | os.PathLike[str]) -> Path:
    """Create the folder if needed — every folder it creates on the way owner-only (0700), whatever
    the umask — and make it owner-only on POSIX (an existing one of ours is tightened). Returns it.
    Raises ``OSError`` when it cannot be created (a file in the way, no permission)."""
    folder = Path(path)
    missing = []
    probe = folder
    while not probe.exists() and probe != probe.parent:
        missing.append(probe)
        probe = probe.parent
    for component in reversed(missing):
        try:
            os.mkdir(component, DIR_MODE)
        except FileExistsError:
            pass  # made meanwhile (another thread or process)
    if not folder.is_dir():
        raise NotADirectoryError(f"{folder} is not a folder")
    if _POSIX:
        try:
            st = folder.stat()
            if st.st_mode & 0o077 and st.st_uid == os.getuid():
                os.chmod(folder, DIR_MODE)
        except OSError:
            pass
    return folder


def private_files(*paths: str | os.PathLike[str]) -> None:
    for path in paths:
        private_file(path)


def fsync_dir(path: Path) -> None:
    if not _POSIX:
        return
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def temp_name(path: Path) -> Path:
    """The temp file a writer of ``path`` uses (its process id is in the name: see ``remove_stale_temps``)."""
    return path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")


def write_private(path: Path, payload: bytes) -> None:
    """Write ``payload`` to a new file (owner-only), flushed to disk."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0), FILE_MODE)
    with open(fd, "wb") as fh:
        fh.write(payload)
        fh.flush()
        os.fsync(fh.fileno())


@contextlib.contextmanager
def atomic_file(path: str | os.PathLike[str], *, backup: Path | None = None) -> Iterator[BinaryIO]:
    """The app's one crash-safe file replacement: yields a new owner-only file to write ``path``'s
    contents to; when the block ends, it is flushed to disk and renamed over ``path``, so a crash
    leaves the old or the new file, whole (with ``backup`` the previous version is kept there). An
    error in the block or on the way (disk full) keeps the old file, removes the temp file, and
    propagates (``OSError``)."""
    path = Path(path)
    tmp = temp_name(path)
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0), FILE_MODE)
        with open(fd, "wb") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        if backup is not None and path.exists():
            keep_backup(path, backup, path.read_bytes)
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        if isinstance(exc, OSError) and exc.filename == str(tmp):  # the file asked for, not its temp file
            exc.filename, exc.filename2 = str(path), None
        raise
    fsync_dir(path.parent)


def keep_backup(path: Path, backup: Path, data: Callable[[], bytes], *, follow_symlinks: bool = True) -> None:
    """Make ``backup`` the file at ``path`` as it is now: a hard link (nothing copied) where the system
    allows, else a copy of ``data()``; owner-only, and renamed into place whole."""
    staged = backup.with_name(backup.name + ".new")
    try:
        staged.unlink(missing_ok=True)
        os.link(path, staged, follow_symlinks=follow_symlinks)
    except OSError:
        write_private(staged, data())
    private_file(staged)
    os.replace(staged, backup)


def atomic_write(path: str | os.PathLike[str], payload: bytes, *, backup: Path | None = None) -> None:
    """Write ``payload`` to ``path`` through :func:`atomic_file` (old or new file, whole)."""
    with atomic_file(path, backup=backup) as fh:
        fh.write(payload)


_RENAME_EXCHANGE = 2  # (linux/fs.h)
_AT_FDCWD = -100
_renameat2: Any = None


def exchange(a: Path, b: Path) -> bool:
    """Swap the files at ``a`` and ``b`` in one step (Linux ``renameat2(RENAME_EXCHANGE)``): unlike a
    rename over ``b``, whatever was at ``b`` — even a file renamed there a moment ago — ends up at
    ``a``, not lost. False (nothing done) where the system or the file system cannot, or ``b`` is gone."""
    global _renameat2
    if not sys.platform.startswith("linux"):
        return False
    if _renameat2 is None:
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            fn = libc.renameat2
            fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
            fn.restype = ctypes.c_int
            _renameat2 = fn
        except (OSError, AttributeError):
            _renameat2 = False
    if not _renameat2:
        return False
    if _renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.ENOENT, errno.EXDEV, errno.ENOTSUP, errno.EPERM):
        return False  # (not supported here, or nothing at ``b``: the caller renames)
    raise OSError(code, os.strerror(code), str(b))


def pid_alive(pid: int) -> bool:
    """Whether a process with this id runs (``True`` when we cannot tell)."""
    if pid <= 0:
        return False
    if pid == os.getpid():
        return True
    if not _POSIX:
        return True  # no cheap check: treat as alive (age decides instead)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: it exists, owned by someone else
        return True
    return True


#: A temp file whose writer may still be alive is removed only after this long (one write takes
#: seconds; the id may also have been reused by an unrelated process).
STALE_TEMP_SECONDS = 24 * 3600

_TEMP = re.compile(r"^\.(?P<name>.+)\.(?P<pid>\d+)\.(?P<tid>\d+)\.tmp$")


def remove_stale_temps(folder: Path, names: tuple[str, ...]) -> list[Path]:
    """Delete the temp files ``atomic_write`` left for ``names`` in ``folder`` when their writer
    died (killed mid-write). A fresh temp file of a live process is never touched; where liveness
    cannot be checked only files older than a day go. Returns what was removed."""
    removed: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        match = _TEMP.match(entry.name)
        if not match or match.group("name") not in names:
            continue
        pid = int(match.group("pid"))
        if pid == os.getpid():
            continue  # one of our own threads may be writing it right now
        if pid_alive(pid):  # (or its id was reused): only a day-old file is surely abandoned
            try:
                if time.time() - entry.stat().st_mtime < STALE_TEMP_SECONDS:
                    continue
            except OSError:
                continue
        try:
            os.unlink(entry.path)
            removed.append(Path(entry.path))
        except OSError:
            continue
    if removed:
        log.info("removed %d temp file(s) of killed writers in %s", len(removed), folder)
    return removed


def move_aside(path: str | os.PathLike[str], tag: str) -> Path:
    """Rename a damaged SQLite file (with its -wal / -shm) to an unused ``<name>.<tag>-<time>[-n]``,
    kept for inspection, so a new one can be made there; returns where it went."""
    path = Path(path)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    aside = path.with_name(f"{path.name}.{tag}-{stamp}")
    n = 1
    while aside.exists():
        aside = path.with_name(f"{path.name}.{tag}-{stamp}-{n}")
        n += 1
    for suffix in ("", "-wal", "-shm"):
        source = Path(f"{path}{suffix}")
        if source.exists():
            os.replace(source, Path(f"{aside}{suffix}"))
    return aside
