"""LobeChat's data export (设置 → 数据存储 → 导出 / Settings → Storage → Export: a ``.json``), either
generation, or a zip or folder holding one. Best effort: LobeChat documents no export format; the
shapes below are what its own export and import code and its migration fixtures show.

- The older export (``exportType`` ``all`` / ``sessions`` / ``singleSession`` / ``agents``, config
  ``version`` 1–8): ``{exportType, state: {sessions, sessionGroups, topics, messages, settings},
  version}``; times are milliseconds since 1970.
- The newer one (the database's tables): ``{data: {agents, sessions, agentsToSessions, topics,
  threads, messages, …}, mode, schemaHash}``; times are ISO 8601 text.

Messages are one flat table, each naming its ``sessionId`` (an assistant, 助手), ``topicId`` (a
chat, 话题) and, in a branch started from a message (子话题), its ``threadId``. A topic is a
conversation, named by its title; a branch is one too (it is a chat the person kept); the messages
of an assistant outside any topic (its 默认话题) are one conversation named by the assistant. A
regenerated reply replaces the old one in LobeChat, so there are no other branches to leave out.

Only what was said is kept: user and assistant messages (not system prompts, plugin and tool
calls), a reasoning model's ``<think>`` left out, an image the person sent as ``[图片]``, a reply
that failed (``...`` with an error) left out. The file is walked a piece at a time
(``json_stream``): each message is read on its own and only its text is kept until the table ends
(a chat's messages may be anywhere in it: reading holds about the text of all messages, a 106 MB
export 117 MB at most), then each chat is made and let go; other tables are passed over. A chat holding a value no real export has is left out and
named (``History.bad``).
"""

from __future__ import annotations

from collections import Counter
from typing import Any, NamedTuple

from .chatgpt import IMAGE
from .json_stream import JsonStream, Skipped
from .model import (BadValue, Conversation, History, HistoryFormatError, Message, When, add_said, begun,
                    convert_one, read_iso, read_stamp, spoken, without_reasoning)
from .source_files import Source, open_json

#: ``version`` of the older export this reader knows (LobeChat's config migrations go up to 8).
VERSIONS = range(1, 9)
#: What LobeChat writes for a reply that never came.
_PLACEHOLDER = "..."
_NOT_LOBECHAT = ("不是 LobeChat 导出的数据（没有 state 或 data）", "is not a LobeChat data export (no state or data)")


def files(source: Source) -> list[str]:
    from .sniff import json_files

    return json_files(source, "lobechat")


def read(source: Source) -> History:
    names = files(source)
    history = begun("lobechat", names, ("找不到 LobeChat 导出的数据（.json）", "no LobeChat data export (.json) found"),
                    ("LobeChat 没有公开导出格式：按它自己的导出和导入代码读取（尽力而为），插件和工具调用不导入",
                     "LobeChat publishes no export format: read as its own export and import code shows "
                     "(best effort); plugin and tool calls are left out"))
    for name in names:
        _read_file(source, name, history)
    return history


class _Kept(NamedTuple):
    """What is kept of a message until its chat is complete (the file lists every chat's messages in one table)."""

    id: Any
    role: Any
    content: Any
    created: Any
    error: bool
    tools: bool
    images: int


class _Tables:
    """What one export's tables say: names of assistants, topics and branches, and each chat's messages."""

    def __init__(self) -> None:
        self.sessions: dict[str, str] = {}  # session id -> its title (or its agent's id, newer exports)
        self.agents: dict[str, str] = {}  # agent id -> title (newer exports)
        self.agent_of: dict[str, str] = {}  # session id -> agent id (newer exports)
        self.topics: dict[str, str] = {}
        self.threads: dict[str, str] = {}
        self.chats: dict[str, list[_Kept]] = {}  # chat key -> its messages, as read
        self.unread = 0  # messages that could not be read (too deep, too large)


def _read_file(source: Source, name: str, history: History) -> None:
    stream = open_json(source, name)
    if stream.peek() != "{":
        raise HistoryFormatError(f"{name} {_NOT_LOBECHAT[0]}", f"{name} {_NOT_LOBECHAT[1]}")
    tables = _Tables()
    kind: Any = None
    version: Any = None
    found = False
    for key in stream.members():
        if key == "exportType":
            kind = stream.value()
        elif key == "version":
            version = stream.value()
        elif key in ("state", "data") and stream.peek() == "{":
            found = _walk_tables(stream, tables) or found
        else:
            stream.skip()
    stream.finish()
    if kind == "settings":
        raise HistoryFormatError(f"{name} 是 LobeChat 的设置导出，里面没有对话：请在“导出”里选全部数据",
                                 f"{name} is LobeChat's settings export, which holds no chats: export all data")
    if not found:
        raise HistoryFormatError(f"{name} {_NOT_LOBECHAT[0]}", f"{name} {_NOT_LOBECHAT[1]}")
    if kind is not None and version not in VERSIONS:
        raise HistoryFormatError(
            f"不支持这个版本的 LobeChat 导出（version {str(version)[:20]}，支持 1–8）：请用新版 LobeChat 重新导出",
            f"this LobeChat export version is not supported (version {str(version)[:20]}; 1-8 are): "
            "export again from a current LobeChat")
    for index, key in enumerate(list(tables.chats), 1):
        chat = {"key": key, "title": _title(key, tables), "messages": tables.chats.pop(key)}  # (let each go when read)
        conversation = convert_one(history, name, index, chat, _conversation)
        if conversation is not None and conversation.messages:
            history.conversations.append(conversation)
    if tables.unread:
        history.notes.append((f"{name} 里有 {tables.unread} 条消息读不出来（嵌套太深或太大），没有导入",
                              f"{tables.unread} messages of {name} cannot be read (nested too deeply or too large) "
                              "and were left out"))


def _walk_tables(stream: JsonStream, tables: _Tables) -> bool:
    """Read the tables of ``state`` / ``data``; whether it held LobeChat's (its sessions, topics or messages)."""
    found = False
    for table in stream.members():
        found = found or table in ("sessions", "topics", "messages")
        if stream.peek() != "[":
            stream.skip()
        elif table == "messages":
            for _index in stream.items():
                raw = stream.value()
                if isinstance(raw, Skipped):
                    tables.unread += 1
                elif isinstance(raw, dict):
                    _keep_message(raw, tables)
        elif table in ("sessions", "agents", "topics", "threads", "agentsToSessions"):
            for _index in stream.items():
                row = stream.value()
                if isinstance(row, dict):
                    _keep_row(table, row, tables)
        else:
            stream.skip()
    return found


def _keep_row(table: str, row: dict[str, Any], tables: _Tables) -> None:
    if table == "agentsToSessions":
        if isinstance(row.get("sessionId"), str) and isinstance(row.get("agentId"), str):
            tables.agent_of[row["sessionId"]] = row["agentId"]
        return
    rid = row.get("id")
    if not isinstance(rid, str):
        return
    meta = row.get("meta") if isinstance(row.get("meta"), dict) else {}
    title = row.get("title") or meta.get("title") or ""
    title = " ".join(title.split()) if isinstance(title, str) else ""
    {"sessions": tables.sessions, "agents": tables.agents, "topics": tables.topics,
     "threads": tables.threads}[table][rid] = title


def _keep_message(raw: dict[str, Any], tables: _Tables) -> None:
    """The message's fields that are read, under its chat's key (a branch, a topic, an assistant's default)."""
    thread, topic, session = raw.get("threadId"), raw.get("topicId"), raw.get("sessionId")
    if isinstance(thread, str) and thread:
        key = f"thread:{thread}"
    elif isinstance(topic, str) and topic:
        key = f"topic:{topic}"
    else:
        key = f"session:{session if isinstance(session, str) and session else 'inbox'}"
    images = raw.get("imageList")
    kept = _Kept(raw.get("id"), raw.get("role"), raw.get("content"), raw.get("createdAt"), bool(raw.get("error")),
                 bool(raw.get("tools")), len(images) if isinstance(images, list) else 0)
    tables.chats.setdefault(key, []).append(kept)


def _title(key: str, tables: _Tables) -> str:
    kind, _, rid = key.partition(":")
    if kind == "topic":
        return tables.topics.get(rid, "")
    if kind == "thread":
        return tables.threads.get(rid, "")
    agent = tables.agent_of.get(rid)
    return tables.sessions.get(rid) or (tables.agents.get(agent, "") if agent else "")


def _when(value: Any) -> When | None:
    if isinstance(value, str):
        return read_iso(value)
    if value is None:
        return None
    return read_stamp(value)


def _conversation(chat: dict[str, Any], skipped: Counter) -> Conversation:
    timed = [(_when(m.created), n, m) for n, m in enumerate(chat["messages"])]
    timed.sort(key=lambda t: (0, t[0].local, t[1]) if t[0] is not None else (1, t[1]))  # (no time: skipped)
    messages: list[Message] = []
    for when, _n, msg in timed:
        role = msg.role
        if not spoken(role, skipped, tools=("tool", "function")):
            continue
        content = msg.content
        if content is not None and not isinstance(content, str):
            raise BadValue("消息内容不是文字", "a message's content is not text")
        text, thought = without_reasoning((content or "").strip())
        if thought:
            skipped["hidden"] += 1
        if text == _PLACEHOLDER and (msg.error or role == "assistant"):
            text = ""
        if role == "user" and msg.images:
            text = "\n".join(p for p in (text, *[IMAGE] * msg.images) if p)
        if not text and msg.tools:
            skipped["tool"] += 1
            continue
        add_said(messages, skipped, role, text, when, str(msg.id or ""))
    kind, _, rid = chat["key"].partition(":")
    cid = rid if kind in ("topic", "thread") else f"lobechat-{rid}-default"
    title = chat["title"] or (messages[0].text.splitlines()[0][:30] if messages else "")
    return Conversation(cid, title, messages)
