"""Impossible hit counts (issue 26 item 4): ``hit: .inf`` or any huge number in a store is read as a
count the whole app can hold (at most 2**31 - 1, what the recall index and PostgreSQL keep), so offline
recall and the self-test work, and the self-check says so in one line however many memories had one."""

from __future__ import annotations

import sqlite3

from sonetto_desktop.memory import SqliteMemoryManager, YamlMemoryManager
from sonetto_desktop.memory.record import MAX_HIT
from sonetto_desktop.memory.retrieval.mechanical import MechanicalRetriever

ENTRY = "  theme: 偏好\n  history: []\n  latest_update_time: '2026-11-01T10:00:00'\n"


def _hit_lines(report) -> list[str]:
    return [line for line in report.issues + report.repaired if "hit" in line]


def test_impossible_hits_in_memory_yaml_are_clamped_and_said_once(tmp_path):
    path = tmp_path / "memory.yaml"
    path.write_text(f"a:\n  description: 喜欢猫\n{ENTRY}  hit: .inf\n"
                    f"b:\n  description: 喜欢狗\n{ENTRY}  hit: 99999999999999\n"
                    f"c:\n  description: 喜欢鸟\n{ENTRY}  hit: -5\n", encoding="utf-8")
    mm = YamlMemoryManager(path, flush_delay=None)
    assert (mm.get("a").hit, mm.get("b").hit, mm.get("c").hit) == (MAX_HIT, MAX_HIT, 0)
    found = MechanicalRetriever(mm, index_path=False).retrieve("猫")
    assert [row["description"] for row in found][:1] == ["喜欢猫"]
    report = mm.self_check()
    assert report.ok and len(_hit_lines(report)) == 1 and "3 memories" in _hit_lines(report)[0]
    mm.hit("a")  # a count at the limit stays there
    assert mm.get("a").hit == MAX_HIT
    mm.close()


def test_an_impossible_hit_in_an_sqlite_row_is_clamped_and_said_once(tmp_path):
    path = tmp_path / "memory.db"
    mm = SqliteMemoryManager(path)
    cat, dog = mm.add("喜欢猫", "偏好"), mm.add("喜欢狗", "偏好")
    conn = sqlite3.connect(path)
    conn.execute("UPDATE memories SET hit = ? WHERE id = ?", (2**62, cat))
    conn.execute("UPDATE memories SET hit = ? WHERE id = ?", (-7, dog))
    conn.commit()
    conn.close()
    assert mm.get(cat).hit == MAX_HIT and mm.get(dog).hit == 0
    assert {c["id"]: c["hit"] for cards in mm.get_memories_grouped().values() for c in cards} == {cat: MAX_HIT, dog: 0}
    found = MechanicalRetriever(mm, index_path=False).retrieve("猫")
    assert [row["description"] for row in found][:1] == ["喜欢猫"]
    report = mm.self_check()
    assert report.ok and len(_hit_lines(report)) == 1 and "2 memories" in _hit_lines(report)[0]
    assert mm.self_check().repaired == []  # written back once
    mm.close()
