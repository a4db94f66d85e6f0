"""What the chat engine streams to its driver (the UI, the tray quick chat, tests). No Qt."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ChatEvent:
    """One event of a reply, in order: memories, (token | tool_start | tool_end)*, then done or error.

    - ``memories``: ``memories`` holds the recalled ``[{id, description, theme}]`` for this turn.
    - ``token``: ``text`` is the next piece of the reply.
    - ``tool_start`` / ``tool_end``: ``tool`` names the companion tool; ``text`` its input / output.
    - ``done``: ``text`` is the full reply; ``turn_id`` identifies the turn.
    - ``error``: ``error_zh`` / ``error_en`` say what went wrong, for a person; ``error_code`` is one
      of unconfigured, unreachable, auth, rate_limit, server, timeout, bad_response, cancelled, input.
    """

    kind: str
    text: str = ""
    memories: list[dict[str, Any]] = field(default_factory=list)
    tool: str = ""
    turn_id: str = ""
    error_code: str = ""
    error_zh: str = ""
    error_en: str = ""


@dataclass(frozen=True)
class SessionInfo:
    id: str
    title: str
    created_at: str
    updated_at: str
