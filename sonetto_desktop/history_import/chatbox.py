"""Chatbox's data export (设置 → 常规设置 → 数据备份 → 导出 / Settings → General → Data backup → Export,
with 聊天记录 ticked: ``chatbox-exported-data-<date>.json``), or a zip or folder holding one. Best
effort: Chatbox documents no export format; the shape below is what its own export and import code
and its session types show.

The file is the app's store as one object: newer versions keep the chat list in
``chat-sessions-list`` and each chat under ``session:<id>``; older ones all chats in ``chat-sessions``
(the settings, copilots and the export's ``__exported_at`` beside them); a store moved to the newer
way keeps the old list too, and a chat there that has its own key is read from its own key. A chat (``{id, name, type,
messages, threads, threadName, messageForksHash}``) is one conversation; each of its earlier threads
(开始新话题 keeps the old messages as a thread, ``{id, name, messages, createdAt}``) is one too. Of a
regenerated reply the one on screen is in ``messages``; the others (``messageForksHash``) are left out.
A picture chat (``type: picture``, image generation) holds no conversation and is left out.

A message is ``{id, role, contentParts: [{type: text | image | reasoning | info | tool-call…}],
timestamp (ms), model…}`` (older: ``content`` text): only text parts are what was said, an image the
person sent is ``[图片]``, reasoning, tool calls and notices are left out. A message without a time
(older versions) takes the time of the one before it (or, at a chat's start, the thread's
``createdAt``, else the time of the first message that has one). Each chat is read on its own (``json_stream``); a chat holding a value no real export has is
left out and named (``History.bad``).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from .chatgpt import IMAGE
from .json_stream import Skipped
from .model import (BadConversation, BadValue, Conversation, History, HistoryFormatError, Message, add_said, begun, convert_one,
                    read_stamp, spoken, without_reasoning)
from .source_files import Source, open_json

_NOT_CHATBOX = ("不是 Chatbox 导出的数据", "is not a Chatbox data export")


def files(source: Source) -> list[str]:
    from .sniff import json_files

    return json_files(source, "chatbox")


def read(source: Source) -> History:
    names = files(source)
    history = begun("chatbox", names, ("找不到 Chatbox 导出的数据（chatbox-exported-data-….json）",
                                       "no Chatbox data export (chatbox-exported-data-….json) found"),
                    ("Chatbox 没有公开导出格式：按它自己的导出和导入代码读取（尽力而为），思考过程和工具调用不导入",
                     "Chatbox publishes no export format: read as its own export and import code shows "
                     "(best effort); thinking and tool calls are left out"))
    for name in names:
        _read_file(source, name, history)
    return history


def _read_file(source: Source, name: str, history: History) -> None:
    from .sniff import CHATBOX_KEYS

    stream = open_json(source, name)
    if stream.peek() != "{":
        raise HistoryFormatError(f"{name} {_NOT_CHATBOX[0]}", f"{name} {_NOT_CHATBOX[1]}")
    index = 0
    chats = False
    chatbox = False  # (a key only Chatbox's export writes)
    seen: set[str] = set()
    for key in stream.members():
        chatbox = chatbox or key in CHATBOX_KEYS or key in ("configVersion", "myCopilots")
        if key.startswith("session:") or key == "chat-sessions":
            chats = True
        if key.startswith("session:") and stream.peek() in ("{", "n"):
            index += 1
            _one(history, name, index, stream.value(), seen)
        elif key == "chat-sessions" and stream.peek() == "[":
            newer = _own_keys(source, name)  # (a chat moved to its own key is read there: this copy is stale)
            for _n in stream.items():
                index += 1
                raw = stream.value()
                if not (isinstance(raw, dict) and str(raw.get("id") or "") in newer):
                    _one(history, name, index, raw, seen)
        elif key == "chat-sessions-list":
            chats = True
            stream.skip()
        else:
            stream.skip()
    stream.finish()
    if not (chats or chatbox):  # (another app's file picked as Chatbox's)
        raise HistoryFormatError(f"{name} {_NOT_CHATBOX[0]}", f"{name} {_NOT_CHATBOX[1]}")
    if not chats:
        raise HistoryFormatError(f"{name} 里没有聊天记录：导出时请勾选“聊天记录”",
                                 f"{name} holds no chats: tick “Chat History” when exporting")


def _own_keys(source: Source, name: str) -> set[str]:
    """The ids of the chats kept under their own ``session:<id>`` key (versions since the store's
    migration 7→8, which left the old ``chat-sessions`` list in place)."""
    stream = open_json(source, name, hashed=False)
    return {key[len("session:"):] for key in stream.members() if key.startswith("session:")}


def _one(history: History, name: str, index: int, raw: Any, seen: set[str]) -> None:
    if raw is None:  # (a chat's key left behind when it was deleted)
        return
    if isinstance(raw, Skipped):
        history.bad.append(BadConversation(name, index, "", raw.zh, raw.en))
        return
    if not isinstance(raw, dict) or not isinstance(raw.get("messages"), list):
        history.bad.append(BadConversation(name, index, "", "没有 messages，不像是 Chatbox 的对话",
                                           "has no messages: not a Chatbox chat"))
        return
    if raw.get("type") == "picture":
        history.skipped["non_text"] += sum(1 for m in raw["messages"] if isinstance(m, dict))
        return
    sid = str(raw.get("id") or "")
    if sid and sid in seen:  # (a chat both in an old list and under its own key)
        return
    seen.add(sid)
    threads = raw.get("threads") if isinstance(raw.get("threads"), list) else []
    for thread in threads:
        if isinstance(thread, dict) and isinstance(thread.get("messages"), list):
            part = {"id": f"{sid}:{thread.get('id') or ''}", "title": thread.get("name") or raw.get("name"),
                    "messages": thread["messages"], "createdAt": thread.get("createdAt")}
            _add(history, name, index, part)
    forked = _forked(raw.get("messageForksHash"))
    if forked:
        history.skipped["other_branch"] += forked
    title = raw.get("threadName") if threads and raw.get("threadName") else raw.get("name")
    _add(history, name, index, {"id": sid, "title": title, "messages": raw["messages"]})


def _forked(forks: Any) -> int:
    """How many messages the replies not on screen hold (``messageForksHash``: {message id: {lists: [{messages}]}})."""
    count = 0
    for fork in forks.values() if isinstance(forks, dict) else ():
        lists = fork.get("lists") if isinstance(fork, dict) else None
        for kept in lists if isinstance(lists, list) else ():
            messages = kept.get("messages") if isinstance(kept, dict) else None
            count += len(messages) if isinstance(messages, list) else 0
    return count


def _add(history: History, name: str, index: int, part: dict[str, Any]) -> None:
    conversation = convert_one(history, name, index, part, _conversation)
    if conversation is not None and conversation.messages:
        history.conversations.append(conversation)


def _conversation(part: dict[str, Any], skipped: Counter) -> Conversation:
    listed = [m for m in part["messages"] if isinstance(m, dict)]
    first = part.get("createdAt") or next((m["timestamp"] for m in listed if m.get("timestamp") not in (None, 0)), None)
    last = read_stamp(first) if first not in (None, 0) else None
    messages: list[Message] = []
    for msg in listed:
        if msg.get("timestamp") not in (None, 0):
            last = read_stamp(msg["timestamp"])
        role = msg.get("role")
        if not spoken(role, skipped, tools=("tool",)):
            continue
        if msg.get("isSummary") is True:
            skipped["hidden"] += 1
            continue
        text = _text(msg, skipped)
        add_said(messages, skipped, role, "" if text == IMAGE and role == "assistant" else text, last, str(msg.get("id") or ""))
    title = " ".join(str(part.get("title") or "").split())
    if title in ("Untitled", "未命名", "新对话", "New Chat"):
        title = ""
    return Conversation(part["id"] or f"chatbox-{messages[0].mark if messages else ''}",
                        title or (messages[0].text.splitlines()[0][:30] if messages else ""), messages)


def _text(msg: dict[str, Any], skipped: Counter) -> str:
    parts = msg.get("contentParts")
    if isinstance(parts, list) and parts:
        pieces = []
        for part in parts:
            kind = part.get("type") if isinstance(part, dict) else None
            if kind == "text":
                if not isinstance(part.get("text"), str):
                    raise BadValue("消息内容不是文字", "a message's content is not text")
                pieces.append(part["text"].strip())
            elif kind == "image":
                pieces.append(IMAGE)
            elif kind == "reasoning":
                skipped["hidden"] += 1
            elif kind == "tool-call":
                skipped["tool"] += 1
        text = "\n".join(p for p in pieces if p)
    else:
        content = msg.get("content")
        if content is not None and not isinstance(content, str):
            raise BadValue("消息内容不是文字", "a message's content is not text")
        text = content or ""
    text, thought = without_reasoning(text.strip())
    if thought:
        skipped["hidden"] += 1
    return text
