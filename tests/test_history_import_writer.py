"""History import through the app's one writer (issue 39, item 3): each batch's text is written
once, into the import writer's journal (no ``batches.jsonl`` beside it), the import's writer is made
by the factory chat's writer is made by (``agent_lifecycle.make_writer``: the same settings reach
it), its progress comes from the writer's reports onto the services' one feed, and an import begun by
the older version (its batches in ``batches.jsonl``) still goes on. Real stores, the scripted model
over real HTTP. (Kill -9 in the middle of an import: test_history_cli.py.)"""

from __future__ import annotations

import dataclasses
import json
import threading

import pytest

from history_helpers import fixture, is_writer, remember_each_line, services_fixture, shanghai  # noqa: F401
from sonetto_desktop.history_import.ledger import ImportState, new_import_id
from sonetto_desktop.history_import.runner import ImportProgress, safe_title
from sonetto_desktop.memory.writer import prompts
from sonetto_desktop.memory.writer.journal import TurnJournal

pytestmark = pytest.mark.usefixtures("shanghai")


def _files_holding(folder, text: str) -> dict[str, int]:
    """Every file under ``folder`` whose bytes hold ``text`` (as stored: JSON keeps Chinese as is), with
    how many times."""
    needle = text.encode("utf-8")
    found = {}
    for path in folder.rglob("*"):
        if path.is_file() and (n := path.read_bytes().count(needle)):
            found[str(path.relative_to(folder))] = n
    return found


async def test_each_batch_is_written_once_into_the_writers_journal(services, llm_server, monkeypatch):
    appended: list[str] = []
    append = TurnJournal.append

    def counted(self, turn_id, *args, **kwargs):
        appended.append(turn_id)
        return append(self, turn_id, *args, **kwargs)

    monkeypatch.setattr(TurnJournal, "append", counted)
    gate = threading.Event()

    def held(body):  # the first batch waits at the model while the test reads the disk
        if is_writer(body):
            gate.wait(30)
        return remember_each_line(body)

    llm_server.responder = held
    imports = services.imports
    history = await imports.read(fixture("history.jsonl"))
    plan = await imports.plan(history)
    state = await imports.start(plan, history, file_name="history.jsonl")
    try:
        folder = imports.ledger.folder_of(state.id)
        assert not (folder / "batches.jsonl").exists()
        assert sorted(appended) == sorted(f"{state.id}-{b.seq:06d}" for b in plan.batches)  # once each
        index = json.loads((folder / "conversations.json").read_text(encoding="utf-8"))
        assert [r["keys"] for _, r in sorted(index["records"].items())] == [list(b.keys) for b in plan.batches]
        for batch in plan.batches:  # its text: in the journal, once, and nowhere else in the import's folder
            text = batch.loaded().messages()[0]["content"]
            where = _files_holding(folder, text)
            assert list(where.values()) == [1] and next(iter(where)).startswith("journal/pending/"), where
    finally:
        gate.set()
    result = await imports.wait()
    assert result.turns_written == plan.turns and result.memories_created == plan.turns
    assert len(appended) == len(plan.batches)  # nothing journaled again while it was written
    assert sorted(imports.ledger.written_batches(state.id)) == [b.seq for b in plan.batches]
    assert not imports.ledger.journal_path(state.id).exists()


async def test_the_imports_writer_is_made_as_chats_is(services, llm_server):
    """The settings chat's writer follows reach the import's: the person's name and the UI's language
    (the reasons in English), through the one factory."""
    await services.apply_settings(dataclasses.replace(services.settings, language="en", user_name="小林"))
    llm_server.responder = remember_each_line
    imports = services.imports
    history = await imports.read(fixture("history.jsonl"))
    await imports.start(await imports.plan(history), history, file_name="history.jsonl")
    await imports.wait()
    users = [body["messages"][-1]["content"] for body in llm_server.requests if is_writer(body)]
    assert users and all(prompts.ENGLISH_REASONS in u and "## 用户的称呼\n小林（" in u for u in users)


async def test_why_a_turn_failed_is_said_in_the_uis_language(services, llm_server):
    """English UI, a model that refuses the key: the status bar said "Memory writing failed:
    模型服务拒绝了 API Key（认证失败）…", and a failed import "None of the 2 batches could be written;
    nothing was written: 模型服务返回了无法理解的内容…" (the writer's reason was always the Chinese one)."""
    from llm_server import error

    reason = await _first_failure_in_english(services, llm_server, lambda body: error(401, "invalid api key"))
    assert reason.startswith("The model server rejected the API key"), reason
    assert not any("\u4e00" <= ch <= "\u9fff" for ch in reason), reason


async def _first_failure_in_english(services, llm_server, responder) -> str:
    """The UI in English, the model answering with ``responder``: why the writer's first turn failed."""
    from waiting import until

    await services.apply_settings(dataclasses.replace(services.settings, language="en"))
    llm_server.responder = responder
    await services.start_agents(chat=False)
    writer = services.writer
    await writer.send_history([{"role": "user", "content": "我养了一只猫"}, {"role": "assistant", "content": "好呀"}])
    await until(lambda: writer.status().last_error, what="the first failure")
    return writer.status().last_error


async def test_the_writers_own_reasons_are_said_in_the_uis_language(services, llm_server):
    """English UI, a model whose server passes tool calls on as text: the status bar said "Memory
    writing failed: 模型把工具调用写成了文字…" (the writer's own reasons, and the store's, were only
    Chinese; only the model server's followed the UI's language)."""
    reason = await _first_failure_in_english(
        services, llm_server, lambda body: '<tool_call>{"name": "create_memory", "arguments": {}}</tool_call>')
    assert reason.startswith("the model wrote its tool calls as text"), reason
    assert not any("\u4e00" <= ch <= "\u9fff" for ch in reason), reason


async def test_progress_is_on_the_services_one_feed(services, llm_server):
    seen: list[ImportProgress] = []
    services.subscribe_events(lambda event: seen.append(event) if isinstance(event, ImportProgress) else None)
    llm_server.responder = remember_each_line
    imports = services.imports
    history = await imports.read(fixture("history.jsonl"))
    plan = await imports.plan(history)
    await imports.start(plan, history, file_name="history.jsonl")
    result = await imports.wait()
    running = [p for p in seen if p.status == "running"]
    assert running and max(p.created for p in running) == result.memories_created == plan.turns
    assert seen[-1].status == "done" and seen[-1].turns_done == plan.turns


async def test_an_import_begun_by_the_older_version_goes_on_from_its_batches_file(services, llm_server):
    """Before this change the batches waited in ``batches.jsonl`` (text and all) and went into the
    journal two at a time; such an import, stopped after its first batch, goes on: the rest are
    journaled once, written in order, and the file goes."""
    llm_server.responder = remember_each_line
    imports = services.imports
    history = await imports.read(fixture("history.jsonl"))
    plan = await imports.plan(history)
    assert len(plan.batches) == 2
    ledger, state_id = imports.ledger, new_import_id()
    old = [{"seq": b.seq, "conversation": b.conversation_id, "title": safe_title(b.title), "now": b.now.isoformat(),
            "keys": list(b.keys), "turns": len(b.exchanges), "messages": b.loaded().messages()} for b in plan.batches]
    folder = ledger.folder_of(state_id)
    folder.mkdir(parents=True)
    (folder / "batches.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in old),
                                          encoding="utf-8")
    (folder / "conversations.json").write_text(json.dumps(
        {"batches": {str(r["seq"]): r["conversation"] for r in old},
         "titles": {r["conversation"]: r["title"] for r in old}}, ensure_ascii=False), encoding="utf-8")
    ledger.record(state_id, 0, old[0]["keys"])  # the first batch was written before it stopped
    ledger.save(ImportState(state_id, "jsonl", "JSON Lines", "history.jsonl", history.digest, status="paused",
                            batches=2, turns=plan.turns))
    await imports.resume(state_id)
    result = await imports.wait()
    written = [b for b in plan.batches if b.seq == 1]
    assert result.turns_written == plan.turns and result.memories_created == len(written[0].exchanges)
    assert [body for body in llm_server.requests if is_writer(body)][0]["messages"][-1]["content"].count(
        written[0].loaded().messages()[0]["content"]) == 1  # only the batch not written was asked
    assert len([b for b in llm_server.requests if is_writer(b)]) == 1
    assert not (folder / "batches.jsonl").exists() and ledger.get(state_id).status == "done"


async def test_an_import_whose_batches_cannot_all_be_journaled_does_not_begin(services, llm_server, monkeypatch):
    """The journal refuses the batches (here its folder for them is a file, as a broken disk would):
    the import says so and leaves nothing behind — no state, no index, no half journal — so the same
    chats can be imported once the disk is fine."""
    from sonetto_desktop.history_import import runner

    monkeypatch.setattr(runner, "new_import_id", lambda: "imp-0badd15c")
    imports = services.imports
    history = await imports.read(fixture("history.jsonl"))
    plan = await imports.plan(history)
    pending = imports.ledger.journal_path("imp-0badd15c") / "pending"
    pending.parent.mkdir(parents=True)
    pending.write_text("not a folder", encoding="utf-8")
    with pytest.raises(OSError):
        await imports.start(plan, history, file_name="history.jsonl")
    assert not imports.ledger.folder_of("imp-0badd15c").exists() and await imports.unfinished() == []
    assert imports.runner.running is None and not [b for b in llm_server.requests if is_writer(b)]
    llm_server.responder = remember_each_line
    monkeypatch.setattr(runner, "new_import_id", lambda: "imp-600dd15c")
    await imports.start(plan, history, file_name="history.jsonl")
    assert (await imports.wait()).turns_written == plan.turns


async def test_the_progress_counts_what_the_toast_counts_as_each_memory_lands(services, llm_server):
    """Progress said 新记忆 1 while the toast said 新增 2: the toast counts each memory the import writes as it
    lands in the store (the change channel), the progress counted a batch's memories only once the batch
    was done (from what its writer reported). Driven in that order: batch 2 has written its memory and
    waits at the model for its last answer. The progress says what the store holds, as the finished
    import does (one count: ``count_changes``)."""
    from sonetto_desktop.history_import.runner import count_changes
    from sonetto_desktop.memory import kinds
    from sonetto_desktop.presentation.others import SourceTally, from_elsewhere
    from waiting import until

    from history_helpers import said
    from llm_server import tool_calls

    firsts, follow_ups, gate = [], [], threading.Event()

    def held(body):  # batch 2 writes its memories, then reads the list: its next call waits at the model
        if not is_writer(body):
            return remember_each_line(body)
        if any(m["role"] == "tool" for m in body["messages"]):
            follow_ups.append(1)
            gate.wait(30)
            return "好的"
        firsts.append(1)
        calls = [("create_memory", {"content": f"用户说过：{text[:40]}", "section": "身份"}) for _, text in said(body)]
        return tool_calls(calls + ([("read_memories", {})] if len(firsts) == 2 else []))

    llm_server.responder = held
    imports = services.imports
    history = await imports.read(fixture("history.jsonl"))
    plan = await imports.plan(history)
    assert len(plan.batches) >= 2
    tallies: dict[str, SourceTally] = {}  # as the window's quiet notice tallies an import's changes

    def seen(change):
        if from_elsewhere(change) and change.actor.startswith("import:"):
            tallies.setdefault(change.actor, SourceTally.of(change)).add(change)

    unsubscribe = services.subscribe(seen)
    state = await imports.start(plan, history, file_name="history.jsonl")
    try:
        first_two = sum(b.turns for b in plan.batches[:2])
        added = lambda: sum(t.counts[kinds.ADDED] for t in tallies.values())  # noqa: E731
        await until(lambda: follow_ups and added() == first_two, what="batch 2's memories in the store")
        assert count_changes(imports.runner.ops, state.id)[0] == first_two
        await until(lambda: imports.runner.last is not None and imports.runner.last.created == first_two,
                    what=f"the progress saying {first_two} new memories, as the toast does")
    finally:
        gate.set()
    result = await imports.wait()
    unsubscribe()
    assert result.memories_created == imports.runner.last.created == added() == plan.turns


def _scanned(monkeypatch) -> list[str]:
    """Every text the secret filter reads from now on (``find_secrets``, which ``redact_secrets`` calls)."""
    from sonetto_desktop.memory.writer import secret_filter

    texts: list[str] = []
    find = secret_filter.find_secrets

    def counted(text):
        texts.append(text)
        return find(text)

    monkeypatch.setattr(secret_filter, "find_secrets", counted)
    return texts


def test_a_batch_read_back_for_the_writer_is_filtered_for_secrets_once(monkeypatch):
    """Issue 37, thirteenth pass: reading a planned batch back (``batch_text``) rebuilt it from its
    exchanges, which worked out its figures again (each message's secrets hidden and its tokens
    estimated), then rendered it (its secrets hidden again): two passes of the filter per message, and
    the figures thrown away. Now once; the messages and the figures are what the plan had."""
    from bench.history_import import synthetic_history
    from sonetto_desktop.history_import.plan import Batch, make_plan
    from sonetto_desktop.history_import.runner import batch_text

    plan = make_plan(synthetic_history(240, 7))
    assert plan.secrets_hidden > 0  # (pasted passwords and keys among them)
    for batch in plan.batches:
        held = Batch(0, batch.conversation_id, batch.title, batch.exchanges)  # made in hand: its figures worked out
        scanned = _scanned(monkeypatch)
        messages = batch_text(batch)
        assert len(scanned) == len(messages), (len(scanned), len(messages))
        assert messages == held.messages()
        loaded = batch.loaded()
        assert (loaded.turns, loaded.hidden, loaded.first, loaded.now) == (held.turns, held.hidden, held.first, held.now)
        assert loaded.tokens == batch.tokens and round(loaded.tokens) == round(held.tokens)
        monkeypatch.undo()


async def test_an_imports_batches_are_journaled_filtered_once_with_the_same_text(services, llm_server, monkeypatch):
    """Issue 37, thirteenth pass: each batch went through the secret filter again on its way into the
    writer's journal (``send_history`` → ``normalize_turn``), after the plan had hidden its secrets
    when it rendered it: the text of an import was read by the filter three times while it began (see
    the test above for the second). Now the rendered messages are journaled as they are, and they are
    what the second pass made of them: the same secrets hidden, the same text."""
    from bench.history_import import synthetic_history
    from sonetto_desktop.history_import.runner import batch_text
    from sonetto_desktop.memory.writer.turns import normalize_turn

    gate = threading.Event()

    def held(body):  # the writer waits at the model while the test reads the journal
        if is_writer(body):
            gate.wait(30)
        return remember_each_line(body)

    llm_server.responder = held
    imports = services.imports
    history = synthetic_history(120, 7)
    plan = await imports.plan(history)
    assert plan.secrets_hidden > 0
    rendered = {b.seq: batch_text(b) for b in plan.batches}
    scanned = _scanned(monkeypatch)
    state = await imports.start(plan, history, file_name="bench.jsonl")
    try:
        read = sum(len(t) for t in scanned)
        monkeypatch.undo()
        sent = sum(len(m["content"]) for messages in rendered.values() for m in messages)
        assert read < 1.3 * sent, f"the filter read {read} characters for {sent} journaled"  # (twice: ~2×)
        pending = imports.ledger.journal_path(state.id) / "pending"
        entries = {e["turn_id"]: e for e in (json.loads(p.read_text(encoding="utf-8")) for p in pending.glob("*.json"))}
        assert len(entries) == len(rendered)  # (the writer waits at the model with the first: none written yet)
        for seq, messages in rendered.items():
            assert entries[f"{state.id}-{seq:06d}"]["messages"] == messages == normalize_turn(messages)
        journaled = [m["content"] for e in entries.values() for m in e["messages"]]
        assert sum("［已隐去" in text for text in journaled) > 0 and not any("hunter" in text for text in journaled)
    finally:
        gate.set()
    result = await imports.wait()
    assert result.turns_written == plan.turns


def test_a_rendered_message_hides_what_the_filter_finds_in_what_was_said():
    """What lets the journal take an import's rendered messages as they are (the test above): for every
    labelled line of the secret filter's sets (secrets and look-alikes, Chinese and English) said by the
    person and inside a long reply, the rendered message (its time stamped, a reply clipped) hides what
    the filter finds in the line itself, and a second pass over it finds nothing more in any secret
    line. (The second pass the journal made read the time stamp too, and took one look-alike, "My
    library card number is 21234000567890", for a card number: the one difference over these 672
    messages, a false alarm fewer; the bench's 1,000-turn history journals the same text.)"""
    from datetime import datetime

    from bench.secret_filter import DEFAULT, load
    from sonetto_desktop.history_import.model import Conversation, Message
    from sonetto_desktop.history_import.plan import Batch, exchanges_of
    from sonetto_desktop.memory.writer.secret_filter import redact_secrets
    from sonetto_desktop.memory.writer.turns import normalize_turn

    sets = [load(path) for path in DEFAULT]
    secret = [line for secrets, _ in sets for line, _value in secrets]
    lines = secret + [line for _, ordinary in sets for line in ordinary]
    assert len(secret) > 100 and len(lines) > 300
    at = datetime(2024, 5, 1, 9, 30)
    filler = "这是一段很长的回答，" * 70  # past the reply's clip, so the clip's seam is read too
    messages = [m for n, line in enumerate(lines)
                for m in (Message("user", line, at, f"u{n}"), Message("assistant", filler + line + filler, at))]
    batch = Batch(0, "c", "labelled", tuple(exchanges_of("jsonl", Conversation("c", "labelled", messages))))
    rendered = batch.messages()
    assert len(rendered) == 2 * len(lines) and batch.hidden > len(secret)
    said = rendered[::2]
    assert [m["content"] for m in said] == [f"（09:30）{redact_secrets(line)[0]}" for line in lines]
    assert normalize_turn(rendered[: 2 * len(secret)]) == rendered[: 2 * len(secret)]
