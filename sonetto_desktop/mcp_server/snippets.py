"""The configuration other AI apps need to use Sonetto's memories (shown in settings, copy-paste).

Claude Desktop (``claude_desktop_config.json``) and Cursor (``~/.cursor/mcp.json``) take an
``mcpServers`` entry with a command; Cherry Studio imports the same shape (设置 → MCP 服务器 → 从 JSON
导入) with its ``type`` field. The HTTP variants carry the bearer token in a header (Claude Desktop's
bridge, ``mcp-remote``, takes it from its env, never from its arguments). A launched
server gets the data folder (and a config folder set by environment) in ``env``: an app that does not
pass its environment on would otherwise open another, empty store.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

SERVER_KEY = "sonetto"
#: The variable of the Claude Desktop bridge's env that holds its Authorization header.
BRIDGE_TOKEN_VAR = "SONETTO_AUTH_HEADER"
CLIENTS = ("claude", "cursor", "cherry")


def launch_command() -> tuple[str, list[str]]:
    """How another app starts ``sonetto mcp`` on this computer: the packaged executable, the
    installed ``sonetto`` script, or this Python with ``-m sonetto_desktop``."""
    if getattr(sys, "frozen", False):
        return sys.executable, ["mcp"]
    script = shutil.which("sonetto")
    if script is None:
        candidate = Path(sys.executable).with_name("sonetto.exe" if sys.platform == "win32" else "sonetto")
        script = str(candidate) if candidate.exists() else None
    if script is not None:
        return str(Path(script).resolve()), ["mcp"]
    return sys.executable, ["-m", "sonetto_desktop", "mcp"]


def http_url(port: int) -> str:
    return f"http://127.0.0.1:{int(port)}/mcp"


def launch_env(data_dir: str | os.PathLike[str] | None) -> dict[str, str]:
    """The environment a launched server needs to serve this app's memories: the data folder, and
    the config folder when this app runs with one set by ``SONETTO_CONFIG_DIR``."""
    env: dict[str, str] = {}
    if data_dir is not None and str(data_dir).strip():
        env["SONETTO_DATA_DIR"] = str(Path(data_dir).expanduser().absolute())
    config = os.environ.get("SONETTO_CONFIG_DIR", "").strip()
    if config:
        env["SONETTO_CONFIG_DIR"] = str(Path(config).expanduser().absolute())
    return env


def stdio_snippet(client: str, command: str, args: list[str], env: dict[str, str] | None = None) -> str:
    entry: dict = {"command": command, "args": list(args)}
    if env:
        entry["env"] = dict(env)
    if client == "cherry":
        entry = {"name": "Sonetto", "type": "stdio", **entry}
    return json.dumps({"mcpServers": {SERVER_KEY: entry}}, ensure_ascii=False, indent=2)


def http_snippet(client: str, port: int, token: str) -> str:
    headers = {"Authorization": f"Bearer {token}"}
    if client == "cherry":
        entry: dict = {"name": "Sonetto", "type": "streamableHttp", "baseUrl": http_url(port), "headers": headers}
    elif client == "claude":  # Claude Desktop starts local servers itself: a bridge to the HTTP one
        # The token in the bridge's env, which mcp-remote puts in the header: an argument with a space
        # reaches it in pieces on Windows, and one with the token is in every process listing.
        entry = {"command": "npx", "args": ["-y", "mcp-remote", http_url(port), "--header",
                                            "Authorization:${" + BRIDGE_TOKEN_VAR + "}"],
                 "env": {BRIDGE_TOKEN_VAR: f"Bearer {token}"}}
    else:
        entry = {"url": http_url(port), "headers": headers}
    return json.dumps({"mcpServers": {SERVER_KEY: entry}}, ensure_ascii=False, indent=2)
