"""Telling the built-in formats' files apart (``formats.BUILT_IN`` names these functions).

A JSON file is looked at from its start, a piece at a time (never all read, never hashed): ChatGPT's
and DeepSeek's exports are lists of conversations with a ``mapping``, Claude's with ``chat_messages``
(or one such conversation); one chat saved from DeepSeek's web page is ``data.biz_data.chat_session``;
a Cherry Studio backup's ``data.json`` an object with ``indexedDB`` and ``localStorage``. Open WebUI's
export is a list of rows with a ``chat`` holding ``history.messages`` (or those rows one a line);
LobeChat's an object with ``exportType`` or with ``data`` tables (``sessions``, ``topics``,
``messages``) and a ``schemaHash``; Chatbox's the app's store (``session:<id>``, ``chat-sessions``…);
an LM Studio chat file an object whose ``messages`` hold ``versions``. What a file
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


def picked_file(source: Source) -> bool:
    """Whether ``source`` is one picked file (not a zip or a folder)."""
    return len(source.names) == 1 and source.names[0] == source.path.name


def json_files(source: Source, kind: str) -> list[str]:
    """The picked file, or the ``.json`` files of a zip or folder that ``json_kind`` says are ``kind``'s
    (LM Studio's also by their name, ``*.conversation.json``, whole or not: its reader names one it
    cannot read), in name order. A file that cannot be read (cut short, not UTF-8…) is not taken for
    any kind's: one damaged file beside them does not refuse the others (a chat file LM Studio was
    saving, a broken settings file); when none is ``kind``'s, why the first could not be read is said."""
    if picked_file(source):
        return list(source.names)
    found: list[str] = []
    broken: HistoryFormatError | None = None
    for name in sorted(n for n in source.names if n.lower().endswith(".json")):
        try:
            named = json_kind(source, name)
        except HistoryFormatError as exc:
            broken, named = broken or exc, None
        if named == kind or kind == "lmstudio" and name.lower().endswith(".conversation.json"):
            found.append(name)
    if not found and broken is not None:
        raise broken
    return found


def other_apps(source: Source, kind: str) -> dict[str, list[str]]:
    """The ``.json`` files of a zip or folder that another app than ``kind``'s wrote and no reader has
    read (``Source.read_names``), by that app's kind, in name order: a person who packed two apps'
    exports together is told which were left (``sources.read_history``). A file that cannot be read is
    no app's, but LM Studio's ``*.conversation.json`` (its reader names such a file)."""
    if picked_file(source):
        return {}
    read, found = source.read_names, {}
    for name in sorted(n for n in source.names if n.lower().endswith(".json") and n not in read):
        try:
            named = json_kind(source, name)
        except HistoryFormatError:
            named = None
        if named is None and name.lower().endswith(".conversation.json"):
            named = "lmstudio"
        if named not in (None, EMPTY, kind):
            found.setdefault(named, []).append(name)
    return found


def _first_kind(source: Source, names: list[str]) -> str | None:
    """The kind of the first of ``names`` (in name order) that can be read (see ``json_files``); when
    none can, why the first cannot."""
    broken: HistoryFormatError | None = None
    for name in sorted(names):
        try:
            return json_kind(source, name)
        except HistoryFormatError as exc:
            broken = broken or exc
    if broken is not None:
        raise broken
    return None


def json_kind(source: Source, name: str) -> str | None:
    """Which app wrote the JSON file ``name``: ``chatgpt``, ``deepseek``, ``claude``, ``cherry``,
    ``openwebui``, ``lobechat``, ``chatbox``, ``lmstudio``, ``EMPTY`` (an empty list), else None.
    Worked out once per file."""
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
        if _is_openwebui_chat(conv):
            return "openwebui"
        if not isinstance(conv.get("mapping"), dict):
            continue
        if "inserted_at" in conv or "root" in conv["mapping"] and "create_time" not in conv:
            return "deepseek"
        return "chatgpt"
    return EMPTY


def _is_openwebui_chat(conv: dict[str, Any]) -> bool:
    """One entry of Open WebUI's export: ``{…, chat: {history: {messages: {…}}}}`` (very old ones:
    ``chat.messages`` only, or the chat itself without the row around it)."""
    body = conv.get("chat") if isinstance(conv.get("chat"), dict) else conv
    tree = body.get("history")
    if isinstance(tree, dict) and isinstance(tree.get("messages"), dict):
        return True
    return body is not conv and isinstance(body.get("messages"), list) and "user_id" in conv


def _lmstudio_messages(stream: JsonStream, keys: set[str]) -> bool:
    """An LM Studio chat file's ``messages``: each ``{versions: [...], currentlySelected}`` (an empty list
    in a file that also has its ``name`` and ``createdAt``: a chat with nothing said yet)."""
    for _index in stream.items():
        first = stream.value()
        return isinstance(first, dict) and isinstance(first.get("versions"), list) and "currentlySelected" in first
    return {"name", "createdAt"} <= keys


#: ``exportType`` of LobeChat's older settings-page export (``settings`` holds no chats: its reader says so).
LOBECHAT_EXPORTS = ("all", "sessions", "singleSession", "agents", "settings")
#: Top-level keys only Chatbox's 导出数据 writes.
CHATBOX_KEYS = ("chat-sessions", "chat-sessions-list", "__exported_items", "__exported_at")


def _object_kind(stream: JsonStream, depth: int = 0) -> str | None:
    """The kind of a JSON object, walked a key at a time: its ``chat_messages`` tell by their fields
    (Claude's have a ``sender``, DeepSeek's page a ``message_id``)."""
    keys: set[str] = set()
    for key in stream.members():
        keys.add(key)
        if depth == 0 and {"indexedDB", "localStorage"} <= keys:
            return "cherry"
        if depth == 0 and (key in CHATBOX_KEYS or key.startswith("session:")):
            return "chatbox"
        if depth == 0 and key == "exportType":
            return "lobechat" if stream.value() in LOBECHAT_EXPORTS else None
        if depth == 0 and key == "schemaHash" and "data" in keys:
            return "lobechat"
        if depth == 1 and {"sessions", "topics", "messages"} <= keys:  # a newer one's ``data``: its tables
            return "lobechat"
        if depth == 0 and key == "chat" and stream.peek() == "{":  # the first of Open WebUI's chats, one a line
            return "openwebui" if _is_openwebui_chat({"chat": stream.value(), "user_id": None}) else None
        if depth == 0 and key == "messages" and stream.peek() == "[":
            return "lmstudio" if _lmstudio_messages(stream, keys) else None
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


def is_openwebui(source: Source, name: str) -> bool:
    if name.lower().endswith(".json"):
        return json_kind(source, name) == "openwebui"
    try:  # a JSON Lines file: Open WebUI's chats one a line, or else the JSON Lines format's (which says what is wrong)
        return json_kind(source, name) == "openwebui"
    except HistoryFormatError:
        return False


def is_lobechat(source: Source, name: str) -> bool:
    return json_kind(source, name) == "lobechat"


def is_chatbox(source: Source, name: str) -> bool:
    return json_kind(source, name) == "chatbox"


def is_lmstudio(source: Source, name: str) -> bool:
    return json_kind(source, name) == "lmstudio"


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
    return _first_kind(source, [n for n in source.names if n.lower().endswith(".json")]) == "deepseek"


def _json_files_are(source: Source, kind: str) -> bool:
    """A zip or folder whose first ``.json`` file (by name) is of ``kind``: exports of an app that
    writes one file, packed or put together by the person."""
    return _first_kind(source, [n for n in source.names if n.lower().endswith(".json")]) == kind


def archive_is_openwebui(source: Source) -> bool:
    return _export_kind(source) is None and _json_files_are(source, "openwebui")


def archive_is_lobechat(source: Source) -> bool:
    return _export_kind(source) is None and _json_files_are(source, "lobechat")


def archive_is_chatbox(source: Source) -> bool:
    return _export_kind(source) is None and _json_files_are(source, "chatbox")


def archive_is_lmstudio(source: Source) -> bool:
    """LM Studio's conversations folder (or a zip of it): its ``*.conversation.json`` files."""
    if _export_kind(source) is not None:
        return False
    chats = [n for n in source.names if n.lower().endswith(".conversation.json")]
    return _first_kind(source, chats) == "lmstudio" if chats else _json_files_are(source, "lmstudio")


def cherry_folder_backup(source: Source) -> tuple[str, str] | None:
    if any("IndexedDB" in n or "Local Storage" in n for n in source.names):
        return ("这是 Cherry Studio 新版的目录式备份，无法读取其中的对话：请在旧版的“备份”里导出 data.json，或改用 JSON Lines",
                "this is a newer Cherry Studio folder backup, whose chats cannot be read: export a data.json "
                "backup, or use JSON Lines")
    return None
