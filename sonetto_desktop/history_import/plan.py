"""What an import will do, before it does anything: conversations -> exchanges -> the ones to import
-> batches for the memory writer, with the counts and the cost estimate the dry run prints and the
window's preview shows.

An **exchange** is one user message and the replies after it (a chat turn); messages before the
first user message are left out. Each exchange has a stable **key** (source, conversation, the user
message's id or time, its text): an import records the keys it wrote (``ledger``), and a later plan
of the same file skips them. A time that names an instant (an offset, ``Z``, seconds since 1970) is
in the key as that instant in UTC, so the key is the same in every time zone (a naive time is local:
as the file says it). Versions before this one keyed such a time by this computer's local time (a
move to another zone made the same file new again): an exchange also counts as imported (or left to
an unfinished import) under that key as it is now (``Exchange.legacy``).

What is imported: the exchanges whose user message falls within ``since``..``until`` (local days,
inclusive), of the selected conversations (all by default), not already imported, of conversations
whose title is not on the "don't import" list (``dont_import``). An exchange the file holds more
than once (a conversation in two overlapping ``conversations-NNN.json`` parts, in two exports in one
zip, or listed twice) is planned, counted and sent once (``skipped_duplicates``), and a conversation
listed again is one row of the preview.

A **batch** is what the writer reads in one run: consecutive exchanges of one conversation on one
day, at most ``MAX_BATCH_EXCHANGES`` of them and about ``MAX_BATCH_CHARS`` characters as the writer
reads them (replies clipped to ``REPLY_CHARS``), so each prompt stays within the writer's budget.
The writer's "now" for a batch is the time of its last user message: relative dates in it ("下周三")
are read from the day it was said.
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Callable, Iterable, Protocol

from ..memory.retrieval.token_count import FAMILIES
from ..memory.token_estimate import estimate_tokens_unrounded
from ..memory.visible import shown_text
from ..memory.writer.secret_filter import redact_secrets
from ..memory.writer.turns import MAX_MESSAGE_CHARS, read_of_message
from .model import Conversation, ConversationHead, History, Message, SpilledConversations

MAX_BATCH_EXCHANGES = 6
MAX_BATCH_CHARS = 5000
#: A reply is clipped to this many characters in the writer's text (facts come from the person).
REPLY_CHARS = 600
#: The writer's prompt around a batch: its system prompt and tool schemas (measured: Qwen2.5
#: tokenizer over the tools' JSON; tests/test_history_plan.py checks the estimate still agrees),
#: the name, time and past-conversation blocks with the chat template's overhead, and what the model
#: writes back per batch. Calibrated with bench/history_import.py (estimate / counted = 0.98 at 1,000
#: turns, docs/benchmarks.md).
TOOL_SCHEMA_TOKENS = 654  # 760 before the tools' descriptions were shortened (issue 37)
FRAME_TOKENS = 360
OUTPUT_TOKENS = 180
#: The memory listing in each prompt: every memory up to 40, then about this many rows.
LISTING_ALL_UP_TO = 40
LISTING_ROWS_ABOVE = 28
LISTING_ROW_TOKENS = 45
MEMORIES_PER_EXCHANGE = 0.5
#: The plan states Qwen2.5 tokens (what its constants were measured in): the app's one estimate
#: (``memory/token_estimate.py``) times the Qwen family's measured real tokens per estimated token.
PER_ESTIMATE = FAMILIES["qwen"].per_estimate


def text_tokens(text: str) -> float:
    """Qwen2.5 tokens of ``text`` as the plan counts them (unrounded: a batch adds its texts up)."""
    return estimate_tokens_unrounded(text) * PER_ESTIMATE


class TitleFilter(Protocol):
    def match_title(self, title: str) -> object | None: ...


@dataclass(frozen=True)
class Exchange:
    conversation_id: str
    messages: tuple[Message, ...]  # the user message, then the replies to it
    key: str
    #: The key versions before this one recorded for it, when that differs (``legacy_exchange_key``).
    legacy: str = ""

    @property
    def time(self) -> datetime:
        return self.messages[0].time

    @property
    def day(self) -> date:
        return self.messages[0].time.date()


class Batch:
    """One writer run. ``seq``: its place in the import (0-based); ``now``: the writer's clock.

    A planned batch holds no text (issue 37): it names its exchanges by their place in a conversation
    of the history's :class:`~.model.SpilledConversations` and keeps only the figures the plan adds
    up (``turns``, ``tokens``, ``hidden``); ``exchanges`` reads them back from the spill file. A batch
    made from exchanges in hand (``Batch(seq, id, title, exchanges)``) holds them."""

    __slots__ = ("seq", "conversation_id", "title", "_exchanges", "_spill", "_index", "_source", "_positions",
                 "_first", "_now", "turns", "tokens", "hidden")

    def __init__(self, seq: int, conversation_id: str, title: str, exchanges: tuple[Exchange, ...] | None = None, *,
                 spilled: tuple[SpilledConversations, int, str, tuple[int, ...]] | None = None,
                 first: datetime | None = None, now: datetime | None = None, turns: int = 0,
                 tokens: float = 0.0, hidden: int = 0) -> None:
        self.seq = seq
        self.conversation_id = conversation_id
        self.title = title
        self._exchanges = None if exchanges is None else tuple(exchanges)
        # (unpacked: a tuple holding the spill would be one more object for every collection to walk)
        self._spill, self._index, self._source, self._positions = spilled if spilled is not None else (None, 0, "", ())
        if self._exchanges is not None:
            figures = [_figure(e) for e in self._exchanges]
            first, now, turns = self._exchanges[0].time, self._exchanges[-1].time, len(self._exchanges)
            tokens, hidden = sum(f.tokens for f in figures), sum(f.hidden for f in figures)
        self._first, self._now, self.turns, self.tokens, self.hidden = first, now, turns, tokens, hidden

    @property
    def exchanges(self) -> tuple[Exchange, ...]:
        if self._exchanges is not None:
            return self._exchanges
        every = exchanges_of(self._source, self._spill[self._index])
        return tuple(every[p] for p in self._positions)

    def loaded(self) -> Batch:
        """This batch with its exchanges read back (to use them more than once), its figures the plan's
        (not worked out again: each message's secrets hidden and tokens estimated)."""
        if self._exchanges is not None:
            return self
        out = Batch(self.seq, self.conversation_id, self.title, first=self._first, now=self._now, turns=self.turns,
                    tokens=self.tokens, hidden=self.hidden)
        out._exchanges = self.exchanges
        return out

    @property
    def first(self) -> datetime:
        return self._first

    @property
    def now(self) -> datetime:
        return self._now

    @property
    def keys(self) -> list[str]:
        return [e.key for e in self.exchanges]

    def render(self) -> tuple[list[dict[str, str]], int]:
        """The batch as the writer's turn — each message stamped with its time of day, replies
        clipped, what shows nothing on screen left out (``memory/visible.py``), secret values hidden
        (``redact_secrets``: the model never sees a pasted key or password) — and how many secrets
        were hidden."""
        out = []
        hidden = 0
        for exchange in self.exchanges:
            for msg in exchange.messages:
                line, found = _rendered(msg)
                hidden += found
                out.append(line)
        return out, hidden

    def messages(self) -> list[dict[str, str]]:
        return self.render()[0]

    def __repr__(self) -> str:
        return f"Batch({self.seq}, {self.conversation_id!r}, {self.turns} turns, now={self._now})"


def _rendered(msg: Message) -> tuple[dict[str, str], int]:
    # as the person sees it (what an export hides from the eye is not read), then secrets hidden before a
    # long reply is clipped: a cut through a key would leave the rest of it unrecognised
    text, found = redact_secrets(shown_text(msg.text))
    if msg.role == "assistant":
        text = clip(text, REPLY_CHARS)
    return {"role": msg.role, "content": f"（{msg.time:%H:%M}）{text}"}, found


@dataclass(frozen=True, slots=True)
class ExchangeFigures:
    """What a plan needs of one exchange without its text: its key and time, its characters as the
    writer reads them, its rendered text's token estimate (unrounded: batches add them up) and the
    secrets hidden in it."""

    key: str
    time: datetime
    chars: int
    tokens: float
    hidden: int
    clipped: int = 0  # the person's messages longer than the writer reads (it reads their head and tail)
    legacy: str = ""  # the key versions before this one recorded for it, when that differs

    @property
    def day(self) -> date:
        return self.time.date()

    def within(self, keys: set[str] | frozenset[str]) -> bool:
        """Whether ``keys`` (of the ledger) hold this exchange, under its key or the one versions
        before this one recorded."""
        return self.key in keys or (bool(self.legacy) and self.legacy in keys)


def _figure(exchange: Exchange) -> ExchangeFigures:
    """The exchange's figures as the writer reads it: a reply clipped here (``REPLY_CHARS``), a
    person's message past ``MAX_MESSAGE_CHARS`` by the writer (a pasted 200,000-character text was
    estimated whole: 40 times what the model is sent)."""
    tokens = 0.0
    hidden = clipped = 0
    for msg in exchange.messages:
        line, found = _rendered(msg)
        content = line["content"]
        if msg.role == "user" and len(msg.text) > MAX_MESSAGE_CHARS:
            content, clipped = read_of_message(content), clipped + 1
        tokens += text_tokens(content)
        hidden += found
    return ExchangeFigures(exchange.key, exchange.time, exchange_chars(exchange), tokens, hidden, clipped,
                           exchange.legacy)


def conversation_figures(source: str, conversation: Conversation) -> tuple[list[ExchangeFigures], int]:
    """The figures of the conversation's exchanges, and how many messages came before its first
    user message (left out)."""
    skipped: Counter = Counter()
    exchanges = exchanges_of(source, conversation, skipped)
    return [_figure(e) for e in exchanges], skipped["no_user"]


@dataclass(slots=True)
class ConversationRow:
    """One line of the preview's list. ``state``: ``new``, ``partly`` (some exchanges imported
    before), ``imported`` (all of them), ``dont_import`` (its title is on the list: ``blocked_by``),
    ``out_of_range`` (none within the dates), ``unselected``."""

    id: str
    title: str
    first_day: date | None
    last_day: date | None
    exchanges: int  # within the dates
    to_import: int
    characters: int  # of the exchanges within the dates not imported before (as the writer reads them)
    already: int
    state: str
    blocked_by: str = ""
    guessed_branch: bool = False


@dataclass
class Price:
    """Per million tokens, in ``currency``."""

    input: float
    output: float
    currency: str = "¥"


@dataclass
class Plan:
    source: str
    label: str
    rows: list[ConversationRow] = field(default_factory=list)
    batches: list[Batch] = field(default_factory=list)
    characters: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    skipped_already_imported: int = 0  # exchanges
    skipped_waiting: int = 0  # exchanges an unfinished import has still to write (it writes them when it goes on)
    skipped_dont_import: int = 0  # conversations
    skipped_out_of_range: int = 0  # exchanges
    #: exchanges the file holds more than once (a conversation in two overlapping parts, or listed
    #: twice): planned, counted and sent once
    skipped_duplicates: int = 0
    secrets_hidden: int = 0  # secret values hidden from the model (``Batch.render``)
    long_messages: int = 0  # the person's messages the writer reads only the head and tail of
    skipped_messages: Counter = field(default_factory=Counter)
    first_day: date | None = None  # of everything in the file (the preview's date range)
    last_day: date | None = None
    price: Price | None = None

    @property
    def conversations(self) -> int:
        return sum(1 for row in self.rows if row.to_import)

    @property
    def turns(self) -> int:
        return sum(b.turns for b in self.batches)

    @property
    def estimated_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    @property
    def estimated_cost(self) -> float | None:
        if self.price is None:
            return None
        return (self.input_tokens * self.price.input + self.output_tokens * self.price.output) / 1_000_000

    def to_json(self, model: str = "") -> dict[str, object]:
        cost = self.estimated_cost
        return {
            "format": self.source, "conversations": self.conversations, "turns": self.turns,
            "characters": self.characters, "batches": len(self.batches),
            "estimated_tokens": self.estimated_tokens, "estimated_input_tokens": self.input_tokens,
            "estimated_output_tokens": self.output_tokens,
            "estimated_cost": None if cost is None else {"amount": round(cost, 4), "currency": self.price.currency},
            "model": model or None,
            "skipped_already_imported": self.skipped_already_imported, "skipped_waiting": self.skipped_waiting,
            "skipped_dont_import": self.skipped_dont_import, "skipped_out_of_range": self.skipped_out_of_range,
            "skipped_duplicates": self.skipped_duplicates,
            "secrets_hidden": self.secrets_hidden, "long_messages": self.long_messages,
            "first_day": self.first_day.isoformat() if self.first_day else None,
            "last_day": self.last_day.isoformat() if self.last_day else None,
        }


def _key(source: str, conversation_id: str, mark: str, text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return hashlib.sha256("\0".join((source, conversation_id, mark, digest)).encode("utf-8")).hexdigest()[:20]


def exchange_key(source: str, conversation_id: str, message: Message) -> str:
    """The key of the exchange ``message`` (its user message) begins: of its id, else of its time as
    ``Message.mark`` names it (the same in every time zone)."""
    return _key(source, conversation_id, message.id or message.mark, message.text)


def legacy_exchange_key(source: str, conversation_id: str, message: Message) -> str:
    """The key versions before this one recorded: of the id, else of the local time (which moves with
    the time zone: as it is on this computer now)."""
    return _key(source, conversation_id, message.id or message.time.isoformat(), message.text)


def _exchange(source: str, conversation: Conversation, messages: list[Message]) -> Exchange:
    key = exchange_key(source, conversation.id, messages[0])
    legacy = legacy_exchange_key(source, conversation.legacy_id or conversation.id, messages[0])
    return Exchange(conversation.id, tuple(messages), key, "" if legacy == key else legacy)


def exchanges_of(source: str, conversation: Conversation, skipped: Counter | None = None) -> list[Exchange]:
    """The conversation's exchanges in order (replies before the first user message left out)."""
    out: list[Exchange] = []
    current: list[Message] = []
    for msg in conversation.messages:
        if msg.role == "user":
            if current:
                out.append(_exchange(source, conversation, current))
            current = [msg]
        elif current:
            current.append(msg)
        elif skipped is not None:
            skipped["no_user"] += 1
    if current:
        out.append(_exchange(source, conversation, current))
    return out


def clip(text: str, limit: int) -> str:
    """Head and tail of an over-long reply, saying how much was left out."""
    if len(text) <= limit:
        return text
    tail = limit // 4
    return f"{text[:limit - tail]}……（省略 {len(text) - limit} 字）……{text[-tail:]}"


def exchange_chars(exchange: Exchange) -> int:
    """Its characters as the writer reads them (a long reply clipped here, a long message by the writer)."""
    return sum(len(clip(m.text, REPLY_CHARS)) if m.role == "assistant" else len(read_of_message(m.text))
               for m in exchange.messages)


def make_plan(history: History, *, since: date | None = None, until: date | None = None,
              selected: Iterable[str] | None = None, imported: set[str] | frozenset[str] = frozenset(),
              dont_import: TitleFilter | None = None, memories: int = 0, price: Price | None = None,
              progress: Callable[[int, int], None] | None = None,
              waiting: set[str] | frozenset[str] = frozenset()) -> Plan:
    """See the module docstring. ``selected``: conversation ids to import (None: all); ``imported``:
    keys earlier imports wrote; ``waiting``: keys an unfinished import has still to write (left to
    it, counted apart: a row of only such exchanges is ``waiting``) — either under an exchange's key or
    under the one versions before this one wrote (``ExchangeFigures.within``); ``memories``: how many the store holds now (for the estimate);
    ``progress(done, total)``: told every few conversations (a first plan of a large export reads
    every conversation back: minutes for 2 GB).

    The plan holds no text (issue 37): a conversation is read back from the history's spill file
    once, its exchanges' figures are kept on disk beside it (a later plan of other dates or another
    selection reads only those), and the batches name their exchanges (``Batch``)."""
    chosen = None if selected is None else set(selected)
    plan = Plan(history.source, history.label, skipped_messages=Counter(history.skipped), price=price)
    conversations = history.conversations
    plan.first_day, plan.last_day = conversations.days
    source = history.source
    pending: list[Batch] = []
    seen: set[str] = set()  # the keys of the exchanges planned so far: each is counted and sent once
    rows: dict[str, ConversationRow] = {}  # by conversation id: a conversation listed again adds to its row
    total = len(conversations)
    for index, head in enumerate(conversations.heads):
        if index % YIELD_EVERY == 0:
            time.sleep(0)  # let the app's main thread have the GIL between conversations
            if progress is not None:
                progress(index, total)
        figures, no_user = conversations.derived(f"figures:{source}", index,
                                                 lambda c: conversation_figures(source, c))
        earlier = rows.get(head.id)
        if no_user and earlier is None:
            plan.skipped_messages["no_user"] += no_user
        unique = [p for p, f in enumerate(figures) if f.key not in seen]
        plan.skipped_duplicates += len(figures) - len(unique)
        seen.update(figures[p].key for p in unique)
        if not figures or earlier is not None and not unique:  # nothing the person said (a greeting alone):
            continue  # no row; or the same conversation again (overlapping parts of an export, or listed twice)
        in_range = [p for p in unique
                    if (since is None or figures[p].day >= since) and (until is None or figures[p].day <= until)]
        plan.skipped_out_of_range += len(unique) - len(in_range)
        fresh = [p for p in in_range if not figures[p].within(imported) and not figures[p].within(waiting)]
        held = sum(1 for p in in_range if figures[p].within(waiting) and not figures[p].within(imported))
        blocked = dont_import.match_title(head.title) if dont_import is not None else None
        row = ConversationRow(head.id, head.title, head.first_day, head.last_day,
                              len(in_range), 0, sum(figures[p].chars for p in fresh), len(in_range) - len(fresh) - held,
                              "new", guessed_branch=head.guessed_branch)
        plan.skipped_waiting += held
        if not in_range:
            row.state = "out_of_range"
        elif not fresh:
            row.state = "waiting" if held else "imported"
        elif blocked is not None:
            row.state, row.blocked_by = "dont_import", str(getattr(blocked, "text", blocked))
            if earlier is None or earlier.state != "dont_import":
                plan.skipped_dont_import += 1
        elif chosen is not None and head.id not in chosen:
            row.state = "unselected"
        else:
            row.state = "partly" if row.already else "new"
            row.to_import = len(fresh)
            pending.extend(_batches(conversations, index, head, source, figures, fresh))
            plan.long_messages += sum(figures[p].clipped for p in fresh)
        plan.skipped_already_imported += row.already
        if row.to_import:
            plan.characters += row.characters
        if earlier is None:
            rows[head.id] = row
            plan.rows.append(row)
        else:
            _merge(earlier, row)
    # The writer reads history as it happened: batches in the order their exchanges were said.
    pending.sort(key=lambda b: (b.first, b.conversation_id))
    for seq, batch in enumerate(pending):
        batch.seq = seq
    plan.batches = pending
    _estimate(plan, memories)
    return plan


#: A row's states, the one a merged row keeps first (``_merge``): one with exchanges to import is
#: ``new`` or ``partly`` whatever the other copy's.
_STATE_ORDER = ("dont_import", "unselected", "waiting", "imported", "out_of_range")


def _merge(into: ConversationRow, row: ConversationRow) -> None:
    """Add ``row`` (a later copy of the same conversation, its exchanges those the earlier copies
    did not have) to ``into``: the preview lists each conversation once."""
    into.exchanges += row.exchanges
    into.to_import += row.to_import
    into.characters += row.characters
    into.already += row.already
    into.guessed_branch = into.guessed_branch or row.guessed_branch
    days = [d for d in (into.first_day, into.last_day, row.first_day, row.last_day) if d is not None]
    if days:
        into.first_day, into.last_day = min(days), max(days)
    if into.to_import:
        into.state, into.blocked_by = ("partly" if into.already else "new"), ""
    elif row.state in _STATE_ORDER and into.state in _STATE_ORDER and \
            _STATE_ORDER.index(row.state) < _STATE_ORDER.index(into.state):
        into.state, into.blocked_by = row.state, row.blocked_by


#: Planning lets other threads run (``time.sleep(0)``) after this many conversations.
YIELD_EVERY = 8


def _batches(conversations: SpilledConversations, index: int, head: ConversationHead, source: str,
             figures: list[ExchangeFigures], positions: list[int]) -> list[Batch]:
    out: list[Batch] = []
    group: list[int] = []
    size = 0

    def close() -> None:
        chosen = [figures[p] for p in group]
        out.append(Batch(0, head.id, head.title, spilled=(conversations, index, source, tuple(group)),
                         first=chosen[0].time, now=chosen[-1].time, turns=len(chosen),
                         tokens=sum(f.tokens for f in chosen), hidden=sum(f.hidden for f in chosen)))

    for p in positions:
        figure = figures[p]
        if group and (figure.day != figures[group[0]].day or len(group) >= MAX_BATCH_EXCHANGES
                      or size + figure.chars > MAX_BATCH_CHARS):
            close()
            group, size = [], 0
        group.append(p)
        size += figure.chars
    if group:
        close()
    return out


def _system_tokens() -> int:
    from ..memory.writer.prompts import UPDATE_SYSTEM

    return round(text_tokens(UPDATE_SYSTEM)) + TOOL_SCHEMA_TOKENS


def _estimate(plan: Plan, memories: int) -> None:
    """Input: per batch the system prompt and tools, the frame, the listing as it grows, the batch's
    text; output: what the model writes back (one call per batch: ``budget.should_end``)."""
    fixed = _system_tokens() + FRAME_TOKENS
    known = float(memories)
    total = 0
    for batch in plan.batches:
        rows = known if known <= LISTING_ALL_UP_TO else LISTING_ROWS_ABOVE
        plan.secrets_hidden += batch.hidden
        total += fixed + round(rows * LISTING_ROW_TOKENS) + round(batch.tokens)
        known += MEMORIES_PER_EXCHANGE * batch.turns
    plan.input_tokens = total
    plan.output_tokens = OUTPUT_TOKENS * len(plan.batches)
