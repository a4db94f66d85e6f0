"""The files of a backend switch: the marker that makes it resumable, the staging folder the new
store is built in, and the two renames that finish it.

A migration of a data dir goes through these steps, each recorded in ``migration.json`` (the
marker) before it starts, so a crash at any point is finished or undone at the next open:

``copy``     the new store is built and verified in ``.migrating/``. The old store is authoritative;
             a crash here throws the staging folder away and the migration starts over.
``install``  the verified store moves into the data dir: old files of the target backend that would
             be mixed with it are set aside (``*.replaced-<stamp>``, kept), then the trash file, then
             the main file — one rename, the commit point.
``retire``   the old store's files are renamed ``*.migrated-<stamp>`` (kept, never deleted).

The marker is removed when all three are done.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

from ..files import atomic_write
from .backends import file_backend_named, store_files

MARKER = "migration.json"
STAGING = ".migrating"
def store_path(data_dir: str | Path, backend: str) -> Path:
    """The main file of ``backend``'s store in ``data_dir`` (``ValueError`` naming the file backends)."""
    return Path(data_dir) / str(file_backend_named(backend).file)


def companions(backend: str, path: Path) -> list[Path]:
    """Every file that makes up one store (the main file first)."""
    return file_backend_named(backend).files(path)


def new_marker(source: str, target: str) -> dict[str, Any]:
    return {"from": source, "to": target, "step": "copy", "stamp": time.strftime("%Y%m%d-%H%M%S"),
            "staged": []}


def read_marker(folder: Path) -> dict[str, Any] | None:
    """The marker of an unfinished migration (``None``: none). A damaged marker reads as an
    unfinished copy of unknown direction: ``{"step": "copy"}``."""
    path = folder / MARKER
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return {"step": "copy"}
    if not isinstance(data, dict) or data.get("from") not in store_files() or data.get("to") not in store_files():
        return {"step": "copy"}
    return data


def write_marker(folder: Path, marker: dict[str, Any]) -> None:
    atomic_write(folder / MARKER, (json.dumps(marker, ensure_ascii=False, indent=1) + "\n").encode("utf-8"))


def clear(folder: Path) -> None:
    """Forget the migration: no marker, no staging folder."""
    (folder / MARKER).unlink(missing_ok=True)
    shutil.rmtree(folder / STAGING, ignore_errors=True)


def fresh_staging(folder: Path) -> Path:
    staging = folder / STAGING
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(mode=0o700)
    return staging


def staged_files(folder: Path, target: str) -> list[str]:
    """What of the staged store gets installed: its trash file (YAML) and its main file, last.
    (The staged YAML log holds nothing the compacted file lacks; it is not installed.)"""
    backend = file_backend_named(target)
    return [n for n in backend.installed_names() if (folder / STAGING / n).exists()] + [str(backend.file)]


def install(folder: Path, marker: dict[str, Any]) -> None:
    """Move the staged store in (idempotent: a resumed install does what is left)."""
    target, stamp = marker["to"], marker["stamp"]
    staging = folder / STAGING
    staged = marker.get("staged") or [store_files()[target]]
    for path in companions(target, store_path(folder, target)):
        if path.name in staged and not (staging / path.name).exists():
            continue  # already installed by the interrupted run
        if path.exists():
            os.replace(path, path.with_name(f"{path.name}.replaced-{stamp}"))
    for name in staged:
        if (staging / name).exists():
            os.replace(staging / name, folder / name)


def installed(folder: Path, marker: dict[str, Any]) -> bool:
    """Whether the commit point (the main file's rename) was reached."""
    return not (folder / STAGING / store_files()[marker["to"]]).exists() and store_path(folder, marker["to"]).exists()


def retire(folder: Path, marker: dict[str, Any]) -> None:
    """Rename the old store's files out of the way (idempotent)."""
    source, stamp = marker["from"], marker["stamp"]
    for path in companions(source, store_path(folder, source)):
        if path.exists():
            os.replace(path, path.with_name(f"{path.name}.migrated-{stamp}"))
