"""Toasts (stacking, auto-dismiss, hover pause, de-duplication, actions) and writer-event toasts,
with the writer's events published from a worker thread as the real writer does."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QEnterEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget

from sonetto_desktop import ops
from sonetto_desktop.memory import EventFeed, MemoryChange
from sonetto_desktop.memory.writer.events import WriterEvent
from sonetto_desktop.ui.wall.memory_model import CardRole
from sonetto_desktop.ui.notices.toasts import ToastOverlay
from sonetto_desktop.memory.operations import MemoryOperations
from sonetto_desktop.ui.memory_service import MemoryService
from sonetto_desktop.ui.notices.writer_toasts import WriterToasts, toast_for
from sonetto_desktop.presentation.cards import DESCRIPTION, ID
from helpers import settle


@pytest.fixture
def window(qtbot):
    widget = QWidget()
    widget.resize(800, 600)
    qtbot.addWidget(widget)
    widget.show()
    return widget


async def test_toasts_stack_in_the_corner_and_dismiss_themselves(window, wait):
    overlay = ToastOverlay(window)
    first = overlay.show_toast("第一条", timeout_ms=80)
    second = overlay.show_toast("第二条", timeout_ms=0)  # stays until closed
    assert [t.text for t in overlay.toasts()] == ["第一条", "第二条"]
    assert overlay.isVisible()
    geometry = overlay.geometry()
    assert window.rect().contains(geometry)
    assert geometry.right() > window.width() - 40 and geometry.bottom() > window.height() - 40
    await wait(lambda: first.is_dismissed, message="auto-dismiss")
    assert [t.text for t in overlay.toasts()] == ["第二条"]
    second.close_button.click()
    assert overlay.toasts() == [] and not overlay.isVisible()


async def test_overlay_follows_window_resize(window):
    overlay = ToastOverlay(window)
    overlay.show_toast("提示", timeout_ms=0)
    window.resize(1000, 700)
    await settle()
    assert overlay.geometry().bottom() > 700 - 40 and overlay.geometry().right() > 1000 - 40


async def test_same_key_refreshes_instead_of_stacking(window):
    overlay = ToastOverlay(window)
    a = overlay.show_toast("更新了记忆", key="k", timeout_ms=0)
    b = overlay.show_toast("更新了记忆", key="k", timeout_ms=0)
    assert a is b and a.text == "更新了记忆  ×2" and len(overlay.toasts()) == 1
    overlay.show_toast("别的", key="other", timeout_ms=0)
    assert len(overlay.toasts()) == 2


async def test_oldest_goes_when_too_many(window):
    overlay = ToastOverlay(window, max_toasts=3)
    for i in range(5):
        overlay.show_toast(f"消息 {i}", timeout_ms=0)
    assert [t.text for t in overlay.toasts()] == ["消息 2", "消息 3", "消息 4"]


async def test_hover_pauses_the_countdown(window, wait):
    overlay = ToastOverlay(window)
    toast = overlay.show_toast("停一下", timeout_ms=150)
    local = QPointF(5, 5)
    QApplication.sendEvent(toast, QEnterEvent(local, toast.mapToGlobal(local), toast.mapToGlobal(local)))
    assert toast.paused
    # while hovered it outlives its timeout: wait for a later toast to time out first
    probe = overlay.show_toast("探针", timeout_ms=300)
    await wait(lambda: probe.is_dismissed)
    assert not toast.is_dismissed
    QApplication.sendEvent(toast, QEvent(QEvent.Type.Leave))
    assert not toast.paused
    await wait(lambda: toast.is_dismissed, message="resumed countdown")


async def test_action_and_click_callbacks(window, qtbot):
    overlay = ToastOverlay(window)
    calls: list[str] = []
    toast = overlay.show_toast("已删除", action_text="撤销", on_action=lambda: calls.append("undo"), timeout_ms=0)
    toast.action_button.click()
    assert calls == ["undo"] and toast.is_dismissed
    clickable = overlay.show_toast("记住了", on_click=lambda: calls.append("open"), timeout_ms=0)
    qtbot.mouseClick(clickable, Qt.MouseButton.LeftButton)
    assert calls == ["undo", "open"] and clickable.is_dismissed
    broken = overlay.show_toast("坏回调", on_click=lambda: 1 / 0, timeout_ms=0)
    qtbot.mouseClick(broken, Qt.MouseButton.LeftButton)  # logged, does not raise into Qt
    assert broken.is_dismissed
    with pytest.raises(ValueError):
        overlay.show_toast("x", kind="shout")


def _change(kind, ids=("a1",), description=None, actor="agent", **extra):
    states = {ids[0]: {"description": description, "theme": "品味", "hit": 0, "latest_update_time": ""}
              } if description is not None and kind != "delete" else {}
    if kind == "delete" and description is not None:
        extra["description"] = description
    return MemoryChange(kind, tuple(ids), actor, "", "t1", None, states, extra)


def test_writer_event_texts():
    assert toast_for(_change("add", description="喜欢爵士乐")).text == "记住了：喜欢爵士乐"
    long = toast_for(_change("add", description="很" * 100))
    assert long.text.endswith("…") and len(long.text) < 50
    assert toast_for(_change("update")).text == "更新了记忆"
    assert toast_for(_change("merge", ("a1", "b2"))).text == "合并了两条记忆"
    deleted = toast_for(_change("delete", description="旧地址"))
    assert deleted.text == "删除了过时的记忆：旧地址" and deleted.reveal_id is None
    assert toast_for(_change("add", description="别的应用写的", actor="mcp:Cherry Studio")).text == (
        "Cherry Studio（其他应用）· 记住了：别的应用写的")  # which app, by the name it gave
    failed = toast_for(WriterEvent("failed", detail="连接超时"))
    assert (failed.kind, failed.text, failed.key) == ("error", "整理记忆失败：连接超时", "writer-error")
    assert toast_for(_change("add", description="我自己加的", actor="user")) is None  # the person's own edits
    assert toast_for(_change("hit")) is None
    for quiet in ("queued", "started", "done", "status"):
        assert toast_for(WriterEvent(quiet)) is None


class _Services:
    """What WriterToasts follows through the app's feed: the change channel and the writer's events."""

    def __init__(self, store, feed):
        self._store, self._feed = store, feed
        self.memory = MemoryOperations(store)

    async def run(self, op):
        return await ops.run(op, self.memory)

    def subscribe_events(self, callback):
        unsubscribers = [self._store.subscribe(callback), self._feed.subscribe(callback)]
        return lambda: [unsubscribe() for unsubscribe in unsubscribers]


async def test_writer_change_from_a_worker_thread_becomes_a_toast_that_reveals(wall, populated_store, wait):
    await wall.reload()
    feed: EventFeed[WriterEvent] = EventFeed()
    service = MemoryService(_Services(populated_store, feed), wall)
    writer_toasts = WriterToasts(wall.toasts, service, reveal=wall.reveal, parent=wall)
    revealed: list[str] = []
    wall.card_revealed.connect(revealed.append)

    def writer() -> None:  # what the memory writer does on its thread
        memory_id = populated_store.add("喜欢爵士乐", "品味", actor="agent", reason="用户提到")
        populated_store.hit(memory_id, actor="agent")
        feed.publish(WriterEvent("failed", detail="模型没有回应"))
        feed.publish(WriterEvent("failed", detail="模型没有回应"))

    worker = threading.Thread(target=writer)
    worker.start()
    worker.join()
    await wait(lambda: len(wall.toasts.toasts()) == 2, message="one create toast, one error toast")
    created, error = wall.toasts.toasts()
    assert created.text == "记住了：喜欢爵士乐" and created.kind == "success"
    assert error.kind == "error" and error.text.endswith("×2")  # repeated failures de-duplicated
    feed.publish(WriterEvent("failed", detail="模型没有回应", attempt=2))
    feed.publish(WriterEvent("failed", detail="模型没有回应", attempt=3))
    await wait(lambda: error.text.startswith("整理记忆第 3 次失败"), message="the attempt's own words")
    assert error.text == "整理记忆第 3 次失败：模型没有回应"  # the number says it: no "×N" beside it
    # the change carried the card: it is on the wall when the toast shows, no store read needed
    assert any(c[DESCRIPTION] == "喜欢爵士乐" for c in wall.model.cards())
    QTest.mouseClick(created, Qt.MouseButton.LeftButton)  # click -> the card
    memory_id = next(c[ID] for c in wall.model.cards() if c[DESCRIPTION] == "喜欢爵士乐")
    assert revealed == [memory_id]
    assert wall.section("品味").view.currentIndex().data(CardRole.Id) == memory_id
    writer_toasts.close()  # no more toasts from the feed…
    feed.publish(WriterEvent("failed", detail="关闭之后"))
    await service.drain()
    await settle()
    assert not any("关闭之后" in t.text for t in wall.toasts.toasts())
    service.close()  # …and the service's own feed lets go of the sources
    assert len(feed) == 0


async def test_a_very_long_message_is_cut_and_the_toast_stays_small(window):
    overlay = ToastOverlay(window)
    detail = "记忆库文件第 3 行解析失败：" + "x" * 5000
    toast = overlay.show_toast(detail, kind="error", timeout_ms=0)
    assert len(toast.text) <= 240 and toast.text.endswith("…")
    assert toast._label.toolTip() == detail  # the whole message is still there
    assert overlay.height() < window.height() // 2
    toast.dismiss()


def _english_table() -> dict:
    import yaml
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "resources" / "translations" / "sonetto_en.yaml"
    return yaml.safe_load(path.read_text(encoding="utf-8"))


async def test_toasts_on_screen_reword_themselves_when_the_language_is_switched(wall, populated_store, qapp, wait):
    """A person switches to English while toasts show: the writer's turn (撤销), the writer's failure, a
    card deleted on the wall (撤销), an operation that failed: each says itself in English, buttons too;
    and back in Chinese after a switch back."""
    from sonetto_desktop.memory.changes import Turn
    from sonetto_desktop.ui.i18n import install_translators, remove_translators

    en = _english_table()
    await wall.reload()
    feed: EventFeed[WriterEvent] = EventFeed()
    service = MemoryService(_Services(populated_store, feed), wall)
    writer_toasts = WriterToasts(wall.toasts, service, reveal=wall.reveal, parent=wall)
    populated_store.add("喜欢爵士乐", "品味", actor="agent", reason="用户提到", turn=Turn("turn-1"))
    feed.publish(WriterEvent("failed", detail="模型没有回应", attempt=2, zh="模型没有回应", en="the model did not answer"))
    gone = populated_store.ids[next(iter(populated_store.ids))]
    await wall.actions.delete_cards([gone])
    await wall.service.submit(ops.DeleteMemory("no-such-memory"))  # fails: said by the wall's toast
    await wait(lambda: len(wall.toasts.toasts()) == 4, message="four toasts")
    texts = lambda: {t.key.split(":")[0]: (t.text, t.action_button.text() if t.action_button else None)  # noqa: E731
                     for t in wall.toasts.toasts()}
    chinese = texts()
    assert chinese["turn"] == ("记住了：喜欢爵士乐", "撤销")
    assert chinese["writer-error"] == ("整理记忆第 2 次失败：模型没有回应", None)
    assert chinese["deleted"][1] == "撤销" and chinese["deleted"][0].startswith("已删除：")
    assert chinese["operation-failed"] == ("找不到这条记忆，它可能已被删除或移动。", None)
    closes = [t.close_button for t in wall.toasts.toasts()]

    translators = install_translators(qapp, "en")
    try:
        await settle()
        english = texts()
        assert english["turn"] == (en["WriterToasts"]["记住了：{0}"].format("喜欢爵士乐"), en["WriterToasts"]["撤销"])
        assert english["writer-error"] == (
            en["WriterToasts"]["整理记忆第 {0} 次失败：{1}"].format(2, "the model did not answer"), None)
        assert english["deleted"] == (en["MemoryWall"]["已删除：{0}"].format(chinese["deleted"][0][4:]),
                                      en["MemoryWall"]["撤销"])
        assert english["operation-failed"] == (en["OperationErrors"]["找不到这条记忆，它可能已被删除或移动。"], None)
        assert {b.toolTip() for b in closes} == {en["Toast"]["关闭"]}
    finally:
        remove_translators(qapp, translators)
    await settle()
    assert texts() == chinese  # and back
    writer_toasts.close()
    await service.drain()
    service.close()


def _overflowing_lines(label) -> list[str]:
    """The lines of ``label``'s text, laid out as a word-wrapped label lays them out, that are wider than the
    label (drawn cut at its edge, with nothing to say so) or below its bottom."""
    from PySide6.QtGui import QTextLayout, QTextOption

    width = label.contentsRect().width()
    layout = QTextLayout(label.text(), label.font())
    option = QTextOption()
    option.setWrapMode(QTextOption.WrapMode.WordWrap)
    layout.setTextOption(option)
    layout.beginLayout()
    wide, y = [], 0.0
    while (line := layout.createLine()).isValid():
        line.setLineWidth(width)
        y += line.height()
        if line.naturalTextWidth() > width or y > label.contentsRect().height() + 1:
            wide.append(label.text()[line.textStart():line.textStart() + line.textLength()])
    layout.endLayout()
    return wide


@pytest.mark.parametrize("size", [(900, 600), (1920, 1080)])
@pytest.mark.parametrize("language", ["zh_CN", "en"])
async def test_a_long_unbroken_name_in_a_toast_is_cut_with_an_ellipsis_not_at_the_edge(qtbot, qapp, language, size):
    """An export to a file named with 80 characters and no space, a memory holding a long address: the toast
    showed the name running out of its right edge, cut with nothing to say so. The name is cut in its middle
    with "…" (its beginning and its end stay), the toast's tooltip has it whole, in both languages."""
    from PySide6.QtCore import QCoreApplication

    from sonetto_desktop.ui.i18n import install_translators, remove_translators

    name = "sonetto_memories_backup_" + "abcdefghij" * 5 + "_final.yaml"
    address = "https://example.com/s/" + "AbCdEfGhIj" * 6 + "?from=share"  # (a line may break after a / or ?)
    translators = install_translators(qapp, language)
    try:
        window = QWidget()
        window.resize(*size)
        qtbot.addWidget(window)
        window.show()
        overlay = ToastOverlay(window)
        export = overlay.show_toast(lambda: QCoreApplication.translate(
            "TransferActions", "已导出 %Ln 条记忆到 {0}", "", 3303).format(name), timeout_ms=0)
        remembered = overlay.show_toast(f"记住了：资料在 {address} 里", timeout_ms=0)
        both = overlay.show_toast(lambda: QCoreApplication.translate(
            "TransferActions", "已导出 %Ln 条记忆到 {0}", "", 1).format(name) + QCoreApplication.translate(
            "TransferActions", "；回收站里的 %Ln 条在旁边的 {0} 里，导入时会回到回收站", "", 1).format(
            name.replace(".yaml", ".trash.yaml")), timeout_ms=0)
        await settle()
        for toast, whole in ((export, name), (remembered, address), (both, name)):
            label = toast._label
            assert label.width() > 0 and not _overflowing_lines(label), (label.text(), label.width())
            shown = label.text().replace("\u2060", "")  # (word joiners keep the cut name on one line)
            assert "…" in shown and shown.split("…")[0][-5:] in whole  # its beginning, then …
            assert whole[-5:] in shown.split("…")[1]  # ... and its end
            assert whole in label.toolTip()
            assert toast.geometry().right() <= overlay.width() and overlay.geometry().right() <= window.width()
    finally:
        remove_translators(qapp, translators)


async def test_an_imports_notice_counts_the_whole_import_though_it_went_between_two_batches(wall, populated_store,
                                                                                           wait):
    """The notice of an import's changes ("导入（ChatGPT）：新增 N 条记忆") went after a few quiet seconds
    between two batches and came back counting from 1, beside a progress counting the whole import
    (新记忆 2 beside 新增 1). It counts the import's changes since it began; another import starts anew."""
    from sonetto_desktop.memory.changes import Turn

    await wall.reload()
    feed: EventFeed[WriterEvent] = EventFeed()
    service = MemoryService(_Services(populated_store, feed), wall)
    writer_toasts = WriterToasts(wall.toasts, service, reveal=wall.reveal, parent=wall)
    notice = lambda: [t for t in wall.toasts.toasts() if t.key == "elsewhere:import:chatgpt"]  # noqa: E731

    def write(text: str, turn: str) -> None:  # what an import's writer does, on its thread
        worker = threading.Thread(target=lambda: populated_store.add(
            text, "旅行", actor="import:chatgpt", reason="导入", turn=Turn(turn)))
        worker.start()
        worker.join()

    write("去过京都", "imp-aaaa1111-000000")
    await wait(lambda: notice() and notice()[0].text == "导入（ChatGPT）：新增 1 条记忆", message="the notice")
    notice()[0].dismiss()  # (its time ran out while the next batch was written)
    write("在学日语", "imp-aaaa1111-000001")
    await wait(lambda: notice() and notice()[0].text == "导入（ChatGPT）：新增 2 条记忆", message="the import's 2")
    notice()[0].dismiss()
    write("想去大阪", "imp-bbbb2222-000000")  # another import of the same app: its own count
    await wait(lambda: notice() and notice()[0].text == "导入（ChatGPT）：新增 1 条记忆", message="a new import's 1")
    writer_toasts.close()
    await service.drain()
    service.close()
