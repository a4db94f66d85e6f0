"""Moving a data dir's memories onto a PostgreSQL server, and back, with the lossless migration.

To the server (``open_postgres_store``): when the server's store is empty and this data dir holds
a local store with memories (SQLite first, else YAML), that store is copied in (``migrate_store``:
ids, histories, hits, times and the trash, verified) and its files are renamed ``*.migrated-<time>``,
as a switch between YAML and SQLite does. A server that already holds memories is never mixed
with a device's local ones: the second device simply joins.

Back (``copy_back``): a device that leaves the server copies the server's memories into its local
store when that one is missing or empty; the server keeps its copy (other devices still use it).
"""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

from ...files import private_dir
from ..backends import file_backends
from ..base import BaseMemoryManager
from ..migrate import MigrationReport, make_store, migrate_store, store_path
from .location import PgLocation
from .text import clean_item

log = logging.getLogger(__name__)


def _is_empty(mm: BaseMemoryManager) -> bool:
    return mm.count() == 0 and not mm.list_trash()


def _companions(backend: str, path: Path) -> list[Path]:
    """The files that make up one local store (its main file first)."""
    try:  # the crash-safe migration's list, where it exists
        from ..migration_files import companions
    except ImportError:
        from ..migrate import _companions as companions
    return companions(backend, path)

CACHE_FILE = "memory.pgcache.db"


def open_postgres_store(data_dir: str | Path, location: PgLocation, *, device: str = "",
                        **options: Any) -> tuple[BaseMemoryManager, MigrationReport | None]:
    """The server's store (its local copy in ``data_dir``), with this data dir's local memories
    migrated in first when the server's store is empty. ``options`` go to the store."""
    from .store import PostgresMemoryManager

    data_dir = private_dir(data_dir)  # the local copy and the journal hold memories and chats
    store = PostgresMemoryManager(location, device=device or None, cache_path=data_dir / CACHE_FILE, **options)
    if not store.online:
        return store, None
    for backend in reversed([b.name for b in file_backends()]):  # the newer kinds first (SQLite before YAML)
        path = store_path(data_dir, backend)
        if not path.exists():
            continue
        try:
            with store.exclusive():  # two devices migrating into one empty server: one wins
                if not _is_empty(store):
                    return store, None
                source = make_store(backend, path)
                try:
                    if _is_empty(source):
                        continue
                    report = migrate_store(source, store, at_once=True, clean=clean_item)
                finally:
                    source.close()
        except Exception as exc:  # noqa: BLE001 - keep both stores as they are; say so in the log
            log.warning("migration %s -> PostgreSQL failed, nothing was moved: %s", backend, exc)
            return store, None
        stamp = time.strftime("%Y%m%d-%H%M%S")
        for companion in _companions(backend, path):
            if companion.exists():
                companion.rename(companion.with_name(f"{companion.name}.migrated-{stamp}"))
        return store, report
    return store, None


def copy_back(server: BaseMemoryManager, data_dir: str | Path, backend: str) -> MigrationReport | None:
    """Copy ``server``'s memories into ``data_dir``'s ``backend`` store when that one is missing or
    empty (None: nothing copied — it already had memories, or the server has none)."""
    path = store_path(data_dir, backend)
    local = make_store(backend, path)
    try:
        if not _is_empty(local) or _is_empty(server):
            return None
        return migrate_store(server, local)
    finally:
        local.close()
