"""The self-cleaning memory (issue 13 item 6): past-due to-dos become dated moments or go, duplicates
are merged, contradictions are flagged for the user; one undoable unit per pass (one turn id, actor
agent) with a readable summary; at most daily, when idle, pausable, visible in the status.

Real stores, the real MechanicalRetriever and MemoryWriter, the scripted model over HTTP."""

from __future__ import annotations

import asyncio
import re
from datetime import datetime, timedelta

import pytest

from helpers import retriever_fixture
from llm_server import tool_calls
from ltm_helpers import until
from memory_stores import backend_store_fixture
from sonetto_desktop.memory.item import MemoryItem
from sonetto_desktop.memory.writer.hygiene import MemoryHygiene
from sonetto_desktop.memory.writer.pipeline import MemoryWriter

NOW = datetime(2026, 12, 2, 20, 0)
WRITTEN = "2026-11-10T09:00:00"
MEMORIES = {
    "exam0001": ("用户11月28日（周六）有高数期中考试", "时效待办"),
    "form0001": ("用户11月30日（周一）要交奖学金申请表", "时效待办"),
    "next0001": ("用户12月20日（周日）考英语六级", "时效待办"),
    "work0001": ("用户在上海的一家游戏公司工作", "身份"),
    "work0002": ("用户在杭州的一家游戏公司工作", "身份"),
    "cafe0001": ("用户每天早上喝一杯美式咖啡", "品味"),
    "cafe0002": ("用户每天早上都喝一杯美式", "品味"),
    "same0001": ("用户喜欢猫", "品味"),
    "same0002": ("用户 喜欢猫。", "品味"),
    "band0001": ("用户喜欢五月天", "音乐"),
}

mm = backend_store_fixture()


def seed(mm, memories=MEMORIES) -> None:
    mm.import_items({mid: MemoryItem(text, theme, latest_update_time=WRITTEN, hit=1 if mid == "same0002" else 0)
                     for mid, (text, theme) in memories.items()})


def tidy_responder(body: dict):
    """A model that does what the hygiene prompt asks, by reading the ids in the message."""
    last = body["messages"][-1]
    if last["role"] != "user":
        return "完成。"
    text = last["content"]
    calls = []
    if "exam0001" in text:
        calls.append(("record_moment", {"id": "exam0001", "content": "11月28日，用户参加了高数期中考试",
                                        "reason": "考试已经结束，值得留念"}))
    if "form0001" in text:
        calls.append(("delete_memory", {"id": "form0001", "reason": "11月30日的申请表已过期"}))
    if re.search(r"cafe0001.*\n.*cafe0002|cafe0002.*\n.*cafe0001", text):
        calls.append(("merge_memories", {"id1": "cafe0001", "id2": "cafe0002", "content": "用户每天早上喝一杯美式咖啡",
                                         "section": "品味", "reason": "两条说的是同一件事"}))
    if "work0001" in text and "work0002" in text:
        calls.append(("flag_conflict", {"id1": "work0001", "id2": "work0002", "note": "一条说在上海工作，一条说在杭州"}))
    return tool_calls(calls) if calls else "无需整理"


@pytest.fixture
def writer(mm, make_llm, tmp_path):
    w = MemoryWriter(mm, make_llm(), tmp_path / "journal")
    yield w
    w.close()


retriever = retriever_fixture(NOW)


def hygiene_for(writer, retriever, tmp_path, **kw):
    return MemoryHygiene(writer, tmp_path / "hygiene.json", retriever=lambda: retriever, now=lambda: NOW, **kw)


async def test_a_pass_cleans_up_as_one_undoable_unit(llm_server, mm, writer, retriever, tmp_path):
    seed(mm)
    llm_server.responder = tidy_responder
    hygiene = hygiene_for(writer, retriever, tmp_path)
    events = []
    writer.events.subscribe(events.append)
    report = await hygiene.run_once()
    assert report is not None and report.llm_calls == 1  # all calls succeeded: no second model call

    # What the model was shown: the past-due to-dos and the near pairs, as one-line data.
    shown = llm_server.requests[0]["messages"][-1]["content"]
    assert "exam0001" in shown and "form0001" in shown and "next0001" not in shown
    assert "work0001" in shown and "cafe0001" in shown and "band0001" not in shown

    items = mm.all_items()
    assert (items["exam0001"].theme, items["exam0001"].description) == ("瞬间", "11月28日，用户参加了高数期中考试")
    assert "form0001" not in items and "cafe0002" not in items
    assert items["work0001"].description == MEMORIES["work0001"][0]  # contradictions are not decided
    assert {"same0001", "same0002"} - set(items)  # exact duplicates merged without the model
    kept_same = ({"same0001", "same0002"} & set(items)).pop()
    assert kept_same == "same0002"  # the more used one is kept

    # One unit: every change has the pass's turn id and the agent as actor.
    assert {c.turn_id for c in report.changes} == {report.turn_id} and report.turn_id.startswith("tidy-")
    assert {c.actor for c in report.changes} == {"agent"}
    assert sorted(c.kind for c in report.changes) == ["delete", "merge", "merge", "update"]
    trash = {t["id"]: t for t in mm.list_trash()}
    assert trash["form0001"]["turn_id"] == report.turn_id
    zh, en = report.summary()
    assert zh == "整理了 6 条记忆：合并 2 组重复，1 条过期待办改为瞬间，删除 1 条过期待办，发现 1 处矛盾待你确认"
    assert en.startswith("Tidied 6 memories")

    # Flagged for the user, announced with its turn id, visible in the status, remembered on disk.
    [conflict] = hygiene.conflicts()
    assert sorted(conflict.ids) == ["work0001", "work0002"] and conflict.turn_id == report.turn_id
    tidied = [e for e in events if e.kind == "tidied"]
    assert [(e.turn_id, e.detail) for e in tidied] == [(report.turn_id, zh)]
    statuses = [e.detail for e in events if e.kind == "status"]
    assert statuses[0] == "正在整理记忆…" and statuses[-1] == "记忆已是最新"  # in the writer's own status
    assert writer.status().zh == "记忆已是最新"
    assert "1 处矛盾待确认" in hygiene.status().zh and zh in hygiene.status().zh
    again = hygiene_for(writer, retriever, tmp_path)
    assert again.status().last_turn_id == report.turn_id and len(again.conflicts()) == 1
    assert await again.run_once() is None  # at most daily
    assert again.dismiss_conflict(("work0002", "work0001")) and again.conflicts() == []
    hygiene.close()
    again.close()


async def test_nothing_to_tidy_costs_no_model_call(llm_server, mm, writer, retriever, tmp_path):
    seed(mm, {"band0001": MEMORIES["band0001"], "next0001": MEMORIES["next0001"]})
    hygiene = hygiene_for(writer, retriever, tmp_path)
    report = await hygiene.run_once()
    assert report.changes == [] and llm_server.requests == []
    assert report.summary()[0] == "记忆很整齐，无需整理"
    assert hygiene.status().last_run == NOW.isoformat(timespec="seconds")
    hygiene.close()


async def test_without_a_model_only_exact_duplicates_are_merged(mm, tmp_path, retriever):
    seed(mm)
    w = MemoryWriter(mm, None, tmp_path / "journal")
    hygiene = hygiene_for(w, retriever, tmp_path)
    report = await hygiene.run_once()
    assert [c.kind for c in report.changes] == ["merge"] and "未配置模型" in report.skipped
    assert "exam0001" in mm.all_items()
    hygiene.close()
    w.close()


def test_a_locked_exact_duplicate_is_left_as_it_is_and_the_pass_goes_on(mm):
    from sonetto_desktop.memory import MemoryOperations
    from sonetto_desktop.memory.writer.hygiene_pass import run_pass
    from sonetto_desktop.memory.writer.index import WriterIndex

    person = MemoryOperations(mm)
    a = person.add("用户喜欢猫", "品味").ids[0]
    b = person.add("用户喜欢猫。", "品味").ids[0]
    person.hit(a)  # a is kept (most used); b would be merged into it
    person.set_locked(b, True)  # the person locked b
    c = person.add("用户喜欢狗", "品味").ids[0]
    d = person.add("用户 喜欢狗", "品味").ids[0]
    report = run_pass(person, None, WriterIndex(mm), None, now=datetime(2026, 1, 1))
    assert mm.get(b).locked and mm.get(b).description == "用户喜欢猫。" and a in mm.all_items()
    assert len({c, d} & set(mm.all_items())) == 1  # the other, unlocked pair was still merged
    assert [ch.kind for ch in report.changes] == ["merge"]


async def test_pause_survives_a_restart_and_blocks_the_schedule(llm_server, mm, writer, retriever, tmp_path):
    seed(mm)
    hygiene = hygiene_for(writer, retriever, tmp_path)
    hygiene.pause()
    assert await hygiene.run_once() is None and hygiene.status().zh == "记忆整理已暂停"
    reopened = hygiene_for(writer, retriever, tmp_path)
    assert reopened.paused and reopened.next_run() is None
    reopened.resume()
    assert reopened.is_due() and not hygiene_for(writer, retriever, tmp_path).paused
    hygiene.close()
    reopened.close()


async def test_a_failed_pass_is_reported_and_retried_later(llm_server, mm, writer, retriever, tmp_path):
    seed(mm)
    llm_server.add_error(500, "upstream exploded")
    hygiene = hygiene_for(writer, retriever, tmp_path)
    assert await hygiene.run_once() is None
    status = hygiene.status()
    assert "upstream exploded" in status.last_error and status.last_run == ""
    assert hygiene.next_run() == NOW + timedelta(hours=1) and not hygiene.is_due()
    hygiene.close()


async def test_the_schedule_runs_a_pass_only_when_the_writer_is_idle(llm_server, mm, make_llm, tmp_path, retriever):
    seed(mm)
    llm_server.responder = tidy_responder
    writer = MemoryWriter(mm, make_llm(), tmp_path / "journal")
    writer.start()
    writer.pause()  # a paused (or busy) writer is not idle
    hygiene = hygiene_for(writer, retriever, tmp_path, idle_seconds=0.0, poll_seconds=0.05)
    hygiene.start()
    try:
        await asyncio.sleep(0.4)
        assert llm_server.requests == [] and hygiene.status().last_run == ""
        writer.resume()
        await until(lambda: hygiene.status().last_run != "", timeout=10)
        assert "form0001" not in mm.all_items()
        await asyncio.sleep(0.3)
        assert len(llm_server.requests) == 1  # then not again today
    finally:
        await hygiene.stop()
        hygiene.close()
        await writer.stop()
        writer.close()


async def test_services_start_and_stop_the_hygiene_pass(llm_server, tmp_path):
    from sonetto_desktop.config.settings import Settings
    from sonetto_desktop.services import AppServices

    settings = Settings(data_dir=str(tmp_path / "data"), retrieval_mode="mechanical", base_url=llm_server.base_url,
                        model="test-model", api_key="sk-test", user_name="小林")
    services = await AppServices.open(settings=settings, watch=False, start_agents=True)
    try:
        hygiene = services.hygiene
        assert hygiene is not None and hygiene._task is not None and not hygiene._task.done()
        assert hygiene.state_path.parent == services.data_dir
        assert hygiene._user_name() == "小林" and services.writer._user_name() == "小林"
    finally:
        await services.close()
    assert hygiene._task is None


async def test_the_same_routine_on_other_days_is_not_sent_to_the_model_as_duplicates(llm_server, mm, writer,
                                                                                    retriever, tmp_path):
    # Moments of a weekly routine and an exam sat twice look alike word for word, but each is its own
    # event: the pass has nothing to tidy (before, every pair went to the model as "说的是同一件事的条目对").
    routine = {f"gym{n:04d}": (f"2026年11月{2 + 7 * n}日，用户去健身房练了腿", "瞬间") for n in range(4)}
    routine |= {"exam0001": ("用户1月9日有高数考试", "时效待办"), "exam0002": ("用户1月16日有高数考试", "时效待办")}
    seed(mm, routine)
    hygiene = hygiene_for(writer, retriever, tmp_path)
    report = await hygiene.run_once()
    assert report.changes == [] and llm_server.requests == []
    assert report.summary()[0] == "记忆很整齐，无需整理"
    hygiene.close()
