"""Review mode (issue 12, capability 7): Sonetto's changes wait in an inbox; approve / edit / reject
each or all. Through AppServices with the real writer and the scripted model server, on both file
backends; the inbox file on its own below."""

from __future__ import annotations

import json

import pytest

from helpers import writer_settled
from sonetto_desktop.memory.changes import MemoryChange, Turn
from sonetto_desktop.memory.errors import MemoryNotFound
from sonetto_desktop.memory.review import MAX_PENDING, InboxFull, ReviewInbox
from sonetto_desktop.services import AppServices
from test_services import settings_for


def tool_results(request: dict) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


@pytest.fixture(params=["yaml", "sqlite"])
async def services(request, llm_server, tmp_path):
    settings = settings_for(tmp_path, llm_server.base_url, store_backend=request.param, review_mode=True)
    services = await AppServices.open(settings=settings, watch=False)
    yield services
    await services.close()


async def test_sonettos_changes_wait_for_review_and_approval_applies_them(services, llm_server):
    cat = services.memory.add("用户喜欢猫", "品味").ids[0]
    city = services.memory.add("用户住在成都", "身份").ids[0]
    old = services.memory.add("用户下周三考驾照", "时效待办").ids[0]
    before = {mid: item.to_dict() for mid, item in services.memory.all_items().items()}
    await services.start_agents()
    seen: list[MemoryChange] = []
    services.subscribe(seen.append)
    llm_server.add_text("上海很好呀")
    llm_server.add_tool_calls([
        ("create_memory", {"content": "用户养了一只叫汤圆的猫", "section": "身份"}),
        ("update_memory", {"id": city, "content": "用户搬到了上海", "reason": "用户说搬家了"}),
        ("delete_memory", {"id": old, "reason": "驾照考完了"}),
    ])
    llm_server.add_text("已提交。")
    events = [e async for e in services.chat.send("s1", "我搬到上海了，驾照也考完了，还养了只猫叫汤圆")]
    turn_id = events[-1].turn_id
    await writer_settled(services)

    # nothing changed at all; three proposals wait
    assert seen == []
    after = {mid: item.to_dict() for mid, item in services.memory.all_items().items()}
    assert {mid: (d["description"], d["theme"]) for mid, d in after.items()} == {
        mid: (d["description"], d["theme"]) for mid, d in before.items()}
    assert all("已提交给用户审核" in text for text in tool_results(llm_server.requests[-1]))
    create, update, delete = services.review.pending()
    assert (create.kind, create.description, create.theme) == ("create", "用户养了一只叫汤圆的猫", "身份")
    assert (update.kind, update.memory_ids, update.before) == ("update", (city,), ("用户住在成都",))
    assert (delete.kind, delete.memory_ids, delete.reason) == ("delete", (old,), "驾照考完了")
    assert {p.turn_id for p in (create, update, delete)} == {turn_id}
    assert create.excerpt.startswith("我搬到上海了")

    # approve as proposed: written by Sonetto, for that turn (so undo / provenance work as usual)
    change = services.review.approve(create.id, services.memory)
    assert (change.kind, change.actor, change.turn_id) == ("add", "agent", turn_id)
    assert services.memory.get(change.ids[0]).description == "用户养了一只叫汤圆的猫"
    # approve with the person's own words: written by the person
    edited = services.review.approve(update.id, services.memory, description="用户今年搬到了上海浦东")
    assert (edited.actor, services.memory.get(city).description) == ("user", "用户今年搬到了上海浦东")
    # reject: nothing happens to the memory
    services.review.reject(delete.id)
    assert services.memory.get(old).description == "用户下周三考驾照"
    assert services.review.pending() == [] and cat in services.memory.all_items()


async def test_a_locked_memory_is_refused_even_as_a_proposal(services, llm_server):
    keep = services.memory.add("用户的生日是3月5日", "身份").ids[0]
    services.memory.set_locked(keep, True)
    await services.start_agents()
    llm_server.add_text("记下啦")
    llm_server.add_tool_calls([("update_memory", {"id": keep, "content": "用户的生日是3月6日", "reason": "用户说的"})])
    llm_server.add_text("好的。")
    _ = [e async for e in services.chat.send("s1", "我生日其实是3月6日")]
    await writer_settled(services)
    assert services.review.pending() == []
    assert any("已被用户锁定" in text for text in tool_results(llm_server.requests[-1]))


async def test_with_review_mode_off_sonetto_writes_directly_and_switching_is_live(services, llm_server):
    await services.apply_settings(settings_for_off(services))
    await services.start_agents()
    llm_server.add_text("好呀")
    llm_server.add_tool_calls([("create_memory", {"content": "用户喜欢山竹", "section": "品味"})])
    llm_server.add_text("已记录。")
    _ = [e async for e in services.chat.send("s1", "我喜欢山竹")]
    await writer_settled(services)
    assert services.review.pending() == []
    assert [i.description for i in services.memory.all_items().values()] == ["用户喜欢山竹"]


def settings_for_off(services: AppServices):
    from dataclasses import replace

    return replace(services.settings, review_mode=False)


async def test_approve_all_applies_what_it_can_and_keeps_what_failed(services):
    gone = services.memory.add("用户在学吉他", "爱好").ids[0]
    inbox = services.review
    turn = Turn("t-1", "s1", "我开始学尤克里里了")
    inbox.propose("create", description="用户在学尤克里里", theme="爱好", reason="用户说的", turn=turn)
    stale = inbox.propose("update", memory_ids=(gone,), description="用户改学尤克里里了", turn=turn)
    services.memory.delete(gone, reason="用户自己删了")
    changes, failed = inbox.approve_all(services.memory)
    assert [c.kind for c in changes] == ["add"] and list(failed) == [stale.id]
    assert [p.id for p in inbox.pending()] == [stale.id]  # still there, with the reason it failed
    with pytest.raises(MemoryNotFound):
        inbox.approve(stale.id, services.memory)


def test_the_inbox_persists_follows_other_processes_and_does_not_repeat_itself(tmp_path):
    path = tmp_path / "review_inbox.json"
    first = ReviewInbox(path, enabled=True)
    counts: list[int] = []
    first.subscribe(counts.append)
    a = first.propose("merge", memory_ids=("x1", "x2"), description="用户喜欢猫", theme="品味", reason="重复")
    assert first.propose("merge", memory_ids=("x1", "x2"), description="用户喜欢猫", theme="品味") == a
    assert counts == [1]
    other = ReviewInbox(path)  # another process (the CLI, a second instance)
    assert [p.id for p in other.pending()] == [a.id]
    other.reject(a.id)
    assert first.pending() == []  # the file changed: read again
    with pytest.raises(KeyError):
        first.reject(a.id)
    path.write_text(json.dumps({"proposals": [{"id": "p1", "kind": ["nonsense"]}]}), encoding="utf-8")
    with pytest.raises(ValueError, match="review_inbox.json"):
        ReviewInbox(path).pending()
    assert path.read_text(encoding="utf-8").count("nonsense") == 1  # a bad file is left as it is


def test_a_full_inbox_refuses_more(tmp_path):
    assert ReviewInbox(tmp_path / "default.json").capacity == MAX_PENDING == 500
    inbox = ReviewInbox(tmp_path / "review_inbox.json", enabled=True, capacity=20)
    for n in range(20):
        inbox.propose("create", description=f"第{n}条", theme="瞬间")
    with pytest.raises(InboxFull):
        inbox.propose("create", description="再来一条", theme="瞬间")
    assert ReviewInbox(inbox.path, enabled=True, capacity=21).propose("create", description="有空位了", theme="瞬间")
    assert inbox.reject_all() == 21 and inbox.count() == 0


def test_the_clean_up_pass_proposes_its_merges_once(tmp_path):
    from sonetto_desktop.memory import MemoryOperations, YamlMemoryManager
    from sonetto_desktop.memory.changes import AGENT
    from sonetto_desktop.memory.writer.hygiene_pass import merge_exact_duplicates
    from sonetto_desktop.memory.writer.index import WriterIndex

    store = YamlMemoryManager(tmp_path / "memory.yaml")
    try:
        inbox = ReviewInbox(tmp_path / "review_inbox.json", enabled=True)
        ops = MemoryOperations(store, review=inbox)
        a = ops.add("用户喜欢猫。", "品味").ids[0]
        b = ops.add("用户喜欢猫", "品味").ids[0]
        agent = ops.as_actor(AGENT, Turn("clean-1"))
        for _ in range(2):  # the next day's pass finds the same pair: still one proposal
            merge_exact_duplicates(agent, WriterIndex(store))
        [proposal] = inbox.pending()
        assert proposal.kind == "merge" and set(proposal.memory_ids) == {a, b} and store.count() == 2
        inbox.approve(proposal.id, ops)
        assert store.count() == 1
    finally:
        store.close()


async def test_an_apps_conversation_is_reviewed_and_approved_as_that_app(services, llm_server):
    await services.start_agents(chat=False)
    llm_server.add_tool_calls([("create_memory", {"content": "用户下个月去大阪看樱花", "section": "计划"})])
    llm_server.add_text("已提交。")
    turn_id = await services.writer.send_history([{"role": "user", "content": "我下个月去大阪看樱花"}],
                                                 session_id="mcp:cursor", actor="mcp:cursor")
    await writer_settled(services)
    assert services.memory.count() == 0
    (proposal,) = services.review.pending()
    assert (proposal.actor, proposal.turn_id) == ("mcp:cursor", turn_id)
    change = services.review.approve(proposal.id, services.memory)
    assert (change.actor, change.turn_id) == ("mcp:cursor", turn_id)
    assert services.memory.get(change.ids[0]).history[0]["actor"] == "mcp:cursor"


def test_a_proposal_file_cannot_make_a_change_the_persons(tmp_path):
    path = tmp_path / "review_inbox.json"
    inbox = ReviewInbox(path, enabled=True)
    proposal = inbox.propose("create", description="用户喜欢猫", theme="品味", turn=Turn("t1"), actor="mcp:cursor")
    assert ReviewInbox(path).pending()[0].actor == "mcp:cursor"
    with pytest.raises(ValueError):
        inbox.propose("create", description="用户喜欢狗", theme="品味", actor="user")
    raw = json.loads(path.read_text(encoding="utf-8"))
    raw["proposals"][0]["actor"] = "user"
    path.write_text(json.dumps(raw), encoding="utf-8")
    assert ReviewInbox(path).get(proposal.id).actor == "agent"


def test_a_proposal_approved_twice_at_once_is_applied_once(tmp_path):
    """Two windows or processes approve one proposal together: one applies it, the other is told it is gone."""
    import threading

    from sonetto_desktop.memory import MemoryOperations, YamlMemoryManager
    from sonetto_desktop.memory.review import ProposalGone

    store = YamlMemoryManager(tmp_path / "memory.yaml")
    ops = MemoryOperations(store)
    path = tmp_path / "review_inbox.json"
    proposal = ReviewInbox(path, enabled=True).propose("create", description="用户养了一只叫汤圆的猫", theme="身份",
                                                       turn=Turn("t1"))
    first, second = ReviewInbox(path), ReviewInbox(path)  # each with its own locks, as two processes
    outcomes: dict[str, object] = {}
    b_done = threading.Event()

    def approve(name: str, inbox: ReviewInbox) -> None:
        try:
            outcomes[name] = inbox.approve(proposal.id, ops)
        except Exception as exc:  # noqa: BLE001 - what the loser gets is the point
            outcomes[name] = exc
        if name == "b":
            b_done.set()

    b = threading.Thread(target=approve, args=("b", second))

    def during_a_commit(change) -> None:  # A has written the memory: B approves now, before A is done
        if change.kind == "add" and not b.is_alive() and "b" not in outcomes:
            b.start()
            b_done.wait(2)

    store.subscribe(during_a_commit)
    approve("a", first)
    b.join(10)
    assert [item.description for item in store.all_items().values()] == ["用户养了一只叫汤圆的猫"]
    assert outcomes["a"].kind == "add" and isinstance(outcomes["b"], ProposalGone)
    assert "already approved or rejected" in str(outcomes["b"])
    assert first.pending() == [] and second.pending() == []
    store.close()


def test_a_proposal_made_while_another_process_approves_is_kept(tmp_path):
    """An approval rewrites the inbox: a proposal added meanwhile by another process must survive it."""
    from sonetto_desktop.memory import MemoryOperations, YamlMemoryManager

    store = YamlMemoryManager(tmp_path / "memory.yaml")
    path = tmp_path / "review_inbox.json"
    app, writer_process = ReviewInbox(path, enabled=True), ReviewInbox(path, enabled=True)
    waiting = app.propose("create", description="用户喜欢猫", theme="品味", turn=Turn("t1"))
    added: list[str] = []

    def meanwhile(change) -> None:  # while the approval applies, the other process's writer proposes
        if not added:
            import threading

            t = threading.Thread(target=lambda: added.append(
                writer_process.propose("create", description="用户喜欢狗", theme="品味", turn=Turn("t2")).id))
            t.start()
            t.join(0.5)

    store.subscribe(meanwhile)
    app.approve(waiting.id, MemoryOperations(store))
    for _ in range(100):
        if added:
            break
        import time

        time.sleep(0.02)
    assert [p.description for p in ReviewInbox(path).pending()] == ["用户喜欢狗"]
    store.close()


def test_an_undo_withdraws_its_turns_proposals_for_every_process_and_a_redo_after_a_restart_brings_them_back(tmp_path):
    """The inbox as two processes see it: the window lists a proposal, the command line undoes its turn;
    the window's approval is refused. The withdrawal is kept in the file: taking the undo back in a
    later run brings the proposal back."""
    from sonetto_desktop.memory import MemoryOperations, YamlMemoryManager
    from sonetto_desktop.memory.review import ProposalWithdrawn

    store = YamlMemoryManager(tmp_path / "memory.yaml")
    path = tmp_path / "review_inbox.json"
    window = MemoryOperations(store, review=ReviewInbox(path, enabled=True))
    cli = MemoryOperations(store, actor="cli", review=ReviewInbox(path, enabled=True))
    kept = window.add("用户喜欢猫", "品味").ids[0]
    chat = window.as_actor("agent", Turn("t-1", "s1", "我喜欢橘猫"))
    held = window.review.propose("update", memory_ids=(kept,), description="用户喜欢橘猫", turn=chat.turn)
    other = window.review.propose("create", description="用户住在成都", theme="地点与路径", turn=Turn("t-2"))
    assert [p.id for p in window.review.pending()] == [held.id, other.id]  # the window lists both

    written = chat.add("用户家有猫砂盆", "品味")  # t-1 also wrote one memory
    undone = cli.undo_turn("t-1")
    assert [p.id for p in undone.withdrawn] == [held.id] and not undone.returned
    assert written.ids[0] not in store.all_items()
    with pytest.raises(ProposalWithdrawn, match="was undone"):
        window.review.approve(held.id, window)
    assert store.get(kept).description == "用户喜欢猫" and [p.id for p in window.review.pending()] == [other.id]

    later = MemoryOperations(store, review=ReviewInbox(path, enabled=True))  # the next run of the app
    redo = later.undo_turn(undone.turn_id)
    assert [p.id for p in redo.returned] == [held.id] and written.ids[0] in store.all_items()
    assert {p.id for p in window.review.pending()} == {held.id, other.id}
    assert window.review.approve(held.id, window).kind == "update"
    assert json.loads(path.read_text(encoding="utf-8"))["withdrawn"][0]["back_by"] == redo.turn_id
    store.close()


@pytest.mark.parametrize("kind", ["yaml", "sqlite"])
def test_an_edit_another_process_makes_while_an_approval_checks_is_never_written_over(tmp_path, kind, monkeypatch,
                                                                                      english_terminal):
    """The approval looks whether the memory changed since it was proposed, then writes: another process
    (the command line, ``sonetto mcp``, a second window) editing that memory right after the look must not
    have its edit written over. Its write waits for the approval's lock on the store, from the look to
    the write, and lands after it: the newer edit is what the memory says."""
    import subprocess
    import sys
    import threading

    from sonetto_desktop.memory import MemoryOperations, SqliteMemoryManager, YamlMemoryManager
    from sonetto_desktop.memory.writer.proposals import Planner

    store = YamlMemoryManager(tmp_path / "memory.yaml") if kind == "yaml" else SqliteMemoryManager(tmp_path / "memory.db")
    ops = MemoryOperations(store)
    city = ops.add("用户住在成都", "身份").ids[0]
    inbox = ReviewInbox(tmp_path / "review_inbox.json", enabled=True)
    held = inbox.propose("update", memory_ids=(city,), description="用户搬到了上海", before=("用户住在成都",),
                         turn=Turn("t-1", "s1", "我搬到上海了"))
    look = Planner._check_unchanged
    edits: list[subprocess.Popen] = []

    def look_then_another_process_edits(proposal, plan, ops):
        look(proposal, plan, ops)
        cli = subprocess.Popen([sys.executable, "-m", "sonetto_desktop", "memory", "--store", str(store.path),
                                "update", city, "用户住在成都，刚换了工作"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        edits.append(cli)
        said = threading.Event()  # its "waiting for another process" line: it waits for this approval
        threading.Thread(target=lambda: said.set() if "waiting" in cli.stderr.readline() else None,
                         daemon=True).start()
        while cli.poll() is None and not said.is_set():
            said.wait(0.05)

    monkeypatch.setattr(Planner, "_check_unchanged", staticmethod(look_then_another_process_edits))
    inbox.approve(held.id, ops)
    out, err = edits[0].communicate(timeout=120)
    assert edits[0].returncode == 0, err
    assert store.get(city).description == "用户住在成都，刚换了工作", "the other process's edit was written over"
    store.close()


_APPROVER = """
import sys
from pathlib import Path
from sonetto_desktop.memory import MemoryOperations, YamlMemoryManager
from sonetto_desktop.memory.review import ReviewInbox
folder = Path(sys.argv[1])
store = YamlMemoryManager(folder / "memory.yaml", flush_delay=None)
print("ready", flush=True)
sys.stdin.readline()  # the test has another process take the store's lock meanwhile
change = ReviewInbox(folder / "review_inbox.json", enabled=True).approve(sys.argv[2], MemoryOperations(store))
store.close()
print("approved", change.kind, flush=True)
"""

_PROPOSER = """
import sys
from pathlib import Path
from sonetto_desktop.memory import review
from sonetto_desktop.memory.changes import Turn
from sonetto_desktop.memory.stores import lock_wait
review.LOCK_TIMEOUT = 1.0  # an inbox change's own time: far shorter than the store's wait an approval may be in
lock_wait.NOTICE_AFTER = 0.2
lock_wait.on_wait(lambda path: print("waiting for", path.name, file=sys.stderr, flush=True))
inbox = review.ReviewInbox(Path(sys.argv[1]) / "review_inbox.json", enabled=True)
print("proposed", inbox.propose("create", description="用户喜欢狗", theme="品味", turn=Turn("t2")).id, flush=True)
"""


def test_a_proposal_made_while_an_approval_waits_for_the_store_waits_too_says_so_and_is_kept(tmp_path):
    """Another process holds the store (memory.yaml.lock) while the window approves: the approval holds the
    inbox while it waits for the store (up to lock_wait.LIMIT). The writer of ``sonetto mcp`` proposing
    meanwhile got an OSError once the inbox's own (shorter) wait ran out: its turn failed, without a word
    of waiting. Now it waits as long as the approval may, says so (the store's wait notice), and its
    proposal is kept beside the approved change. Real processes, a real lock holder."""
    import subprocess
    import sys
    import time

    import portalocker

    from sonetto_desktop.memory import YamlMemoryManager
    from test_store_lock_wait import _held

    YamlMemoryManager(tmp_path / "memory.yaml", flush_delay=None).close()
    path = tmp_path / "review_inbox.json"
    waiting = ReviewInbox(path, enabled=True).propose("create", description="用户喜欢猫", theme="品味", turn=Turn("t1"))

    def inbox_held() -> bool:
        try:
            with portalocker.Lock(str(path) + ".lock", mode="a", timeout=0, fail_when_locked=True):
                return False
        except portalocker.exceptions.LockException:
            return True

    approver = subprocess.Popen([sys.executable, "-c", _APPROVER, str(tmp_path), waiting.id],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert approver.stdout.readline().strip() == "ready"
    with _held(tmp_path / "memory.yaml.lock") as holder:
        approver.stdin.write("go\n")
        approver.stdin.flush()
        for _ in range(500):  # until the approval holds the inbox (and waits for the store)
            if inbox_held() or approver.poll() is not None:
                break
            time.sleep(0.02)
        assert approver.poll() is None and inbox_held()
        proposer = subprocess.Popen([sys.executable, "-c", _PROPOSER, str(tmp_path)],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        said = proposer.stderr.readline()  # the store is still held: the proposer is waiting, or failed
        while said.startswith("waiting for another process"):  # (the log's line, on stderr too)
            said = proposer.stderr.readline()
        holder.stdin.close()  # the other process lets the store go
    out, err = proposer.communicate(timeout=60)
    approved, approver_err = approver.communicate(timeout=60)
    assert said.strip() == "waiting for review_inbox.json", said + err
    assert proposer.returncode == 0 and out.startswith("proposed"), err
    assert approver.returncode == 0 and approved.strip() == "approved add", approver_err
    assert [p.description for p in ReviewInbox(path).pending()] == ["用户喜欢狗"]
    store = YamlMemoryManager(tmp_path / "memory.yaml", flush_delay=None)
    assert [item.description for item in store.all_items().values()] == ["用户喜欢猫"]
    store.close()
