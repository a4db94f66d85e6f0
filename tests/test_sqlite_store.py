"""SQLite store: corrupt databases, self-check repairs, point writes."""

from __future__ import annotations

import gc
import sqlite3
import threading

import pytest

from sonetto_desktop.memory import SqliteMemoryManager, StoreCorrupt


def test_not_a_database_fails_and_is_never_overwritten(tmp_path):
    path = tmp_path / "memory.db"
    content = b"this is not an sqlite database at all" * 100
    path.write_bytes(content)
    mm = SqliteMemoryManager(path)
    report = mm.self_check()
    assert report.status == "FAIL" and str(path) in report.issues[0]
    with pytest.raises(StoreCorrupt):
        mm.add("x", "y")
    with pytest.raises(StoreCorrupt):
        mm.show()
    mm.close()
    assert path.read_bytes() == content


def test_self_check_repairs_rows(tmp_path):
    path = tmp_path / "memory.db"
    mm = SqliteMemoryManager(path)
    mm.add("placeholder", "x")
    conn = sqlite3.connect(path)
    conn.execute(
        "INSERT INTO memories (id, description, theme, history, latest_update_time, hit)"
        " VALUES ('bad00001', '  空格  ', '身份', 'null', '2026-07-10 21:14:03', -2)"
    )
    conn.commit()
    conn.close()
    report = mm.self_check()
    assert report.status == "OK" and report.item_count == 2
    joined = " ".join(report.repaired)
    assert "stripped" in joined and "impossible hit count" in joined
    item = mm.get("bad00001")
    assert (item.description, item.hit, item.history) == ("空格", 0, [])
    assert item.latest_update_time == "2026-07-10T21:14:03"
    assert mm.self_check().repaired == []
    mm.close()


def test_uses_wal_and_point_writes(tmp_path):
    mm = SqliteMemoryManager(tmp_path / "memory.db")
    ids = [mm.add(f"m{i}", "t") for i in range(50)]
    mode = mm._conn().execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
    statements = []
    mm._conn().set_trace_callback(statements.append)
    mm.update(ids[10], "r", new_description="changed")
    mm._conn().set_trace_callback(None)
    full_scans = [s for s in statements if s.strip().upper().startswith("SELECT") and "WHERE" not in s.upper()]
    assert full_scans == []  # an update never reads the whole table
    assert mm.get(ids[10]).description == "changed"
    mm.close()


def test_close_twice_is_safe(tmp_path):
    mm = SqliteMemoryManager(tmp_path / "memory.db")
    mm.add("a", "b")
    mm.close()
    mm.close()
    with pytest.raises(RuntimeError):
        mm.add("c", "d")


@pytest.mark.parametrize("bad", ["[]", '{"kind": 5}', "not json"])
def test_an_unreadable_change_record_is_one_reload_and_watching_goes_on(tmp_path, bad):
    path = tmp_path / "memory.db"
    writer, watcher = SqliteMemoryManager(path), SqliteMemoryManager(path)
    try:
        with sqlite3.connect(path) as other:  # another program's row in the shared change log
            other.execute("INSERT INTO changes (time, origin, kind, record) VALUES (?, ?, ?, ?)",
                          ("2026-12-02T10:00:00", "another-program", "add", bad))
        memory_id = writer.add("坏记录之后写的", "测试")
        assert [(c.kind, c.ids) for c in watcher.poll_external()] == [("reload", ()), ("add", (memory_id,))]
        again = writer.add("又一条", "测试")
        assert [(c.kind, c.ids) for c in watcher.poll_external()] == [("add", (again,))]
    finally:
        writer.close()
        watcher.close()



def _open_connections() -> int:
    """How many SQLite connections of this process are open (the file descriptors do not say: SQLite
    keeps a closed connection's file open for the next one while another holds a lock on it)."""
    gc.collect()  # (what a collection would close anyway is not counted against the store)
    count = 0
    for obj in gc.get_objects():
        if isinstance(obj, sqlite3.Connection):
            try:
                obj.in_transaction  # noqa: B018 - raises once the connection is closed
            except sqlite3.ProgrammingError:
                continue
            count += 1
    return count


def test_a_threads_connection_closes_when_the_thread_ends(tmp_path):
    """One connection per thread, and threads come and go (the recall index's background build, a
    tidy-up pass, the embeddings sync when its settings change): before, each ended thread's connection
    stayed open with its page cache (up to ~2 MB) until the store closed (issue 37)."""
    mm = SqliteMemoryManager(tmp_path / "memory.db")
    try:
        mm.add("用户喜欢周末去爬山", "爱好")
        before = _open_connections()
        counts = []
        for _ in range(3):  # each a thread of its own that reads and ends
            worker = threading.Thread(target=lambda: counts.append(mm.count()))
            worker.start()
            worker.join()
        assert counts == [1, 1, 1]
        assert _open_connections() == before
        waiting, done = threading.Event(), threading.Event()

        def live() -> None:  # a thread still running keeps its connection, and the store closes it
            counts.append(mm.count())
            waiting.set()
            done.wait(10)

        worker = threading.Thread(target=live)
        worker.start()
        waiting.wait(10)
        assert _open_connections() == before + 1
        mm.close()
        assert _open_connections() == before - 2  # this thread's and the watcher's too
        done.set()
        worker.join()
    finally:
        mm.close()
