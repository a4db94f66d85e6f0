"""Another data folder chosen in the settings: when it holds no memory store and the current one
does, the current folder's files (memories with their history and trash, the turn journal, chats,
the don't-remember list, the review inbox, the recall index) are copied into it, the way a backend
switch migrates the memories; the current folder is left as it is. A folder that holds a store
already is used as it is (``carry_data``)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

from ..files import private_dir
from .backends import file_backends
from .migrate import _migration_lock
from .migration_files import store_path

#: The server store's local copy (``postgres/migrate.CACHE_FILE``): a folder of a device on the server.
SERVER_COPY = "memory.pgcache.db"


def store_files(folder: Path) -> list[Path]:
    """The memory stores in ``folder`` (a file backend's, or the server's local copy)."""
    return [path for path in [*(store_path(folder, b.name) for b in file_backends()), folder / SERVER_COPY]
            if path.exists()]


def carry_data(old: str | os.PathLike[str], new: str | os.PathLike[str], *,
               leave: Callable[[Path], bool] = lambda path: False) -> list[Path]:
    """Copy ``old``'s files into ``new`` when ``new`` holds no memory store and ``old`` does (blocking;
    the stores must be closed; one process at a time, under the
    folder's switch lock). A file ``new`` has already is never replaced; locks are not copied,
    nor a file ``leave`` says is no data (the config folder's, when it is the data folder too);
    each file is copied whole (a temporary name, then renamed) and the stores last, so an interrupted
    copy is made again next time. On a failure what was copied is removed and the error raised.
    Returns the files made in ``new`` (none: nothing to carry)."""
    old, new = Path(old).expanduser().absolute(), Path(new).expanduser().absolute()
    if old == new or not old.is_dir() or store_files(new) or not store_files(old):
        return []
    private_dir(new)
    with _migration_lock(new):  # (the app and ``sonetto mcp`` follow the same settings: one copies)
        return [] if store_files(new) else _copy(old, new, leave)


def _copy(old: Path, new: Path, leave: Callable[[Path], bool]) -> list[Path]:
    stores = set(store_files(old))
    sources = [path for path in old.rglob("*") if path.is_file() and not path.name.endswith(".lock")
               and not path.is_relative_to(new) and not leave(path)]  # (``new`` inside ``old``: never into itself)
    sources.sort(key=lambda path: (path in stores, str(path)))
    made: list[Path] = []
    part: Path | None = None  # the file being copied
    try:
        for source in sources:
            target = new / source.relative_to(old)
            if target.exists():
                continue
            if target.parent != new:
                private_dir(target.parent)
            part = target.with_name(f".{target.name}.copying")
            shutil.copy2(source, part)  # (the mode too: owner-only files stay so)
            os.replace(part, target)
            part = None
            made.append(target)
    except BaseException:
        for path in [*([part] if part is not None else []), *reversed(made)]:
            try:
                path.unlink()
            except OSError:
                pass
        raise
    return made
