"""A chat turn as the memory writer takes it: validated, normalised, secrets hidden, and clipped for
the prompt.

Every way a turn reaches the writer (a chat, an imported conversation, one another app hands over)
goes through :func:`normalize_turn`, which hides secret values (``secret_filter.redact_secrets``):
the journal, the model and the excerpt each change keeps see ``［已隐去的密码］``, never the value.
The journal keeps the whole turn; only the text sent to the model is clipped. A turn's words cannot
pass for the prompt's own structure: a line starting with ``#`` (a Markdown heading, or a forged
``## 记忆库``) has its ``#`` made full-width, and a conversation another app handed over is quoted
line by line (``> ``) under its app's name (``format_turn(..., source=...)``).
"""

from __future__ import annotations

import re
from typing import Any, Sequence

from ..lazy_model import loaded_class
from ..unicode_text import storable
from .secret_filter import redact_secrets

MAX_MESSAGE_CHARS = 4000
MAX_TURN_CHARS = 12000
MAX_QUERY_CHARS = 2000

_ROLES = {"user": "user", "human": "user", "assistant": "assistant", "ai": "assistant"}
_SPEAKER = {"user": "用户", "assistant": "Sonetto"}
_HEADING = re.compile(r"^([ \t]*)(#+)", re.MULTILINE)


def normalize_turn(turn_messages: Any, *, secrets_hidden: bool = False) -> list[dict[str, str]]:
    """``[{role, content}]`` with roles ``user`` / ``assistant`` only, secret values hidden; accepts
    dicts or LangChain messages. ``secrets_hidden``: the contents are ``redact_secrets``' output already
    (an imported batch, rendered so: ``history_import.plan.Batch.render``), not read by the filter again
    unless making them storable changed them.

    Raises ``ValueError`` when nothing with text is left (there is nothing to remember)."""
    if isinstance(turn_messages, (str, bytes)) or not hasattr(turn_messages, "__iter__"):
        raise ValueError("turn_messages must be a list of {role, content} messages")
    out: list[dict[str, str]] = []
    message_class = loaded_class("langchain_core.messages.base", "BaseMessage")  # None: no message is one
    for msg in turn_messages:
        if message_class is not None and isinstance(msg, message_class):
            role, content = msg.type, msg.content
        elif isinstance(msg, dict):
            role, content = msg.get("role", ""), msg.get("content", "")
        else:
            raise ValueError(f"a turn message must be a dict with role and content, not {type(msg).__name__}")
        if isinstance(content, list):  # content blocks
            content = "".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in content)
        role = _ROLES.get(str(role).lower())
        if role is None or not isinstance(content, str) or not content.strip():
            continue
        text = storable(content)  # the journal is UTF-8 JSON
        out.append({"role": role, "content": text if secrets_hidden and text is content else redact_secrets(text)[0]})
    if not out:
        raise ValueError("turn_messages is empty: it has no user or assistant message with text, nothing to remember")
    return out


def read_of_message(text: str) -> str:
    """What the writer reads of one person's message (``format_turn``: at most ``MAX_MESSAGE_CHARS``,
    the head and the tail of a longer one)."""
    return _clip(text, MAX_MESSAGE_CHARS)


def _clip(text: str, limit: int) -> str:
    """Keep the head and the tail of an over-long text, saying how much was left out."""
    if len(text) <= limit:
        return text
    tail = limit // 5
    head = limit - tail
    return f"{text[:head]}\n……（中间省略 {len(text) - limit} 字）……\n{text[-tail:]}"


def format_turn(messages: list[dict[str, str]], *, max_message_chars: int = MAX_MESSAGE_CHARS,
                max_turn_chars: int = MAX_TURN_CHARS, source: str | None = None) -> str:
    """The turn as the writer reads it, each message clipped, user messages favoured over replies.
    ``source``: the app the conversation came from (its assistant is that app's, and every line is
    quoted); None: a chat with Sonetto."""
    speakers = _SPEAKER if source is None else {"user": "用户", "assistant": f"助手（{source}）"}
    budget_each = max(200, min(max_message_chars, max_turn_chars // max(1, len(messages))))
    parts = []
    for msg in messages:
        limit = budget_each if msg["role"] == "assistant" else max(budget_each, max_message_chars)
        parts.append(f"{speakers[msg['role']]}：{_clip(msg['content'].strip(), limit)}")
    text = _HEADING.sub(lambda m: m.group(1) + "＃" * len(m.group(2)), _clip("\n\n".join(parts), max_turn_chars + 200))
    if source is None:
        return text
    return "\n".join(f"> {line}" if line else ">" for line in text.split("\n"))


def turn_query_text(messages: list[dict[str, str]], limit: int = MAX_QUERY_CHARS) -> str:
    """The turn's words for finding related memories: the user's words first (an over-long text
    keeps its head and tail, where a pasted text's question usually is), then the replies as far
    as ``limit`` allows."""

    def joined(role: str) -> str:
        return "\n".join(m["content"].strip() for m in messages if m["role"] == role and m["content"].strip())

    user = joined("user")
    if len(user) > limit:
        half = limit // 2
        return f"{user[:half]}\n{user[-(limit - half - 1):]}"
    room = limit - len(user) - 1
    replies = joined("assistant")[:max(room, 0)]
    return f"{user}\n{replies}" if user and replies else user or replies


def last_exchange(messages: Sequence[Any]) -> list[Any]:
    """The last user message and the assistant replies after it (a stored session's latest turn)."""
    msgs = list(messages)

    def role(msg: Any) -> str:
        value = msg.get("role", "") if isinstance(msg, dict) else getattr(msg, "type", "")
        return _ROLES.get(str(value).lower(), str(value))

    for i in range(len(msgs) - 1, -1, -1):
        if role(msgs[i]) == "user":
            return [msgs[i]] + [m for m in msgs[i + 1:] if role(m) == "assistant"]
    raise ValueError("the session has no user message: there is no turn to remember")
