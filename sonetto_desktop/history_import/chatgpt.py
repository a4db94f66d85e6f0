"""ChatGPT's data export (Settings → Data controls → Export data): ``conversations.json`` in the zip,
or, in newer exports, ``conversations-000.json``, ``conversations-001.json`` … (each a list of the
same conversations), read in their numeric order. A zip or folder holding more than one export
(two folders, or a whole file beside parts) is read whole, and the preview says so; a conversation
in more than one is planned once (``plan``).

A conversation is a tree of message nodes (``mapping``): editing a message or regenerating a reply
starts a branch. The branch the person kept ends at ``current_node``; it is followed up to the
root, and the other branches are left out. Without a usable ``current_node`` the branch is guessed
(at each step the latest child), and the preview says so.

Only what the person and ChatGPT said to each other is kept: user and assistant messages addressed
to everyone (not tool calls, tool output, hidden context or system prompts), text parts joined, an
image shown as ``[图片]``, a spoken message by its transcript. ChatGPT's own saved-memory snapshot
(``model_editable_context``), when the export has one, is offered as saved memories.

The files are read a conversation at a time (``json_stream``); a conversation holding a value no
real export has (a time that is NaN or in the year 9999, nesting deeper than a parser goes) is left
out and named (``History.bad``), and the others are read.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from . import saved_memories
from .model import (Conversation, History, HistoryFormatError, Message, When, add_said, branch_down, branch_up, convert_one,
                    made_id, read_epoch)
from .source_files import Source, listed_conversations, named_files, open_json

PART = re.compile(r"^conversations-(\d+)\.json$")
IMAGE = "[图片]"
_TEXT_TYPES = ("text", "multimodal_text")
_HIDDEN_CHANNELS = ("commentary", "analysis")


def files(source: Source) -> list[str]:
    """The conversation files: every ``conversations.json`` and ``conversations-NNN.json`` (two
    exports in one zip, each in its folder, or a whole file beside parts), folder by folder, a
    folder's whole file first, then its parts in their numeric order. A conversation in more than one
    is planned once (``plan``)."""
    if len(source.names) == 1 and source.names[0] == source.path.name:
        return list(source.names)
    whole = [n for n in source.names if n.rsplit("/", 1)[-1] == "conversations.json"]

    def order(name: str) -> tuple[str, int, int]:
        folder, _, base = name.rpartition("/")
        part = PART.search(base)
        return (folder, 1, int(part.group(1))) if part else (folder, 0, 0)

    return sorted([*whole, *source.matching(PART)], key=order)


def read(source: Source) -> History:
    history = History("chatgpt")
    names = files(source)
    if not names:
        raise HistoryFormatError("找不到 ChatGPT 的 conversations.json（或 conversations-000.json）",
                                 "no ChatGPT conversations.json (or conversations-000.json) found")
    memory_text = ""
    for name in names:
        stream = open_json(source, name)
        for index, raw in listed_conversations(history, name, stream):
            if not isinstance(raw, dict) or not isinstance(raw.get("mapping"), dict):
                raise HistoryFormatError(f"{name} 的第 {index} 个对话没有 mapping，不是 ChatGPT 的导出格式",
                                         f"conversation {index} of {name} has no mapping: not a ChatGPT export")
            made = convert_one(history, name, index, raw, _conversation)
            if made is None:
                continue
            conversation, snapshot = made
            if snapshot:
                memory_text = snapshot  # the later conversation's snapshot is the newer one
            if conversation.messages:
                history.conversations.append(conversation)
        stream.finish()
    if memory_text:
        history.saved_memories, cut = saved_memories.parse_snapshot(memory_text)
        if cut:
            kept = len(history.saved_memories)
            history.notes.append((
                f"ChatGPT 的记忆快照超过 {saved_memories.MAX_ENTRIES} 条或 {saved_memories.MAX_TEXT_CHARS:,} 字，"
                f"只读取了前 {kept} 条已保存的记忆，其余的没有导入（对话照常读取）",
                f"ChatGPT's memory snapshot holds more than {saved_memories.MAX_ENTRIES} entries or "
                f"{saved_memories.MAX_TEXT_CHARS:,} characters: only its first {kept} saved memories were read, "
                "the rest are left out (the conversations are read as usual)"))
    if len({n.rpartition("/")[0] for n in names}) > 1 or (len(names) > 1 and any(
            n.rsplit("/", 1)[-1] == "conversations.json" for n in names)):
        zh, en = named_files(names)
        history.notes.append((
            f"{source.path.name} 里有不止一份导出，都读取了：{zh}（同一轮对话只导入一次）",
            f"{source.path.name} holds more than one export, all read: {en} (a turn in more than one is imported once)"))
    history.note_guessed_branches("{0} 个对话没有记录保留的分支，按每步最新的回复推断",
                                  "{0} conversations do not say which branch was kept; the latest reply at each "
                                  "step was taken")
    return history


def _conversation(raw: dict[str, Any], skipped: Counter) -> tuple[Conversation, str]:
    mapping: dict[str, Any] = raw["mapping"]
    path, guessed = _kept_branch(mapping, raw.get("current_node"))
    kept = set(path)
    skipped["other_branch"] += sum(1 for nid, node in mapping.items()
                                   if nid not in kept and isinstance(node, dict) and node.get("message"))
    title = " ".join(str(raw.get("title") or "").split())
    start = raw.get("create_time")
    last: When | None = None if start is None else read_epoch(start)
    messages: list[Message] = []
    snapshot = ""
    for nid in path:
        msg = (mapping.get(nid) or {}).get("message")
        if not isinstance(msg, dict):
            continue
        content = msg.get("content") if isinstance(msg.get("content"), dict) else {}
        kind = content.get("content_type")
        if kind == "model_editable_context":
            snapshot = str(content.get("model_set_context") or "").strip() or snapshot
        role = (msg.get("author") or {}).get("role") if isinstance(msg.get("author"), dict) else None
        stamp = msg.get("create_time")
        if stamp is not None and stamp != 0:  # none, or 0 (some nodes): the time before it goes on
            last = read_epoch(stamp)
        reason = _left_out(msg, role, kind)
        if reason:
            skipped[reason] += 1
            continue
        text = _text(content)
        add_said(messages, skipped, role, "" if text == IMAGE and role == "assistant" else text, last, str(msg.get("id") or nid))
    cid = str(raw.get("id") or raw.get("conversation_id") or "")
    legacy = ""
    if not cid:
        cid, legacy = made_id("chatgpt-", title, messages)
    return Conversation(cid, title or (messages[0].text[:30] if messages else ""), messages, guessed,
                        legacy), snapshot


def _left_out(msg: dict[str, Any], role: Any, kind: Any) -> str:
    """Why a message on the kept branch is not a turn ("" when it is one)."""
    if role == "system":
        return "system"
    if role == "tool":
        return "tool"
    if role not in ("user", "assistant"):
        return "other_role"
    if (msg.get("metadata") or {}).get("is_visually_hidden_from_conversation") is True:
        return "hidden"
    if msg.get("recipient") not in (None, "all"):
        return "tool"
    if msg.get("channel") in _HIDDEN_CHANNELS:
        return "hidden"
    if kind not in _TEXT_TYPES:
        return "non_text"
    return ""


def _text(content: dict[str, Any]) -> str:
    pieces: list[str] = []
    for part in content.get("parts") or []:
        if isinstance(part, str):
            if part.strip():
                pieces.append(part.strip())
        elif isinstance(part, dict):
            kind = part.get("content_type")
            if kind == "audio_transcription" and str(part.get("text") or "").strip():
                pieces.append(str(part["text"]).strip())
            elif kind == "image_asset_pointer":
                pieces.append(IMAGE)
    return "\n".join(pieces).strip()


def _kept_branch(mapping: dict[str, Any], current: Any) -> tuple[list[str], bool]:
    """The node ids from the root to ``current`` (the kept branch), or a guessed branch (True)."""
    kept = branch_up(mapping, current, "parent")
    if kept is not None:
        return kept, False
    roots = [nid for nid, node in mapping.items()
             if isinstance(node, dict) and (node.get("parent") is None or node.get("parent") not in mapping)]
    # no root (the parents make a loop, as a hand-edited or damaged export can): from the oldest node,
    # so the conversation is read, not dropped whole as "another branch"
    start = roots[0] if roots else min(mapping, key=lambda nid: _created(mapping[nid]), default=None)
    path = branch_down(mapping, start, "children", lambda below: max(below, key=lambda c: _created(mapping[c])))
    has_branches = any(len((n or {}).get("children") or []) > 1 for n in mapping.values() if isinstance(n, dict))
    return path, has_branches


def _created(node: Any) -> float:
    msg = node.get("message") if isinstance(node, dict) else None
    stamp = msg.get("create_time") if isinstance(msg, dict) else None
    return float(stamp) if isinstance(stamp, (int, float)) else 0.0
