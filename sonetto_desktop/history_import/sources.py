"""Telling which history format a picked path holds, and reading it with that format's reader."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from . import chatgpt, cherry, claude, deepseek, jsonl, saved_memories, sonetto_md
from .model import FORMATS, History, HistoryFormatError
from .json_stream import JsonStream
from .source_files import Source, open_json, open_source, text_of

_CHATGPT_PART = chatgpt.PART
#: How many conversations of a JSON file are looked at to tell its format.
DETECT_ELEMENTS = 20
EMPTY = "empty"


def _json_kind(source: Source, name: str) -> str | None:
    """Which app wrote the JSON file ``name``, from its start (read a piece at a time, not hashed):
    ``chatgpt`` / ``deepseek`` (a list of conversations with a ``mapping``), ``claude`` (a list of
    conversations with ``chat_messages``, or one of them), ``deepseek`` also for one chat saved from
    DeepSeek's web page (``data.biz_data.chat_session``), ``cherry`` (a backup's ``data.json``: an
    object with ``indexedDB`` and ``localStorage``), ``EMPTY`` (an empty list), else None."""
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
    """The kind of a JSON object, walked a key at a time (see ``_json_kind``): its ``chat_messages``
    tell by their fields (Claude's have a ``sender``, DeepSeek's page a ``message_id``)."""
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


def _saved_memories_signature(source: Source, name: str) -> bool:
    """A ``.txt`` in ChatGPT's own dated memory-list form (``saved_memories.has_signature``)."""
    if source.members[name].size > 4 * saved_memories.MAX_TEXT_CHARS:  # UTF-8: at most 4 bytes a character
        return False
    try:
        return saved_memories.has_signature(text_of(source, name, hashed=False))
    except HistoryFormatError:  # not UTF-8: not a list of memories
        return False


def detect(source: Source) -> str:
    """The format of ``source`` (see ``model.FORMATS``), or ``HistoryFormatError`` saying what was found."""
    name = source.path.name
    if len(source.names) == 1 and source.names[0] == source.path.name:  # one plain file
        suffix = source.path.suffix.lower()
        if suffix in (".jsonl", ".ndjson"):
            return "jsonl"
        if suffix in (".md", ".markdown"):
            return "sonetto"
        if suffix == ".txt":
            if _saved_memories_signature(source, name):
                return "chatgpt-memories"
            raise HistoryFormatError(
                f"不认识 {name} 的内容：如果它是从 ChatGPT“管理记忆”复制的已保存记忆，请在格式里选"
                "“ChatGPT 已保存的记忆（文本）”（命令行：--format chatgpt-memories）；聊天记录请选导出的 zip 或 .json",
                f"the content of {name} is not recognised: if it is ChatGPT's saved memories copied from "
                "“Manage memories”, pick the format “ChatGPT saved memories (text)” (command line: --format "
                "chatgpt-memories); for chats pick the export's zip or .json")
        if suffix == ".json":
            kind = _json_kind(source, name)
            if kind not in (None, EMPTY):
                return kind
            raise HistoryFormatError(
                f"{name} 不是能识别的聊天记录（ChatGPT、Claude 或 DeepSeek 的 conversations.json，从 DeepSeek 网页"
                "保存的对话，Cherry Studio 的 data.json）",
                f"{name} is not a chat history this app knows (ChatGPT's, Claude's or DeepSeek's "
                "conversations.json, a chat saved from DeepSeek's web page, Cherry Studio's data.json)")
        raise HistoryFormatError(f"不认识 {name} 的文件类型：请选 .zip、.json、.jsonl、.md 或 .txt",
                                 f"unknown file type of {name}: pick a .zip, .json, .jsonl, .md or .txt")
    if source.find("data.json") is not None:
        return "cherry"
    conversations = source.find("conversations.json")
    if conversations is not None:
        kind = _json_kind(source, conversations)
        if kind in ("chatgpt", "claude", "deepseek"):
            return kind
        if kind == EMPTY:
            return "chatgpt"  # an export without conversations: read as ChatGPT (nothing to import)
    if source.matching(_CHATGPT_PART):
        return "chatgpt"
    if _saved_deepseek_chats(source):
        return "deepseek"
    if any("IndexedDB" in n or "Local Storage" in n for n in source.names):
        raise HistoryFormatError(
            "这是 Cherry Studio 新版的目录式备份，无法读取其中的对话：请在旧版的“备份”里导出 data.json，或改用 JSON Lines",
            "this is a newer Cherry Studio folder backup, whose chats cannot be read: export a data.json "
            "backup, or use JSON Lines")
    raise HistoryFormatError(
        f"{name} 里没有聊天记录（找不到 conversations.json、conversations-000.json 或 data.json）",
        f"{name} holds no chat history (no conversations.json, conversations-000.json or data.json)")


def _saved_deepseek_chats(source: Source) -> bool:
    """A zip or folder of chats saved from DeepSeek's web page, one a ``.json`` (the first tells)."""
    saved = sorted(n for n in source.names if n.lower().endswith(".json"))
    return bool(saved) and _json_kind(source, saved[0]) == "deepseek"


def read_history(path: str | Path, fmt: str | None = None) -> History:
    """Read ``path`` as ``fmt`` (default: detected). Blocking; raises ``HistoryFormatError`` (the
    file is not a readable history: nothing was done) or ``OSError``."""
    if fmt is not None and fmt not in FORMATS:
        raise HistoryFormatError(f"不认识的格式 {fmt}", f"unknown format {fmt}")
    source = open_source(path)
    fmt = fmt or detect(source)
    history = _READERS[fmt](source)
    history.source = fmt
    history.digest = source.digest
    return history


_READERS: dict[str, Callable[[Source], History]] = {
    "chatgpt": chatgpt.read, "claude": claude.read, "deepseek": deepseek.read, "cherry": cherry.read, "jsonl": jsonl.read,
    "sonetto": sonetto_md.read, "chatgpt-memories": saved_memories.read,
}
