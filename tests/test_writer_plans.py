"""Issue 39, item 1: the writer's tool plans fail closed.

A tool added the registry's way (a plan and a docstring, in a test here) with a kind of its own is a
change: review mode holds its call, and approving the call plans it again against the memories as they
are then. Every rule is checked for the whole plan before anything is written, and a plan's writes run
in one store transaction on every backend: a plan refused half-way leaves nothing behind. The inbox
keeps calls, never switches on kinds: an entry of a kind it does not know is listed and never applied
as something else.
"""

from __future__ import annotations

import itertools
import json

import pytest

from memory_stores import BACKENDS, LOCAL_BACKENDS, open_store, use_backend
from sonetto_desktop.memory.changes import Turn
from sonetto_desktop.memory.dont_remember import DontRememberList
from sonetto_desktop.memory.operations import MemoryOperations
from sonetto_desktop.memory.review import ReviewInbox
from sonetto_desktop.memory.writer import tools
from sonetto_desktop.memory.writer.registry import Outcome, Plan, Registry, ToolContext, ToolEnv, content_arg, text_arg
from sonetto_desktop.memory.writer.runner import ToolRunner

_ids = itertools.count()


def call(made, name, **args):
    by_name = {t.name: t for t in made}
    return by_name[name].invoke({"type": "tool_call", "id": f"call_{next(_ids)}", "name": name, "args": args})


def _note_tool() -> Registry:
    """A tool of a kind nobody declared: it appends a note to a memory, reading the memory as it is."""
    extra = Registry()

    @extra.tool
    def add_note(env: ToolEnv, id: str, note: str) -> Plan:
        """给一条记忆加一句备注。"""
        memory_id, words = text_arg("id", id), text_arg("note", note)
        text = f"{env.store.get(memory_id).description}（{words}）"

        def write(ops) -> Outcome:
            ops.update(memory_id, description=text, reason="加备注")
            return Outcome(f"已加备注 {memory_id}", "annotate", (memory_id,))

        return Plan("annotate", write, (memory_id,), description=text, reason="加备注")

    return extra


def _two_memories_tool(declared: bool) -> Registry:
    """A plan of two writes; ``declared``: it names both texts (else only the first: a careless plan)."""
    extra = Registry()

    @extra.tool
    def remember_pair(env: ToolEnv, first: str, second: str) -> Plan:
        """一次记住两件事。"""
        one, two = content_arg(first), content_arg(second)

        def write(ops) -> Outcome:
            made = (ops.add(one, "品味", reason="一对").ids[0], ops.add(two, "品味", reason="一对").ids[0])
            return Outcome("已记住两条", "create", made)

        if declared:
            return Plan("create", write, description=one, theme="品味", note="一对", also=(two,))
        return Plan("create", write, description=one, theme="品味", note="一对")

    return extra


@pytest.fixture(params=BACKENDS)
def store(request, tmp_path):
    opened = open_store(use_backend(request, request.param), tmp_path / "store")
    yield opened
    opened.close()


@pytest.mark.parametrize("declared", [False, True], ids=["careless-plan", "declared-plan"])
def test_a_plan_refused_half_way_writes_nothing(store, tmp_path, declared):
    forget = DontRememberList(tmp_path / "dont_remember.json")
    forget.add("前任")
    ops = MemoryOperations(store, dont_remember=forget)
    kept = store.add("用户喜欢猫", "品味")
    before = {mid: item.to_dict() for mid, item in store.all_items().items()}
    heard: list = []
    store.subscribe(heard.append)
    # declared: refused before any write; careless: the second write is refused, the first rolled back
    made = tools.langchain_tools(ToolRunner(ops), _two_memories_tool(declared), ToolContext(turn_id="t1", excerpt="记住这两件事"))

    said = call(made, "remember_pair", first="用户喜欢爵士乐", second="用户还惦记着前任")
    assert said.status == "error" and "不要记住" in said.content
    assert {mid: item.to_dict() for mid, item in store.all_items().items()} == before
    assert heard == [] and store.list_trash() == []
    assert list(store.all_items()) == [kept]

    # allowed words: the declared plan lands whole; the careless one is refused whole, whatever its words
    # (its second text escaped the checks: a reviewer would not have seen it either)
    done = call(made, "remember_pair", first="用户喜欢爵士乐", second="用户喜欢蓝调")
    if not declared:
        assert done.status == "error" and "没有全部交给规则检查" in done.content
        assert list(store.all_items()) == [kept] and heard == []
        return
    assert done.status == "success" and len(store.all_items()) == 3
    assert [c.kind for c in heard] == ["add", "add"] and {c.turn_id for c in heard} == {"t1"}


def test_a_group_commits_together_or_rolls_back_on_every_backend(store):
    heard: list = []
    store.subscribe(heard.append)
    kept = store.add("用户喜欢猫", "品味")
    with pytest.raises(RuntimeError, match="half-way"):
        with store.group():
            store.add("用户喜欢狗", "品味")
            store.update(kept, "改了", "用户喜欢橘猫")
            store.delete(kept, "删了")
            assert heard[1:] == []  # nothing is published before the group commits
            raise RuntimeError("half-way")
    assert [(mid, item.description) for mid, item in store.all_items().items()] == [(kept, "用户喜欢猫")]
    assert store.list_trash() == [] and [c.kind for c in heard] == ["add"]

    with store.capture() as captured, store.group():
        new = store.add("用户喜欢狗", "品味")
        with store.group():  # a group inside a group is part of it
            store.update(kept, "改了", "用户喜欢橘猫")
        assert [c.kind for c in captured] == ["add", "update"] and [c.kind for c in heard] == ["add"]
    assert [c.kind for c in heard] == ["add", "add", "update"]
    assert store.get(new).description == "用户喜欢狗" and store.get(kept).description == "用户喜欢橘猫"


@pytest.mark.parametrize("kind", LOCAL_BACKENDS)
def test_a_new_tool_under_review_is_held_and_replanned_on_approval(tmp_path, kind):
    store = open_store(kind, tmp_path / "store")
    inbox = ReviewInbox(tmp_path / "review_inbox.json", enabled=True)
    ops = MemoryOperations(store, review=inbox)
    cat = store.add("用户喜欢猫", "品味")
    before = store.get(cat).to_dict()
    context = ToolContext(turn_id="t1", session_id="s1", excerpt="我家猫叫汤圆")
    made = tools.langchain_tools(ToolRunner(ops), _note_tool(), context)

    held = call(made, "add_note", id=cat, note="猫叫汤圆")
    assert held.status == "success" and held.artifact["kind"] == "propose"
    assert store.get(cat).to_dict() == before  # the store is untouched: the call waits
    (proposal,) = inbox.pending()
    assert (proposal.kind, proposal.memory_ids, proposal.description, proposal.before) == (
        "annotate", (cat,), "用户喜欢猫（猫叫汤圆）", ("用户喜欢猫",))

    # the person edits the memory meanwhile; approving (in another process: a fresh inbox given the
    # tool) plans the call again against the memory as it is now, not the text proposed back then
    store.update(cat, "手动编辑", "用户喜欢橘猫")
    later = ReviewInbox(inbox.path, enabled=True, tools=_note_tool())
    change = later.approve(proposal.id, MemoryOperations(store, review=later))
    assert change is not None and change.kind == "update" and change.turn_id == "t1" and change.actor == "agent"
    assert store.get(cat).description == "用户喜欢橘猫（猫叫汤圆）"
    entry = store.get(cat).history[-1]
    assert (entry["reason"], entry["turn_id"], entry["excerpt"]) == ("加备注", "t1", "我家猫叫汤圆")
    assert later.pending() == []
    store.close()


def test_a_held_plan_is_checked_whole_before_it_is_held(tmp_path):
    store = open_store("yaml", tmp_path / "store")
    forget = DontRememberList(tmp_path / "dont_remember.json")
    forget.add("前任")
    inbox = ReviewInbox(tmp_path / "review_inbox.json", enabled=True)
    ops = MemoryOperations(store, dont_remember=forget, review=inbox)
    made = tools.langchain_tools(ToolRunner(ops), _two_memories_tool(True), ToolContext(turn_id="t1"))
    said = call(made, "remember_pair", first="用户喜欢爵士乐", second="用户还惦记着前任")
    assert said.status == "error" and "不要记住" in said.content
    assert inbox.pending() == [] and store.count() == 0
    store.close()


def test_an_entry_of_an_unknown_kind_is_listed_never_applied_as_a_merge(tmp_path):
    store = open_store("sqlite", tmp_path / "store")
    a, b = store.add("用户喜欢猫", "品味"), store.add("用户喜欢狗", "品味")
    path = tmp_path / "review_inbox.json"
    path.write_text(json.dumps({"proposals": [
        {"id": "p1", "kind": "tag", "memory_ids": [a, b], "description": "用户喜欢猫和狗", "theme": "品味"},
        {"id": "p2", "kind": "merge", "memory_ids": [a, b], "description": "用户喜欢猫和狗", "theme": "品味",
         "tool": "no_such_tool", "arguments": {"id1": a, "id2": b}},
    ]}, ensure_ascii=False), encoding="utf-8")
    inbox = ReviewInbox(path, enabled=True)
    ops = MemoryOperations(store, review=inbox)
    first, second = inbox.pending()  # listed: the person sees them and can reject them
    assert (first.id, first.kind) == ("p1", "tag") and not first.summary().startswith("合并")
    for proposal in (first, second):
        with pytest.raises(ValueError, match="not a tool this version knows"):
            inbox.approve(proposal.id, ops)
    assert sorted(store.all_items()) == sorted([a, b]) and store.list_trash() == []
    assert [p.id for p in inbox.pending()] == ["p1", "p2"]  # still waiting
    inbox.reject("p1")
    assert [p.id for p in inbox.pending()] == ["p2"]
    store.close()


def test_an_entry_written_before_proposals_kept_their_call_is_approved_as_it_says(tmp_path):
    store = open_store("yaml", tmp_path / "store")
    city = store.add("用户住在成都", "身份")
    path = tmp_path / "review_inbox.json"
    path.write_text(json.dumps({"proposals": [
        {"id": "old1", "kind": "update", "memory_ids": [city], "description": "用户搬到了上海", "theme": None,
         "reason": "搬家", "turn_id": "t9", "session_id": "s1", "excerpt": "我搬到上海了", "before": ["用户住在成都"],
         "actor": "agent", "created_at": "2025-01-02T03:04:05"},
        {"id": "old2", "kind": "create", "description": "用户养了一只猫", "theme": "身份", "reason": "",
         "created_at": "2025-01-02T03:04:05"},
    ]}, ensure_ascii=False), encoding="utf-8")
    inbox = ReviewInbox(path, enabled=True)
    ops = MemoryOperations(store, review=inbox)
    old1, old2 = inbox.pending()
    assert old1.rewordable and old1.summary() == "改为：用户搬到了上海"
    change = inbox.approve("old1", ops)
    assert (change.kind, change.ids, change.turn_id, change.actor) == ("update", (city,), "t9", "agent")
    entry = store.get(city).history[-1]
    assert store.get(city).description == "用户搬到了上海" and entry["reason"] == "搬家（你审核后批准）"
    made = inbox.approve("old2", ops, description="用户养了一只橘猫")  # reworded: written as the person
    assert made.actor == "user" and store.get(made.ids[0]).description == "用户养了一只橘猫"
    assert store.get(made.ids[0]).history[0]["reason"] == "记忆写入助手的提议（你审核后改写并批准）"
    # what is saved now keeps the call
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert saved == {"proposals": []}
    held = inbox.propose("delete", memory_ids=(city,), reason="过时", turn=Turn("t10"))
    raw = json.loads(path.read_text(encoding="utf-8"))["proposals"][0]
    assert (raw["tool"], raw["arguments"]) == ("held_delete", {"id": city, "reason": "过时"})
    assert inbox.approve(held.id, ops).kind == "delete"
    store.close()


def test_the_clean_up_pass_holds_its_rewrites_and_not_its_notes(tmp_path):
    """The pass's record_moment is held as a call and approved, in a later process, through the tools
    the app gives its inbox; flag_conflict says it changes nothing of the person's and is not held."""
    from datetime import datetime

    from sonetto_desktop.memory.writer.hygiene_pass import TIDY_TOOLS, hygiene_tools, new_turn
    from sonetto_desktop.memory.writer.index import WriterIndex

    store = open_store("sqlite", tmp_path / "store")
    inbox = ReviewInbox(tmp_path / "review_inbox.json", enabled=True)
    ops = MemoryOperations(store, review=inbox)
    exam = store.add("用户11月28日参加高数期中考试", "时效待办")
    a, b = store.add("用户在上海工作", "身份"), store.add("用户在杭州工作", "身份")
    now = datetime(2025, 12, 1, 9, 0)
    conflicts: list = []
    made = hygiene_tools(ops.as_actor("agent", new_turn(now)), new_turn(now), WriterIndex(store), conflicts,
                         lambda: now)
    noted = call(made, "flag_conflict", id1=a, id2=b, note="一条说上海，一条说杭州")
    assert noted.status == "success" and len(conflicts) == 1 and inbox.pending() == []
    held = call(made, "record_moment", id=exam, content="2025年11月28日，用户参加了高数期中考试", reason="考完了")
    assert held.artifact["kind"] == "propose" and store.get(exam).theme == "时效待办"
    (proposal,) = inbox.pending()
    assert (proposal.tool, proposal.kind, proposal.theme) == ("record_moment", "update", "瞬间")

    with pytest.raises(ValueError, match="not a tool this version knows"):  # an inbox not given the pass's tools
        ReviewInbox(inbox.path, enabled=True).approve(proposal.id, ops)
    later = ReviewInbox(inbox.path, enabled=True, tools=lambda: TIDY_TOOLS)
    later.approve(proposal.id, MemoryOperations(store, review=later))
    item = store.get(exam)
    assert (item.description, item.theme) == ("2025年11月28日，用户参加了高数期中考试", "瞬间")
    assert item.history[-1]["reason"] == "考完了（你审核后批准）" and later.pending() == []
    store.close()
