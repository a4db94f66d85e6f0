"""The smaller things of issue 30 (item 16): the tray says what a click does; one name for Sonetto;
a reason to revert is optional; the wall's search placeholder and a dialog's title are not cut; copy
and export say they happened; themes of equal size sort 主题2 before 主题10; a forgotten memory's
chip says where the memory went."""

from __future__ import annotations

import asyncio

from PySide6.QtWidgets import QInputDialog, QLineEdit

from shell_fixtures import app_settings, running_app
from sonetto_desktop.ui.chat.view import ChatView
from sonetto_desktop.ui.dialogs.history import HistoryDialog
from sonetto_desktop.ui.theme import stylesheet


async def test_the_tray_s_pause_item_says_what_a_click_does(qapp, tmp_path, llm_server, wait):
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        pause = app.writer_control.pause_action
        assert pause.text() == "暂停记忆写入" and not pause.isChecked()
        pause.trigger()
        await wait(lambda: app.writer.paused, message="paused")
        assert pause.text() == "继续记忆写入"
        assert pause in app.tray.menu.actions()  # the tray menu shows this very action
        pause.trigger()
        await wait(lambda: not app.writer.paused, message="resumed")
        assert pause.text() == "暂停记忆写入"


async def test_history_names_sonetto_and_a_revert_needs_no_reason(service, populated_store, qtbot, wait):
    memory_id = populated_store.ids["有一只叫年糕的橘猫"]
    populated_store.update(memory_id, "猫改名了", new_description="有一只叫汤圆的橘猫", actor="agent")
    dialog = HistoryDialog(service, memory_id)
    qtbot.addWidget(dialog)
    await dialog.wait_loaded()
    assert "Sonetto" in dialog.list.item(0).text() and "智能体" not in dialog.list.item(0).text()
    dialog.list.setCurrentRow(dialog.list.count() - 1)
    assert dialog.reason_edit.text() == "" and dialog.revert_button.isEnabled()
    assert "可选" in dialog.reason_edit.placeholderText()
    dialog.revert_button.click()
    await wait(lambda: populated_store.get(memory_id).description == "有一只叫年糕的橘猫", message="reverted")
    last = populated_store.get(memory_id).history[-1]
    assert last["action"] == "revert" and last["reason"]  # worded by the app


async def test_the_wall_search_placeholder_and_a_dialog_title_are_not_cut(qapp, tmp_path, llm_server, wait):
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        app.window.setStyleSheet(stylesheet("light"))
        app.window.resize(900, 600)  # the smallest window the issue tried
        await asyncio.sleep(0.1)
        edit: QLineEdit = app.wall.toolbar.search_edit
        room = edit.contentsRect().width() - 2 * 20  # the search icon and the clear button
        assert edit.fontMetrics().horizontalAdvance(edit.placeholderText()) <= room, (edit.width(), room)
        app.services.memory.add("用户喜欢猫", "品味")
        await wait(lambda: app.wall.section("品味") is not None, message="the card")
        dialog = app.wall.actions.ask_new_theme([next(iter(app.services.memory.all_items()))])
        try:
            assert isinstance(dialog, QInputDialog)
            needed = dialog.fontMetrics().horizontalAdvance(dialog.windowTitle()) + 100
            assert dialog.width() >= needed
        finally:
            dialog.reject()


async def test_copy_says_copied(qtbot, wait):
    view = ChatView()
    qtbot.addWidget(view)
    view.show()
    reply = view.add_reply("hi")
    reply.set_text("一段回答")
    assert not reply.copied
    reply.copy_button.click()
    assert reply.copied and reply.copy_button.toolTip() == "已复制"
    await wait(lambda: not reply.copied, timeout=4, message="back to 复制")


async def test_export_says_where_the_file_is(qapp, tmp_path, llm_server, wait):
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        panel = app.window.chat_panel
        llm_server.add_text("好呀", to="chat")
        panel.composer.set_text("你好")
        panel.composer.submit()
        await wait(lambda: app.controller.busy)
        await wait(lambda: not app.controller.busy, timeout=30)
        target = tmp_path / "chat.md"
        await panel.export_chat(app.controller.current_session_id, str(target))
        assert target.is_file()
        [toast] = [t for t in app.toasts.toasts() if t.key == "chat-exported"]
        assert str(target) in toast.text and toast.action_button.text() == "打开文件夹"


async def test_themes_of_equal_size_sort_in_reading_order(wall, populated_store):
    for theme in ("主题10", "主题2", "主题1"):
        populated_store.add(f"一条{theme}", theme)
    await wall.reload()
    await wall.loader.wait()
    themes = [s.theme for s in wall.visible_sections() if s.theme.startswith("主题")]
    assert themes == ["主题1", "主题2", "主题10"]


async def test_a_forgotten_memory_s_chip_says_where_it_went(qapp, tmp_path, llm_server, wait):
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        mid = app.services.memory.add("用户养了一只叫年糕的橘猫", "生活").ids[0]
        panel = app.window.chat_panel
        llm_server.add_text("年糕好可爱", to="chat")
        panel.composer.set_text("年糕今天又调皮了")
        panel.composer.submit()
        await wait(lambda: app.controller.busy)
        await wait(lambda: not app.controller.busy, timeout=30)
        [chip] = panel.view.bubbles[1].chip_buttons()
        app.services.memory.delete(mid, reason="不需要了")
        await wait(lambda: app.wall.model.card(mid) is None, message="gone from the wall")
        chip.click()  # used to do nothing
        await wait(lambda: any(t.key == f"gone:{mid}" for t in app.toasts.toasts()), message="said")
        [toast] = [t for t in app.toasts.toasts() if t.key == f"gone:{mid}"]
        assert "回收站" in toast.text and toast.action_button is not None
        assert chip.property("gone")  # struck through from now on
        toast.action_button.click()  # 恢复
        await wait(lambda: mid in app.services.memory.all_items(), message="restored")


async def test_locking_one_card_is_not_a_bulk_lock(wall, populated_store, wait):
    coffee = populated_store.ids["喜欢手冲咖啡，不加糖"]
    await wall.reload()
    wall.actions.lock_cards([coffee], True)  # the card menu's 锁定
    await wait(lambda: populated_store.get(coffee).locked, message="locked")
    assert populated_store.get(coffee).history[-1]["reason"] == "手动锁定"  # was 批量锁定


async def test_pinning_several_cards_is_one_bulk_action_with_a_toast_and_its_undo(wall, populated_store, wait):
    """Undo16: pinning a selection was one write per card, said nothing and offered no 撤销 (only Ctrl+Z);
    locking the same cards was one bulk write with a toast. Pinning is now the same: one action, one
    toast "已置顶 N 条" whose 撤销 unpins them all."""
    await wall.reload()
    ids = list(populated_store.ids.values())[:3]
    tasks = wall.actions.pin_cards(ids, True)  # the selection's 置顶 3 条
    assert len(tasks) == 1
    await asyncio.gather(*tasks)
    assert all(populated_store.get(mid).pinned for mid in ids)
    turns = {populated_store.get(mid).history[-1]["turn_id"] for mid in ids}
    reasons = {populated_store.get(mid).history[-1]["reason"] for mid in ids}
    assert len(turns) == 1 and reasons == {"批量置顶"}
    await wait(lambda: any(t.text == "已置顶 3 条" for t in wall.toasts.toasts()), message="the toast")
    [toast] = [t for t in wall.toasts.toasts() if t.text == "已置顶 3 条"]
    assert toast.action_button is not None and toast.action_button.text() == "撤销"
    toast.action_button.click()
    await wait(lambda: not any(populated_store.get(mid).pinned for mid in ids), message="one 撤销 unpins all")

    await asyncio.gather(*wall.actions.pin_cards(ids, True))
    await asyncio.gather(*wall.actions.pin_cards(ids, False))  # 取消置顶 3 条
    await wait(lambda: any(t.text == "已取消置顶 3 条" for t in wall.toasts.toasts()), message="unpinned, said")
    assert not any(populated_store.get(mid).pinned for mid in ids)
