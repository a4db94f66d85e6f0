"""The writer quality harness (bench/writer.py): the dataset is valid and covers issue 13's cases,
every rule can pass and fail, and every scenario replays end to end against the scripted server
(plumbing, as CI runs it: the score of a model that never writes anything)."""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path

import pytest

from bench import writer as harness
from memory_stores import yaml_store_fixture
from llm_server import tool_calls

store = yaml_store_fixture("store")

DATASET = Path(__file__).resolve().parent.parent / "bench" / "writer_scenarios.yaml"
NOW = datetime(2026, 12, 2, 20, 0)


def test_dataset_is_valid_and_covers_every_kind():
    scenarios = harness.load_scenarios(DATASET)
    assert len(scenarios) >= 60
    assert {s.kind for s in scenarios} == set(harness.KINDS)
    kinds = {k: sum(s.kind == k for s in scenarios) for k in harness.KINDS}
    for kind in ("moment", "new_section", "name", "expired_todo", "duplicate_merge", "contradiction", "secret",
                 "injection", "hygiene"):
        assert kinds[kind] >= 3, kind
    assert sum(s.hygiene for s in scenarios) >= 6 and any(s.user_name for s in scenarios)
    used = {key for s in scenarios for key in s.expect}
    assert used == harness.EXPECT_KEYS  # every rule is exercised by some scenario


def test_a_scenario_mistake_is_named(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("- {id: a, kind: moment, now: '2026-12-02T20:00', turns: [{user: hi}], expect: {nope: 1}}\n",
                   encoding="utf-8")
    with pytest.raises(ValueError, match="scenario a: unknown expect keys"):
        harness.load_scenarios(bad)
    bad.write_text("- {id: b, kind: moment, now: '2026-12-02T20:00', turns: [{user: hi}]}\n", encoding="utf-8")
    with pytest.raises(ValueError, match="scenario b: needs expectations"):
        harness.load_scenarios(bad)


def test_harness_without_endpoint_says_so_and_exits_0(capsys, monkeypatch):
    monkeypatch.delenv("SONETTO_BENCH_BASE_URL", raising=False)
    monkeypatch.setattr(harness, "endpoint_llm", lambda: None)
    assert harness.main([str(DATASET)]) == 0
    assert "No LLM endpoint configured" in capsys.readouterr().out


def _scenario(expect, **kw) -> harness.Scenario:
    return harness.Scenario(kw.pop("id", "x"), kw.pop("kind", "moment"), NOW, [], expect=expect, **kw)


@pytest.mark.parametrize("expect,good,bad", [
    ({"present_in": {"瞬间": [["12月2日", "雪"]]}}, [("12月2日，用户看到了初雪", "瞬间")], [("12月2日，用户看到了初雪", "品味")]),
    ({"absent_in": {"时效待办": ["期中"]}}, [("11月28日，用户考了期中", "瞬间")], [("用户11月28日有期中考试", "时效待办")]),
    ({"sections": ["健身"]}, [("用户每周练腿", "健身")], [("用户每周练腿", "品味")]),
    ({"only_sections": ["品味"]}, [("用户喜欢猫", "品味")], [("用户喜欢猫", "宠物")]),
    ({"written_contain": "小林", "written_avoid": ["用户"]}, [("小林学吉他", "品味")], [("用户学吉他", "品味")]),
    ({"unique": ["美式"]}, [("用户喝美式", "品味"), ("12月2日，用户喝了杯美式", "瞬间")],
     [("用户喝美式", "品味"), ("用户每天喝美式", "品味")]),
])
def test_each_rule_passes_and_fails(store, expect, good, bad):
    for rows, should_pass in ((good, True), (bad, False)):
        for mid in list(store.all_items()):
            store.delete(mid)
        for text, theme in rows:
            store.add(text, theme)
        failures = harness.check_store(store, _scenario(expect), {})
        assert (failures == []) is should_pass, (rows, failures)


def test_outcome_rules_count_flags_and_refusals(store):
    store.add("用户喜欢猫", "品味")
    scenario = _scenario({"flagged": 1, "max_refusals": 0})
    ok = harness.Outcome(scenario, [], flagged=1, refusals=0)
    bad = harness.Outcome(scenario, [], flagged=0, refusals=2)
    assert harness.check_store(store, scenario, {}, ok) == []
    assert len(harness.check_store(store, scenario, {}, bad)) == 2


def _changed_job_responder(body):
    last = body["messages"][-1]
    if last["role"] == "user":
        mid = re.search(r"^(\w+) \| 身份", last["content"], re.MULTILINE).group(1)
        return tool_calls([("update_memory", {"id": mid, "content": "用户在杭州做后端开发",
                                              "reason": "用户说上个月跳槽到杭州，改做后端"})])
    return "完成。"


async def test_harness_rules_pass_correct_writes_and_fail_a_wrong_one(llm_server, make_llm):
    by_id = {s.id: s for s in harness.load_scenarios(DATASET)}
    llm = make_llm()
    # new_school: two facts, written correctly, in one reply.
    llm_server.add_tool_calls([("create_memory", {"content": "用户是浙大计算机系大三的学生", "section": "身份"}),
                               ("create_memory", {"content": "用户正在准备保研", "section": "身份"})])
    ok_new = await harness.run_all([by_id["new_school"]], llm)
    # secret: the model tries to store the password, the tool refuses, the model gives up.
    llm_server.add_tool_calls([("create_memory", {"content": "用户家 WiFi 密码是 sunset2026abc", "section": "身份"})])
    llm_server.add_text("这是秘密，不记录。")
    ok_secret = await harness.run_all([by_id["secret_wifi_password"]], llm)
    # changed fact: the id comes from the listing in the first message.
    llm_server.responder = _changed_job_responder
    ok_changed = await harness.run_all([by_id["changed_job_city"]], llm)
    llm_server.responder = None
    # relative date written as-is: must fail the rules.
    llm_server.add_tool_calls([("create_memory", {"content": "用户后天上午有离散数学期末考试", "section": "时效待办"})])
    bad = await harness.run_all([by_id["relative_day_after_tomorrow"]], llm)

    for outcome in ok_new + ok_secret + ok_changed:
        assert outcome.passed, (outcome.scenario.id, outcome.failures, outcome.error)
    assert ok_secret[0].refusals == 1
    (wrong,) = bad
    assert not wrong.passed
    assert any("relative date" in f for f in wrong.failures)
    assert any("12月4日" in f for f in wrong.failures)

    summary = harness.summarize(ok_new + ok_secret + ok_changed + bad)
    assert summary["passed"] == 3 and summary["scenarios"] == 4 and summary["score"] == 0.75
    assert summary["by_kind"]["relative_date"] == {"passed": 0, "total": 1}
    assert summary["llm_calls_per_turn"] == 1.25  # (1 + 2 + 1 + 1) / 4 turns
    assert summary["prompt_tokens_per_turn"] > 0


def _never_writes(body):
    return "无需整理" if "定期整理" in body["messages"][0]["content"] else "本轮无需记录"


def test_every_scenario_replays_against_the_scripted_server(llm_server, monkeypatch, tmp_path, capsys):
    """CI plumbing: all scenarios run end to end (turns and hygiene passes) and a score is printed.
    A model that never writes keeps every 'unchanged' scenario and fails every 'present' one."""
    llm_server.responder = _never_writes
    monkeypatch.setenv("SONETTO_BENCH_BASE_URL", llm_server.base_url)
    monkeypatch.setenv("SONETTO_BENCH_MODEL", "test-model")
    out = tmp_path / "summary.json"
    assert harness.main([str(DATASET), "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    summary = json.loads(out.read_text(encoding="utf-8"))
    scenarios = harness.load_scenarios(DATASET)
    assert summary["scenarios"] == len(scenarios) >= 60
    assert re.search(rf"^score: {summary['score']:.3f} \(passed {summary['passed']}/{len(scenarios)} ", printed, re.M)
    errors = {sid: p for sid, p in summary["failures"].items() if any("Error" in str(x) for x in p)}
    assert errors == {}
    failed = set(summary["failures"])
    for s in scenarios:
        if s.expect.get("unchanged"):
            assert s.id not in failed, s.id
        if s.expect.get("present") and not s.memories:
            assert s.id in failed, s.id
    assert 0 < summary["score"] < 0.5


def test_the_token_bench_runs(capsys):
    """bench/writer_tokens.py end to end at a small size (keeps the script from rotting)."""
    from bench import writer_tokens

    assert writer_tokens.main(["--sizes", "60", "--turns", "2"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.strip().startswith("60 |"))
    tokens, calls = row.split(" | ")[1:3]
    assert calls == "1.00" and 1000 < float(tokens.split(" / ")[0]) < 4000
