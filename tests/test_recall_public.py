"""The public-set and scale recall benches, on miniature folders in the datasets' layouts (our own
content: the real datasets are never needed by the tests)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import recall_public, recall_scale
from bench.recall_baselines import BigramBaseline, bigram_tokens


def _jsonl(path: Path, rows: list) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")


@pytest.fixture
def datasets(tmp_path):
    root = tmp_path / "datasets"
    qa = root / "memdaily" / "data_generation" / "final_dataset" / "messages_and_QAs"
    qa.mkdir(parents=True)
    when = "2024年04月01日 周一 08:39"
    roles = [{"tid": 0, "message_list": [
        {"mid": 0, "message": "我表姐叫周敏。", "time": when, "place": "上海"},
        {"mid": 1, "message": "我表姐在银行上班。", "time": when, "place": "上海"},
        {"mid": 2, "message": "我同事喜欢钓鱼。", "time": when, "place": "上海"}],
        "question_list": [{"qid": 0, "question": "我表姐在哪里上班？", "answer": "银行", "target_step_id": [1],
                           "time": "2024年04月02日 周二 09:00"}]},
        {"tid": 1, "message_list": [{"mid": 0, "message": "坏数据。", "time": when, "place": "上海"}],
         "question_list": [{"qid": 0, "question": "[ERRORQ]", "answer": "x", "target_step_id": [0], "time": when}]}]
    items = [{"tid": 0, "message_list": [
        {"mid": 0, "message": "我的手机是小米14。", "time": when, "place": "北京"},
        {"mid": 1, "message": "我的耳机是索尼的。", "time": when, "place": "北京"}],
        "question_list": [{"qid": 0, "question": "我用的什么手机？", "answer": "小米14", "target_step_id": [0],
                           "time": when}]}]
    (qa / "01_simple_roles.json").write_text(json.dumps(roles, ensure_ascii=False), encoding="utf-8")
    (qa / "01_simple_items.json").write_text(json.dumps(items, ensure_ascii=False), encoding="utf-8")
    ch = root / "madial_bench" / "data" / "ch"
    _jsonl(ch / "MADial-Bench-zh-memory.json", [
        {"1": {"time": "2023-12-25", "scene": "活动类", "event": "小A在圣诞晚会上跳舞。", "user-id": 1}},
        {"2": {"time": "2023-05-01", "scene": "喜好类", "event": "小A喜欢吃草莓冰淇淋。", "user-id": 1}},
        {"3": {"time": "2023-05-02", "scene": "喜好类", "event": "小A喜欢吃草莓冰淇淋。", "user-id": 1}}])
    _jsonl(ch / "MADial-Bench-zh-dialogue.json", [
        {"dialogue": ["<BOD>\n", "<小A>:\"好想吃冰淇淋！\"\n", "<Assistant>:\"你爱草莓味\"\n", "<EOD>\n"],
         "test-turn": [2], "relevant-id": [3], "user-id": 1, "id": 0}])
    conv = {"speaker_a": "Ann", "speaker_b": "Bob", "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [{"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted two cats."},
                          {"speaker": "Bob", "dia_id": "D1:2", "text": "I paint landscapes."}],
            "session_1_observation": {"Ann": [["Ann adopted two cats last month.", "D1:1"]],
                                      "Bob": [["Bob paints landscapes on weekends.", "D1:2"]]},
            "qa": [{"question": "How many cats did Ann adopt?", "answer": "2", "evidence": ["D1:1"], "category": 4},
                   {"question": "Adversarial?", "adversarial_answer": "x", "evidence": ["D1:2"], "category": 5},
                   {"question": "Uncovered?", "answer": "x", "evidence": ["D9:9"], "category": 1}]}
    loc = root / "locomo" / "data" / "multimodal_dialog" / "locomo10_v2"
    loc.mkdir(parents=True)
    (loc / "26.json").write_text(json.dumps(conv), encoding="utf-8")
    return root


def test_memdaily_groups_skip_bad_questions_and_pad_across_topics(datasets):
    groups = recall_public.memdaily_groups(datasets, per_file=5, pad_to=4)
    by_file = {g.name.split("#")[0]: g for g in groups}
    assert set(by_file) == {"01_simple_roles", "01_simple_items"}  # the [ERRORQ] trajectory is skipped
    roles = by_file["01_simple_roles"]
    texts = [m.description for m in roles.bank]
    assert len(texts) == 4 and "我的手机是小米14。" in texts or "我的耳机是索尼的。" in texts  # padded from items
    assert roles.cases[0].gold == ["01_simple_roles#0#1"] and roles.cases[0].kind == "simple"


def test_madial_last_turn_and_locomo_observations(datasets):
    (madial,) = recall_public.madial_groups(datasets)
    assert [m.id for m in madial.bank] == ["1", "2"]  # duplicates collapsed
    assert madial.cases[0].q == "好想吃冰淇淋！" and madial.cases[0].gold == ["2"]
    (locomo,) = recall_public.locomo_groups(datasets)
    assert [c.q for c in locomo.cases] == ["How many cats did Ann adopt?"]  # adversarial and uncovered dropped
    assert locomo.cases[0].gold == ["S1:Ann:0"]


def test_run_groups_scores_ours_and_both_baselines(datasets):
    res = recall_public.run_groups(recall_public.locomo_groups(datasets) + recall_public.madial_groups(datasets))
    assert set(res) == {"mechanical", "bigram", "baseline"}
    assert res["mechanical"]["recall"] == 1.0 and res["mechanical"]["empty"] == 0.0


def test_command_line(datasets, capsys):
    assert recall_public.main(["--datasets", str(datasets), "--sets", "madial,locomo"]) == 0
    out = capsys.readouterr().out
    assert "char-bigram" in out and "answerable, empty" in out and "locomo" in out
    assert recall_public.main(["--datasets", str(datasets / "nowhere")]) == 2
    assert recall_public.main(["--datasets", str(datasets), "--sets", "nope"]) == 2


def test_bigram_baseline():
    assert bigram_tokens("我爱吃榴莲 Durian!") == ["我爱", "爱吃", "吃榴", "榴莲", "durian"]
    base = BigramBaseline({"a": "小周爱吃榴莲", "b": "小周讨厌下雨"})
    assert base.rank("榴莲好吃吗", 1) == ["a"] and base.rank("", 1) == []


def test_scale_bench_runs_in_fresh_processes():
    row = recall_scale.run_size(40, "sqlite", Path(recall_scale.__file__).parent / "datasets" / "recall-example.yaml")
    assert row["memories"] == 40 and row["bytes_per_memory"] > 0
    assert row["p95_ms"] >= row["p50_ms"] > 0 and row["ready_s"] > 0 and row["build_s"] > 0


def test_offline_recall_reports_ours_and_the_bigram_baseline_per_set(datasets, tmp_path):
    bench_dir = datasets.parent / "benchmarks"
    bench_dir.mkdir()
    (bench_dir / "retrieval-zh-dev.yaml").write_text(
        "memories:\n"
        "  - {id: a, theme: 品味, days_ago: 3, description: 小周早餐喝美式咖啡。}\n"
        "  - {id: b, theme: 身份, days_ago: 9, description: 小周在杭州做护士。}\n"
        "queries:\n"
        "  - {q: 早上喝什么, gold: [a], kind: paraphrase}\n"
        "  - {q: 一公斤等于多少磅, gold: [], kind: negative}\n", encoding="utf-8")
    got = recall_public.offline_recall(datasets, ("dev", "example", "memdaily", "madial", "locomo"))
    assert set(got) == {"dev", "example", "memdaily", "madial", "locomo"}
    for name, row in got.items():
        assert 0.0 <= row["bigram"] <= 1.0 and 0.0 <= row["ours"] <= 1.0 and row["queries"] > 0, name
    assert got["dev"]["ours"] == 1.0 and got["dev"]["negatives_empty"] == 1.0 and got["dev"]["queries"] == 2
    assert got["example"]["ours"] >= got["example"]["bigram"]
    assert got["locomo"]["queries"] == 1  # the adversarial and the uncovered questions are left out
    with pytest.raises(ValueError):
        recall_public.offline_recall(datasets, ("nope",))
    with pytest.raises(FileNotFoundError):
        recall_public.offline_recall(None, ("memdaily",))
