"""A re-import recognises what was imported whatever this computer's time zone: a file's times that
name an instant (an offset, ``Z``, seconds since 1970) are read as local wall time, which moves
with the zone (travel, a new machine elsewhere), and a message without an id of its own was
recognised by that local time: after a zone change the same file was imported again (duplicate
memories). Ledgers written before keep working (their keys were of the local time), and so do their
undo per import and per conversation and the imports they left unfinished.

Real files, the real readers, planning, import writer (the scripted model over HTTP), ledger and
stores."""

from __future__ import annotations

import hashlib
import json
import time
import zipfile
from datetime import datetime
from pathlib import Path

import pytest

from history_helpers import fixture, remember_each_line, services_fixture, shanghai  # noqa: F401
from sonetto_desktop.agent.chat_export import transcript_markdown
from sonetto_desktop.history_import.ledger import PAUSED, ImportLedger, ImportState, note_undo
from sonetto_desktop.history_import.plan import make_plan
from sonetto_desktop.history_import.service import HistoryImports
from sonetto_desktop.history_import.sources import read_history

pytestmark = pytest.mark.usefixtures("shanghai")

ELSEWHERE = "America/New_York"  # 12 or 13 hours behind Shanghai: every local time and most days differ


def _move_to(monkeypatch, zone: str) -> None:
    """This computer's time zone is now ``zone`` (the ``shanghai`` fixture puts the old one back)."""
    monkeypatch.setenv("TZ", zone)
    time.tzset()


@pytest.fixture
async def imports(services):
    made = HistoryImports(services)
    yield made
    await made.close()


async def _import(imports: HistoryImports, path: Path):
    history = await imports.read(path)
    plan = await imports.plan(history)
    await imports.start(plan, history, file_name=path.name)
    return history, plan, await imports.wait()


def _jsonl(path: Path) -> Path:
    """Two chats whose times carry ``Z`` and no message ids, and one in local time (no offset)."""
    lines = [
        {"conversation": "exam", "title": "考试", "role": "user", "content": "下周三我要考日语 N3。",
         "time": "2024-03-13T13:07:00Z"},
        {"conversation": "exam", "role": "assistant", "content": "加油！", "time": "2024-03-13T13:07:20Z"},
        {"conversation": "exam", "role": "user", "content": "考完了，感觉不错。", "time": "2024-03-20T10:00:00Z"},
        {"conversation": "move", "role": "user", "content": "我下个月搬去杭州。", "time": "2024-04-01T02:30:00+08:00"},
        {"conversation": "move", "role": "assistant", "content": "恭喜！", "time": "2024-04-01T02:30:09+08:00"},
        {"conversation": "run", "role": "user", "content": "我每天早上跑五公里。", "time": "2024-05-01T07:30:00"},
    ]
    path.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n", encoding="utf-8")
    return path


def _sonetto_md(path: Path, session_id: str = "") -> Path:
    """A chat exported from Sonetto (its times carry the exporting computer's offset); without a
    session id (older chats) the conversation is named by its title and first time."""
    entries = [
        {"role": "user", "content": "我对花生过敏。", "created_at": "2026-05-02T09:00:00+08:00"},
        {"role": "assistant", "content": "记下了。", "created_at": "2026-05-02T09:00:07+08:00"},
        {"role": "user", "content": "周末想去爬山。", "created_at": "2026-05-02T21:30:00+08:00"},
        {"role": "assistant", "content": "好呀。", "created_at": "2026-05-02T21:30:05+08:00"},
    ]
    path.write_text(transcript_markdown("周末计划", entries, session_id=session_id), encoding="utf-8")
    return path


@pytest.mark.parametrize("make", [_jsonl, _sonetto_md, lambda p: _sonetto_md(p, "s-42")],
                         ids=["jsonl", "sonetto-md", "sonetto-md-session"])
async def test_after_a_time_zone_change_the_same_file_has_nothing_new(services, imports, llm_server, tmp_path,
                                                                     monkeypatch, make):
    llm_server.responder = remember_each_line
    path = make(tmp_path / ("chats.jsonl" if make is _jsonl else "chat.md"))
    history, plan, result = await _import(imports, path)
    assert plan.turns == result.turns_written > 0
    before = next(iter(history.conversations)).messages[0].time
    memories = services.memory.all_items().keys()
    _move_to(monkeypatch, ELSEWHERE)
    again = await imports.read(path)
    assert next(iter(again.conversations)).messages[0].time != before  # the local time moved with the zone
    planned = await imports.plan(again)
    assert (planned.turns, planned.batches, planned.skipped_already_imported) == (0, [], plan.turns)
    assert {row.state for row in planned.rows} == {"imported"}
    assert services.memory.all_items().keys() == memories


def _old_key(source: str, conversation: str, local: datetime, text: str) -> str:
    """An exchange's key as versions before this one wrote it to the ledger: of the user message's
    local time (``plan.exchange_key`` then)."""
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return hashlib.sha256("\0".join((source, conversation, local.isoformat(), digest)).encode("utf-8")).hexdigest()[:20]


def _old_ids(history) -> tuple[dict[str, str], dict[str, str]]:
    """(the conversation ids versions before this one gave the file's conversations, by the ids they
    have now; the ledger keys they wrote for each exchange, by its key now)."""
    ids, keys = {}, {}
    plan = make_plan(history)
    for conversation in history.conversations:
        if history.source == "sonetto" and not conversation.id.startswith("sonetto-s-"):  # named by its first time
            first = conversation.messages[0].time.isoformat()
            ids[conversation.id] = "sonetto-" + hashlib.sha256(f"{conversation.title}\0{first}".encode()).hexdigest()[:16]
        else:
            ids[conversation.id] = conversation.id
    for batch in plan.batches:
        for exchange in batch.exchanges:
            user = exchange.messages[0]
            keys[exchange.key] = _old_key(history.source, ids[exchange.conversation_id], user.time, user.text)
    return ids, keys


def _as_written_before(ledger: ImportLedger, import_id: str, ids: dict[str, str], keys: dict[str, str]) -> None:
    """Rewrite an import's ledger lines and conversation index as versions before this one wrote them
    (the same files, with their conversation ids and keys)."""
    path = ledger.folder / "ledger.jsonl"
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    for line in lines:
        line["keys"] = [keys[k] for k in line["keys"]]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    index_path = ledger.folder_of(import_id) / "conversations.json"
    index = json.loads(index_path.read_text(encoding="utf-8"))
    index["batches"] = {seq: ids[cid] for seq, cid in index["batches"].items()}
    index["titles"] = {ids[cid]: title for cid, title in index["titles"].items()}
    for record in index["records"].values():
        record["keys"] = [keys[k] for k in record["keys"]]
    index_path.write_text(json.dumps(index, ensure_ascii=False), encoding="utf-8")


async def _imported_before(imports: HistoryImports, path: Path):
    """``path`` imported, its ledger then rewritten as an earlier version wrote it; the history read
    again, the plan of the import, its result and the conversation ids the earlier version gave."""
    history, plan, result = await _import(imports, path)
    ids, keys = _old_ids(history)
    _as_written_before(imports.ledger, result.undo_id, ids, keys)
    assert imports.ledger.imported_keys() == set(keys.values())
    assert any(old != new for new, old in keys.items())  # the old keys are of local times
    history = await imports.read(path)
    again = await imports.plan(history)
    assert (again.turns, again.skipped_already_imported) == (0, plan.turns)  # nothing imported again
    return history, plan, result, ids


@pytest.mark.parametrize("make", [_jsonl, _sonetto_md], ids=["jsonl", "sonetto-md"])
async def test_an_import_recorded_by_an_earlier_version_stays_imported_and_undoing_it_works(
        services, imports, llm_server, tmp_path, make):
    """The ledger holds the keys (and conversation ids) an earlier version wrote: nothing is imported
    again on upgrading; undoing that import lets its chats come again, taking the undo back makes
    them imported again."""
    llm_server.responder = remember_each_line
    path = make(tmp_path / ("chats.jsonl" if make is _jsonl else "chat.md"))
    history, plan, result, _ = await _imported_before(imports, path)
    whole = await imports.undo(result.undo_id)
    assert (await imports.plan(history)).turns == plan.turns
    redo = services.memory.undo_turn(whole.turn_id)
    assert note_undo(services.store, whole.turn_id, redo.turn_id).status == "done"
    assert (await imports.plan(history)).turns == 0


@pytest.mark.parametrize("make", [_jsonl, _sonetto_md], ids=["jsonl", "sonetto-md"])
async def test_a_conversation_of_an_import_recorded_by_an_earlier_version_is_undone_alone(
        services, imports, llm_server, tmp_path, make):
    llm_server.responder = remember_each_line
    path = make(tmp_path / ("chats.jsonl" if make is _jsonl else "chat.md"))
    history, plan, result, ids = await _imported_before(imports, path)
    first, title, _ = imports.ledger.conversations(result.undo_id)[0]
    assert first == ids[plan.batches[0].conversation_id] and title
    undone = await imports.undo_conversation(result.undo_id, first)  # its chats can come again
    offered = await imports.plan(history)
    assert offered.turns == sum(b.turns for b in plan.batches if ids[b.conversation_id] == first)
    assert {ids[b.conversation_id] for b in offered.batches} == {first}
    await imports.take_back(undone.turn_id)  # its undo taken back: imported again
    assert (await imports.plan(history)).turns == 0


async def test_after_upgrading_and_a_time_zone_change_what_the_new_version_imported_is_known(
        services, imports, llm_server, tmp_path, monkeypatch):
    """An earlier version imported part of a file (its keys of local times); this version imports the
    rest; after a zone change that rest is still known."""
    llm_server.responder = remember_each_line
    path = _jsonl(tmp_path / "chats.jsonl")
    history = await imports.read(path)
    _, partly, first = await _import_only(imports, history, path, selected=["exam"])
    ids, keys = _old_ids(history)
    _as_written_before(imports.ledger, first.undo_id, ids, {k: keys[k] for k in keys if k in set(_keys(partly))})
    assert partly.turns == 2
    rest_plan = await imports.plan(history)
    assert (rest_plan.turns, rest_plan.skipped_already_imported) == (2, 2)  # "move" and "run"
    await imports.start(rest_plan, history, file_name=path.name)
    await imports.wait()
    _move_to(monkeypatch, ELSEWHERE)
    planned = await imports.plan(await imports.read(path))
    # what this version recorded is known in any zone ("move" has an offset, "run" is local time)
    assert {row.id: row.state for row in planned.rows}["move"] == "imported"
    assert {row.id: row.state for row in planned.rows}["run"] == "imported"


def _keys(plan) -> list[str]:
    return [key for batch in plan.batches for key in batch.keys]


async def _import_only(imports: HistoryImports, history, path: Path, *, selected: list[str]):
    plan = await imports.plan(history, selected=selected)
    await imports.start(plan, history, file_name=path.name, selected=selected)
    return history, plan, await imports.wait()


async def test_an_unfinished_import_of_an_earlier_version_keeps_its_chats(services, imports, tmp_path):
    """A paused import begun by an earlier version (its index holds the keys of local times): a new
    plan of the same chats leaves them to it, as before."""
    path = _jsonl(tmp_path / "chats.jsonl")
    history = await imports.read(path)
    plan = make_plan(history)
    ids, keys = _old_ids(history)
    ledger = imports.ledger
    state = ImportState("imp-0123abcd", "jsonl", "JSON Lines", path.name, history.digest, status=PAUSED,
                        batches=len(plan.batches), turns=plan.turns)
    ledger.save(state)
    ledger.save_batches(state.id, [{"seq": b.seq, "conversation": ids[b.conversation_id], "title": b.title,
                                    "now": b.now.isoformat(), "keys": [keys[k] for k in b.keys], "turns": b.turns}
                                   for b in plan.batches])
    planned = await imports.plan(await imports.read(path))
    assert (planned.turns, planned.skipped_waiting) == (0, plan.turns)
    assert {row.state for row in planned.rows} == {"waiting"}


# ── every reader: the keys and conversation ids of a file are the same in every time zone ──────────


def _saved(path: Path, data) -> Path:
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def _each_conversation(folder: Path, name: str, strip) -> Path:
    """The fixture ``name`` (a list of conversations) with ``strip(conversation)`` applied to each."""
    conversations = json.loads(fixture(name).read_text(encoding="utf-8"))
    for conversation in conversations:
        strip(conversation)
    return _saved(folder / "conversations.json", conversations)


def _chatgpt(folder: Path) -> Path:
    """A conversation without its id (a hand-made or trimmed export): named by its title and first time."""
    def strip(conversation) -> None:
        conversation.pop("id", None)
        conversation.pop("conversation_id", None)

    return _each_conversation(folder, "chatgpt_conversations.json", strip)


def _claude(folder: Path) -> Path:
    """No uuid anywhere (an older export, one line of messages)."""
    def strip(conversation) -> None:
        conversation.pop("uuid", None)
        conversation.pop("current_leaf_message_uuid", None)
        for message in conversation["chat_messages"]:
            message.pop("uuid", None)
            message.pop("parent_message_uuid", None)

    return _each_conversation(folder, "claude_conversations.json", strip)


def _deepseek(folder: Path) -> Path:
    return _each_conversation(folder, "deepseek_conversations.json", lambda conversation: conversation.pop("id", None))


def _deepseek_web(folder: Path) -> Path:
    """A chat saved from the web page (times in seconds since 1970) without its session's id."""
    saved = json.loads(fixture("deepseek_web_chat.json").read_text(encoding="utf-8"))
    saved["data"]["biz_data"]["chat_session"].pop("id", None)
    return _saved(folder / "chat.json", saved)


def _cherry(folder: Path) -> Path:
    """A topic and messages without ids (a backup of an early version)."""
    with zipfile.ZipFile(fixture("cherry-studio.202504050903.zip")) as zf:
        data = json.loads(zf.read("data.json"))
    data["version"] = 3
    data["localStorage"] = {}
    data["indexedDB"] = {"topics": [{"messages": [
        {"role": "user", "createdAt": "2024-01-02T03:04:05.000Z", "content": "我在学吉他"},
        {"role": "assistant", "createdAt": "2024-01-02T03:04:09.000Z", "content": "加油"},
        {"role": "user", "createdAt": "2024-01-02T15:00:00.000Z", "content": "今天练了一小时"}]}]}
    return _saved(folder / "data.json", data)


@pytest.mark.parametrize("make", [_jsonl, _sonetto_md, _chatgpt, _claude, _deepseek, _deepseek_web, _cherry],
                         ids=["jsonl", "sonetto-md", "chatgpt", "claude", "deepseek", "deepseek-web", "cherry"])
def test_a_files_keys_and_conversation_ids_do_not_depend_on_the_time_zone(tmp_path, monkeypatch, make):
    path = make(tmp_path / "chats.jsonl") if make is _jsonl else make(tmp_path / "chat.md") \
        if make is _sonetto_md else make(tmp_path)

    def read() -> tuple[list[str], list[str], datetime]:
        history = read_history(path)
        plan = make_plan(history)
        assert plan.turns > 0
        return [row.id for row in plan.rows], _keys(plan), next(iter(history.conversations)).messages[0].time

    ids, keys, local = read()
    _move_to(monkeypatch, ELSEWHERE)
    ids_elsewhere, keys_elsewhere, local_elsewhere = read()
    assert local_elsewhere != local  # the messages' local time moved with the zone, as the writer reads it
    assert (ids_elsewhere, keys_elsewhere) == (ids, keys)


def _fold_chat(path: Path) -> Path:
    """One chat across New York's fall-back hour (2024-11-03: 01:00-02:00 happens twice), its times
    in UTC: a question at 01:50 EDT, its answer at 01:05 EST (15 minutes later), the next question at
    01:10 EST and its answer at 01:15 EST."""
    lines = [
        {"conversation": "c", "role": "user", "content": "Q1 我明天去波士顿。", "time": "2024-11-03T05:50:00Z"},
        {"conversation": "c", "role": "assistant", "content": "A1 一路顺风！", "time": "2024-11-03T06:05:00Z"},
        {"conversation": "c", "role": "user", "content": "Q2 那边冷吗？", "time": "2024-11-03T06:10:00Z"},
        {"conversation": "c", "role": "assistant", "content": "A2 带件外套。", "time": "2024-11-03T06:15:00Z"},
    ]
    path.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\n", encoding="utf-8")
    return path


def _turns(path: Path) -> list[list[str]]:
    from sonetto_desktop.history_import.plan import exchanges_of

    history = read_history(path)
    [conversation] = list(history.conversations)
    return [[m.text.split()[0] for m in e.messages] for e in exchanges_of(history.source, conversation)]


def test_a_jsonl_chat_across_a_dst_fold_keeps_its_order(tmp_path, monkeypatch, shanghai):  # noqa: F811
    """A chat is put in order by its instants, not by local clock times: where the clocks fall back during
    it, an answer given after they went back read as earlier than its question, was cut off from it
    (left out as "no user message"), and what was imported depended on this computer's time zone."""
    path = _fold_chat(tmp_path / "chat.jsonl")
    _move_to(monkeypatch, "UTC")
    in_utc = _turns(path)
    assert in_utc == [["Q1", "A1"], ["Q2", "A2"]]
    _move_to(monkeypatch, "America/New_York")
    assert _turns(path) == in_utc
