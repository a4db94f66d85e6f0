"""migrate_store: YAML <-> SQLite copies items (with history) and trash, and keeps the source."""

from __future__ import annotations

import pytest

from sonetto_desktop.memory import SqliteMemoryManager, YamlMemoryManager
from sonetto_desktop.memory.stores.migrate import MigrationError, migrate_store


def _fill(mm):
    a = mm.add("用户喜欢猫", "偏好", reason="聊天里说的")
    b = mm.add("用户住在杭州", "身份")
    c = mm.add("用户下周去上海出差", "计划")
    mm.update(a, "更具体", new_description="用户喜欢橘猫")
    mm.hit(b)
    mm.hit(b)
    d = mm.add("用户喜欢狗", "偏好")
    mm.merge(a, d, "用户喜欢橘猫和狗", "偏好", "两条都是宠物偏好")
    mm.delete(c, "计划取消了")
    return {"kept": a, "absorbed": d, "deleted": c, "plain": b}


@pytest.mark.parametrize(
    "src_factory,dst_factory",
    [
        (lambda p: YamlMemoryManager(p / "memory.yaml"), lambda p: SqliteMemoryManager(p / "memory.db")),
        (lambda p: SqliteMemoryManager(p / "memory.db"), lambda p: YamlMemoryManager(p / "memory.yaml")),
    ],
    ids=["yaml->sqlite", "sqlite->yaml"],
)
def test_migration_keeps_items_history_and_trash(tmp_path, src_factory, dst_factory):
    src = src_factory(tmp_path)
    ids = _fill(src)
    before_items = {k: v.to_dict() for k, v in src.all_items().items()}
    before_trash = src.list_trash()
    dst = dst_factory(tmp_path)

    report = migrate_store(src, dst)

    assert (report.items, report.trash) == (2, 2)
    assert {k: v.to_dict() for k, v in dst.all_items().items()} == before_items
    assert dst.get(ids["plain"]).hit == 2
    assert len(dst.get(ids["kept"]).history) == len(src.get(ids["kept"]).history) > 1
    assert dst.list_trash() == before_trash
    # The copied trash is usable: restoring brings the memory back under its old id.
    dst.restore(ids["deleted"])
    assert dst.get(ids["deleted"]).description == "用户下周去上海出差"
    # The source is untouched.
    assert {k: v.to_dict() for k, v in src.all_items().items()} == before_items
    src.close()
    dst.close()


def test_migration_refuses_a_non_empty_destination(tmp_path):
    src = YamlMemoryManager(tmp_path / "memory.yaml")
    src.add("a", "t")
    dst = SqliteMemoryManager(tmp_path / "memory.db")
    dst.add("already here", "t")
    with pytest.raises(MigrationError):
        migrate_store(src, dst)
    assert [row["description"] for row in dst.show()] == ["already here"]
    assert src.count() == 1
    dst.close()


def test_migration_publishes_one_change(tmp_path):
    src = YamlMemoryManager(tmp_path / "memory.yaml")
    src.add("a", "t")
    src.add("b", "t")
    dst = SqliteMemoryManager(tmp_path / "memory.db")
    seen = []
    dst.subscribe(seen.append)
    migrate_store(src, dst)
    assert [c.kind for c in seen] == ["reload"]  # one bulk change: views re-read the new store once
    dst.close()


def test_open_store_migrates_on_a_backend_switch_and_back(tmp_path):
    from sonetto_desktop.memory.stores.migrate import open_store

    yaml_mm, report = open_store(tmp_path, "yaml")
    assert report is None
    ids = _fill(yaml_mm)
    yaml_mm.close()

    db, report = open_store(tmp_path, "sqlite")
    assert (report.items, report.trash) == (2, 2)
    assert db.get(ids["plain"]).hit == 2
    assert not (tmp_path / "memory.yaml").exists()
    assert list(tmp_path.glob("memory.yaml.migrated-*")), "the old file is kept"
    db.add("切到 SQLite 之后记住的", "新")
    db.close()

    back, report = open_store(tmp_path, "yaml")
    assert report is not None and report.items == 3
    assert "切到 SQLite 之后记住的" in [row["description"] for row in back.show()]
    back.close()
    # Opening the same backend again migrates nothing.
    again, report = open_store(tmp_path, "yaml")
    assert report is None and again.count() == 3
    again.close()


def test_open_store_leaves_a_corrupt_old_store_alone_and_says_so(tmp_path):
    """Regression (issue 11 item 1): a failed switch opened the new, empty store (0 memories) with
    only a log line. The old store stays authoritative: it is what opens, and the report says why."""
    from sonetto_desktop.memory.stores.migrate import open_store

    (tmp_path / "memory.yaml").write_text("{ this is: [not yaml", encoding="utf-8")
    store, report = open_store(tmp_path, "sqlite")
    assert report is not None and report.problem is not None
    assert report.problem.opened == "yaml" and "could not be read" in report.problem.en
    assert store.self_check().status == "FAIL"  # the user sees the store problem (and its backup)
    assert (tmp_path / "memory.yaml").read_text(encoding="utf-8") == "{ this is: [not yaml"
    assert not (tmp_path / "memory.db").exists() or SqliteMemoryManager(tmp_path / "memory.db").count() == 0
    store.close()
