"""The conversation block: the person's part of a recall request ordered so that consecutive
messages share most of it (a provider's prefix cache then serves it, at a tenth to half the price).

Before, each request was the stable block (the newest memories) and then this message's shortlist:
a memory the writer stored between two messages landed at the end of the stable block, which
renumbered everything after it, and the shortlist changed with each message, so 68-73% of each
request differed from the previous one at 10,000 memories (bench/recall_scale_cost.py). Now, while
a conversation lasts:

- the stable block is *frozen*: the memories it held when the conversation started, in their order;
- after it comes one block whose beginning is kept: what the writer stored since the previous
  message, then this message's new shortlist (memories not shown yet). The first message of a
  conversation gets all the budget the stable block leaves (``FIRST_SHARE``: nothing is cached yet,
  and the whole budget finds the most); each later one gets ``NEW_SHARE`` of it: the block keeps the
  longest beginning that leaves that much room and lets the rest go (memories let go may come back
  in this message's shortlist). What is kept stays where it was, and is not shown twice;
- the conversation starts again (stable block and all) when the budget changes, when the stable
  window steps, or after ``IDLE`` seconds without a message (a provider's cache is gone by then anyway).

So a request repeats the previous one up to where its block was cut: about ``NEW_SHARE`` of each
request differs (bench/recall_issue36.py ``differs``, 10,000 memories, over unrelated messages and
over a conversation), and a request holds the whole budget. Before, the block only grew and started
again (stable block only) when less than an eighth of the budget was left: a message on a new topic
got an eighth to a quarter of the budget for its shortlist, the first message of a conversation a
quarter, with 33-35% of each request new; the shares were learned on the tune half of the
project's own sets (bench/recall_issue36_learn.py ``block``: the first message reaches what the
whole-budget plan reaches, a later message on a new topic what a shortlist of ``NEW_SHARE`` reaches,
0.35 the largest share that stays well under 40% new). A local server serves one request at a time
from its KV cache, which the chat's own request in between replaces: there the whole budget goes to
each message's shortlist (``MemoryRecall.conversation_block``). Thread-safe.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Callable

from .listing import HEADING_TOKENS, ID, TOKENS

if TYPE_CHECKING:
    from .listing import ListingEntry, ListingSnapshot, RecallListing
    from .shortlist import Shortlist

__all__ = ["FIRST_SHARE", "IDLE", "NEW_SHARE", "ConversationBlock"]

#: The first message of a conversation: its shortlist takes at most this share of the budget (all
#: that the stable block leaves: nothing is cached yet, and the whole budget finds the most).
FIRST_SHARE = 1.0
#: Each later message's new shortlist takes this share of the budget: the block keeps the longest
#: beginning that leaves this much room, so about this share of each request is new.
NEW_SHARE = 0.35
#: Seconds without a message after which the conversation starts again.
IDLE = 3600.0


class ConversationBlock:
    """See the module docstring. ``plan`` gives the person's part of one request."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._frozen: list[str] | None = None  # the stable block's ids while the conversation lasts
        self._first: str | None = None  # the stable window's first memory when it was frozen
        self._ids: list[str] = []  # the block: its beginning is kept, its end replaced
        self._budget = 0
        self._last = 0.0
        self.restarts = 0  # how often a conversation started (tests, benchmarks)
        self.cuts = 0  # how often the block's end was let go to make room for a message (tests, benchmarks)

    def reset(self) -> None:
        """The next message starts a conversation."""
        with self._lock:
            self._frozen = None

    def plan(self, prompt: str, listing: "RecallListing", part: "ListingSnapshot", budget: int, window: int,
             shortlist: "Shortlist") -> tuple[list["ListingEntry"], list["ListingEntry"], int]:
        """(the frozen stable block, the block after it, their tokens) for one message, within ``budget``;
        ``window``: the stable block's tokens when a conversation starts."""
        block, _, _ = listing.window(window)
        in_window = [e[ID] for e in block]
        by_id = part.by_id
        with self._lock:
            now = self._clock()
            first = self._stale(in_window, budget, now)
            if first:
                self._frozen, self._first, self._ids, self._budget = list(in_window), (
                    in_window[0] if in_window else None), [], budget
                self.restarts += 1
            frozen = set(self._frozen or ())
            stable = [by_id[m] for m in self._frozen or () if m in by_id]
            used = sum(e[TOKENS] for e in stable)
            kept = [m for m in self._ids if m in by_id and m not in frozen]
            known = frozen.union(kept)
            written = [m for m in in_window if m not in known]  # what was written since the previous message
            wanted = int((FIRST_SHARE if first else NEW_SHARE) * budget)
            # keep the longest beginning of the block that leaves ``wanted`` for this message
            limit = budget - used - sum(by_id[m][TOKENS] + HEADING_TOKENS for m in written) - wanted
            held, cut = 0, len(kept)
            for i, m in enumerate(kept):
                cost = by_id[m][TOKENS] + HEADING_TOKENS
                if held + cost > limit:
                    cut = i
                    break
                held += cost
            if cut < len(kept):
                self.cuts += 1
                # what was written in this conversation stays in the request: after the kept beginning
                since = {m for m in in_window if m not in frozen}
                written = [m for m in kept[cut:] if m in since] + written
            ids = kept[:cut] + written
            held = sum(by_id[m][TOKENS] + HEADING_TOKENS for m in ids)
            room = max(0, min(budget - used - held, wanted))
            new = shortlist.fill(prompt, part, frozen.union(ids), room) if room else []
            ids += [e[ID] for e in new]
            self._ids, self._last = ids, now
            extra = [by_id[m] for m in ids]
            return stable, extra, used + held + sum(e[TOKENS] + HEADING_TOKENS for e in new)

    def _stale(self, in_window: list[str], budget: int, now: float) -> bool:
        """The conversation must start again (lock held)."""
        return (self._frozen is None or budget != self._budget or now - self._last > IDLE
                or (in_window[0] if in_window else None) != self._first)
