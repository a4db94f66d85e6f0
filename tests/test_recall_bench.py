"""The recall benchmark's loader, metrics and runners, on tiny inline datasets."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest
import yaml

from bench import recall
from sonetto_desktop.memory import SqliteMemoryManager

NOW = datetime(2026, 12, 2, 12, 0)

TINY = {
    "persona": "小K",
    "memories": [
        {"id": "t1", "theme": "品味", "days_ago": 3, "hit": 2, "description": "小K爱吃螺蛳粉。"},
        {"id": "t2", "theme": "时效待办", "days_ago": 1, "hit": 0, "description": "小K{d+2}要去体检。"},
        {"id": "t3", "theme": "瞬间", "at": "2026-08-03T20:10:00", "hit": 1, "description": "{d-30}小K去了青岛。"},
    ],
    "queries": [
        {"q": "螺蛳粉好吃吗", "gold": ["t1"], "kind": "literal"},
        {"q": "后天有什么安排", "gold": ["t2"], "kind": "time"},
        {"q": "128 除以 16 等于几", "gold": [], "kind": "negative"},
    ],
}


def test_loader_expands_placeholders_and_times():
    ds = recall.load_dataset(TINY, NOW)
    by_id = {m.id: m for m in ds.memories}
    assert by_id["t2"].description == "小K12月4日要去体检。"
    assert by_id["t3"].description == "11月2日小K去了青岛。"
    assert by_id["t1"].latest_update_time == "2026-11-29T12:00:00"
    assert by_id["t3"].latest_update_time == "2026-08-03T20:10:00"
    assert by_id["t1"].hit == 2
    assert [q.kind for q in ds.queries] == ["literal", "time", "negative"]
    assert ds.queries[2].gold == []


def test_loader_reads_files_and_rejects_bad_input(tmp_path):
    path = tmp_path / "set.yaml"
    path.write_text(yaml.safe_dump(TINY, allow_unicode=True), encoding="utf-8")
    assert len(recall.load_dataset(path, NOW).memories) == 3
    broken = dict(TINY, queries=[{"q": "x", "gold": ["nope"]}])
    with pytest.raises(ValueError, match="nope"):
        recall.load_dataset(broken, NOW)
    with pytest.raises(ValueError, match="memories"):
        recall.load_dataset({"queries": []}, NOW)
    with pytest.raises(ValueError, match="malformed"):
        recall.load_dataset({"memories": [{"theme": "x", "description": "no id"}]}, NOW)


def test_fill_store_keeps_ids_times_hits_and_maps_duplicates(tmp_path):
    ds = recall.load_dataset(TINY, NOW)
    twin = recall.Memory("t4", ds.memories[0].description, ds.memories[0].theme, "2026-01-01T00:00:00")
    mm = SqliteMemoryManager(tmp_path / "m.sqlite3")
    try:
        mapping = recall.fill_store(mm, ds.memories + [twin])
        assert mapping == {"t1": "t1", "t2": "t2", "t3": "t3", "t4": "t1"}
        item = mm.get("t3")
        assert item.latest_update_time == "2026-08-03T20:10:00" and item.hit == 1
    finally:
        mm.close()


def test_metric_functions():
    assert recall.recall_at(["a", "b", "c"], ["b", "z"], 2) == 0.5
    assert recall.recall_at(["a"], [], 5) == 0.0
    assert recall.reciprocal_rank(["a", "b", "c"], ["c"]) == pytest.approx(1 / 3)
    assert recall.reciprocal_rank(["a", "b", "c"], ["c"], k=2) == 0.0
    assert recall.p95([float(i) for i in range(1, 101)]) == 95.0
    assert recall.p95([]) == 0.0


def test_summarize_counts_negatives_and_kinds():
    cases = [recall.QueryCase("q1", ["a"], "literal"), recall.QueryCase("q2", ["b", "c"], "time"),
             recall.QueryCase("q3", [], "negative"), recall.QueryCase("q4", [], "negative")]
    results = [["x", "a"], ["b"], [], ["a"]]
    s = recall.summarize(cases, results, [1.0, 2.0, 3.0, 4.0], k=5)
    assert s["recall"] == pytest.approx((1.0 + 0.5) / 2)
    assert s["mrr"] == pytest.approx((0.5 + 1.0) / 2)
    assert s["negatives_empty"] == 0.5 and s["negatives"] == 2
    assert s["per_kind"] == {"literal": 1.0, "time": 0.5}
    assert s["ms_mean"] == 2.5


@pytest.mark.parametrize("store", ["sqlite", "yaml"])
def test_run_dataset_scores_both_systems(store):
    res = recall.run_dataset(recall.load_dataset(TINY, NOW), store)
    ours, base = res["mechanical"], res["baseline"]
    assert ours["recall"] == 1.0 and ours["negatives_empty"] == 1.0
    assert base["negatives_empty"] == 0.0  # the baseline has no floor
    assert set(ours["per_kind"]) == {"literal", "time"}


def test_synthetic_bank_and_scale_run():
    bank = recall.synthetic_bank(50)
    assert len({m.id for m in bank}) == 50 and all(m.description for m in bank)
    res = recall.run_scale(recall.load_dataset(TINY, NOW), 60, rounds=1)
    assert res["memories"] == 60 and res["p95_ms"] >= res["p50_ms"] > 0


def _write_jsonl(path: Path, rows: list) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")


@pytest.fixture
def madial_dir(tmp_path):
    """A miniature folder in the MADial-Bench layout (our own content)."""
    root = tmp_path / "madial"
    mem = [
        {"1": {"time": "2023-12-25", "scene": "活动类", "event": "小A在圣诞晚会上跳舞。", "user-id": 1, "id": "1"}},
        {"2": {"time": "2023-05-01", "scene": "喜好类", "event": "小A喜欢吃草莓冰淇淋。", "user-id": 1, "id": "2"}},
        {"3": {"time": "2023-05-02", "scene": "喜好类", "event": "小A喜欢吃草莓冰淇淋。", "user-id": 1, "id": "3"}},
        {"4": {"time": "2023-06-01", "scene": "活动类", "event": "小B在运动会上跑了第一。", "user-id": 2, "id": "4"}},
    ]
    _write_jsonl(root / "data" / "ch" / "MADial-Bench-zh-memory.json", mem)
    dialogues = [
        {"dialogue": ["<BOD>\n", "<小A>:\"今天想吃冰淇淋！\"\n", "<Assistant>:\"你喜欢草莓味的吧\"\n", "<EOD>\n"],
         "test-turn": [2], "relevant-id": [3, 1], "user-id": 1, "id": 0},
        {"dialogue": ["<BOD>\n", "<小B>:\"明天又有运动会\"\n", "<Assistant>:\"你上次跑了第一\"\n", "<EOD>\n"],
         "test-turn": [2], "relevant-id": [4], "user-id": 2, "id": 1},
    ]
    _write_jsonl(root / "data" / "ch" / "MADial-Bench-zh-dialogue.json", dialogues)
    emb = [{"id": 0, "user-id": 1, "top_20_ids": [1, 3, 2]}, {"id": 1, "user-id": 2, "top_20_ids": [4]}]
    _write_jsonl(root / "embeddings" / "ch" / "Toy_zh_top_20_ids.json", emb)
    return root


def test_madial_cases_collapse_duplicates_and_use_the_first_test_turn(madial_dir):
    memories, dialogues = recall.load_madial(madial_dir)
    cases, collapse = recall.madial_cases(memories, dialogues)
    assert collapse[3] == 2 and collapse[2] == 2
    first = cases[0]
    assert first["gold_all"] == [1, 2] and first["gold_primary"] == [2]
    assert first["query"].endswith("<小A>:\"今天想吃冰淇淋！\"\n") and "草莓味" not in first["query"]


def test_run_madial_scores_ours_baseline_and_reference_models(madial_dir):
    res = recall.run_madial(madial_dir)
    assert set(res) == {"mechanical (ours)", "jieba+BM25Okapi", "Toy"}
    assert res["Toy"]["gold_all@1"] == pytest.approx((0.5 + 1.0) / 2)
    assert res["mechanical (ours)"]["gold_primary@1"] == 1.0


def test_command_line(tmp_path, capsys, madial_dir):
    path = tmp_path / "set.yaml"
    path.write_text(yaml.safe_dump(TINY, allow_unicode=True), encoding="utf-8")
    assert recall.main([str(path), "--now", "2026-12-02T12:00", "--madial", "--madial-dir", str(madial_dir)]) == 0
    out = capsys.readouterr().out
    assert "recall@5" in out and "char-bigram" in out and "jieba-bm25" in out and "MADial" in out and "Toy" in out
    assert recall.main([str(tmp_path / "missing.yaml")]) == 2
    assert recall.main([str(path), "--madial", "--madial-dir", str(tmp_path / "none")]) == 2


def test_example_dataset_ships_and_meets_its_targets():
    path = Path(recall.__file__).parent / "datasets" / "recall-example.yaml"
    res = recall.run_dataset(recall.load_dataset(path, NOW))
    assert res["mechanical"]["recall"] >= 0.9
    assert res["mechanical"]["recall"] >= res["baseline"]["recall"] + 0.15
    assert res["mechanical"]["negatives_empty"] >= 2 / 3


def test_phenomena_set_loads_with_its_kinds_splits_and_promises():
    """recall-phenomena.yaml: ≥ 300 memories, ≥ 120 questions with gold, every phenomenon in both
    halves of the split, and its paraphrase questions share no character with their gold."""
    import re

    path = Path(recall.__file__).parent / "datasets" / "recall-phenomena.yaml"
    ds = recall.load_dataset(path, NOW)
    assert len(ds.memories) >= 300 and len({m.description for m in ds.memories}) == len(ds.memories)
    positive = [c for c in ds.queries if c.gold]
    assert len(positive) >= 120
    kinds = {"typo", "mixed", "slang", "cantonese", "long", "emoji", "twohop", "paraphrase"}
    for kind in kinds:
        assert {c.split for c in positive if c.kind == kind} == {"tune", "heldout"}, kind
    assert {c.kind for c in positive} == kinds and all(c.kind == "negative" for c in ds.queries if not c.gold)
    assert all(len(c.gold) >= 2 for c in positive if c.kind == "twohop")
    assert all(len(c.q) >= 60 for c in positive if c.kind == "long")
    text = {m.id: m.description for m in ds.memories}
    han = re.compile(r"[\u4e00-\u9fff]")
    for case in (c for c in positive if c.kind == "paraphrase"):
        shared = set(han.findall(case.q)) & {ch for g in case.gold for ch in han.findall(text[g])} - set(ds.persona)
        assert not shared, (case.q, shared)


class _CharVectors:
    """A stand-in embeddings model for the bench (hashed characters, and a little noise of each text's
    own so that no two memories tie, as with a real model): only the path is under test."""

    def _embed(self, texts):
        import zlib

        import numpy as np

        out = np.zeros((len(texts), 64), np.float32)
        for i, text in enumerate(texts):
            for ch in text:
                out[i, zlib.crc32(ch.encode()) % 64] += 1.0
            out[i] += 0.05 * np.random.default_rng(zlib.crc32(text.encode())).random(64)
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)

    passages = queries = _embed


def test_issue36_bench_fills_what_memory_recall_plans(monkeypatch):
    """bench.recall_issue36's fills (whole budget, and the first message of a conversation block)
    equal what ``MemoryRecall._plan`` itself puts in the request, words only and with a model."""
    from bench import recall_issue36 as i36
    from bench import recall_scale_e5 as e5bench
    from bench.recall_reach import yaml_set

    group = yaml_set(Path(recall.__file__).parent / "datasets" / "recall-phenomena.yaml", "phenomena")[0]
    small = [type(group)(group.name, group.bank, group.cases[:4], group.now)]
    budgets = (4000, 8000)
    monkeypatch.setattr(e5bench, "VERIFY", True)
    monkeypatch.setattr(e5bench, "_verify", i36._verify)
    monkeypatch.setattr(i36, "BUDGETS", budgets)
    checked = sum(i36.VERIFIED)
    out = e5bench._collect_set("phenomena", small, 0, [], {"chars": _CharVectors()}, budgets=budgets,
                               shares=False, wants=i36.wants)
    assert len(out) == 4 and sum(i36.VERIFIED) - checked == 3 * len(budgets) * 2  # 3 questions, 2 plans each
    for qd in out:
        for b in budgets:
            assert qd.stable[b] is not None  # the bank is larger than the budget: a shortlist is filled
            whole, first = i36.shown(qd, b, i36.r_lex), i36.shown(qd, b, i36.r_lex, block=True)
            assert first == whole  # a conversation's first message gets all the stable block leaves
            new = i36.shown(qd, b, i36.r_lex, block="later") - set(qd.stable[b])  # a later one: NEW_SHARE
            assert sum(qd.tokens[m] + 7 for m in new) <= int(i36.NEW_SHARE * b) < sum(
                qd.tokens[m] + 7 for m in whole - set(qd.stable[b]))


def test_the_dense_views_bench_scores_each_way_as_it_says():
    import numpy as np

    from bench.recall_dense_views import variants

    rng = np.random.default_rng(36)
    bank = rng.normal(size=(50, 8))
    bank /= np.linalg.norm(bank, axis=1, keepdims=True)
    q, p = (v / np.linalg.norm(v) for v in rng.normal(size=(2, 8)))
    ways = variants()
    assert np.allclose(ways["e5 (the app)"](bank, q, p), bank @ q)
    nearest = np.argsort(-(bank @ q))[:3]
    moved = q + 0.3 * bank[nearest].mean(axis=0)
    assert np.allclose(ways["feedback m=3 a=0.3"](bank, q, p), bank @ (moved / np.linalg.norm(moved)))
    mixed = q + 0.5 * p
    assert np.allclose(ways["query + 0.5 passage"](bank, q, p), bank @ (mixed / np.linalg.norm(mixed)))
    assert np.allclose(ways["better of the two"](bank, q, p), np.maximum(bank @ q, bank @ p))


def test_the_dialogue_bench_asks_each_follow_up_with_the_lines_before_it(tmp_path):
    """bench.recall_dialogue asks MADial's follow-ups through ``MemoryRecall._plan`` as the app does: a
    follow-up naming nothing of what it is about is found only when the lines before it are read."""
    from bench import recall_dialogue
    from bench.recall_public import madial_groups
    from bench.recall_reach import distractors

    folder = tmp_path / "madial_bench" / "data" / "ch"
    mem = [{"1": {"time": "2023-03-02", "scene": "宠物类", "event": "小A养了一只橘猫，名叫年糕。", "user-id": 1, "id": "1"}},
           {"2": {"time": "2023-04-11", "scene": "喜好类", "event": "小A喜欢周末去湖边钓鱼。", "user-id": 1, "id": "2"}}]
    _write_jsonl(folder / "MADial-Bench-zh-memory.json", mem)
    lines = ["<BOD>\n", "<小A>:\"我家年糕最近掉毛好厉害\"\n", "<Assistant>:\"换季了吧，多梳梳\"\n",
             "<小A>:\"那它平时乖吗\"\n", "<Assistant>:\"…\"\n", "<EOD>\n"]
    _write_jsonl(folder / "MADial-Bench-zh-dialogue.json",
                 [{"dialogue": lines, "test-turn": [4], "relevant-id": [1], "user-id": 1, "id": 0}])
    asked = recall_dialogue.dialogues(tmp_path)
    assert [d["said"][-1][1] for d in asked[1]] == ["那它平时乖吗"] and asked[1][0]["gold"] == ["1"]
    assert "年糕" in recall_dialogue.app_context(asked[1][0]["said"])  # the person's line before it
    groups = {1: madial_groups(tmp_path)[0]}
    others = distractors("synthetic", 400, [], set(), set(), groups[1].now, "spread")
    tally = recall_dialogue.measure(groups, asked, others, _CharVectors(), [1500])
    found = {way: tally[(1500, way)] for way in recall_dialogue.WAYS}
    assert all(total == 1 for _, total in found.values())
    assert found["whole budget, the message alone"][0] == found["conversation block, the message first"][0] == 0
    assert found["whole budget, with the lines before it"][0] == 1
    assert found["conversation block, the dialogue in order"][0] == 1
