"""Spawning ``sonetto mcp`` and talking to it through the official MCP SDK's own client."""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp_types import Implementation

ROOT = Path(__file__).resolve().parent.parent
CLIENT = "Claude Desktop"


def server_env(**extra: str) -> dict[str, str]:
    """The test's isolated config and data dirs (set by conftest), the code under test first on the path."""
    env = {name: os.environ[name] for name in ("SONETTO_CONFIG_DIR", "SONETTO_DATA_DIR", "PYTHON_KEYRING_BACKEND")}
    env["PYTHONPATH"] = str(ROOT)
    env.update(extra)
    return env


def server_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "sonetto_desktop", "mcp", *args]


@contextlib.asynccontextmanager
async def stdio_session(client: str = CLIENT, *, stderr: Path | None = None, **env: str) -> AsyncIterator[ClientSession]:
    """``stderr``: the file the server's log lines go to (default: none kept)."""
    command = server_command()
    params = StdioServerParameters(command=command[0], args=command[1:], env=server_env(**env), cwd=str(ROOT))
    with open(stderr or os.devnull, "w") as errlog:  # the server's log lines (jieba's start-up) are not the test's
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write, client_info=Implementation(name=client, version="1.0")) as session:
                await session.initialize()
                yield session


def payload(result: Any) -> dict[str, Any]:
    """A successful tool call's structured result."""
    assert not result.is_error, result.content
    return result.structured_content or json.loads(result.content[0].text)


def error_text(result: Any) -> str:
    assert result.is_error, result
    return " ".join(block.text for block in result.content)


def save_settings(**values: Any) -> None:
    from sonetto_desktop.config.settings import Settings

    settings = Settings.load(with_secret=False)
    for name, value in values.items():
        setattr(settings, name, value)
    settings.save(with_secret=False)
