"""The settings dialog fits a small screen: every page scrolls rather than making the dialog taller
than its tallest page's rows (其他应用 alone made it at least 642 px, so on a 600-px-high screen
保存 and 取消 were off the screen and could not be reached), and it opens at the height it had
before (its tall pages scroll), within the screen's free height."""

from __future__ import annotations

from PySide6.QtWidgets import QDialogButtonBox, QScrollArea, QTabWidget

from sonetto_desktop.config.settings import Settings
from sonetto_desktop.ui.settings.dialog import OPEN_HEIGHT, SettingsDialog


def test_the_settings_dialog_can_be_shorter_than_a_small_screen_and_opens_within_it(qtbot):
    dialog = SettingsDialog(Settings.load())
    qtbot.addWidget(dialog)
    tabs = dialog.findChild(QTabWidget)
    for i in range(tabs.count()):
        page = tabs.widget(i)
        assert isinstance(page, QScrollArea) or page.minimumSizeHint().height() <= 200, tabs.tabText(i)
    assert dialog.minimumSizeHint().height() <= 400  # a 600-px screen less a panel and a title bar
    dialog.show()
    qtbot.waitExposed(dialog)
    free = dialog.screen().availableGeometry()
    assert dialog.height() <= free.height()
    save = dialog.buttons.button(QDialogButtonBox.StandardButton.Save)
    assert save.isVisible() and save.mapTo(dialog, save.rect().bottomLeft()).y() < dialog.height()
    # a screen with room: the height it opened at before its pages scrolled, not the tallest page's
    assert dialog.height() == min(OPEN_HEIGHT, free.height() - 48)
    dialog.resize(dialog.width(), 380)  # the person makes it small: the pages scroll
    qtbot.waitUntil(lambda: dialog.height() <= 400)
    mcp = dialog.show_page(dialog.mcp_page)
    assert tabs.currentWidget() is mcp
    qtbot.waitUntil(lambda: mcp.verticalScrollBar().maximum() > 0)
