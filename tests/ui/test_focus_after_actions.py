"""Keyboard focus (issue 30 item 3): the app opens with the focus in the chat's input; after 重试,
a toast's 撤销, a restore in the trash or a new chat the focus is where the person was (never on
the header's ⏸, where one Space pauses memory writing); Tab follows the layout; the session list
and the transcript show a ring when they have the focus."""

from __future__ import annotations

import asyncio

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QApplication, QLineEdit, QVBoxLayout, QWidget

from shell_fixtures import app_settings, running_app
from helpers import activate
from sonetto_desktop.ui.dialogs.trash import TrashDialog
from sonetto_desktop.ui.notices.toasts import ToastOverlay
from sonetto_desktop.ui.theme import stylesheet, tokens


def _focus():
    return QApplication.focusWidget()


async def test_the_app_opens_with_the_focus_in_the_chat_input(qapp, tmp_path, llm_server, wait, qtbot):
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        await activate(app.window, wait)
        composer = app.window.chat_panel.composer
        assert _focus() is composer.input
        qtbot.keyClicks(_focus(), "hello")  # typing goes to the chat at once
        assert composer.text() == "hello"


async def test_without_a_model_the_focus_is_on_the_settings_button(qapp, tmp_path, wait):
    async with running_app(qapp, app_settings(tmp_path / "data")) as app:
        await activate(app.window, wait)
        assert app.window.showing_welcome and _focus() is app.window.welcome.settings_button


async def _failed_turn(app, llm_server, wait):
    panel = app.window.chat_panel
    llm_server.add_error(500, "upstream exploded", to="chat")
    panel.composer.set_text("失败测试")
    panel.composer.submit()
    await wait(lambda: app.controller.busy, message="turn started")
    await wait(lambda: not app.controller.busy, timeout=30, message="turn failed")
    failed = panel.view.bubbles[-1]
    assert failed.can_retry
    return failed


@pytest.mark.parametrize("how", ["mouse", "keyboard"])
async def test_after_retry_the_focus_is_in_the_input_not_on_pause(qapp, tmp_path, llm_server, wait, qtbot, how):
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        await activate(app.window, wait)
        panel = app.window.chat_panel
        failed = await _failed_turn(app, llm_server, wait)
        llm_server.add_text("这次好了", to="chat")
        if how == "mouse":
            panel.composer.input.setFocus()
            qtbot.mouseClick(failed.retry_button, Qt.MouseButton.LeftButton)
        else:
            failed.retry_button.setFocus(Qt.FocusReason.TabFocusReason)
            assert _focus() is failed.retry_button
            qtbot.keyClick(failed.retry_button, Qt.Key.Key_Space)
        await wait(lambda: not app.controller.busy and panel.view.bubbles[-1].text == "这次好了", timeout=30,
                   message="retried")
        assert _focus() is panel.composer.input
        pause = app.writer_control.pause_action
        qtbot.keyClick(_focus(), Qt.Key.Key_Space)  # a Space now types, it does not pause the writer
        assert not pause.isChecked() and panel.composer.text() == " "


@pytest.mark.parametrize("how", ["mouse", "keyboard"])
def test_after_a_toast_s_action_the_focus_is_back_where_it_was(qtbot, wait, how):
    window = QWidget()
    qtbot.addWidget(window)
    window.resize(600, 400)
    column = QVBoxLayout(window)
    column.addWidget(QLineEdit(window))
    typing = QLineEdit(window)  # not the first of the window: Qt's own next-in-chain would not find it
    column.addWidget(typing)
    overlay = ToastOverlay(window)
    window.show()
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    typing.setFocus()
    undone = []
    toast = overlay.show_toast("记住了：用户喜欢猫", kind="success", action_text="撤销",
                               on_action=lambda: undone.append(True))
    if how == "mouse":
        qtbot.mouseClick(toast.action_button, Qt.MouseButton.LeftButton)
    else:
        toast.action_button.setFocus(Qt.FocusReason.TabFocusReason)
        assert _focus() is toast.action_button
        qtbot.keyClick(toast.action_button, Qt.Key.Key_Space)
    assert undone == [True] and toast.is_dismissed
    assert _focus() is typing


async def test_after_a_restore_the_focus_stays_in_the_trash_list(service, populated_store, qtbot, wait):
    for text in ("讨厌香菜", "喜欢手冲咖啡，不加糖", "有一只叫年糕的橘猫"):
        populated_store.delete(populated_store.ids[text], "测试")
    dialog = TrashDialog(service)
    qtbot.addWidget(dialog)
    await dialog.wait_loaded()
    await activate(dialog, wait)
    dialog.restore_button.setFocus(Qt.FocusReason.TabFocusReason)
    first = dialog.selected_ids()
    qtbot.keyClick(dialog.restore_button, Qt.Key.Key_Space)
    await wait(lambda: len(dialog.ids()) == 2, message="restored")
    await dialog.wait_loaded()
    assert _focus() in (dialog.restore_button, dialog.list) and _focus() is not dialog.empty_button
    assert dialog.selected_ids() and dialog.selected_ids() != first  # the next row, ready for another 恢复
    dialog.list.setFocus()
    dialog.restore_selected()
    await wait(lambda: len(dialog.ids()) == 1, message="restored from the list")
    await dialog.wait_loaded()
    assert _focus() is dialog.list


@pytest.mark.parametrize("temporary", [False, True])
async def test_a_new_chat_puts_the_focus_in_the_input(qapp, tmp_path, llm_server, wait, qtbot, temporary):
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        await activate(app.window, wait)
        panel = app.window.chat_panel
        panel.session_list.setFocus()
        before = app.controller.current_session_id
        if temporary:
            panel.temporary_action.trigger()
        else:
            qtbot.keyClick(panel.session_list, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
        await wait(lambda: app.controller.current_session_id != before, message="a new chat")
        await wait(lambda: _focus() is panel.composer.input, message="the focus in the input")


async def test_tab_follows_the_layout(qapp, tmp_path, llm_server, wait, qtbot):
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        app.services.memory.add("用户喜欢猫", "品味")
        await app.wall_loaded
        window = app.window
        await activate(window, wait)
        await _failed_turn(app, llm_server, wait)  # messages (and a 重试) in the transcript
        panel = window.chat_panel
        header = window.settings_button.parentWidget()
        seen = []
        panel.composer.input.setFocus(Qt.FocusReason.TabFocusReason)
        for _ in range(80):
            widget = _focus()
            if widget is None or (seen and widget is seen[0]):
                break
            seen.append(widget)
            qtbot.keyClick(widget, Qt.Key.Key_Tab)

        def area(widget) -> int:
            if header.isAncestorOf(widget):
                return 0
            if panel.isAncestorOf(widget):
                return 1 if widget.mapTo(window, QPoint(0, 0)).x() < panel.view.mapTo(window, QPoint(0, 0)).x() else 2
            return 3 if window.wall.isAncestorOf(widget) else 4

        start = seen.index(window.status_indicator.pause_button)
        order = seen[start:] + seen[:start]  # one round, from the top left
        areas = [area(w) for w in order]
        assert areas == sorted(areas), [(type(w).__name__, w.objectName(), a) for w, a in zip(order, areas, strict=True)]
        for must in (panel.session_list, panel.view, panel.composer.input, window.wall.toolbar.search_edit):
            assert must in seen
        heads = [w.mapTo(window, QPoint(0, 0)).x() for w in order if area(w) == 0]
        assert heads == sorted(heads)  # the header left to right
        sessions = [w for w in order if area(w) == 1]
        tops = [w.mapTo(window, QPoint(0, 0)).y() for w in sessions]
        assert tops == sorted(tops)  # the session pane top to bottom
        chat = [w for w in order if area(w) == 2]
        assert chat.index(panel.view) < chat.index(panel.composer.input)


def _accent_on_border(widget: QWidget, accent: str) -> int:
    image = widget.grab().toImage()
    colour = QColor(accent)
    count = 0
    for x in range(image.width()):
        for y in (0, 1, image.height() - 2, image.height() - 1):
            c = image.pixelColor(x, y)
            if abs(c.red() - colour.red()) + abs(c.green() - colour.green()) + abs(c.blue() - colour.blue()) < 30:
                count += 1
    return count


async def test_the_session_list_and_the_transcript_show_a_ring(qapp, tmp_path, llm_server, wait):
    async with running_app(qapp, app_settings(tmp_path / "data", llm_server)) as app:
        await activate(app.window, wait)
        accent = tokens("light")["accent"]
        qapp.setStyleSheet(stylesheet("light"))
        panel = app.window.chat_panel
        for widget in (panel.session_list, panel.view):
            panel.composer.input.setFocus()
            await asyncio.sleep(0.05)
            assert _accent_on_border(widget, accent) == 0, widget.objectName()
            widget.setFocus(Qt.FocusReason.TabFocusReason)
            await asyncio.sleep(0.05)
            assert _accent_on_border(widget, accent) > widget.width(), widget.objectName()
