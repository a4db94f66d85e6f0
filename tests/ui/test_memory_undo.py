"""Undo beyond the toasts (issue 30 item 9): 编辑 ▸ 撤销 and Ctrl+Z take back the last memory action
(the person's own or Sonetto's turn) and 重做 brings it again; a text field keeps Ctrl+Z for its text;
toasts stay while the pointer is over them, also when they appear under it; changes made by the
command line or another app are one quiet notice worded as theirs."""

from __future__ import annotations

import asyncio

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QCursor
from PySide6.QtWidgets import QWidget

from shell_fixtures import app_settings, running_app
from helpers import activate
from sonetto_desktop import ops
from sonetto_desktop.memory.operations import MemoryOperations
from sonetto_desktop.ui.notices.toasts import ToastOverlay


async def test_ctrl_z_undoes_the_last_memory_action_and_the_menu_names_it(qapp, tmp_path, llm_server, wait, qtbot):
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        await activate(app.window, wait)
        menus = app.window.menus
        assert not menus.undo_action.isEnabled()
        mid = await app.service.submit(ops.AddMemory("用户讨厌香菜", "品味"))
        await wait(lambda: menus.undo_action.isEnabled(), message="something to undo")
        await app.service.submit(ops.DeleteMemory(mid))
        await wait(lambda: "删除" in menus.undo_action.text(), message="the menu names the last action")
        assert "香菜" in menus.undo_action.text()
        app.window.chat_panel.view.setFocus()  # not a text field
        qtbot.keyClick(app.window.chat_panel.view, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
        await wait(lambda: mid in app.services.memory.all_items(), message="the deletion taken back")
        await wait(lambda: menus.redo_action.isEnabled() and "删除" in menus.redo_action.text(), message="redo")
        assert "新建" in menus.undo_action.text()  # the next older action
        assert any("已撤销" in t.text for t in app.toasts.toasts())
        menus.redo_action.trigger()
        await wait(lambda: mid not in app.services.memory.all_items(), message="deleted again")
        await app.memory_undo.busy  # (the redo is offered for undo once it has finished, not once it wrote)
        menus.undo_action.trigger()
        await wait(lambda: mid in app.services.memory.all_items(), message="and back")


async def test_ctrl_z_after_a_pin_unpins_and_pinning_several_cards_is_one_action(qapp, tmp_path, llm_server, wait):
    """A pin is the person's last action: Ctrl+Z unpins (before, a pin was no action, so Ctrl+Z took back
    the action before it: here it deleted the card just created), and several cards pinned at once
    are unpinned by one undo."""
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        await activate(app.window, wait)
        menus, memory = app.window.menus, app.services.memory
        a = await app.service.submit(ops.AddMemory("用户讨厌香菜", "品味"))
        b = await app.service.submit(ops.AddMemory("用户喜欢猫", "品味"))
        await wait(lambda: "新建" in menus.undo_action.text(), message="something to undo")
        await asyncio.gather(*app.wall.actions.pin_cards([a], True))
        await wait(lambda: "置顶「用户讨厌香菜」" in menus.undo_action.text(),
                   message=lambda: f"the menu names the pin: {menus.undo_action.text()}")
        menus.undo_action.trigger()
        await wait(lambda: not memory.get(a).pinned, message="unpinned")
        await app.memory_undo.busy
        assert a in memory.all_items() and b in memory.all_items()  # nothing else taken back
        assert [e["action"] for e in memory.get(a).history][-2:] == ["pin", "unpin"]
        await asyncio.gather(*app.wall.actions.pin_cards([a, b], True))
        await wait(lambda: memory.get(a).pinned and memory.get(b).pinned, message="both pinned")
        await wait(lambda: "2" in menus.undo_action.text(), message=lambda: menus.undo_action.text())
        menus.undo_action.trigger()
        await wait(lambda: not memory.get(a).pinned and not memory.get(b).pinned, message="one undo unpins both")
        await app.memory_undo.busy
        menus.redo_action.trigger()
        await wait(lambda: memory.get(a).pinned and memory.get(b).pinned, message="and redo pins both again")


def test_every_change_of_a_memory_is_named_with_a_verb(qapp):
    """The menu's words for an action: a pin and an unpin say so, a change of another field says 修改
    (an unknown kind was named by an empty verb: "撤销：「…」")."""
    from sonetto_desktop.memory import kinds
    from sonetto_desktop.memory.changes import MemoryChange
    from sonetto_desktop.ui.notices.memory_undo import describe

    state = {"m1": {"description": "用户讨厌香菜"}}
    pin = MemoryChange(kinds.SET, ("m1",), "user", "", "ui-1", None, state, {"field": "pinned", "value": True})
    unpin = MemoryChange(kinds.SET, ("m1",), "user", "", "ui-2", None, state, {"field": "pinned", "value": False})
    other = MemoryChange(kinds.SET, ("m1",), "user", "", "ui-3", None, state, {"field": "mood", "value": "开心"})
    assert describe(pin) == "置顶「用户讨厌香菜」" and describe(unpin) == "取消置顶「用户讨厌香菜」"
    assert describe(other) == "修改「用户讨厌香菜」"
    named = [kinds.kind(name) for name in kinds.names(record=True)]
    assert all(describe(MemoryChange(k.name, ("m1",), "user", "", "ui-4", None, state)).split("「")[0]
               for k in named if k.changes and k.names_memories)


async def test_in_a_text_field_ctrl_z_is_the_field_s_own(qapp, tmp_path, llm_server, wait, qtbot):
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        await activate(app.window, wait)
        mid = await app.service.submit(ops.AddMemory("用户喜欢猫", "品味"))
        await wait(lambda: app.window.menus.undo_action.isEnabled())
        composer = app.window.chat_panel.composer.input
        composer.setFocus()
        qtbot.keyClicks(composer, "abc")
        qtbot.keyClick(composer, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
        await asyncio.sleep(0.2)
        assert composer.toPlainText() != "abc"  # the typing was undone...
        assert mid in app.services.memory.all_items()  # ...not the memory


async def test_sonetto_s_turn_is_undone_from_the_menu(qapp, tmp_path, llm_server, wait):
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        llm_server.add_text("好的", to="chat")
        llm_server.add_tool_calls([("create_memory", {"content": "用户喜欢山竹", "section": "品味"}),
                                   ("create_memory", {"content": "用户住在成都", "section": "身份"})], to="writer")
        app.controller.send("我喜欢山竹，住在成都")
        await wait(lambda: app.services.memory.count() == 2, timeout=30, message="Sonetto remembered")
        menus = app.window.menus
        await wait(lambda: "Sonetto" in menus.undo_action.text() and "2" in menus.undo_action.text())
        menus.undo_action.trigger()
        await wait(lambda: app.services.memory.count() == 0, message="the whole turn taken back")


async def test_the_command_line_s_changes_are_one_quiet_notice_worded_as_theirs(qapp, tmp_path, llm_server, wait):
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        cli = MemoryOperations(app.services.store, actor="cli")
        for n in range(5):
            cli.add(f"命令行加的第 {n} 条", "杂项")
        other = MemoryOperations(app.services.store, actor="mcp:Cherry Studio")
        other.add("别的应用写的", "杂项")
        await wait(lambda: any("5" in t.text for t in app.toasts.toasts() if t.key == "elsewhere:cli"),
                   message="one notice for the command line")
        texts = [t.text for t in app.toasts.toasts()]
        assert not [t for t in texts if t.startswith("记住了")]  # not worded as Sonetto's
        [cli_notice] = [t for t in app.toasts.toasts() if t.key == "elsewhere:cli"]
        assert "命令行" in cli_notice.text and cli_notice.kind == "info" and cli_notice.repeats == 1
        assert any("Cherry Studio（其他应用）" in t for t in texts)
        assert not app.window.menus.undo_action.isEnabled()  # not the person's last action here


async def test_a_toast_that_appears_under_a_still_pointer_waits(qtbot, wait):
    host = QWidget()
    qtbot.addWidget(host)
    host.resize(600, 400)
    host.show()
    overlay = ToastOverlay(host)
    first = overlay.show_toast("第一条", timeout_ms=0)
    QCursor.setPos(first.mapToGlobal(first.rect().center()))
    first.dismiss()
    second = overlay.show_toast("出现在指针下面", timeout_ms=300)  # where the first one was
    assert second.rect().contains(second.mapFromGlobal(QCursor.pos()))
    await asyncio.sleep(0.6)
    assert not second.is_dismissed and second.paused  # waits while the pointer is there
    QCursor.setPos(QPoint(0, 0))
    second.resume()
    await wait(lambda: second.is_dismissed, timeout=3, message="goes once the pointer left")


async def test_a_toast_s_undo_goes_once_that_action_was_undone_another_way(qapp, tmp_path, llm_server, wait):
    """The delete's "已删除：… 撤销" toast, after Ctrl+Z took that delete back, stayed beside "已撤销" with
    a 撤销 that did nothing; so did one whose card came back from the trash, and Sonetto's turn toast
    after the menu undid that turn. Each goes once what it offers to undo is undone."""
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        await activate(app.window, wait)
        menus, memory = app.window.menus, app.services.memory
        a = await app.service.submit(ops.AddMemory("用户讨厌香菜", "品味"))
        b = await app.service.submit(ops.AddMemory("用户喜欢猫", "宠物"))
        await wait(lambda: app.wall.model.card(b) is not None, message="on the wall")
        deleted = lambda text: [t for t in app.toasts.toasts() if t.text.startswith("已删除：" + text)]  # noqa: E731
        await app.wall.actions.delete_cards([a])
        await wait(lambda: deleted("用户讨厌香菜"), message="the delete's toast")
        await wait(lambda: "删除" in menus.undo_action.text(), message="the delete is the last action")
        menus.undo_action.trigger()
        await wait(lambda: a in memory.all_items(), message="Ctrl+Z took the delete back")
        await app.memory_undo.busy
        await wait(lambda: any(t.text.startswith("已撤销") for t in app.toasts.toasts()), message="said")
        assert not deleted("用户讨厌香菜")  # its 撤销 would do nothing now
        await app.wall.actions.delete_cards([b])
        await wait(lambda: deleted("用户喜欢猫"), message="the second delete's toast")
        await app.service.submit(ops.RestoreMemory(b))  # the trash's 恢复
        await wait(lambda: not deleted("用户喜欢猫"), message="restored from the trash: the toast goes")
        llm_server.add_text("好的", to="chat")
        llm_server.add_tool_calls([("create_memory", {"content": "用户喜欢山竹", "section": "品味"})], to="writer")
        app.controller.send("我喜欢山竹")
        turn = lambda: [t for t in app.toasts.toasts() if (t.key or "").startswith("turn:")]  # noqa: E731
        await wait(lambda: turn(), timeout=30, message="Sonetto's turn toast")
        await wait(lambda: "Sonetto" in menus.undo_action.text(), message="the turn is the last action")
        menus.undo_action.trigger()
        await wait(lambda: memory.count() == 2, message="the turn taken back")
        await app.memory_undo.busy
        await wait(lambda: not turn(), message="the turn's toast goes")
