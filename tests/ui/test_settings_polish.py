"""Settings dialog polish (issue 15 items 10 and 12): Esc on a changed form asks first, fields set
by environment variables are read-only with the variable named, the API key can be shown, the
connection latency is said once, the user's name and the trash retention are editable, and the
spin boxes draw their arrows from the theme."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLineEdit, QMessageBox, QPushButton

from sonetto_desktop.config.settings import Settings
from sonetto_desktop.ui.settings.dialog import SettingsDialog
from sonetto_desktop.ui.theme import stylesheet


@pytest.fixture
def dialog(qtbot):
    def make(settings):
        d = SettingsDialog(settings)
        qtbot.addWidget(d)
        d.show()
        return d

    return make


def _asking(d):
    return [box for box in d.findChildren(QMessageBox, "DiscardQuestion") if box.isVisible()]


def test_esc_closes_an_unchanged_settings_form(dialog, qtbot):
    d = dialog(Settings.load())
    qtbot.keyClick(d, Qt.Key.Key_Escape)
    assert not d.isVisible() and not _asking(d)


def test_esc_on_changed_settings_asks_before_discarding(dialog, qtbot):
    d = dialog(Settings.load())
    d.base_url.setText("http://127.0.0.1:11434/v1")
    qtbot.keyClick(d, Qt.Key.Key_Escape)
    assert d.isVisible() and len(_asking(d)) == 1
    _asking(d)[0].findChild(QPushButton, "DiscardConfirm").click()
    assert not d.isVisible()


def test_environment_fields_are_read_only_and_name_their_variable(dialog, monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://env.example/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
    d = dialog(Settings.load().with_env())
    assert d.base_url.isReadOnly() and d.api_key.isReadOnly()
    assert d.env_notes["base_url"].isVisible() and "OPENAI_BASE_URL" in d.env_notes["base_url"].text()
    assert "SONETTO_BASE_URL" not in d.env_notes["base_url"].text()  # the one really set
    assert "OPENAI_API_KEY" in d.env_notes["api_key"].text()
    assert not d.user_name.isReadOnly() and "user_name" not in d.env_notes
    d.base_url.setText("typed")
    assert d.current_settings().base_url == "http://env.example/v1"


def test_the_api_key_can_be_shown_and_hidden(dialog):
    d = dialog(Settings(api_key="sk-secret"))
    assert d.api_key.echoMode() == QLineEdit.EchoMode.Password
    assert d.show_key_button.accessibleName()
    d.show_key_button.click()
    assert d.api_key.echoMode() == QLineEdit.EchoMode.Normal
    d.show_key_button.click()
    assert d.api_key.echoMode() == QLineEdit.EchoMode.Password


async def test_the_connection_latency_is_said_once(dialog, llm_server):
    d = dialog(Settings(base_url=llm_server.base_url, model="test-model", api_key="sk-test"))
    llm_server.add_text("pong")
    await d.test_connection()
    assert d.last_result.ok
    assert len(re.findall(r"\d+ ?(?:ms|毫秒)", d.test_result.text())) == 1, d.test_result.text()


async def test_user_name_and_trash_retention_are_saved(dialog):
    d = dialog(Settings.load())
    assert d.user_name.maxLength() == 20
    d.user_name.setText("小林")
    d.trash_retention.setValue(7)
    assert await d.save()
    again = Settings.load()
    assert (again.user_name, again.trash_retention_days) == ("小林", 7.0)
    d2 = dialog(again)
    assert d2.user_name.text() == "小林" and d2.trash_retention.value() == 7


def test_spin_box_arrows_come_from_the_theme(qapp, dialog):
    for mode in ("light", "dark"):
        sheet = stylesheet(mode)
        assert "QDoubleSpinBox::up-arrow" in sheet and "chevron_up.svg" in sheet
        assert "QPushButton:focus" in sheet and "QListView:focus" in sheet
    qapp.setStyleSheet(stylesheet("light"))
    try:
        d = dialog(Settings.load())
        spin = d.temperature
        spin.setValue(0.5)  # both arrows enabled
        d.resize(600, 500)
        image = spin.grab().toImage()
        w, h = image.width(), image.height()
        arrow = QColor("#8a8f99")

        def arrow_pixels(top: int, bottom: int) -> int:
            found = 0
            for x in range(w - 20, w - 2):
                for y in range(top, bottom):
                    c = image.pixelColor(x, y)
                    if abs(c.red() - arrow.red()) + abs(c.green() - arrow.green()) + abs(c.blue() - arrow.blue()) < 40:
                        found += 1
            return found

        assert arrow_pixels(1, h // 2) >= 3 and arrow_pixels(h // 2, h - 1) >= 3
    finally:
        qapp.setStyleSheet("")


def test_a_disabled_spin_box_shows_no_empty_button_frame(qapp, dialog):
    """The recall budget's box is disabled while 自动 is on: its arrows are hidden, and so must be the
    frame of their buttons (an empty box beside the value read as a broken control)."""
    from sonetto_desktop.ui.theme import tokens

    qapp.setStyleSheet(stylesheet("light"))
    try:
        d = dialog(Settings.load())
        d.resize(600, 500)
        spin = d.temperature
        border = QColor(tokens("light")["border"])

        def frame_pixels() -> int:
            image = spin.grab().toImage()
            w, h = image.width(), image.height()
            found = 0
            for x in range(w - 26, w - 16):
                for y in range(4, h - 4):
                    c = image.pixelColor(x, y)
                    if abs(c.red() - border.red()) + abs(c.green() - border.green()) + abs(c.blue() - border.blue()) < 24:
                        found += 1
            return found

        assert frame_pixels() >= (spin.height() - 8) // 2  # enabled: the buttons' left edge is drawn
        spin.setEnabled(False)
        assert frame_pixels() == 0
    finally:
        qapp.setStyleSheet("")
