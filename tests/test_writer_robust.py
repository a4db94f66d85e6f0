"""The background writer when things go wrong (issue 11, items 4, 5, 7, 8, 13): an interrupted turn
resumes without re-running what it applied, failed attempts are taken back, limits per turn hold a
looping model or a mass change with nothing applied, foreign journal files are set aside, and a full
disk keeps the turn, retried with the true reason shown."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from memory_stores import yaml_store_fixture
from llm_server import HangResponse, error, tool_calls
from ltm_helpers import FAST, TURN, kinds, recorder, script_create, until
from sonetto_desktop.memory import MemoryWriter, YamlMemoryManager
from sonetto_desktop.memory.writer.journal import TurnJournal, default_journal_path

store = yaml_store_fixture("store")

HERE = Path(__file__).resolve().parent


def live(store) -> list[str]:
    return sorted(item.description for item in store.all_items().values())


# ── item 4: an interrupted turn resumes; nothing runs twice ───────────


async def test_a_turn_killed_mid_write_resumes_without_running_applied_calls_again(llm_server, make_llm, tmp_path):
    store_path = tmp_path / "memory.yaml"
    texts = ["用户叫小林", "小林在杭州读大学", "小林养了一只猫", "小林喜欢周杰伦"]
    llm_server.add_tool_calls([("create_memory", {"content": t, "section": "身份"}) for t in texts])
    child = subprocess.Popen([sys.executable, str(HERE / "writer_resume_child.py"), str(store_path),
                              llm_server.base_url, "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = await asyncio.to_thread(child.stdout.readline)
        assert line.startswith("FROZEN "), child.stderr.read() if child.poll() is not None else line
        turn_id = line.split()[1]
    finally:
        os.kill(child.pid, signal.SIGKILL)  # the 2nd create is committed, the journal never heard it
        child.communicate()
    mm = YamlMemoryManager(store_path)
    assert len(mm.all_items()) == 2
    asked = len(llm_server.requests)
    llm_server.default = error(500, "the model must not be asked again")
    writer = MemoryWriter(mm, make_llm(), backoff=FAST)
    seen = recorder(writer)
    writer.start()
    await until(lambda: any(e.kind == "done" for e in seen))
    assert await writer.stop() is True
    assert live(mm) == sorted(texts)  # each exactly once
    assert len(llm_server.requests) == asked  # the recorded reply was used, not a new one
    assert [e.turn_id for e in seen if e.kind == "done"] == [turn_id]
    assert {item.hit for item in mm.all_items().values()} == {0}  # no "already there" hits either
    assert writer.journal.pending() == []
    mm.close()


async def test_a_turn_another_instance_is_writing_is_left_alone_on_restart(llm_server, make_llm, store, caplog):
    """The instance holding the journal claim restarts while another instance writes its own turn."""
    caplog.set_level(logging.INFO, logger="sonetto_desktop.memory.writer")
    journal = TurnJournal(default_journal_path(store.path))
    theirs = journal.append("theirs", None, TURN)
    elsewhere = TurnJournal(journal.path)  # the other instance's journal object (same files)
    assert elsewhere.lock_entry(theirs)  # ... working on its turn right now
    writer = MemoryWriter(store, make_llm(), backoff=FAST)
    writer.elsewhere_recheck = 0.3
    writer.start()
    await until(lambda: caplog.text.count("in flight elsewhere") >= 2)  # at start, and when it looked again
    assert llm_server.requests == [] and store.count() == 0  # not run twice
    script_create(llm_server)
    elsewhere.unlock_entry(theirs)  # the other instance died: the journal's holder writes the turn
    await until(lambda: store.count() == 1 and writer.pending == 0 and not writer.busy)
    assert await writer.stop() is True and journal.pending() == [] and len(llm_server.requests) == 1


async def test_restarting_the_journal_holder_never_reruns_another_instances_turn_in_flight(
        llm_server, make_llm, store, caplog):
    """Two app processes on one store: the one holding the journal restarts while the other is in
    the middle of its own turn; that turn is written once — by the other, or, after it is killed -9,
    by the journal's holder."""
    caplog.set_level(logging.INFO, logger="sonetto_desktop.memory.writer")
    holder = MemoryWriter(store, make_llm(), backoff=FAST)
    holder.elsewhere_recheck = 0.3
    holder.start()
    await until(lambda: holder.journal.claimed)
    llm_server.add(HangResponse(60))  # the other instance's model call
    child = subprocess.Popen([sys.executable, str(HERE / "writer_instance_child.py"), str(store.path),
                              llm_server.base_url], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        sent = await asyncio.to_thread(child.stdout.readline)
        assert sent.startswith("SENT "), child.stderr.read() if child.poll() is not None else sent
        turn_id = sent.split()[1]
        assert (await asyncio.to_thread(child.stdout.readline)).strip() == "STARTED"
        # In the middle of its turn: its model call reached the server (and hangs there). Killed before
        # that, the hanging answer was left for the holder's own call, which waited out its 5 s timeout.
        assert await asyncio.to_thread(llm_server.wait_for_requests, 1, 30), "the other instance's model call"
        await holder.stop()
        seen = recorder(holder)
        holder.start()  # replays the journal: the other instance's turn is in it
        await until(lambda: "in flight elsewhere" in caplog.text)
        assert "started" not in [e.kind for e in seen]  # not run a second time here
        script_create(llm_server)
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.communicate()
    await until(lambda: store.count() == 1 and holder.pending == 0 and not holder.busy)  # it died: ours now
    assert await holder.stop() is True
    assert [e.turn_id for e in seen if e.kind == "done"] == [turn_id] and holder.journal.pending() == []


# ── item 7: a renamed journal file is quarantined, not replayed at every start ──


async def test_a_renamed_journal_file_is_quarantined_not_replayed(llm_server, make_llm, store):
    journal = TurnJournal(default_journal_path(store.path))
    entry = journal.append("t-renamed", None, TURN)
    renamed = journal.pending_dir / f"copy of {entry.filename}"
    os.replace(journal.pending_dir / entry.filename, renamed)
    writer = MemoryWriter(store, make_llm(), backoff=FAST)
    writer.start()
    assert await writer.stop() is True  # (a replay would run before the stop is seen)
    assert llm_server.requests == [] and store.count() == 0
    assert not renamed.exists() and (journal.quarantine_dir / renamed.name).exists()  # kept, set aside
    assert TurnJournal(journal.path).pending() == []


# ── item 5: failed attempts are taken back; a looping model is capped ──


async def test_a_failed_attempt_is_taken_back_and_the_retry_replays_the_models_reply(llm_server, make_llm, store):
    keep = store.add("用户住在成都", "身份")
    llm_server.add_tool_calls([("create_memory", {"content": "用户喜欢猫", "section": "品味"}),
                               ("update_memory", {"id": keep, "content": "用户搬到了上海", "reason": "搬家"}),
                               ("read_memories", {})])
    llm_server.add_error(500, "died after the reads")  # the attempt fails half-way
    llm_server.add_text("本轮无需记录")  # the retry's second model call
    writer = MemoryWriter(store, make_llm(), backoff=FAST)
    seen = recorder(writer)
    writer.start()
    await writer.send_history(TURN)
    await until(lambda: writer.pending == 0 and not writer.busy)
    assert await writer.stop() is True
    undone = [c for c in seen if getattr(c, "ids", None) and (c.turn_id or "").startswith("rollback-")]
    assert {c.kind for c in undone} == {"delete", "revert", "hit"}  # one action, told apart from the turn's
    # The first attempt's writes were taken back (its memory waits in the trash, its hit is gone) ...
    trashed = [row for row in store.list_trash() if row["description"] == "用户喜欢猫"]
    assert len(trashed) == 1 and trashed[0]["turn_id"].startswith("rollback-")
    # ... and the retry replayed the model's first reply instead of paying for it again.
    assert len(llm_server.requests) == 3
    assert live(store) == ["用户喜欢猫", "用户搬到了上海"] and store.get(keep).hit == 1


async def test_a_reply_that_broke_its_attempt_is_not_replayed_the_model_is_asked_again(llm_server, make_llm,
                                                                                       store):
    # (An over-long reason is refused by the store with TooLong, which the update tool lets escape:
    # today the one way a model's reply breaks its attempt outright. Should the tool start answering
    # it as a tool error, this test needs another such reply.)
    keep = store.add("用户住在成都", "身份")
    llm_server.add_tool_calls([("create_memory", {"content": "用户喜欢猫", "section": "品味"}),
                               ("update_memory", {"id": keep, "content": "用户搬到了上海", "reason": "搬" * 2000})])
    llm_server.add_tool_calls([("update_memory", {"id": keep, "content": "用户搬到了上海", "reason": "搬家"})])
    writer = MemoryWriter(store, make_llm(), backoff=FAST)
    writer.start()
    await writer.send_history(TURN)
    await until(lambda: writer.pending == 0 and not writer.busy)
    assert await writer.stop() is True
    assert writer.failed_turns() == [] and live(store) == ["用户搬到了上海"]  # the second reply, alone


async def test_a_looping_model_is_capped_and_its_turn_held_with_nothing_applied(llm_server, make_llm, store):
    llm_server.default = tool_calls([("create_memory", {"content": f"垃圾条目{i}", "section": "瞬间"})
                                     for i in range(40)])
    writer = MemoryWriter(store, make_llm(), backoff=FAST, max_tool_calls=6)
    seen = recorder(writer)
    writer.start()
    await writer.send_history(TURN)
    await until(lambda: writer.failed_turns())
    assert await writer.stop() is True
    assert store.count() == 0 and len(llm_server.requests) == 1  # taken back, and not retried 5 times
    [held] = writer.failed_turns()
    assert held.held == "tool_calls" and [e.kind for e in seen].count("failed") == 1
    assert "超过 6 次" in writer.status().last_error


async def test_a_model_calling_a_tool_that_does_not_exist_is_held_with_the_tools_name(llm_server, make_llm, store):
    llm_server.default = tool_calls([("no_such_tool", {"x": 1})])
    writer = MemoryWriter(store, make_llm(), backoff=FAST)  # the default limit of 30 tool calls
    seen = recorder(writer)
    writer.start()
    await writer.send_history(TURN)
    await until(lambda: writer.failed_turns())
    assert await writer.stop() is True
    # stopped after 3 unknown calls, answered with the tool list each time: 4 model requests, one attempt
    assert len(llm_server.requests) == 4 and [e.kind for e in seen].count("failed") == 1
    [held] = writer.failed_turns()
    assert held.held == "tool_calls"
    said = writer.status().zh
    assert "no_such_tool" in said and "不存在的工具" in said and "/v1" not in said


async def test_a_model_that_loops_one_call_a_round_meets_the_tool_limit_not_the_step_limit(llm_server, make_llm,
                                                                                            store):
    mid = store.add("用户喜欢猫", "品味")
    # one failing call per round, for ever (each answered with an error, so the model is asked again)
    llm_server.default = tool_calls([("update_memory", {"id": "nope1234", "content": "用户喜欢狗", "reason": "r"})])
    writer = MemoryWriter(store, make_llm(), backoff=FAST)
    writer.start()
    await writer.send_history(TURN)
    await until(lambda: writer.failed_turns(), timeout=60)
    assert await writer.stop() is True
    # Held by the 30-call guard in one attempt (the step limit used to stop it at ~10 rounds, worded as a
    # bad base URL, and retried 5 times).
    assert len(llm_server.requests) == 31 and writer.failed_turns()[0].held == "tool_calls"
    assert "超过 30 次" in writer.status().zh and "/v1" not in writer.status().zh
    assert store.get(mid).description == "用户喜欢猫"


async def test_the_step_limit_is_held_as_a_loop_not_retried_as_a_model_failure(llm_server, make_llm, store):
    from sonetto_desktop.memory.writer.consumer import MemoryConsumer
    from sonetto_desktop.memory.writer.limits import TurnHeld

    llm_server.default = tool_calls([("hit_memory", {"id": "nope1234"})])
    with pytest.raises(TurnHeld, match="超过 3 轮"):
        await MemoryConsumer(make_llm(), store, max_rounds=3).consume(None, "t1", TURN)
    assert len(llm_server.requests) == 3  # the model was asked three times, not a fourth


async def test_a_backlog_is_written_at_a_bounded_rate(llm_server, make_llm, store):
    count = iter(range(1000))
    llm_server.responder = lambda body: tool_calls([("create_memory", {"content": f"用户的第{next(count)}件事",
                                                                      "section": "瞬间"})])
    writer = MemoryWriter(store, make_llm(), backoff=FAST, drain_burst=3, drain_per_minute=1 / 60)  # 1 an hour
    for n in range(10):  # e.g. a day's chats journaled while no model was set
        await writer.send_history([{"role": "user", "content": f"第{n}件事"}])
    seen = recorder(writer)
    writer.start()
    await until(lambda: "积压" in writer.status().zh)
    assert len(llm_server.requests) == 3 and store.count() == 3  # the burst, then the rate: not all 10
    assert any(e.kind == "status" and "积压" in e.detail for e in seen)
    assert await writer.stop(timeout=5) is False
    assert len(writer.journal.pending()) == 7  # the rest waits in the journal, nothing lost


async def test_a_small_queue_is_not_slowed_down(llm_server, make_llm, store):
    llm_server.responder = lambda body: tool_calls([("create_memory", {"content": f"用户说了{len(llm_server.requests)}",
                                                                      "section": "瞬间"})])
    writer = MemoryWriter(store, make_llm(), backoff=FAST, drain_burst=3, drain_per_minute=1 / 60)
    writer.start()
    for n in range(3):
        await writer.send_history([{"role": "user", "content": f"第{n}件事"}])
    await until(lambda: store.count() == 3)
    assert await writer.stop() is True and "积压" not in writer.status().zh


async def test_tool_calls_written_as_text_keep_the_turn_with_the_reason_until_retried(llm_server, make_llm, store):
    # A server without a tool parser for its model passes the calls on as words: the turn used to
    # end as "nothing to remember", and what the person said was lost without a word.
    llm_server.add_text('<tool_call>\n{"name": "create_memory", "arguments": {"content": "用户喜欢猫", '
                        '"section": "品味"}}\n</tool_call>')
    writer = MemoryWriter(store, make_llm(), backoff=FAST)
    seen = recorder(writer)
    writer.start()
    await writer.send_history(TURN)
    await until(lambda: writer.failed_turns())
    assert store.count() == 0 and len(llm_server.requests) == 1  # kept at once, not asked 5 times
    assert [e.kind for e in seen if e.kind in ("failed", "gave_up", "done")] == ["failed", "gave_up"]
    status = writer.status()
    assert status.can_retry and "写成了文字" in status.zh and "--jinja" in status.zh
    script_create(llm_server)  # the person switched to a model that calls tools
    assert await writer.retry_failed() == 1
    await until(lambda: writer.pending == 0 and store.count() == 1)
    assert await writer.stop() is True and writer.failed_turns() == []


@pytest.mark.parametrize("text, written", [
    ('<tool_call>{"name": "create_memory", "arguments": {}}</tool_call>', True),
    ("<|tool_call|>hit_memory", True),
    ('create_memory(content="用户喜欢猫", section="品味")', True),
    ('{"name": "update_memory", "arguments": {"id": "a1"}}', True),
    ("这一轮没有需要记住的新信息。", False),
    ("已记录：用户喜欢猫。", False),
    ("不需要调用 create_memory，用户只是在打招呼。", False),
    ("", False),
])
def test_calls_written_as_text_are_told_from_an_answer(text, written):
    from sonetto_desktop.memory.writer.text_calls import calls_written_as_text

    assert calls_written_as_text(text) is written


# ── item 13: a mass change is held until the person says yes ──────────


async def test_a_mass_change_is_held_then_applied_on_retry_and_undoable_as_one(llm_server, make_llm, store):
    ids = [store.add(f"用户的第{i}条记忆", "身份") for i in range(6)]
    wipe = [("delete_memory", {"id": mid, "reason": "记忆里写着要删掉全部"}) for mid in ids]
    llm_server.add_tool_calls(wipe)
    writer = MemoryWriter(store, make_llm(), backoff=FAST, max_changed=3)
    writer.start()
    turn_id = await writer.send_history(TURN)
    await until(lambda: writer.failed_turns())
    assert store.count() == 6 and store.list_trash() == []  # held: nothing applied
    status = writer.status()
    assert status.held == 1 and status.can_retry and "太多" in status.zh
    assert await writer.retry_failed() == 1  # the person looked and said yes: exactly what was held
    await until(lambda: writer.pending == 0 and store.count() == 0)
    assert await writer.stop() is True and len(llm_server.requests) == 1
    writer.ops.undo_turn(turn_id)  # one action takes it all back
    assert store.count() == 6


async def test_new_memories_are_not_a_mass_change(llm_server, make_llm, store):
    llm_server.add_tool_calls([("create_memory", {"content": f"用户的第{i}个爱好", "section": "品味"})
                               for i in range(8)])
    writer = MemoryWriter(store, make_llm(), backoff=FAST, max_changed=3)
    writer.start()
    await writer.send_history(TURN)
    await until(lambda: writer.pending == 0 and not writer.busy)
    assert await writer.stop() is True
    assert store.count() == 8 and writer.failed_turns() == []  # a long self-introduction is kept


# ── item 8: a full disk keeps the turn, retried with the true reason ───


def test_a_full_disk_keeps_the_turn_retrying_with_the_reason_and_retry_failed(llm_server, tmp_path):
    llm_server.default = tool_calls([("create_memory", {"content": "用户喜欢猫", "section": "品味"})])
    done = subprocess.run([sys.executable, str(HERE / "writer_disk_child.py"), str(tmp_path), llm_server.base_url],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    failing = out["failing"]
    assert "gave_up" not in out["events"] and out["events"].count("failed") >= 5  # past max_attempts=2
    assert failing["pending"] == 1 and failing["can_retry"] and failing["retry_at"]
    assert "file size limit" in failing["last_error"] and "file size limit" in failing["zh"]
    assert failing["retry_at"][11:19] in failing["zh"]  # when, not "retrying" for ever
    assert out["count"] == 301 and out["journal"] == 0
    assert len(llm_server.requests) == 1  # every retry replayed the model's reply: the model was paid once


# ── the limits are settings ───────────────────────────────────────────


async def test_the_writer_limits_are_settings_handed_to_the_writer(llm_server, tmp_path):
    from sonetto_desktop.config.settings import Settings
    from sonetto_desktop.services import AppServices

    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"writer_max_tool_calls": 7, "writer_max_changed_memories": 0.5}), "utf-8")
    loaded = Settings.load(path, with_secret=False)
    assert loaded.writer_max_tool_calls == 7 and loaded.writer_max_changed_memories == 15  # bad value: default
    assert Settings(writer_max_tool_calls=0).validate()  # out of range is a problem, said so
    settings = Settings(data_dir=str(tmp_path / "data"), retrieval_mode="mechanical", base_url=llm_server.base_url,
                        model="test-model", api_key="sk-test", writer_max_tool_calls=7,
                        writer_max_changed_memories=4)
    services = await AppServices.open(settings=settings, watch=False, start_agents=True)
    try:
        assert (services.writer.max_tool_calls, services.writer.max_changed) == (7, 4)
    finally:
        await services.close()


def test_a_store_or_disk_failure_is_said_as_such_not_as_a_model_error():
    import errno

    from sonetto_desktop.agent.llm_errors import describe_llm_error
    from sonetto_desktop.memory.errors import StoreOffline, StoreWriteFailed
    from sonetto_desktop.memory.writer.status import describe_failure

    def app_describer(exc, key, language):  # what the app hands the writer (services.start_agents)
        info = describe_llm_error(exc, api_key=key)
        return f"{info.zh}（{info.code}）"

    full = StoreWriteFailed("/data/memory.yaml", "the disk is full")
    assert describe_failure(full, "", app_describer) == "记忆无法保存：磁盘已满（the disk is full）"
    raw = OSError(errno.ENOSPC, "No space left on device")
    assert describe_failure(raw, "", app_describer).startswith("无法写入磁盘：磁盘已满")
    away = StoreOffline("postgresql://host/db", "timeout")
    assert describe_failure(away, "", app_describer) == away.zh
    assert "模型" in describe_failure(ValueError("garbage from the model"), "", app_describer)
    # the writer's own reasons are said as they are (a held turn once read "check the base URL")
    from sonetto_desktop.memory.writer.limits import CallsWrittenAsText, TurnHeld

    held = TurnHeld("tool_calls", "模型在一轮里调用工具超过 30 次（可能陷入了循环），本轮没有做任何改动")
    assert describe_failure(held, "", app_describer) == held.detail
    assert "写成了文字" in describe_failure(CallsWrittenAsText(), "", app_describer)


async def test_a_memory_server_away_is_waited_for_never_given_up_and_looked_at_again_soon(
        llm_server, make_llm, pg_server, pg_schema, tmp_path):
    # CI found the writer backing off 15 s and more after the server came back (and giving up after five
    # tries): a server outage is like a full disk (kept and retried), and reconnecting is cheap.
    from sonetto_desktop.memory.stores.postgres.store import PostgresMemoryManager
    from sonetto_desktop.memory.writer.worker import SERVER_RETRY
    from tcp_proxy import TcpProxy, proxied_url

    proxy = TcpProxy(pg_server.port)
    store = PostgresMemoryManager(proxied_url(pg_server, proxy), schema=pg_schema, write_wait=0.2,
                                  cache_path=tmp_path / "copy.db")
    ltm = MemoryWriter(store, make_llm(), max_attempts=1, backoff=(600.0,),  # the model's backoff: ten minutes
                       journal_path=store.journal_path)
    assert ltm.server_retry == SERVER_RETRY <= 5  # the app's: soon
    ltm.server_retry = 0.2  # this test's: three tries take a second, not six
    seen = recorder(ltm)
    try:
        store.poll_external()
        assert await asyncio.to_thread(store.wait_listening, 10)
        proxy.cut()  # the listener notices at once
        await until(lambda: not store.online, 10, "the store offline")
        llm_server.default = tool_calls([("create_memory", {"content": "用户喜欢猫", "section": "品味"})])
        ltm.start()
        await ltm.send_history(TURN)
        # Within 20 s, not after the model's ten-minute backoff, and past max_attempts without giving up.
        await until(lambda: kinds(seen).count("failed") >= 3, 20, "more attempts, each soon after the last")
        assert "gave_up" not in kinds(seen) and ltm.pending == 1 and ltm.failed_turns() == []
        proxy.restore()
        await until(lambda: ltm.pending == 0, 30, "the turn written once the server is back")
        assert [i.description for i in store.all_items().values()] == ["用户喜欢猫"]
    finally:
        await ltm.stop()
        store.close()
        proxy.close()
