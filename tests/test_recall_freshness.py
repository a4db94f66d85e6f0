"""Is a memory just written findable by the next query, and never recalled as it was? (trust)

Real stores just above the size where the offline index diffs itself against the store in the
background (``index_lifecycle.SYNC_BUILD_MAX``, 2,000 memories), real writes (the wall's bulk actions
and undo, another program, another Sonetto process, the background writer through the scripted
server) and the real recall: the next query must see every write made before it, deleted memories
gone, edited ones under their new words only.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime, timedelta

import pytest

from helpers import ids
from memory_stores import open_store
from sonetto_desktop.memory import MemoryItem
from sonetto_desktop.memory.operations import MemoryOperations
from sonetto_desktop.memory.retrieval import index_lifecycle
from sonetto_desktop.memory.retrieval import mechanical as mechanical_module
from sonetto_desktop.memory.retrieval.recall import MemoryRecall

NOW = datetime(2026, 12, 2, 12, 0)
#: Just above the size from which a diff of the whole store runs in the background.
BIG = index_lifecycle.SYNC_BUILD_MAX + 100


def big_bank(n: int = BIG) -> dict[str, MemoryItem]:
    stamp = (NOW - timedelta(days=30)).isoformat()
    places = ["图书馆", "菜市场", "健身房", "电影院", "公园", "地铁站", "书店", "面包店"]
    return {f"f{i:05d}": MemoryItem(f"小夏第{i}次路过{places[i % len(places)]}，买了{i % 97}个东西。", "瞬间",
                                    latest_update_time=stamp) for i in range(n)}


@pytest.fixture(params=["sqlite", "yaml"])
def kind(request):
    return request.param


@pytest.fixture
def big(kind, tmp_path):
    """A store of ``BIG`` memories with its offline recall built (a saved index beside it)."""
    mm = open_store(kind, tmp_path)
    mm.import_items(big_bank())
    recall = MemoryRecall(mm, clock=lambda: NOW)
    recall.warm_up()
    yield mm, recall
    recall.close()
    mm.close()


def mechanical(recall: MemoryRecall, query: str) -> list[dict]:
    return recall.retrieve(query, "mechanical")


def test_a_bulk_delete_of_thousands_is_not_recalled_by_the_next_message_nor_its_undo_missed(big):
    """The wall's "delete selected" of more memories than the index applies one by one: the next
    query started the index's diff of the whole store in the background and answered from before
    it, every deleted memory still recalled (with its text); after the undo the restored ones were
    missed the same way."""
    mm, recall = big
    ops = MemoryOperations(mm)
    camping = [mm.add(f"小夏第{i}次去露营地烧烤，带了{i}号帐篷。", "瞬间") for i in range(3)]
    assert set(camping) <= set(ids(mechanical(recall, "露营地烧烤帐篷")))
    every = list(mm.all_items())
    result = ops.delete_many(every)
    assert mm.count() == 0 and len(result.changes) == BIG + 3
    assert mechanical(recall, "露营地烧烤帐篷") == []
    assert mechanical(recall, "小夏路过图书馆") == []
    ops.undo_turn(result.turn_id)
    assert set(camping) <= set(ids(mechanical(recall, "露营地烧烤帐篷")))


def test_a_bulk_delete_of_thousands_is_applied_without_reading_the_whole_store(big, monkeypatch):
    """Deleted memories cost the index nothing to take out: a bulk delete of more than it applies one
    by one read the whole store and re-diffed it (~2 s at 100,000 memories, which the next query
    waits for) as if an unknown program had written it."""
    mm, recall = big
    reads = []
    real = mm.columns_of_all
    monkeypatch.setattr(mm, "columns_of_all", lambda names: (reads.append(names), real(names))[1])
    ops = MemoryOperations(mm)
    result = ops.delete_many([mid for mid in mm.all_items() if mid < "f02050"])
    assert len(result.changes) == 2050 > mechanical_module.INLINE_CHANGES_MAX
    assert ids(mechanical(recall, "小夏路过图书馆")) and reads == []
    assert all(doc["id"] >= "f02050" for doc in recall.mechanical.candidates("小夏路过图书馆", 200))


def test_another_programs_write_to_a_big_store_is_seen_by_the_next_query(tmp_path):
    """A write the store learns of only as "something changed" (another program than Sonetto wrote
    the SQLite file): the index diffs itself against the store in the background, and the query
    right after answered from before it: the edited memory under its old text, the deleted one."""
    mm = open_store("sqlite", tmp_path)
    mm.import_items(big_bank())
    cat = mm.add("小夏的猫叫汤圆，是一只橘猫。", "身份")
    bike = mm.add("小夏的自行车是一辆蓝色的捷安特。", "身份")
    recall = MemoryRecall(mm, clock=lambda: NOW)
    recall.warm_up()
    assert ids(mechanical(recall, "汤圆橘猫"))[0] == cat
    mm.poll_external()  # (the watcher's baseline: this instance's own writes)
    with sqlite3.connect(mm.path) as conn:  # a program that keeps no change log
        conn.execute("UPDATE memories SET description = ? WHERE id = ?", ("小夏的猫叫年糕，是一只狸花猫。", cat))
        conn.execute("DELETE FROM memories WHERE id = ?", (bike,))
    conn.close()
    assert [c.kind for c in mm.poll_external()] == ["reload"]
    found = mechanical(recall, "年糕狸花猫")
    assert found and found[0]["id"] == cat and found[0]["description"] == "小夏的猫叫年糕，是一只狸花猫。"
    assert all("汤圆" not in doc["description"] for doc in mechanical(recall, "汤圆橘猫"))
    assert bike not in ids(mechanical(recall, "蓝色捷安特自行车"))
    recall.close()
    mm.close()


def test_a_memory_changed_while_the_app_was_closed_is_never_recalled_as_it_was(kind, tmp_path, monkeypatch):
    """Another Sonetto process (the command line, the MCP server) edited and deleted memories while
    this one was closed. At the next start the saved index is verified in the background, and
    queries answer meanwhile from what it holds: that was the memory as it no longer is (the old text,
    the deleted one) until the verification reached it."""
    from sonetto_desktop.memory.retrieval import tokenize as tok
    from sonetto_desktop.memory.retrieval.mechanical import MechanicalRetriever

    mm = open_store(kind, tmp_path)
    mm.import_items(big_bank(index_lifecycle.SYNC_VERIFY_MAX + 100))
    cat = mm.add("小夏的猫叫汤圆，是一只橘猫。", "身份")
    bike = mm.add("小夏的自行车是一辆蓝色的捷安特。", "身份")
    r = MechanicalRetriever(mm, now=lambda: NOW)
    r.warm_up()
    r.close()  # saved beside the store
    mm.close()
    other = open_store(kind, tmp_path)  # the command line, while the app is closed
    other.update(cat, "改名", new_description="小夏的猫叫年糕，是一只狸花猫。", actor="cli")
    other.delete(bike, "卖了", actor="cli")
    other.close()
    mm = open_store(kind, tmp_path)
    real, release = tok.batch_keys, __import__("threading").Event()
    monkeypatch.setattr(tok, "batch_keys", lambda texts: (release.wait(30), real(texts))[1])  # a slow machine
    r = MechanicalRetriever(mm, now=lambda: NOW)
    try:
        assert all("汤圆" not in doc["description"] for doc in r.retrieve("汤圆橘猫"))
        assert bike not in ids(r.retrieve("蓝色捷安特自行车"))
    finally:
        release.set()
    r.warm_up()
    assert ids(r.retrieve("年糕狸花猫"))[0] == cat
    r.close()
    mm.close()
