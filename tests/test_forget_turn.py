""""别记住这个" (issue 12, capability 3): services.forget_turn undoes what the turn wrote, keeps the
writer from writing a turn still waiting, and puts the message on the don't-remember list, which a
later turn's writer then obeys. Through AppServices with the real writer, on both file backends."""

from __future__ import annotations

import asyncio

import pytest

from helpers import engine_factory_fixture, writer_settled
from ltm_helpers import idle_ltm_fixture
from memory_stores import yaml_store_fixture
from sonetto_desktop.memory import MemoryOperations
from sonetto_desktop.memory.forget import REASON, withdraw_turns
from sonetto_desktop.services import AppServices
from test_engine import a_reply_stopped_while_journaled
from test_services import settings_for

make_engine = engine_factory_fixture()
mm = yaml_store_fixture()
ltm = idle_ltm_fixture()


def snapshot(services: AppServices) -> tuple[dict, set]:
    items = {mid: (item.description, item.theme) for mid, item in services.memory.all_items().items()}
    return items, {row["id"] for row in services.memory.trash()}


@pytest.fixture(params=["yaml", "sqlite"])
async def services(request, llm_server, tmp_path):
    opened = await AppServices.open(settings=settings_for(tmp_path, llm_server.base_url, store_backend=request.param),
                                    watch=False)
    await opened.start_agents()
    yield opened
    await opened.close()


async def test_a_written_turn_is_taken_back_and_not_written_again(services, llm_server):
    city = services.memory.add("用户住在成都", "身份").ids[0]
    before = snapshot(services)
    llm_server.add_text("嗯嗯，我懂。")
    llm_server.add_tool_calls([
        ("create_memory", {"content": "用户最近在看心理医生", "section": "身份"}),
        ("update_memory", {"id": city, "content": "用户住在成都，在看心理医生", "reason": "用户说的"}),
    ])
    llm_server.add_text("已记录。")
    message = "我最近在看心理医生"
    done = [e async for e in services.chat.send("s1", message)][-1]
    await writer_settled(services)
    assert snapshot(services) != before

    result = await services.forget_turn(done.turn_id, message)
    assert result.complete and result.undo is not None and result.undo.undone == done.turn_id
    items, _trash = snapshot(services)
    assert items == before[0]  # the created memory went to the trash, the update was reverted
    assert [e.text for e in services.dont_remember.entries()] == [message]
    assert services.memory.history(city)[0]["reason"] == REASON  # newest first

    # a later turn saying the same: the writer is told (prompt) and refused (tools)
    llm_server.add_text("好的。")
    llm_server.add_tool_calls([("create_memory", {"content": "用户在看心理医生", "section": "身份"})])
    llm_server.add_text("不记了。")
    _ = [e async for e in services.chat.send("s1", "心理医生说我好多了")]
    await writer_settled(services)
    writer_prompt = llm_server.requests[-1]["messages"][1]["content"]
    assert "## 新一轮对话" in writer_prompt and "我最近在看心理医生" in writer_prompt  # the list, in the prompt
    assert snapshot(services)[0] == before[0]  # and its create_memory was refused


async def test_a_waiting_turn_is_dropped_before_it_is_written(services, llm_server):
    services.writer.pause()
    llm_server.add_text("好的。")
    message = "我的体重是60公斤"
    done = [e async for e in services.chat.send("s1", message)][-1]
    assert services.writer.pending == 1
    result = await services.forget_turn(done.turn_id, message)
    assert result.writer == "dropped" and result.undo is None and result.complete
    assert services.writer.pending == 0 and services.writer.journal.pending() == []
    services.writer.resume()
    await asyncio.sleep(0.3)
    assert services.memory.count() == 0 and len(llm_server.requests) == 1  # the writer never ran


async def test_a_turn_waiting_out_a_failed_attempt_is_dropped_at_once(services, llm_server):
    """A turn whose first attempt failed waits out its backoff as the writer's current turn: forgetting it
    (别记住这个, or an edit that replaces it) waited up to the whole wait for that, 15 s for an edit,
    while the new reply could not start. It is dropped at once instead, and never tried again."""
    llm_server.add_text("好的。")
    message = "我的体重是60公斤"
    done = [e async for e in services.chat.send("s1", message)][-1]
    # the writer's request finds no script: HTTP 500, then a backoff before the next attempt
    for _ in range(200):
        if services.writer.status().retry_at is not None or services.writer.last_error:
            break
        await asyncio.sleep(0.025)
    assert services.writer.last_error, "the first attempt should have failed"
    asked = len(llm_server.requests)
    result = await services.forget_turn(done.turn_id, message)
    assert result.writer == "dropped" and result.complete  # not waited out and then called "written"
    await asyncio.sleep(1.5)  # past the backoff: it is not tried again
    assert len(llm_server.requests) == asked and services.writer.pending == 0
    assert services.writer.journal.pending() == [] and services.memory.count() == 0


async def test_a_later_edit_keeps_the_turn_and_says_which_memory(services, llm_server):
    llm_server.add_text("好呀。")
    llm_server.add_tool_calls([("create_memory", {"content": "用户喜欢山竹", "section": "品味"})])
    llm_server.add_text("已记录。")
    done = [e async for e in services.chat.send("s1", "我喜欢山竹")][-1]
    await writer_settled(services)
    [mid] = services.memory.all_items()
    services.memory.update(mid, description="用户很喜欢山竹，尤其是泰国的", reason="我自己改的")
    result = await services.forget_turn(done.turn_id, "我喜欢山竹")
    assert list(result.conflicts) == [mid] and not result.complete and result.undo is None
    assert services.memory.get(mid).description == "用户很喜欢山竹，尤其是泰国的"  # the person's edit stays
    assert [e.turn_id for e in services.dont_remember.entries()] == [done.turn_id]


async def test_withdrawn_turns_are_one_undoable_action_and_touch_no_list(tmp_path):
    """Issue 30 item 6, below the UI: two replaced turns' changes taken back as one action."""
    from sonetto_desktop.memory import YamlMemoryManager
    from sonetto_desktop.memory.changes import AGENT, Turn
    from sonetto_desktop.memory.dont_remember import DontRememberList
    from sonetto_desktop.memory.forget import withdraw_turns
    from sonetto_desktop.memory.operations import MemoryOperations

    store = YamlMemoryManager(tmp_path / "memory.yaml")
    listed = DontRememberList(tmp_path / "dont_remember.json")
    ops = MemoryOperations(store, dont_remember=listed)
    kept = ops.add("用户喜欢猫", "品味").ids[0]
    first = ops.as_actor(AGENT, Turn("t1", "s")).add("用户下周五复查", "健康").ids[0]
    ops.as_actor(AGENT, Turn("t2", "s")).update(kept, description="用户喜欢橘猫")
    result = await withdraw_turns(ops, None, ["t1", "t2", "t3"])
    assert result.changes == 2 and not result.conflicts and result.undo_turn
    assert first not in store.all_items() and store.get(kept).description == "用户喜欢猫"
    assert listed.entries() == []  # not a "don't remember": the words were only changed
    ops.undo_turn(result.undo_turn)  # one undo brings both back
    assert store.get(first).description == "用户下周五复查" and store.get(kept).description == "用户喜欢橘猫"
    store.close()


async def test_in_review_mode_the_turns_waiting_changes_are_withdrawn_and_cannot_be_approved(services, llm_server):
    """"别记住这个" on a turn whose changes only wait in the review inbox: they go too (nothing else was
    written, so there is nothing else to undo); one still on the review window's list is refused."""
    from sonetto_desktop.memory.review import ProposalWithdrawn

    services.review.enabled = True
    llm_server.add_text("嗯嗯。")
    llm_server.add_tool_calls([("create_memory", {"content": "用户最近在看心理医生", "section": "身份"})])
    llm_server.add_text("已提交。")
    done = [e async for e in services.chat.send("s1", "我最近在看心理医生")][-1]
    await writer_settled(services)
    (shown,) = services.review.pending()
    result = await services.forget_turn(done.turn_id, "我最近在看心理医生")
    assert result.undo is None and [p.id for p in result.withdrawn] == [shown.id]
    assert services.review.pending() == []
    with pytest.raises(ProposalWithdrawn):
        services.review.approve(shown.id, services.memory)
    assert services.memory.count() == 0


async def test_a_turn_journaled_while_the_writer_was_not_told_of_it_is_still_found_and_dropped(llm_server, make_engine, ltm):
    # a reply stopped while its turn was journaled; whatever the writer's counters say, withdrawing
    # the turn (edit-and-resend, "别记住这个") finds it in the journal, so it is not replayed at the next start
    engine, journal, events = await a_reply_stopped_while_journaled(llm_server, make_engine, ltm)
    await asyncio.sleep(1.0)
    del journal.append
    assert events[-1].error_code == "cancelled"
    result = await withdraw_turns(MemoryOperations(ltm.writer.ops.store), ltm.writer, [events[-1].turn_id], wait=1)
    assert not result.writing
    assert journal.pending() == []


async def test_forget_turn_finds_a_journaled_turn_the_writer_never_queued(ltm):
    writer = ltm.writer
    await writer.stop(timeout=1)  # not taking turns: the next one is only journaled
    await writer.send_history([{"role": "user", "content": "别记这个"}, {"role": "assistant", "content": "好"}],
                              turn_id="t-journaled")
    assert [e.turn_id for e in writer.journal.pending()] == ["t-journaled"] and writer.pending == 0
    assert await writer.forget_turn("t-journaled") == "dropped"
    assert writer.journal.pending() == []
