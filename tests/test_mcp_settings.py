"""The MCP server's settings, token, access rules and the snippets other apps are configured with."""

from __future__ import annotations

import json
import stat
import sys

import pytest

from sonetto_desktop.config.secrets import MCP_TOKEN, load_secret, mcp_token, new_mcp_token
from sonetto_desktop.config.settings import Settings, load_settings
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
    ("Cur\u200bsor\u2060\ufeff", "Cursor"),  # invisible characters are never stored or shown
    ("\u202eCursor\u202c\ufe0f", "Cursor"),
    ("Ｃｕｒｓｏｒ", "Cursor"),  # NFKC: full-width letters are the plain ones
    ("\u200b\u2060", "unknown"),
])
def test_client_names_become_bounded_printable_actors(raw, shown):
    assert client_label(raw) == shown
    assert check_actor(actor_for(raw)) == f"mcp:{shown}"


def test_an_app_behind_the_http_bridge_is_the_app_whatever_the_bridges_version():
    """mcp-remote (the bridge the settings page gives Claude Desktop for HTTP) renames the app in the
    handshake to 'Claude Desktop (via mcp-remote 0.1.38)', a new name with each of its versions: the
    allow list's 'Claude Desktop' refused it, and each update of the bridge made the app another
    actor (its earlier memories no longer its own)."""
    settings = Settings(mcp_allowed_clients="Claude Desktop")
    access = Access(lambda: settings, app_names=list)
    for declared in ("Claude Desktop (via mcp-remote 0.1.37)", "Claude Desktop (via mcp-remote 0.1.38)"):
        access.check(declared, write=True)
        assert actor_for(declared) == "mcp:Claude Desktop"
    with pytest.raises(AccessDenied, match="not on"):
        access.check("Cursor (via mcp-remote 0.1.38)", write=False)
    assert client_label("Notes (work)") == "Notes (work)"  # a name's own brackets stay


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


def test_the_claude_bridge_keeps_the_token_off_its_command_line():
    """Claude Desktop reaches the HTTP server through mcp-remote, a command it starts. Claude Desktop on
    Windows does not quote an argument with a space ('Authorization: Bearer …' reached mcp-remote in
    pieces: 401), and a token among the arguments is in every process listing and in the line
    mcp-remote logs its headers with: the header names a variable of the entry's env instead, which
    mcp-remote fills in."""
    entry = json.loads(http_snippet("claude", 8765, "tok-123"))["mcpServers"]["sonetto"]
    assert entry["command"] == "npx" and "mcp-remote" in entry["args"]
    assert not any(" " in arg or "tok-123" in arg for arg in entry["args"]), entry["args"]
    header = entry["args"][entry["args"].index("--header") + 1]
    name, _, value = header.partition(":")
    assert name == "Authorization"
    variable = value.removeprefix("${").removesuffix("}")
    assert value == "${" + variable + "}" and entry["env"][variable] == "Bearer tok-123"


GUARDED = {"mcp_enabled": True, "mcp_read_only": True, "mcp_allowed_clients": "claude"}
DAMAGED = {
    "truncated": json.dumps(GUARDED)[:-5],
    "stray byte": json.dumps(GUARDED) + "\x00",
    "empty": "",
    "directory": None,
    "symlink loop": None,
    "read-only as a string": json.dumps({**GUARDED, "mcp_read_only": "true"}),
    "allow list as a number": json.dumps({**GUARDED, "mcp_allowed_clients": 5}),
}


def _damage(path, variant: str) -> None:
    import os

    path.parent.mkdir(parents=True, exist_ok=True)
    if variant == "directory":
        path.mkdir()
    elif variant == "symlink loop":
        os.symlink(path, path)
    else:
        path.write_text(DAMAGED[variant], encoding="utf-8")


def _state(path):
    return (path.is_symlink(), path.is_dir(), path.read_bytes() if path.is_file() and not path.is_symlink() else None,
            sorted(p.name for p in path.parent.iterdir()))


@pytest.mark.parametrize("variant", list(DAMAGED))
def test_damaged_settings_refuse_every_app_and_are_left_for_the_app(_isolated_user_dirs, variant):
    if variant == "symlink loop" and sys.platform == "win32":
        pytest.skip("no symlinks without privileges on Windows")
    from sonetto_desktop.config.settings import SETTINGS_FILE, config_dir
    from sonetto_desktop.mcp_server.access import load_access_settings

    path = config_dir() / SETTINGS_FILE
    Settings(**GUARDED).save(path, with_secret=False)
    Access().check("claude", write=False)  # the person's rules, read well: reads allowed, writes not
    with pytest.raises(AccessDenied, match="read-only"):
        Access().check("claude", write=True)
    path.unlink()
    _damage(path, variant)
    before = _state(path)
    for write in (True, False):  # fails closed: the defaults would let any app write
        with pytest.raises(AccessDenied, match="cannot be read"):
            Access().check("claude", write=write)
        with pytest.raises(AccessDenied, match="cannot be read"):
            Access().check("anything", write=write)
    with pytest.raises(ValueError):
        load_access_settings()
    Settings.load(repair=False, with_secret=False)  # what `sonetto mcp` reads at start
    assert _state(path) == before and not any(".corrupt-" in name for name in before[3])


def test_a_missing_settings_file_is_the_defaults():
    from sonetto_desktop.mcp_server.access import load_access_settings

    assert load_access_settings().mcp_enabled is True
    Access().check("anything", write=True)


def test_per_app_tokens_are_made_kept_secret_and_revoked(_isolated_user_dirs):
    from sonetto_desktop.mcp_server.app_tokens import SECRET, app_of, app_tokens, new_app_token, revoke_app_token

    assert app_tokens() == {}
    cursor = new_app_token("Cursor")
    cherry = new_app_token("Cherry Studio\n")
    assert app_tokens() == {"Cursor": cursor, "Cherry Studio": cherry} and len(cursor) >= 40
    assert cursor != cherry != mcp_token()
    if sys.platform != "win32":
        assert stat.S_IMODE((_isolated_user_dirs / "config" / SECRET).stat().st_mode) == 0o600
    assert app_of(cherry, app_tokens()) == "Cherry Studio" and app_of("nope", app_tokens()) is None
    again = new_app_token("Cursor")
    assert again != cursor and app_of(cursor, app_tokens()) is None
    assert revoke_app_token("Cursor") and not revoke_app_token("Cursor")
    assert app_tokens() == {"Cherry Studio": cherry}


def test_a_token_is_not_made_for_a_look_alike_of_an_app_with_one(_isolated_user_dirs):
    from sonetto_desktop.mcp_server.app_tokens import LookalikeName, app_tokens, new_app_token, revoke_app_token

    cursor = new_app_token("Cursor")
    for lookalike in ("\u0421ursor", "Cur sor", "CURS0R"):
        with pytest.raises(LookalikeName, match="looks like 'Cursor'"):
            new_app_token(lookalike)
    again = new_app_token("cursor\u200b")  # the same app in other capitals: its token is replaced
    assert app_tokens() == {"cursor": again} and again != cursor
    assert revoke_app_token("CURSOR") and app_tokens() == {}


def test_a_declared_name_is_compared_as_it_reads_with_the_reserved_ones():
    access = Access(lambda: Settings(mcp_allowed_clients="Cursor"), app_names=lambda: ["Claude Desktop"])
    access.check("Cur\u200bsor", write=True)  # the allow list reads it as Cursor
    with pytest.raises(AccessDenied, match="not on"):
        access.check("\u0421ursor", write=True)  # a Cyrillic С is not on the list
    access = Access(lambda: Settings(), app_names=lambda: ["Claude Desktop"])
    for name in ("claude\u00a0desktop", "Claude\u200b Desktop", "Ｃlaude Desktop"):
        with pytest.raises(AccessDenied, match="has a token of its own"):
            access.check(name, write=False)
    for name in ("\u0421laude Desktop", "C\u04cfaude Desktop", "Claude-Desktop", "Cla\u0301ude Desktop", "CIaude Desktop"):
        with pytest.raises(AccessDenied, match="looks like 'Claude Desktop'"):
            access.check(name, write=False)
    assert access.check("Claude Code", write=True).mcp_enabled  # a name of its own


def test_a_launched_server_is_told_which_data_folder_to_serve(tmp_path, monkeypatch):
    from sonetto_desktop.mcp_server.snippets import launch_env

    monkeypatch.delenv("SONETTO_CONFIG_DIR")
    assert launch_env(tmp_path / "data") == {"SONETTO_DATA_DIR": str(tmp_path / "data")}
    monkeypatch.setenv("SONETTO_CONFIG_DIR", str(tmp_path / "cfg"))
    env = launch_env(tmp_path / "data")
    assert env == {"SONETTO_DATA_DIR": str(tmp_path / "data"), "SONETTO_CONFIG_DIR": str(tmp_path / "cfg")}
    command, args = launch_command()
    for client in CLIENTS:
        entry = json.loads(stdio_snippet(client, command, args, env))["mcpServers"]["sonetto"]
        assert entry["env"] == env and entry["command"] == command


async def test_the_settings_follower_skips_a_damaged_file_or_a_failed_apply_and_keeps_following(caplog):
    """What ``sonetto mcp`` runs to follow the app's saves: a file that cannot be read, or settings that
    cannot be applied, are logged and the previous ones stay; the next good save is applied."""
    from sonetto_desktop.config.settings import SETTINGS_FILE
    from sonetto_desktop.settings_follow import SettingsFollower
    from sonetto_desktop.config.paths import config_dir

    Settings().save()
    current = load_settings()  # what the server runs with: the environment's overrides on top
    applied: list[Settings] = []
    fail = [False]

    async def apply(new: Settings) -> None:
        if fail[0]:
            raise RuntimeError("the store cannot be opened")
        nonlocal current
        current = new
        applied.append(new)

    follower = SettingsFollower(lambda: current, apply, settle=0.0)
    assert await follower.refresh() is False  # the settings in use are the saved ones
    (config_dir() / SETTINGS_FILE).write_text("{not json", encoding="utf-8")
    assert await follower.refresh() is False and current.review_mode is False
    assert "cannot be read" in caplog.text
    fail[0] = True
    Settings(review_mode=True).save()
    assert await follower.refresh() is False and current.review_mode is False
    assert "could not apply" in caplog.text
    fail[0] = False
    Settings(review_mode=True, recall_timeout=3.0).save()
    assert await follower.refresh() is True
    assert current.review_mode is True and current.recall_timeout == 3.0 and len(applied) == 1
    assert await follower.refresh() is False  # nothing changed since (the settle look finds the same)


async def test_a_look_after_a_save_waits_for_the_apply_another_look_began():
    """``sonetto mcp``'s background look saw the app's save and began applying it (a model configured:
    the writer starting); a tool called right then looked, found the files as last seen and went on at
    once, with the old settings: "writing": false for a model the person had just configured (seen once in
    a full run). A look now waits for an apply under way before it answers."""
    import asyncio

    from sonetto_desktop.settings_follow import SettingsFollower

    Settings().save()
    current = load_settings()
    entered, release = asyncio.Event(), asyncio.Event()

    async def apply(new: Settings) -> None:
        nonlocal current
        entered.set()
        await release.wait()  # (the writer starting)
        current = new

    follower = SettingsFollower(lambda: current, apply)  # (the settle look comes 2 s later)
    assert await follower.refresh() is False
    Settings(review_mode=True).save()  # the person's save in the app
    background = asyncio.ensure_future(follower.refresh())  # the follower's own look, every second
    await asyncio.wait_for(entered.wait(), 10)
    tool = asyncio.ensure_future(follower.refresh())  # a tool's look, before its call
    await asyncio.sleep(0.2)
    assert not tool.done(), "the tool went on with the settings before the save"
    release.set()
    assert await asyncio.wait_for(background, 10) is True
    await asyncio.wait_for(tool, 10)
    assert current.review_mode is True


def test_the_servers_log_lines_hide_passwords_and_keys(tmp_path):
    """``sonetto mcp`` logged to stderr without the app's redaction: a line quoting a memory server's
    address or an error's text showed the password (the window's log hides it)."""
    import subprocess

    Settings(mcp_enabled=False).save(with_secret=False)  # the server ends right after its logging is set up
    script = ("import logging, sys\n"
              "from sonetto_desktop.mcp_server.entry import main\n"
              "assert main(['--verbose']) == 2\n"
              "logging.getLogger('sonetto_desktop.x').warning('cannot reach postgresql://me:Zz9-s3cret/x@db:5432/m')\n"
              "logging.getLogger('psycopg').info('conninfo host=db password=Zz9-s3cret; key sk-Zz9s3cretKey')\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "cannot reach postgresql://me:***@db:5432/m" in done.stderr, done.stderr
    assert "Zz9" not in done.stderr and "host=db password=***" in done.stderr, done.stderr
