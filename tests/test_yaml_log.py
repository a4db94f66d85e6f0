"""Issue 14, YAML store: a write appends one record to memory.yaml.log (no re-dump), the trash is
never re-read per write, other instances catch up from the log without re-parsing, and memory.yaml
stays readable by the seed's plain ``yaml.safe_load`` after compaction."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
import yaml

from sonetto_desktop.memory import MemoryItem, StoreCorrupt, YamlMemoryManager

ROOT = Path(__file__).resolve().parent.parent


def other_process(path: Path, code: str) -> str:
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(ROOT)!r})
        from sonetto_desktop.memory import YamlMemoryManager
        mm = YamlMemoryManager({str(path)!r})
    """) + textwrap.dedent(code)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.fixture
def store(tmp_path):
    mm = YamlMemoryManager(tmp_path / "memory.yaml", flush_delay=None)  # memory.yaml rewritten only when asked
    mm.import_items({f"m{i:04d}": MemoryItem(f"第{i}条记忆", f"主题{i % 4}") for i in range(300)})
    mm.compact()
    yield mm
    mm.close()


def test_a_write_appends_to_the_log_and_rewrites_nothing(store):
    files = (store.path, store.trash_path, store.backup_path)
    before = [p.stat().st_mtime_ns if p.exists() else None for p in files]
    reads = store.full_reads
    a = store.add("新的记忆", "瞬间")
    store.update(a, "r", new_description="改过的记忆")
    store.hit("m0001")
    store.delete("m0002", "不要了")
    store.restore("m0002")
    store.delete("m0003")
    assert [p.stat().st_mtime_ns if p.exists() else None for p in files] == before  # no re-dump, no trash rewrite
    assert store.full_reads == reads  # and nothing re-read, the trash included
    records = [json.loads(line) for line in store.log_path.read_bytes().splitlines()[1:]]
    assert len([r for r in records if r["seq"] > 1]) == 6  # one record per write (after the carried import)


def test_after_close_the_seed_loader_sees_every_write(store):
    a = store.add("关闭前写的", "瞬间")
    store.delete("m0005", "过时")
    store.close()
    data = yaml.safe_load(store.path.read_text(encoding="utf-8"))
    assert data[a]["description"] == "关闭前写的" and "m0005" not in data and len(data) == 300
    assert set(data[a]) == {"description", "theme", "history", "latest_update_time", "hit"}
    assert "m0005" in yaml.safe_load(store.trash_path.read_text(encoding="utf-8"))


def _closing_while_the_other_swaps(a: YamlMemoryManager, b: YamlMemoryManager, between=None) -> None:
    """Close ``b`` and ``a`` together, deterministically: ``a`` takes its close's snapshot while ``b``
    is preparing its files, and ``b`` swaps them in before ``a`` does (``a``'s swap is given up).
    ``between``: run once ``b`` has snapshotted, before ``a`` closes."""
    b_prepared, a_prepared = threading.Event(), threading.Event()
    real_b, real_a = b.writer._prepare, a.writer._prepare

    def b_prepare(snap):  # b's close: snapshot taken, files being prepared (no lock held)
        prepared = real_b(snap)
        b_prepared.set()
        assert a_prepared.wait(10)
        return prepared

    def a_prepare(snap):  # a's close: snapshot taken; b swaps its files meanwhile (first time only)
        prepared = real_a(snap)
        if not a_prepared.is_set():
            a_prepared.set()
            closing_b.join(10)
        return prepared

    b.writer._prepare = b_prepare
    closing_b = threading.Thread(target=b.close)
    closing_b.start()
    assert b_prepared.wait(10)
    if between is not None:
        between()
    a.writer._prepare = a_prepare
    a.close()
    closing_b.join(10)
    assert not closing_b.is_alive()


def test_two_instances_closing_together_leave_every_write_in_memory_yaml(tmp_path):
    # a's rewrite at close was given up (b had replaced the files since its snapshot) and never tried
    # again (the retry is scheduled, and a closed writer runs none): a's write was only in the log
    a = YamlMemoryManager(tmp_path / "memory.yaml", flush_delay=None)
    b = YamlMemoryManager(tmp_path / "memory.yaml", flush_delay=None)
    by_b = b.add("b 写的", "瞬间")
    by_a = []
    _closing_while_the_other_swaps(a, b, lambda: by_a.append(a.add("a 写的", "瞬间")))
    data = yaml.safe_load(a.path.read_bytes())
    assert {mid: entry["description"] for mid, entry in data.items()} == {by_b: "b 写的", by_a[0]: "a 写的"}
    assert len(a.writer.flush_times) == 2  # given up once, then done


def test_closing_after_another_instance_wrote_ones_writes_rewrites_nothing_more(tmp_path):
    a = YamlMemoryManager(tmp_path / "memory.yaml", flush_delay=None)
    b = YamlMemoryManager(tmp_path / "memory.yaml", flush_delay=None)
    by_a = a.add("a 写的", "瞬间")
    b.count()  # b takes a's write in before its close's snapshot: the files b writes hold it
    _closing_while_the_other_swaps(a, b)
    assert len(a.writer.flush_times) == 1  # given up once; then b's files were found to hold everything
    assert yaml.safe_load(a.path.read_bytes())[by_a]["description"] == "a 写的"


def test_a_close_whose_rewrite_keeps_being_given_up_ends_and_loses_nothing(tmp_path, monkeypatch):
    from sonetto_desktop.memory.stores.yaml import writer

    monkeypatch.setattr(writer, "CLOSE_WAIT", 0.3)
    mm = YamlMemoryManager(tmp_path / "memory.yaml", flush_delay=None)
    mid = mm.add("一直写不进文件", "瞬间")
    mm.writer._swap = lambda snap, prepared: False  # another instance replacing the files, every time
    mm.close()  # returns (bounded), the write in the log
    assert 1 < len(mm.writer.flush_times) <= writer.CLOSE_TRIES
    assert mid not in (yaml.safe_load(mm.path.read_bytes()) or {})
    again = YamlMemoryManager(tmp_path / "memory.yaml", flush_delay=None)
    try:
        assert again.get(mid).description == "一直写不进文件"
    finally:
        again.close()
    assert mid in yaml.safe_load(mm.path.read_bytes())


def test_another_process_sees_every_committed_write_before_any_compaction(store):
    a = store.add("还在日志里的记忆", "瞬间")
    store.hit("m0007")
    out = other_process(store.path, f"""
        import os
        print(mm.get({a!r}).description, mm.get('m0007').hit, mm.count(), flush=True)
        os._exit(0)  # no close: no compaction (and no flush of stdout: hence flush=True)
    """)
    assert out == "还在日志里的记忆 1 301"


def test_foreign_appends_and_compaction_are_taken_in_without_reparsing(store):
    store.all_items()
    reads = store.full_reads
    new_id = other_process(store.path, """
        print(mm.add('另一个进程写的', '瞬间', actor='cli'), flush=True)
        import os; os._exit(0)
    """)
    assert [c.kind for c in store.poll_external()] == ["add"] and store.full_reads == reads
    token = store.version_token()
    other_process(store.path, """
        mm.update('m0010', '另一个进程改的', new_description='改写的第10条', actor='cli')
        mm.close()   # compacts: new memory.yaml, new log carrying the newest records
    """)
    found = store.poll_external()
    assert [(c.kind, c.actor) for c in found] == [("update", "cli")]
    assert store.full_reads == reads, "a compaction by another process is taken in without parsing"
    assert store.get("m0010").description == "改写的第10条" and store.get(new_id).description == "另一个进程写的"
    assert store.version_token() != token
    store.add("之后又写的", "瞬间")  # and writing on top of the other's compaction works
    assert YamlMemoryManager(store.path).count() == 302


def test_a_touch_is_not_a_reload_and_keeps_the_version(store):
    store.all_items()
    reads, token = store.full_reads, store.version_token()
    os.utime(store.path, ns=(1, 1))
    os.utime(store.trash_path if store.trash_path.exists() else store.path, ns=(2, 2))
    assert store.poll_external() == []
    store.add("碰过之后写的", "瞬间")
    assert store.full_reads == reads and store.version_token() != token
    store.compact()
    token = store.version_token()
    store.compact()
    assert store.version_token() == token  # a compaction changes no content: same version


def test_an_edit_by_hand_is_read_and_kept(store):
    store.add("日志里的", "瞬间")
    store.close()
    text = store.path.read_text(encoding="utf-8").replace("第20条记忆", "手改的第20条")
    store.path.write_text(text, encoding="utf-8")
    mm = YamlMemoryManager(store.path)
    try:
        assert mm.get("m0020").description == "手改的第20条"
        assert "日志里的" in [r["description"] for r in mm.show()]
        mm.add("手改之后写的", "瞬间")
        mm.close()
        data = yaml.safe_load(store.path.read_text(encoding="utf-8"))
        assert data["m0020"]["description"] == "手改的第20条" and len(data) == 302
    finally:
        mm.close()


def test_a_torn_last_record_is_ignored_and_cut_off(store):
    store.add("完整写入的", "瞬间")
    with open(store.log_path, "ab") as fh:
        fh.write(b'{"seq": 99, "items": {"zz": {"descr')  # a writer killed mid-append
    mm = YamlMemoryManager(store.path)
    assert mm.count() == 301
    mm.add("之后写的", "瞬间")
    log = store.log_path.read_bytes()
    assert b'{"seq": 99' not in log and log.endswith(b"\n")
    assert YamlMemoryManager(store.path).count() == 302
    mm.close()


def test_a_damaged_committed_record_fails_and_is_never_written_over(store):
    store.add("一", "瞬间")
    store.add("二", "瞬间")
    lines = store.log_path.read_bytes().splitlines(keepends=True)
    lines[1] = b"{this is not json}\n"
    store.log_path.write_bytes(b"".join(lines))
    damaged = store.log_path.read_bytes()
    mm = YamlMemoryManager(store.path)
    report = mm.self_check()
    assert report.status == "FAIL" and "memory.yaml.log" in report.issues[0]
    with pytest.raises(StoreCorrupt):
        mm.add("三", "瞬间")
    mm.close()
    assert store.log_path.read_bytes() == damaged


def test_the_log_starts_again_at_every_rewrite(tmp_path, monkeypatch):
    import sonetto_desktop.memory.stores.yaml.writer as writer

    monkeypatch.setattr(writer, "CARRY_BYTES", 1024)
    mm = YamlMemoryManager(tmp_path / "memory.yaml", flush_delay=None)
    for i in range(60):
        mm.add(f"记忆{i}", "瞬间")
    assert mm.log_path.stat().st_size > 4096  # the writes, in the log only
    mm.compact()  # (the log keeps what the files it replaced lacked, until the next rewrite)
    mm.compact()
    assert mm.log_path.stat().st_size < 1024 + 512  # a header and what is carried for other instances
    assert len(yaml.safe_load(mm.path.read_text(encoding="utf-8"))) == 60
    assert YamlMemoryManager(mm.path).count() == 60
    mm.close()


def test_trash_retention_purges_only_old_entries(tmp_path):
    from datetime import datetime, timedelta

    mm = YamlMemoryManager(tmp_path / "memory.yaml")
    old, recent = mm.add("很久以前删的", "瞬间"), mm.add("最近删的", "瞬间")
    mm.delete(old)
    mm.delete(recent)
    later = datetime.now() + timedelta(days=31)
    assert mm.purge_expired(30, now=later - timedelta(days=2)) == 0
    seen = []
    mm.subscribe(seen.append)
    mm._forget()
    entries = mm._load_trash()
    assert set(entries) == {old, recent}
    with mm._transaction() as txn:  # backdate one deletion (as if it happened 40 days ago)
        entry = dict(txn.trash_get(old))
        entry["deleted_at"] = (datetime.now() - timedelta(days=40)).replace(microsecond=0).isoformat()
        txn.trash_put(old, entry)
    assert mm.purge_expired(30) == 1
    assert [r["id"] for r in mm.list_trash()] == [recent]
    assert [(c.kind, c.ids) for c in seen] == [("purge", (old,))]
    assert mm.purge_expired(0) == 0  # 0: keep for ever
    mm.close()


def test_opening_uses_the_parse_cache_only_for_the_exact_file(tmp_path):
    mm = YamlMemoryManager(tmp_path / "memory.yaml")
    mm.import_items({f"m{i:04d}": MemoryItem(f"第{i}条记忆，" + "细节" * 20, "瞬间") for i in range(600)})
    mm.close()
    assert mm.cache_path.exists()
    again = YamlMemoryManager(mm.path)
    assert again.get("m0005").description.startswith("第5条记忆") and again.count() == 600
    again.close()
    # an editor changes memory.yaml: the cache no longer matches it and is not used
    text = mm.path.read_text(encoding="utf-8").replace("第5条记忆", "编辑器改的第5条", 1)
    mm.path.write_text(text, encoding="utf-8")
    edited = YamlMemoryManager(mm.path)
    assert edited.get("m0005").description.startswith("编辑器改的第5条")
    edited.close()


def test_a_damaged_trash_file_is_never_written_over(tmp_path):
    mm = YamlMemoryManager(tmp_path / "memory.yaml")
    a = mm.add("甲", "瞬间")
    mm.delete(a)
    mm.close()
    mm.trash_path.write_text("[broken", encoding="utf-8")
    again = YamlMemoryManager(mm.path)
    assert [r["description"] for r in again.show()] == []  # memories still read
    with pytest.raises(StoreCorrupt):
        again.add("乙", "瞬间")
    again.close()
    assert mm.trash_path.read_text(encoding="utf-8") == "[broken"
