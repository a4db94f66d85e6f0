"""The query's own phrases count: a memory sharing them outranks one reached through a related word."""

from __future__ import annotations

from datetime import datetime

import pytest

from recall_banks import bank_retriever

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
    with bank_retriever(tmp_path / "p.sqlite3", BANK, NOW) as r:
        yield r


def test_a_memory_sharing_the_querys_phrase_outranks_a_related_word_match(retriever):
    # 帮忙 is a function word, but "帮忙做" is the query's own phrase; 家人 only relates to 家务
    found = [d["id"] for d in retriever.retrieve("我还可以帮忙做什么家务呢", 5)]
    assert "help" in found and "family" in found
    assert found.index("help") < found.index("family")
