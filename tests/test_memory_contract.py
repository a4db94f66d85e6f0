"""One contract, run unchanged against every store backend."""

from __future__ import annotations

import threading

import pytest

from memory_stores import backend_store_fixture
from sonetto_desktop.memory import MemoryChange, MemoryNotFound


mm = backend_store_fixture()


@pytest.fixture
def changes(mm):
    seen: list[MemoryChange] = []
    mm.subscribe(seen.append)
    return seen


def _actions(item) -> list[str]:
    return [entry.get("action") for entry in item.history]


def test_add_show_get(mm):
    a = mm.add("小林喜欢猫", "品味")
    b = mm.add("  小林住在上海  ", "身份")
    assert len(a) == 8 and a != b
    shown = {row["id"]: row for row in mm.show()}
    assert shown[a] == {"id": a, "description": "小林喜欢猫", "theme": "品味"}
    assert shown[b]["description"] == "小林住在上海"
    item = mm.get(a)
    [created] = item.history  # a new memory's history says who wrote it
    assert created["action"] == "create" and created["actor"] == "user"
    assert (created["new_description"], created["new_theme"]) == ("小林喜欢猫", "品味")
    assert item.hit == 0 and item.latest_update_time == created["time"]
    assert mm.count() == 2


@pytest.mark.parametrize("desc,theme", [("", "品味"), ("   ", "品味"), ("x", ""), (None, "品味")])
def test_add_rejects_empty_text(mm, desc, theme):
    with pytest.raises(ValueError):
        mm.add(desc, theme)
    assert mm.count() == 0


@pytest.mark.parametrize(
    "call",
    [
        lambda mm: mm.delete("nope0000"),
        lambda mm: mm.update("nope0000", "r", new_description="x"),
        lambda mm: mm.hit("nope0000"),
        lambda mm: mm.revert("nope0000", 0, "r"),
        lambda mm: mm.restore("nope0000"),
        lambda mm: mm.purge("nope0000"),
        lambda mm: mm.get("nope0000"),
        lambda mm: mm.show_description_history("nope0000"),
    ],
)
def test_unknown_id_names_the_id(mm, call):
    keep = mm.add("小林喜欢猫", "品味")
    with pytest.raises(MemoryNotFound) as info:
        call(mm)
    assert "nope0000" in str(info.value)
    assert [r["id"] for r in mm.show()] == [keep]


def test_merge_with_unknown_id_changes_nothing(mm):
    a = mm.add("小林喜欢猫", "品味")
    with pytest.raises(MemoryNotFound, match="ghost123"):
        mm.merge(a, "ghost123", "合并", "品味", "dup")
    assert _actions(mm.get(a)) == ["create"] and mm.list_trash() == []


def test_update_records_history(mm):
    a = mm.add("小林在成都", "身份")
    mm.update(a, "用户搬家了", new_description="小林搬到了上海", actor="agent")
    mm.update(a, "分类更准确", new_theme="地点与路径")
    item = mm.get(a)
    assert (item.description, item.theme) == ("小林搬到了上海", "地点与路径")
    newest, oldest, created = mm.show_description_history(a)
    assert created["action"] == "create"
    assert oldest["actor"] == "agent" and oldest["reason"] == "用户搬家了"
    assert oldest["old_description"] == "小林在成都" and oldest["new_description"] == "小林搬到了上海"
    assert newest["actor"] == "user" and newest["old_theme"] == "身份" and newest["new_theme"] == "地点与路径"
    assert item.latest_update_time == newest["time"]


def test_update_needs_a_change_and_text(mm):
    a = mm.add("小林在成都", "身份")
    with pytest.raises(ValueError):
        mm.update(a, "no change")
    with pytest.raises(ValueError):
        mm.update(a, "empty", new_description="  ")
    with pytest.raises(ValueError):
        mm.update(a, "", new_description="新的")
    assert _actions(mm.get(a)) == ["create"]


def test_merge_keeps_id1_with_both_histories(mm):
    a = mm.add("小林喜欢猫", "品味")
    b = mm.add("小林养了布偶猫", "身份")
    mm.update(b, "补充名字", new_description="小林养了一只叫汤圆的布偶猫")
    mm.hit(a)
    mm.hit(b)
    mm.merge(a, b, "小林喜欢猫，养了一只叫汤圆的布偶猫", "身份", "同一件事", actor="agent")
    assert [r["id"] for r in mm.show()] == [a]
    item = mm.get(a)
    assert item.description == "小林喜欢猫，养了一只叫汤圆的布偶猫" and item.theme == "身份"
    assert item.hit == 2
    actions = [(e.get("action"), e.get("from")) for e in item.history]
    assert actions == [("create", None), ("create", b), ("update", b), ("merge", None)]
    merge_entry = item.history[-1]
    assert merge_entry["merged_id"] == b and merge_entry["merged_description"] == "小林养了一只叫汤圆的布偶猫"
    trash = mm.list_trash()
    assert [t["id"] for t in trash] == [b]
    with pytest.raises(ValueError):
        mm.merge(a, a, "x", "y", "self")


def test_history_after_a_merge_is_newest_first_by_time():
    from sonetto_desktop.memory import MemoryItem

    def change(time: str, reason: str) -> dict:
        return {"time": time, "action": "update", "actor": "user", "reason": reason}

    keep = MemoryItem("小林喜欢猫", "品味", [change("2026-11-02T10:00:00", "keep 较新")])
    gone = MemoryItem("小林养猫", "身份", [change("2026-10-01 09:00:00", "gone 较旧")])  # seed's space form
    keep.merge(gone, "同一件事", "小林喜欢猫，也养猫", "身份", another_id="b")
    reasons = [e["reason"] for e in keep.show_description_history()]
    assert reasons == ["同一件事", "keep 较新", "gone 较旧"]


def test_hit_counts(mm):
    a = mm.add("小林喜欢猫", "品味")
    assert [mm.hit(a) for _ in range(3)] == [1, 2, 3]
    assert mm.get(a).hit == 3


def test_delete_goes_to_trash_and_restores_with_history(mm):
    a = mm.add("小林下周考试", "时效待办")
    mm.update(a, "改期", new_description="小林下下周考试")
    assert mm.delete(a, "考试结束了", actor="agent") == "小林下下周考试"
    assert mm.show() == []
    [entry] = mm.list_trash()
    assert entry["id"] == a and entry["reason"] == "考试结束了" and entry["actor"] == "agent"
    assert mm.restore(a) == a
    item = mm.get(a)
    assert item.description == "小林下下周考试"
    assert _actions(item) == ["create", "update", "restore"]
    assert mm.list_trash() == []


def test_a_restored_memory_keeps_its_own_update_time(mm):
    """Undo of a delete showed the card as "刚刚": the restore stamped the memory's update time with its
    own, though it brings the memory back as it was (text, theme and time; the history says when it
    came back). From the trash, and by undoing the turn that deleted it, alike."""
    from sonetto_desktop.memory.changes import Turn
    from sonetto_desktop.memory.item import MemoryItem

    old = "2026-03-01T09:30:00"
    mm.import_items({"m1": MemoryItem("小林养了一只叫年糕的猫", "生活", latest_update_time=old),
                     "m2": MemoryItem("小林在学日语", "爱好", latest_update_time=old)})
    by_text = {item.description: mid for mid, item in mm.all_items().items()}
    a, b = by_text["小林养了一只叫年糕的猫"], by_text["小林在学日语"]
    assert mm.get(a).latest_update_time == old
    mm.delete(a, "误删")
    mm.restore(a)
    assert mm.get(a).latest_update_time == old and _actions(mm.get(a))[-1] == "restore"
    mm.delete(b, "学完了", actor="agent", turn=Turn("turn-0001"))
    mm.undo_turn("turn-0001")
    assert mm.get(b).description == "小林在学日语" and mm.get(b).latest_update_time == old
    assert _actions(mm.get(b))[-1] == "restore"


def test_purge_one_and_all(mm):
    ids = [mm.add(f"记忆{i}", "瞬间") for i in range(3)]
    for mid in ids:
        mm.delete(mid)
    assert mm.purge(ids[0]) == 1
    assert {t["id"] for t in mm.list_trash()} == set(ids[1:])
    assert mm.purge() == 2
    assert mm.list_trash() == []
    with pytest.raises(MemoryNotFound):
        mm.restore(ids[1])


def test_purge_among_deletes_only_those_still_in_the_trash(mm):
    ids = [mm.add(f"记忆{i}", "瞬间") for i in range(4)]
    for mid in ids[:3]:
        mm.delete(mid)
    mm.restore(ids[1])  # restored meanwhile: stays a memory
    assert mm.purge(among=[ids[0], ids[1], ids[3]]) == 1
    assert [t["id"] for t in mm.list_trash()] == [ids[2]]  # not among them: kept
    assert set(mm.all_items()) == {ids[1], ids[3]}


def test_revert_to_any_version(mm):
    a = mm.add("v0", "甲")
    mm.update(a, "r1", new_description="v1")
    mm.update(a, "r2", new_description="v2", new_theme="乙")
    versions = mm.versions(a)
    assert [(v["description"], v["theme"]) for v in versions] == [("v0", "甲"), ("v1", "甲"), ("v2", "乙")]
    mm.revert(a, 0, "回到最初")
    item = mm.get(a)
    assert (item.description, item.theme) == ("v0", "甲")
    assert item.history[-1]["action"] == "revert" and item.history[-1]["reason"] == "回到最初"
    assert len(mm.versions(a)) == 4  # the revert is itself a new version
    with pytest.raises(ValueError):
        mm.revert(a, 9, "no such version")


def test_change_feed_order_and_ids(mm, changes):
    a = mm.add("小林喜欢猫", "品味")
    b = mm.add("小林喜欢狗", "品味")
    mm.update(a, "r", new_description="小林很喜欢猫")
    mm.hit(a)
    mm.merge(a, b, "小林喜欢猫和狗", "品味", "合并")
    mm.delete(a, "不要了")
    mm.restore(a)
    mm.revert(a, 0, "回退")
    mm.purge(b)
    kinds = [(c.kind, c.ids) for c in changes]
    assert kinds == [
        ("add", (a,)), ("add", (b,)), ("update", (a,)), ("hit", (a,)), ("merge", (a, b)),
        ("delete", (a,)), ("restore", (a,)), ("revert", (a,)), ("purge", (b,)),
    ]
    with pytest.raises(MemoryNotFound):
        mm.hit("missing0")
    assert len(changes) == 9  # a failed write publishes nothing


def test_subscriber_sees_committed_state_and_can_unsubscribe(mm):
    seen = []
    unsubscribe = mm.subscribe(lambda change: seen.append(mm.get(change.ids[0]).description))
    a = mm.add("小林喜欢猫", "品味")
    unsubscribe()
    mm.update(a, "r", new_description="改了")
    assert seen == ["小林喜欢猫"]


def test_broken_subscriber_does_not_undo_a_write(mm, changes):
    mm.subscribe(lambda change: 1 / 0)
    a = mm.add("小林喜欢猫", "品味")
    assert mm.get(a).description == "小林喜欢猫" and changes[-1].kind == "add"


def test_grouped_by_theme(mm):
    a = mm.add("小林喜欢猫", "品味")
    mm.add("小林住在上海", "身份")
    b = mm.add("小林爱吃火锅", "品味")
    mm.hit(b)
    groups = mm.get_memories_grouped()
    assert set(groups) == {"品味", "身份"}
    assert {c["id"] for c in groups["品味"]} == {a, b}
    assert {c["hit"] for c in groups["品味"]} == {0, 1}


def test_reopen_sees_everything(mm, tmp_path):
    a = mm.add("小林喜欢猫", "品味")
    mm.update(a, "r", new_description="小林喜欢布偶猫")
    b = mm.add("删掉的", "瞬间")
    mm.delete(b)
    again = type(mm)(mm.path)
    assert again.get(a).description == "小林喜欢布偶猫" and _actions(again.get(a)) == ["create", "update"]
    assert [t["id"] for t in again.list_trash()] == [b]
    again.close()


def test_import_merges_by_id_and_skips_duplicates(mm):
    a = mm.add("小林喜欢猫", "品味")
    other = {k: v for k, v in mm.all_items().items()}
    from sonetto_desktop.memory import MemoryItem

    incoming = {
        a: other[a],  # exact duplicate -> skipped
        "newid001": MemoryItem("小林会弹钢琴", "音乐"),
        a + "x": MemoryItem("小林喜欢猫", "品味"),  # same text under another id -> skipped
    }
    added, skipped = mm.import_items(incoming)
    assert added == ["newid001"] and set(skipped) == {a, a + "x"}
    assert mm.get("newid001").description == "小林会弹钢琴"
    collide = {a: MemoryItem("同 id 不同内容", "瞬间")}
    added2, _ = mm.import_items(collide)
    assert len(added2) == 1 and added2[0] != a and mm.get(a).description == "小林喜欢猫"


def test_import_gives_fresh_ids_no_memory_trash_entry_or_other_incoming_memory_has(mm):
    from sonetto_desktop.memory import MemoryItem

    here = mm.add("在库里", "测试")
    binned = mm.add("在回收站", "测试")
    mm.delete(binned, "测试")
    proposals = iter(["later001", here, binned, "fresh001", "fresh002"])  # what the id generator offers
    mm._generate_id = lambda: next(proposals)
    incoming = {here: MemoryItem("与库里的同 id", "测试"), binned: MemoryItem("与回收站的同 id", "测试"),
                "later001": MemoryItem("排在后面的", "测试")}
    added, skipped = mm.import_items(incoming)
    assert added == ["later001", "fresh001", "fresh002"] and skipped == []
    assert [mm.get(i).description for i in added] == ["与库里的同 id", "与回收站的同 id", "排在后面的"]
    assert mm.get(here).description == "在库里" and [t["id"] for t in mm.list_trash()] == [binned]


def test_threads_in_one_process_do_not_lose_writes(mm):
    def worker(n):
        for i in range(10):
            mm.add(f"线程{n}-{i}", "瞬间")

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert mm.count() == 40


def test_self_check_ok_on_a_healthy_store(mm):
    mm.add("小林喜欢猫", "品味")
    report = mm.self_check()
    assert report.status == "OK" and report.item_count == 1 and report.issues == []


def test_readers_are_not_disturbed_by_concurrent_writes(mm):
    for i in range(20):
        mm.add(f"初始{i}", "瞬间")
    errors: list[BaseException] = []
    done = threading.Event()

    def reader():
        while not done.is_set():
            try:
                groups = mm.get_memories_grouped()
                assert sum(len(cards) for cards in groups.values()) >= 20
                mm.show()
            except BaseException as exc:  # noqa: BLE001 - collected and asserted below
                errors.append(exc)
                return

    threads = [threading.Thread(target=reader) for _ in range(2)]
    for t in threads:
        t.start()
    ids = [mm.add(f"并发{i}", "瞬间") for i in range(40)]
    for mid in ids[:20]:
        mm.update(mid, "r", new_description="改")
    done.set()
    for t in threads:
        t.join()
    assert errors == []
    assert mm.count() == 60


def test_validate_all_items_repairs_in_place_and_reports(mm):
    from sonetto_desktop.memory import MemoryItem

    items = {"a1": MemoryItem("  带空格  ", "身份", None, "2026-07-10 21:14:03", -1),
             "a2": MemoryItem("", "身份")}
    items["a1"].history = None
    issues, repaired = mm._validate_all_items(items)
    assert issues == ["a2: empty description"]
    assert items["a1"].description == "带空格" and items["a1"].history == [] and items["a1"].hit == 0
    assert items["a1"].latest_update_time == "2026-07-10T21:14:03"
    assert len(repaired) == 3


def test_the_memories_a_turn_touched_are_found_without_reading_the_others(mm):
    """``items_mentioning`` (counting what an import left) and the undo's plan find the memories whose
    history names a turn (or a group's start, ``imp-<id>``), the ones deleted and restored since
    included; a table store asks its database (SQLite ``instr``, PostgreSQL ``strpos``)."""
    from sonetto_desktop.memory.changes import Turn
    from sonetto_desktop.memory.undo import TurnSet

    others = [mm.add(f"别的记忆 {n}", "其他") for n in range(30)]
    made = mm.add("小林喜欢猫", "品味", actor="import:chatgpt", turn=Turn("imp-aaaa1111-000001"))
    changed = others[3]
    mm.update(changed, "导入改的", new_description="别的记忆 3（改过）", actor="import:chatgpt",
              turn=Turn("imp-aaaa1111-000002"))
    gone = mm.add("小林住在上海", "身份", actor="import:chatgpt", turn=Turn("imp-aaaa1111-000002"))
    mm.delete(gone, "导入删的", actor="import:chatgpt", turn=Turn("imp-aaaa1111-000003"))
    mm.restore(gone)
    mm.add("另一次导入", "其他", actor="import:claude", turn=Turn("imp-bbbb2222-000001"))
    found = mm.items_mentioning("imp-aaaa1111")
    assert set(found) == {made, changed, gone}
    assert found[changed].description == "别的记忆 3（改过）"  # whole items, as ``get`` reads them
    assert set(mm.items_mentioning("imp-aaaa1111-000002")) == {changed, gone}
    assert mm.items_mentioning("imp-cccc3333") == {}

    # The undo of a batch, and of some batches as one, plans from those memories only, and does what it did.
    mm.undo_turn("imp-aaaa1111-000001")
    assert made not in mm.all_items() and mm.count() == 32
    mm.undo_turn(TurnSet("imp-aaaa1111/c1", ["imp-aaaa1111-000002"]), keep_touched=True)
    assert mm.get(changed).description == "别的记忆 3"


def test_the_memories_a_change_named_are_read_as_get_reads_them_whatever_their_number(mm):
    """``items_of`` (the wall following a change of 33 or more memories, the trash dialog): each as
    ``get`` gives it, ``None`` for one that is gone or never was, in the order asked (once each)."""
    ids = [mm.add(f"记忆 {n}", "其他") for n in range(40)]
    mm.update(ids[5], "改", new_description="记忆 5（改过）")
    mm.delete(ids[6], "删")
    asked = [*ids, "nope0000", ids[0]]
    found = mm.items_of(asked)
    assert list(found) == [*ids, "nope0000"]
    assert found[ids[6]] is None and found["nope0000"] is None
    assert found[ids[5]].description == "记忆 5（改过）" and found[ids[5]].history == mm.get(ids[5]).history
    assert all(found[mid].to_dict() == mm.get(mid).to_dict() for mid in ids if mid != ids[6])
    assert mm.items_of([]) == {}


def test_an_exports_trash_goes_back_into_the_trash_once(mm):
    """``import_trash`` (a backup's trash): restorable again, never on the wall; the same entries again, one
    equal to a stored memory, add nothing; an id a memory took meanwhile gets a fresh one."""
    kept = mm.add("小林喜欢猫", "品味")
    gone = mm.add("小林住在成都", "身份", actor="agent")
    mm.delete(gone, "搬家了")
    entries = mm.trash_entries()
    assert list(entries) == [gone] and entries[gone]["reason"] == "搬家了"
    mm.purge(gone)
    assert mm.import_trash(entries) == [gone]
    assert [row["id"] for row in mm.list_trash()] == [gone] and gone not in mm.all_items()
    assert mm.import_trash(entries) == []  # the same backup again
    mm.purge(gone)
    taken = {kept: {**entries[gone], "item": {**entries[gone]["item"], "description": "小林住过成都"}}}
    [fresh] = mm.import_trash({**taken, "x1": {**entries[gone], "item": mm.get(kept).to_dict()}})
    assert fresh != kept and mm.list_trash()[0]["description"] == "小林住过成都"  # (the live one's twin: left out)
    mm.restore(fresh)
    assert mm.get(fresh).description == "小林住过成都" and mm.get(kept).description == "小林喜欢猫"
