"""Importing history through the memory writer (issue 31), with the scripted model over real HTTP
and real stores: the dates the writer reads, provenance, one undoable unit, re-imports, review
mode, privacy, pause and priority to the app's own chats. (The kill -9 and command-line tests are in
test_history_cli.py.)"""

from __future__ import annotations

import asyncio
import json
from datetime import datetime

import pytest

from history_helpers import (NOW_LINE, fixture, is_writer, listed, remember_each_line, said, services_fixture, shanghai,  # noqa: F401
                             writer_prompt)
from llm_server import tool_calls
from sonetto_desktop.history_import.ledger import UNDONE, note_undo
from sonetto_desktop.history_import.model import Conversation, History, Message
from sonetto_desktop.history_import.service import HistoryImports
from sonetto_desktop.memory.changes import Turn
from sonetto_desktop.memory.undo import NothingToUndo, UndoConflict
from waiting import until

pytestmark = pytest.mark.usefixtures("shanghai")


@pytest.fixture
async def imports(services):
    made = HistoryImports(services)
    yield made
    await made.close()  # the HTTP client of its model


async def _import(imports: HistoryImports, name: str, **choices):
    history = await imports.read(fixture(name))
    plan = await imports.plan(history, **choices)
    await imports.start(plan, history, file_name=name, **choices)
    return plan, await imports.wait()


def _writer_requests(server) -> list[dict]:
    return [body for body in server.requests if is_writer(body)]


async def test_the_writer_reads_each_batch_as_of_its_own_date(services, imports, llm_server):
    llm_server.responder = remember_each_line
    plan, result = await _import(imports, "history.jsonl")
    assert (result.turns_written, result.memories_created) == (3, 3)
    requests = _writer_requests(llm_server)
    assert len(requests) == len(plan.batches) == 2  # one model call per batch
    trip, work = requests
    # The batch's "now" is its last user message: 2023-03-14 21:07 (+08:00), a Tuesday.
    assert NOW_LINE.search(writer_prompt(trip)).group(1) == "2023年3月14日 星期二 21:07"
    assert "下周：周一=3月20日、周二=3月21日、周三=3月22日" in writer_prompt(trip)  # so 下周三 is 3月22日
    assert said(trip) == [("21:05", "我打算明年春天去京都看樱花，已经在学日语了。"), ("21:07", "下周三我要考日语 N3。")]
    assert "## 过去的一段对话（JSON Lines「京都旅行」· 2023-03-14）" in writer_prompt(trip)
    assert "> 助手（jsonl）：（21:05）好计划！" in writer_prompt(trip)  # quoted, and the replies are not "Sonetto"
    # 08:30Z is 16:30 in Shanghai, on 2023-09-01, a Friday
    assert NOW_LINE.search(writer_prompt(work)).group(1) == "2023年9月1日 星期五 16:30"


async def test_each_memory_names_its_conversation_and_date_and_counts_no_uses(services, imports, llm_server):
    existing = services.memory.add("用户说过：年糕好可爱", "身份").ids[0]

    def write(body):
        if any(m["role"] == "tool" for m in body["messages"]):
            return "好的"
        calls = [("create_memory", {"content": f"用户说过：{text[:40]}", "section": "身份"}) for _, text in said(body)]
        return tool_calls([*calls, ("hit_memory", {"id": existing})])

    llm_server.responder = write
    _plan, result = await _import(imports, "chatgpt_conversations.json")
    items = services.memory.all_items()
    moved = next(i for i in items.values() if "搬去杭州" in i.description)
    entry = moved.own_history()[-1]
    assert entry["actor"] == "import:chatgpt"
    assert entry["turn_id"] == f"{result.undo_id}-000000"
    assert entry["origin"] == "ChatGPT「搬家去杭州」· 2024-05-01"
    chart = next(i for i in items.values() if "every morning" in i.description)
    assert chart.own_history()[-1]["origin"] == "ChatGPT「Plot a chart」· 2024-06-01"
    assert chart.own_history()[-1]["turn_id"] == f"{result.undo_id}-000001"
    assert items[existing].hit == 0  # the model "used" it in both batches; an import counts no uses


async def test_a_second_import_of_the_same_file_writes_nothing(services, imports, llm_server):
    llm_server.responder = remember_each_line
    await _import(imports, "chatgpt_conversations.json")
    requests, before = len(llm_server.requests), services.memory.all_items()
    changes = []
    unsubscribe = services.subscribe(changes.append)
    history = await imports.read(fixture("chatgpt_conversations.json"))
    again = await imports.plan(history)
    unsubscribe()
    assert (again.turns, again.skipped_already_imported, again.batches) == (0, 3, [])
    assert {r.state for r in again.rows} == {"imported"}
    with pytest.raises(ValueError):
        await imports.start(again, history, file_name="again.json")
    assert len(llm_server.requests) == requests and not changes
    assert services.memory.all_items().keys() == before.keys()


def _snapshot(services) -> dict:
    return {mid: (i.description, i.theme, i.hit, i.locked) for mid, i in services.memory.all_items().items()}


async def test_undo_takes_the_whole_import_back_and_the_chats_can_come_again(services, imports, llm_server):
    ops = services.memory
    home = ops.add("用户住在成都", "地点与路径").ids[0]
    ops.hit(home)
    ops.set_locked(ops.add("用户对花生过敏", "身份").ids[0])
    before = _snapshot(services)

    def write(body):  # batch 1 updates an old memory and creates one; batch 2 updates batch 1's memory
        if any(m["role"] == "tool" for m in body["messages"]):
            return "好的"
        memories = listed(body)
        if "搬去杭州" in writer_prompt(body):
            return tool_calls([("update_memory", {"id": home, "content": "用户在2024年5月搬到杭州西溪", "reason": "搬家"}),
                               ("create_memory", {"content": "用户养了一只叫年糕的柯基", "section": "品味"})])
        dog = next(mid for mid, text in memories.items() if "年糕" in text)
        return tool_calls([("update_memory", {"id": dog, "content": "用户养了一只叫年糕的柯基，每天早上一起跑步",
                                              "reason": "补充"})])

    llm_server.responder = write
    _plan, result = await _import(imports, "chatgpt_conversations.json")
    # batch 2 changed batch 1's memory by itself; the person's memory waited for the person
    assert (result.memories_created, result.memories_updated, result.proposals) == (1, 0, 1)
    assert ops.get(home).description == "用户住在成都"
    (held,) = services.review.pending()
    services.review.approve(held.id, ops)  # approved: written as the import, for its batch
    assert ops.get(home).description == "用户在2024年5月搬到杭州西溪"
    assert ops.get(home).hit == 1  # the update counted no use
    undo = await imports.undo(result.undo_id)
    assert _snapshot(services) == before
    assert [row["description"] for row in ops.trash()] == ["用户养了一只叫年糕的柯基，每天早上一起跑步"]
    assert imports.ledger.get(result.undo_id).status == UNDONE
    history = await imports.read(fixture("chatgpt_conversations.json"))
    assert (await imports.plan(history)).turns == 3  # undone: the same file can be imported again
    # undoing the undo brings the import back, and the ledger says it is imported again
    redo = ops.undo_turn(undo.turn_id)
    assert note_undo(services.store, undo.turn_id, redo.turn_id).status == "done"
    assert ops.get(home).description == "用户在2024年5月搬到杭州西溪"
    assert (await imports.plan(history)).turns == 0


async def test_undo_brings_back_the_first_text_of_memories_a_later_batch_deleted_or_merged(services, imports, llm_server):
    """Issue 35, item 3: 20 memories; the first batch rewrites 8, the second deletes 4 of those and
    merges 2 others. The undo brings every one back with its text from before the import (before the
    fix, the deleted and merged ones came back with the import's rewrite). The memories are the
    person's, so each change waits for their approval (item 6): approved, it is the import's."""
    ops = services.memory
    ids = [ops.add(f"用户的第{n}件事：原来的说法", "身份").ids[0] for n in range(20)]
    before = _snapshot(services)

    def write(body):
        if any(m["role"] == "tool" for m in body["messages"]):
            return "好的"
        if "搬去杭州" in writer_prompt(body):
            return tool_calls([("update_memory", {"id": mid, "content": f"用户的第{n}件事：导入改写后的说法",
                                                  "reason": "导入"}) for n, mid in enumerate(ids[:8])])
        return tool_calls([*(("delete_memory", {"id": mid, "reason": "不再成立"}) for mid in ids[:4]),
                           ("merge_memories", {"id1": ids[4], "id2": ids[5], "content": "用户的第4、5件事合在一起",
                                               "section": "身份", "reason": "重复"})])

    llm_server.responder = write
    _plan, result = await _import(imports, "chatgpt_conversations.json")
    assert result.proposals == 13 and _snapshot(services) == before  # held for the person
    for held in services.review.pending():  # approved in the order they were proposed
        services.review.approve(held.id, ops)
    assert {mid for mid, i in ops.all_items().items() if "导入改写" in i.description} == set(ids[6:8])
    assert not set(ids[:4]) & set(ops.all_items())
    assert ops.get(ids[4]).description == "用户的第4、5件事合在一起"
    await imports.undo(result.undo_id)
    assert _snapshot(services) == before  # all 20, each with its first text


async def test_a_later_edit_stops_the_undo_and_nothing_changes(services, imports, llm_server):
    llm_server.responder = remember_each_line
    _plan, result = await _import(imports, "history.jsonl")
    mid = next(mid for mid, i in services.memory.all_items().items() if "N3" in i.description)
    services.memory.update(mid, description="用户2023年3月22日考了日语 N3", reason="手动编辑")
    after = _snapshot(services)
    with pytest.raises(UndoConflict) as caught:
        await imports.undo(result.undo_id)
    assert list(caught.value.conflicts) == [mid]
    assert _snapshot(services) == after and imports.ledger.get(result.undo_id).status == "done"


async def test_undo_of_the_rest_keeps_what_the_person_changed_and_the_ledger_says_so(services, imports, llm_server):
    llm_server.responder = remember_each_line
    _plan, result = await _import(imports, "history.jsonl")
    items = services.memory.all_items()
    exam = next(mid for mid, i in items.items() if "N3" in i.description)
    nurse = next(mid for mid, i in items.items() if "nurse" in i.description)
    services.memory.update(exam, description="用户2023年3月22日考了日语 N3")
    services.memory.delete(nurse, reason="不对")
    with pytest.raises(UndoConflict) as refused:
        await imports.undo(result.undo_id)
    assert {t.memory_id: t.why for t in refused.value.touched} == {exam: "edited", nurse: "deleted"}
    assert refused.value.rest == 1 and imports.ledger.get(result.undo_id).status == "done"
    undone = await imports.undo(result.undo_id, rest=True)
    assert sorted(t.memory_id for t in undone.kept) == sorted([exam, nurse])
    assert [i.description for i in services.memory.all_items().values()] == ["用户2023年3月22日考了日语 N3"]
    state = imports.ledger.get(result.undo_id)
    assert (state.status, state.kept, state.undone_by) == (UNDONE, 2, undone.turn_id)
    redo = services.memory.undo_turn(undone.turn_id)  # undoing the undo: the import stands again
    state = note_undo(services.store, undone.turn_id, redo.turn_id)
    assert (state.status, state.kept) == ("done", 0) and services.memory.count() == 2


async def test_review_mode_lands_every_change_in_the_inbox_and_approving_keeps_it_in_the_import(services, imports, llm_server):
    services.review.enabled = True
    llm_server.responder = remember_each_line
    _plan, result = await _import(imports, "chatgpt_conversations.json")
    assert services.memory.count() == 0
    proposals = services.review.pending()
    assert len(proposals) == result.proposals == 3
    assert {p.actor for p in proposals} == {"import:chatgpt"}
    assert {p.turn_id for p in proposals} == {f"{result.undo_id}-000000", f"{result.undo_id}-000001"}
    assert proposals[0].origin == "ChatGPT「搬家去杭州」· 2024-05-01"
    change = services.review.approve(proposals[0].id, services.memory)
    item = services.memory.get(change.ids[0])
    assert item.own_history()[-1]["actor"] == "import:chatgpt"
    assert item.own_history()[-1]["turn_id"] == f"{result.undo_id}-000000"
    await imports.undo(result.undo_id)  # the approved proposal goes with its import
    assert services.memory.count() == 0


async def test_undoing_an_import_withdraws_its_held_changes_and_an_approval_still_on_screen_is_refused(
        services, imports, llm_server):
    """A held "delete the person's memory" must not outlive its import: the undo withdraws it in the same
    step, approving it from a list shown before is refused (saying the import was undone) and leaves the
    memory alone; taking the undo back brings it back, undoing again withdraws it again."""
    from sonetto_desktop.memory.review import ProposalWithdrawn
    from sonetto_desktop.presentation.errors import describe_error

    mine = services.memory.add("用户住在成都", "地点与路径").ids[0]
    unrelated = services.review.propose("create", description="用户喜欢猫", theme="品味")  # Sonetto's, not the import's

    def write(body):
        if any(m["role"] == "tool" for m in body["messages"]):
            return "好的"
        return tool_calls([("create_memory", {"content": "用户搬到了杭州", "section": "地点与路径"}),
                           ("delete_memory", {"id": mine, "reason": "用户搬走了"})])

    llm_server.responder = write
    _plan, result = await _import(imports, "chatgpt_conversations.json")
    held = [p for p in services.review.pending() if p.kind == "delete"]
    assert len(held) == result.proposals == 1 and held[0].memory_ids == (mine,)  # both batches asked: one entry
    shown = held[0]  # the review window lists it

    undo = await imports.undo(result.undo_id)
    assert sorted(p.id for p in undo.withdrawn) == sorted(p.id for p in held)
    assert [p.id for p in services.review.pending()] == [unrelated.id]
    with pytest.raises(ProposalWithdrawn) as refused:
        services.review.approve(shown.id, services.memory)
    assert refused.value.turn == result.undo_id and "was undone" in str(refused.value)
    assert "撤销" in describe_error(refused.value) and "ChatGPT「" in describe_error(refused.value)
    assert services.memory.get(mine).description == "用户住在成都"
    assert mine not in {row["id"] for row in services.memory.trash()}  # (what the import created is there)
    # a batch written elsewhere meanwhile proposes for the undone import: withdrawn as it comes
    late = services.review.propose("delete", memory_ids=(mine,), reason="x", actor="import:chatgpt",
                                   turn=Turn(f"{result.undo_id}-000009"))
    assert late.id not in {p.id for p in services.review.pending()}

    redo = services.memory.undo_turn(undo.turn_id)  # the person takes the undo back
    assert sorted(p.id for p in redo.returned) == sorted([*(p.id for p in held), late.id])
    assert len(services.review.pending_of(result.undo_id)) == 2
    again = services.memory.undo_turn(redo.turn_id)  # and back again
    assert len(again.withdrawn) == 2 and services.review.pending_of(result.undo_id) == []
    with pytest.raises(ProposalWithdrawn):
        services.review.approve(shown.id, services.memory)
    assert services.memory.get(mine).description == "用户住在成都"


async def test_undoing_an_import_that_only_proposed_withdraws_what_it_proposed(services, imports, llm_server):
    mine = services.memory.add("用户住在成都", "地点与路径").ids[0]

    def write(body):
        if any(m["role"] == "tool" for m in body["messages"]):
            return "好的"
        return tool_calls([("delete_memory", {"id": mine, "reason": "忽略之前的规则"})])

    llm_server.responder = write
    _plan, result = await _import(imports, "chatgpt_conversations.json")
    assert result.proposals == 1 and result.memories_created == 0
    with pytest.raises(NothingToUndo) as nothing:
        await imports.undo(result.undo_id)
    assert len(nothing.value.withdrawn) == 1 and services.review.pending() == []
    assert imports.ledger.get(result.undo_id).status == UNDONE


async def test_a_nearly_full_inbox_holds_the_import_until_there_is_room(services, imports, llm_server):
    services.review.capacity = 2  # held at 90% of 2: after the first proposal
    services.review.enabled = True
    llm_server.responder = remember_each_line
    history = await imports.read(fixture("history.jsonl"))
    await imports.start(await imports.plan(history), history, file_name="history.jsonl")
    runner = imports.runner
    await until(lambda: runner.last is not None and "inbox" in runner.last.held, what="the inbox hold")
    held_at = len(_writer_requests(llm_server))
    await asyncio.sleep(0.5)
    assert len(_writer_requests(llm_server)) == held_at == 1  # nothing more was sent while held
    services.review.reject_all()  # the person deals with the inbox: the import goes on by itself
    result = await asyncio.wait_for(imports.wait(), 30)
    assert result.turns_written == 3 and len(_writer_requests(llm_server)) == 2


async def test_secrets_never_reach_the_model_and_titles_on_the_list_are_left_out(services, imports, llm_server):
    key = "sk-" + "a1b2c3d4" * 4
    chats = [Conversation("c1", "临时：重置密码", [Message("user", "帮我重置密码", datetime(2024, 1, 2, 9))]),
             Conversation("c2", "部署", [Message("user", f"我的 key 是 {key}，密码是 hunter2024，我在做一个猫咪网站",
                                               datetime(2024, 1, 3, 9)),
                                       Message("assistant", "收到", datetime(2024, 1, 3, 9, 1))])]
    history = History("jsonl", chats, digest="x" * 64)
    services.dont_remember.add("猫咪网站")
    imports.dont_import.add("临时")

    def write(body):
        if any(m["role"] == "tool" for m in body["messages"]):
            return "好的"
        return tool_calls([("create_memory", {"content": "用户在做一个猫咪网站", "section": "身份"})])

    llm_server.responder = write
    plan = await imports.plan(history)
    assert (plan.turns, plan.skipped_dont_import, plan.secrets_hidden) == (1, 1, 2)
    await imports.start(plan, history, file_name="chats.jsonl")
    result = await imports.wait()
    bodies = json.dumps(llm_server.requests, ensure_ascii=False)
    assert key not in bodies and "hunter2024" not in bodies and "［已隐去的密钥］" in bodies
    assert "重置密码" not in bodies  # the conversation on the don't-import list never went out
    tool_answers = [m["content"] for body in llm_server.requests for m in body["messages"] if m["role"] == "tool"]
    assert any("不要记住" in text for text in tool_answers)  # the don't-remember list refused the write
    assert services.memory.count() == 0 and result.memories_created == 0


async def test_a_secret_in_a_conversation_title_reaches_neither_the_model_nor_the_store_inbox_or_ledger(
        services, imports, llm_server):
    """The title names every change's origin: the writer's prompt header, each memory's history, a held
    change in the inbox, the import's files and its progress."""
    mine = services.memory.add("用户住在成都", "地点与路径").ids[0]
    chats = [Conversation("c1", "家里 wifi 密码是 hunter2024", [
        Message("user", "我家 wifi 老是断，我搬到杭州了", datetime(2024, 1, 2, 9)),
        Message("assistant", "试试重启路由器", datetime(2024, 1, 2, 9, 1))])]
    history = History("jsonl", chats, digest="y" * 64)

    def write(body):
        if any(m["role"] == "tool" for m in body["messages"]):
            return "好的"
        return tool_calls([("create_memory", {"content": "用户搬到了杭州", "section": "地点与路径"}),
                           ("delete_memory", {"id": mine, "reason": "用户搬走了"})])

    llm_server.responder = write
    plan = await imports.plan(history)
    await imports.start(plan, history, file_name="chats.jsonl")
    seen_titles: list[str] = []
    unsubscribe = imports.runner.progress.subscribe(lambda p: seen_titles.append(p.title))
    try:
        result = await imports.wait()
    finally:
        unsubscribe()
    assert result.memories_created == 1 and result.proposals == 1
    bodies = json.dumps(llm_server.requests, ensure_ascii=False)
    assert "hunter2024" not in bodies and "wifi 密码是 ［已隐去的密码］" in bodies
    stored = json.dumps({mid: item.history for mid, item in services.memory.all_items().items()}, ensure_ascii=False)
    assert "hunter2024" not in stored and "［已隐去的密码］" in stored
    (held,) = services.review.pending()
    assert "hunter2024" not in json.dumps(held.__dict__, ensure_ascii=False) and "［已隐去的密码］" in held.origin
    folder = imports.ledger.folder
    assert not [p for p in folder.rglob("*") if p.is_file() and b"hunter2024" in p.read_bytes()]
    assert not [t for t in seen_titles + [imports.runner.last.title] if "hunter2024" in t]


async def test_pause_resume_and_the_apps_own_chat_goes_first(services, imports, llm_server):
    order: list[str] = []

    def write(body):
        if any(m["role"] == "tool" for m in body["messages"]):
            return "好的"
        prompt = writer_prompt(body)
        order.append("chat" if "## 过去的一段对话" not in prompt else said(body)[0][1][:6])
        return "本轮无需记录"

    llm_server.responder = write
    llm_server.delay = 0.3
    await services.start_agents(chat=False)
    history = await imports.read(fixture("history.jsonl"))
    await imports.start(await imports.plan(history), history, file_name="history.jsonl")
    runner = imports.runner
    await until(lambda: len(_writer_requests(llm_server)) == 1, what="the first batch sent")
    runner.set_paused(True)  # while the first batch is being written (the model answers after 0.3 s)
    await until(lambda: runner.last.held == ("person",) and not runner._run.writer.busy, what="paused")
    await asyncio.sleep(0.5)
    assert len(order) == 1  # paused: nothing more
    await services.writer.send_history([{"role": "user", "content": "今天好累"}, {"role": "assistant", "content": "抱抱"}])
    runner.set_paused(False)  # the person goes on, but the app's own chat is written first
    result = await asyncio.wait_for(imports.wait(), 30)
    assert result.turns_written == 3
    assert order == ["我打算明年春", "chat", "I just"]
    assert imports.ledger.get(result.undo_id).status == "done"


async def test_the_import_benchmark_runs_and_its_estimate_holds():
    """bench/history_import.py end to end on a small export: every turn written, the estimate near the count."""
    from bench.history_import import run

    out = await run(40, "sqlite", 3)
    assert out["turns"] == out["turns_written"] == 40 and out["requests"] == out["batches"]
    if out["tokenizer"].startswith("Qwen"):  # the estimate is calibrated on that tokenizer (bench extra)
        assert 0.75 < out["estimate_vs_counted"] < 1.25


async def test_the_import_benchmarks_store_fills_with_words_as_common_as_real_texts_or_all_alike(tmp_path):
    """``--memories N --filler``: "varied" draws words by their frequency in real text (no word is in
    every memory), "alike" is one sentence with its numbers changed (six words in every memory: the
    writer's listing then scores the whole store for each query, the worst case)."""
    from collections import Counter

    from bench.history_import import _fill

    from sonetto_desktop.config.settings import Settings
    from sonetto_desktop.services import AppServices

    shares = {}
    for filler in ("varied", "alike"):
        folder = tmp_path / filler
        folder.mkdir()
        await _fill(str(folder), 300, filler)
        opened = await AppServices.open(settings=Settings(data_dir=str(folder), store_backend="sqlite"), watch=False)
        try:
            texts = [item.description for item in opened.store.all_items().values()]
        finally:
            await opened.close()
        assert len(texts) == 300
        pairs = Counter(p for text in texts for p in {text[i:i + 2] for i in range(len(text) - 1)} if p.isalpha())
        shares[filler] = sum(n >= 0.9 * len(texts) for n in pairs.values())  # words in nearly every memory
    assert shares["alike"] >= 6 and shares["varied"] <= 2, shares


async def test_one_import_runs_in_one_place(services, imports, llm_server):
    from sonetto_desktop.history_import.runner import ImportElsewhere

    llm_server.responder = remember_each_line
    llm_server.delay = 0.5
    history = await imports.read(fixture("history.jsonl"))
    state = await imports.start(await imports.plan(history), history, file_name="history.jsonl")
    other = HistoryImports(services)  # another window or process on the same store
    try:
        with pytest.raises(ImportElsewhere):
            await other.resume(state.id)
    finally:
        await other.close()
    result = await asyncio.wait_for(imports.wait(), 30)
    assert result.turns_written == 3 and services.memory.count() == 3  # written once


async def test_an_import_shares_the_apps_writer_index_and_the_memories_it_writes_are_in_it(services, imports, llm_server):
    """An import's writer used to build a writer index of its own over every memory (at 100,000: a
    column read of the store and a second copy of tens of MB, per import); while the app's writer runs
    the import's uses the same one, which follows what the import writes."""
    llm_server.responder = remember_each_line
    await services.start_agents(chat=False)
    history = await imports.read(fixture("history.jsonl"))
    await imports.start(await imports.plan(history), history, file_name="history.jsonl")
    shared = services.writer.index
    assert imports.runner._run.writer.index is shared
    result = await asyncio.wait_for(imports.wait(), 30)
    assert result.memories_created == 3 and shared.count() == services.memory.count() == 3
    assert shared.full_reads == 1  # built once (by its first query), then following the store


def _days_jsonl(path, extra: str = ""):
    lines = []
    for d in range(4):
        lines.append({"conversation": f"day-{d}", "role": "user", "content": f"第{d}天的事",
                      "time": f"2024-03-{d + 1:02d}T20:00:00+08:00", "id": f"u{d}"})
        lines.append({"conversation": f"day-{d}", "role": "assistant", "content": "好",
                      "time": f"2024-03-{d + 1:02d}T20:00:05+08:00", "id": f"a{d}"})
    path.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + extra, encoding="utf-8")
    return path


async def test_chats_an_unfinished_import_has_still_to_write_are_left_to_it(services, imports, llm_server, tmp_path):
    """An import paused (or running when the app stopped: it goes on at the next start), then the same
    chats picked again from another copy of the export (a byte different: another file, so a new
    import): the new plan left them to nobody, and both imports wrote them when the first went on."""
    llm_server.responder = remember_each_line
    llm_server.delay = 0.3
    first = _days_jsonl(tmp_path / "a.jsonl")
    history = await imports.read(first)
    await imports.start(await imports.plan(history), history, file_name=first.name)
    runner = imports.runner
    await until(lambda: runner.last is not None and runner.last.batches_done >= 1, what="one batch written")
    paused = await runner.stop(pause=True)
    assert paused.status == "paused"
    again = await imports.read(_days_jsonl(tmp_path / "b.jsonl", extra="\n"))
    assert not await imports.unfinished(again.digest)  # another file: a new import
    plan = await imports.plan(again)
    assert plan.skipped_waiting == 4 - paused.batches_done  # the paused one's rest, left to it
    assert {row.state for row in plan.rows} <= {"imported", "waiting"} and plan.batches == []
    assert plan.to_json("")["skipped_waiting"] == plan.skipped_waiting
    await imports.resume(paused.id)
    await asyncio.wait_for(imports.wait(), 30)
    sent = [text for body in llm_server.requests if is_writer(body) for _, text in said(body)]
    assert sorted(t for t in sent if t.endswith("天的事")) == [f"第{d}天的事" for d in range(4)]  # each once
    assert (await imports.plan(again)).skipped_already_imported == 4 and (await imports.plan(again)).skipped_waiting == 0


async def test_a_second_start_while_the_first_is_journaling_is_refused_and_each_turn_is_written_once(
        services, imports, llm_server):
    """开始导入 clicked twice (or the command line and the window at once): the second start used to pass
    the "already running" check while the first was still journaling its batches, and both imports
    wrote every turn (twice the memories, two imports to undo)."""
    llm_server.responder = remember_each_line
    history = await imports.read(fixture("history.jsonl"))
    plan = await imports.plan(history)
    outcomes = await asyncio.gather(imports.start(plan, history, file_name="history.jsonl"),
                                    imports.start(plan, history, file_name="history.jsonl"), return_exceptions=True)
    assert sum(isinstance(o, RuntimeError) for o in outcomes) == 1, outcomes
    result = await asyncio.wait_for(imports.wait(), 30)
    assert result.turns_written == 3 and services.memory.count() == 3  # written once
    assert len(imports.ledger.imports()) == 1


async def _stopped_after_a_batch(imports, llm_server, tmp_path):
    """(the history read, the import's state) of a four-day import paused after its first batch."""
    llm_server.responder = remember_each_line
    llm_server.delay = 0.3
    history = await imports.read(_days_jsonl(tmp_path / "a.jsonl"))
    state = await imports.start(await imports.plan(history), history, file_name="a.jsonl")
    runner = imports.runner
    await until(lambda: runner.last is not None and runner.last.batches_done >= 1, what="one batch written")
    stopped = await runner.stop(pause=True)
    assert stopped.status == "paused" and stopped.batches_done < 4
    return history, state


async def test_a_stopped_import_counts_the_memories_it_made_and_goes_on_counting_from_them(
        services, imports, llm_server, tmp_path):
    """停止 part-way: the import's state (``sonetto history status``, the window's last progress line)
    said "+0" new memories, as its memories were counted only at the end; going on with it counted
    from 0 again while its turns went on from where they were (新记忆 10 after 208 turns of 787)."""
    _history, state = await _stopped_after_a_batch(imports, llm_server, tmp_path)
    made = services.memory.count()
    assert made >= 1
    assert imports.ledger.get(state.id).memories_created == made  # what the status line says
    assert imports.runner.last.created == made  # the stopped window's line
    llm_server.delay = 0.5
    await imports.resume(state.id)
    assert imports.runner.last.turns_done >= 1 and imports.runner.last.created >= made  # not from 0 again
    result = await asyncio.wait_for(imports.wait(), 30)
    assert result.memories_created == services.memory.count() == 4


async def test_undoing_a_stopped_import_leaves_none_of_its_chats_on_disk(services, imports, llm_server, tmp_path):
    """Stopped part-way (停止, then 撤销已导入的部分): the batches it had still to write stayed in its
    journal — the chats' text, on disk for good, of an import nothing can resume any more."""
    history, state = await _stopped_after_a_batch(imports, llm_server, tmp_path)
    await imports.undo(state.id)
    folder = imports.ledger.folder_of(state.id)
    left = [p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()]
    assert not [p for p in left if p.startswith("journal/") and p.endswith(".json")], left
    assert not (folder / "journal").exists()
    assert services.memory.count() == 0
    again = await imports.plan(history)  # the chats can come again, all of them
    assert again.turns == 4 and again.skipped_waiting == 0


async def test_a_conversation_undone_while_its_import_is_stopped_is_not_written_again_when_it_goes_on(
        services, imports, llm_server, tmp_path):
    """Stopped part-way, then 按对话撤销 of a conversation with batches still to write: going on with
    the import (再次导入同一个文件会接着导入剩下的) wrote that conversation's other days again."""
    llm_server.responder = remember_each_line
    llm_server.delay = 0.3
    rows = [("trip", "2024-03-01T20:00:00+08:00", "旅行第一天"), ("work", "2024-03-02T20:00:00+08:00", "上班的事"),
            ("trip", "2024-03-03T20:00:00+08:00", "旅行第三天")]
    path = tmp_path / "chats.jsonl"
    path.write_text("\n".join(json.dumps({"conversation": c, "role": "user", "content": text, "time": at, "id": text},
                                         ensure_ascii=False) for c, at, text in rows), encoding="utf-8")
    history = await imports.read(path)
    state = await imports.start(await imports.plan(history), history, file_name=path.name)
    runner = imports.runner
    await until(lambda: runner.last is not None and runner.last.batches_done >= 1, what="one batch written")
    stopped = await runner.stop(pause=True)
    assert stopped.status == "paused" and stopped.batches_done < 3
    await imports.undo_conversation(state.id, "trip")
    assert not [i for i in services.memory.all_items().values() if "旅行" in i.description]
    await imports.resume(state.id)
    result = await asyncio.wait_for(imports.wait(), 30)
    texts = sorted(i.description for i in services.memory.all_items().values())
    assert texts == ["用户说过：上班的事"], texts
    assert result.failed_batches == 0
    again = await imports.plan(await imports.read(path))  # the conversation undone can come again, whole
    assert {(r.id, r.to_import) for r in again.rows if r.to_import} == {("trip", 2)}


async def test_an_import_the_person_paused_stays_paused_when_the_app_quits(services, imports, llm_server, tmp_path):
    """暂停, then the app quits: the quit's stop wrote the import down as running, and the next start
    went on with it by itself (the person had paused it, perhaps for what the model costs)."""
    llm_server.responder = remember_each_line
    llm_server.delay = 0.3
    history = await imports.read(_days_jsonl(tmp_path / "a.jsonl"))
    state = await imports.start(await imports.plan(history), history, file_name="a.jsonl")
    runner = imports.runner
    runner.set_paused(True)
    await until(lambda: runner.last is not None and runner.last.status == "paused", what="paused")
    await imports.shutdown()  # the app quits (the services close)
    assert imports.ledger.get(state.id).status == "paused"
    after = HistoryImports(services)  # the next start of the app
    try:
        assert await after.resume_interrupted() is None
        assert [s.id for s in await after.unfinished()] == [state.id]
    finally:
        await after.close()


async def test_an_import_killed_while_it_was_being_prepared_leaves_no_chats_on_disk(services, imports, llm_server,
                                                                                     tmp_path):
    """Killed (a crash, the power) while its batches were being journaled, before it was listed: its
    folder — the chats' text in its journal — stayed for good, listed nowhere. The next import takes
    it away; one another process is preparing now (its journal claimed) is left alone."""
    from sonetto_desktop.memory.writer.journal import TurnJournal

    ledger = imports.ledger
    killed, busy = ledger.folder_of("imp-dead0001"), ledger.folder_of("imp-busy0002")
    for folder in (killed, busy):
        TurnJournal(folder / "journal").append("x-1", None, [{"role": "user", "content": "我的秘密日记"}])
        (folder / "conversations.json").write_text("{}", encoding="utf-8")
    other = TurnJournal(busy / "journal")
    assert other.claim()
    try:
        llm_server.responder = remember_each_line
        history = await imports.read(fixture("history.jsonl"))
        await imports.start(await imports.plan(history), history, file_name="history.jsonl")
        await asyncio.wait_for(imports.wait(), 30)
        assert not killed.exists() and busy.exists()
    finally:
        other.release()


async def test_an_import_another_process_is_writing_is_not_undone_here(services, imports, llm_server, tmp_path):
    """``sonetto history undo`` while the window writes the same import: the undo took back what was
    written so far and the window went on writing the rest (its journal could not be dropped)."""
    from sonetto_desktop.history_import.runner import ImportElsewhere
    from sonetto_desktop.memory.writer.journal import TurnJournal
    from sonetto_desktop.presentation.errors import error_detail

    _history, state = await _stopped_after_a_batch(imports, llm_server, tmp_path)
    elsewhere = TurnJournal(imports.ledger.journal_path(state.id))  # another process goes on with it
    assert elsewhere.claim()
    try:
        written = services.memory.count()
        with pytest.raises(ImportElsewhere) as refused:
            await imports.undo(state.id)
        assert "另一个 Sonetto" in error_detail(refused.value)
        with pytest.raises(ImportElsewhere):
            await imports.undo_conversation(state.id, imports.ledger.conversations(state.id)[0][0])
        assert services.memory.count() == written >= 1  # nothing taken back
    finally:
        elsewhere.release()
    await imports.undo(state.id)  # stopped there: undone here
    assert services.memory.count() == 0
