"""Store backends as a registry (memory/stores/backends.py): a backend registered from a test file is
opened by name and by its file's suffix, takes part in a switch both ways, is named in the errors and
by its label; the settings accept exactly the registered names."""

from __future__ import annotations

import pytest

from sonetto_desktop.config.settings import STORE_BACKENDS
from sonetto_desktop.memory import MemoryItem, SqliteMemoryManager, YamlMemoryManager
from sonetto_desktop.memory.stores import backends
from sonetto_desktop.memory.stores.migrate import open_store, open_store_file, settle_sqlite
from sonetto_desktop.memory.stores.migration_files import companions, store_path


class JournalDb(SqliteMemoryManager):
    """A 'new' backend for the test: SQLite under another file name (its own class, its own file)."""


JOURNAL = backends.StoreBackend("journaldb", "Journal DB", JournalDb, "memory.journal", ("{name}", "{name}-wal", "{name}-shm"),
                                settle=settle_sqlite, suffixes=(".journal",))
BANK = {f"m{i}": MemoryItem(description=f"用户的第 {i} 条记忆", theme="身份") for i in range(3)}


@pytest.fixture
def journal():
    backends.register(JOURNAL)
    yield JOURNAL
    backends.unregister("journaldb")


def test_the_settings_accept_exactly_the_registered_backends():
    assert STORE_BACKENDS == tuple(b.name for b in backends.all_backends())
    assert [b.name for b in backends.file_backends()] == ["yaml", "sqlite"]
    assert backends.backend_named("postgres").on_server and backends.label_of("sqlite") == "SQLite"


def test_a_registered_backend_is_opened_and_switched_to_and_from(journal, tmp_path):
    old = YamlMemoryManager(tmp_path / "memory.yaml")
    old.import_items({mid: item.copy() for mid, item in BANK.items()})
    old.close()
    store, report = open_store(tmp_path, "journaldb")  # the settings switched to it: the YAML store moves in
    try:
        assert type(store) is JournalDb and store_path(tmp_path, "journaldb") == tmp_path / "memory.journal"
        assert report is not None and report.problem is None and report.items == 3
        assert {mid: i.description for mid, i in store.all_items().items()} == {m: i.description for m, i in BANK.items()}
    finally:
        store.close()
    assert not (tmp_path / "memory.yaml").exists() and list(tmp_path.glob("memory.yaml.migrated-*"))
    back, report = open_store(tmp_path, "yaml")  # and back: the switch finds the new backend's store
    try:
        assert type(back) is YamlMemoryManager and report is not None and report.items == 3
    finally:
        back.close()
    assert list(tmp_path.glob("memory.journal.migrated-*"))
    named = open_store_file(tmp_path / "copy.journal")
    try:
        assert type(named) is JournalDb
    finally:
        named.close()
    assert [p.name for p in companions("journaldb", tmp_path / "memory.journal")] == [
        "memory.journal", "memory.journal-wal", "memory.journal-shm"]


def test_an_unknown_backend_is_refused_naming_the_registered_ones(journal, tmp_path):
    with pytest.raises(ValueError, match="journaldb"):
        store_path(tmp_path, "duckdb")
    with pytest.raises(ValueError, match="registered already"):
        backends.register(JOURNAL)
    with pytest.raises(ValueError, match="another store backend's file"):
        backends.register(backends.StoreBackend("copy", "Copy", JournalDb, "memory.db"))
    with pytest.raises(ValueError, match="built-in"):
        backends.unregister("yaml")
