"""The SQLite self-check's fast pass (issue 37: ``sonetto --self-test`` at 100,000 memories).

The self-check built an item of every row and ran ``validate_item`` on it: ~8 µs a memory, 0.8 s
of Python at 100,000 (1.9 s with real histories), on the self-test's path and the GIL the wall
waits for. ``validation.sound_row`` asks the same questions of a row's raw values and passes a sound
row without building anything; only the others take the full way. It must never pass a row the
full way would find something in: that is checked here on rows of every odd kind, and a sound row
must really pass (or the fast pass saves nothing).
"""

from __future__ import annotations

import json
import sqlite3

from hypothesis import given, settings
from hypothesis import strategies as st

from sonetto_desktop.memory import MemoryItem, SqliteMemoryManager
from sonetto_desktop.memory.record import COLUMNS, row_values
from sonetto_desktop.memory.stores import sqlite as sqlite_store
from sonetto_desktop.memory.stores.validation import item_from_raw, oversize_fields, sound_row, validate_item

BLANKS = " \t\n\u3000\x1c\x85\xa0\u2028"
inner = st.text(alphabet="猫狗ab1 \u3000", min_size=0, max_size=6)
# values a sound row holds, at their limits too
good_text = st.one_of(st.builds(lambda a, b, c: a + b + c, st.sampled_from("猫a1"), inner, st.sampled_from("狗b2")),
                      st.sampled_from(["猫", "a" * 64, "理" * 5000]))
good_theme = st.one_of(good_text.filter(lambda t: len(t) <= 64), st.just("主" * 64))
good_entry = st.fixed_dictionaries(
    {"action": st.sampled_from(["create", "update", "lock", "unlock", "merge"]), "actor": st.sampled_from(["user", "mcp:a"])},
    optional={"reason": st.one_of(inner, st.sampled_from(["理" * 1000, "é" * 1000]), st.integers(), st.none()),
              "from": inner, "time": st.sampled_from(["2026-01-02T03:04:05", "昨天"]),
              "nested": st.lists(st.dictionaries(st.sampled_from("ab"), st.integers()), max_size=2)})
good_history = st.lists(good_entry, max_size=3).flatmap(
    lambda h: st.sampled_from([json.dumps(h, ensure_ascii=False), json.dumps(h)]))  # (\\u escapes: longer text)
good_stamp = st.sampled_from(["2026-01-02T03:04:05", "2026-01-02 03:04", "2026/01/02", "昨天", " 昨天 ", "x"])
good_hit = st.one_of(st.integers(0, 5), st.just(2**31 - 1), st.none())
good_pinned = st.sampled_from([0, 1, "yes", "no", None, 2])
# what a damaged row may hold instead
odd_text = st.one_of(st.builds(lambda a, t, b: a + t + b, st.sampled_from(["", *BLANKS]), good_text,
                               st.sampled_from(["", *BLANKS])),
                     st.text(alphabet=BLANKS, max_size=3), st.sampled_from(["a" * 65, "理" * 5001]),
                     st.none(), st.integers(-3, 3), st.floats(allow_nan=True), st.binary(max_size=3))
odd_entry = st.one_of(st.integers(), st.text(max_size=3), st.lists(st.integers(), max_size=2), st.none())
odd_history = st.one_of(
    st.lists(st.one_of(good_entry, odd_entry), min_size=1, max_size=3).map(lambda h: json.dumps(h, ensure_ascii=False)),
    st.sampled_from([1001, 1002]).map(lambda n: json.dumps([{"action": "update", "reason": "理" * n}], ensure_ascii=False)),
    st.sampled_from(["", "null", "{}", "[NaN]", '[{"a": NaN}]', "not json", "[1e999]", "3", '"[]"', "[", "[] x", " []", "[] ", "\ufeff[]"]),
    st.none(), st.integers(), st.binary(max_size=3))
odd_stamp = st.one_of(st.sampled_from(["", "  ", "\u3000"]), st.none(), st.integers(), st.floats(), st.binary(max_size=2))
odd_hit = st.one_of(st.integers(-5, -1), st.sampled_from([2**31, 10**20]), st.floats(), st.text(max_size=2),
                    st.booleans())
odd_pinned = st.one_of(st.floats(allow_nan=True), st.text(max_size=3), st.binary(max_size=2))
GOOD = {"description": good_text, "theme": good_theme, "history": good_history, "latest_update_time": good_stamp,
        "hit": good_hit, "pinned": good_pinned}
ODD = {"description": odd_text, "theme": odd_text, "history": odd_history, "latest_update_time": odd_stamp,
       "hit": odd_hit, "pinned": odd_pinned}


@st.composite
def row(draw) -> tuple:
    """A row as a table may hold it: sound, with one or two of its values odd (or any value at all)."""
    odd = draw(st.sets(st.sampled_from(sorted(GOOD)), max_size=2))
    values = {name: draw(ODD[name] if name in odd else GOOD[name]) for name in GOOD}
    extra = draw(st.sampled_from(["{}", '{"note": "手写"}', "bad"]))
    return ("ab12cd34", *(values[name] for name in COLUMNS[1:-1]), extra)


def full_pass(raw: tuple) -> tuple[list[str], list[str], list[str]]:
    """What the self-check's full way finds in a row: issues, repairs, sizes over their limits."""
    item, _ = item_from_raw(*row_values(raw, COLUMNS, shared=False))
    issues, repaired = validate_item(raw[0], item)
    return issues, repaired, oversize_fields(raw[0], item)


@settings(max_examples=3000, deadline=None)
@given(raw=row())
def test_a_row_passed_at_once_is_one_the_full_way_finds_nothing_in(raw):
    if sound_row(COLUMNS)(raw):
        assert full_pass(raw) == ([], [], [])


def test_sound_rows_are_passed_at_once():
    item = MemoryItem("小林喜欢猫", "品味", hit=3)
    item.record_creation("user", "理" * 1000)  # a reason at its limit, in a history longer than that
    item.update("改", new_description="小林喜欢布偶猫", actor="mcp:cursor")
    item.set_locked(True, actor="user")
    rows = [("m1", item.description, item.theme, json.dumps(item.history, ensure_ascii=False),
             item.latest_update_time, item.hit, 1, "{}"),
            ("m2", "只有描述", "主题", "[]", "2026-01-01 00:00", 0, 0, '{"note": "手写"}'),
            ("m3", "时间是一句话", "主题", "[]", "上周三", 2**31 - 1, 0, "{}")]
    for raw in rows:
        assert full_pass(raw) == ([], [], [])
        assert sound_row(COLUMNS)(raw), raw


class _Counting:
    """``item_from_raw`` as it is, counting its calls (which rows the self-check read the full way)."""

    def __init__(self) -> None:
        self.ids: list[str] = []

    def __call__(self, memory_id, raw):
        self.ids.append(memory_id)
        return item_from_raw(memory_id, raw)


def test_the_self_check_builds_items_of_the_rows_with_something_to_say_only(tmp_path, monkeypatch):
    mm = SqliteMemoryManager(tmp_path / "memory.db")
    try:
        for i in range(40):
            mm.add(f"用户第 {i} 次说起周末去爬山", "爱好", actor="agent" if i % 2 else "user")
        [damaged, *_] = [r["id"] for r in mm.show()]
        conn = sqlite3.connect(tmp_path / "memory.db")  # another program wrote it
        conn.execute("UPDATE memories SET theme = ' 爱好 ', hit = -2 WHERE id = ?", (damaged,))
        conn.commit()
        conn.close()
        counting = _Counting()
        monkeypatch.setattr(sqlite_store, "item_from_raw", counting)
        report = mm.self_check()
        assert report.status == "OK" and report.item_count == 40
        assert any("stripped blanks around theme" in note for note in report.repaired)
        assert any("impossible hit count" in note for note in report.repaired)
        assert counting.ids[0] == damaged and set(counting.ids) == {damaged}  # (read, then re-read under the lock)
        assert mm.get(damaged).theme == "爱好" and mm.get(damaged).hit == 0
        counting.ids.clear()
        assert mm.self_check().repaired == [] and counting.ids == []
    finally:
        mm.close()


def test_the_server_stores_self_check_reads_only_the_rows_with_something_to_say(tmp_path, pg_server, monkeypatch):
    import uuid

    import psycopg

    from pg_fixtures import drop_schema
    from sonetto_desktop.memory.stores.postgres import transaction
    from sonetto_desktop.memory.stores.postgres.store import PostgresMemoryManager

    schema = f"t_sound_{uuid.uuid4().hex[:12]}"
    mm = PostgresMemoryManager(pg_server.url, schema=schema, device="desk", listen=False)
    try:
        for i in range(30):
            mm.add(f"用户第 {i} 次说起周末去爬山", "爱好", actor="agent")
        with psycopg.connect(pg_server.url, autocommit=True) as admin:  # another program wrote it
            admin.execute(f'INSERT INTO "{schema}".memories (id, description, theme, history, latest_update_time, hit)'
                          " VALUES ('bad00001', ' 多了空格 ', '爱好', '{\"a\": 1}', '2026-01-01T00:00:00', 0)")
        read: list[str] = []
        real = transaction.read_row
        monkeypatch.setattr(transaction, "read_row", lambda row, **kw: (read.append(row[0]), real(row, **kw))[1])
        report = mm.self_check()
        assert report.item_count == 31 and read == ["bad00001"]
        assert any(note.startswith("bad00001: history") for note in report.repaired)
        assert any("stripped blanks around description" in note for note in report.repaired)
        assert mm.get("bad00001").description == "多了空格"
    finally:
        mm.close()
        drop_schema(pg_server.url, schema)
