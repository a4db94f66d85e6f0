"""Writer prompts: the principles are there, and the right prefix reaches the model."""

from __future__ import annotations

from datetime import datetime

import pytest

from sonetto_desktop.memory import YamlMemoryManager
from sonetto_desktop.memory.writer import prompts
from sonetto_desktop.memory.writer.consumer import MemoryConsumer
from sonetto_desktop.memory.writer.timefmt import format_now, relative_day_table, time_block

NOW = datetime(2026, 12, 2, 9, 30)  # a Wednesday

TURN = [{"role": "user", "content": "我后天要考离散数学"}, {"role": "assistant", "content": "加油！"}]


def test_prompts_are_prefix_plus_core():
    assert prompts.COLD_START_SYSTEM == prompts._COLD_PREFIX + prompts._CORE_PRINCIPLES
    assert prompts.UPDATE_SYSTEM == prompts._UPDATE_PREFIX + prompts._CORE_PRINCIPLES
    assert prompts.choose_system_prompt(True) is prompts.COLD_START_SYSTEM
    assert prompts.choose_system_prompt(False) is prompts.UPDATE_SYSTEM


@pytest.mark.parametrize(
    "needle",
    ["第三人称", "一条记忆只写一个事实", "闲聊", "绝对日期", "后天", "read_memories", "update_memory", "merge_memories",
     "delete_memory", "hit_memory", "密码", "身份证号", "API Key", "编造", "时效待办", "1–4"],
)
def test_core_principles_cover_the_rules(needle):
    assert needle in prompts._CORE_PRINCIPLES


def test_cold_and_update_prefixes_differ_where_it_matters():
    assert "空的" in prompts._COLD_PREFIX and "create_memory" in prompts._COLD_PREFIX
    assert "先调用 read_memories" in prompts._UPDATE_PREFIX
    assert "不要重复写入" in prompts._UPDATE_PREFIX  # a retried turn must not duplicate


def test_time_has_chinese_weekday_and_resolves_relative_days():
    assert format_now(NOW) == "2026年12月2日 星期三 09:30"
    table = relative_day_table(NOW)
    assert "后天=12月4日（周五）" in table
    assert "明天=12月3日（周四）" in table
    assert "下周：周一=12月7日" in table and "周三=12月9日" in table
    # Across a month and a year boundary.
    assert "后天=1月1日（周五）" in relative_day_table(datetime(2026, 12, 30, 8, 0))
    assert "星期三" in time_block(NOW)


async def _system_prompt_sent(llm_server, make_llm, mm) -> str:
    llm_server.add_text("本轮无需记录")
    consumer = MemoryConsumer(make_llm(), mm, now=lambda: NOW)
    await consumer.consume("s", "t", TURN)
    first = llm_server.requests[-1]["messages"]
    assert first[0]["role"] == "system"
    return first[0]["content"], first[-1]["content"]


async def test_empty_store_gets_cold_start_prompt(llm_server, make_llm, tmp_path):
    mm = YamlMemoryManager(tmp_path / "memory.yaml")
    system, user = await _system_prompt_sent(llm_server, make_llm, mm)
    assert system == prompts.COLD_START_SYSTEM
    assert user.startswith("## 本轮对话\n用户：我后天要考离散数学\n\nSonetto：加油！")
    assert "2026年12月2日 星期三 09:30" in user and "后天=12月4日（周五）" in user


async def test_non_empty_store_gets_update_prompt(llm_server, make_llm, tmp_path):
    mm = YamlMemoryManager(tmp_path / "memory.yaml")
    mm.add("用户喜欢猫", "品味")
    system, user = await _system_prompt_sent(llm_server, make_llm, mm)
    assert system == prompts.UPDATE_SYSTEM
    assert user.startswith("## 新一轮对话\n")


# ── the writer quality harness (bench/writer.py) runs and its rules can fail ─────────────────

import re  # noqa: E402
from pathlib import Path  # noqa: E402

from bench import writer as harness  # noqa: E402
from llm_server import tool_calls  # noqa: E402

DATASET = Path(__file__).resolve().parent.parent / "bench" / "writer_scenarios.yaml"


def test_dataset_is_valid_and_covers_every_kind():
    scenarios = harness.load_scenarios(DATASET)
    assert len(scenarios) >= 20
    assert {s.kind for s in scenarios} == set(harness.KINDS)


def test_harness_without_endpoint_says_so_and_exits_0(capsys):
    assert harness.main([str(DATASET)]) == 0
    assert "No LLM endpoint configured" in capsys.readouterr().out


def _changed_job_responder(body):
    last = body["messages"][-1]
    if last["role"] == "tool" and last["content"].startswith("共"):
        mid = re.search(r"^(\w+) \| 身份", last["content"], re.MULTILINE).group(1)
        return tool_calls([("update_memory", {"id": mid, "content": "用户在杭州做后端开发",
                                              "reason": "用户说上个月跳槽到杭州，改做后端"})])
    return "完成。"


async def test_harness_rules_pass_correct_writes_and_fail_a_wrong_one(llm_server, make_llm):
    by_id = {s.id: s for s in harness.load_scenarios(DATASET)}
    llm = make_llm()
    # new_school: two facts, written correctly.
    llm_server.add_tool_calls([("create_memory", {"content": "用户是浙大计算机系大三的学生", "section": "身份"}),
                               ("create_memory", {"content": "用户正在准备保研", "section": "身份"})])
    llm_server.add_text("已记录。")
    ok_new = await harness.run_all([by_id["new_school"]], llm)
    # secret: the model tries to store the password, the tool refuses, the model gives up.
    llm_server.add_tool_calls([("create_memory", {"content": "用户家 WiFi 密码是 sunset2026abc", "section": "身份"})])
    llm_server.add_text("这是秘密，不记录。")
    ok_secret = await harness.run_all([by_id["secret_wifi_password"]], llm)
    # changed fact: read, then update with the id the model read.
    llm_server.add_tool_calls([("read_memories", {})])
    llm_server.responder = _changed_job_responder
    ok_changed = await harness.run_all([by_id["changed_job_city"]], llm)
    llm_server.responder = None
    # relative date written as-is: must fail the rules.
    llm_server.add_tool_calls([("create_memory", {"content": "用户后天上午有离散数学期末考试", "section": "时效待办"})])
    llm_server.add_text("已记录。")
    bad = await harness.run_all([by_id["relative_day_after_tomorrow"]], llm)

    for outcome in ok_new + ok_secret + ok_changed:
        assert outcome.passed, (outcome.scenario.id, outcome.failures, outcome.error)
    (wrong,) = bad
    assert not wrong.passed
    assert any("relative date" in f for f in wrong.failures)
    assert any("12月4日" in f for f in wrong.failures)

    summary = harness.summarize(ok_new + ok_secret + ok_changed + bad)
    assert summary["passed"] == 3 and summary["scenarios"] == 4
    assert summary["by_kind"]["relative_date"] == {"passed": 0, "total": 1}
    assert summary["llm_calls_per_turn"] == 2.25  # (2 + 2 + 3 + 2) / 4 turns
    assert summary["prompt_tokens_per_turn"] > 0
