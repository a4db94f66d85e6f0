"""A chat exported from Sonetto (the chat list's 导出为 Markdown…), read back to bring it to
another memory store. Exports made since issue 31 frame each message with hidden markers
(``agent/chat_export.py``), read exactly. Older exports have none: their messages are found by the
speaker lines after each ``---`` (``**你** · 2026-05-02 09:00``), which a message containing such
lines would confuse, so the preview says the file was read by guessing.

What is left out: recalled memories (feeding them back would remember the memories as news), the
"stopped" / "reply failed" notes, and empty replies.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime

from .model import BadValue, Conversation, History, HistoryFormatError, Message, When, checked, made_id, read_iso
from .source_files import Source, text_of

_CHAT = re.compile(r'^<!-- sonetto:chat key="([0-9a-f]+)"(?: session="([^"]*)")? -->$')
_SPEAKERS = {"你": "user", "You": "user", "Sonetto": "assistant"}
_HEADER = re.compile(r"^\*\*(你|You|Sonetto)\*\*(?: · (\d{4}-\d{2}-\d{2} \d{2}:\d{2}))?$")
_NOTES = re.compile(r"^(?:_（已停止）_|_\(stopped\)_|> （回复失败：.*）|> \(reply failed: .*\)|_想起的记忆：.*_|"
                    r"_Memories recalled: .*_)$")


def read(source: Source) -> History:
    name = source.names[0]
    lines = text_of(source, name).splitlines()
    title = next((line[2:].strip() for line in lines if line.startswith("# ")), "")
    chat = next((_CHAT.match(line) for line in lines if _CHAT.match(line)), None)
    history = History("sonetto")
    try:
        if chat is not None:
            messages, session = _marked(lines, chat.group(1), history), chat.group(2) or ""
        else:
            messages, session = _guessed(lines, history), ""
    except BadValue as exc:  # the file is one conversation: it is that one that cannot be read
        raise HistoryFormatError(f"{name} 读不了：{exc.zh}", f"{name} cannot be read: {exc.en}") from None
    if chat is None and messages:
        history.notes.append(("这是旧版 Sonetto 导出的对话，消息按“---”和说话人推断；消息里若有这样的行可能被拆开",
                              "an older Sonetto export: messages were told apart by '---' and speaker lines, "
                              "which a message containing such lines would split"))
    if not messages:
        raise HistoryFormatError(f"{name} 不是 Sonetto 导出的对话（找不到消息）",
                                 f"{name} is not a chat exported from Sonetto (no messages found)")
    cid, legacy = (f"sonetto-{session}", "") if session else made_id("sonetto-", title, messages)
    history.conversations.append(Conversation(cid, title or messages[0].text[:30], messages, legacy_id=legacy))
    return history


def _marked(lines: list[str], key: str, history: History) -> list[Message]:
    begin = re.compile(rf'^<!-- sonetto:{key} role="(user|assistant)"(?: time="([^"]*)")? -->$')
    end = f"<!-- sonetto:{key} end -->"
    messages: list[Message] = []
    last: When | None = None
    i = 0
    while i < len(lines):
        opened = begin.match(lines[i])
        i += 1
        at = i  # its line number
        if not opened:
            continue
        body: list[str] = []
        while i < len(lines) and lines[i] != end and not begin.match(lines[i]):
            body.append(lines[i])
            i += 1
        if body and _HEADER.match(body[0]):
            body = body[1:]
        last = _on_line(at, read_iso, opened.group(2)) or last
        _add(messages, opened.group(1), "\n".join(body).strip("\n").rstrip(), last, history)
    return messages


def _guessed(lines: list[str], history: History) -> list[Message]:
    starts = [i for i, line in enumerate(lines) if _HEADER.match(line) and _after_rule(lines, i)]
    messages: list[Message] = []
    last: When | None = None
    for n, start in enumerate(starts):
        stop = starts[n + 1] if n + 1 < len(starts) else len(lines)
        body = lines[start + 1:stop]
        while body and (not body[-1].strip() or body[-1].strip() == "---" or _NOTES.match(body[-1].strip())):
            body.pop()
        header = _HEADER.match(lines[start])
        assert header is not None
        if header.group(2):
            last = _on_line(start + 1, _header_time, header.group(2))
        _add(messages, _SPEAKERS[header.group(1)], "\n".join(body).strip(), last, history)
    return messages


def _header_time(text: str) -> When:
    """A speaker line's time: local, naive (it names no instant)."""
    try:
        moment = datetime.strptime(text, "%Y-%m-%d %H:%M")
    except ValueError:  # 2024-02-30, 25:00
        raise BadValue(f"时间 {text} 不是有效的日期时间", f"the time {text} is not a valid date and time") from None
    return When(checked(moment, text))


def _on_line(number: int, read: Callable[[str], When | None], text: str | None) -> When | None:
    """``read(text)``; a ``BadValue`` it raises names the file's line ``number`` (1-based)."""
    try:
        return read(text)
    except BadValue as exc:
        raise BadValue(f"第 {number} 行：{exc.zh}", f"line {number}: {exc.en}") from None


def _after_rule(lines: list[str], i: int) -> bool:
    """A speaker line starts a message at the top (after the title block) or after a ``---``."""
    j = i - 1
    while j >= 0 and not lines[j].strip():
        j -= 1
    return j < 0 or lines[j].strip() == "---" or lines[j].startswith("_") or lines[j].startswith("# ")


def _add(messages: list[Message], role: str, text: str, when: When | None, history: History) -> None:
    if not text:
        history.skipped["empty"] += 1
    elif when is None:
        history.skipped["no_time"] += 1
    else:
        messages.append(Message(role, text, when.local, instant=when.instant))
