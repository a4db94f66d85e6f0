"""Sonetto's own plain history format, for any other app or a script: JSON Lines, one message per line::

    {"conversation": "trip-2023", "role": "user", "content": "下周三我要考日语 N3。", "time": "2023-03-14T21:07:00+08:00"}

- ``conversation`` (text): which chat the message belongs to; ``role``: ``user`` or ``assistant``
  (``system`` and ``tool`` lines are accepted and left out); ``content``: the text; ``time``: ISO-8601,
  with ``Z`` or an offset (a time without one is this computer's local time).
- Optional: ``title`` (the chat's title: the first one given wins) and ``id`` (the message's own id,
  which recognises it on a re-import; without it the time does).
- Lines may come in any order (a chat's messages are sorted by time, then by line); blank lines and
  a UTF-8 byte order mark are fine. One bad line refuses the whole file, naming every bad line.
"""

from __future__ import annotations

import json
from typing import Any

from .model import BadValue, Conversation, History, HistoryFormatError, Message, parse_iso
from .source_files import Source, lines_of

SKIPPED_ROLES = ("system", "tool")
MAX_LISTED = 5  # bad lines named in the error


def read(source: Source) -> History:
    name = source.names[0]
    history = History("jsonl")
    rows: dict[str, list[tuple[Message, int]]] = {}
    titles: dict[str, str] = {}
    listed: list[tuple[int, str, str]] = []  # the first bad lines, named in the error
    bad = 0
    for number, line in enumerate(lines_of(source, name), 1):
        if not line.strip():
            continue
        problem = _row(line, number, rows, titles, history)
        if problem is not None:
            bad += 1
            if len(listed) < MAX_LISTED:
                listed.append((number, *problem))
    if bad:
        more = bad - len(listed)
        zh = "；".join(f"第 {n} 行：{zh}" for n, zh, _ in listed) + (f"；另有 {more} 行有问题" if more else "")
        en = "; ".join(f"line {n}: {en}" for n, _, en in listed) + (f"; {more} more bad lines" if more else "")
        raise HistoryFormatError(f"{name} 有 {bad} 行读不了，整个文件没有导入：{zh}",
                                 f"{bad} lines of {name} cannot be read; nothing was imported: {en}")
    made: list[Conversation] = []
    for cid, messages in rows.items():
        messages.sort(key=lambda pair: (pair[0].time, pair[1]))
        ordered = [m for m, _ in messages]
        title = titles.get(cid) or ordered[0].text.splitlines()[0][:30]
        made.append(Conversation(cid, title, ordered))
    made.sort(key=lambda c: c.messages[0].time)
    for conversation in made:
        history.conversations.append(conversation)
    return history


def _row(line: str, number: int, rows: dict[str, list[tuple[Message, int]]], titles: dict[str, str],
         history: History) -> tuple[str, str] | None:
    """Add one line's message; (zh, en) saying what is wrong with it, or None."""
    try:
        raw: Any = json.loads(line)
    except json.JSONDecodeError as exc:
        return f"不是 JSON（{exc.msg}）", f"not JSON ({exc.msg})"
    except RecursionError:
        return "嵌套层数太多", "nested too deeply"
    if not isinstance(raw, dict):
        return "应是一个 JSON 对象", "should be a JSON object"
    conversation = raw.get("conversation")
    if isinstance(conversation, (int, float)) and not isinstance(conversation, bool):
        conversation = str(conversation)
    if not isinstance(conversation, str) or not conversation.strip():
        return "缺少 conversation（对话的标识）", "conversation (the chat's id) is missing"
    role = raw.get("role")
    if role not in ("user", "assistant", *SKIPPED_ROLES):
        return f"role 应是 user 或 assistant，这里是 {role!r}", f"role should be user or assistant, not {role!r}"
    content = raw.get("content")
    if not isinstance(content, str):
        return "content 应是文本", "content should be text"
    try:
        when = parse_iso(raw.get("time"))
    except BadValue as exc:
        return exc.zh, exc.en
    if when is None:
        return "time 不是 ISO-8601 时间（例如 2023-03-14T21:07:00+08:00）", \
            "time is not an ISO-8601 time (e.g. 2023-03-14T21:07:00+08:00)"
    title = raw.get("title")
    if isinstance(title, str) and title.strip() and conversation not in titles:
        titles[conversation] = " ".join(title.split())
    if role in SKIPPED_ROLES:
        history.skipped[role] += 1
        return None
    if not content.strip():
        history.skipped["empty"] += 1
        return None
    mid = raw.get("id")
    message = Message(role, content.strip(), when, str(mid) if isinstance(mid, (str, int)) else "")
    rows.setdefault(conversation, []).append((message, number))
    return None
