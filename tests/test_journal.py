"""The durable turn journal: real files, crash leftovers, failed list."""

from __future__ import annotations

import json
import os
import time

from sonetto_desktop.memory.writer.journal import TurnJournal, default_journal_path

MSGS = [{"role": "user", "content": "我喜欢猫"}, {"role": "assistant", "content": "好呀"}]


def test_default_path_is_next_to_the_store(tmp_path):
    assert default_journal_path(tmp_path / "memory.yaml") == tmp_path / "memory.journal"
    assert default_journal_path(tmp_path / "m.db") == tmp_path / "m.journal"


def test_append_is_on_disk_in_order_and_survives_reopen(tmp_path):
    j = TurnJournal(tmp_path / "j")
    a = j.append("t1", "s1", MSGS)
    b = j.append("t2", None, [{"role": "user", "content": "第二轮" * 1000}])
    again = TurnJournal(tmp_path / "j").pending()
    assert [e.turn_id for e in again] == ["t1", "t2"]
    assert again[0].messages == MSGS and again[0].session_id == "s1"
    assert again[1].messages[0]["content"] == "第二轮" * 1000  # journaled whole
    assert [e.key for e in again] == [a.key, b.key]
    files = list((tmp_path / "j" / "pending").iterdir())
    assert len(files) == 2 and all(json.loads(f.read_text("utf-8"))["turn_id"] in {"t1", "t2"} for f in files)


def test_remove_and_attempts_are_persisted(tmp_path):
    j = TurnJournal(tmp_path / "j")
    a = j.append("t1", None, MSGS)
    j.append("t2", None, MSGS)
    j.record_failure(a, "连接失败")
    j.record_failure(a, "超时")
    reread = TurnJournal(tmp_path / "j").pending()
    assert (reread[0].attempts, reread[0].last_error) == (2, "超时")
    j.remove(a)
    assert [e.turn_id for e in j.pending()] == ["t2"]


def test_failed_list_and_requeue(tmp_path):
    j = TurnJournal(tmp_path / "j")
    a = j.append("t1", None, MSGS)
    j.record_failure(a, "坏了")
    j.move_to_failed(a)
    assert j.pending() == []
    failed = TurnJournal(tmp_path / "j").failed()
    assert [(e.turn_id, e.attempts, e.last_error) for e in failed] == [("t1", 1, "坏了")]
    back = j.requeue_failed()
    assert [e.turn_id for e in back] == ["t1"] and j.failed() == []
    assert [(e.turn_id, e.attempts) for e in j.pending()] == [("t1", 0)]


def test_crash_leftovers_are_ignored_and_corrupt_files_set_aside(tmp_path):
    j = TurnJournal(tmp_path / "j")
    j.append("t1", None, MSGS)
    pending = tmp_path / "j" / "pending"
    stale = pending / ".00000000000000000001-abc.json.1234.tmp"
    stale.write_text('{"half', "utf-8")
    os.utime(stale, (time.time() - 3600, time.time() - 3600))  # left by a crash an hour ago
    in_progress = pending / ".00000000000000000003-ghi.json.5678.tmp"  # another instance writing now
    in_progress.write_text('{"hal', "utf-8")
    (pending / "00000000000000000002-def.json").write_text("{not json", "utf-8")
    assert [e.turn_id for e in j.pending()] == ["t1"]
    assert [p.name for p in pending.iterdir() if p.name.endswith(".tmp")] == [in_progress.name]
    assert (pending / "00000000000000000002-def.corrupt").exists()  # kept for a person, not deleted


def test_only_one_writer_may_claim_a_journal(tmp_path):
    first, second = TurnJournal(tmp_path / "j"), TurnJournal(tmp_path / "j")
    assert first.claim() is True
    assert first.claim() is True  # idempotent for the holder
    assert second.claim() is False
    first.release()
    assert second.claim() is True
    second.release()
    second.release()  # safe twice


def test_a_turn_is_taken_by_one_writer_at_a_time_and_its_lock_file_goes_with_it(tmp_path):
    mine, theirs = TurnJournal(tmp_path / "j"), TurnJournal(tmp_path / "j")
    entry = mine.append("t1", None, [{"role": "user", "content": "你好"}])
    assert mine.lock_entry(entry) and not theirs.lock_entry(entry)  # in flight: the other leaves it
    mine.remove(entry)
    mine.unlock_entry(entry)
    assert not theirs.lock_entry(entry)  # written meanwhile: nothing left to take
    assert list(mine.pending_dir.iterdir()) == []  # no lock file left behind


def test_the_pending_turns_can_be_read_a_window_at_a_time(tmp_path):
    journal = TurnJournal(tmp_path / "j")
    entries = [journal.append(f"t{i}", None, [{"role": "user", "content": str(i)}]) for i in range(7)]
    window, more = journal.pending_window(0, 3)
    assert [e.turn_id for e in window] == ["t0", "t1", "t2"] and more == 4
    window, more = journal.pending_window(window[-1].seq, 3, skip={entries[4].key})  # t4 known: not read
    assert [e.turn_id for e in window] == ["t3", "t5", "t6"] and more == 0
    window, more = journal.pending_window(0, 10, before=entries[2].seq)  # journaled since: left out
    assert [e.turn_id for e in window] == ["t0", "t1"] and more == 0
    assert [e.turn_id for e in journal.find_pending("t5")] == ["t5"] and journal.find_pending("t9") == []
    # A file renamed by hand is still read (and set aside), whatever its name says.
    os.replace(journal.pending_dir / entries[0].filename, journal.pending_dir / "copy.json")
    assert [e.turn_id for e in journal.pending_window(0, 10)[0]] == [f"t{i}" for i in range(1, 7)]
    assert journal.quarantined


def test_a_progress_save_appends_a_line_and_never_rewrites_the_turn(tmp_path):
    """Issue 37: a step of a turn (the model's reply, a tool call applying, done) used to rewrite the
    whole entry, its text included (a temp file, two fsyncs, a rename); now one fsync'd line."""
    journal = TurnJournal(tmp_path / "j")
    entry = journal.append("t1", None, [{"role": "user", "content": "很长的一段话" * 200}])
    file = journal.pending_dir / entry.filename
    before = (file.stat().st_ino, file.read_bytes())
    for step in range(3):
        entry.progress = {"responses": [{"content": "", "tool_calls": []}], "calls": {"c": {"state": f"s{step}"}}}
        journal.save_progress(entry)
    assert (file.stat().st_ino, file.read_bytes()) == before  # the turn's file untouched
    log = journal.pending_dir / (entry.filename + ".progress")
    assert "很长的一段话" not in log.read_text(encoding="utf-8")
    (read,) = journal.pending()
    assert read.progress["calls"] == {"c": {"state": "s2"}} and read.progress_rev == 3


def test_a_progress_line_cut_by_a_kill_is_skipped_and_spoils_nothing_after_it(tmp_path):
    journal = TurnJournal(tmp_path / "j")
    entry = journal.append("t1", None, [{"role": "user", "content": "你好"}])
    entry.progress = {"responses": [], "calls": {"a": {"state": "done"}}}
    journal.save_progress(entry)
    log = journal.pending_dir / (entry.filename + ".progress")
    with open(log, "ab") as fh:  # a save killed mid-write: its step never returned
        fh.write(b'\n{"rev": 2, "progress": {"responses": [], "calls": {"a": {"sta')
    (read,) = journal.pending()
    assert read.progress == {"responses": [], "calls": {"a": {"state": "done"}}} and read.progress_rev == 1
    read.progress["calls"]["b"] = {"state": "applying"}  # the next run goes on from there
    journal.save_progress(read)
    (again,) = journal.pending()
    assert again.progress["calls"] == {"a": {"state": "done"}, "b": {"state": "applying"}}


def test_a_rewritten_entry_wins_over_its_older_log_and_a_log_without_its_entry_goes(tmp_path):
    journal = TurnJournal(tmp_path / "j")
    entry = journal.append("t1", None, [{"role": "user", "content": "你好"}])
    entry.progress = {"responses": [], "calls": {"a": {"state": "done"}}}
    journal.save_progress(entry)
    log = journal.pending_dir / (entry.filename + ".progress")
    stale = log.read_bytes()
    entry.progress = {"responses": [], "calls": {}}  # a failed attempt taken back, its save lost to the disk
    journal.record_failure(entry, "boom")
    assert not log.exists()
    log.write_bytes(stale)  # as if killed between the rewrite and the log's removal
    (read,) = journal.pending()
    assert read.progress == {"responses": [], "calls": {}} and read.attempts == 1
    journal.move_to_failed(read)
    log.write_bytes(stale)  # killed between the move and the log's removal
    assert journal.pending() == [] and not log.exists()
    (requeued,) = journal.requeue_failed()
    (read,) = journal.pending()
    assert read.key == requeued.key and read.progress is None


def test_the_turn_ids_of_a_long_journal_are_listed_without_holding_its_text(tmp_path):
    """Issue 37: an import's start and resume listed its journal with ``pending()``, every batch's text
    at once (1.3 MB held for 1,000 turns, ~200 MB for a big export's batches): the ids are read one
    file at a time. Same order and the same files as ``pending()`` / ``failed()``, corrupt ones set aside."""
    import tracemalloc

    journal = TurnJournal(tmp_path / "j")
    body = [{"role": "user", "content": "很长的一段话。" * 700}]  # ~15 KB of text each
    entries = [journal.append(f"imp-x-{i:06d}", None, body) for i in range(120)]
    journal.move_to_failed(entries[5])
    (journal.pending_dir / "00000000000000000002-def.json").write_text("{not json", "utf-8")
    expected = [e.turn_id for e in journal.pending()]
    assert journal.pending_turn_ids() == expected == [e.turn_id for e in entries if e is not entries[5]]
    assert journal.failed_turn_ids() == ["imp-x-000005"]
    assert (journal.pending_dir / "00000000000000000002-def.corrupt").exists()
    tracemalloc.start()
    try:
        journal.pending_turn_ids()
        _now, peak = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        journal.pending()
        _now, whole = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert whole > 1_000_000  # (what the whole list holds: the text of 119 turns)
    assert peak < whole / 5, f"{peak / 1024:.0f} KB listing the ids against {whole / 1024:.0f} KB for pending()"


def test_the_journal_memory_benchmark_runs_and_the_lists_without_text_stay_small():
    """bench/journal_memory.py end to end on a small journal: every list names every batch, and the
    lists without text peak far below the ones that held it."""
    from bench.journal_memory import measure

    rows = measure(60)["rows"]
    assert {row["listed"] for row in rows.values()} == {60}
    assert rows["pending_turn_ids() (now)"]["peak_mb"] * 3 < rows["pending() (before)"]["peak_mb"]
    assert rows["failed(text=False) (now)"]["peak_mb"] * 3 < rows["failed() (before)"]["peak_mb"]
