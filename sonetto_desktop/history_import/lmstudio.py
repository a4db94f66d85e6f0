"""LM Studio's chats: one ``<ms>.conversation.json`` per chat in its conversations folder (聊天记录 →
在文件夹中显示 / Chats → Reveal in Finder/Explorer: ``~/.lmstudio/conversations``, with subfolders for
its folders), picked as that folder, a zip of it or one file. Best effort: LM Studio's app is not
open source and documents no format; the shape below is what public readers of these files agree on.

A file is ``{name, createdAt (ms), systemPrompt, messages, lastUsedModel, tokenCount…}``; each message
is ``{versions: [...], currentlySelected}``: a regenerated reply or an edited question adds a version,
and ``currentlySelected`` is the one on screen (the others are left out). A user version is
``{type: singleStep, role: user, content: [{type: text, text} | {type: file…}]}``; an assistant one
``{type: multiStep, role: assistant, steps: [{type: contentBlock, content: [{type: text, text}],
style?}, {type: toolStatus…}, …]}``: only the text of content blocks is what was said (a block styled
as thinking, ``<think>``, tool runs and debug blocks are left out); a file the person attached is
``[附件]`` (``[图片]`` for an image).

The files keep no time for each message: every message of a chat is dated at the chat's
``createdAt``, and the preview says so. Each file is read on its own; a file holding a value no real
one has is left out and named (``History.bad``), and so is a file of the folder that cannot be read
(cut short while LM Studio saved it, damaged): the others are read.
"""

from __future__ import annotations

from collections import Counter
from functools import partial
from typing import Any

from .chatgpt import IMAGE
from .json_stream import Skipped
from .model import (BadConversation, BadValue, Conversation, History, HistoryFormatError, Message, add_said, begun, convert_one,
                    read_stamp, spoken, without_reasoning)
from .source_files import Source, open_json

SUFFIX = ".conversation.json"
ATTACHMENT = "[附件]"


def files(source: Source) -> list[str]:
    """The picked file, or the LM Studio chats in a zip or folder (``*.conversation.json``, and any
    other ``.json`` that is one), in name order: the names are their creation times."""
    from .sniff import json_files

    return json_files(source, "lmstudio")


def read(source: Source) -> History:
    from .sniff import picked_file

    names = files(source)
    history = begun("lmstudio", names, ("找不到 LM Studio 的对话文件（….conversation.json）",
                                        "no LM Studio chat files (….conversation.json) found"),
                    ("LM Studio 没有公开对话文件的格式：按公开的解析器读取（尽力而为）；文件不记录每条消息的时间，"
                     "整段对话都按它开始的时间导入",
                     "LM Studio publishes no format for its chat files: read as public parsers do (best effort); "
                     "the files keep no time for each message, so a whole chat is dated at its start"))
    for index, name in enumerate(names, 1):
        try:
            raw = _read_file(source, name)
        except HistoryFormatError as exc:
            if picked_file(source):
                raise
            # one chat file of the folder cut short (LM Studio was saving it) or damaged: that chat is left out
            history.bad.append(BadConversation(name, index, "", exc.zh, exc.en))
            continue
        if isinstance(raw, Skipped):
            history.bad.append(BadConversation(name, index, "", raw.zh, raw.en))
            continue
        raw = {**raw, "title": raw.get("name")}  # (how a chat left out is named: ``convert_one``)
        conversation = convert_one(history, name, index, raw, partial(_conversation, name=name))
        if conversation is not None and conversation.messages:
            history.conversations.append(conversation)
    return history


def _read_file(source: Source, name: str) -> Any:
    """The chat file ``name`` whole (``Skipped`` when too deep or too large); ``HistoryFormatError``: it is
    not one."""
    stream = open_json(source, name)
    if stream.peek() != "{":
        raise HistoryFormatError(f"{name} 不是 LM Studio 的对话文件", f"{name} is not an LM Studio chat file")
    raw = stream.value()
    stream.finish()
    if not isinstance(raw, (dict, Skipped)) or isinstance(raw, dict) and not isinstance(raw.get("messages"), list):
        raise HistoryFormatError(f"{name} 没有 messages，不是 LM Studio 的对话文件",
                                 f"{name} has no messages: not an LM Studio chat file")
    return raw


def _conversation(raw: dict[str, Any], skipped: Counter, *, name: str) -> Conversation:
    created = raw.get("createdAt")
    when = read_stamp(created) if created not in (None, 0) else None
    messages: list[Message] = []
    for number, entry in enumerate(raw["messages"]):
        versions = entry.get("versions") if isinstance(entry, dict) else None
        if not isinstance(versions, list) or not versions:
            continue
        chosen = entry.get("currentlySelected", 0)
        if isinstance(chosen, bool) or not isinstance(chosen, int) or not 0 <= chosen < len(versions):
            chosen = len(versions) - 1
        skipped["other_branch"] += len(versions) - 1
        version = versions[chosen]
        if not isinstance(version, dict):
            raise BadValue("消息的版本不是对象", "a message's version is not an object")
        role = version.get("role")
        if not spoken(role, skipped):
            continue
        text = _text(version, skipped)
        add_said(messages, skipped, role, "" if role == "assistant" and text in (IMAGE, ATTACHMENT) else text, when,
                 f"{number}.{chosen}")
    base = name.rsplit("/", 1)[-1]
    cid = "lmstudio-" + (base[: -len(SUFFIX)] if base.lower().endswith(SUFFIX) else base.rsplit(".", 1)[0])
    title = " ".join(str(raw.get("name") or "").split())
    return Conversation(cid, title or (messages[0].text.splitlines()[0][:30] if messages else ""), messages)


def _text(version: dict[str, Any], skipped: Counter) -> str:
    if version.get("type") == "multiStep" or isinstance(version.get("steps"), list):
        pieces = []
        for step in version.get("steps") or []:
            kind = step.get("type") if isinstance(step, dict) else None
            if kind == "contentBlock":
                style = step.get("style") if isinstance(step.get("style"), dict) else {}
                if style.get("type") == "thinking":
                    skipped["hidden"] += 1
                    continue
                pieces.append(_parts(step.get("content"), skipped))
            elif kind == "toolStatus":
                skipped["tool"] += 1
        text = "\n".join(p for p in pieces if p)
    else:
        text = _parts(version.get("content"), skipped)
    text, thought = without_reasoning(text.strip())
    if thought:
        skipped["hidden"] += 1
    return text


def _parts(content: Any, skipped: Counter) -> str:
    if isinstance(content, str):
        return content.strip()
    pieces = []
    for part in content if isinstance(content, list) else []:
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text":
            if not isinstance(part.get("text"), str):
                raise BadValue("消息内容不是文字", "a message's content is not text")
            pieces.append(part["text"].strip())
        elif kind == "file":
            pieces.append(IMAGE if part.get("fileType") == "image" else ATTACHMENT)
    return "\n".join(p for p in pieces if p)
