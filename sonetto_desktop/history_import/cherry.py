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
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from .model import Conversation, History, HistoryFormatError, Message, parse_iso
from .source_files import Source, load_json

VERSIONS = range(2, 6)


def read(source: Source) -> History:
    name = source.find("data.json") or source.names[0]
    data = load_json(source, name)
    if not isinstance(data, dict) or not isinstance(data.get("indexedDB"), dict):
        raise HistoryFormatError(f"{name} 不是 Cherry Studio 的备份（没有 indexedDB）",
                                 f"{name} is not a Cherry Studio backup (no indexedDB)")
    version = data.get("version")
    if version not in VERSIONS:
        raise HistoryFormatError(f"不支持这个版本的 Cherry Studio 备份（version {version}，支持 2–5）",
                                 f"this Cherry Studio backup version is not supported (version {version}; 2-5 are)")
    tables = data["indexedDB"]
    topics = tables.get("topics")
    if not isinstance(topics, list):
        raise HistoryFormatError(f"{name} 里没有对话（indexedDB.topics）", f"{name} holds no chats (indexedDB.topics)")
    blocks = {b["id"]: b for b in tables.get("message_blocks") or [] if isinstance(b, dict) and "id" in b}
    names = _topic_names(data.get("localStorage"))
    history = History("cherry")
    for topic in topics:
        if not isinstance(topic, dict) or not isinstance(topic.get("messages"), list):
            continue
        messages = _messages(topic["messages"], blocks, history.skipped)
        if not messages:
            continue
        tid = str(topic.get("id") or "")
        title = names.get(tid) or messages[0].text.splitlines()[0][:30]
        history.conversations.append(Conversation(tid or f"cherry-{messages[0].time.isoformat()}", title, messages))
    return history


def _messages(raw_messages: list[Any], blocks: dict[str, Any], skipped: Counter) -> list[Message]:
    out: list[Message] = []
    for raw in raw_messages:
        if not isinstance(raw, dict):
            continue
        role = raw.get("role")
        if raw.get("type") == "clear":
            skipped["non_text"] += 1
            continue
        if role == "system":
            skipped["system"] += 1
            continue
        if role not in ("user", "assistant"):
            skipped["other_role"] += 1
            continue
        ids = raw.get("blocks")
        if isinstance(ids, list) and ids:
            parts = []
            for bid in ids:
                block = blocks.get(bid)
                if isinstance(block, dict) and block.get("type") == "main_text":
                    parts.append(str(block.get("content") or "").strip())
                else:
                    skipped["non_text"] += 1
            text = "\n".join(p for p in parts if p)
        else:
            content = raw.get("content")
            text = content.strip() if isinstance(content, str) else ""
        when = parse_iso(raw.get("createdAt"))
        if not text:
            skipped["empty"] += 1
            continue
        if when is None:
            skipped["no_time"] += 1
            continue
        out.append(Message(role, text, when, str(raw.get("id") or "")))
    return out


def _topic_names(local_storage: Any) -> dict[str, str]:
    """Topic id -> name from the app's saved state (empty when it cannot be read: names are a nicety)."""
    try:
        persist = json.loads(local_storage["persist:cherry-studio"])
        assistants = json.loads(persist["assistants"])
    except (KeyError, TypeError, ValueError):
        return {}
    found: dict[str, str] = {}
    everyone = [assistants.get("defaultAssistant") or {}, *(assistants.get("assistants") or [])]
    for assistant in everyone:
        for topic in (assistant.get("topics") or []) if isinstance(assistant, dict) else []:
            if isinstance(topic, dict) and topic.get("id") and str(topic.get("name") or "").strip():
                found[str(topic["id"])] = " ".join(str(topic["name"]).split())
    return found
