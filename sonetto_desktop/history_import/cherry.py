"""Cherry Studio's backup (设置 → 数据设置 → 备份: ``cherry-studio.<time>.zip``), read from its
``data.json`` (backup versions 2–5, as the app's own backup code writes it):
``{time, version, localStorage, indexedDB}``.

- ``indexedDB.topics``: ``[{id, messages: [{id, role, createdAt, status, type?, blocks: [block id…]}]}]``;
  version 3 and older keep the text on the message itself (``content``);
- ``indexedDB.message_blocks``: ``[{id, messageId, type, content…}]``: only ``main_text`` blocks are
  what was said (thinking, translations, citations, tool calls are left out);
- topic names live in the app's saved state, ``localStorage["persist:cherry-studio"]``: a JSON
  object whose values are JSON strings again; ``assistants`` → ``{defaultAssistant, assistants:
  [{topics: [{id, name}]}]}``. A topic without a name is named by its first message.

Newer Cherry Studio versions back up the app's database folders instead of a ``data.json``; those
cannot be read here, and say so (``sources.detect``).

``data.json`` is walked a piece at a time (``json_stream``): each topic and each message block is
read on its own (only the text of ``main_text`` blocks is kept), other tables are passed over. A
topic holding a value no real backup has is left out and named (``History.bad``).
"""

from __future__ import annotations

import json
from collections import Counter
from functools import partial
from typing import Any

from .json_stream import JsonStream, Skipped
from .model import BadConversation, Conversation, History, HistoryFormatError, Message, add_said, convert_one, read_iso, spoken
from .source_files import Source, open_json

VERSIONS = range(2, 6)
_NOT_CHERRY = ("不是 Cherry Studio 的备份（没有 indexedDB）", "is not a Cherry Studio backup (no indexedDB)")


def read(source: Source) -> History:
    name = source.find("data.json") or source.names[0]
    stream = open_json(source, name)
    if stream.peek() != "{":
        raise HistoryFormatError(f"{name} {_NOT_CHERRY[0]}", f"{name} {_NOT_CHERRY[1]}")
    history = History("cherry")
    source.note_unread(history, name)
    version: Any = None
    local_storage: Any = None
    topics: list[tuple[int, Any]] | None = None
    blocks: dict[str, tuple[Any, str]] = {}
    for key in stream.members():
        if key == "version":
            version = stream.value()
        elif key == "localStorage":
            local_storage = stream.value()
        elif key == "indexedDB" and stream.peek() == "{":
            topics = _tables(stream, blocks, topics, name, history)
        else:
            stream.skip()
    stream.finish()
    if topics is None and version is None:
        raise HistoryFormatError(f"{name} {_NOT_CHERRY[0]}", f"{name} {_NOT_CHERRY[1]}")
    if version not in VERSIONS:
        raise HistoryFormatError(f"不支持这个版本的 Cherry Studio 备份（version {version}，支持 2–5）",
                                 f"this Cherry Studio backup version is not supported (version {version}; 2-5 are)")
    if topics is None:
        raise HistoryFormatError(f"{name} 里没有对话（indexedDB.topics）", f"{name} holds no chats (indexedDB.topics)")
    names = _topic_names(local_storage)
    for index, topic in topics:
        if not isinstance(topic, dict) or not isinstance(topic.get("messages"), list):
            continue
        conversation = convert_one(history, name, index, topic, partial(_topic, blocks=blocks, names=names))
        if conversation is not None:
            history.conversations.append(conversation)
    return history


def _tables(stream: JsonStream, blocks: dict[str, tuple[Any, str]], topics: list[tuple[int, Any]] | None,
            name: str, history: History) -> list[tuple[int, Any]] | None:
    """Walk ``indexedDB``: the topics as they are (their messages name blocks, which may come later in
    the file), the blocks by id as (type, text); other tables passed over."""
    for table in stream.members():
        if table == "topics" and stream.peek() == "[":
            topics = topics or []
            for index in stream.items():
                topic = stream.value()
                if isinstance(topic, Skipped):
                    history.bad.append(BadConversation(name, index, "", topic.zh, topic.en))
                else:
                    topics.append((index, topic))
        elif table == "message_blocks" and stream.peek() == "[":
            for _index in stream.items():
                block = stream.value()
                if isinstance(block, dict) and isinstance(block.get("id"), str):
                    kind = block.get("type")
                    text = str(block.get("content") or "") if kind == "main_text" else ""
                    blocks[block["id"]] = (kind, text)
        else:
            stream.skip()
    return topics


def _topic(topic: dict[str, Any], skipped: Counter, *, blocks: dict[str, tuple[Any, str]],
           names: dict[str, str]) -> Conversation | None:
    messages = _messages(topic["messages"], blocks, skipped)
    if not messages:
        return None
    tid = str(topic.get("id") or "")
    title = names.get(tid) or messages[0].text.splitlines()[0][:30]
    if tid:
        return Conversation(tid, title, messages)
    # no id (an early version's backup): named by its first time, the same in every time zone
    cid, legacy = f"cherry-{messages[0].mark}", f"cherry-{messages[0].time.isoformat()}"
    return Conversation(cid, title, messages, legacy_id="" if legacy == cid else legacy)


def _messages(raw_messages: list[Any], blocks: dict[str, tuple[Any, str]], skipped: Counter) -> list[Message]:
    out: list[Message] = []
    for raw in raw_messages:
        if not isinstance(raw, dict):
            continue
        role = raw.get("role")
        if raw.get("type") == "clear":
            skipped["non_text"] += 1
            continue
        if not spoken(role, skipped):
            continue
        ids = raw.get("blocks")
        if isinstance(ids, list) and ids:
            parts = []
            for bid in ids:
                kind, text = blocks.get(bid, (None, "")) if isinstance(bid, str) else (None, "")
                if kind == "main_text":
                    parts.append(text.strip())
                else:
                    skipped["non_text"] += 1
            text = "\n".join(p for p in parts if p)
        else:
            content = raw.get("content")
            text = content.strip() if isinstance(content, str) else ""
        when = read_iso(raw.get("createdAt"))
        add_said(out, skipped, role, text, when, str(raw.get("id") or ""))
    return out


def _topic_names(local_storage: Any) -> dict[str, str]:
    """Topic id -> name from the app's saved state (empty when it cannot be read: names are a nicety)."""
    try:
        persist = json.loads(local_storage["persist:cherry-studio"])
        assistants = json.loads(persist["assistants"])
    except (KeyError, TypeError, ValueError, RecursionError):
        return {}
    if not isinstance(assistants, dict):  # null, a list…: no names, the topics are read all the same
        return {}
    found: dict[str, str] = {}
    others = assistants.get("assistants")
    everyone = [assistants.get("defaultAssistant"), *(others if isinstance(others, list) else [])]
    for assistant in everyone:
        topics = assistant.get("topics") if isinstance(assistant, dict) else None
        for topic in topics if isinstance(topics, list) else []:
            if isinstance(topic, dict) and topic.get("id") and str(topic.get("name") or "").strip():
                found[str(topic["id"])] = " ".join(str(topic["name"]).split())
    return found
