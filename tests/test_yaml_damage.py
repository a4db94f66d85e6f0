"""memory.yaml that moves, vanishes, turns into a link or is saved from a stale buffer (issue 35 items 1
and 2). A missing or unusable file is damage, never "the person deleted everything": the store keeps
serving what it holds, writes the file again, says so once and keeps memory.yaml.bak a real last good
copy. A save made from an older copy is merged three ways against the version it was read from.
Real files, real renames, real editors' ways of saving (rename over, write in place)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from helpers import SmallDisk, yaml_on_disk
from sonetto_desktop.memory import MemoryItem, StoreCorrupt, YamlMemoryManager
from sonetto_desktop.memory.stores.yaml import files as yaml_files
from sonetto_desktop.memory.stores.yaml import writer as yaml_writer
from sonetto_desktop.memory.stores.yaml.format import Chunk, Layout
from sonetto_desktop.memory.stores.yaml.sync import CONFLICT_REASON, DELETE_REASON, EDIT_REASON
from sonetto_desktop.memory.stores.yaml.versions import FileVersions
from sonetto_desktop.presentation.store_notices import notice_text
from waiting import wait_for


def twenty(mm: YamlMemoryManager) -> dict[str, str]:
    items = {f"m{i:07d}": MemoryItem(f"第{i}条记忆：喜欢第{i}种水果", "品味") for i in range(20)}
    mm.import_items(items)
    return {mid: item.description for mid, item in items.items()}


@pytest.fixture
def live(tmp_path):
    """A store that rewrites memory.yaml in the background, as the app's does, holding 20 memories
    that are on disk; ``notices`` collects what it says."""
    mm = YamlMemoryManager(tmp_path / "memory.yaml")
    texts = twenty(mm)
    wait_for(lambda: len(yaml_on_disk(mm.path)) == 20, what="memory.yaml holds the 20 memories")
    mm.notices_heard = []
    mm.subscribe_notices(mm.notices_heard.append)
    mm.texts = texts
    yield mm
    mm.close()


def kinds(mm: YamlMemoryManager) -> list[str]:
    return [n.kind for n in mm.notices_heard]


# ── item 1: a missing file ─────────────────────────────────────────────


def test_a_deleted_memory_yaml_is_written_again_from_the_memories_held(live):
    os.unlink(live.path)
    time.sleep(0.3)
    assert live.count() == 20, "a missing file is not 'no memories'"
    wait_for(lambda: live.path.exists() and len(yaml_on_disk(live.path)) == 20, what="memory.yaml written again")
    new = live.add("文件不见后写的", "瞬间")
    wait_for(lambda: new in yaml_on_disk(live.path), what="the new write on disk")
    assert live.count() == 21 and live.list_trash() == []
    assert kinds(live).count("file_missing") == 1
    assert "不见了" in notice_text(live.notices_heard[0])
    assert len(yaml_on_disk(live.backup_path)) >= 20, "memory.yaml.bak is a real last good copy, never {}"
    os.unlink(live.path)  # gone again, and this time the app is closed before it is written again
    live.writer._closed = True
    again = YamlMemoryManager(live.path, flush_delay=None)
    assert again.count() == 21 and again.notices[0].exact, "restored exactly from memory.yaml.bak and the log"
    again.close()


def test_a_file_moved_away_and_back_keeps_the_write_made_meanwhile(live):
    away = live.path.with_name("away.yaml")
    os.rename(live.path, away)
    time.sleep(0.2)
    new = live.add("移开时写的", "瞬间")
    wait_for(lambda: live.path.exists() and new in yaml_on_disk(live.path), what="written again with the new write")
    os.rename(away, live.path)  # (a sync client puts its copy back)
    time.sleep(0.3)
    live.poll_external()
    assert new in live.all_items() and live.count() == 21
    assert live.list_trash() == [], "the acknowledged write is not trashed by the file's return"
    wait_for(lambda: new in yaml_on_disk(live.path), what="the returned file written again with the new write")
    assert not any(e.get("actor") == "file" for item in live.all_items().values() for e in item.history)


def test_a_deleted_entry_is_still_a_deletion(live):
    text = live.path.read_text(encoding="utf-8")
    start = text.index("m0000019:")
    live.path.write_text(text[:start], encoding="utf-8")
    wait_for(lambda: "m0000019" not in live.all_items(), what="the deletion taken in")
    [trashed] = live.list_trash()
    assert (trashed["id"], trashed["actor"], trashed["reason"]) == ("m0000019", "file", DELETE_REASON)


def _closed_store(tmp_path: Path) -> tuple[Path, set[str]]:
    """A store with writes in the files and writes only in the log (as after a crash)."""
    path = tmp_path / "memory.yaml"
    mm = YamlMemoryManager(path, flush_delay=None)
    ids = set(twenty(mm))
    mm.compact()
    ids.add(mm.add("只在日志里的一条", "瞬间"))
    mm.update("m0000003", "改了", new_description="只在日志里的更新")
    mm.compact()
    ids.add(mm.add("又一条只在日志里的", "瞬间"))
    mm.writer._closed = True  # (as a killed app: the last write is in the log only)
    return path, ids


def test_a_memory_yaml_missing_at_open_is_restored_from_the_backup_and_the_log(tmp_path):
    path, ids = _closed_store(tmp_path)
    os.unlink(path)
    mm = YamlMemoryManager(path, flush_delay=None)
    assert set(mm.all_items()) == ids and mm.get("m0000003").description == "只在日志里的更新"
    [notice] = mm.notices
    assert (notice.kind, notice.exact) == ("file_recovered", True) and "memory.yaml.bak" in notice.detail
    mm.close()
    assert set(yaml_on_disk(path)) == ids


def test_a_missing_memory_yaml_with_no_copy_that_matches_is_refused_not_emptied(tmp_path):
    path, _ = _closed_store(tmp_path)
    os.unlink(path)
    os.unlink(path.with_name("memory.yaml.bak"))
    with pytest.raises(StoreCorrupt, match="missing"):
        YamlMemoryManager(path, flush_delay=None)
    assert not path.exists(), "nothing is written over the damage"


def test_the_command_line_says_what_it_restored(tmp_path):
    import subprocess
    import sys

    path, ids = _closed_store(tmp_path)
    os.unlink(path)
    done = subprocess.run([sys.executable, "-m", "sonetto_desktop", "memory", "--store", str(path), "list"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "restored from memory.yaml.bak" in done.stderr
    assert all(mid in done.stdout for mid in ids)


# ── a link, a huge file, an unreadable one ──────────────────────────────


def test_a_link_swapped_in_is_not_followed(live, tmp_path):
    other = tmp_path / "someone_elses.yaml"
    other.write_text("x1: {description: 别人的东西, theme: 别处}\n", encoding="utf-8")
    os.unlink(live.path)
    os.symlink(other, live.path)
    time.sleep(0.3)
    live.poll_external()
    assert set(live.all_items()) == set(live.texts), "another file's entries never become the memories"
    wait_for(lambda: not live.path.is_symlink() and len(yaml_on_disk(live.path)) == 20, what="the file written again")
    assert other.read_text(encoding="utf-8") == "x1: {description: 别人的东西, theme: 别处}\n"
    assert "file_link" in kinds(live)


def test_a_link_at_open_is_refused(tmp_path):
    other = tmp_path / "other.yaml"
    other.write_text("x1: {description: 别人的东西, theme: 别处}\n", encoding="utf-8")
    os.symlink(other, tmp_path / "memory.yaml")
    mm = YamlMemoryManager(tmp_path / "memory.yaml", flush_delay=None)
    with pytest.raises(StoreCorrupt, match="link"):
        mm.all_items()


def test_a_file_above_the_size_limit_is_refused_with_a_message(tmp_path, monkeypatch):
    monkeypatch.setattr(yaml_files, "MAX_FILE_BYTES", 64 * 1024)
    path = tmp_path / "memory.yaml"
    path.write_text("".join(f"k{i}: {{description: 很长的手写文件第{i}行, theme: 手写}}\n" for i in range(3000)),
                    encoding="utf-8")
    mm = YamlMemoryManager(path, flush_delay=None)
    report = mm.self_check()
    assert report.status == "FAIL" and "SQLite" in report.issues[0] and "MB" in report.issues[0]
    with pytest.raises(StoreCorrupt):
        mm.add("x", "y")


def test_a_file_that_grows_past_the_limit_keeps_the_last_state(live, monkeypatch):
    monkeypatch.setattr(yaml_files, "MAX_FILE_BYTES", 64 * 1024)
    before = live.path.read_bytes()
    live.path.write_bytes(before + b"#" * 70 * 1024 + b"\n")
    time.sleep(0.3)
    assert live.count() == 20
    with pytest.raises(StoreCorrupt):
        live.add("写不进去", "瞬间")
    assert [n.kind for n in live.notices_heard] == ["file_unreadable"]


# ── item 2: a save from a stale buffer ─────────────────────────────────


def _buffer(path: Path) -> str:
    """What an editor holds: the file as it reads it now."""
    return path.read_text(encoding="utf-8")


def _save(path: Path, text: str, *, in_place: bool) -> None:
    if in_place:  # VS Code, Notepad++: the same file truncated and written
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    else:  # vim, sed -i, many sync clients: a new file renamed over
        tmp = path.with_name(".editor-save.tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)


@pytest.mark.parametrize("in_place", [True, False])
def test_a_stale_editor_save_keeps_what_sonetto_wrote_since(live, in_place):
    buffer = _buffer(live.path)
    new = live.add("Sonetto 刚记住的", "瞬间", actor="agent")
    live.update("m0000001", "补充", new_description="喜欢第1种水果，尤其是冰镇的", actor="agent")
    live.hit("m0000002")
    wait_for(lambda: new in yaml_on_disk(live.path), what="Sonetto's writes on disk")
    _save(live.path, buffer.replace("第5条记忆：喜欢第5种水果", "第5条记忆：不再喜欢第5种水果"), in_place=in_place)
    wait_for(lambda: live.get("m0000005").description == "第5条记忆：不再喜欢第5种水果", what="the edit taken in")
    assert new in live.all_items() and live.list_trash() == [], "the newer memory is not trashed"
    one = live.get("m0000001")
    assert one.description == "喜欢第1种水果，尤其是冰镇的" and one.last_actor == "agent", "the update stays"
    assert live.get("m0000002").hit == 1
    assert live.get("m0000005").last_actor == "file"
    assert "edit_stale" in kinds(live) and "edit_conflict" not in kinds(live)
    wait_for(lambda: new in yaml_on_disk(live.path) and yaml_on_disk(live.path)["m0000001"]["description"].endswith("冰镇的"),
             what="the file written again with Sonetto's writes")


def test_a_true_conflict_keeps_both_versions_and_says_so(live):
    buffer = _buffer(live.path)
    live.update("m0000007", "补充", new_description="第7条记忆：喜欢第7种水果，夏天最爱", actor="agent")
    wait_for(lambda: "夏天最爱" in live.path.read_text(encoding="utf-8"), what="Sonetto's update on disk")
    _save(live.path, buffer.replace("第7条记忆：喜欢第7种水果", "第7条记忆：其实讨厌第7种水果"), in_place=True)
    wait_for(lambda: "讨厌" in live.get("m0000007").description, what="the edit taken in")
    copies = [(mid, item) for mid, item in live.all_items().items() if item.description.endswith("夏天最爱")]
    assert len(copies) == 1, "Sonetto's version is kept as a memory of its own"
    copy_id, copy = copies[0]
    assert copy.history[0]["reason"] == CONFLICT_REASON and copy.last_actor == "agent"
    assert live.get("m0000007").history[-1]["reason"] == EDIT_REASON
    [conflict] = [n for n in live.notices_heard if n.kind == "edit_conflict"]
    assert conflict.ids == ("m0000007", copy_id) and "冲突" in notice_text(conflict)


def test_a_hand_deletion_of_a_memory_sonetto_changed_since_wins_and_is_said(live):
    buffer = _buffer(live.path)
    live.add("Sonetto 之后记住的", "瞬间", actor="agent")
    live.update("m0000006", "补充", new_description="第6条记忆：也改过了", actor="agent")
    live.update("m0000004", "补充", new_description="第4条记忆：改过了", actor="agent")
    wait_for(lambda: "改过了" in live.path.read_text(encoding="utf-8"), what="on disk")
    start = buffer.index("m0000004:")
    end = buffer.index("m0000005:")
    _save(live.path, buffer[:start] + buffer[end:], in_place=False)
    wait_for(lambda: "m0000004" not in live.all_items(), what="the deletion taken in")
    [trashed] = live.list_trash()
    assert trashed["description"] == "第4条记忆：改过了", "the trash keeps Sonetto's version"
    assert live.count() == 20 and live.get("m0000006").description.endswith("也改过了"), "what Sonetto wrote since stays"
    assert "edit_conflict" in kinds(live)


def test_a_stale_save_of_a_memory_sonetto_deleted_since_does_not_bring_it_back(live):
    buffer = _buffer(live.path)
    live.delete("m0000009", "过时了", actor="agent")
    wait_for(lambda: "m0000009" not in yaml_on_disk(live.path), what="the deletion on disk")
    _save(live.path, buffer.replace("第3条记忆：喜欢第3种水果", "第3条记忆：改一下"), in_place=True)
    wait_for(lambda: live.get("m0000003").description == "第3条记忆：改一下", what="the edit taken in")
    assert "m0000009" not in live.all_items() and [t["id"] for t in live.list_trash()] == ["m0000009"]


def _edited_text(path: Path) -> str:
    return path.read_text(encoding="utf-8").replace("第8条记忆：喜欢第8种水果", "第8条记忆：正好此刻改的")


@pytest.mark.parametrize("mode", ["in place", "renamed over", "in place, no exchange", "opened before, written after"])
def test_a_save_landing_while_memory_yaml_is_replaced_is_taken_in(live, monkeypatch, mode):
    """An editor saving at the worst moment of a rewrite — between its check and its rename (2 of ~65
    in-place saves were lost) — is taken in, never overwritten. Where the system exchanges the files
    in one step (Linux) a save renamed over at that moment is kept too; elsewhere (``no exchange``) the
    file is checked again just before the rename. An editor that opened the file before the rename
    and writes after it writes into the old file, which stays watched a moment."""
    real_exchange = yaml_writer.exchange
    saved: list[str] = []

    def editor_then_exchange(a, b):
        if Path(b) != live.path or saved:
            return real_exchange(a, b)
        text = _edited_text(live.path)
        saved.append(text)
        if mode == "renamed over":
            _save(live.path, text, in_place=False)
        elif mode == "opened before, written after":
            with open(live.path, "r+", encoding="utf-8") as fh:  # opened before the rename...
                done = real_exchange(a, b)
                fh.seek(0)
                fh.truncate()
                fh.write(text)  # ...written after it
            return done
        else:
            _save(live.path, text, in_place=True)
        return False if mode == "in place, no exchange" else real_exchange(a, b)

    monkeypatch.setattr(yaml_writer, "exchange", editor_then_exchange)
    new = live.add("触发一次重写", "瞬间")
    wait_for(lambda: saved, what="a rewrite")
    wait_for(lambda: live.get("m0000008").description == "第8条记忆：正好此刻改的", what="the save taken in")
    assert new in live.all_items() and live.get("m0000008").last_actor == "file"
    wait_for(lambda: yaml_on_disk(live.path).get("m0000008", {}).get("description") == "第8条记忆：正好此刻改的"
             and new in yaml_on_disk(live.path), what="both on disk")


def test_a_file_that_no_longer_parses_keeps_the_last_state_and_is_said_once(live):
    live.path.write_text("m0000001: [unclosed\n", encoding="utf-8")
    time.sleep(0.3)
    assert live.count() == 20 and live.poll_external() == []
    with pytest.raises(StoreCorrupt):
        live.add("写不进去", "瞬间")
    time.sleep(0.3)
    live.poll_external()
    assert kinds(live) == ["file_unreadable"]
    assert "line" in live.notices_heard[0].detail, "it says where"
    assert live.path.read_text(encoding="utf-8") == "m0000001: [unclosed\n", "never written over"
    live.path.write_text(live.path.read_text(encoding="utf-8").replace("[unclosed", "{description: 修好了, theme: 品味}"),
                         encoding="utf-8")
    wait_for(lambda: live.count() and "file_readable" in kinds(live), what="readable again")
    assert live.get("m0000001").description == "修好了"
    live.add("又能写了", "瞬间")


def test_a_full_disk_is_said_once_the_log_keeps_the_writes_and_saving_again_is_said(tmp_path, monkeypatch):
    """Edges 18 item 1: the background rewrite of memory.yaml fails (no space left): said once, what is
    safe (the change log) and why; the writes keep landing; said again once the file saves."""
    monkeypatch.setattr(yaml_writer, "RETRY_DELAY", 0.3)
    disk = SmallDisk(tmp_path / "disk")
    try:
        mm = YamlMemoryManager(disk.path / "memory.yaml")
        heard: list = []
        mm.subscribe_notices(heard.append)
        mm.import_items({f"m{i:07d}": MemoryItem(f"第{i}条记忆：" + "很长的描述" * 40, "品味") for i in range(300)})
        wait_for(lambda: len(yaml_on_disk(mm.path)) == 300, what="memory.yaml holds the 300")
        disk.fill(leave=16 * 1024)  # room for the log's records, not for a new memory.yaml
        new = [mm.add(f"磁盘满时写的第{n}条", "瞬间") for n in range(3)]
        wait_for(lambda: "file_unsaved" in [n.kind for n in heard], what="the failed save said")
        time.sleep(1.0)  # (retried a few times meanwhile: still said once)
        assert [n.kind for n in heard] == ["file_unsaved"]
        assert all(mid not in yaml_on_disk(mm.path) for mid in new), "memory.yaml is as it was"
        text = notice_text(heard[0])
        assert "memory.yaml" in text and "磁盘已满" in text and "memory.yaml.log" in text, text
        disk.free()
        wait_for(lambda: all(mid in yaml_on_disk(mm.path) for mid in new), what="saved once there is room")
        wait_for(lambda: [n.kind for n in heard] == ["file_unsaved", "file_saved"], what="saving again said")
        mm.close()
        again = YamlMemoryManager(disk.path / "memory.yaml", flush_delay=None)
        assert again.count() == 303
        again.close()
    finally:
        disk.unmount()


# ── the kept versions ──────────────────────────────────────────────────


def test_kept_versions_are_bounded_and_find_the_base_a_save_was_made_from():
    versions = FileVersions()
    layout = Layout(b"", {"a": Chunk(None, b"a: 1\n"), "b": Chunk(None, b"b: 1\n")})
    versions.advance("v1", layout, ["a"])  # v1 -> v2 changed a
    versions.advance("v2", Layout(b"", {"a": Chunk(None, b"a: 2\n"), "b": Chunk(None, b"b: 1\n")}), ["b", "c"])
    now = {"a": b"a: 2\n", "b": b"b: 2\n", "c": b"c: 2\n"}.get  # the file as last known (v3)
    base = versions.base_of("edited", {"a": b"a: 1\n", "b": b"b: 1\n"}, now)  # as in v1
    assert base is not None and base.sha1 == "v1" and base.texts == {"a": b"a: 1\n", "b": b"b: 1\n", "c": None}
    assert versions.base_of("edited", {"a": b"a: 3\n", "b": b"b: 3\n", "c": b"c: 3\n"}, now) is None
    # holding an entry as it read after v1 and v2 (b as now): made from neither, whatever else it lacks
    assert versions.base_of("edited", {"a": b"a: 1\n", "b": b"b: 2\n"}, now) is None
    big = FileVersions()
    for n in range(2000):
        big.advance(f"v{n}", Layout(b"", {"x": Chunk(None, b"x" * 100_000)}), ["x"])
    assert len(big) * 100_000 <= 8 * 1024 * 1024 + 100_000


def test_a_deleted_trash_file_is_written_again_from_the_trash_held(live):
    live.delete("m0000002", "不要了")
    wait_for(lambda: live.trash_path.exists() and "m0000002" in yaml_on_disk(live.trash_path), what="the trash on disk")
    os.unlink(live.trash_path)
    time.sleep(0.3)
    assert [t["id"] for t in live.list_trash()] == ["m0000002"]
    wait_for(lambda: live.trash_path.exists() and "m0000002" in yaml_on_disk(live.trash_path), what="written again")
    live.restore("m0000002")
    assert live.count() == 20


def _without(text: str, memory_id: str) -> str:
    """``text`` (memory.yaml) without the entry ``memory_id``, as a person deletes it in an editor."""
    quoted = f"\n'{memory_id}':"  # (an id YAML would read as a number is written quoted)
    start = text.index(quoted) + 1 if quoted in text else text.index(f"{memory_id}:")
    rest = text[start:].split("\n")
    end = next((i for i, line in enumerate(rest[1:], 1) if line and not line.startswith(" ")), len(rest))
    return text[:start] + "\n".join(rest[end:])


def test_deleting_the_memory_sonetto_just_wrote_from_an_up_to_date_file_deletes_it(live):
    new = live.add("Sonetto 记错的一条", "瞬间", actor="agent")
    live.hit("m0000001")
    wait_for(lambda: new in yaml_on_disk(live.path) and yaml_on_disk(live.path)["m0000001"]["hit"] == 1, what="on disk")
    _save(live.path, _without(_buffer(live.path), new), in_place=False)
    wait_for(lambda: new not in live.all_items(), what="the deletion taken in")
    assert [t["id"] for t in live.list_trash()] == [new] and "edit_stale" not in kinds(live)
    [deleted] = [n for n in live.notices_heard if n.kind == "edit_deleted"]
    assert deleted.texts == ("Sonetto 记错的一条",) and "回收站" in notice_text(deleted)


def test_a_save_lacking_only_what_sonetto_added_since_keeps_it_and_the_same_save_again_deletes_it(live):
    """A save lacking only memories Sonetto added since, with an edit of its own, cannot be told from
    the person deleting them (the text is the same either way): nothing is lost, they are kept and the
    store says so; the same save made again, once the file shows them, is the person's deletion."""
    buffer = _buffer(live.path)
    new = live.add("Sonetto 刚记住的", "瞬间", actor="agent")
    wait_for(lambda: new in yaml_on_disk(live.path), what="on disk")
    edited = buffer.replace("第3条记忆：喜欢第3种水果", "第3条记忆：改一下")
    _save(live.path, edited, in_place=False)
    wait_for(lambda: live.get("m0000003").description == "第3条记忆：改一下", what="taken in")
    assert new in live.all_items() and "edit_stale" in kinds(live)
    wait_for(lambda: new in yaml_on_disk(live.path), what="written again")
    _save(live.path, edited, in_place=False)  # the person deletes it again, knowing
    wait_for(lambda: new not in live.all_items(), what="deleted the second time")
    assert [t["id"] for t in live.list_trash()] == [new] and "edit_deleted" in kinds(live)


def test_an_old_copy_put_back_exactly_keeps_what_sonetto_added_and_the_same_save_again_deletes_it(live):
    """A copy put back exactly (a sync client, an editor's unchanged buffer) keeps what Sonetto added
    since, and says so; saving that same text again once the file shows the memory is meant: a deletion."""
    buffer = _buffer(live.path)
    new = live.add("Sonetto 刚记住的", "瞬间", actor="agent")
    wait_for(lambda: new in yaml_on_disk(live.path), what="on disk")
    _save(live.path, buffer, in_place=False)
    wait_for(lambda: "edit_stale" in kinds(live) and new in yaml_on_disk(live.path), what="kept, and written again")
    assert new in live.all_items() and live.list_trash() == []
    _save(live.path, buffer, in_place=False)  # the person deletes it again, knowing
    wait_for(lambda: new not in live.all_items(), what="deleted the second time")
    assert [t["id"] for t in live.list_trash()] == [new]


def _seeded(path: Path) -> None:
    mm = YamlMemoryManager(path, flush_delay=None)
    twenty(mm)
    mm.close()


def test_a_stale_save_made_while_the_app_was_closed_keeps_what_sonetto_wrote(tmp_path):
    path = tmp_path / "memory.yaml"
    _seeded(path)
    buffer = _buffer(path)  # the editor opens the file
    mm = YamlMemoryManager(path, flush_delay=None)
    new = mm.add("Sonetto 刚记住的", "瞬间", actor="agent")
    mm.update("m0000001", "补充", new_description="喜欢第1种水果，尤其是冰镇的", actor="agent")
    mm.close()  # the app quits; the files hold every write
    _save(path, buffer.replace("第5条记忆：喜欢第5种水果", "第5条记忆：不再喜欢第5种水果"), in_place=True)
    again = YamlMemoryManager(path, flush_delay=None)
    assert again.get("m0000005").description == "第5条记忆：不再喜欢第5种水果"
    assert new in again.all_items() and again.get("m0000001").description.endswith("冰镇的")
    assert [n.kind for n in again.notices] == ["edit_stale"]
    again.close()
    assert new in yaml_on_disk(path) and yaml_on_disk(path)["m0000005"]["description"].startswith("第5条记忆：不再")


def test_a_stale_save_taken_in_survives_a_kill_before_the_file_is_written(tmp_path):
    path = tmp_path / "memory.yaml"
    _seeded(path)
    buffer = _buffer(path)
    mm = YamlMemoryManager(path, flush_delay=None)
    new = mm.add("Sonetto 刚记住的", "瞬间", actor="agent")
    mm.update("m0000001", "补充", new_description="喜欢第1种水果，尤其是冰镇的", actor="agent")
    mm.compact()
    _save(path, buffer.replace("第5条记忆：喜欢第5种水果", "第5条记忆：不再喜欢第5种水果"), in_place=False)
    time.sleep(0.2)
    mm.poll_external()  # merged live: the new memory kept (in memory only: the file is the save)
    assert new in mm.all_items()
    mm.writer._closed = True  # (killed now: no close, no rewrite)
    again = YamlMemoryManager(path, flush_delay=None)
    assert again.get("m0000005").description == "第5条记忆：不再喜欢第5种水果"
    assert new in again.all_items() and again.get("m0000001").description.endswith("冰镇的")
    again.close()


def test_a_memory_yaml_emptied_while_the_app_was_closed_is_restored(tmp_path):
    path = tmp_path / "memory.yaml"
    _seeded(path)
    mm = YamlMemoryManager(path, flush_delay=None)
    mm.add("再写一条", "瞬间", actor="agent")
    mm.close()
    path.write_bytes(b"")  # an in-place save cut short, a sync client's placeholder
    again = YamlMemoryManager(path, flush_delay=None)
    assert again.count() == 21 and [n.kind for n in again.notices] == ["file_recovered"]
    again.add("打开后写的", "瞬间")
    again.close()
    assert len(yaml_on_disk(path)) == 22 and len(yaml_on_disk(path.with_name("memory.yaml.bak"))) >= 21


def test_a_memory_yaml_emptied_while_open_keeps_the_backup_a_real_copy(live):
    live.path.write_bytes(b"")
    time.sleep(0.3)
    wait_for(lambda: live.count() == 20 and len(yaml_on_disk(live.path)) == 20, what="written again")
    assert len(yaml_on_disk(live.backup_path)) == 20, "memory.yaml.bak is never the emptied file"
    assert "file_missing" in kinds(live)


def test_a_slow_save_in_place_is_not_taken_for_an_emptied_file(live):
    """An editor saving in place empties memory.yaml, then writes it; on a slow disk (a network drive, a
    busy machine) the file can stay empty for a moment. That moment is not "memory.yaml was emptied":
    nothing is said and nothing is written over it, and the save is taken in when it lands (before, a
    look 0.1 s into the empty file said it was emptied and wrote the memories held out again)."""
    text = live.path.read_text(encoding="utf-8")
    with open(live.path, "w", encoding="utf-8") as editor:
        editor.flush()  # emptied
        time.sleep(0.3)
        assert live.count() == 20 and live.poll_external() == []
        time.sleep(0.2)
        assert live.count() == 20
        editor.write(text.replace(live.texts["m0000001"], "慢慢保存的修改"))
    wait_for(lambda: live.get("m0000001").description == "慢慢保存的修改", what="the save taken in")
    assert "file_missing" not in kinds(live), "a save under way is not an emptied file"
    assert len(yaml_on_disk(live.path)) == 20


def test_a_displaced_save_not_taken_in_before_a_crash_is_taken_in_at_the_next_opening(live, monkeypatch):
    real_exchange = yaml_writer.exchange
    saved: list[str] = []

    def rename_then_exchange(a, b):
        if Path(b) == live.path and not saved:
            saved.append(_edited_text(live.path))
            _save(live.path, saved[0], in_place=False)
            live.sync._take_replaced = lambda: None  # (killed before the displaced save settles)
        return real_exchange(a, b)

    monkeypatch.setattr(yaml_writer, "exchange", rename_then_exchange)
    live.add("触发一次重写", "瞬间")
    wait_for(lambda: saved, what="a rewrite")
    wait_for(lambda: live.files.displaced(), what="the displaced save kept on disk")
    live.writer._closed = True  # killed
    again = YamlMemoryManager(live.path, flush_delay=None)
    assert again.get("m0000008").description == "第8条记忆：正好此刻改的" and not again.files.displaced()
    again.close()


def test_a_store_opened_on_a_broken_memory_yaml_serves_what_its_backup_and_log_hold(tmp_path):
    path = tmp_path / "memory.yaml"
    _seeded(path)
    mm = YamlMemoryManager(path, flush_delay=None)
    mm.add("关掉前写的", "瞬间")
    mm.close()
    path.write_text("m0000001: [unclosed\n", encoding="utf-8")  # broken while the app was closed
    again = YamlMemoryManager(path, flush_delay=None)
    report = again.self_check()
    assert report.status == "FAIL" and "memory.yaml" in report.issues[0]
    assert again.count() == 21, "the memories the backup and the log hold are shown"
    with pytest.raises(StoreCorrupt):
        again.add("写不进去", "瞬间")
    again.close()
    assert path.read_text(encoding="utf-8") == "m0000001: [unclosed\n", "never written over"
