"""QtEventBridge, MemoryService and MemoryCardModel against real stores (YAML and SQLite)."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import QObject, Qt

from service_fixtures import memory_service_over
from sonetto_desktop import ops
from sonetto_desktop.memory import EventFeed, MemoryChange, MemoryItem, YamlMemoryManager
from sonetto_desktop.ui.wall.memory_model import CardRole, MemoryCardModel
from sonetto_desktop.ui.wall.theme_card_list import ThemeCardList
from sonetto_desktop.ui.memory_service import MemoryService
from sonetto_desktop.ui.qt_bridge import QtEventBridge
from sonetto_desktop.presentation.cards import DESCRIPTION, ID, THEME


@pytest.fixture
def svc(store, qapp):
    yield from memory_service_over(store)


async def test_bridge_delivers_worker_events_on_the_gui_thread(qapp, wait):
    feed: EventFeed[str] = EventFeed()
    bridge = QtEventBridge(feed.subscribe)
    got: list[tuple[str, int]] = []
    # Direct: the receiver runs wherever ``event`` is emitted, so this checks the bridge's own hop.
    bridge.event.connect(lambda e: got.append((e, threading.get_ident())), Qt.ConnectionType.DirectConnection)
    worker = threading.Thread(target=lambda: [feed.publish(f"e{i}") for i in range(5)])
    worker.start()
    worker.join()
    assert got == []  # queued, not called on the worker thread
    await wait(lambda: len(got) == 5)
    assert [e for e, _ in got] == ["e0", "e1", "e2", "e3", "e4"]  # in order
    assert {ident for _, ident in got} == {threading.get_ident()}
    bridge.close()
    feed.publish("late")
    assert len(feed) == 0
    bridge.deleteLater()


async def test_bridge_unsubscribes_when_destroyed(qapp, wait):
    feed: EventFeed[str] = EventFeed()
    parent = QObject()
    QtEventBridge(feed.subscribe, parent)
    assert len(feed) == 1
    parent.deleteLater()
    await wait(lambda: len(feed) == 0, message="bridge destroyed with its parent")
    feed.publish("nobody listens")  # must not crash


async def test_operations_record_user_and_reason_and_run_off_the_gui_thread(svc, store, wait):
    writers: list[int] = []
    store.subscribe(lambda change: writers.append(threading.get_ident()))
    changes: list[MemoryChange] = []
    svc.memory_changed.connect(changes.append)

    a = await svc.submit(ops.AddMemory("喜欢爬山", "爱好"))
    b = await svc.submit(ops.AddMemory("周末常去香山", "爱好", "用户提到"))
    assert await svc.submit(ops.EditMemory(a, "喜欢爬山和徒步", None, "补充")) is True
    assert await svc.submit(ops.EditMemory(a, "喜欢爬山和徒步", "爱好", "")) is False  # nothing changed, nothing written
    await svc.submit(ops.MoveMemory(b, "运动"))
    assert store.get(b).history[-1]["reason"] == "拖动到「运动」"
    await svc.submit(ops.MergeMemories(a, b, "喜欢爬山徒步，周末常去香山", "运动", "重复"))
    await svc.submit(ops.RevertMemory(a, 1, "改回去"))
    deleted = await svc.submit(ops.DeleteMemory(a, "不再准确"))
    assert deleted
    assert await svc.submit(ops.RestoreMemory(a)) == a
    await svc.submit(ops.DeleteMemory(a))
    assert await svc.submit(ops.PurgeTrash()) == 2  # a and the merged-away b

    assert all(ident != threading.get_ident() for ident in writers)  # every write in a worker
    assert store.list_trash() == []
    await wait(lambda: len(changes) == len(writers))
    assert [c.kind for c in changes] == [
        "add", "add", "update", "update", "merge", "revert", "delete", "restore", "delete", "purge"
    ]
    assert all(c.actor == "user" for c in changes)


async def test_revert_and_merge_history_through_the_service(svc, store):
    memory_id = await svc.submit(ops.AddMemory("住在北京", "生活"))
    await svc.submit(ops.EditMemory(memory_id, "住在上海", None, "搬家了"))
    await svc.submit(ops.RevertMemory(memory_id, 0, "搬回来了"))
    item = store.get(memory_id)
    assert item.description == "住在北京"
    assert item.history[-1]["action"] == "revert" and item.history[-1]["actor"] == "user"
    assert item.history[-1]["reason"] == "搬回来了"


async def test_failures_are_reported_not_raised_and_lose_nothing(svc, store, wait):
    failures: list[str] = []
    svc.operation_failed.connect(failures.append)
    memory_id = await svc.submit(ops.AddMemory("喝茶", "品味"))
    before = store.get(memory_id).to_dict()
    assert await svc.submit(ops.EditMemory("missing1", "x", None, "r")) is None
    assert await svc.submit(ops.EditMemory(memory_id, "   ", None, "r")) is None
    assert await svc.submit(ops.MergeMemories(memory_id, memory_id, "x", "y", "r")) is None
    assert await svc.submit(ops.RevertMemory(memory_id, 99, "r")) is None
    assert await svc.submit(ops.RestoreMemory("missing1")) is None
    assert await svc.submit(ops.AddMemory("", "品味")) is None
    assert len(failures) == 6
    assert failures[0].startswith("找不到这条记忆")
    assert all(msg.startswith("输入无效") for msg in failures[1:4] + failures[5:])
    assert store.get(memory_id).to_dict() == before
    assert store.count() == 1


async def test_corrupt_store_is_reported_and_left_untouched(tmp_path, qapp):
    path = tmp_path / "memory.yaml"
    path.write_text("a: [unclosed\n  b: {{\n", encoding="utf-8")
    original = path.read_bytes()
    manager = YamlMemoryManager(path)
    service = MemoryService(manager)
    failures: list[str] = []
    service.operation_failed.connect(failures.append)
    try:
        assert await service.submit(ops.AddMemory("新的记忆", "测试")) is None
        assert await service.submit(ops.Snapshot()) is None
        assert failures and failures[0].startswith("记忆库文件无法读取")
        assert path.read_bytes() == original
    finally:
        service.close()
        service.deleteLater()
        manager.close()


async def test_tasks_can_be_forgotten_and_drained(svc, store):
    tasks = [svc.submit(ops.AddMemory(f"记忆 {i}", "批量")) for i in range(10)]
    assert svc.pending == 10
    await svc.drain()
    assert svc.pending == 0
    assert all(t.done() for t in tasks)
    assert store.count() == 10


# ── the model: only what changed ──────────────────────────────────────


class Recorder:
    def __init__(self, model):
        self.events: list[tuple[str, object]] = []
        model.rowsInserted.connect(lambda p, a, b: self.events.append(("insert", (a, b))))
        model.rowsRemoved.connect(lambda p, a, b: self.events.append(("remove", (a, b))))
        model.dataChanged.connect(lambda tl, br, roles=(): self.events.append(("changed", (tl.row(), br.row()))))
        model.modelReset.connect(lambda: self.events.append(("reset", None)))


async def test_model_refreshes_only_the_changed_rows(svc, store, wait):
    ids = [store.add(f"记忆 {i}", "甲" if i % 2 else "乙") for i in range(6)]
    model = MemoryCardModel(svc)
    await model.reload()
    assert model.rowCount() == 6 and model.theme_counts() == {"甲": 3, "乙": 3}
    rec = Recorder(model)
    themes_changed: list[bool] = []
    model.themes_changed.connect(lambda: themes_changed.append(True))

    row = model.row_of(ids[2])
    store.update(ids[2], "改", new_description="改过的记忆 2")
    await wait(lambda: model.card(ids[2])[DESCRIPTION] == "改过的记忆 2")
    assert set(rec.events) == {("changed", (row, row))}  # that row only (and its glow), no reset
    index = model.index(row, 0)
    assert index.data(CardRole.Description) == "改过的记忆 2"
    assert index.data(CardRole.Theme) == "乙" and index.data(CardRole.Hit) == 0
    assert index.data(CardRole.RelativeTime) == "刚刚"
    assert index.data(CardRole.Flash) > 0

    rec.events.clear()
    new_id = store.add("新主题的记忆", "丙")
    await wait(lambda: model.card(new_id) is not None)
    assert rec.events[0] == ("insert", (6, 6)) and themes_changed == [True]

    rec.events.clear()
    store.delete(ids[0])
    await wait(lambda: model.card(ids[0]) is None)
    assert [e[0] for e in rec.events if e[0] != "changed"] == ["remove"]
    assert model.rowCount() == 6
    assert all(model.row_of(mid) == r for r, mid in enumerate(c[ID] for c in model.cards()))


async def test_model_stays_consistent_under_bursts_from_threads(svc, store, wait):
    model = MemoryCardModel(svc)
    await model.reload()

    def burst(tag: str) -> None:
        for i in range(15):
            memory_id = store.add(f"{tag} {i}", tag)
            store.update(memory_id, "改", new_description=f"{tag} {i} 改")
            if i % 3 == 0:
                store.delete(memory_id)

    threads = [threading.Thread(target=burst, args=(tag,)) for tag in ("甲", "乙", "丙")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    expected = {mid: (item.description, item.theme) for mid, item in store.all_items().items()}
    await wait(lambda: {c[ID]: (c[DESCRIPTION], c[THEME]) for c in model.cards()} == expected, timeout=10)
    await model.settle()
    assert model.theme_counts() == {"甲": 10, "乙": 10, "丙": 10}


async def test_theme_proxy_filters_and_sorts(qapp):
    model = MemoryCardModel()
    model.set_snapshot({
        "a": MemoryItem("Likes Green Tea", "品味", latest_update_time="2026-01-01T00:00:00", hit=1),
        "b": MemoryItem("喜欢绿茶和抹茶", "品味", latest_update_time="2026-03-01T00:00:00", hit=0),
        "c": MemoryItem("绿茶过敏的同事", "工作", latest_update_time="2026-05-01T00:00:00", hit=5),
    })
    proxy = ThemeCardList(model, "品味")
    assert proxy.ids() == ["b", "a"]
    proxy.set_sort_mode("hits")
    assert proxy.ids() == ["a", "b"]
    proxy.set_search("green")
    assert proxy.ids() == ["a"]
    proxy.set_search("绿茶")
    assert proxy.ids() == ["b"]
    proxy.set_search("")
    model.apply_items({"c": MemoryItem("绿茶过敏的同事", "品味", latest_update_time="2026-05-01T00:00:00", hit=5)})
    assert proxy.ids() == ["c", "a", "b"]  # moved into this theme, sorted in place
    model.apply_items({"a": None})
    assert proxy.ids() == ["c", "b"]
    assert proxy.index_of("a").isValid() is False
    with pytest.raises(ValueError):
        proxy.set_sort_mode("random")


async def test_a_removed_card_moves_no_other_row_but_the_last(qapp):
    """A card leaving the model (deleted, merged away) gives its row to the last card instead of
    shifting every card after it by one: at 100,000 memories that shift was a Python loop over up to
    100,000 cards on the Qt thread at every delete (issue 37, ``bench/ui_interactions.py``). The
    sections, which sort by themselves, show the same cards as before."""
    model = MemoryCardModel()
    model.set_snapshot({f"m{i:03d}": MemoryItem(f"第 {i} 条", "甲乙"[i % 2], latest_update_time=f"2026-01-{i % 28 + 1:02d}T00:00:00")
                        for i in range(200)})
    proxy = ThemeCardList(model, "甲")
    before = {c[ID]: model.row_of(c[ID]) for c in model.cards()}
    shown = proxy.ids()
    removed: list[tuple[int, int]] = []
    model.rowsRemoved.connect(lambda _parent, first, last: removed.append((first, last)))
    model.apply_items({"m010": None})
    after = {c[ID]: model.row_of(c[ID]) for c in model.cards()}
    moved = {mid for mid, row in after.items() if row != before[mid]}
    assert moved == {"m199"} and after["m199"] == 10  # the last card took the gone one's row
    assert removed == [(199, 199)] and model.rowCount() == 199
    assert all(model.card(mid)[ID] == mid and model.index(row, 0).data(CardRole.Id) == mid for mid, row in after.items())
    assert proxy.ids() == [mid for mid in shown if mid != "m010"]
    model.apply_items({"m199": None, "m000": None})  # the last card itself, then the first
    assert model.rowCount() == 197 and sorted(c[ID] for c in model.cards()) == sorted(set(before) - {"m010", "m199", "m000"})
    assert all(model.row_of(c[ID]) == row for row, c in enumerate(model.cards()))
