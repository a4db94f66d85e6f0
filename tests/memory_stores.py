"""Store factories shared by the memory tests: one contract, every backend.

``postgres`` stores live in a schema derived from the test folder on the test server (see
``pg_fixtures``); a fixture that may open one asks for ``use_backend(request, kind)`` first so the
server is running.
"""

from __future__ import annotations

import os
from pathlib import Path

from sonetto_desktop.memory import BaseMemoryManager, YamlMemoryManager
from sonetto_desktop.memory.stores import backends
from sonetto_desktop.memory.stores import migration_files

#: Every registered backend (memory/stores/backends.py): a new one runs through the contract suite.
BACKENDS = tuple(b.name for b in backends.all_backends())
#: The backends that live in a file of the data dir (no server).
LOCAL_BACKENDS = tuple(b.name for b in backends.file_backends())


def store_path(kind: str, folder: Path) -> Path:
    return migration_files.store_path(folder, kind)


def open_store(kind: str, folder: Path) -> BaseMemoryManager:
    if kind == "postgres":
        from pg_fixtures import URL_ENV, schema_for
        from sonetto_desktop.memory.stores.postgres.store import PostgresMemoryManager

        store = PostgresMemoryManager(os.environ[URL_ENV], schema=schema_for(folder), device=f"dev-{os.getpid()}")
        # Its pool connects in the background (the app does not wait for the server): given before it has,
        # the test runs while psycopg_pool's worker draws from the global ``random`` (the connection's
        # expiry jitter), which Hypothesis takes for a strategy drawing from it (test_undo_group.py).
        store.connection.pool.wait(timeout=30.0)
        return store
    return backends.file_backend_named(kind).open(store_path(kind, folder))


def use_backend(request, kind: str) -> str:
    """Start what ``kind`` needs (the PostgreSQL test server) and drop its schema after the test."""
    if kind == "postgres":
        request.getfixturevalue("pg_schema")
    return kind


def backend_store_fixture(name: str = "mm"):
    """A fixture ``name`` giving a fresh store of each backend in ``tmp_path`` (closed afterwards).

    Use as ``mm = backend_store_fixture()`` in a test module."""
    import pytest

    @pytest.fixture(params=BACKENDS, name=name)
    def store(request, tmp_path):
        opened = open_store(use_backend(request, request.param), tmp_path)
        yield opened
        opened.close()

    return store


def local_bank_fixture(bank: dict, name: str = "store"):
    """A fixture ``name`` giving a YAML and an SQLite store in ``tmp_path`` holding copies of ``bank``
    (``{id: MemoryItem}``; closed afterwards)."""
    import pytest

    @pytest.fixture(params=LOCAL_BACKENDS, name=name)
    def store(request, tmp_path):
        opened = open_store(request.param, tmp_path)
        opened.import_items({mid: item.copy() for mid, item in bank.items()})
        yield opened
        opened.close()

    return store


def yaml_store_fixture(name: str = "mm"):
    """A fixture ``name`` giving a fresh YAML store ``tmp_path/memory.yaml`` (closed afterwards)."""
    import pytest

    @pytest.fixture(name=name)
    def store(tmp_path):
        opened = YamlMemoryManager(tmp_path / "memory.yaml")
        yield opened
        opened.close()

    return store


def break_yaml_store(path: Path, text: str) -> None:
    """Write ``text`` (YAML that does not parse) over a YAML store's file as another program would,
    dated a second back: an open store takes in an edit of memory.yaml once the file has been still
    for a moment (an editor may still be writing it), so a read right after a fresh write keeps the
    state it holds."""
    path.write_text(text, encoding="utf-8")
    past = os.stat(path).st_mtime_ns - 1_000_000_000
    os.utime(path, ns=(past, past))
