"""LongTermMemory: the durable write pipeline against the scripted server and real stores.

Failure, retry and stop behaviour is in test_ltm_failures.py."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from memory_stores import yaml_store_fixture
from llm_server import HangResponse
from ltm_helpers import FAST, TURN, described, kinds, make_ltm, recorder, script_create, until
from sonetto_desktop.memory import MemoryWriter, RetrievalMode, YamlMemoryManager
from sonetto_desktop.memory.writer.journal import TurnJournal, default_journal_path

store = yaml_store_fixture("store")


async def test_send_history_journals_then_the_turn_is_written(llm_server, make_llm, store, tmp_path):
    ltm = MemoryWriter(store, make_llm(), backoff=FAST)
    seen = recorder(ltm)
    ltm.start()
    llm_server.delay = 0.2  # the model is slow; send_history must not wait for it
    script_create(llm_server)
    turn_id = await ltm.send_history(TURN, session_id="s1")
    journal = TurnJournal(default_journal_path(store.path))
    assert [e.turn_id for e in journal.pending()] == [turn_id]  # on disk before we return
    assert ltm.pending == 1
    await until(lambda: ltm.pending == 0 and not ltm.busy)
    assert [i.description for i in store.all_items().values()] == ["用户喜欢猫"]
    assert journal.pending() == []
    assert kinds(seen) == ["queued", "started", "add", "done"]
    assert all(e.turn_id == turn_id and e.session_id == "s1" for e in seen if e.kind != "status")
    assert seen[-1].kind == "status" and ltm.status().zh == "记忆已是最新"
    assert "llm_calls=1" in next(e.detail for e in seen if e.kind == "done")
    assert await ltm.stop() is True


async def test_turns_are_written_in_order_with_their_ids(llm_server, make_llm, store):
    ltm = MemoryWriter(store, make_llm(), backoff=FAST)
    seen = recorder(ltm)
    ltm.start()
    facts = ["用户喜欢猫", "用户住在杭州", "用户是程序员"]
    ids = []
    for fact in facts:
        script_create(llm_server, fact)
        ids.append(await ltm.send_history([{"role": "user", "content": fact}]))
    assert await ltm.stop() is True
    created = [e for e in seen if e.kind == "add"]
    assert [described(e) for e in created] == facts
    assert [e.turn_id for e in created] == ids
    assert [e.ids[0] for e in created] == list(store.all_items())
    done = [e.turn_id for e in seen if e.kind == "done"]
    assert done == ids


async def test_journaled_turns_from_an_earlier_run_go_first(llm_server, make_llm, store):
    journal = TurnJournal(default_journal_path(store.path))
    journal.append("old-1", "s0", [{"role": "user", "content": "我叫小林"}])
    journal.append("old-2", "s0", [{"role": "user", "content": "我住在杭州"}])
    script_create(llm_server, "用户叫小林", "身份")
    script_create(llm_server, "用户住在杭州", "地点与路径")
    script_create(llm_server, "用户喜欢猫", "品味")
    ltm = MemoryWriter(store, make_llm(), backoff=FAST)
    seen = recorder(ltm)
    ltm.start()
    await ltm.send_history(TURN, turn_id="new-1")
    assert await ltm.stop() is True
    assert [e.turn_id for e in seen if e.kind == "done"] == ["old-1", "old-2", "new-1"]
    assert [i.description for i in store.all_items().values()] == ["用户叫小林", "用户住在杭州", "用户喜欢猫"]
    assert journal.pending() == []


async def test_send_before_start_is_journaled_and_written_at_start(llm_server, make_llm, store):
    ltm = MemoryWriter(store, make_llm(), backoff=FAST)
    turn_id = await ltm.send_history(TURN)
    assert [e.turn_id for e in ltm.journal.pending()] == [turn_id]
    script_create(llm_server)
    ltm.start()
    await until(lambda: store.count() == 1 and ltm.pending == 0)
    await ltm.stop()


async def test_pause_and_resume(llm_server, make_llm, store):
    ltm = MemoryWriter(store, make_llm(), backoff=FAST)
    seen = recorder(ltm)
    ltm.start()
    script_create(llm_server)
    await ltm.send_history(TURN)
    await until(lambda: store.count() == 1 and ltm.pending == 0)  # the writer is up and idle
    seen.clear()
    ltm.pause()
    await ltm.send_history([{"role": "user", "content": "我住在杭州"}])
    assert any(e.kind == "status" and "已暂停" in e.detail for e in seen)
    for _ in range(50):
        await asyncio.sleep(0)
    assert "started" not in kinds(seen)
    assert len(llm_server.requests) == 1 and ltm.paused and ltm.pending == 1
    script_create(llm_server, "用户住在杭州", "地点与路径")
    ltm.resume()
    await until(lambda: store.count() == 2 and ltm.pending == 0)
    await ltm.stop()


async def test_empty_turn_is_refused_and_nothing_is_journaled(make_llm, store):
    ltm = MemoryWriter(store, make_llm())
    ltm.start()
    with pytest.raises(ValueError, match="nothing to remember"):
        await ltm.send_history([])
    with pytest.raises(ValueError, match="nothing to remember"):
        await ltm.send_history([{"role": "user", "content": "  \n "}])
    assert ltm.journal.pending() == [] and ltm.pending == 0
    await ltm.stop()


async def test_huge_turn_is_journaled_whole_and_clipped_for_the_model(llm_server, make_llm, store):
    huge = "我把整篇论文贴给你：" + "实验数据" * 50000 + "。对了我叫小林"
    llm_server.delay = 0.3
    script_create(llm_server, "用户叫小林", "身份")
    ltm = MemoryWriter(store, make_llm(), backoff=FAST)
    ltm.start()
    await ltm.send_history([{"role": "user", "content": huge}])
    files = list((ltm.journal.path / "pending").glob("*.json"))
    assert json.loads(files[0].read_text("utf-8"))["messages"][0]["content"] == huge
    await until(lambda: store.count() == 1)
    assert len(llm_server.requests[0]["messages"][-1]["content"]) < 15000
    await ltm.stop()


async def test_send_history_from_session_takes_the_last_exchange(llm_server, make_llm, store):
    session = [
        {"role": "user", "content": "早上好"}, {"role": "assistant", "content": "早呀"},
        {"role": "user", "content": "我下周三要去上海出差"}, {"role": "assistant", "content": "一路顺风"},
    ]
    llm_server.add_text("已处理")
    ltm = MemoryWriter(store, make_llm(), backoff=FAST)
    ltm.start()
    await ltm.send_history_from_session("sess-7", session)
    assert await ltm.stop() is True
    prompt = llm_server.requests[0]["messages"][-1]["content"]
    assert "我下周三要去上海出差" in prompt and "一路顺风" in prompt and "早上好" not in prompt


async def test_start_needs_a_running_loop_and_journal_needs_a_path(store):
    ltm = MemoryWriter(store)
    with pytest.raises(RuntimeError):
        await asyncio.to_thread(ltm.start)  # no loop in that thread

    class NoPath:
        pass

    with pytest.raises(ValueError, match="journal_path"):
        MemoryWriter(NoPath())  # type: ignore[arg-type]


async def test_recall_delegation_mechanical(store):
    mid = store.add("用户养了一只叫年糕的猫", "身份")
    store.add("用户在杭州读大学", "身份")
    ltm = make_ltm(store)
    found = await ltm.aget_related_memory_from("年糕今天怎么样", RetrievalMode.MECHANICAL)
    assert found and found[0]["id"] == mid and found[0]["date"]
    sync = await asyncio.to_thread(ltm.get_related_memory_from, "年糕今天怎么样", "mechanical")
    assert sync == found
    ltm.recall.close()


async def test_kill_9_between_send_and_consumption_is_written_on_next_start(llm_server, make_llm, tmp_path):
    store_path = tmp_path / "memory.yaml"
    llm_server.add(HangResponse(60))
    child = subprocess.Popen(
        [sys.executable, str(Path(__file__).with_name("writer_crash_child.py")), str(store_path), llm_server.base_url],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        sent = await asyncio.to_thread(child.stdout.readline)
        assert sent.startswith("SENT "), child.stderr.read() if child.poll() is not None else sent
        turn_id = sent.split()[1]
        assert (await asyncio.to_thread(child.stdout.readline)).strip() == "STARTED"
        # Killed while its model call is at the server (not before: the hanging answer would be left for
        # the next writer's first call, which would wait out its timeout).
        assert await asyncio.to_thread(llm_server.wait_for_requests, 1, 30), "the model call"
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.communicate()  # reaps it and closes its pipes
    mm = YamlMemoryManager(store_path)
    assert mm.count() == 0
    script_create(llm_server, "用户叫小林，在杭州读大学", "身份")
    ltm = MemoryWriter(mm, make_llm())
    seen = recorder(ltm)
    ltm.start()
    await until(lambda: mm.count() == 1)
    assert await ltm.stop() is True
    assert [e.turn_id for e in seen if e.kind == "done"] == [turn_id]
    assert next(e.session_id for e in seen if e.kind == "done") == "crash-session"
    assert ltm.journal.pending() == []
    mm.close()


async def test_a_second_writer_on_the_same_store_does_not_replay_the_journal(llm_server, make_llm, store):
    journal = TurnJournal(default_journal_path(store.path))
    journal.append("old-1", None, [{"role": "user", "content": "我叫小林"}])
    first = MemoryWriter(store)  # holds the journal, waits for a model
    first.start()
    await until(lambda: first.pending == 1)  # it claimed the journal and queued the old turn
    second = MemoryWriter(store, make_llm(), backoff=FAST)
    second.start()
    await until(lambda: "另一个 Sonetto" in second.status().zh)
    assert second.last_error is None  # no failure: a note (the status says it after "up to date")
    assert "另一个 Sonetto" in second.status().zh
    script_create(llm_server)
    await second.send_history(TURN, turn_id="own-1")  # its own turns are written
    assert await second.stop() is True
    assert [i.description for i in store.all_items().values()] == ["用户喜欢猫"]
    assert [e.turn_id for e in journal.pending()] == ["old-1"]  # left for the first writer
    script_create(llm_server, "用户叫小林", "身份")
    first.set_llm(make_llm())
    await until(lambda: store.count() == 2)
    assert await first.stop() is True and journal.pending() == []


async def test_a_writer_that_finds_the_journal_held_says_so_in_the_uis_language(make_llm, store):
    """English UI: the status said "Memory writing failed: 另一个 Sonetto 正在使用这个记忆库…" (the
    writer's own reasons about its journal were Chinese only); either language, asked after a switch.
    It is a note after "up to date", not a failure (its writer works)."""
    journal = TurnJournal(default_journal_path(store.path))
    journal.append("old-1", None, [{"role": "user", "content": "我叫小林"}])
    first = MemoryWriter(store)
    first.start()
    await until(lambda: first.pending == 1)
    language = ["en"]
    second = MemoryWriter(store, make_llm(), backoff=FAST, language=lambda: language[0])
    second.start()
    await until(lambda: "另一个 Sonetto" in second.status().zh)
    status = second.status()
    assert status.en == "Memories are up to date. Another Sonetto is using this memory store: it writes the older turns still waiting", status.en
    assert status.last_error is None and second.last_error is None
    language[0] = "zh_CN"  # the UI switched to Chinese: the same reason, said in it
    assert second.status().zh == "记忆已是最新。另一个 Sonetto 正在使用这个记忆库，未处理的旧对话由它写入", second.status().zh
    assert await second.stop() is True
    assert await first.stop() is False  # (no model: its turn stays journaled)


async def test_restart_after_a_timed_out_stop_writes_the_leftover_turn(llm_server, make_llm, store):
    llm_server.add(HangResponse(30))
    ltm = MemoryWriter(store, make_llm(timeout=60), backoff=FAST)
    ltm.start()
    turn_id = await ltm.send_history(TURN)
    # stopped while the model call hangs: the request has reached the server (busy alone is not
    # enough: the turn's prompt may still be in the making, and the restart would take the hang)
    await until(lambda: ltm.busy and llm_server.requests)
    assert await ltm.stop(timeout=0.2) is False
    seen = recorder(ltm)
    script_create(llm_server)
    ltm.start()
    await until(lambda: store.count() == 1 and ltm.pending == 0)
    assert [e.turn_id for e in seen if e.kind == "done"] == [turn_id]
    assert await ltm.stop() is True


def test_warm_up_recall_builds_the_offline_index_ahead_of_the_first_query(store):
    texts = ["小林喜欢吃芒果", "小林在学吉他", "小林住在杭州", "小林养了一只柯基", "小林周五要交报告"]
    ids = [store.add(text, "身份") for text in texts]
    ltm = make_ltm(store)
    try:
        ltm.recall.mechanical.warm_up()
        mechanical = ltm.recall.mechanical
        assert mechanical.stats()["memories"] == 5
        assert {d["id"] for d in mechanical.candidates("小林", 10)} == set(ids)
        found = ltm.get_related_memory_from("今天买了芒果", RetrievalMode.MECHANICAL)
        assert found and found[0]["id"] == ids[0]
    finally:
        ltm.recall.close()


async def test_a_long_journal_is_replayed_a_window_at_a_time(llm_server, make_llm, store):
    """Issue 37: an import journals its thousand batches before the writer starts; the writer reads
    its journal a window at a time, so the turns' text is not all held in memory while it writes.
    Counted as the journal entries alive (``gc``) after start and while the turns are written, with
    a journal of 80; before, all 80 were read at start and held until each was written."""
    import gc

    from sonetto_desktop.memory.writer.journal import JournalEntry
    from sonetto_desktop.memory.writer.worker import JOURNAL_WINDOW

    def alive() -> int:  # this test's entries: what other tests of the process left alive is not counted
        gc.collect()
        return sum(isinstance(o, JournalEntry) for o in gc.get_objects()) - before

    before = 0
    before = alive()
    journal = TurnJournal(default_journal_path(store.path))
    sent = [journal.append(f"old-{i}", None, [{"role": "user", "content": f"第{i}件事" + "很长的一段话" * 50}]).turn_id
            for i in range(80)]
    ltm = MemoryWriter(store, backoff=FAST, drain_per_minute=0.0)  # no model yet: the turns wait; no pacing (as an import)
    done, held = [], []

    def on_event(event):
        if event.kind == "done":
            done.append(event.turn_id)
            if len(done) % 10 == 0:
                held.append(alive())

    ltm.events.subscribe(on_event)
    ltm.start()
    try:
        await until(lambda: ltm.pending == 80)  # all counted, ...
        assert alive() <= JOURNAL_WINDOW  # ... a window of them read
        llm_server.responder = lambda body: "本轮无需记录"
        ltm.set_llm(make_llm())
        await until(lambda: ltm.pending == 0 and not ltm.busy, timeout=60)
        assert done == sent  # every turn once, in the order journaled
        assert held and max(held) <= JOURNAL_WINDOW + 1, held
        await ltm.send_history(TURN, turn_id="new-1")  # the writer goes on with what it is sent
        await until(lambda: done[-1:] == ["new-1"])
    finally:
        stopped = await ltm.stop()
    assert stopped is True and journal.pending() == []


async def test_a_turn_not_read_yet_can_be_forgotten(llm_server, make_llm, store):
    """"别记住这个" on a journaled turn beyond the window read so far: taken out of the journal, never written."""
    journal = TurnJournal(default_journal_path(store.path))
    sent = [journal.append(f"old-{i}", None, [{"role": "user", "content": f"第{i}件事"}]).turn_id for i in range(40)]
    ltm = MemoryWriter(store, backoff=FAST, drain_per_minute=0.0)
    done = []
    ltm.events.subscribe(lambda event: done.append(event.turn_id) if event.kind == "done" else None)
    ltm.start()
    await until(lambda: ltm.pending == 40)
    assert await ltm.forget_turn("old-35") == "dropped" and ltm.pending == 39
    llm_server.responder = lambda body: "本轮无需记录"
    ltm.set_llm(make_llm())
    await until(lambda: ltm.pending == 0 and not ltm.busy, timeout=30)
    assert done == [t for t in sent if t != "old-35"]
    assert await ltm.stop() is True and journal.pending() == []
