"""LongTermMemory when things go wrong: endpoint failures and retries, bounded stop, no model,
the failed list, and the API key never reaching an error, an event or the log."""

from __future__ import annotations

import asyncio
import logging
import re

import pytest

from memory_stores import yaml_store_fixture
from llm_server import HangResponse, error
from ltm_helpers import FAST, TURN, kinds, recorder, script_create, until
from sonetto_desktop.memory import MemoryWriter
from sonetto_desktop.memory.writer.journal import TurnJournal

store = yaml_store_fixture("store")


@pytest.mark.parametrize("failure", ["500", "hang", "garbage", "malformed_stream"])
async def test_endpoint_failure_keeps_the_turn_and_retries(llm_server, make_llm, store, failure):
    ltm = MemoryWriter(store, make_llm(timeout=0.5), backoff=FAST)
    seen = recorder(ltm)
    if failure == "500":
        llm_server.add_error(500, "upstream exploded")
    elif failure == "hang":
        llm_server.add_hang(3)
    elif failure == "garbage":
        llm_server.add_garbage()
    else:
        llm_server.add_malformed_stream()
    llm_server.add_error(503, "still down")
    script_create(llm_server)
    ltm.start()
    turn_id = await ltm.send_history(TURN)
    await until(lambda: any(e.kind == "failed" for e in seen))
    assert [e.turn_id for e in ltm.journal.pending()] == [turn_id]  # still journaled while failing
    assert ltm.last_error
    await until(lambda: store.count() == 1 and ltm.pending == 0)
    failures = [e for e in seen if e.kind == "failed"]
    assert len(failures) == 2 and failures[0].turn_id == turn_id
    assert [f.attempt for f in failures] == [1, 2] and all(f.detail for f in failures)
    assert "次失败" not in failures[0].detail  # the words are the UI's, in the UI's language
    assert ltm.journal.pending() == [] and ltm.last_error is None
    await ltm.stop()


async def test_stop_is_bounded_when_the_endpoint_hangs(llm_server, make_llm, store):
    llm_server.default = HangResponse(30)
    ltm = MemoryWriter(store, make_llm(timeout=60), backoff=FAST)
    seen = recorder(ltm)
    ltm.start()
    turn_id = await ltm.send_history(TURN)
    await until(lambda: ltm.busy)
    drained = await asyncio.wait_for(ltm.stop(timeout=0.3), 10)
    assert drained is False and not ltm.running and not ltm.busy
    assert [e.turn_id for e in ltm.journal.pending()] == [turn_id]
    assert store.count() == 0
    assert "done" not in kinds(seen)


async def test_stop_tries_each_turn_once_without_backoff_when_the_endpoint_is_down(llm_server, make_llm, store):
    llm_server.default = error(500, "down")
    ltm = MemoryWriter(store, make_llm(), backoff=(60,))
    ltm.start()
    for i in range(3):
        await ltm.send_history([{"role": "user", "content": f"第{i}轮"}])
    assert await asyncio.wait_for(ltm.stop(timeout=20), 30) is False
    assert [e.attempts for e in ltm.journal.pending()] == [1, 1, 1]


async def test_unconfigured_model_waits_with_status_then_set_llm_resumes(llm_server, make_llm, store):
    ltm = MemoryWriter(store)  # no model configured anywhere (conftest clears the environment)
    seen = recorder(ltm)
    ltm.start()
    turn_id = await ltm.send_history(TURN)
    await until(lambda: not ltm.status().configured)
    assert ltm.status().zh.startswith("未配置模型，记忆写入暂停")
    assert any(e.kind == "status" and "未配置模型" in e.detail for e in seen)
    assert [e.turn_id for e in ltm.journal.pending()] == [turn_id]
    assert "failed" not in kinds(seen) and llm_server.requests == []
    script_create(llm_server)
    ltm.set_llm(make_llm())
    await until(lambda: store.count() == 1 and ltm.pending == 0)
    assert await ltm.stop() is True


async def test_stop_while_unconfigured_keeps_the_journal(store):
    ltm = MemoryWriter(store)
    ltm.start()
    await ltm.send_history(TURN)
    assert await asyncio.wait_for(ltm.stop(timeout=5), 10) is False
    assert len(ltm.journal.pending()) == 1


async def test_failing_turn_goes_to_the_failed_list_then_retry_failed(llm_server, make_llm, store):
    llm_server.default = error(500, "always down")
    ltm = MemoryWriter(store, make_llm(), max_attempts=3, backoff=FAST)
    seen = recorder(ltm)
    ltm.start()
    turn_id = await ltm.send_history(TURN, session_id="s9")
    await until(lambda: ltm.failed_turns())
    assert [(e.turn_id, e.attempts) for e in ltm.failed_turns()] == [(turn_id, 3)]
    on_disk = TurnJournal(ltm.journal.path).failed()
    assert [(e.turn_id, e.session_id, e.attempts) for e in on_disk] == [(turn_id, "s9", 3)]
    assert on_disk[0].last_error and ltm.journal.pending() == []
    gave_up = [e for e in seen if e.kind == "gave_up"]
    assert len(gave_up) == 1 and gave_up[0].turn_id == turn_id
    assert kinds(seen).count("failed") == 3
    assert "未能写入" in ltm.status().zh and ltm.pending == 0

    # A later turn is not blocked by the failed one.
    llm_server.default = None
    script_create(llm_server, "用户住在杭州", "地点与路径")
    await ltm.send_history([{"role": "user", "content": "我住在杭州"}])
    await until(lambda: store.count() == 1 and ltm.pending == 0)

    script_create(llm_server)
    assert await ltm.retry_failed() == 1
    await until(lambda: store.count() == 2 and ltm.pending == 0)
    assert ltm.failed_turns() == [] and ltm.journal.failed() == []
    await ltm.stop()


async def test_the_failed_list_keeps_its_turns_text_on_disk_only_and_a_retry_writes_it(llm_server, make_llm, store):
    """Issue 37: the writer's failed list held every given-up turn's text (an import's thousands of
    batches with a dead endpoint, loaded whole again at each start); it names and counts them, and
    the text stays in the journal's ``failed/``, from where a retry writes it."""
    llm_server.default = error(500, "always down")
    ltm = MemoryWriter(store, make_llm(), max_attempts=1, backoff=FAST)
    ltm.start()
    said = [{"role": "user", "content": "我养了一只叫年糕的猫"}, {"role": "assistant", "content": "年糕好可爱"}]
    turn_id = await ltm.send_history(said, session_id="s1")
    await until(lambda: ltm.failed_turns())
    listed = ltm.failed_turns()
    assert [(e.turn_id, e.session_id, e.attempts, e.messages) for e in listed] == [(turn_id, "s1", 1, [])]
    assert "未能写入" in ltm.status().zh
    await ltm.stop()

    again = MemoryWriter(store, make_llm(), max_attempts=1, backoff=FAST)  # the next start reads the list
    again.start()
    await until(lambda: again.failed_turns())
    assert [(e.turn_id, e.messages) for e in again.failed_turns()] == [(turn_id, [])]
    llm_server.default = None
    script_create(llm_server, "用户养了一只叫年糕的猫", "家人")
    assert await again.retry_failed() == 1
    await until(lambda: store.count() == 1 and again.pending == 0)
    asked = llm_server.requests[-1]["messages"] if llm_server.requests else []
    assert any("年糕" in str(m.get("content")) for m in asked)  # written from the text on disk
    assert again.failed_turns() == [] and again.journal.failed() == []
    await again.stop()


async def test_a_retry_of_many_failed_turns_reads_them_back_a_window_at_a_time(llm_server, make_llm, store):
    """A retry moved every failed turn back and queued them all with their text; they are read back
    from the journal as they come (``JOURNAL_WINDOW`` at a time), counted as waiting at once, each
    written once."""
    from llm_server import tool_calls
    from sonetto_desktop.memory.writer.worker import JOURNAL_WINDOW

    llm_server.default = error(500, "always down")
    ltm = MemoryWriter(store, make_llm(), max_attempts=1, backoff=FAST, drain_per_minute=0.0)  # (unpaced)
    ltm.start()
    count = JOURNAL_WINDOW * 2 + 5
    for n in range(count):
        await ltm.send_history([{"role": "user", "content": f"第{n}件事：" + "很长的一段话。" * 300},
                                {"role": "assistant", "content": "好的"}])
    await until(lambda: len(ltm.failed_turns()) == count, timeout=30)
    llm_server.default = None

    def remember(body):
        if any(m["role"] == "tool" for m in body["messages"]):
            return "好的"
        n = re.search(r"第(\d+)件事：", " ".join(str(m.get("content")) for m in body["messages"])).group(1)
        return tool_calls([("create_memory", {"content": f"用户说了第{n}件事", "section": "其他"})])

    llm_server.responder = remember
    ltm.pause()
    assert await ltm.retry_failed() == count
    assert ltm.pending == count and ltm.failed_turns() == []
    await until(lambda: ltm._worker.entries, what="the first window read")
    await asyncio.sleep(0.2)
    assert len(ltm._worker.entries) <= JOURNAL_WINDOW and ltm.pending == count  # paused: one window in memory
    ltm.resume()
    await until(lambda: store.count() == count and ltm.pending == 0, timeout=60)
    assert sorted(i.description for i in store.all_items().values()) == sorted(f"用户说了第{n}件事" for n in range(count))
    await ltm.stop()


async def test_the_api_key_never_reaches_errors_events_or_the_log(llm_server, make_llm, store, caplog):
    secret = "Zq7-private-token-55501"  # not "sk-..." shaped: only knowing the key can scrub it
    caplog.set_level(logging.INFO)
    llm_server.add_error(500, f"invalid credentials {secret}")  # a server that echoes the key back
    ltm = MemoryWriter(store, make_llm(api_key=secret), max_attempts=1, backoff=FAST)
    seen = recorder(ltm)
    ltm.start()
    await ltm.send_history(TURN)
    await until(lambda: ltm.failed_turns())
    await ltm.stop()
    assert "invalid credentials ***" in ltm.last_error  # the server's words are kept, the key is not
    shown = [ltm.last_error, ltm.status().zh, caplog.text, *(e.detail for e in seen)]
    shown += [e.last_error or "" for e in ltm.journal.failed()]
    assert not [text for text in shown if secret in text]
