"""The query's own phrases count: a memory sharing them outranks one reached through a related word."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from sonetto_desktop.memory import MemoryItem, SqliteMemoryManager
from sonetto_desktop.memory.retrieval.mechanical import MechanicalRetriever

NOW = datetime(2026, 12, 2, 12, 0)

# Our own small bank (not a benchmark set).
BANK = {
    "help": ("阿宁帮忙做园艺活动，虽然累但很开心。", "生活"),
    "family": ("阿宁和家人去海边野餐。", "生活"),
    "house": ("阿宁的老家在湖南，房子很旧。", "身份"),
    "friend": ("阿宁和好朋友一起画画，大家都很开心。", "爱好"),
    "tv": ("阿宁和爸爸一起看电视，看得很开心。", "生活"),
    "swim": ("阿宁暑假学会了游泳，很兴奋。", "爱好"),
}


@pytest.fixture
def retriever(tmp_path):
    mm = SqliteMemoryManager(tmp_path / "p.sqlite3")
    stamp = (NOW - timedelta(days=10)).isoformat()
    mm.import_items({mid: MemoryItem(d, t, latest_update_time=stamp) for mid, (d, t) in BANK.items()})
    r = MechanicalRetriever(mm, now=lambda: NOW, index_path=False)
    yield r
    r.close()
    mm.close()


def test_a_memory_sharing_the_querys_phrase_outranks_a_related_word_match(retriever):
    # 帮忙 is a function word, but "帮忙做" is the query's own phrase; 家人 only relates to 家务
    found = [d["id"] for d in retriever.retrieve("我还可以帮忙做什么家务呢", 5)]
    assert "help" in found and "family" in found
    assert found.index("help") < found.index("family")
