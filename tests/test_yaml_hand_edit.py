"""memory.yaml is the person's (issue 26 items 1 and 3): it shows every acknowledged write within a
second (no close needed), a hand edit while the store is open becomes the memory's state (history
actor ``file``) and is never overwritten by an older change still in the log, and entries nobody
touched keep their exact text. Real files, real processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import yaml

from helpers import yaml_on_disk
from sonetto_desktop.memory import MemoryItem, YamlMemoryManager
from sonetto_desktop.memory.stores.yaml.sync import ADD_REASON, DELETE_REASON, EDIT_REASON
from waiting import wait_for

ROOT = Path(__file__).resolve().parent.parent


def edit(path: Path, old: str, new: str) -> None:
    """What an editor does: the whole file written again with one text changed."""
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def poll_until_taken(mm: YamlMemoryManager) -> list:
    """poll_external (as the app's watcher calls it) until it took the edit in."""
    return wait_for(mm.poll_external, what="the hand edit taken in")


@pytest.fixture
def store(tmp_path):
    """Two memories in memory.yaml; the store rewrites it only when asked (deterministic)."""
    mm = YamlMemoryManager(tmp_path / "memory.yaml", flush_delay=None)
    mm.import_items({"aaaa0001": MemoryItem("喜欢夏天和猫", "品味"), "bbbb0002": MemoryItem("住在成都", "身份")})
    mm.compact()
    yield mm
    mm.close()


def test_memory_yaml_shows_every_write_without_closing(tmp_path):
    mm = YamlMemoryManager(tmp_path / "memory.yaml")
    try:
        a = mm.add("喜欢夏天和猫", "品味")
        b = mm.add("住在成都", "身份")
        wait_for(lambda: set(yaml_on_disk(mm.path)) == {a, b}, what="memory.yaml holds both adds")
        mm.update(a, "更准确", new_description="喜欢夏天和布偶猫")
        mm.delete(b, "搬走了")
        wait_for(lambda: yaml_on_disk(mm.path).get(a, {}).get("description") == "喜欢夏天和布偶猫"
                 and b not in yaml_on_disk(mm.path), what="memory.yaml holds the update and the delete")
        wait_for(lambda: b in yaml_on_disk(mm.trash_path), what="the trash file holds the deleted memory")
        assert YamlMemoryManager(mm.path, flush_delay=None).count() == 1
    finally:
        mm.close()


def test_a_hand_edit_becomes_the_memorys_state_as_the_person(store):
    seen = []
    store.subscribe(seen.append)
    edit(store.path, "喜欢夏天和猫", "喜欢夏天、猫和西瓜")
    changes = poll_until_taken(store)
    assert [(c.kind, c.ids, c.actor) for c in changes] == [("update", ("aaaa0001",), "file")]
    assert seen == changes and changes[0].state("aaaa0001")["description"] == "喜欢夏天、猫和西瓜"
    item = store.get("aaaa0001")
    assert item.description == "喜欢夏天、猫和西瓜" and item.last_actor == "file"
    entry = item.history[-1]
    assert (entry["action"], entry["actor"], entry["reason"]) == ("update", "file", EDIT_REASON)
    assert (entry["old_description"], entry["new_description"]) == ("喜欢夏天和猫", "喜欢夏天、猫和西瓜")
    store.hit("bbbb0002")
    store.close()
    again = YamlMemoryManager(store.path, flush_delay=None)
    assert again.get("aaaa0001").description == "喜欢夏天、猫和西瓜" and again.get("bbbb0002").hit == 1
    assert yaml_on_disk(store.path)["aaaa0001"]["history"][-1]["actor"] == "file"
    again.close()


def test_a_hand_edit_wins_over_an_older_write_still_in_the_log(store):
    store.update("aaaa0001", "补充", new_description="喜欢夏天和猫，也喜欢狗")  # in the log only
    assert yaml_on_disk(store.path)["aaaa0001"]["description"] == "喜欢夏天和猫"
    edit(store.path, "喜欢夏天和猫", "只喜欢冬天")  # the person edits the file as they see it
    poll_until_taken(store)
    item = store.get("aaaa0001")
    assert item.description == "只喜欢冬天"
    # the log's change stays in the history, the edit comes after it
    assert [(e["action"], e["actor"]) for e in item.history] == [("update", "user"), ("update", "file")]
    assert item.history[-1]["old_description"] == "喜欢夏天和猫，也喜欢狗"
    # both changed the text: the other version is kept too (issue 35 item 2)
    assert [i.description for i in store.all_items().values()].count("喜欢夏天和猫，也喜欢狗") == 1
    store.close()
    assert yaml_on_disk(store.path)["aaaa0001"]["description"] == "只喜欢冬天"
    again = YamlMemoryManager(store.path, flush_delay=None)
    assert again.get("aaaa0001").description == "只喜欢冬天"
    again.close()


def test_other_memories_keep_writes_still_in_the_log(store):
    store.update("bbbb0002", "搬家", new_description="住在上海")  # in the log only
    edit(store.path, "喜欢夏天和猫", "喜欢秋天")
    poll_until_taken(store)
    assert store.get("bbbb0002").description == "住在上海"
    assert store.get("aaaa0001").description == "喜欢秋天"
    store.close()
    data = yaml_on_disk(store.path)
    assert (data["aaaa0001"]["description"], data["bbbb0002"]["description"]) == ("喜欢秋天", "住在上海")


def test_a_write_takes_a_hand_edit_in_first(store):
    edit(store.path, "住在成都", "住在重庆")
    store.add("刚写的", "瞬间")  # no wait: the write folds the edit in before its own record
    assert store.get("bbbb0002").description == "住在重庆"
    assert store.get("bbbb0002").history[-1]["actor"] == "file"


def test_an_entry_deleted_by_hand_goes_to_the_trash_and_one_added_is_kept(store):
    text = store.path.read_text(encoding="utf-8")
    start = text.index("bbbb0002:")
    added = "cccc0003:\n  description: 手写的新记忆\n  theme: 杂记\n"
    store.path.write_text(text[:start] + added, encoding="utf-8")
    changes = poll_until_taken(store)
    assert sorted((c.kind, c.ids[0], c.actor) for c in changes) == [("add", "cccc0003", "file"),
                                                                      ("delete", "bbbb0002", "file")]
    [trashed] = store.list_trash()
    assert (trashed["id"], trashed["actor"], trashed["reason"]) == ("bbbb0002", "file", DELETE_REASON)
    new = store.get("cccc0003")
    assert new.history[0]["action"] == "create" and new.history[0]["reason"] == ADD_REASON
    store.restore("bbbb0002")  # a deletion by hand is undoable
    assert store.get("bbbb0002").description == "住在成都"


def test_a_locked_memory_may_be_edited_by_hand(store):
    store.set_locked("aaaa0001", True)
    store.compact()
    edit(store.path, "喜欢夏天和猫", "喜欢夏天")
    poll_until_taken(store)
    assert store.get("aaaa0001").description == "喜欢夏天" and store.get("aaaa0001").locked


def test_a_second_instance_takes_the_same_edit_in_once(store):
    other = YamlMemoryManager(store.path, flush_delay=None)
    try:
        other.count()
        edit(store.path, "住在成都", "住在杭州")
        poll_until_taken(store)
        seen = wait_for(other.poll_external, what="the other instance follows")
        assert [(c.kind, c.actor) for c in seen] == [("update", "file")]
        item = other.get("bbbb0002")
        assert item.description == "住在杭州" and [e["actor"] for e in item.history].count("file") == 1
        other.add("另一个实例写的", "瞬间")
        store.close()
        other.close()
        again = YamlMemoryManager(store.path, flush_delay=None)
        assert [e["actor"] for e in again.get("bbbb0002").history].count("file") == 1 and again.count() == 3
        again.close()
    finally:
        other.close()


def test_a_file_that_no_longer_parses_is_never_written_over(store):
    store.path.write_text("aaaa0001: [unclosed\n", encoding="utf-8")
    from sonetto_desktop.memory import StoreCorrupt

    with pytest.raises(StoreCorrupt):
        store.add("写不进去", "瞬间")
    time.sleep(0.3)
    assert store.poll_external() == [] and store.count() == 2  # the last good state is still served (and said)
    with pytest.raises(StoreCorrupt):
        store.compact()
    assert store.path.read_text(encoding="utf-8") == "aaaa0001: [unclosed\n"
    store.path.write_text(store.path.read_text(encoding="utf-8").replace("[unclosed", "[fixed]"), encoding="utf-8")


# ── a save with a byte order mark, a key YAML reads as another value ──


def _on_disk(path: Path) -> dict:
    """memory.yaml as a plain ``yaml.safe_load`` (SonettoHere's loader) reads it, BOM or not."""
    return yaml.safe_load(path.read_bytes()) or {}


def test_a_save_with_a_byte_order_mark_is_taken_in_and_writes_go_on(store):
    # Windows Notepad's "UTF-8 with BOM": the first entry's key is no longer "\ufeffaaaa0001"
    text = store.path.read_text(encoding="utf-8").replace("住在成都", "住在杭州")
    store.path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    new = store.add("新的记忆", "品味")  # (was StoreCorrupt: "entry '\ufeffaaaa0001' could not be read")
    assert store.get("bbbb0002").description == "住在杭州" and store.get("bbbb0002").last_actor == "file"
    assert all(e.get("actor") != "file" for e in store.get("aaaa0001").history)  # untouched
    store.close()
    assert {mid: e["description"] for mid, e in _on_disk(store.path).items()} == {
        "aaaa0001": "喜欢夏天和猫", "bbbb0002": "住在杭州", new: "新的记忆"}
    again = YamlMemoryManager(store.path, flush_delay=None)  # reopened on the file with its BOM
    try:
        later = again.add("重新打开以后", "品味")
        assert again.count() == 4
    finally:
        again.close()
    assert set(_on_disk(store.path)) == {"aaaa0001", "bbbb0002", new, later}


def test_a_file_with_a_byte_order_mark_keeps_its_entries_text(tmp_path):
    path = tmp_path / "memory.yaml"
    path.write_bytes(b"\xef\xbb\xbf" + OTHER_LAYOUT.encode("utf-8"))
    mm = YamlMemoryManager(path, flush_delay=None)
    mm.update("bbbb0002", "搬家", new_description="住在上海")
    mm.close()
    text = path.read_bytes().decode("utf-8-sig")
    assert text.startswith("# 我自己整理的记忆（手写）\naaaa0001:\n  description: 喜欢夏天和猫\n  hit: 3\n")
    assert _on_disk(path)["bbbb0002"]["description"] == "住在上海"


def test_a_hand_added_entry_whose_key_reads_as_a_number_is_taken_in(store):
    # ``001`` is the int 1 to YAML (and to SonettoHere's safe_load): its id is "1", as when the file is
    # read whole; the entry keyed by text "001" was never found among the parsed ones ("1")
    with store.path.open("a", encoding="utf-8") as f:
        f.write("001:\n  description: 早上喝咖啡\n  theme: 习惯\n")
    new = store.add("新的记忆", "品味")  # (was StoreCorrupt: "entry '001' could not be read")
    assert store.get("1").description == "早上喝咖啡" and store.get("1").history[0]["reason"] == ADD_REASON
    store.close()
    data = _on_disk(store.path)
    assert {str(mid): e["description"] for mid, e in data.items()} == {
        "aaaa0001": "喜欢夏天和猫", "bbbb0002": "住在成都", "1": "早上喝咖啡", new: "新的记忆"}
    assert "1" in data  # written anew (a history added) under the id the store names it by: a string
    again = YamlMemoryManager(store.path, flush_delay=None)
    try:
        again.add("重新打开以后", "品味")
        assert again.get("1").description == "早上喝咖啡" and again.count() == 5
    finally:
        again.close()


def test_a_key_that_reads_as_a_number_names_one_memory_whole_or_edited(tmp_path):
    path = tmp_path / "memory.yaml"
    entry = "  theme: 习惯\n  history: []\n  latest_update_time: '2026-11-01T10:00:00'\n  hit: 0\n"
    path.write_text(f"001:\n  description: 早上喝咖啡\n{entry}aaaa0001:\n  description: 喜欢猫\n{entry}",
                    encoding="utf-8")
    mm = YamlMemoryManager(path, flush_delay=None)
    try:
        assert set(mm.all_items()) == {"1", "aaaa0001"}  # read whole
        mm.add("新的记忆", "品味")
        mm.compact()
        assert path.read_text(encoding="utf-8").startswith("001:\n  description: 早上喝咖啡\n")  # kept as written
        edit(path, "早上喝咖啡", "早上喝茶")  # then edited by hand: the same memory
        poll_until_taken(mm)
        assert mm.get("1").description == "早上喝茶" and mm.count() == 3
        mm.add("再一条", "品味")
    finally:
        mm.close()
    assert {str(mid) for mid in _on_disk(path)} == set(YamlMemoryManager(path, flush_delay=None).all_items())


# ── issue 26 item 3: a file in another valid layout keeps its text ──


OTHER_LAYOUT = """\
# 我自己整理的记忆（手写）
aaaa0001:
  description: 喜欢夏天和猫
  hit: 3
  history: null
  latest_update_time: 2026-11-01 10:00:00
  theme: 品味
bbbb0002:
  description: 住在成都
  history: null
  latest_update_time: 2026-11-01 10:00:00
  theme: 身份
cccc0003:
  description: 在学钢琴
  history:
  - {action: create, actor: user, reason: 手写, time: 2026-11-01 09:00:00}
  latest_update_time: 2026-11-01 10:00:00
  theme: 爱好
"""


def test_untouched_entries_keep_their_text(tmp_path):
    path = tmp_path / "memory.yaml"
    path.write_text(OTHER_LAYOUT, encoding="utf-8")
    mm = YamlMemoryManager(path)
    report = mm.self_check()
    assert report.status == "OK" and report.repaired == []  # another layout is not damage
    assert path.read_bytes() == OTHER_LAYOUT.encode()  # opening and checking rewrite nothing
    mm.update("bbbb0002", "搬家", new_description="住在上海")
    mm.close()
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# 我自己整理的记忆（手写）\naaaa0001:\n")
    for mid in ("aaaa0001", "cccc0003"):
        original = OTHER_LAYOUT[OTHER_LAYOUT.index(f"{mid}:"):]
        original = original[:original.index("\n", original.index("theme:")) + 1]
        assert original in text, mid
    assert yaml_on_disk(path)["bbbb0002"]["description"] == "住在上海"


# ── crash safety of the rewrite (kill -9 at every step) ──────────────

CHILD = """
import os, sys
sys.path.insert(0, {root!r})
from sonetto_desktop.memory import YamlMemoryManager
mm = YamlMemoryManager({path!r}, flush_delay=0.01)
mm.compact()  # (a previous round's crash is recovered before this round's can happen)
die = os.environ.get("DIE")
if die:
    from sonetto_desktop.memory.stores.yaml import writer
    real, real_exchange = os.replace, writer.exchange
    def replace(src, dst, *a, **k):
        if str(dst).endswith("memory.yaml") and die == "before-replace":
            os._exit(9)
        real(src, dst, *a, **k)
        if str(dst).endswith("memory.yaml") and die == "after-replace":
            os._exit(9)
    def exchange(a, b):  # (the rename where the system swaps the files in one step)
        if str(b).endswith("memory.yaml") and die == "before-replace":
            os._exit(9)
        done = real_exchange(a, b)
        if done and str(b).endswith("memory.yaml") and die == "after-replace":
            os._exit(9)
        return done
    os.replace = replace
    writer.exchange = exchange
n = 0
while True:
    mid = mm.add(f"第{{n}}条", "瞬间")
    if n % 3 == 2:
        mm.update(mid, "改写", new_description=f"改写后的第{{n}}条")
    if n % 5 == 4:
        mm.delete(mid, "删掉")
    print(mid, "deleted" if n % 5 == 4 else "kept", flush=True)
    n += 1
"""


def _run_child(path: Path, die: str | None, count: int) -> list[tuple[str, str]]:
    env = dict(os.environ, DIE=die or "")
    child = subprocess.Popen([sys.executable, "-c", textwrap.dedent(CHILD.format(root=str(ROOT), path=str(path)))],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    acked: list[tuple[str, str]] = []
    while len(acked) < count:
        line = child.stdout.readline()
        if not line.endswith("\n"):  # the end, or a line the kill cut short: not an acknowledgement
            break
        fields = tuple(line.split())
        assert len(fields) == 2, f"not an acknowledgement: {line!r}"
        acked.append(fields)  # type: ignore[arg-type]
        if die is None and len(acked) == count:
            os.kill(child.pid, signal.SIGKILL)
    child.wait(timeout=60)
    child.stdout.close()
    child.stderr.close()
    return acked


@pytest.mark.parametrize("die", ["before-replace", "after-replace", None])
def test_a_writer_killed_while_rewriting_loses_no_acknowledged_write(tmp_path, die):
    path = tmp_path / "memory.yaml"
    for round_no in range(4):
        acked = _run_child(path, die, 10_000 if die else 40 + 25 * round_no)
        assert acked, "the child acknowledged writes"
        mm = YamlMemoryManager(path, flush_delay=None)
        report = mm.self_check()
        assert report.status == "OK", report.issues
        live = {mid for mid, how in acked if how == "kept"}
        gone = {mid for mid, how in acked if how == "deleted"}
        assert live <= set(mm.all_items()), f"round {round_no}: lost {sorted(live - set(mm.all_items()))}"
        assert gone.isdisjoint(mm.all_items()) and gone <= {row["id"] for row in mm.list_trash()}
        assert not any(e.get("actor") == "file" for item in mm.all_items().values() for e in item.history), \
            "a cut-short rewrite is not a hand edit"
        mm.close()
        assert live <= set(yaml_on_disk(path))
