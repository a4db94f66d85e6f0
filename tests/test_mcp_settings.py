"""The MCP server's settings, token, access rules and the snippets other apps are configured with."""

from __future__ import annotations

import json
import stat
import sys

import pytest

from sonetto_desktop.config.secrets import MCP_TOKEN, load_secret, mcp_token, new_mcp_token
from sonetto_desktop.config.settings import Settings
from sonetto_desktop.mcp_server.access import (MAX_CLIENT_CHARS, Access, AccessDenied, actor_for, allowed_clients,
                                               client_label)
from sonetto_desktop.mcp_server.snippets import CLIENTS, http_snippet, launch_command, stdio_snippet
from sonetto_desktop.memory.changes import check_actor


def test_mcp_settings_round_trip_and_bad_values_fall_back(tmp_path):
    path = tmp_path / "settings.json"
    Settings(mcp_enabled=False, mcp_read_only=True, mcp_allowed_clients="Cursor\nCherry Studio",
             mcp_http_port=9123).save(path, with_secret=False)
    loaded = Settings.load(path, with_secret=False)
    assert (loaded.mcp_enabled, loaded.mcp_read_only, loaded.mcp_allowed_clients, loaded.mcp_http_port) == (
        False, True, "Cursor\nCherry Studio", 9123)
    path.write_text(json.dumps({"mcp_http_port": 80, "mcp_enabled": "yes"}), encoding="utf-8")
    loaded = Settings.load(path, with_secret=False)
    assert loaded.mcp_http_port == 8765 and loaded.mcp_enabled is True
    path.write_text(json.dumps({"mcp_http_port": 8000.5}), encoding="utf-8")
    assert Settings.load(path, with_secret=False).mcp_http_port == 8765
    assert [p.field for p in Settings(mcp_http_port=70000).validate()] == ["mcp_http_port"]


def test_the_token_is_made_once_kept_secret_and_can_be_replaced(_isolated_user_dirs):
    assert mcp_token(create=False) == ""
    first = mcp_token()
    assert len(first) >= 40 and mcp_token() == first == load_secret(MCP_TOKEN)
    key_file = _isolated_user_dirs / "config" / MCP_TOKEN
    if sys.platform != "win32":
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    Settings.load().save()
    assert first not in (_isolated_user_dirs / "config" / "settings.json").read_text(encoding="utf-8")
    second = new_mcp_token()
    assert second != first and mcp_token() == second


@pytest.mark.parametrize("raw, shown", [
    ("Claude Desktop", "Claude Desktop"),
    ("  cursor\n\x1b[31mvscode ", "cursor [31mvscode"),
    ("", "unknown"),
    (None, "unknown"),
    ("x" * 200, "x" * MAX_CLIENT_CHARS),
])
def test_client_names_become_bounded_printable_actors(raw, shown):
    assert client_label(raw) == shown
    assert check_actor(actor_for(raw)) == f"mcp:{shown}"


def test_allow_list_and_read_only():
    assert allowed_clients("Cursor, Cherry Studio\n\nclaude-ai；Cursor") == ["Cursor", "Cherry Studio", "claude-ai"]
    settings = Settings(mcp_allowed_clients="Cursor")
    access = Access(lambda: settings)
    access.check("cursor", write=True)
    with pytest.raises(AccessDenied, match="not on"):
        access.check("Claude Desktop", write=False)
    settings.mcp_allowed_clients, settings.mcp_read_only = "", True
    access.check("Claude Desktop", write=False)
    with pytest.raises(AccessDenied, match="read-only"):
        access.check("Claude Desktop", write=True)
    settings.mcp_enabled = False
    with pytest.raises(AccessDenied, match="switched off"):
        access.check("Claude Desktop", write=False)


@pytest.mark.parametrize("client", CLIENTS)
def test_snippets_are_json_the_apps_take(client):
    command, args = launch_command()
    assert args[-1] == "mcp"
    entry = json.loads(stdio_snippet(client, command, args))["mcpServers"]["sonetto"]
    assert entry["command"] == command and entry["args"] == args
    http = json.loads(http_snippet(client, 8765, "tok-123"))["mcpServers"]["sonetto"]
    text = json.dumps(http)
    assert "http://127.0.0.1:8765/mcp" in text and "Bearer tok-123" in text
    if client == "cherry":
        assert entry["type"] == "stdio" and http["type"] == "streamableHttp"
