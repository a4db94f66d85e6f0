"""The import preview says exactly what ``import_items`` then does (new / beside a taken id / skipped)."""

from __future__ import annotations

from sonetto_desktop.memory.import_preview import NEW, NEW_ID, SKIPPED, preview_import
from sonetto_desktop.memory.item import MemoryItem
from sonetto_desktop.memory.stores.yaml.store import YamlMemoryManager


def test_preview_matches_what_the_import_does(tmp_path):
    mm = YamlMemoryManager(tmp_path / "memory.yaml")
    kept = mm.add("讨厌香菜", "品味")
    gone = mm.add("旧的", "杂项")
    mm.delete(gone, "测试")
    items = {
        "fresh1": MemoryItem("喜欢爵士", "音乐"),
        kept: MemoryItem("换了新工作", "工作"),        # id taken, other text: added beside it
        gone: MemoryItem("垃圾桶里的编号", "杂项"),     # id in the trash: a fresh id too
        "dup": MemoryItem("讨厌香菜", "品味"),          # same as a stored memory
        "dup2": MemoryItem("喜欢爵士", "音乐"),         # same as an earlier entry of the file
    }
    preview = preview_import(mm, items)
    outcomes = {row.memory_id: row.outcome for row in preview.rows}
    assert outcomes == {"fresh1": NEW, kept: NEW_ID, gone: NEW_ID, "dup": SKIPPED, "dup2": SKIPPED}
    assert mm.count() == 1  # nothing written
    added, skipped = mm.import_items(items, reason="测试")
    assert len(added) == preview.count(NEW) + preview.count(NEW_ID) and sorted(skipped) == ["dup", "dup2"]
    assert "fresh1" in added and kept in mm.all_items() and mm.get(kept).description == "讨厌香菜"


def test_preview_counts_every_entry_of_a_file_that_repeats_an_id(tmp_path):
    from sonetto_desktop.memory.transfer import read_import

    src = tmp_path / "dup.json"
    src.write_text('{"a1": {"description": "喜欢猫", "theme": "品味"}, "a1": {"description": "住在成都", "theme": "身份"}}',
                   encoding="utf-8")
    items = read_import(src)
    assert [i.description for i in items.values()] == ["喜欢猫", "住在成都"] and items.renamed == {"a1-2": "a1"}
    mm = YamlMemoryManager(tmp_path / "memory.yaml")
    preview = preview_import(mm, items)
    assert {row.memory_id: row.outcome for row in preview.rows} == {"a1": NEW, "a1-2": NEW_ID}
    added, skipped = mm.import_items(items)
    assert sorted(added) == ["a1", "a1-2"] and not skipped
    assert len(added) == preview.count(NEW) + preview.count(NEW_ID)
