"""Claude.ai's data export (Settings → Privacy → Export data): ``conversations.json`` in the zip (beside
``users.json`` and ``projects.json``), or one conversation saved as JSON by a browser exporter. Best
effort: Anthropic documents no format; the shape below is what real exports published by their owners
and the public readers of them agree on, and anything else is refused rather than guessed.

A list of conversations ``{uuid, name, created_at, updated_at, chat_messages}``; each message has
``uuid``, ``sender`` (``human`` or ``assistant``), ``created_at`` (ISO 8601, UTC), ``content`` (blocks:
``text`` is what was said; ``thinking``, ``tool_use``, ``tool_result`` and the rest are left out) and
``text`` (the same words, the only field in older exports). Newer exports keep every branch of an
edited message or a regenerated reply, each message naming its ``parent_message_uuid``: the branch
ending at ``current_leaf_message_uuid`` is taken when the file says it (a single conversation saved
from the web page does), else the one ending at the export's last message, and the preview says so.
"""

from __future__ import annotations

from collections import Counter
from functools import partial
from typing import Any

from .json_stream import Skipped
from .model import BadConversation, Conversation, History, HistoryFormatError, Message, convert_one, made_id, read_iso
from .source_files import Source, open_json

_ROLES = {"human": "user", "user": "user", "assistant": "assistant"}
_HIDDEN = ("thinking", "redacted_thinking")
_TOOL = ("tool_use", "tool_result", "server_tool_use", "web_search_tool_result")


def read(source: Source) -> History:
    name = source.find("conversations.json") or source.names[0]
    stream = open_json(source, name)
    history = History("claude")
    source.note_unread(history, name)
    history.notes.append(("Claude 没有公开导出格式：按真实导出和公开的解析器读取（尽力而为），思考过程和工具调用不导入",
                          "Claude publishes no export format: read as real exports and public parsers show (best "
                          "effort); thinking and tool calls are left out"))
    first = stream.peek()
    if first == "{":  # one conversation, saved from the web page
        raw = stream.value()
        _one(history, name, 1, raw)
    elif first == "[":
        for index in stream.items():
            _one(history, name, index, stream.value())
    else:
        raise HistoryFormatError(f"{name} 应是 Claude 对话的列表", f"{name} should be a list of Claude conversations")
    stream.finish()
    history.note_guessed_branches("{0} 个对话有改写或重新生成的分支，文件没有记录保留哪一个：取最后一条消息所在的分支",
                                  "{0} conversations have edited or regenerated branches and the file does not say "
                                  "which was kept: the branch of the last message was taken")
    return history


def _one(history: History, name: str, index: int, raw: Any) -> None:
    if isinstance(raw, Skipped):
        history.bad.append(BadConversation(name, index, "", raw.zh, raw.en))
        return
    if not isinstance(raw, dict) or not isinstance(raw.get("chat_messages"), list):
        raise HistoryFormatError(f"{name} 的第 {index} 个对话没有 chat_messages，不是 Claude 的导出格式",
                                 f"conversation {index} of {name} has no chat_messages: not a Claude export")
    conversation = convert_one(history, name, index, raw, partial(_conversation, name=name))
    if conversation is not None and conversation.messages:
        history.conversations.append(conversation)


def _kept(messages: list[dict[str, Any]], leaf: Any) -> tuple[list[dict[str, Any]], bool]:
    """The messages of the kept branch in order, and whether it was guessed among branches."""
    by_id = {m["uuid"]: m for m in messages if isinstance(m.get("uuid"), str)}
    parents = {uid: m.get("parent_message_uuid") for uid, m in by_id.items()}
    linked = any(isinstance(p, str) and p in by_id for p in parents.values())
    if not linked:  # an older export: one line of messages, in order
        return messages, False
    children = Counter(p for p in parents.values() if isinstance(p, str))
    branched = any(count > 1 for count in children.values())
    said = isinstance(leaf, str) and leaf in by_id
    node: Any = leaf if said else next((m["uuid"] for m in reversed(messages) if m.get("uuid") in by_id), None)
    path: list[dict[str, Any]] = []
    seen: set[str] = set()
    while isinstance(node, str) and node in by_id and node not in seen:
        seen.add(node)
        path.append(by_id[node])
        node = parents[node]
    return path[::-1], branched and not said


def _conversation(raw: dict[str, Any], skipped: Counter, *, name: str) -> Conversation:
    title = " ".join(str(raw.get("name") or "").split())
    listed = [m for m in raw["chat_messages"] if isinstance(m, dict)]
    kept, guessed = _kept(listed, raw.get("current_leaf_message_uuid"))
    if len(listed) > len(kept):
        skipped["other_branch"] += len(listed) - len(kept)
    last = read_iso(raw.get("created_at"))
    messages: list[Message] = []
    for msg in kept:
        last = read_iso(msg.get("created_at")) or last
        role = _ROLES.get(str(msg.get("sender") or "").lower())
        if role is None:
            skipped["other_role"] += 1
            continue
        text = _text(msg, skipped)
        if not text:
            skipped["empty"] += 1
        elif last is None:
            skipped["no_time"] += 1
        else:
            messages.append(Message(role, text, last.local, str(msg.get("uuid") or ""), last.instant))
    cid = str(raw.get("uuid") or "")
    legacy = ""
    if not cid:
        cid, legacy = made_id("claude-", title, messages)
    return Conversation(cid, title or (messages[0].text[:30] if messages else ""), messages, guessed, legacy)


def _text(msg: dict[str, Any], skipped: Counter) -> str:
    """What was said: the ``text`` blocks of ``content``, else (older exports) the ``text`` field."""
    blocks = msg.get("content")
    if not isinstance(blocks, list) or not blocks:
        return str(msg.get("text") or "").strip()
    pieces: list[str] = []
    for block in blocks:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text":
            words = str(block.get("text") or "").strip()
            if words:
                pieces.append(words)
        elif kind in _HIDDEN:
            skipped["hidden"] += 1
        elif kind in _TOOL:
            skipped["tool"] += 1
        else:
            skipped["non_text"] += 1
    return "\n".join(pieces).strip()
