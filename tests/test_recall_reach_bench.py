"""bench/recall_reach.py on a tiny set: reach is what the plan shows, the budget bounds it, and the
embeddings path runs through the scripted server."""

from __future__ import annotations

from datetime import datetime

from bench import recall_reach
from bench.recall import Memory, QueryCase
from bench.recall_public import Group

NOW = datetime(2026, 12, 2, 12, 0)


def tiny() -> list[Group]:
    bank = [Memory("k1", "小K爱吃螺蛳粉。", "品味", "2026-11-20T12:00:00", 2),
            Memory("k2", "小K养了一只叫汤圆的布偶猫。", "身份", "2025-03-01T12:00:00", 0),
            Memory("k3", "小K在学吉他。", "项目", "2026-06-01T12:00:00", 1)]
    cases = [QueryCase("螺蛳粉好吃吗", ["k1"], "literal"), QueryCase("小老虎最近乖不乖", ["k2"], "semantic"),
             QueryCase("想学一种乐器", ["k3"], "category")]
    return [Group("tiny", bank, cases, NOW)]


def test_reach_counts_the_gold_memories_the_plan_shows(capsys):
    tallies = recall_reach.measure(tiny(), 400, "synthetic", [], [100_000, 800], "spread")
    full, small = tallies["llm / hybrid @100,000"].row(), tallies["llm / hybrid @800"].row()
    assert full["micro"] == 1.0 and full["shown"] == 400  # below the budget every memory is shown
    assert small["shown"] < 60 and small["tokens"] < 800 + 2_500
    assert tallies["before: hybrid @60"].row()["queries"] == 3
    assert 0 <= tallies["mechanical (offline)"].row()["micro"] <= 1
    recall_reach.print_reach("tiny", tallies)
    out = capsys.readouterr().out
    assert "| llm / hybrid @100,000 | **1.000** |" in out and "| category | literal | semantic |" in out


def test_the_embeddings_path_reaches_what_words_do_not():
    from bench.recall_reach_dense import scripted_dense

    tallies = recall_reach.measure(tiny(), 400, "synthetic", [], [1500], "spread", scripted_dense)
    words, dense = tallies["llm / hybrid @1,500"].row(), tallies["+ embeddings @1,500"].row()
    assert dense["kinds"]["semantic"] == 1.0 and words["kinds"]["semantic"] == 0.0
