"""Copy a whole memory store into another backend (YAML <-> SQLite) without losing anything.

Items keep their ids, histories, hit counts and times; the trash comes along too. The source is
never modified: the old file stays where it was, so a failed or regretted switch loses nothing.
"""

from __future__ import annotations

import copy
import logging
import time
from dataclasses import dataclass
from pathlib import Path

from .base import BaseMemoryManager
from .changes import MemoryChange

log = logging.getLogger(__name__)


class MigrationError(RuntimeError):
    """The destination does not match the source after the copy (or was not empty to begin with)."""


@dataclass(frozen=True)
class MigrationReport:
    items: int
    trash: int


def migrate_store(src_mm: BaseMemoryManager, dst_mm: BaseMemoryManager) -> MigrationReport:
    """Copy every item and trash entry of ``src_mm`` into the empty store ``dst_mm``, then verify.

    Raises :class:`MigrationError` when the destination already holds memories (a merge is not a
    migration) or when the copy does not read back identical; ``ValueError``/``StoreCorrupt`` from
    reading a broken source propagate unchanged. The source is only read.
    """
    items = src_mm.all_items()
    trash = src_mm._load_trash()
    if dst_mm.count() or dst_mm.list_trash():
        raise MigrationError("the destination store is not empty; refusing to mix two stores")
    with dst_mm._transaction() as txn:
        for memory_id, item in items.items():
            txn.put(memory_id, item.copy())
        for memory_id, entry in trash.items():
            txn.trash_put(memory_id, copy.deepcopy(entry))
    _verify(items, trash, dst_mm)
    dst_mm._publish(MemoryChange("reload", (), "user", "migrate"))  # views re-read once
    return MigrationReport(items=len(items), trash=len(trash))


def _verify(items: dict, trash: dict, dst_mm: BaseMemoryManager) -> None:
    copied = dst_mm.all_items()
    if set(copied) != set(items):
        missing = sorted(set(items) - set(copied))
        raise MigrationError(f"{len(copied)} of {len(items)} memories arrived; missing: {missing[:5]}")
    for memory_id, item in items.items():
        if copied[memory_id].to_dict() != item.to_dict():
            raise MigrationError(f"memory {memory_id} differs after the copy")
    copied_trash = dst_mm._load_trash()
    if set(copied_trash) != set(trash):
        raise MigrationError(f"{len(copied_trash)} of {len(trash)} trash entries arrived")


# ── switching the backend of a data dir ────────────────────────────────────────────────────────

STORE_FILES = {"yaml": "memory.yaml", "sqlite": "memory.db"}


def store_path(data_dir: str | Path, backend: str) -> Path:
    if backend not in STORE_FILES:
        raise ValueError(f"store backend must be one of {tuple(STORE_FILES)}, not {backend!r}")
    return Path(data_dir) / STORE_FILES[backend]


def make_store(backend: str, path: str | Path) -> BaseMemoryManager:
    from .sqlite_store import SqliteMemoryManager
    from .yaml_store import YamlMemoryManager

    return YamlMemoryManager(path) if backend == "yaml" else SqliteMemoryManager(path)


def open_store_file(path: str | Path) -> BaseMemoryManager:
    """A store file opened as it is: ``.db`` / ``.sqlite`` / ``.sqlite3`` as SQLite, anything else as
    the seed's YAML (no migration: an explicitly named file is what the caller wants)."""
    path = Path(path)
    backend = "sqlite" if path.suffix.lower() in (".db", ".sqlite", ".sqlite3") else "yaml"
    return make_store(backend, path)


def _companions(backend: str, path: Path) -> list[Path]:
    """The files that make up one store (the main file first)."""
    if backend == "yaml":
        return [path, path.with_name(f"{path.stem}.trash.yaml"), path.with_name(path.name + ".bak")]
    return [path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")]


def _is_empty(mm: BaseMemoryManager) -> bool:
    return mm.count() == 0 and not mm.list_trash()


def open_store(data_dir: str | Path, backend: str) -> tuple[BaseMemoryManager, MigrationReport | None]:
    """Open the ``backend`` store of ``data_dir``, migrating the other backend's store into it first
    when that one holds memories and this one is missing or empty (a switch made in the settings).

    After a verified migration the old store's files are renamed ``*.migrated-<time>`` (kept, never
    deleted) so that switching back later migrates the current memories, not stale ones. Returns the
    open store and the migration report (None when nothing was migrated). A corrupt old store is
    left untouched and the new store opened as it is.
    """
    Path(data_dir).mkdir(parents=True, exist_ok=True)
    target_path = store_path(data_dir, backend)
    other = "sqlite" if backend == "yaml" else "yaml"
    source_path = store_path(data_dir, other)
    existed = target_path.exists()
    target = make_store(backend, target_path)
    if not source_path.exists():
        return target, None
    try:
        if existed and not _is_empty(target):
            return target, None
    except Exception:  # noqa: BLE001 - an unreadable target is reported by its own self_check
        return target, None
    source = make_store(other, source_path)
    try:
        if _is_empty(source):
            return target, None
        report = migrate_store(source, target)
    except Exception as exc:  # noqa: BLE001 - keep both stores as they are, tell the caller via the log
        log.warning("migration %s -> %s failed, nothing was moved: %s", other, backend, exc)
        return target, None
    finally:
        source.close()
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for path in _companions(other, source_path):
        if path.exists():
            path.rename(path.with_name(f"{path.name}.migrated-{stamp}"))
    return target, report
