"""DeepSeek's export (chat.deepseek.com → 设置 → 数据管理 → 导出所有历史对话): ``conversations.json``
in the zip. Best effort: DeepSeek documents no format; the shape below is what independent public
readers of these exports agree on, and anything else is refused rather than guessed.

A list of conversations ``{id, title, inserted_at, updated_at, mapping}``; ``mapping`` is a tree
from the node ``root``, each node's ``message`` holding ``inserted_at`` and ``fragments`` (``REQUEST``:
the person's words, ``RESPONSE``: DeepSeek's reply; ``THINK`` and other kinds are left out). The
export does not say which branch of a regenerated reply was kept: at each step the **last** child is
taken, as the web page shows the latest one.
"""

from __future__ import annotations

import hashlib
from functools import partial
from collections import Counter
from typing import Any

from .json_stream import Skipped
from .model import BadConversation, Conversation, History, HistoryFormatError, Message, convert_one, parse_iso
from .source_files import Source, open_json

_ROLES = {"REQUEST": "user", "RESPONSE": "assistant"}


def read(source: Source) -> History:
    name = source.find("conversations.json") or source.names[0]
    stream = open_json(source, name)
    if stream.peek() != "[":
        raise HistoryFormatError(f"{name} 应是对话的列表", f"{name} should be a list of conversations")
    history = History("deepseek")
    history.notes.append(("DeepSeek 没有公开导出格式：按公开的解析器读取（尽力而为），重新生成过的回复取最后一个",
                          "DeepSeek publishes no export format: read as public parsers do (best effort); of "
                          "regenerated replies the last one is kept"))
    for index in stream.items():
        raw = stream.value()
        if isinstance(raw, Skipped):
            history.bad.append(BadConversation(name, index, "", raw.zh, raw.en))
            continue
        mapping = raw.get("mapping") if isinstance(raw, dict) else None
        if not isinstance(mapping, dict) or not isinstance(mapping.get("root"), dict):
            raise HistoryFormatError(f"{name} 的第 {index} 个对话没有 mapping.root，不是 DeepSeek 的导出格式",
                                     f"conversation {index} of {name} has no mapping.root: not a DeepSeek export")
        conversation = convert_one(history, name, index, raw, partial(_conversation, index=index, name=name))
        if conversation is not None and conversation.messages:
            history.conversations.append(conversation)
    stream.finish()
    return history


def _conversation(raw: dict[str, Any], skipped: Counter, *, index: int, name: str) -> Conversation:
    mapping: dict[str, Any] = raw["mapping"]
    title = " ".join(str(raw.get("title") or "").split())
    last = parse_iso(raw.get("inserted_at"))
    messages: list[Message] = []
    seen: set[str] = set()
    node: Any = "root"
    branches = False
    while isinstance(node, str) and node in mapping and node not in seen:
        seen.add(node)
        entry = mapping[node] if isinstance(mapping[node], dict) else {}
        msg = entry.get("message")
        if isinstance(msg, dict):
            fragments = msg.get("fragments")
            if not isinstance(fragments, list):
                raise HistoryFormatError(f"{name} 的第 {index} 个对话里有消息没有 fragments，不是 DeepSeek 的导出格式",
                                         f"a message of conversation {index} of {name} has no fragments: "
                                         "not a DeepSeek export")
            last = parse_iso(msg.get("inserted_at")) or last
            texts: dict[str, list[str]] = {"user": [], "assistant": []}
            for fragment in fragments:
                kind = fragment.get("type") if isinstance(fragment, dict) else None
                role = _ROLES.get(str(kind).upper()) if kind else None
                content = str(fragment.get("content") or "").strip() if isinstance(fragment, dict) else ""
                if role is None:
                    skipped["non_text"] += 1
                elif not content:
                    skipped["empty"] += 1
                else:
                    texts[role].append(content)
            for role in ("user", "assistant"):
                if texts[role] and last is not None:
                    messages.append(Message(role, "\n".join(texts[role]), last, f"{node}:{role}"))
                elif texts[role]:
                    skipped["no_time"] += 1
        children = [c for c in entry.get("children") or [] if isinstance(c, str)]
        branches = branches or len(children) > 1
        node = children[-1] if children else None
    cid = str(raw.get("id") or "")
    if not cid:
        first = messages[0].time.isoformat() if messages else ""
        cid = "deepseek-" + hashlib.sha256(f"{title}\0{first}".encode()).hexdigest()[:16]
    return Conversation(cid, title or (messages[0].text[:30] if messages else ""), messages, branches)
