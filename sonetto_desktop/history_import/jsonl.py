"""Sonetto's own plain history format, for any other app or a script: JSON Lines, one message per line::

    {"conversation": "trip-2023", "role": "user", "content": "下周三我要考日语 N3。", "time": "2023-03-14T21:07:00+08:00"}

- ``conversation`` (text): which chat the message belongs to; ``role``: ``user`` or ``assistant``
  (``system`` and ``tool`` lines are accepted and left out); ``content``: the text; ``time``: ISO-8601,
  with ``Z`` or an offset (a time without one is this computer's local time).
- Optional: ``title`` (the chat's title: the first one given wins) and ``id`` (the message's own id,
  which recognises it on a re-import; without it the time does: the instant a time with ``Z`` or an
  offset names, in whatever time zone the computer is then).
- Lines may come in any order (a chat's messages are sorted by time, then by line); blank lines and
  a UTF-8 byte order mark are fine. One bad line refuses the whole file, naming every bad line.

The file is read a line at a time (``lines_of``, which says how far it got: ``Source.on_read``) and
each message is written to a temporary file as it is read (``_Spilled``): memory holds where each
conversation's messages are and its first time, never the file's text, and a conversation is put
together (its messages sorted) only when the whole file has been read (its lines may be anywhere).
"""

from __future__ import annotations

import json
import os
import pickle
import tempfile
from array import array
from datetime import datetime, timezone
from typing import Any

from .model import BadValue, Conversation, History, HistoryFormatError, Message, read_iso
from .source_files import Source, lines_of

SKIPPED_ROLES = ("system", "tool")
MAX_LISTED = 5  # bad lines named in the error
_FLUSH_BYTES = 1024 ** 2  # messages are written to the spill file this many bytes at a time


class _Spilled:
    """The messages read so far, in an unnamed temporary file (deleted when closed); per
    conversation, in the order first seen: where its messages are, its earliest time and its title."""

    def __init__(self) -> None:
        self._file = tempfile.TemporaryFile(prefix="sonetto-import-")
        self._end = 0  # where the next message goes (written or still in ``_buffer``)
        self._buffer = bytearray()
        self._written = 0  # the file's length
        self.spans: dict[str, array] = {}  # conversation -> offset, length of each message's pickle
        self.first: dict[str, datetime] = {}
        self.titles: dict[str, str] = {}  # the first title each conversation's lines give

    def add(self, conversation: str, message: Message, number: int) -> None:
        data = pickle.dumps((message.role, message.text, message.time, message.id, number, message.instant),
                            pickle.HIGHEST_PROTOCOL)
        self._buffer += data
        if len(self._buffer) >= _FLUSH_BYTES:
            self._flush()
        self.spans.setdefault(conversation, array("q")).extend((self._end, len(data)))
        self._end += len(data)
        if conversation not in self.first or message.time < self.first[conversation]:
            self.first[conversation] = message.time

    def _flush(self) -> None:
        os.pwrite(self._file.fileno(), self._buffer, self._written)
        self._written += len(self._buffer)
        self._buffer.clear()

    def messages(self, conversation: str) -> list[Message]:
        """The conversation's messages sorted by time (the instant a time names, else the local time
        it says: local clock times repeat where the clocks fall back), then by line."""
        if self._buffer:
            self._flush()
        spans = self.spans[conversation]
        rows = [pickle.loads(os.pread(self._file.fileno(), spans[i + 1], spans[i])) for i in range(0, len(spans), 2)]
        rows.sort(key=lambda row: (_moment(row[5], row[2]), row[4]))
        return [Message(role, text, when, mid, instant) for role, text, when, mid, _, instant in rows]

    def close(self) -> None:
        self._file.close()


def _moment(instant: datetime | None, local: datetime) -> datetime:
    """A message's moment, comparable across messages with and without an instant."""
    if instant is not None:
        return instant
    try:
        return local.astimezone(timezone.utc)  # a naive time is this computer's local time
    except (OverflowError, OSError, ValueError):  # (near year 1 or 9999 on some platforms)
        return local.replace(tzinfo=timezone.utc)


def read(source: Source) -> History:
    name = source.names[0]
    history = History("jsonl")
    spilled = _Spilled()
    try:
        _read_lines(source, name, history, spilled)
        for cid in sorted(spilled.spans, key=lambda c: spilled.first[c]):  # stable: ties in order first seen
            ordered = spilled.messages(cid)
            title = spilled.titles.get(cid) or ordered[0].text.splitlines()[0][:30]
            history.conversations.append(Conversation(cid, title, ordered))
    finally:
        spilled.close()
    return history


def _read_lines(source: Source, name: str, history: History, spilled: _Spilled) -> None:
    listed: list[tuple[int, str, str]] = []  # the first bad lines, named in the error
    bad = 0
    for number, line in enumerate(lines_of(source, name), 1):
        if not line.strip():
            continue
        problem = _row(line, number, spilled, history)
        if problem is not None:
            bad += 1
            if len(listed) < MAX_LISTED:
                listed.append((number, *problem))
    if bad:
        more = bad - len(listed)
        zh = "；".join(f"第 {n} 行：{zh}" for n, zh, _ in listed) + (f"；另有 {more} 行有问题" if more else "")
        en = "; ".join(f"line {n}: {en}" for n, _, en in listed) + (f"; {more} more bad lines" if more else "")
        lines = "1 line" if bad == 1 else f"{bad} lines"
        raise HistoryFormatError(f"{name} 有 {bad} 行读不了，整个文件没有导入：{zh}",
                                 f"{lines} of {name} cannot be read; nothing was imported: {en}")


def _row(line: str, number: int, spilled: _Spilled, history: History) -> tuple[str, str] | None:
    """Add one line's message; (zh, en) saying what is wrong with it, or None."""
    try:
        raw: Any = json.loads(line)
    except json.JSONDecodeError as exc:
        return f"不是 JSON（第 {exc.colno} 列不合格式）", f"not JSON (the format breaks at column {exc.colno})"
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
        when = read_iso(raw.get("time"))
    except BadValue as exc:
        return exc.zh, exc.en
    if when is None:
        return "time 不是 ISO-8601 时间（例如 2023-03-14T21:07:00+08:00）", \
            "time is not an ISO-8601 time (e.g. 2023-03-14T21:07:00+08:00)"
    title = raw.get("title")
    if isinstance(title, str) and title.strip() and conversation not in spilled.titles:
        spilled.titles[conversation] = " ".join(title.split())
    if role in SKIPPED_ROLES:
        history.skipped[role] += 1
        return None
    if not content.strip():
        history.skipped["empty"] += 1
        return None
    mid = raw.get("id")
    message = Message(role, content.strip(), when.local, str(mid) if isinstance(mid, (str, int)) else "", when.instant)
    spilled.add(conversation, message, number)
    return None
