"""One field schema (issue 28 item 3, issue 26 item 2): every field of ``record.FIELDS`` and every
other key of an item survives every backend's round trip (YAML, SQLite, PostgreSQL, export/import);
tables of an older version gain the columns of newer fields; ``pinned`` is set only by the person."""

from __future__ import annotations

import sqlite3

import pytest
import yaml

from memory_stores import BACKENDS, backend_store_fixture, open_store, use_backend
from sonetto_desktop.memory import MemoryItem, MemoryOperations, SqliteMemoryManager, YamlMemoryManager
from sonetto_desktop.memory.errors import FieldNotSettable
from sonetto_desktop.memory.record import FIELDS, card_state
from sonetto_desktop.memory.transfer import read_import, write_export

mm = backend_store_fixture()

OTHER_KEYS = {"note": "手写的备注", "source": {"app": "笔记", "tags": ["a", "b"]}, "score": 3}


def sample_item() -> MemoryItem:
    """Every field at its sample value (never its default) plus keys that are not fields."""
    return MemoryItem.from_dict({**{f.name: f.sample for f in FIELDS}, **OTHER_KEYS})


def assert_samples(item: MemoryItem, *, hits: int = 0) -> None:
    for f in FIELDS:
        expected = f.sample + hits if f.name == "hit" else f.sample
        assert getattr(item, f.name) == expected, f.name
    assert item.extra == OTHER_KEYS


def test_every_sample_differs_from_its_default():
    for f in FIELDS:
        assert f.sample is not None and f.sample != f.default(), f.name


def test_fields_and_other_keys_survive_a_write_and_a_reopen(mm, tmp_path):
    mm.import_items({"x1": sample_item()})
    mm.hit("x1")  # a write that stores the whole item again
    assert_samples(mm.get("x1"), hits=1)
    mm.close()
    again = open_store("postgres" if "Postgres" in type(mm).__name__ else
                       "yaml" if isinstance(mm, YamlMemoryManager) else "sqlite", tmp_path)
    try:
        assert_samples(again.get("x1"), hits=1)
        assert_samples(again.all_items()["x1"], hits=1)
        again.delete("x1", "看看回收站")
        again.restore("x1")
        item = again.get("x1")
        assert item.extra == OTHER_KEYS and item.pinned is True
    finally:
        again.close()


@pytest.mark.parametrize("fmt", ["yaml", "json"])
@pytest.mark.parametrize("target", BACKENDS)
def test_export_and_import_keep_every_field_and_key(mm, tmp_path, fmt, target, request):
    mm.import_items({"x1": sample_item()})
    path = tmp_path / f"export.{fmt}"
    write_export(mm, path, fmt)
    assert read_import(path)["x1"] == mm.get("x1")
    folder = tmp_path / "target"
    other = open_store(use_backend(request, target), folder)
    try:
        added, _ = other.import_items(read_import(path))
        assert added == ["x1"]
        assert_samples(other.get("x1"))
    finally:
        other.close()


def test_card_state_carries_the_card_fields(mm):
    ops = MemoryOperations(mm)
    mid = ops.add("小林喜欢猫", "品味").ids[0]
    change = ops.set_field(mid, "pinned", True)
    assert change.kind == "set" and change.extra == {"field": "pinned", "value": True}
    assert change.state(mid) == card_state(mm.get(mid)) and change.state(mid)["pinned"] is True
    [row] = mm.get_memories_grouped()["品味"]
    assert row == {"id": mid, **card_state(mm.get(mid))}
    assert ops.set_field(mid, "pinned", True) is None  # already pinned: nothing written


def test_only_the_person_pins_and_unpins_and_a_merge_keeps_a_pin(mm):
    ops = MemoryOperations(mm)
    keep = ops.add("小林喜欢猫", "品味").ids[0]
    gone = ops.add("小林喜欢布偶猫", "品味").ids[0]
    ops.set_field(gone, "pinned", True)
    before = mm.get(gone)
    for actor in ("agent", "mcp:cursor"):
        with pytest.raises(FieldNotSettable):
            ops.as_actor(actor).set_field(gone, "pinned", False)
    assert mm.get(gone) == before
    ops.as_actor("agent").merge(keep, gone, "小林喜欢猫，尤其布偶猫", "品味", reason="重复")
    assert mm.get(keep).pinned is True  # the writer's merge does not unpin
    ops.as_actor("cli").set_field(keep, "pinned", False)
    assert mm.get(keep).pinned is False


def test_an_unpinned_entry_is_written_in_the_seed_format(tmp_path):
    mm = YamlMemoryManager(tmp_path / "memory.yaml")
    mid = mm.add("小林喜欢猫", "品味")
    mm.set_field(mid, "pinned", True)
    mm.set_field(mid, "pinned", False)
    mm.close()
    entry = yaml.safe_load(mm.path.read_text(encoding="utf-8"))[mid]
    assert set(entry) == {"description", "theme", "history", "latest_update_time", "hit"}


def test_hand_added_keys_survive_an_update_in_the_file(tmp_path):
    path = tmp_path / "memory.yaml"
    path.write_text("ab12cd34:\n  description: 喜欢夏天和猫\n  theme: 品味\n  history: []\n"
                    "  latest_update_time: '2026-11-01T10:00:00'\n  hit: 0\n  pinned: true\n  note: 别忘了\n",
                    encoding="utf-8")
    mm = YamlMemoryManager(path)
    mm.update("ab12cd34", "补充", new_description="喜欢夏天、猫和西瓜")
    mm.close()
    entry = yaml.safe_load(path.read_text(encoding="utf-8"))["ab12cd34"]
    assert entry["description"] == "喜欢夏天、猫和西瓜" and entry["note"] == "别忘了"
    assert "pinned" not in entry  # the app's own field: in memory.flags.yaml (test_yaml_seed_format)
    assert YamlMemoryManager(path, flush_delay=None).get("ab12cd34").pinned is True


OLD_SQLITE = """
CREATE TABLE memories (id TEXT PRIMARY KEY, description TEXT NOT NULL, theme TEXT NOT NULL,
    history TEXT NOT NULL DEFAULT '[]', latest_update_time TEXT NOT NULL, hit INTEGER NOT NULL DEFAULT 0);
CREATE TABLE trash (id TEXT PRIMARY KEY, entry TEXT NOT NULL, deleted_at TEXT);
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
INSERT INTO meta VALUES ('schema_version', '1');
CREATE TABLE changes (seq INTEGER PRIMARY KEY AUTOINCREMENT, time TEXT NOT NULL, origin TEXT NOT NULL,
    kind TEXT NOT NULL, turn_id TEXT, record TEXT NOT NULL);
INSERT INTO memories VALUES ('old00001', '旧版本写的', '身份', '[]', '2026-01-01T00:00:00', 2);
"""


def test_an_older_sqlite_file_gains_the_new_columns(tmp_path):
    path = tmp_path / "memory.db"
    conn = sqlite3.connect(path)
    conn.executescript(OLD_SQLITE)
    conn.close()
    mm = SqliteMemoryManager(path)
    item = mm.get("old00001")
    assert (item.description, item.hit, item.pinned, item.extra) == ("旧版本写的", 2, False, {})
    mm.set_field("old00001", "pinned", True)
    mm.close()
    again = SqliteMemoryManager(path)
    assert again.get("old00001").pinned is True
    again.close()


def test_an_older_postgres_table_gains_the_new_columns(tmp_path, request):
    use_backend(request, "postgres")
    import os

    import psycopg

    from pg_fixtures import URL_ENV, schema_for

    schema = schema_for(tmp_path)
    with psycopg.connect(os.environ[URL_ENV], autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
        conn.execute(f'SET search_path TO "{schema}"')
        for statement in OLD_SQLITE.replace("INTEGER PRIMARY KEY AUTOINCREMENT",
                                            "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY").split(";"):
            if statement.strip():
                conn.execute(statement)
        conn.execute("ALTER TABLE changes ADD COLUMN device TEXT NOT NULL DEFAULT ''")
        conn.execute("ALTER TABLE changes ALTER COLUMN time SET DEFAULT now()::text")
        conn.execute("INSERT INTO meta VALUES ('pruned_through', '0')")
    store = open_store("postgres", tmp_path)
    try:
        item = store.get("old00001")
        assert (item.description, item.pinned, item.extra) == ("旧版本写的", False, {})
        store.set_field("old00001", "pinned", True)
        assert store.get("old00001").pinned is True
    finally:
        store.close()


def test_a_pin_is_a_change_in_the_history_that_its_action_takes_back(mm):
    """A pin and an unpin are history entries of their action (the text, theme and update time stay),
    so undoing the action unpins (and its undo pins again); a lock is not mistaken for a pin or
    the other way round. (Before, a pin left no trace: undoing its action found nothing to undo.)"""
    from sonetto_desktop.memory.changes import Turn

    ops = MemoryOperations(mm)
    mid = ops.add("小林喜欢猫", "品味").ids[0]
    ops.set_locked(mid, True)
    before = mm.get(mid)
    pin = Turn("ui-pin0001")
    ops.as_actor("user", pin).set_field(mid, "pinned", True)
    item = mm.get(mid)
    assert item.pinned is True and item.locked is True
    assert (item.description, item.theme, item.latest_update_time) == (
        before.description, before.theme, before.latest_update_time)
    assert item.history[-1]["action"] == "pin" and item.history[-1]["turn_id"] == "ui-pin0001"
    assert len(item.versions()) == len(before.versions())  # no version of its own
    undone = ops.undo_turn("ui-pin0001")
    item = mm.get(mid)
    assert item.pinned is False and item.locked is True and item.history[-1]["action"] == "unpin"
    assert [c.kind for c in undone.changes] == ["set"] and undone.effects == {"pinned": 1}
    ops.undo_turn(undone.turn_id)  # redo
    assert mm.get(mid).pinned is True and mm.get(mid).locked is True


def test_a_later_pin_keeps_an_undone_pin_and_a_lock_undo_leaves_the_pin(mm):
    from sonetto_desktop.memory.changes import Turn
    from sonetto_desktop.memory.undo import UndoConflict

    ops = MemoryOperations(mm)
    mid = ops.add("小林喜欢猫", "品味").ids[0]
    ops.as_actor("user", Turn("ui-pin0002")).set_field(mid, "pinned", True)
    ops.as_actor("user", Turn("ui-unpin003")).set_field(mid, "pinned", False)
    with pytest.raises(UndoConflict) as refused:  # the pin was changed since: the person's later action
        ops.undo_turn("ui-pin0002")
    assert [t.why for t in refused.value.touched] == ["pin_changed"]
    ops.as_actor("user", Turn("ui-lock0004")).set_locked(mid, True)
    ops.undo_turn("ui-lock0004")  # a pin between is no later lock change
    assert mm.get(mid).locked is False and mm.get(mid).pinned is False


def test_the_writer_takes_back_its_own_merge_of_a_pinned_memory(mm):
    """A writer's failed attempt that merged a pinned memory into another (the merge keeps the pin) is
    taken back by the writer itself (``consumer.rollback``: the agent undoes its own turn): the pin
    the merge carried over is the agent's own change, not the person's, so it is undone with the rest
    (before, the undo refused the kept memory with "only you may pin or unpin it", and the failed
    attempt's merge stayed)."""
    from sonetto_desktop.memory.changes import Turn

    ops = MemoryOperations(mm)
    kept = ops.add("小林喜欢猫", "品味").ids[0]
    absorbed = ops.add("小林养了一只橘猫", "品味").ids[0]
    ops.set_field(absorbed, "pinned", True)
    ops.as_actor("agent", Turn("w-merge0001")).merge(kept, absorbed, "小林喜欢猫，养了一只橘猫", "品味")
    assert mm.get(kept).pinned is True and absorbed not in ops.all_items()
    ops.as_actor("agent", Turn("rollback-0001")).undo_turn("w-merge0001")
    assert (mm.get(kept).description, mm.get(kept).pinned) == ("小林喜欢猫", False)
    assert (mm.get(absorbed).description, mm.get(absorbed).pinned) == ("小林养了一只橘猫", True)


def test_another_app_cannot_take_back_the_persons_pin(mm):
    from sonetto_desktop.memory.changes import Turn
    from sonetto_desktop.memory.undo import UndoConflict

    ops = MemoryOperations(mm)
    mid = ops.add("小林喜欢猫", "品味").ids[0]
    ops.as_actor("user", Turn("ui-pin0005")).set_field(mid, "pinned", True)
    with pytest.raises(UndoConflict) as refused:
        ops.as_actor("agent", Turn("undo-0005")).undo_turn("ui-pin0005")
    assert [t.why for t in refused.value.touched] == ["pin_only_user"]
    assert mm.get(mid).pinned is True
