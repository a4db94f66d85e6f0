"""Card: what the wall shows of one memory, built from the store's data. Pure Python (no Qt), so
cards can be built in a worker thread and handed to the GUI thread ready to use.

A card is a plain tuple read by the indices below (``card[THEME]``), not an object: CPython's
collector stops tracking an exact tuple of strings, numbers, datetimes and None the first time it
sees it, so 100,000 cards cost a full collection nothing, where a dataclass (slotted or not) or a
namedtuple is walked on every generation-2 pass (issue 37: the loop's stalls while the wall fills).
Build one with :func:`make_card`, :func:`card_from_state` or :func:`card_from_item`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from operator import itemgetter
from typing import Any

from ..memory.item import IMPORTED, MemoryItem, parse_time
from ..memory.record import card_state
from ..memory.stores.base import BaseMemoryManager

#: A read-only row of the card model: ``(id, description, theme, hit, time, when, locked, actor,
#: pinned, author)``. ``time`` is the stamp as stored, ``when`` it parsed; ``locked``: the person locked
#: it (Sonetto and other apps may not change it); ``actor``: who changed it last
#: (``MemoryItem.last_actor``); ``pinned``: the person pinned it (first in its theme); ``author``: whose
#: memory it is (``MemoryItem.author``: an app's only if apps alone wrote it).
Card = tuple[str, str, str, int, str, datetime | None, bool, str, bool, str]
ID, DESCRIPTION, THEME, HIT, TIME, WHEN, LOCKED, ACTOR, PINNED, AUTHOR = range(10)
FIELDS = ("id", "description", "theme", "hit", "time", "when", "locked", "actor", "pinned", "author")


def make_card(memory_id: str, description: Any, theme: Any, hit: Any, stamp: Any, *, locked: Any = False,
              actor: Any = IMPORTED, pinned: Any = False, author: Any = None) -> Card:
    """A card from the store's values as they come (a missing or unreadable one: empty, 0, False)."""
    description = str(description or "")
    theme = str(theme or "")
    stamp = str(stamp or "")
    try:
        hits = int(hit or 0)
    except (TypeError, ValueError):
        hits = 0
    return (memory_id, description, theme, hits, stamp, parse_time(stamp), bool(locked), str(actor or IMPORTED),
            bool(pinned), str(author or actor or IMPORTED))


def card_from_state(memory_id: str, state: dict[str, Any]) -> Card:
    """From a store row or a change record's state (``record.card_state``)."""
    return make_card(memory_id, state.get("description"), state.get("theme"), state.get("hit"),
                     state.get("latest_update_time"), locked=state.get("locked", False),
                     actor=state.get("last_actor") or IMPORTED, pinned=state.get("pinned", False),
                     author=state.get("author"))  # (a record of an older process has none: its last actor)


def card_from_item(memory_id: str, item: MemoryItem) -> Card:
    return card_from_state(memory_id, card_state(item))


def replaced(card: Card, **fields: Any) -> Card:
    """``card`` with the fields named in ``fields`` (``hit=3``) set as given, the others kept."""
    unknown = set(fields) - set(FIELDS)
    if unknown:
        raise TypeError(f"a card has no field {', '.join(sorted(unknown))}")
    return tuple(fields.get(name, value) for name, value in zip(FIELDS, card, strict=True))


#: Cards made per call into C by ``read_cards``: a worker holds the GIL through one call, and the
#: collector's passes its allocations set off run inside it (issue 37: the loop late by 60 ms).
CHUNK = 5000

#: What a card is read from (``record.CARD``, in the order ``read_cards`` takes them).
_READ = ("description", "theme", "latest_update_time", "hit", "pinned", "locked", "last_actor", "author")


def _times(stamps: list[Any]) -> list[datetime | None]:
    """``parse_time`` of each stamp; the stamps a store writes are ISO text, parsed in one pass (a
    stamp ``fromisoformat`` reads is one ``parse_time`` reads the same way)."""
    try:
        return list(map(datetime.fromisoformat, stamps))
    except (TypeError, ValueError):
        return [parse_time(stamp) for stamp in stamps]


def _typed(column: list[Any], kind: type, *, empty: bool = True) -> bool:
    """Whether every value of ``column`` is exactly a ``kind`` (and, with ``empty=False``, not empty)."""
    return all(type(v) is kind for v in column) and (empty or all(column))


def read_cards(manager: BaseMemoryManager) -> list[Card]:
    """Every memory as a card (blocking: call it in a worker), in the grouped listing's order (theme by
    theme, most recently updated first: ``get_memories_grouped``). Reads what a card shows and nothing
    else (``columns_of_all``: a table store's columns, no history parsed; issue 37), and makes the
    cards a column at a time when every value is of the type an item holds (``make_card`` would give
    them as they are), one by one with ``make_card`` otherwise (a damaged memory's None description)."""
    ids, (description, theme, stamp, hits, pinned, locked, actor, author) = manager.columns_of_all(_READ)
    if (_typed(description, str) and _typed(theme, str) and _typed(hits, int) and _typed(stamp, str, empty=False)
            and _typed(locked, bool) and _typed(actor, str, empty=False) and _typed(pinned, bool)
            and _typed(author, str, empty=False)):
        columns = (ids, description, theme, hits, stamp, _times(stamp), locked, actor, pinned, author)
        if len({len(column) for column in columns}) != 1:
            raise ValueError("a store gave columns of different lengths")
        cards = []
        for at in range(0, len(ids), CHUNK):  # (one zip of 100,000 rows holds the GIL for 30-80 ms: the
            cards += zip(*(column[at:at + CHUNK] for column in columns), strict=True)  # window waits)
    else:
        cards = [make_card(*values[:5], locked=values[5], actor=values[6] or IMPORTED, pinned=values[7],
                           author=values[8])
                 for values in zip(ids, description, theme, hits, stamp, locked, actor, pinned, author, strict=True)]
    first: dict[str, int] = {}  # each theme's place: where its first card is
    for card in cards:
        first.setdefault(card[THEME], len(first))
    cards.sort(key=itemgetter(TIME), reverse=True)  # (a card's time is text; stable: equal times keep their order)
    cards.sort(key=lambda card: first[card[THEME]])
    return cards


@dataclass
class CardIndex:
    """Cards with the lookups the card model keeps (row of each id, cards and count per theme),
    built in a worker so that filling the model on the GUI thread costs no pass over the cards
    (0.1 s at 50,000 otherwise)."""

    cards: list[Card]
    rows: dict[str, int] = field(default_factory=dict)
    theme_counts: dict[str, int] = field(default_factory=dict)
    by_theme: dict[str, dict[str, Card]] = field(default_factory=dict)

    @classmethod
    def build(cls, cards: list[Card]) -> "CardIndex":
        cards = list(cards)
        index = cls(cards, {one[ID]: row for row, one in enumerate(cards)})
        counts, by_theme = index.theme_counts, index.by_theme
        for one in cards:
            theme = one[THEME]
            counts[theme] = counts.get(theme, 0) + 1
            by_theme.setdefault(theme, {})[one[ID]] = one
        return index


def read_card_index(manager: BaseMemoryManager) -> CardIndex:
    """``read_cards`` with the model's lookups (blocking: call it in a worker)."""
    return CardIndex.build(read_cards(manager))
