"""The settings page "其他应用": the MCP server's switches are saved, the token is shown and can be
replaced, and the snippets to paste into other apps carry the command, port and token."""

from __future__ import annotations

import json

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QLabel

from helpers import pick
from sonetto_desktop.config.secrets import mcp_token
from sonetto_desktop.mcp_server.clients_seen import ClientsSeen
from sonetto_desktop.config.settings import Settings, config_dir
from sonetto_desktop.ui.settings.dialog import SettingsDialog


async def test_the_page_saves_the_mcp_settings(qtbot):
    Settings(mcp_allowed_clients="claude-ai\ncursor-vscode").save(with_secret=False)  # edited by hand
    d = SettingsDialog(Settings.load())
    assert d.mcp_page.allowed.text() == "claude-ai, cursor-vscode"
    qtbot.addWidget(d)
    page = d.mcp_page
    assert page.enabled.isChecked() and not page.read_only.isChecked()
    page.read_only.setChecked(True)
    page.allowed.setText(" Cursor ,, Cherry Studio ")
    page.port.setValue(9321)
    assert await d.save()
    again = Settings.load()
    assert (again.mcp_enabled, again.mcp_read_only, again.mcp_allowed_clients, again.mcp_http_port) == (
        True, True, "Cursor, Cherry Studio", 9321)
    page.enabled.setChecked(False)
    assert not page.read_only.isEnabled() and not page.snippet.isEnabled()  # nothing to set while it is off
    assert await d.save() and Settings.load().mcp_enabled is False


async def test_the_token_is_shown_copied_and_replaced_and_the_snippets_carry_it(qtbot):
    d = SettingsDialog(Settings.load())
    qtbot.addWidget(d)
    page = d.mcp_page
    await page.refresh_token()
    assert page.seen.text() == "还没有应用连接过。"
    ClientsSeen().record("cursor-vscode")  # what `sonetto mcp` notes when an app connects
    await page.refresh_token()
    assert "cursor-vscode" in page.seen.text()
    token = mcp_token(create=False)
    assert token and page.token.text() == token
    assert await d.save() and token not in (config_dir() / "settings.json").read_text(encoding="utf-8")
    page.copy_token_button.click()
    assert QGuiApplication.clipboard().text() == token
    pick(page.client, "cursor")
    pick(page.transport, "http")
    page.port.setValue(9001)
    entry = json.loads(page.snippet.toPlainText())["mcpServers"]["sonetto"]
    assert entry == {"url": "http://127.0.0.1:9001/mcp", "headers": {"Authorization": f"Bearer {token}"}}
    await page.regenerate_token()
    fresh = mcp_token(create=False)
    assert fresh != token and page.token.text() == fresh and fresh in page.snippet.toPlainText()
    pick(page.client, "cherry")
    pick(page.transport, "stdio")
    entry = json.loads(page.snippet.toPlainText())["mcpServers"]["sonetto"]
    assert entry["type"] == "stdio" and entry["args"][-1] == "mcp" and "Cherry Studio" in page.where.text()
    page.copy_snippet_button.click()
    assert json.loads(QGuiApplication.clipboard().text()) == json.loads(page.snippet.toPlainText())


async def test_the_token_appears_when_the_page_is_opened(qtbot, wait):
    d = SettingsDialog(Settings.load())
    qtbot.addWidget(d)
    d.show()
    assert d.mcp_page.token.text() == ""
    d.show_page(d.mcp_page)
    await wait(lambda: d.mcp_page.token.text() != "")
    assert d.mcp_page.token.text() == mcp_token(create=False)
    d.close()


async def test_each_app_can_have_its_own_token_and_lose_it(qtbot):
    from sonetto_desktop.mcp_server.app_tokens import app_tokens

    d = SettingsDialog(Settings.load())
    qtbot.addWidget(d)
    page = d.mcp_page
    await page.refresh_token()
    assert any("不能证明" in label.text() for label in page.findChildren(QLabel))  # a name is what it declares
    await page.add_app_token("Cursor")
    token = app_tokens()["Cursor"]
    assert page.token_owner.currentData() == "Cursor" and page.token.text() == token
    assert token != mcp_token(create=False) and page.revoke_button.isEnabled()
    pick(page.transport, "http")
    pick(page.client, "cursor")
    assert json.loads(page.snippet.toPlainText())["mcpServers"]["sonetto"]["headers"]["Authorization"] == \
        f"Bearer {token}"
    await page.regenerate_token()  # the selected app's, not the shared one
    fresh = app_tokens()["Cursor"]
    assert fresh != token and page.token.text() == fresh
    await page.revoke_app_token()
    assert app_tokens() == {} and page.token_owner.currentData() is None
    assert page.token.text() == mcp_token(create=False) and not page.revoke_button.isEnabled()


async def test_the_launch_snippets_name_the_data_folder(qtbot, tmp_path):
    d = SettingsDialog(Settings(data_dir=str(tmp_path / "my data")))
    qtbot.addWidget(d)
    page = d.mcp_page
    pick(page.transport, "stdio")
    for client in ("claude", "cursor", "cherry"):
        pick(page.client, client)
        entry = json.loads(page.snippet.toPlainText())["mcpServers"]["sonetto"]
        assert entry["env"]["SONETTO_DATA_DIR"] == str(tmp_path / "my data")


async def test_the_shared_token_is_switched_off_once_an_app_has_its_own(qtbot):
    """Issue 35: the person turns the shared token off once apps have their own (the server then
    refuses it: tests/test_mcp_http.py); never while no app has one, and on again at any time."""
    d = SettingsDialog(Settings.load())
    qtbot.addWidget(d)
    page = d.mcp_page
    await page.refresh_token()
    assert page.shared_token.isChecked() and not page.shared_token.isEnabled()  # no app token yet
    await page.add_app_token("Cursor")
    assert page.shared_token.isEnabled()
    page.shared_token.setChecked(False)
    assert "只有持应用令牌的应用" in page.shared_hint.text() and page.shared_hint.isVisibleTo(page)
    assert await d.save() and Settings.load().mcp_shared_token is False
    await page.revoke_app_token()  # no app token left: nobody can connect over HTTP, and the page says so
    assert page.shared_token.isEnabled() and "没有应用能通过 HTTP 连接" in page.shared_hint.text()
    page.shared_token.setChecked(True)
    assert not page.shared_token.isEnabled() and not page.shared_hint.isVisibleTo(page)
    assert await d.save() and Settings.load().mcp_shared_token is True
    again = SettingsDialog(Settings(mcp_shared_token=False))
    qtbot.addWidget(again)
    assert again.mcp_page.shared_token.isChecked() is False


async def test_damaged_app_tokens_are_said_and_making_one_repairs_them(qtbot):
    """The server refuses declared names while the apps' tokens cannot be read (tests/test_mcp_server.py):
    the page says so and why, still shows the shared token, and a new app token replaces the damage."""
    from sonetto_desktop.config.secrets import store_secret
    from sonetto_desktop.mcp_server.app_tokens import SECRET, app_tokens

    store_secret(SECRET, "[1, 2")
    d = SettingsDialog(Settings.load())
    qtbot.addWidget(d)
    page = d.mcp_page
    await page.refresh_token()  # before: the page read them as "no app tokens" and said nothing
    assert page.token.text() == mcp_token(create=False)
    assert not page.tokens_problem.isHidden() and "应用令牌无法读取" in page.tokens_problem.text()
    assert "make them again" in page.tokens_problem.text()
    await page.add_app_token("Cursor")
    assert list(app_tokens()) == ["Cursor"] and page.tokens_problem.isHidden()
    await page.refresh_token()
    assert page.tokens_problem.isHidden() and page.token_owner.findData("Cursor") > 0
