"""Telling the built-in formats' files apart (``formats.BUILT_IN`` names these functions).

A JSON file is looked at from its start, a piece at a time (never all read, never hashed): ChatGPT's
and DeepSeek's exports are lists of conversations with a ``mapping``, Claude's with ``chat_messages``
(or one such conversation); one chat saved from DeepSeek's web page is ``data.biz_data.chat_session``;
a Cherry Studio backup's ``data.json`` an object with ``indexedDB`` and ``localStorage``. What a file
was found to be is kept on its :class:`Source` (every format asks about the same file).
"""

from __future__ import annotations

from typing import Any

from . import chatgpt, saved_memories
from .json_stream import JsonStream
from .model import HistoryFormatError
from .source_files import Source, open_json, text_of

#: How many conversations of a JSON file are looked at to tell its format.
DETECT_ELEMENTS = 20
EMPTY = "empty"


def json_kind(source: Source, name: str) -> str | None:
    """Which app wrote the JSON file ``name``: ``chatgpt``, ``deepseek``, ``claude``, ``cherry``,
    ``EMPTY`` (an empty list), else None. Worked out once per file."""
    if name not in source.kinds:
        source.kinds[name] = _json_kind(source, name)
    return source.kinds[name]


def _json_kind(source: Source, name: str) -> str | None:
    stream = open_json(source, name, hashed=False)
    first = stream.peek()
    if first == "{":
        return _object_kind(stream)
    if first != "[":
        return None
    for index in stream.items():
        if index > DETECT_ELEMENTS:
            return None
        conv: Any = stream.value()
        if not isinstance(conv, dict):
            continue
        if isinstance(conv.get("chat_messages"), list):
            return "claude"
        if not isinstance(conv.get("mapping"), dict):
            continue
        if "inserted_at" in conv or "root" in conv["mapping"] and "create_time" not in conv:
            return "deepseek"
        return "chatgpt"
    return EMPTY


def _object_kind(stream: JsonStream, depth: int = 0) -> str | None:
    """The kind of a JSON object, walked a key at a time: its ``chat_messages`` tell by their fields
    (Claude's have a ``sender``, DeepSeek's page a ``message_id``)."""
    keys: set[str] = set()
    for key in stream.members():
        keys.add(key)
        if depth == 0 and {"indexedDB", "localStorage"} <= keys:
            return "cherry"
        if key == "chat_session":
            return "deepseek"
        if key == "chat_messages":
            messages = stream.value()
            first = next((m for m in messages if isinstance(m, dict)), {}) if isinstance(messages, list) else {}
            return "claude" if "sender" in first else "deepseek" if "message_id" in first else None
        if key in ("data", "biz_data") and depth < 2 and stream.peek() == "{":
            kind = _object_kind(stream, depth + 1)
            if kind is not None:
                return kind
    return None


# ── one file ──────────────────────────────────────────────────────────

def is_chatgpt(source: Source, name: str) -> bool:
    # an empty list: an export without chats, read as ChatGPT's (nothing to import), as in a zip
    return json_kind(source, name) in ("chatgpt", EMPTY)


def is_claude(source: Source, name: str) -> bool:
    return json_kind(source, name) == "claude"


def is_deepseek(source: Source, name: str) -> bool:
    return json_kind(source, name) == "deepseek"


def is_cherry(source: Source, name: str) -> bool:
    return json_kind(source, name) == "cherry"


def is_saved_memories(source: Source, name: str) -> bool:
    """A ``.txt`` in ChatGPT's own dated memory-list form (``saved_memories.has_signature``)."""
    if source.members[name].size > 4 * saved_memories.MAX_TEXT_CHARS:  # UTF-8: at most 4 bytes a character
        return False
    try:
        return saved_memories.has_signature(text_of(source, name, hashed=False))
    except HistoryFormatError:  # not UTF-8: not a list of memories
        return False


# ── a zip or a folder ─────────────────────────────────────────────────

def _export_kind(source: Source) -> str | None:
    """The kind of the export's ``conversations.json`` (None: there is none, or a Cherry Studio
    backup's ``data.json`` is there, which decides first)."""
    if source.find("data.json") is not None:
        return None
    conversations = source.find("conversations.json")
    return json_kind(source, conversations) if conversations is not None else None


def archive_is_cherry(source: Source) -> bool:
    return source.find("data.json") is not None


def archive_is_chatgpt(source: Source) -> bool:
    kind = _export_kind(source)
    if kind in ("chatgpt", EMPTY):  # an export without conversations: read as ChatGPT (nothing to import)
        return True
    return kind not in ("claude", "deepseek") and not archive_is_cherry(source) and bool(source.matching(chatgpt.PART))


def archive_is_claude(source: Source) -> bool:
    return _export_kind(source) == "claude"


def archive_is_deepseek(source: Source) -> bool:
    """DeepSeek's export, or a zip or folder of chats saved from its web page (the first ``.json`` tells)."""
    if _export_kind(source) == "deepseek":
        return True
    saved = sorted(n for n in source.names if n.lower().endswith(".json"))
    return bool(saved) and json_kind(source, saved[0]) == "deepseek"


def cherry_folder_backup(source: Source) -> tuple[str, str] | None:
    if any("IndexedDB" in n or "Local Storage" in n for n in source.names):
        return ("这是 Cherry Studio 新版的目录式备份，无法读取其中的对话：请在旧版的“备份”里导出 data.json，或改用 JSON Lines",
                "this is a newer Cherry Studio folder backup, whose chats cannot be read: export a data.json "
                "backup, or use JSON Lines")
    return None
