"""YAML store: seed-format compatibility, crash-safe writes, corrupt files, self-check repairs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from sonetto_desktop.memory import StoreCorrupt, YamlMemoryManager

SEED = Path(__file__).parent / "fixtures" / "seed_memory.yaml"


@pytest.fixture
def seed_store(tmp_path):
    path = tmp_path / "memory.yaml"
    shutil.copy(SEED, path)
    return path


def test_existing_seed_file_loads_unchanged(seed_store):
    before = seed_store.read_bytes()
    mm = YamlMemoryManager(seed_store)
    shown = {r["id"]: r for r in mm.show()}
    assert set(shown) == {"3f9a1c2e", "7b22d0aa", "c0ffee01", "d00dfeed"}
    assert shown["7b22d0aa"]["description"] == "Miso喜欢洛天依的《普通DISCO》。"
    assert mm.get("3f9a1c2e").latest_update_time == "2026-07-10T21:14:03"  # space form accepted
    assert mm.get("7b22d0aa").latest_update_time == "2026-07-11T09:02:11"  # unquoted YAML timestamp
    assert mm.get("c0ffee01").history == []  # null history
    assert mm.get("d00dfeed").hit == 0  # missing hit
    assert mm.show_description_history("7b22d0aa")[0]["reason"] == "用户补充了喜欢的歌曲"
    assert seed_store.read_bytes() == before  # reading never rewrites


def test_written_file_stays_seed_format(seed_store):
    before = seed_store.read_text(encoding="utf-8")
    mm = YamlMemoryManager(seed_store)
    new = mm.add("Miso养了一只猫", "身份")
    mm.update("3f9a1c2e", "升学", new_description="Miso是计算机专业的大四学生。")
    mm.delete("c0ffee01", "重构完成")
    mm.close()  # writes go to the log first; memory.yaml follows (at the latest when closing)
    text = seed_store.read_text(encoding="utf-8")
    data = yaml.safe_load(text)
    assert set(data) == {"3f9a1c2e", "7b22d0aa", "d00dfeed", new}
    for mid in (new, "3f9a1c2e"):  # what was written is in the seed's layout
        assert list(data[mid]) == ["description", "theme", "history", "latest_update_time", "hit"]
        assert "T" in data[mid]["latest_update_time"]
    for mid in ("7b22d0aa", "d00dfeed"):  # untouched entries keep their text, layout and all
        assert entry_text(text, mid) == entry_text(before, mid)
    trash = yaml.safe_load(mm.trash_path.read_text(encoding="utf-8"))
    assert trash["c0ffee01"]["reason"] == "重构完成"


def entry_text(text: str, memory_id: str) -> str:
    """An entry's lines, from its key to the next top-level key."""
    lines = text.splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{memory_id}:"))
    end = next((i for i in range(start + 1, len(lines)) if lines[i][:1] not in (" ", "-", "\n")), len(lines))
    return "".join(lines[start:end])


def test_previous_version_kept_as_backup(seed_store):
    before = seed_store.read_bytes()
    mm = YamlMemoryManager(seed_store)
    mm.add("新的记忆", "瞬间")
    mm.compact()
    assert mm.backup_path.read_bytes() == before
    assert not list(seed_store.parent.glob(".*.tmp"))


def test_missing_file_is_created(tmp_path):
    path = tmp_path / "nested" / "memory.yaml"
    mm = YamlMemoryManager(path)
    assert path.exists() and mm.show() == [] and mm.self_check().status == "OK"


@pytest.mark.parametrize(
    "content",
    [b"a: [unclosed\n  - b: :\n", b"- just\n- a list\n", b"\xff\xfe\x00garbage", b"key: value: other\n"],
)
def test_corrupt_file_fails_and_is_never_overwritten(tmp_path, content):
    path = tmp_path / "memory.yaml"
    path.write_bytes(content)
    mm = YamlMemoryManager(path)
    report = mm.self_check()
    assert report.status == "FAIL" and str(path) in report.issues[0]
    for write in (lambda: mm.add("x", "y"), lambda: mm.purge()):
        with pytest.raises(StoreCorrupt):
            write()
    with pytest.raises(StoreCorrupt):
        mm.show()
    assert path.read_bytes() == content


def test_corrupt_report_names_the_backup(seed_store):
    mm = YamlMemoryManager(seed_store)
    mm.add("一条", "瞬间")
    mm.close()  # compacts: creates the backup
    seed_store.write_text("{{{ not yaml", encoding="utf-8")
    report = YamlMemoryManager(seed_store).self_check()
    assert report.status == "FAIL" and str(mm.backup_path) in report.issues[0]


def test_file_corrupted_behind_a_running_manager_is_not_overwritten(seed_store):
    mm = YamlMemoryManager(seed_store)
    mm.show()  # cached
    seed_store.write_text("[broken", encoding="utf-8")
    with pytest.raises(StoreCorrupt):
        mm.add("x", "y")
    assert seed_store.read_text(encoding="utf-8") == "[broken"


def test_self_check_repairs_and_reports(tmp_path):
    path = tmp_path / "memory.yaml"
    path.write_text(
        "aaaa0001:\n  description: '  多了空格  '\n  theme: 身份\n  history: null\n"
        "  latest_update_time: '2026-07-10 21:14:03'\n"
        "aaaa0002:\n  description: 正常\n  theme: ''\n  history: []\n  latest_update_time: '2026-07-10 21:14:03'\n"
        "  hit: -3\n",
        encoding="utf-8",
    )
    report = YamlMemoryManager(path).self_check()
    assert report.status == "OK" and report.item_count == 2
    text = " ".join(report.repaired)
    for fragment in ("stripped", "未分类", "1 memory had an impossible hit count"):
        assert fragment in text
    for fragment in ("missing hit", "history"):  # another valid layout (issue 26 item 3): not a repair
        assert fragment not in text
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert data["aaaa0001"] == {
        "description": "多了空格", "theme": "身份", "history": [],
        "latest_update_time": "2026-07-10T21:14:03", "hit": 0,
    }
    assert data["aaaa0002"]["theme"] == "未分类" and data["aaaa0002"]["hit"] == 0
    assert YamlMemoryManager(path).self_check().repaired == []


def test_self_check_warns_on_unrepairable(tmp_path):
    path = tmp_path / "memory.yaml"
    path.write_text("aaaa0001:\n  description: ''\n  theme: 身份\n  history: []\n  hit: 0\n", encoding="utf-8")
    report = YamlMemoryManager(path).self_check()
    assert report.status == "WARN" and "empty description" in report.issues[0]
    assert "aaaa0001" in yaml.safe_load(path.read_text(encoding="utf-8"))  # kept, not dropped


def test_the_trash_file_is_dumped_a_memory_at_a_time(tmp_path, monkeypatch):
    """The trash file is written one dump per deleted memory, never one dump of the whole trash: the
    C emitter holds the GIL through a dump, and one of 5,000 deleted memories (a 100,000-memory
    store) held the app's window 0.1-0.7 s at every delete or restore (issue 37,
    ``bench/ui_interactions.py``). The file reads back as the whole trash."""
    from sonetto_desktop.memory.stores.yaml import format as yaml_format

    mm = YamlMemoryManager(tmp_path / "memory.yaml", flush_delay=None)
    ids = [mm.add(f"第 {i} 条记忆", "主题") for i in range(30)]
    with mm.group():
        for memory_id in ids[:20]:
            mm.delete(memory_id, "不再需要")
    dumped: list[int] = []
    real_dump = yaml.dump

    def counted(data, *args, **kwargs):
        dumped.append(len(data))
        return real_dump(data, *args, **kwargs)

    monkeypatch.setattr(yaml_format.yaml, "dump", counted)
    mm.delete(ids[20], "也不要了")
    mm.close()
    assert dumped and max(dumped) == 1, dumped
    trash = yaml.safe_load(mm.trash_path.read_text(encoding="utf-8"))
    assert set(trash) == set(ids[:21]) and trash[ids[20]]["reason"] == "也不要了"
    assert trash[ids[0]]["item"]["description"] == "第 0 条记忆"
