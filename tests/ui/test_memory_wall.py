"""The card wall over a real store: rendering, drag and drop, merge, edit, delete + undo, search,
sort, reveal, context menu and live updates from another thread."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta

import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent, QGuiApplication
from PySide6.QtWidgets import QApplication

from sonetto_desktop import ops
from sonetto_desktop.memory import MemoryItem
from sonetto_desktop.ui.dialogs.edit import EditDialog
from sonetto_desktop.ui.dialogs.history import HistoryDialog
from sonetto_desktop.ui.wall.memory_model import MIME_IDS, CardRole, decode_ids, encode_ids
from sonetto_desktop.ui.dialogs.merge import MergeDialog, merged_text
from sonetto_desktop.presentation.relative_time import relative_time
from sonetto_desktop.presentation.cards import HIT, THEME


def card_texts(wall, theme):
    section = wall.section(theme)
    return [section.proxy.index(r, 0).data(CardRole.Description) for r in range(section.proxy.rowCount())]


def card_center(wall, memory_id):
    card = wall.model.card(memory_id)
    view = wall.section(card[THEME]).view
    view.doItemsLayout()
    return view, view.visualRect(wall.section(card[THEME]).proxy.index_of(memory_id)).center()


def merge_point(wall, memory_id):
    """The centre of the card's merge zone (where a drop merges instead of moving)."""
    from sonetto_desktop.ui.wall.card_delegate import merge_zone

    card = wall.model.card(memory_id)
    view = wall.section(card[THEME]).view
    view.doItemsLayout()
    rect = view.visualRect(wall.section(card[THEME]).proxy.index_of(memory_id))
    return view, merge_zone(rect, view.density).center().toPoint()


def drop_on(view, pos: QPoint, mime: QMimeData) -> tuple[bool, Qt.DropAction]:
    """A real drag-enter, drag-move and drop on the view's viewport; returns (accepted, drop action)."""
    actions = Qt.DropAction.CopyAction | Qt.DropAction.MoveAction
    for kind in (QDragEnterEvent, QDragMoveEvent):
        entered = kind(pos, actions, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
        QApplication.sendEvent(view.viewport(), entered)
        assert entered.isAccepted(), f"{kind.__name__} refused"
    event = QDropEvent(
        QPointF(pos), Qt.DropAction.CopyAction | Qt.DropAction.MoveAction, mime,
        Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(view.viewport(), event)
    return event.isAccepted(), event.dropAction()


async def test_wall_renders_sections_counts_and_cards(wall, populated_store):
    await wall.reload()
    assert [s.theme for s in wall.visible_sections()] == ["品味", "工作", "家人"]  # most cards first
    assert wall.section("品味").count_label.text() == "3"
    assert wall.section("家人").count_label.text() == "1"
    assert sorted(card_texts(wall, "工作")) == sorted(["在一家做机器人的公司当后端工程师", "正在用 Rust 重写调度服务"])
    assert wall.count_label.text() == "6 条"
    assert wall.empty_label.isHidden()
    # widgets hold nothing of their own: every card comes from the store's ids
    shown = {mid for s in wall.sections().values() for mid in s.proxy.ids()}
    assert shown == set(populated_store.all_items())


async def test_empty_store_shows_hint(service, qtbot, populated_store):
    from sonetto_desktop.ui.wall.memory_wall import MemoryWall

    for memory_id in list(populated_store.all_items()):
        populated_store.delete(memory_id)
    wall = MemoryWall(service)
    qtbot.addWidget(wall)
    wall.show()
    await wall.reload()
    assert wall.sections() == {}
    assert not wall.empty_label.isHidden()
    assert "还没有记忆" in wall.empty_label.text()


async def test_drop_on_other_theme_moves_card_with_reason(wall, populated_store, wait):
    await wall.reload()
    cat = populated_store.ids["有一只叫年糕的橘猫"]
    tasks = wall.handle_drop(encode_ids([cat]), "品味")
    for task in tasks:
        await task
    item = populated_store.get(cat)
    assert item.theme == "品味"
    assert item.history[-1]["reason"] == "拖动到「品味」"
    assert item.history[-1]["actor"] == "user"
    await wait(lambda: cat in wall.section("品味").proxy.ids(), message="card in its new section")
    assert wall.section("家人") is None  # the theme emptied, its section went away


async def test_real_drop_event_on_empty_area_moves(wall, populated_store, wait):
    await wall.reload()
    coffee = populated_store.ids["喜欢手冲咖啡，不加糖"]
    view = wall.section("家人").view
    source = wall.section("品味")
    mime = source.view.model().mimeData([source.proxy.index_of(coffee)])  # what a drag carries
    assert mime.formats() == [MIME_IDS, "text/plain"] and decode_ids(mime) == [coffee]
    accepted, action = drop_on(view, QPoint(view.viewport().width() - 5, 5), mime)
    assert accepted
    assert action == Qt.DropAction.CopyAction  # Qt must not remove rows itself
    await wait(lambda: populated_store.get(coffee).theme == "家人", message="store updated")
    await wait(lambda: coffee in wall.section("家人").proxy.ids())
    assert wall.section("品味").count_label.text() == "2"


async def test_drop_card_on_card_opens_prefilled_merge_and_merges(wall, populated_store, wait):
    await wall.reload()
    keep = populated_store.ids["喜欢手冲咖啡，不加糖"]
    gone = populated_store.ids["讨厌香菜"]
    view, point = merge_point(wall, keep)
    mime = encode_ids([gone])
    drop_on(view, point, mime)
    dialog = wall.actions.active_dialog
    assert isinstance(dialog, MergeDialog)
    assert dialog.values()[:2] == (keep, gone)
    assert dialog.description_edit.toPlainText() == "喜欢手冲咖啡，不加糖；讨厌香菜"
    assert dialog.theme_edit.text() == "品味"
    dialog.description_edit.setPlainText("喜欢不加糖的手冲咖啡，讨厌香菜")
    dialog.accept()
    await wall.service.drain()
    assert populated_store.get(keep).description == "喜欢不加糖的手冲咖啡，讨厌香菜"
    assert gone in {row["id"] for row in populated_store.list_trash()}
    await wait(lambda: wall.model.card(gone) is None and "喜欢不加糖的手冲咖啡，讨厌香菜" in card_texts(wall, "品味"))


async def test_a_merge_needs_no_reason_and_its_history_reads_in_either_language(wall, populated_store, wait, english):
    """The reason of a merge is optional, as an edit's is: emptied, 确定 stays enabled (it was greyed
    out without a word why). Left alone, the history keeps the app's own reason, shown in the language
    of whoever reads it (the English window stored its own words, which the Chinese one showed in
    English, and the other way round)."""
    from PySide6.QtWidgets import QDialogButtonBox

    from sonetto_desktop.presentation.reasons import render_reason

    await wall.reload()
    keep = populated_store.ids["喜欢手冲咖啡，不加糖"]
    gone = populated_store.ids["讨厌香菜"]
    dialog = wall.actions.merge_cards(keep, gone)
    ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
    dialog.reason_edit.setText("重复了")
    dialog.reason_edit.clear()
    assert ok.isEnabled()
    dialog.accept()
    await wait(lambda: gone in {row["id"] for row in populated_store.list_trash()}, message="merged")
    reason = populated_store.get(keep).history[-1]["reason"]
    assert (render_reason(reason, "zh_CN"), render_reason(reason, "en")) == ("手动合并", "Merged by hand")


def test_merged_text_joins_sentences():
    assert merged_text("喜欢猫", "有一只橘猫") == "喜欢猫；有一只橘猫"
    assert merged_text("喜欢猫。", "有一只橘猫") == "喜欢猫。有一只橘猫"
    assert merged_text("喜欢猫", "  ") == "喜欢猫"


async def test_drop_of_foreign_or_bad_data_does_nothing(wall, populated_store):
    await wall.reload()
    before = {mid: item.to_dict() for mid, item in populated_store.all_items().items()}
    text_only = QMimeData()
    text_only.setText("hello")
    assert wall.handle_drop(text_only, "工作") is None
    broken = QMimeData()
    broken.setData(MIME_IDS, b"\xff{not json")
    assert decode_ids(broken) == []
    assert wall.handle_drop(encode_ids(["no-such-id"]), "工作") is None
    await wall.service.drain()
    assert {mid: item.to_dict() for mid, item in populated_store.all_items().items()} == before


async def test_double_click_opens_edit_and_edit_updates_card(wall, populated_store, qtbot, wait):
    await wall.reload()
    rust = populated_store.ids["正在用 Rust 重写调度服务"]
    activated = []
    wall.card_activated.connect(activated.append)
    view, center = card_center(wall, rust)
    # a real double click is press, release, then press + double-click
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=center)
    qtbot.mouseDClick(view.viewport(), Qt.MouseButton.LeftButton, pos=center)
    assert activated == [rust]
    dialog = wall.actions.active_dialog
    assert isinstance(dialog, EditDialog)
    assert dialog.values()[:2] == ("正在用 Rust 重写调度服务", "工作")
    ok = dialog.buttons.buttons()[0]
    assert not ok.isEnabled()  # nothing changed yet
    dialog.description_edit.setPlainText("用 Rust 重写完了调度服务")
    dialog.theme_edit.setText("项目")
    dialog.reason_edit.setText("用户说已经完成")
    dialog.accept()
    await wall.service.drain()
    item = populated_store.get(rust)
    assert (item.description, item.theme) == ("用 Rust 重写完了调度服务", "项目")
    assert item.history[-1]["reason"] == "用户说已经完成"
    await wait(lambda: wall.section("项目") is not None and card_texts(wall, "项目") == ["用 Rust 重写完了调度服务"])
    assert wall.model.flash_level(rust) > 0  # a changed card glows


async def test_edit_dialog_refuses_empty_text(qtbot):
    dialog = EditDialog(description="原来的", theme="品味", themes=["品味", "工作"])
    qtbot.addWidget(dialog)
    dialog.description_edit.setPlainText("   ")
    dialog.accept()
    assert dialog.result() == 0 and dialog.hint.text() == "内容不能为空。"
    assert dialog.theme_edit.completer().model().rowCount() == 2


async def test_add_card_through_dialog_reveals_it(wall, populated_store, wait):
    await wall.reload()
    dialog = wall.actions.add_card()
    dialog.description_edit.setPlainText("周末在学做陶艺")
    dialog.theme_edit.setText("爱好")
    dialog.accept()
    await wait(lambda: wall.section("爱好") is not None, message="new section")
    new_id = wall.section("爱好").proxy.ids()[0]
    assert populated_store.get(new_id).description == "周末在学做陶艺"
    await wait(lambda: wall.section("爱好").view.currentIndex().data(CardRole.Id) == new_id)


async def test_a_card_added_while_a_filter_hides_it_is_shown_anyway(wall, populated_store, wait):
    """With 「Sonetto 写的」 on, the card the person just added is theirs: the filter hid it, the wall
    showed no sign of it, and the add looked as if it had failed (a second one followed). It is
    revealed as a search-hidden card is: the filter ends."""
    await wall.reload()
    wall.set_filter("agent")
    await wait(lambda: not wall.loading())
    dialog = wall.actions.add_card()
    dialog.description_edit.setPlainText("周末在学做陶艺")
    dialog.theme_edit.setText("爱好")
    dialog.accept()
    await wait(lambda: wall.model.rowCount() == 7, message="added")
    await wait(lambda: wall.section("爱好") is not None and wall.visible_ids("爱好") != [],
               message=lambda: f"filter {wall.filter_name()}, shown {wall.visible_ids('爱好')}")
    new_id = wall.visible_ids("爱好")[0]
    assert wall.filter_name() == "all"
    await wait(lambda: wall.section("爱好").view.currentIndex().data(CardRole.Id) == new_id)


async def test_delete_key_then_undo_toast(wall, populated_store, qtbot, wait):
    await wall.reload()
    cat = populated_store.ids["有一只叫年糕的橘猫"]
    view = wall.section("家人").view
    view.setCurrentIndex(wall.section("家人").proxy.index_of(cat))
    qtbot.keyClick(view, Qt.Key.Key_Delete)
    await wait(lambda: wall.toasts.toasts(), message="undo toast")
    toast = wall.toasts.toasts()[-1]
    assert toast.text.startswith("已删除：有一只叫年糕的橘猫")
    assert cat not in populated_store.all_items()
    assert [row["id"] for row in populated_store.list_trash()] == [cat]
    await wait(lambda: wall.section("家人") is None)
    toast.action_button.click()  # 撤销
    await wall.service.drain()
    assert populated_store.get(cat).description == "有一只叫年糕的橘猫"
    await wait(lambda: wall.section("家人") is not None and wall.section("家人").proxy.ids() == [cat])
    last = populated_store.get(cat).history[-1]  # the history says what the person did: 撤销 in a toast,
    assert (last["action"], last["actor"], last["reason"]) == ("restore", "user", "从提示里撤销")  # as for several


async def test_search_is_debounced_and_filters(wall, populated_store, qtbot, wait):
    await wall.reload()
    wall.search_edit.insert("咖啡")  # as typed (QTest cannot type CJK)
    # typing alone filters nothing: the debounce timer has not fired yet
    assert len(wall.visible_sections()) == 3
    await wait(lambda: len(wall.visible_sections()) == 1, message="debounced filter")
    assert wall.visible_sections()[0].theme == "品味"
    assert card_texts(wall, "品味") == ["喜欢手冲咖啡，不加糖"]
    assert wall.section("品味").count_label.text() == "1 / 3"
    assert wall.count_label.text() == "1 / 6 条"
    wall.set_search("RUST 调度")  # case-insensitive, every word must match
    assert card_texts(wall, "工作") == ["正在用 Rust 重写调度服务"]
    wall.set_search("没有这种东西")
    assert wall.visible_sections() == [] and "没有和「没有这种东西」匹配的记忆" in wall.empty_label.text()
    wall.set_search("")
    assert len(wall.visible_sections()) == 3


async def test_sort_by_hits_and_recent(wall, populated_store, wait):
    populated_store.import_items({
        "old00001": MemoryItem("旧的", "排序", latest_update_time="2025-01-01T00:00:00"),
        "new00001": MemoryItem("新的", "排序", latest_update_time="2026-06-01T00:00:00"),
        "used0001": MemoryItem("常用", "排序", latest_update_time="2024-01-01T00:00:00", hit=9),
    })
    await wall.reload()
    assert wall.section("排序").proxy.ids() == ["new00001", "old00001", "used0001"]
    wall.set_sort_mode("hits")
    assert wall.section("排序").proxy.ids() == ["used0001", "new00001", "old00001"]
    assert wall.sort_combo.currentData() == "hits"
    wall.sort_combo.setCurrentIndex(wall.sort_combo.findData("recent"))
    assert wall.sort_mode() == "recent"
    assert wall.section("排序").proxy.ids()[0] == "new00001"
    populated_store.update("old00001", "补充", new_description="旧的，但刚改过")
    await wait(lambda: wall.section("排序").proxy.ids()[0] == "old00001", message="recent change first")
    with pytest.raises(ValueError):
        wall.set_sort_mode("alphabetical")


async def test_live_update_from_another_thread(wall, populated_store, wait):
    await wall.reload()
    result = {}
    worker = threading.Thread(target=lambda: result.setdefault("id", populated_store.add("会弹一点吉他", "爱好", actor="agent")))
    worker.start()
    worker.join()
    await wait(lambda: wall.section("爱好") is not None, message="section for the new theme")
    assert card_texts(wall, "爱好") == ["会弹一点吉他"]
    assert wall.model.flash_level(result["id"]) > 0
    assert wall.count_label.text() == "7 条"
    # a hit from another thread updates the count in place, without a glow
    wall.model._flash_until.clear()
    threading.Thread(target=lambda: populated_store.hit(result["id"])).start()
    await wait(lambda: wall.model.card(result["id"])[HIT] == 1)
    assert wall.model.flash_level(result["id"]) == 0


async def test_reveal_scrolls_selects_and_clears_hiding_search(wall, populated_store, wait):
    for i in range(40):
        populated_store.add(f"填充记忆 {i}", "杂项")
    await wall.reload()
    wall.resize(700, 300)
    cat = populated_store.ids["有一只叫年糕的橘猫"]
    wall.set_search("咖啡")
    revealed = []
    wall.card_revealed.connect(revealed.append)
    assert wall.reveal(cat)
    assert wall.search_text() == "" and revealed == [cat]
    view = wall.section("家人").view
    assert view.currentIndex().data(CardRole.Id) == cat
    assert wall.model.flash_level(cat) > 0
    await wait(lambda: wall.scroll.verticalScrollBar().value() > 0, message="scrolled down to the card")
    rect = wall.card_rect(cat)
    visible = wall.scroll.viewport().rect().translated(wall.scroll.viewport().mapTo(wall, QPoint(0, 0)))
    assert visible.intersects(rect)
    assert not wall.reveal("no-such-id")  # not loaded (yet): remembered, not an error


async def test_context_menu_actions(wall, populated_store, wait):
    await wall.reload()
    coffee = populated_store.ids["喜欢手冲咖啡，不加糖"]
    menu = wall.actions.context_menu(coffee)
    try:
        assert [a.text() for a in menu.actions() if not a.isSeparator()] == ["编辑", "历史", "与…合并", "移动到…", "锁定", "置顶", "删除", "复制"]
        actions = {a.objectName(): a for a in menu.actions()}
        actions["copy"].trigger()
        assert QGuiApplication.clipboard().text() == "喜欢手冲咖啡，不加糖"
        actions["history"].trigger()
        assert isinstance(wall.actions.active_dialog, HistoryDialog)
        await wall.actions.active_dialog.wait_loaded()
        wall.actions.active_dialog.close()
        actions["merge"].trigger()
        dialog = wall.actions.active_dialog
        assert isinstance(dialog, MergeDialog) and dialog.values()[0] == coffee
        assert dialog.second_id() is not None and dialog.second_id() != coffee
        dialog.reject()
        actions["delete"].trigger()
        await wait(lambda: coffee not in populated_store.all_items())
    finally:
        menu.close()
        menu.deleteLater()


async def test_failed_operation_shows_error_toast_and_keeps_data(wall, populated_store, wait):
    await wall.reload()
    cat = populated_store.ids["有一只叫年糕的橘猫"]
    populated_store.delete(cat)  # behind the wall's back
    result = await wall.service.submit(ops.EditMemory(cat, "改一下", None, "测试"))
    assert result is None
    await wait(lambda: any(t.kind == "error" for t in wall.toasts.toasts()))
    assert "找不到这条记忆" in wall.toasts.toasts()[-1].text
    assert [row["id"] for row in populated_store.list_trash()] == [cat]


def test_relative_time_words():
    now = datetime(2026, 12, 2, 12, 0, 0)
    assert relative_time(now - timedelta(seconds=20), now) == "刚刚"
    assert relative_time(now + timedelta(minutes=5), now) == "刚刚"  # clock drift
    assert relative_time((now - timedelta(minutes=3)).isoformat(), now) == "3分钟前"
    assert relative_time(now - timedelta(hours=5), now) == "5小时前"
    assert relative_time(datetime(2026, 12, 1, 20, 0), now) == "昨天"
    assert relative_time(now - timedelta(days=3), now) == "3天前"
    assert relative_time(now - timedelta(days=65), now) == "2个月前"
    assert relative_time(now - timedelta(days=800), now) == "2年前"
    assert relative_time("2026-12-02 11:00:00", now, lang="en") == "1 h ago"
    assert relative_time("not a time", now) == "" and relative_time(None, now) == ""


def test_theme_colors_are_stable_and_from_the_palette():
    from sonetto_desktop.ui.wall.theme_colors import THEME_PALETTE, fill_template, theme_color

    assert theme_color("品味") == theme_color(" 品味 ")
    assert theme_color("品味") in THEME_PALETTE["light"]
    assert theme_color("品味", "dark") in THEME_PALETTE["dark"]
    assert len({theme_color(t) for t in ["品味", "工作", "家人", "爱好", "健康", "项目"]}) > 1
    with pytest.raises(KeyError):
        fill_template("a {{missing}}", {"x": "1"})
    with pytest.raises(ValueError):
        theme_color("x", "sepia")


async def test_several_cards_dropped_on_a_card_move_instead_of_merging(wall, populated_store, wait):
    await wall.reload()
    ids = [populated_store.ids["讨厌香菜"], populated_store.ids["有一只叫年糕的橘猫"]]
    target = populated_store.ids["正在用 Rust 重写调度服务"]
    tasks = wall.handle_drop(encode_ids(ids), "工作", target)
    assert isinstance(tasks, list) and len(tasks) == 1  # one bulk action
    for task in tasks:
        await task
    assert {populated_store.get(mid).theme for mid in ids} == {"工作"}
    assert wall.actions.active_dialog is None


async def test_drop_on_section_header_moves(wall, populated_store, wait):
    await wall.reload()
    coffee = populated_store.ids["喜欢手冲咖啡，不加糖"]
    header = wall.section("工作").header
    mime = encode_ids([coffee])
    for kind in (QDragEnterEvent, QDragMoveEvent):
        QApplication.sendEvent(header, kind(QPoint(5, 5), Qt.DropAction.CopyAction, mime,
                                            Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier))
    assert header.property("dropTarget") is True  # highlighted while hovering
    drop = QDropEvent(QPointF(5, 5), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                      Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(header, drop)
    await wait(lambda: populated_store.get(coffee).theme == "工作")
    assert header.property("dropTarget") is False


async def test_live_change_keeps_the_selected_card_selected(wall, populated_store, wait):
    populated_store.import_items({
        f"old0000{i}": MemoryItem(f"旧记忆 {i}", "旧事", latest_update_time=f"2025-0{i + 1}-01T00:00:00")
        for i in range(3)
    })
    await wall.reload()
    section = wall.section("旧事")
    last = section.proxy.ids()[-1]
    assert last == "old00000"
    section.view.setCurrentIndex(section.proxy.index_of(last))
    populated_store.update(last, "补充", new_description="刚刚改过，所以排到最前")
    await wait(lambda: section.proxy.ids()[0] == last, message="moved to the top")
    assert section.view.currentIndex().data(CardRole.Id) == last  # a move, not remove + insert


async def test_a_selected_card_filed_elsewhere_meanwhile_stays_selected(wall, populated_store, wait):
    """The person selected cards to act on; Sonetto (or the command line) files one of them under
    another theme meanwhile: it stays in the selection, in its new section, so a Delete or a move acts
    on every card they picked (it dropped out, and the action left it behind)."""
    await wall.reload()
    herb = populated_store.ids["讨厌香菜"]
    cat = populated_store.ids["有一只叫年糕的橘猫"]
    wall.select_ids([herb, cat])
    assert sorted(wall.selected_ids()) == sorted([herb, cat])
    populated_store.update(cat, "整理", new_theme="宠物", actor="agent")
    await wait(lambda: wall.model.card(cat)[THEME] == "宠物" and wall.section("宠物") is not None)
    await wait(lambda: sorted(wall.selected_ids()) == sorted([herb, cat]),
               message=lambda: f"selected: {wall.selected_ids()}")
    populated_store.update(herb, "整理", new_theme="宠物", actor="agent")  # into a section that is there
    await wait(lambda: wall.model.card(herb)[THEME] == "宠物")
    await wait(lambda: sorted(wall.selected_ids()) == sorted([herb, cat]),
               message=lambda: f"selected: {wall.selected_ids()}")
    populated_store.delete(cat, "过时", actor="agent")  # gone: out of the selection, nothing else in
    await wait(lambda: wall.model.card(cat) is None)
    assert wall.selected_ids() == [herb]


async def test_unreadable_store_leaves_an_honest_empty_wall(tmp_path, qtbot):
    from sonetto_desktop.memory import YamlMemoryManager
    from sonetto_desktop.ui.memory_service import MemoryService
    from sonetto_desktop.ui.wall.memory_wall import MemoryWall

    path = tmp_path / "memory.yaml"
    path.write_text("x: [broken\n", encoding="utf-8")
    manager = YamlMemoryManager(path)
    service = MemoryService(manager)
    wall = MemoryWall(service)
    qtbot.addWidget(wall)
    wall.show()
    try:
        await wall.reload()
        assert "无法读取" in wall.empty_label.text() and not wall.empty_label.isHidden()
        assert any(t.kind == "error" for t in wall.toasts.toasts())
        assert path.read_text(encoding="utf-8") == "x: [broken\n"
    finally:
        service.close()
        service.deleteLater()
        manager.close()


@pytest.mark.parametrize("mode", ["light", "dark"])
async def test_card_colours_come_from_the_wall_stylesheet(wall, mode):
    from PySide6.QtGui import QColor

    from sonetto_desktop.resources import read_text
    from sonetto_desktop.ui.theme import tokens
    from sonetto_desktop.ui.wall.theme_colors import fill_template, wall_tokens

    await wall.reload()
    merged = {**tokens(mode), **wall_tokens(mode)}
    wall.setStyleSheet(fill_template(read_text("qss/wall.qss.tmpl"), merged))  # every placeholder known
    view = wall.section("品味").view
    view.ensurePolished()
    assert view.cardBackground == QColor(wall_tokens(mode)["card_bg"])
    assert view.card_colors()["cardText"] == QColor(wall_tokens(mode)["card_text"])


async def test_counts_include_cards_hidden_by_the_search(wall, populated_store, wait):
    await wall.reload()
    wall.set_search("咖啡")
    assert wall.section("品味").count_label.text() == "1 / 3"
    threading.Thread(target=lambda: populated_store.add("喜欢吃辣", "品味")).start()
    await wait(lambda: wall.section("品味").count_label.text() == "1 / 4", message="total follows the store")
    assert wall.count_label.text() == "1 / 7 条"


async def test_a_long_theme_name_is_cut_in_its_header_not_the_wall(wall, populated_store, wait):
    """A theme named with the 64 characters a theme may have ("Things I want to remember about my
    grandmother's recipes…", or a rename typed long): at 900 x 600 the wall's column is ~420 px, and the
    section's header asked for the whole name's width, so the wall's content grew wider than the wall:
    its cards were cut at the right edge, and a card shown at the right scrolled the wall sideways, the
    cards' left halves gone. The name gives way ("…", the whole of it in its tooltip), in the sticky
    header too."""
    long_theme = "Things I want to remember about my grandmother's kitchen recipes"[:64]
    populated_store.add("Her dumplings use chives and pork", long_theme)
    wall.resize(420, 560)
    await wall.reload()
    await wait(lambda: wall.section(long_theme) is not None, message="the long theme's section")
    section = wall.section(long_theme)
    viewport = wall.scroll.viewport()
    await wait(lambda: wall.scroll.widget().width() <= viewport.width(),
               message=lambda: f"the wall's content {wall.scroll.widget().width()} px in {viewport.width()} px")
    assert section.title.geometry().right() < section.header.width()
    assert section.count_label.isVisible() and section.count_label.geometry().right() <= section.header.width()
    assert section.title.toolTip() == long_theme
    wall.sticky.show_theme(long_theme, "1", viewport.width())
    assert wall.sticky.count_label.geometry().right() <= wall.sticky.width()
    assert wall.sticky.title.toolTip() == long_theme
