"""What every history format is read into: conversations of timed user/assistant messages.

A value no real export holds (a time that is not a number, before 1990 or in the future, a year
9999…) is a :class:`BadValue`; the readers skip the conversation that holds it and say which one and
why (:class:`BadConversation`, ``History.bad``), and the rest of the file is read (``convert_one``).
"""

from __future__ import annotations

import hashlib
import logging
import math
import os
import pickle
import re
import tempfile
import threading
from array import array
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta, timezone
from typing import Any, Iterator, NamedTuple, TypeVar

from .formats import format_named, label_of

log = logging.getLogger(__name__)


class Stopped(Exception):
    """A read or a plan the person no longer waits for (取消读取, the dialog closed), raised in its
    worker by its progress callback so the worker ends at once instead of reading a 2 GB export to
    the end (and holding the app's exit, which waits for its worker threads). An ``Exception``: the
    app's executor threads end on anything else (qasync's catch ``Exception``), and no reader catches
    ``Exception`` around a conversation (each names what it takes for a bad value)."""


class HistoryFormatError(ValueError):
    """The file is not a history we can read. ``zh`` / ``en``: one line saying why (and where)."""

    def __init__(self, zh: str, en: str) -> None:
        self.zh = zh
        self.en = en
        super().__init__(zh)

    def say(self, language: str) -> str:
        return self.en if language == "en" else self.zh


class BadValue(ValueError):
    """A value in one conversation that no real export holds (see the module docstring): that
    conversation is skipped. ``zh`` / ``en``: what is wrong with it."""

    def __init__(self, zh: str, en: str) -> None:
        self.zh = zh
        self.en = en
        super().__init__(zh)


@dataclass(frozen=True)
class BadConversation:
    """A conversation left out because it could not be read: where (``file``, its place ``index``
    in it, its ``title`` when that could be read) and why (``zh`` / ``en``)."""

    file: str
    index: int
    title: str
    zh: str
    en: str

    def say(self, language: str) -> str:
        if language == "en":
            named = f" “{self.title}”" if self.title else ""
            return f"conversation {self.index} of {self.file}{named}: {self.en}"
        named = f"「{self.title}」" if self.title else ""
        return f"{self.file} 的第 {self.index} 个对话{named}：{self.zh}"

    def to_json(self) -> dict[str, Any]:
        return {"file": self.file, "index": self.index, "title": self.title, "reason": self.en, "reason_zh": self.zh}


@dataclass(frozen=True)
class Message:
    """One message as the person saw it. ``time``: local, naive (the writer's clock is local time).
    ``instant``: the same moment in UTC (aware) when the file's time names one (an offset, ``Z``,
    seconds since 1970: ``When``), None when the file's time is naive (local, the same text in any
    zone). ``time`` moves with this computer's time zone; ``instant`` does not, and it is what
    recognises a message without an ``id`` on a re-import (``plan.exchange_key``)."""

    role: str  # "user" | "assistant"
    text: str
    time: datetime
    id: str = ""
    instant: datetime | None = None

    @property
    def mark(self) -> str:
        """Its time as keys and ids made of it name it, the same in every time zone: the UTC
        instant, else (a naive time in the file) the local time as the file said it."""
        return self.instant.isoformat() if self.instant is not None else self.time.isoformat()


class When(NamedTuple):
    """A time read from a file: ``local`` (naive, this computer's wall time: ``Message.time``) and,
    when the file's time names an instant, that instant in UTC (``Message.instant``)."""

    local: datetime
    instant: datetime | None = None


@dataclass
class Conversation:
    """``id``: stable across exports of the same chat (what re-imports are recognised by)."""

    id: str
    title: str
    messages: list[Message]
    #: The kept branch could not be read from the file and was guessed (see the format's module).
    guessed_branch: bool = False
    #: The id versions before this one gave it, when that differs (an id made of its first local
    #: time: ``made_id``): the keys they wrote to the ledger are of it (``plan.exchanges_of``).
    legacy_id: str = ""

    @property
    def first_day(self) -> date | None:
        return self.messages[0].time.date() if self.messages else None

    @property
    def last_day(self) -> date | None:
        return self.messages[-1].time.date() if self.messages else None


@dataclass(frozen=True)
class SavedMemory:
    """One entry of ChatGPT's saved memories. ``day``: the date it carried, if any; ``line``: where;
    ``theme``: the theme guessed for it (``saved_import.with_themes``, done by ``HistoryImports`` as it
    reads; "" until then)."""

    text: str
    day: date | None = None
    line: int = 0
    theme: str = ""


#: A UTF-16 surrogate on its own (JSON's ``"\ud83d"``: half an emoji, as an export cut mid-emoji holds;
#: a whole pair is read as the one character it makes): valid JSON, but no UTF-8.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_text(text: str) -> str:
    """``text`` with each lone surrogate as U+FFFD (�): what is read is written as UTF-8 everywhere
    (the import's keys, its journal, the model's request)."""
    return _LONE_SURROGATE.sub("\ufffd", text) if _LONE_SURROGATE.search(text) else text


def _cleaned(conversation: Conversation) -> Conversation:
    """``conversation`` with no lone surrogate in its id, title or messages (itself when it has none)."""
    found = _LONE_SURROGATE.search
    if not (found(conversation.id) or found(conversation.title) or found(conversation.legacy_id)
            or any(found(m.text) or found(m.id) for m in conversation.messages)):
        return conversation
    messages = [replace(m, text=clean_text(m.text), id=clean_text(m.id)) for m in conversation.messages]
    return replace(conversation, id=clean_text(conversation.id), title=clean_text(conversation.title),
                   legacy_id=clean_text(conversation.legacy_id), messages=messages)


class ConversationHead(NamedTuple):
    """What is kept in memory of a spilled conversation (see :class:`SpilledConversations`)."""

    id: str
    title: str
    first_day: date | None
    last_day: date | None
    messages: int
    guessed_branch: bool


class SpilledConversations:
    """A history's conversations, each written to a temporary file as it is read (issue 37): memory
    holds one :class:`ConversationHead` per conversation, never every message of an export, and a
    conversation is read back (``[i]``, iteration) when a plan or a batch needs its text. Derived
    data that is costly to make (a plan's per-exchange figures) is spilled beside it (``derived``).
    The file is unnamed (deleted by the system when it is closed or the process ends) and closed
    when the list is collected. Reading back is safe from any thread (``os.pread``)."""

    def __init__(self, items: Any = ()) -> None:
        self._file: Any = None
        self._lock = threading.Lock()
        self._end = 0
        self._spans = array("q")  # offset, length of each conversation's pickle (16 bytes, no object)
        self._heads: list[tuple[Any, ...]] = []  # ConversationHead's fields
        self._derived: dict[str, array] = {}  # kind -> offset, length per conversation (-1: not made)
        self._last: tuple[int, Conversation] | None = None  # the conversation last read back
        self._first_day: date | None = None  # the earliest and latest day of any conversation (``days``)
        self._last_day: date | None = None
        for conversation in items:
            self.append(conversation)

    def _write(self, data: bytes) -> int:
        """Append ``data`` to the file; where it starts."""
        with self._lock:
            if self._file is None:
                self._file = tempfile.TemporaryFile(prefix="sonetto-import-")
            os.pwrite(self._file.fileno(), data, self._end)
            start = self._end
            self._end += len(data)
            return start

    def _read(self, offset: int, length: int) -> Any:
        return pickle.loads(os.pread(self._file.fileno(), length, offset))

    def append(self, conversation: Conversation) -> None:
        conversation = _cleaned(conversation)  # (every reader's conversations come this way)
        data = pickle.dumps(conversation, pickle.HIGHEST_PROTOCOL)
        self._spans.extend((self._write(data), len(data)))
        first, last = conversation.first_day, conversation.last_day
        self._heads.append((conversation.id, conversation.title, first, last, len(conversation.messages),
                            conversation.guessed_branch))
        for day in (first, last):
            if day is not None:
                self._first_day = day if self._first_day is None else min(self._first_day, day)
                self._last_day = day if self._last_day is None else max(self._last_day, day)

    @property
    def days(self) -> tuple[date | None, date | None]:
        """The first and the last day any conversation has ((None, None): no dated message), kept as
        they are read: known before any plan."""
        return self._first_day, self._last_day

    def head(self, index: int) -> ConversationHead:
        return ConversationHead._make(self._heads[index])

    @property
    def heads(self) -> Iterator[ConversationHead]:
        """Each conversation's head, in order (kept as plain tuples, which the collector stops tracking)."""
        return map(ConversationHead._make, self._heads)

    def derived(self, kind: str, index: int, make: Any) -> Any:
        """``make(conversation)`` for conversation ``index``, worked out once and kept on disk."""
        spans = self._derived.get(kind)
        if spans is None:
            spans = self._derived[kind] = array("q", [-1]) * (2 * len(self))
        elif len(spans) < 2 * len(self):
            spans.extend([-1] * (2 * len(self) - len(spans)))
        if spans[2 * index] >= 0:
            return self._read(spans[2 * index], spans[2 * index + 1])
        value = make(self[index])
        data = pickle.dumps(value, pickle.HIGHEST_PROTOCOL)
        spans[2 * index], spans[2 * index + 1] = self._write(data), len(data)
        return value

    def __len__(self) -> int:
        return len(self._spans) // 2

    def __bool__(self) -> bool:
        return bool(self._spans)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        last = self._last
        if last is not None and last[0] == index:
            return last[1]
        if not 0 <= index < len(self):
            raise IndexError(index)
        conversation = self._read(self._spans[2 * index], self._spans[2 * index + 1])
        self._last = (index, conversation)
        return conversation

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, tuple, SpilledConversations)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"SpilledConversations({len(self)} conversations)"

    def __iter__(self) -> Iterator[Conversation]:
        for index in range(len(self)):
            yield self[index]

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                self._file.close()
                self._file = None

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - at interpreter exit
            pass


@dataclass
class History:
    """A parsed file. ``skipped``: what was left out and why (reason -> count: ``system``, ``tool``,
    ``hidden``, ``empty``, ``non_text``, ``other_role``, ``no_user``); ``notes``: things the preview
    should say (a guessed branch, a format read best-effort)."""

    source: str
    conversations: SpilledConversations = field(default_factory=SpilledConversations)
    skipped: Counter = field(default_factory=Counter)
    notes: list[tuple[str, str]] = field(default_factory=list)  # (zh, en)
    saved_memories: list[SavedMemory] = field(default_factory=list)
    digest: str = ""  # sha256 of what was read (the file, or the zip's members)
    bad: list[BadConversation] = field(default_factory=list)  # conversations left out: could not be read
    #: files of another app's export in the same zip or folder, not read (its format's name -> the files):
    #: the notes say so, and how to import them
    left_unread: dict[str, list[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not isinstance(self.conversations, SpilledConversations):
            self.conversations = SpilledConversations(self.conversations)

    @property
    def label(self) -> str:
        return label_of(self.source)

    @property
    def best_effort(self) -> bool:
        fmt = format_named(self.source)
        return fmt is not None and fmt.best_effort

    @property
    def message_count(self) -> int:
        return sum(head.messages for head in self.conversations.heads)

    def note_guessed_branches(self, zh: str, en: str) -> None:
        """Say in the preview how many conversations had their branch guessed (``{0}`` in ``zh`` /
        ``en``: the count), if any did."""
        guessed = sum(1 for c in self.conversations.heads if c.guessed_branch)
        if guessed:
            self.notes.append((zh.format(guessed), en.format(guessed)))


def import_source(actor: str) -> str | None:
    """The app an ``import:<source>`` actor's memories came from, as people name it (``ChatGPT``);
    None for any other actor."""
    if not isinstance(actor, str) or not actor.startswith("import:"):
        return None
    source = actor[len("import:"):].strip()
    return label_of(source) or None


def made_id(prefix: str, title: str, messages: list[Message]) -> tuple[str, str]:
    """An id for a conversation its file names none for, made of its title and first time
    (``Message.mark``: the same in every time zone), and the one versions before this one made of its
    first local time ("" when the same: ``Conversation.legacy_id``)."""
    def made(first: str) -> str:
        return prefix + hashlib.sha256(f"{title}\0{first}".encode()).hexdigest()[:16]

    if not messages:
        return made(""), ""
    new, old = made(messages[0].mark), made(messages[0].time.isoformat())
    return new, "" if old == new else old


def local_naive(moment: datetime) -> datetime:
    """An aware time as this computer's local wall time without a zone; a naive one is taken as local."""
    if moment.tzinfo is None:
        return moment
    return moment.astimezone().replace(tzinfo=None)


#: Times of chats before this, or more than ``AHEAD`` after now, are not real (see ``checked``).
EARLIEST = datetime(1990, 1, 1)
AHEAD = timedelta(days=2)


def checked(moment: datetime, shown: object) -> datetime:
    """``moment`` (local, naive) if a chat can have happened then, else ``BadValue`` (``shown``: the
    value as the file has it, for the message)."""
    if not EARLIEST <= moment <= datetime.now() + AHEAD:
        text = str(shown)[:40]
        raise BadValue(f"时间 {text} 不合理（早于 1990 年或在将来）", f"the time {text} is not plausible "
                       "(before 1990 or in the future)")
    return moment


def read_epoch(seconds: object) -> When:
    """Seconds since 1970 (UTC) as local naive time, with that instant; ``BadValue`` for anything
    else (NaN, ±1e20, a year 9999, text, a boolean)."""
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
        raise BadValue(f"时间 {str(seconds)[:40]!r} 不是数字", f"the time {str(seconds)[:40]!r} is not a number")
    try:
        value = float(seconds)
        if not math.isfinite(value):
            raise ValueError(value)
        moment = datetime.fromtimestamp(value, timezone.utc)
        local = local_naive(moment)
    except (OverflowError, OSError, ValueError):
        raise BadValue(f"时间 {str(seconds)[:40]} 超出范围", f"the time {str(seconds)[:40]} is out of range") from None
    return When(checked(local.replace(microsecond=0), seconds), moment.replace(microsecond=0))


#: Beyond this a number since 1970 is milliseconds, not seconds (1e11 s is the year 5138; 1e11 ms is 1973).
MILLIS_FROM = 1e11


def read_stamp(value: object) -> When:
    """``read_epoch`` of a number since 1970 that some apps write in seconds and others (or other
    versions of the same app) in milliseconds: told apart by its size (``MILLIS_FROM``)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value) >= MILLIS_FROM:
        value = value / 1000
    return read_epoch(value)


#: A model's reasoning as local chat apps keep it inside the reply: ``<think>…</think>`` (DeepSeek-R1,
#: Qwen3 through Ollama and llama.cpp) and Open WebUI's folded ``<details type="reasoning">`` (and its
#: tool calls and code runs, ``type="tool_calls"`` / ``"code_interpreter"``). An unclosed one (a reply
#: cut off while thinking) runs to the end.
_REASONING = re.compile(r"<think>.*?(?:</think>|\Z)|<details\s+type=\"(?:reasoning|tool_calls|code_interpreter)\"[^>]*>"
                        r".*?(?:</details>|\Z)", re.S | re.I)


def without_reasoning(text: str) -> tuple[str, bool]:
    """``text`` without the reasoning and tool runs a reply holds (``_REASONING``), and whether it held any."""
    if "<think>" not in text and "<details" not in text:
        return text, False
    kept = _REASONING.sub("", text)
    return kept.strip(), kept != text


def from_epoch(seconds: object) -> datetime:
    """``read_epoch``'s local naive time."""
    return read_epoch(seconds).local


def read_iso(value: object) -> When | None:
    """ISO-8601 text (``Z`` or an offset; a naive time means local) as local naive time, with the
    instant it names (UTC; None for a naive time); None when it is not such a time, ``BadValue`` when
    it is one no chat can have (``checked``)."""
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    try:
        local = local_naive(moment).replace(microsecond=0)
        instant = None if moment.tzinfo is None else moment.astimezone(timezone.utc).replace(microsecond=0)
    except (OverflowError, OSError, ValueError):
        raise BadValue(f"时间 {text[:40]} 超出范围", f"the time {text[:40]} is out of range") from None
    return When(checked(local, text), instant)


def parse_iso(value: object) -> datetime | None:
    """``read_iso``'s local naive time (None when it is not a time)."""
    when = read_iso(value)
    return None if when is None else when.local


T = TypeVar("T")
#: What a reader's own code may raise on values it does not expect in one conversation (a list
#: where a dict was, a huge number…): caught per conversation, so one odd entry costs only itself.
_ODD = (ValueError, TypeError, AttributeError, KeyError, IndexError, OverflowError, RecursionError)


def convert_one(history: History, file: str, index: int, raw: Any, convert: Callable[[Any, Counter], T]) -> T | None:
    """``convert(raw, skipped)`` for one conversation of ``history``; None, and the conversation in
    ``history.bad`` saying why, when it holds a bad or unexpected value. ``HistoryFormatError``
    (the file is not this format) goes on up."""
    skipped: Counter = Counter()
    try:
        made = convert(raw, skipped)
    except HistoryFormatError:
        raise
    except BadValue as exc:
        why = (exc.zh, exc.en)
    except _ODD:  # (what the reader tripped on is for the log: a person cannot act on "AttributeError")
        log.warning("conversation %d of %s left out: it holds something unexpected", index, file, exc_info=True)
        why = ("内容不符合预期：其中有这种导出里不该有的值（详情已写入日志）",
               "holds something unexpected: a value this kind of export does not have (the details are in the log)")
    else:
        history.skipped.update(skipped)
        return made
    title = raw.get("title") if isinstance(raw, dict) else None
    title = clean_text(" ".join(title.split())[:40]) if isinstance(title, str) else ""
    history.bad.append(BadConversation(file, index, title, *why))
    return None


def begun(kind: str, names: list[str], missing: tuple[str, str], note: tuple[str, str] | None = None) -> History:
    """A new ``kind`` history for a reader that found ``names`` to read: ``missing`` (zh, en) raised
    when it found none; ``note`` (zh, en), what the preview says of how the format was read."""
    if not names:
        raise HistoryFormatError(*missing)
    history = History(kind)
    if note is not None:
        history.notes.append(note)
    return history


def spoken(role: object, skipped: Counter, tools: tuple[str, ...] = ()) -> bool:
    """Whether a message of ``role`` is one a person or the assistant said; a system prompt, a tool's
    message (``tools``: the roles a format gives them) and any other role are counted in ``skipped``."""
    if role in ("user", "assistant"):
        return True
    skipped["system" if role == "system" else "tool" if role in tools else "other_role"] += 1
    return False


def branch_up(mapping: dict[str, Any], current: Any, parent: str) -> list[str] | None:
    """The ids from the root down to ``current`` in a tree of messages kept as ``{id: {parent: id…}}``
    (the branch a person kept; a loop in the parents ends it); None when ``current`` is not in it."""
    if not (isinstance(current, str) and current in mapping):
        return None
    path: list[str] = []
    seen: set[str] = set()
    node: Any = current
    while isinstance(node, str) and node in mapping and node not in seen:
        seen.add(node)
        path.append(node)
        node = mapping[node].get(parent) if isinstance(mapping[node], dict) else None
    return path[::-1]


def add_said(messages: list[Message], skipped: Counter, role: str, text: str, when: When | None, mid: str = "") -> None:
    """``text`` said by ``role`` at ``when`` added to ``messages``; an empty one, or one with no time,
    counted in ``skipped`` instead."""
    if not text:
        skipped["empty"] += 1
    elif when is None:
        skipped["no_time"] += 1
    else:
        messages.append(Message(role, text, when.local, mid, when.instant))


def branch_down(mapping: dict[str, Any], start: Any, children: str, pick: Callable[[list[str]], str]) -> list[str]:
    """The ids from ``start`` down a tree of messages kept as ``{id: {children: [id…]}…}``, ``pick``
    choosing among a message's children (a loop ends it)."""
    path: list[str] = []
    seen: set[str] = set()
    node: Any = start
    while isinstance(node, str) and node in mapping and node not in seen:
        seen.add(node)
        path.append(node)
        below = [c for c in (mapping[node].get(children) or []) if c in mapping and c not in seen]
        node = pick(below) if below else None
    return path
