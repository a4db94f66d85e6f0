"""A write that says what it expects a memory to hold (the texts the person saw in the edit or merge
dialog) is a compare-and-set inside the store's own transaction: when the memory was changed meanwhile —
by this process or by another one (the command line, another app), seen by the window or not — it
raises ``ChangedMeanwhile`` with the values now and writes nothing. Every backend."""

from __future__ import annotations

import pytest

from memory_stores import BACKENDS, backend_store_fixture, open_store, use_backend
from sonetto_desktop import ops
from sonetto_desktop.memory import MemoryOperations
from sonetto_desktop.memory.errors import ChangedMeanwhile

mm = backend_store_fixture()


@pytest.fixture
def changes(mm):
    seen = []
    mm.subscribe(seen.append)
    return seen


@pytest.fixture(params=BACKENDS)
def two_openings(request, tmp_path):
    """The same store opened twice: the window's and another process's (the command line's)."""
    kind = use_backend(request, request.param)
    window = open_store(kind, tmp_path)
    other = open_store(kind, tmp_path)
    yield window, other
    other.close()
    window.close()


def _state(mm, memory_id):
    item = mm.get(memory_id)
    return item.description, item.theme, [dict(entry) for entry in item.history]


# ── update ──────────────────────────────────────────────────────────────


def test_an_update_whose_expectation_no_longer_holds_writes_nothing(mm, changes):
    a = mm.add("小林在成都", "身份")
    mm.update(a, "搬家了", new_description="小林搬到了上海", actor="agent")  # meanwhile, by Sonetto
    before = _state(mm, a)
    changes.clear()
    with pytest.raises(ChangedMeanwhile) as info:
        mm.update(a, "手动编辑", new_description="小林在成都工作", expect={"description": "小林在成都"})
    error = info.value
    assert (error.memory_id, error.field, error.now, error.expected) == (a, "description", "小林搬到了上海", "小林在成都")
    assert error.clashes == ((a, "description", "小林搬到了上海", "小林在成都"),)
    assert _state(mm, a) == before, "the stale edit was written (or its history entry was)"
    assert changes == []


def test_an_update_whose_expectation_holds_writes(mm):
    a = mm.add("小林在成都", "身份")
    mm.update(a, "搬家了", new_description="小林搬到了上海", actor="agent")
    mm.update(a, "手动编辑", new_description="小林在上海工作", expect={"description": "小林搬到了上海"})
    item = mm.get(a)
    assert item.description == "小林在上海工作"
    assert item.history[-1]["reason"] == "手动编辑" and item.history[-1]["old_description"] == "小林搬到了上海"


def test_an_update_names_every_field_that_changed_with_its_value_now(mm):
    a = mm.add("小林在成都", "身份")
    mm.update(a, "整理", new_description="小林搬到了上海", new_theme="地点", actor="agent")
    before = _state(mm, a)
    with pytest.raises(ChangedMeanwhile) as info:
        mm.update(a, "手动编辑", new_description="x", new_theme="y",
                  expect={"description": "小林在成都", "theme": "身份"})
    assert {(field, now) for _, field, now, _ in info.value.clashes} == {("description", "小林搬到了上海"),
                                                                        ("theme", "地点")}
    assert info.value.now_of(a, "theme") == "地点"
    assert _state(mm, a) == before


def test_an_update_checks_only_the_fields_it_is_told(mm):
    a = mm.add("小林在成都", "身份")
    mm.update(a, "整理", new_theme="地点", actor="agent")  # the theme changed, not the text
    mm.update(a, "手动编辑", new_description="小林在成都工作", expect={"description": "小林在成都"})
    assert (mm.get(a).description, mm.get(a).theme) == ("小林在成都工作", "地点")


def test_an_expectation_of_something_else_is_refused(mm):
    a = mm.add("小林在成都", "身份")
    with pytest.raises(ValueError):
        mm.update(a, "手动编辑", new_description="x", expect={"hit": "0"})
    assert mm.get(a).description == "小林在成都"


def test_a_change_another_process_made_is_seen_by_the_check(two_openings):
    window, other = two_openings
    a = window.add("小林在成都", "身份")
    assert other.get(a).description == "小林在成都"
    other.update(a, "搬家了", new_description="小林搬到了上海", actor="cli")  # `sonetto memory update`
    with pytest.raises(ChangedMeanwhile) as info:
        window.update(a, "手动编辑", new_description="小林在成都工作", expect={"description": "小林在成都"})
    assert info.value.now == "小林搬到了上海"
    assert window.get(a).description == other.get(a).description == "小林搬到了上海"


# ── merge ───────────────────────────────────────────────────────────────


def _merge_pair(mm):
    keep = mm.add("喜欢手冲咖啡，不加糖", "品味")
    gone = mm.add("讨厌香菜", "品味")
    return keep, gone


def _seen(keep, gone, keep_text="喜欢手冲咖啡，不加糖", gone_text="讨厌香菜"):
    return {keep: {"description": keep_text, "theme": "品味"}, gone: {"description": gone_text}}


def test_a_merge_whose_other_memory_changed_meanwhile_merges_nothing(mm, changes):
    keep, gone = _merge_pair(mm)
    mm.update(gone, "口味变了", new_description="现在爱吃香菜了", actor="agent")
    before = (_state(mm, keep), _state(mm, gone))
    changes.clear()
    with pytest.raises(ChangedMeanwhile) as info:
        mm.merge(keep, gone, "咖啡不加糖，不吃香菜", "品味", "手动合并", expect=_seen(keep, gone))
    assert (info.value.memory_id, info.value.field, info.value.now) == (gone, "description", "现在爱吃香菜了")
    assert info.value.ids == (gone,)
    assert (_state(mm, keep), _state(mm, gone)) == before
    assert mm.list_trash() == [] and changes == []


def test_a_merge_whose_kept_memory_changed_meanwhile_merges_nothing(mm):
    keep, gone = _merge_pair(mm)
    mm.update(keep, "补充", new_theme="饮食", actor="agent")
    with pytest.raises(ChangedMeanwhile) as info:
        mm.merge(keep, gone, "咖啡不加糖，不吃香菜", "品味", "手动合并", expect=_seen(keep, gone))
    assert info.value.clashes == ((keep, "theme", "饮食", "品味"),)
    assert {mid for mid in mm.all_items()} == {keep, gone} and mm.list_trash() == []


def test_a_merge_whose_expectation_holds_merges(mm):
    keep, gone = _merge_pair(mm)
    mm.update(gone, "口味变了", new_description="现在爱吃香菜了", actor="agent")
    mm.merge(keep, gone, "咖啡不加糖，爱吃香菜", "品味", "手动合并",
             expect=_seen(keep, gone, gone_text="现在爱吃香菜了"))
    assert list(mm.all_items()) == [keep] and mm.get(keep).description == "咖啡不加糖，爱吃香菜"
    assert [t["id"] for t in mm.list_trash()] == [gone]


def test_a_merge_sees_another_processs_change(two_openings):
    window, other = two_openings
    keep, gone = _merge_pair(window)
    other.update(gone, "口味变了", new_description="现在爱吃香菜了", actor="cli")
    with pytest.raises(ChangedMeanwhile):
        window.merge(keep, gone, "咖啡不加糖，不吃香菜", "品味", "手动合并", expect=_seen(keep, gone))
    assert set(other.all_items()) == {keep, gone} and other.get(gone).description == "现在爱吃香菜了"


# ── through the operations ──────────────────────────────────────────────


async def test_the_edit_operation_fails_with_the_values_now_and_its_own_sentence(mm):
    a = mm.add("小林在成都", "身份")
    mm.update(a, "搬家了", new_description="小林搬到了上海", actor="agent")
    outcome = await ops.run(ops.EditMemory(a, "小林在成都工作", None, "补充", expect={"description": "小林在成都"}), mm)
    assert not outcome.ok and isinstance(outcome.error, ChangedMeanwhile)
    assert outcome.error.now == "小林搬到了上海"
    assert "刚被改过" in outcome.message and "记忆库出错" not in outcome.message
    assert mm.get(a).description == "小林搬到了上海"
    done = await ops.run(ops.EditMemory(a, "小林在上海工作", None, "补充", expect={"description": "小林搬到了上海"}), mm)
    assert done.ok and done.value is True and mm.get(a).description == "小林在上海工作"


async def test_the_merge_operation_carries_the_expectation(mm):
    keep, gone = _merge_pair(mm)
    mm.update(gone, "口味变了", new_description="现在爱吃香菜了", actor="agent")
    outcome = await ops.run(ops.MergeMemories(keep, gone, "咖啡不加糖，不吃香菜", "品味", expect=_seen(keep, gone)), mm)
    assert isinstance(outcome.error, ChangedMeanwhile) and set(mm.all_items()) == {keep, gone}


def test_a_field_already_as_the_person_wrote_it_is_not_checked(mm):
    """Sonetto wrote the very text the person wrote: nothing of theirs is lost, nothing to ask."""
    a = mm.add("小林在成都", "身份")
    mm.update(a, "搬家了", new_description="小林搬到了上海", actor="agent")
    memory = MemoryOperations(mm)
    change = memory.update(a, description="小林搬到了上海", theme="地点", reason="手动编辑",
                           expect={"description": "小林在成都", "theme": "身份"})
    assert change is not None and (mm.get(a).description, mm.get(a).theme) == ("小林搬到了上海", "地点")
