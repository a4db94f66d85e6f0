"""Open WebUI's chat export (设置 → 对话 → 导出对话 / Settings → Chats → Export chats:
``chat-export-<ms>.json``; one chat's 下载 → 导出对话 (.json) is the same list with one entry), or a
zip or folder of such files. Newer servers stream the export one chat a line (``/chats/all`` as
NDJSON): such a file (``.json``, ``.jsonl`` or ``.ndjson``) is read a line at a time (one chat written
as an indented object, over many lines, is read as one chat). Best effort: Open WebUI documents no export format; the shape below is
what its own server returns for the export (``ChatResponse``) and what its import takes back.

A list of ``{id, user_id, title, chat, created_at, updated_at, archived, pinned, meta, folder_id…}``
(times in seconds); ``chat`` is the chat as the page keeps it: ``{title, models, history: {messages:
{id: {id, parentId, childrenIds, role, content, timestamp, model, files…}}, currentId}, messages,
timestamp}``. Editing a message or regenerating a reply (or asking two models at once) starts a
branch; the one on screen ends at ``history.currentId`` and is followed up to its root, the others
are left out. Without a usable ``currentId`` the last child is taken at each step (as the page does)
and the preview says so. Very old exports have only ``chat.messages``, one line in order.

Only what was said is kept: user and assistant messages (not system prompts), ``content`` text (or
the text parts of a list; a reply kept only as response items, ``output``, by its ``output_text``), a
reasoning model's thinking and tool runs the page folds into the reply left out
(``model.without_reasoning``), an image the person sent as ``[图片]``. A message's time is
its ``timestamp`` (seconds; milliseconds in some versions: told by size), else the one before it,
else the chat's. The file is read a chat at a time (``json_stream``); a chat holding a value no real
export has is left out and named (``History.bad``).
"""

from __future__ import annotations

import codecs
import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

from .chatgpt import IMAGE
from .json_stream import MAX_ELEMENT_CHARS, Skipped
from .model import (BadConversation, BadValue, Conversation, History, HistoryFormatError, Message, When, begun,
                    add_said, branch_down, branch_up, convert_one, made_id, read_stamp, spoken, without_reasoning)
from .source_files import Source, lines_of, listed_conversations, open_json

#: Titles the page gives a chat before it has one.
_UNTITLED = ("new chat", "新对话", "新聊天")


def files(source: Source) -> list[str]:
    """The picked file, or the Open WebUI exports among a zip's or folder's ``.json`` files."""
    from .sniff import json_files

    return json_files(source, "openwebui")


def read(source: Source) -> History:
    from .sniff import json_kind

    names = files(source)
    history = begun("openwebui", names, ("找不到 Open WebUI 导出的对话（chat-export-….json）",
                                         "no Open WebUI chat export (chat-export-….json) found"),
                    ("Open WebUI 没有公开导出格式：按它自己的导出和导入代码读取（尽力而为），思考过程和工具调用不导入",
                     "Open WebUI publishes no export format: read as its own export and import code shows "
                     "(best effort); thinking and tool calls are left out"))
    for name in names:
        if open_json(source, name, hashed=False).peek() == "{":  # one chat a line, as its server streams them
            if json_kind(source, name) != "openwebui":  # (another app's file picked as Open WebUI's)
                raise HistoryFormatError(f"{name} 不是 Open WebUI 导出的对话", f"{name} is not an Open WebUI chat export")
            if not _one_a_line(source, name):  # one chat as an indented object
                stream = open_json(source, name)
                raw = stream.value()
                stream.finish()
                if isinstance(raw, Skipped):
                    history.bad.append(BadConversation(name, 1, "", raw.zh, raw.en))
                else:
                    _one(history, name, 1, raw)
                continue
            for index, raw in _lines(history, source, name):
                _one(history, name, index, raw)
            continue
        stream = open_json(source, name)
        for index, raw in listed_conversations(history, name, stream):
            _one(history, name, index, raw)
        stream.finish()
    history.note_guessed_branches("{0} 个对话有改写或重新生成的分支，文件没有记录保留哪一个：每步取最后一个",
                                  "{0} chats have edited or regenerated branches and the file does not say which "
                                  "was kept: the last one at each step was taken")
    return history


def _one_a_line(source: Source, name: str) -> bool:
    """Whether the file's first line that is not blank is whole JSON (chats one a line), not the start of
    one object written over many lines."""
    decoder = codecs.getincrementaldecoder("utf-8-sig")()
    pieces: list[str] = []
    size = 0
    for raw in source.chunks(name, hashed=False):
        try:
            text = decoder.decode(raw)
        except UnicodeDecodeError:  # (the full read says so)
            return False
        if not pieces:
            text = text.lstrip()
        end = text.find("\n")
        if end >= 0:
            pieces.append(text[:end])
            break
        if text:
            pieces.append(text)
            size += len(text)
        if size > MAX_ELEMENT_CHARS:
            return False
    try:
        json.loads("".join(pieces))
    except (ValueError, RecursionError):
        return False
    return True


def _lines(history: History, source: Source, name: str) -> Iterator[tuple[int, Any]]:
    """(line number, chat) of a file with one chat a line; a line that is not whole JSON is left out and named."""
    for number, line in enumerate(lines_of(source, name), 1):
        if not line.strip():
            continue
        try:
            yield number, json.loads(line)
        except (ValueError, RecursionError):
            history.bad.append(BadConversation(name, number, "", "这一行不是完整的 JSON", "this line is not whole JSON"))


def _one(history: History, name: str, index: int, raw: Any) -> None:
    body = raw.get("chat") if isinstance(raw, dict) else None
    if not isinstance(body, dict):
        body = raw if isinstance(raw, dict) and ("history" in raw or "messages" in raw) else None
    if body is None:
        raise HistoryFormatError(f"{name} 的第 {index} 个对话没有 chat，不是 Open WebUI 的导出格式",
                                 f"chat {index} of {name} has no chat: not an Open WebUI export")
    conversation = convert_one(history, name, index, raw, _conversation)
    if conversation is not None and conversation.messages:
        history.conversations.append(conversation)


def _conversation(raw: dict[str, Any], skipped: Counter) -> Conversation:
    body: dict[str, Any] = raw["chat"] if isinstance(raw.get("chat"), dict) else raw
    title = " ".join(str(raw.get("title") or body.get("title") or "").split())
    if title.lower() in _UNTITLED:
        title = ""
    tree = body.get("history") if isinstance(body.get("history"), dict) else {}
    mapping = tree.get("messages")
    guessed = False
    if isinstance(mapping, dict) and mapping:
        path, guessed = _kept_branch(mapping, tree.get("currentId") or raw.get("current_message_id"))
        kept = set(path)
        skipped["other_branch"] += sum(1 for mid, m in mapping.items() if mid not in kept and isinstance(m, dict))
        listed = [mapping[mid] for mid in path if isinstance(mapping[mid], dict)]
    else:  # an old export: the messages in order
        listed = [m for m in body.get("messages") or [] if isinstance(m, dict)]
    last = _first_time(raw, body)
    messages: list[Message] = []
    for msg in listed:
        stamp = msg.get("timestamp")
        if stamp not in (None, 0):
            last = read_stamp(stamp)
        role = msg.get("role")
        if not spoken(role, skipped):
            continue
        text = _text(msg, skipped)
        add_said(messages, skipped, role, "" if text == IMAGE and role == "assistant" else text, last, str(msg.get("id") or ""))
    cid = str(raw.get("id") or body.get("id") or "")
    legacy = ""
    if not cid:
        cid, legacy = made_id("openwebui-", title, messages)
    return Conversation(cid, title or (messages[0].text.splitlines()[0][:30] if messages else ""), messages,
                        guessed, legacy)


def _first_time(raw: dict[str, Any], body: dict[str, Any]) -> When | None:
    """The chat's own time, for messages before the first that has one (seconds, or the page's milliseconds)."""
    for value in (raw.get("created_at"), body.get("timestamp")):
        if value not in (None, 0):
            return read_stamp(value)
    return None


def _text(msg: dict[str, Any], skipped: Counter) -> str:
    content = msg.get("content")
    if isinstance(content, list):  # OpenAI-style parts
        pieces = []
        for part in content:
            kind = part.get("type") if isinstance(part, dict) else None
            if kind == "text" and str(part.get("text") or "").strip():
                pieces.append(str(part["text"]).strip())
            elif kind == "image_url":
                pieces.append(IMAGE)
        content = "\n".join(pieces)
    elif not isinstance(content, str):
        if content is not None:
            raise BadValue("消息内容不是文字", "a message's content is not text")
        content = ""
    if not content.strip() and isinstance(msg.get("output"), list):  # newer servers: the reply as response items
        content = _output_text(msg["output"], skipped)
    text, thought = without_reasoning(content.strip())
    if thought:
        skipped["hidden"] += 1
    images = [f for f in msg.get("files") or [] if isinstance(f, dict) and f.get("type") == "image"]
    if images and IMAGE not in text:
        text = "\n".join(p for p in (text, *[IMAGE] * len(images)) if p)
    return text.strip()


def _output_text(items: list[Any], skipped: Counter) -> str:
    """The words of a reply kept as OpenAI response items (``{type: message, content: [{type: output_text,
    text}]}``); reasoning and tool calls left out."""
    pieces = []
    for item in items:
        kind = item.get("type") if isinstance(item, dict) else None
        if kind == "message" and isinstance(item.get("content"), list):
            pieces += [str(part.get("text") or "").strip() for part in item["content"]
                       if isinstance(part, dict) and part.get("type") in ("output_text", "text")]
        elif kind == "reasoning":
            skipped["hidden"] += 1
        elif kind is not None:
            skipped["tool"] += 1
    return "\n".join(p for p in pieces if p)


def _kept_branch(mapping: dict[str, Any], current: Any) -> tuple[list[str], bool]:
    """The message ids from the root to ``current`` (the branch on screen), or, without it, the branch
    of the last child at each step (True when there were others to choose from)."""
    kept = branch_up(mapping, current, "parentId")
    if kept is not None:
        return kept, False
    roots = [mid for mid, m in mapping.items()
             if isinstance(m, dict) and (m.get("parentId") is None or m.get("parentId") not in mapping)]
    path = branch_down(mapping, roots[-1] if roots else None, "childrenIds", lambda below: below[-1])
    branched = len(roots) > 1 or any(len((m or {}).get("childrenIds") or []) > 1
                                     for m in mapping.values() if isinstance(m, dict))
    return path, branched
