"""What the chat engine streams to its driver (the UI, the tray quick chat, tests). No Qt, and light
to import: the UI loads it before the LLM stack (see ``turn_events`` for the LangChain side)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .storage_errors import storage_message

ERROR_CODES = (
    "unconfigured", "unreachable", "auth", "rate_limit", "server", "timeout", "bad_response", "refused",
    "unknown_model", "tool_loop", "empty_reply", "cut_off", "cancelled", "input", "storage",
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
      unknown_model, tool_loop (tools called again and again, no answer), empty_reply (the model
      answered nothing), cut_off (the reply stopped before its end: its stream closed with no finish,
      or it reached the model's length limit; what arrived is kept, as at a stall), cancelled, input, storage (the session database could not be written;
      ``text`` then holds the reply that was shown but not saved; the message names the reason:
      disk full, read-only, busy, or damaged — a damaged database has been moved aside, kept
      under the name given, and a fresh one started, so the next message works). ``timeout``
      also covers a reply that stalled: no first chunk, or no next chunk, within the configured
      seconds. ``done`` and ``error`` carry ``turn_id`` (except input errors); ``done`` also
      repeats the turn's ``memories``.
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
    #: memory switches (``ChatEngine.set_session_memory``): recall before replies, write after turns
    recall: bool = True
    write: bool = True
    #: a temporary chat: no recall, nothing written or journaled, gone when closed or the app quits
    temporary: bool = False


# ── building events ─────────────────────────────────────────────────────────────────────────


def input_error(zh: str, en: str) -> ChatEvent:
    return ChatEvent("error", error_code="input", error_zh=zh, error_en=en)


def storage_error(turn_id: str = "", text: str = "", reason: str = "other", moved_to: str = "") -> ChatEvent:
    """The ``storage`` error: ``reason`` is full, readonly, damaged, busy or other (see
    ``storage_errors``); for a damaged database ``moved_to`` names the file it was kept as."""
    zh, en = storage_message(reason, moved_to)
    return ChatEvent("error", text=text, turn_id=turn_id, error_code="storage", error_zh=zh, error_en=en)
