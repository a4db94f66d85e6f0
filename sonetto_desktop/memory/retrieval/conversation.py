"""The conversation block: the person's part of a recall request ordered so that consecutive
messages share most of it (a provider's prefix cache then serves it, at a tenth to half the price).

Before, each request was the stable block (the newest memories) and then this message's shortlist:
a memory the writer stored between two messages landed at the end of the stable block, which
renumbered everything after it, and the shortlist changed with each message, so 68-73% of each
request differed from the previous one at 10,000 memories (bench/recall_scale_cost.py). Now, while
a conversation lasts:

- the stable block is *frozen*: the memories it held when the conversation started, in their order;
- after it comes one block that only grows at its end: what the writer stored since the previous
  message, then this message's new shortlist (memories not shown yet, at most ``NEW_SHARE`` of the
  budget). What an earlier message showed stays where it was, and is not shown twice;
- the conversation starts again (stable block and all) when less than ``MIN_ROOM`` of the budget
  is left for this message's shortlist (with a stable block of a quarter of the budget: every
  third message), when the budget changes, when the stable window steps, or after ``IDLE``
  seconds without a message (a provider's cache is gone by then anyway).

So a request repeats the previous one up to the end of its block: about 35% differs on average
(bench/recall_scale_cost.py, 10,000 memories, over unrelated messages and over a conversation), and
a request holds half the budget to all of it (about 0.75 on average). The price: a message on a new topic gets ``NEW_SHARE`` of the budget for its own
shortlist, so the cloud budget is set with that in mind (``budget.py``). A local server serves one
request at a time from its KV cache, which the chat's own request in between replaces: there the
whole budget goes to each message's shortlist (``MemoryRecall.conversation_block``). Thread-safe.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Callable

from .listing import HEADING_TOKENS

if TYPE_CHECKING:
    from .listing import ListingEntry, ListingSnapshot, RecallListing
    from .shortlist import Shortlist

__all__ = ["IDLE", "MIN_ROOM", "NEW_SHARE", "ConversationBlock"]

#: Each message's new shortlist takes at most this share of the budget.
NEW_SHARE = 0.25
#: The block starts again when less than this share of the budget is left for a message's shortlist.
MIN_ROOM = NEW_SHARE / 2
#: Seconds without a message after which the conversation starts again.
IDLE = 3600.0


class ConversationBlock:
    """See the module docstring. ``plan`` gives the person's part of one request."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._frozen: list[str] | None = None  # the stable block's ids while the conversation lasts
        self._first: str | None = None  # the stable window's first memory when it was frozen
        self._ids: list[str] = []  # the block: append-only
        self._budget = 0
        self._last = 0.0
        self.restarts = 0  # how often a conversation started (tests, benchmarks)

    def reset(self) -> None:
        """The next message starts a conversation."""
        with self._lock:
            self._frozen = None

    def plan(self, prompt: str, listing: "RecallListing", part: "ListingSnapshot", budget: int, window: int,
             shortlist: "Shortlist") -> tuple[list["ListingEntry"], list["ListingEntry"], int]:
        """(the frozen stable block, the block after it, their tokens) for one message, within ``budget``;
        ``window``: the stable block's tokens when a conversation starts."""
        block, _, _ = listing.window(window)
        in_window = [e.id for e in block]
        by_id = part.by_id
        with self._lock:
            now = self._clock()
            for attempt in (0, 1):
                if attempt or self._stale(in_window, budget, now):
                    self._frozen, self._first, self._ids, self._budget = list(in_window), (
                        in_window[0] if in_window else None), [], budget
                    self.restarts += 1
                frozen = set(self._frozen or ())
                ids = [m for m in self._ids if m in by_id and m not in frozen]
                known = frozen.union(ids)
                ids += [m for m in in_window if m not in known]  # what was written since the previous message
                held = sum(by_id[m].tokens + HEADING_TOKENS for m in ids)
                stable = [by_id[m] for m in self._frozen or () if m in by_id]
                used = sum(e.tokens for e in stable)
                if budget - used - held >= MIN_ROOM * budget:
                    break
            room = max(0, min(budget - used - held, int(NEW_SHARE * budget)))
            new = shortlist.fill(prompt, part, frozen.union(ids), room) if room else []
            ids += [e.id for e in new]
            self._ids, self._last = ids, now
            extra = [by_id[m] for m in ids]
            return stable, extra, used + held + sum(e.tokens + HEADING_TOKENS for e in new)

    def _stale(self, in_window: list[str], budget: int, now: float) -> bool:
        """The conversation must start again (lock held)."""
        return (self._frozen is None or budget != self._budget or now - self._last > IDLE
                or (in_window[0] if in_window else None) != self._first)
