"""Keyboard use of the dialogs (issue 15 items 12 and 14): Tab reaches every control, the control
with the focus shows a ring in the theme's accent, and the session list's rename box is tall enough
for Chinese text."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QDialog,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from sonetto_desktop.config.settings import Settings
from sonetto_desktop.ui.dialogs.edit import EditDialog
from sonetto_desktop.ui.settings.dialog import SettingsDialog
from sonetto_desktop.ui.theme import stylesheet, tokens
from sonetto_desktop.ui.dialogs.trash import TrashDialog


@pytest.fixture
def themed(qapp):
    qapp.setStyleSheet(stylesheet("light"))
    yield tokens("light")
    qapp.setStyleSheet("")


def _show_active(qtbot, window: QWidget) -> None:
    window.show()
    window.activateWindow()
    for _ in range(20):
        if window.isActiveWindow():
            return
        QApplication.processEvents()
    assert window.isActiveWindow()


def _tab_stops(qtbot, dialog: QDialog, first: QWidget, limit: int = 60) -> list[QWidget]:
    """Press Tab from ``first`` until the focus comes back; the widgets visited, in order."""
    first.setFocus(Qt.FocusReason.TabFocusReason)
    seen: list[QWidget] = []
    for _ in range(limit):
        widget = QApplication.focusWidget()
        if widget is None or (seen and widget is seen[0]):
            break
        seen.append(widget)
        qtbot.keyClick(widget, Qt.Key.Key_Tab)
    return seen


def _controls(dialog: QDialog) -> list[QWidget]:
    kinds = (QAbstractButton, QLineEdit, QListWidget)
    return [w for w in dialog.findChildren(QWidget) if isinstance(w, kinds) and w.isVisible() and w.isEnabled()
            and w.focusPolicy() & Qt.FocusPolicy.TabFocus and not isinstance(w.parentWidget(), QLineEdit)]


def test_tab_reaches_every_control_of_the_edit_dialog(qtbot):
    dialog = EditDialog(description="讨厌香菜", theme="品味")
    qtbot.addWidget(dialog)
    _show_active(qtbot, dialog)
    stops = _tab_stops(qtbot, dialog, dialog.description_edit)
    missing = [w.objectName() or type(w).__name__ for w in _controls(dialog) if w not in stops]
    assert not missing, missing


async def _trash_shown(service, populated_store, qtbot, wait):
    """The trash, with one memory in it, loaded, shown and active."""
    populated_store.delete(populated_store.ids["讨厌香菜"], "测试")
    dialog = TrashDialog(service)
    qtbot.addWidget(dialog)
    await dialog.wait_loaded()
    dialog.show()
    dialog.activateWindow()
    await wait(dialog.isActiveWindow, message="trash window active")
    return dialog


async def test_tab_reaches_every_control_of_the_trash(service, populated_store, qtbot, wait):
    dialog = await _trash_shown(service, populated_store, qtbot, wait)
    stops = _tab_stops(qtbot, dialog, dialog.list)
    missing = [w.objectName() or w.text() for w in _controls(dialog) if w not in stops]
    assert not missing, missing


def test_settings_fields_are_reachable_by_keyboard(qtbot):
    dialog = SettingsDialog(Settings.load())
    qtbot.addWidget(dialog)
    _show_active(qtbot, dialog)
    stops = _tab_stops(qtbot, dialog, dialog.user_name)
    for widget in (dialog.user_name, dialog.base_url, dialog.api_key, dialog.show_key_button, dialog.test_button):
        assert widget in stops, widget.objectName() or type(widget).__name__


def _accent_pixels(widget: QWidget, accent: str) -> int:
    image = widget.grab().toImage()
    colour = QColor(accent)
    count = 0
    for x in range(image.width()):
        for y in (0, 1, image.height() - 2, image.height() - 1):
            c = image.pixelColor(x, y)
            if abs(c.red() - colour.red()) + abs(c.green() - colour.green()) + abs(c.blue() - colour.blue()) < 30:
                count += 1
    return count


def test_a_focused_button_shows_a_ring(qtbot, themed):
    host = QDialog()
    qtbot.addWidget(host)
    layout = QVBoxLayout(host)
    plain, focused = QPushButton("取消", host), QPushButton("永久删除", host)
    for button in (plain, focused):
        button.setAutoDefault(False)
        layout.addWidget(button)
    _show_active(qtbot, host)
    focused.setFocus(Qt.FocusReason.TabFocusReason)
    assert focused.hasFocus()
    assert _accent_pixels(focused, themed["accent"]) > focused.width()  # a ring along top and bottom
    assert _accent_pixels(plain, themed["accent"]) == 0


def test_the_session_rename_box_fits_chinese_text(qtbot, themed):
    from sonetto_desktop.ui.chat.session_list import SessionList

    sessions = SessionList()  # the chat's session list, styled as in the app
    qtbot.addWidget(sessions)
    sessions.resize(240, 300)
    item = QListWidgetItem("周末去爬山的计划")
    item.setFlags(item.flags() | Qt.ItemFlag.ItemIsEditable)
    sessions.addItem(item)
    sessions.show()
    sessions.editItem(item)
    editor = sessions.findChild(QLineEdit)
    editor.setFocus()
    QApplication.processEvents()
    assert editor.height() >= editor.minimumSizeHint().height()
    assert editor.height() >= editor.fontMetrics().height() + 2


async def test_tab_in_a_list_dialog_follows_the_layout(service, populated_store, qtbot, wait):
    """Tab from the list went to 关闭 before the row of buttons under the list (the close box was made
    first): in the don't-remember list a person pressing Tab, Enter for 添加… closed the dialog (seen in a
    real window). The same frame lays out the trash, the review inbox and the contradictions."""
    dialog = await _trash_shown(service, populated_store, qtbot, wait)
    dialog.list.setCurrentRow(0)  # the row buttons are enabled
    stops = [w for w in _tab_stops(qtbot, dialog, dialog.list) if isinstance(w, QPushButton)]
    left_to_right = sorted(stops, key=lambda w: (w.mapTo(dialog, w.rect().topLeft()).y(),
                                                 w.mapTo(dialog, w.rect().topLeft()).x()))
    assert [w.text() for w in stops] == [w.text() for w in left_to_right]


def _link_buttons(host: QWidget) -> list[QAbstractButton]:
    """The buttons drawn as links or bare signs (no border of their own) that Tab reaches."""
    from sonetto_desktop.ui.chat.welcome import WelcomePanel
    from sonetto_desktop.ui.notices.toasts import Toast
    from sonetto_desktop.ui.wall.toolbar import WallToolbar

    layout = QVBoxLayout(host)
    welcome = WelcomePanel(host)
    toolbar = WallToolbar(host)
    toolbar.set_filter("agent")  # its bar says the filter, with 显示全部
    toast = Toast("记住了：小林喜欢手冲咖啡", key=None, kind="success", timeout_ms=0, action_text="撤销",
                  on_action=lambda: None, on_click=None, parent=host)
    for widget in (welcome, toolbar, toast):
        layout.addWidget(widget)
    return [welcome.import_button, welcome.history_button, toolbar.filter_clear, toast.action_button,
            toast.close_button]


def test_link_like_buttons_show_a_ring_when_tab_reaches_them(qtbot, themed):
    """The welcome page's 导入记忆文件… / 导入聊天记录…, the wall's 显示全部, a toast's 撤销 and ×:
    drawn without a border, they showed no ring with the focus (the style's own focus frame was a
    faint dotted box, or nothing); now an accent ring, and nothing moves when it comes."""
    host = QDialog()
    qtbot.addWidget(host)
    buttons = _link_buttons(host)
    _show_active(qtbot, host)
    for button in buttons:
        size = button.size()
        assert _accent_pixels(button, themed["accent"]) == 0, button.objectName()
        button.setFocus(Qt.FocusReason.TabFocusReason)
        assert button.hasFocus()
        QApplication.processEvents()
        assert _accent_pixels(button, themed["accent"]) > button.width(), f"{button.objectName()}: no ring"
        assert button.size() == size, f"{button.objectName()} changed size with the focus"


@pytest.mark.parametrize("key", [Qt.Key.Key_Return, Qt.Key.Key_Enter])
def test_the_welcome_pages_buttons_and_the_link_like_buttons_take_enter(qtbot, key):
    """The first screen opens with the focus ring on 打开设置; Enter there (or on English / 中文, on
    导入聊天记录…, on a toast's 撤销 reached with Tab) did nothing: outside a dialog a button takes
    only Space, and a link is followed with Enter. Enter clicks them now, as Space does."""
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QMainWindow

    host = QMainWindow()  # (not a dialog: there a push button takes Enter anyway)
    qtbot.addWidget(host)
    central = QWidget(host)
    host.setCentralWidget(central)
    buttons = _link_buttons(central)
    welcome = buttons[0].parent()
    buttons = [welcome.settings_button, welcome.language_button, *buttons]
    _show_active(qtbot, host)
    for button in buttons:
        clicked: list[bool] = []
        button.clicked.connect(lambda *_, clicked=clicked: clicked.append(True))
        button.setFocus(Qt.FocusReason.TabFocusReason)
        assert button.hasFocus(), button.text()
        QTest.keyClick(button, key)
        assert clicked == [True], f"{button.objectName()} {button.text()}: Enter did nothing"
