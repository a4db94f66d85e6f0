"""RecallListing: every memory in the order the recall prompt lists them, kept as a stable prefix.

It has two parts, each in that order: the person's own memories (theirs, Sonetto's writer's,
imported chats') and other apps' (``changes.by_other_app`` of ``MemoryItem.author``: apps alone
wrote it; an app updating one of the person's memories leaves it theirs). The request lists the person's part first, so an app adding or editing its memories
changes only what comes after it (``recall.py`` gives apps a bounded share of the budget).

A provider that caches prompt prefixes (OpenAI, DeepSeek, Qwen/DashScope, a llama.cpp or Ollama
server's KV cache: see docs/benchmarks.md) makes the second request with the same beginning
cheaper and faster. So the listing changes only at its end as memories come and go:

- memories are ordered by when their content last changed, oldest first, then by id: a new memory
  is appended, an edited one moves to the end, a deleted one vanishes. Hit counts change on almost
  every reply, so they are not part of a memory's line (``llm_prompt`` puts the most-used ones in a
  short hint after the listing);
- when a part is larger than its stable budget, :meth:`window` shows its newest memories from a
  cutoff that only moves forward, and in steps: past the budget it jumps so the window is
  ``WINDOW_TARGET`` of it, and then stays put while new memories are appended. So the first line
  stays the same from one message to the next, except when a step is taken.

The listing follows the store's change feed like the offline index: the callbacks only note what
changed; the next read applies it (a single change re-reads nothing, a bulk one re-reads the
store). Entries carry their estimated tokens (``memory/token_estimate.py``) so a budget is filled
without rendering. Thread-safe.

An entry is a plain tuple (``ListingEntry``) read by the indices ``ID``, ``KEY``, ... below, not an
object: CPython's collector stops tracking an exact tuple of strings and numbers the first time it
sees it, so 100,000 entries cost a full collection nothing, where a dataclass instance is walked on
every pass (issue 37: the stalls while the wall fills).
"""

from __future__ import annotations

import bisect
import heapq
import logging
import threading
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from ..changes import MemoryChange, by_other_app
from .. import kinds
from ..errors import MemoryNotFound
from ..item import MemoryItem, parse_time
from ..shared_text import share
from ..stores.base import BaseMemoryManager
from ..token_estimate import estimate_tokens
from .card_fields import CardFields, card_fields
from .llm_prompt import memory_body

__all__ = ["APP", "BODY", "DAY", "DESCRIPTION", "ID", "KEY", "ListingEntry", "ListingSnapshot", "RecallListing",
           "THEME", "TOKENS", "UPDATED", "WINDOW_LOW", "WINDOW_TARGET", "entry_record"]

log = logging.getLogger(__name__)

#: After a step, the window holds this share of its budget (room for new memories before the next step).
WINDOW_TARGET = 0.75
#: A window that shrank below this share of its budget (memories deleted or edited away) is re-placed.
WINDOW_LOW = 0.4
#: A numbered line costs its body plus the number, the brackets and the line break (about 4 with
#: digits counted one each), and its share of the day headings above the lines (about one per ten).
LINE_OVERHEAD = 5
#: A day heading (``# 11月3日``): the query's shortlist spans months, so nearly each of its lines has one.
HEADING_TOKENS = 7
#: More pending changes than this: one re-read of the whole store instead.
INLINE_CHANGES_MAX = 500
_READ = object()  # a pending change without the memory's card: read it from the store


#: One memory as the listing shows it: ``(id, key, description, theme, latest_update_time, body,
#: tokens, day, app)``. ``key`` is (normalised latest_update_time, id): the listing order; ``body``
#: its line without the number; ``tokens`` that line's estimate; ``day`` the date of ``key``;
#: ``app``: another app's memory (``changes.by_other_app`` of its author, ``MemoryItem.author``).
ListingEntry = tuple[str, tuple[str, str], str, str, str, str, int, str, bool]
ID, KEY, DESCRIPTION, THEME, UPDATED, BODY, TOKENS, DAY, APP = range(9)


def entry_record(entry: ListingEntry, hit: int = 0) -> dict[str, Any]:
    """What the LLM retriever numbers and hands on of ``entry``."""
    return {"id": entry[ID], "description": entry[DESCRIPTION], "theme": entry[THEME], "hit": hit,
            "latest_update_time": entry[UPDATED], "day": entry[DAY], "body": entry[BODY]}


@dataclass(frozen=True)
class ListingSnapshot:
    """Every memory in listing order at one moment, with what filling a budget needs (shared by
    the recalls until the next change: do not modify)."""

    order: list[ListingEntry]
    tokens: int  # all of them
    by_id: dict[str, ListingEntry]
    smallest: int  # the fewest tokens of one entry

    @property
    def mean(self) -> float:
        return self.tokens / len(self.order) if self.order else 1.0


def _entry(mid: str, description: str, theme: str, stamp: Any, author: str = "") -> ListingEntry:
    moment = parse_time(stamp)
    # shared texts (``shared_text``): the order key is the stamp's own object when the stamp is
    # normalised already (the store writes it so); the id, description and theme are the store
    # read's objects, which the wall and the indexes hold too
    key = (share(moment.replace(microsecond=0).isoformat()) if moment else "", mid)
    body = memory_body(theme, description)
    return (mid, key, description, theme, str(stamp or ""), body, estimate_tokens(body) + LINE_OVERHEAD, key[0][:10],
            by_other_app(author))


def _snapshot(order: list[ListingEntry], tokens: int) -> ListingSnapshot:
    return ListingSnapshot(order, tokens, {e[ID]: e for e in order}, min((e[TOKENS] for e in order), default=0))


class _Part:
    """One part of the listing (the person's own memories, or other apps'): its entries in order,
    their running token sums and the cutoff of its window. Used under the listing's lock."""

    def __init__(self) -> None:
        self.order: list[ListingEntry] = []
        self.keys: list[tuple[str, str]] = []
        self.cumulative: list[int] = []  # tokens of order[:i + 1]
        self.sorted = True
        self.cutoff: tuple[str, str] | None = None  # key of the window's first memory
        self.snapshot: ListingSnapshot | None = None

    @property
    def total(self) -> int:
        return self.cumulative[-1] if self.cumulative else 0

    def add(self, entry: ListingEntry) -> None:
        self.snapshot = None
        if self.sorted and (not self.keys or entry[KEY] > self.keys[-1]):
            self.order.append(entry)  # the usual case: the newest change goes last
            self.keys.append(entry[KEY])
            self.cumulative.append(self.total + entry[TOKENS])
        else:
            self.sorted = False

    def remove(self, entry: ListingEntry) -> None:
        self.snapshot = None
        if not self.sorted:
            return
        at = bisect.bisect_left(self.keys, entry[KEY])
        if at < len(self.keys) and self.keys[at] == entry[KEY]:
            del self.order[at]
            del self.keys[at]
            self.recount(at)
        else:
            self.sorted = False

    def recount(self, start: int) -> None:
        del self.cumulative[start:]
        total = self.cumulative[-1] if self.cumulative else 0
        for entry in self.order[start:]:
            total += entry[TOKENS]
            self.cumulative.append(total)

    def sort(self, entries: list[ListingEntry]) -> None:
        self.order = sorted(entries, key=lambda e: e[KEY])
        self.keys = [e[KEY] for e in self.order]
        self.recount(0)
        self.sorted = True
        self.snapshot = None

    def frozen(self) -> ListingSnapshot:
        if self.snapshot is None:
            self.snapshot = _snapshot(list(self.order), self.total)
        return self.snapshot

    def window(self, budget: int) -> tuple[list[ListingEntry], list[ListingEntry], int, bool]:
        """(block, before it, the block's tokens, whether the cutoff moved): see ``RecallListing.window``."""
        order, cumulative, total = self.order, self.cumulative, self.total
        if total <= budget:
            self.cutoff = None
            return list(order), [], total, False
        start = bisect.bisect_left(self.keys, self.cutoff) if self.cutoff is not None else 0
        inside = total - (cumulative[start - 1] if start else 0)
        stepped = self.cutoff is None or inside > budget or inside < WINDOW_LOW * budget
        if stepped:
            floor = total - WINDOW_TARGET * budget  # tokens that must stay before the window
            start = min(bisect.bisect_left(cumulative, floor) + 1, len(order)) if floor > 0 else 0
            self.cutoff = self.keys[start] if start < len(self.keys) else None
            inside = total - (cumulative[start - 1] if start else 0)
        return order[start:], order[:start], inside, stepped


class RecallListing:
    """See the module docstring. ``close()`` stops following the store."""

    def __init__(self, mm: BaseMemoryManager) -> None:
        self._mm = mm
        self._lock = threading.RLock()
        self._entries: dict[str, ListingEntry] = {}
        self._hits: dict[str, int] = {}
        self._own, self._apps = _Part(), _Part()
        self._snapshot: ListingSnapshot | None = None
        self._started = False
        self._pending_lock = threading.Lock()
        self._pending: dict[str, Any] = {}
        self._pending_hits: dict[str, int] = {}
        self._reload = False
        self.steps = 0  # how often a window's cutoff moved (benchmarks, tests)
        self._unsubscribe: Callable[[], None] | None = mm.subscribe(self._on_change)

    # ── following the store ─────────────────────────────────────────────

    def _on_change(self, change: MemoryChange) -> None:
        if not kinds.kind(change.kind).memories:
            return
        states = getattr(change, "states", None) or {}
        with self._pending_lock:
            if change.kind == kinds.HIT and "hit" in change.extra and len(change.ids) == 1:
                self._pending_hits[change.ids[0]] = int(change.extra["hit"])
                return
            if kinds.kind(change.kind).whole:
                self._reload = True
            for mid in change.ids:
                self._pending[mid] = states[mid] if mid in states else _READ
            if len(self._pending) > INLINE_CHANGES_MAX:
                self._reload = True

    def invalidate(self) -> None:
        """Re-read the whole store at the next use."""
        with self._pending_lock:
            self._reload = True

    def close(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def _part(self, entry: ListingEntry) -> _Part:
        return self._apps if entry[APP] else self._own

    def _refresh(self) -> None:
        """Apply what changed (lock held)."""
        with self._pending_lock:
            reload, pending, hits = self._reload or not self._started, self._pending, self._pending_hits
            self._reload, self._pending, self._pending_hits = False, {}, {}
        try:
            if reload:
                self._load(card_fields(self._mm))  # (columns, not every memory built)
            else:
                for mid, state in pending.items():
                    self._apply(mid, self._card(mid, state))
        except BaseException:
            self.invalidate()  # the store could not be read: try again at the next use
            raise
        for mid, hit in hits.items():
            if mid in self._entries:
                self._hits[mid] = hit
        for part in (self._own, self._apps):
            if not part.sorted:
                part.sort([e for e in self._entries.values() if self._part(e) is part])

    def _card(self, mid: str, state: Any) -> tuple[str, str, Any, int, str] | None:
        """(description, theme, latest_update_time, hit, author) as the change carried them, else
        as the store has them now; None: the memory is gone."""
        if state is None:
            return None
        if state is not _READ and "description" in state and "theme" in state and "author" in state:
            return str(state["description"]), str(state["theme"]), state.get("latest_update_time"), int(
                state.get("hit") or 0), str(state.get("author") or "")
        try:
            item = self._mm.get(mid)
        except MemoryNotFound:
            return None
        return item.description, item.theme, item.latest_update_time, int(item.hit or 0), item.author

    def _load(self, items: Mapping[str, CardFields | MemoryItem]) -> None:
        self._entries = {mid: _entry(mid, item.description, item.theme, item.latest_update_time, item.author)
                         for mid, item in items.items()}
        self._hits = {mid: int(item.hit or 0) for mid, item in items.items()}
        self._started = True
        self._snapshot = None
        self._own.sort([e for e in self._entries.values() if not e[APP]])
        self._apps.sort([e for e in self._entries.values() if e[APP]])

    def _apply(self, mid: str, card: tuple[str, str, Any, int, str] | None) -> None:
        old = self._entries.get(mid)
        if card is None:
            if old is not None:
                self._snapshot = None
                del self._entries[mid]
                self._hits.pop(mid, None)
                self._part(old).remove(old)
            return
        description, theme, stamp, hit, author = card
        self._hits[mid] = hit
        new = _entry(mid, description, theme, stamp, author)
        if old == new:
            return
        self._snapshot = None
        self._entries[mid] = new
        if old is not None:
            self._part(old).remove(old)
        self._part(new).add(new)

    # ── reading ──────────────────────────────────────────────────────────

    def warm_up(self) -> None:
        """Read the store now (a full read: ~0.1 s per 10,000 memories) rather than at the first recall."""
        with self._lock:
            self._refresh()

    def catch_up(self) -> None:
        """Apply what changed now rather than at the next recall (``follow.py``); nothing before the
        first read. Blocking."""
        with self._lock:
            if self._started:
                self._refresh()
                for part in (self._own, self._apps):
                    part.frozen()  # (what a recall reads next)

    def snapshot(self) -> ListingSnapshot:
        """Every memory in listing order (both parts, by when it last changed), now (kept until the next change)."""
        with self._lock:
            self._refresh()
            if self._snapshot is None:
                own, apps = self._own.frozen(), self._apps.frozen()
                order = list(heapq.merge(own.order, apps.order, key=lambda e: e[KEY])) if apps.order else own.order
                self._snapshot = _snapshot(order, own.tokens + apps.tokens)
            return self._snapshot

    def parts(self) -> tuple[ListingSnapshot, ListingSnapshot]:
        """(the person's own memories, other apps'), each in listing order, now (kept until the next change)."""
        with self._lock:
            self._refresh()
            return self._own.frozen(), self._apps.frozen()

    def hits(self, ids: list[str]) -> list[int]:
        with self._lock:
            return [self._hits.get(mid, 0) for mid in ids]

    def __len__(self) -> int:
        with self._lock:
            self._refresh()
            return len(self._entries)

    def window(self, budget: int, *, apps: bool = False) -> tuple[list[ListingEntry], list[ListingEntry], int]:
        """(the stable block, every memory before it, the block's tokens) of the person's own memories
        (``apps``: of other apps') for a stable budget of ``budget`` tokens: all of them when they fit,
        else the newest ones from the cutoff (moved forward, in a step, only when the block outgrows
        ``budget`` or shrinks below ``WINDOW_LOW``)."""
        with self._lock:
            self._refresh()
            block, before, inside, stepped = (self._apps if apps else self._own).window(budget)
            self.steps += stepped
            return block, before, inside
