"""``fields_of_all``: a few columns of every memory, without building every item (issue 37).

The embeddings model's sync and the writer's index keep two and four fields of each memory, yet each
read the whole store as items with their histories: at 100,000 memories ~3 s of Python per read and
~100 MB of transient items, whose survivors left the heap fragmented under what the parts kept (the
sync's start alone added ~110 MB at its peak). A SQLite store now reads those columns only; what a
read gives is unchanged, a damaged row included (it is read whole and repaired, as ``get`` does)."""

from __future__ import annotations

import sqlite3
import time

from sonetto_desktop.memory import MemoryItem, SqliteMemoryManager, YamlMemoryManager
from sonetto_desktop.memory.retrieval.embeddings import EmbeddingsConfig
from sonetto_desktop.memory.retrieval.vector_sync import VectorSync
from sonetto_desktop.memory.writer.index import WriterIndex

NAMES = ("description", "theme", "latest_update_time", "hit", "pinned")


def _items() -> dict[str, MemoryItem]:
    return {f"m{i:03d}": MemoryItem(f"用户第 {i} 次说起周末去爬山", f"主题{i % 3}",
                                    latest_update_time=f"2026-03-{1 + i % 28:02d}T05:06:07", hit=i % 5)
            for i in range(30)}


def _as_get(store, names=NAMES) -> dict[str, tuple]:
    return {mid: tuple(getattr(store.get(mid), name) for name in names) for mid in store.all_items()}


def test_every_store_gives_the_fields_a_read_gives(tmp_path):
    for store in (SqliteMemoryManager(tmp_path / "memory.db"), YamlMemoryManager(tmp_path / "memory.yaml")):
        try:
            store.import_items(_items())
            store.set_field("m004", "pinned", True, actor="user")
            fields = store.fields_of_all(NAMES)
            assert len(fields) == 30 and fields == _as_get(store)
            assert fields["m004"][NAMES.index("pinned")] is True
        finally:
            store.close()


def test_a_damaged_row_is_given_as_a_read_repairs_it(tmp_path):
    store = SqliteMemoryManager(tmp_path / "memory.db")
    try:
        store.import_items(_items())
        conn = sqlite3.connect(tmp_path / "memory.db")  # another program wrote these
        conn.execute("UPDATE memories SET hit = -4 WHERE id = 'm001'")
        conn.execute("UPDATE memories SET theme = '  ' WHERE id = 'm002'")
        conn.execute("UPDATE memories SET description = 42 WHERE id = 'm003'")
        conn.execute("UPDATE memories SET latest_update_time = '' WHERE id = 'm005'")
        conn.commit()
        conn.close()
        fields = store.fields_of_all(NAMES)
        assert fields == _as_get(store)
        assert fields["m001"][NAMES.index("hit")] == 0 and fields["m003"][0] == "42"
        assert fields["m002"][1].strip() and fields["m005"][2]
    finally:
        store.close()


class _CountingStore(SqliteMemoryManager):
    """A real SQLite store that counts its full item reads (what the parts below no longer do)."""

    item_reads = 0

    def all_items(self):
        type(self).item_reads += 1
        return super().all_items()


def test_the_writers_index_reads_columns_not_items(tmp_path):
    store = _CountingStore(tmp_path / "memory.db")
    index = WriterIndex(store)
    try:
        store.import_items(_items())
        _CountingStore.item_reads = 0
        index.warm_up()
        assert index.count() == 30 and index.full_reads == 1
        assert _CountingStore.item_reads == 0, "the writer's index read every item with its history"
        assert index.recent(1) == ["m027"]  # 03-28 is the newest day (i = 27)
    finally:
        index.close()
        store.close()


def test_the_vector_sync_reads_columns_not_items(tmp_path, llm_server):
    store = _CountingStore(tmp_path / "memory.db")
    store.import_items(_items())
    _CountingStore.item_reads = 0
    config = EmbeddingsConfig(llm_server.base_url, "scripted-embed", "sk-test", batch=16)
    sync = VectorSync(store, config).start()
    try:
        assert sync.wait_idle(20)
        assert (sync.status.state, sync.status.done, sync.status.total) == ("idle", 30, 30)
        assert _CountingStore.item_reads == 0, "the sync read every item with its history"
        store.update("m007", "更准确", "用户第 7 次说起周末去爬了梧桐山")
        deadline = time.monotonic() + 10
        while "用户第 7 次说起周末去爬了梧桐山" not in llm_server.embedded_inputs() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert "用户第 7 次说起周末去爬了梧桐山" in llm_server.embedded_inputs()
    finally:
        sync.stop()
        store.close()
