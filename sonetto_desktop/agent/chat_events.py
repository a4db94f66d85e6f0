"""What the chat engine streams to its driver (the UI, the tray quick chat, tests). No Qt, and light
to import: the UI loads it before the LLM stack (see ``turn_events`` for the LangChain side)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

ERROR_CODES = (
    "unconfigured", "unreachable", "auth", "rate_limit", "server", "timeout", "bad_response",
    "unknown_model", "cancelled", "input", "storage",
)


@dataclass(frozen=True)
class ChatEvent:
    """One event of a reply, in order: memories, (token | tool_start | tool_end)*, then done or error.

    - ``memories``: ``memories`` holds the recalled ``[{id, description, theme, date?}]`` for this
      turn (``date``: ``YYYY-MM-DD`` of the memory's last update, when known). The first event of
      every turn that passed the input checks (an ``input`` error comes alone).
    - ``token``: ``text`` is the next piece of the reply.
    - ``tool_start`` / ``tool_end``: ``tool`` names the companion tool; ``text`` its input / output.
    - ``done``: ``text`` is the full reply; ``turn_id`` identifies the turn.
    - ``error``: ``error_zh`` / ``error_en`` say what went wrong, for a person; ``error_code`` is one
      of ``ERROR_CODES``: unconfigured, unreachable, auth, rate_limit, server, timeout, bad_response,
      unknown_model, cancelled, input, storage (the session database could not be written;
      ``text`` then holds the reply that was shown but not saved). ``done`` and ``error`` carry
      ``turn_id`` (except input errors); ``done`` also repeats the turn's ``memories``.
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
    """A chat session as listed: timestamps are UTC ISO 8601; ``updated_at`` moves with each message."""

    id: str
    title: str
    created_at: str
    updated_at: str


# ── building events ─────────────────────────────────────────────────────────────────────────


def input_error(zh: str, en: str) -> ChatEvent:
    return ChatEvent("error", error_code="input", error_zh=zh, error_en=en)


def storage_error(turn_id: str = "", text: str = "") -> ChatEvent:
    return ChatEvent(
        "error", text=text, turn_id=turn_id, error_code="storage",
        error_zh="无法保存对话记录（磁盘已满，或数据文件被占用/无权限）。请检查数据目录后再试。",
        error_en="The conversation could not be saved (disk full, or the data file is locked or not writable). "
        "Check the data folder and try again.",
    )
