"""What every history format is read into: conversations of timed user/assistant messages."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime

#: Format name -> how the app names the source (the other side of the chats; actor ``import:<name>``).
SOURCE_LABELS = {
    "chatgpt": "ChatGPT",
    "deepseek": "DeepSeek",
    "cherry": "Cherry Studio",
    "jsonl": "JSON Lines",
    "sonetto": "Sonetto",
    "chatgpt-memories": "ChatGPT",
}
#: Formats read from public third-party parsers only, not from the vendor's documentation or source.
BEST_EFFORT = frozenset({"deepseek"})
FORMATS = tuple(SOURCE_LABELS)


class HistoryFormatError(ValueError):
    """The file is not a history we can read. ``zh`` / ``en``: one line saying why (and where)."""

    def __init__(self, zh: str, en: str) -> None:
        self.zh = zh
        self.en = en
        super().__init__(zh)

    def say(self, language: str) -> str:
        return self.en if language == "en" else self.zh


@dataclass(frozen=True)
class Message:
    """One message as the person saw it. ``time``: local, naive (the writer's clock is local time)."""

    role: str  # "user" | "assistant"
    text: str
    time: datetime
    id: str = ""


@dataclass
class Conversation:
    """``id``: stable across exports of the same chat (what re-imports are recognised by)."""

    id: str
    title: str
    messages: list[Message]
    #: The kept branch could not be read from the file and was guessed (see the format's module).
    guessed_branch: bool = False

    @property
    def first_day(self) -> date | None:
        return self.messages[0].time.date() if self.messages else None

    @property
    def last_day(self) -> date | None:
        return self.messages[-1].time.date() if self.messages else None


@dataclass(frozen=True)
class SavedMemory:
    """One entry of ChatGPT's saved memories. ``day``: the date it carried, if any; ``line``: where."""

    text: str
    day: date | None = None
    line: int = 0


@dataclass
class History:
    """A parsed file. ``skipped``: what was left out and why (reason -> count: ``system``, ``tool``,
    ``hidden``, ``empty``, ``non_text``, ``other_role``, ``no_user``); ``notes``: things the preview
    should say (a guessed branch, a format read best-effort)."""

    source: str
    conversations: list[Conversation] = field(default_factory=list)
    skipped: Counter = field(default_factory=Counter)
    notes: list[tuple[str, str]] = field(default_factory=list)  # (zh, en)
    saved_memories: list[SavedMemory] = field(default_factory=list)
    digest: str = ""  # sha256 of what was read (the file, or the zip's members)

    @property
    def label(self) -> str:
        return SOURCE_LABELS.get(self.source, self.source)

    @property
    def best_effort(self) -> bool:
        return self.source in BEST_EFFORT

    @property
    def message_count(self) -> int:
        return sum(len(c.messages) for c in self.conversations)


def import_source(actor: str) -> str | None:
    """The app an ``import:<source>`` actor's memories came from, as people name it (``ChatGPT``);
    None for any other actor."""
    if not isinstance(actor, str) or not actor.startswith("import:"):
        return None
    source = actor[len("import:"):].strip()
    return SOURCE_LABELS.get(source, source) or None


def local_naive(moment: datetime) -> datetime:
    """An aware time as this computer's local wall time without a zone; a naive one is taken as local."""
    if moment.tzinfo is None:
        return moment
    return moment.astimezone().replace(tzinfo=None)


def from_epoch(seconds: float) -> datetime:
    return datetime.fromtimestamp(float(seconds)).replace(microsecond=0)


def parse_iso(value: object) -> datetime | None:
    """ISO-8601 text (``Z`` or an offset; a naive time means local) as local naive time, else None."""
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    return local_naive(moment).replace(microsecond=0)
