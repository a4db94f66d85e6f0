"""Card: what the wall shows of one memory, built from the store's data. Pure Python (no Qt), so
cards can be built in a worker thread and handed to the GUI thread ready to use."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ..memory.item import IMPORTED, MemoryItem, parse_time
from ..memory.record import card_state
from ..memory.stores.base import BaseMemoryManager


@dataclass(frozen=True, slots=True)
class Card:
    """A read-only row of the card model."""

    id: str
    description: str
    theme: str
    hit: int
    time: str
    when: datetime | None
    haystack: str  # what the search looks in, case-folded
    locked: bool = False  # the person locked it: Sonetto and other apps may not change it
    actor: str = IMPORTED  # who changed it last (``MemoryItem.last_actor``)
    pinned: bool = False  # the person pinned it: first in its theme
    author: str = IMPORTED  # whose memory it is (``MemoryItem.author``: an app's only if apps alone wrote it)

    @classmethod
    def build(cls, memory_id: str, description: Any, theme: Any, hit: Any, stamp: Any, *,
              locked: Any = False, actor: Any = IMPORTED, pinned: Any = False, author: Any = None) -> "Card":
        description = str(description or "")
        theme = str(theme or "")
        stamp = str(stamp or "")
        try:
            hits = int(hit or 0)
        except (TypeError, ValueError):
            hits = 0
        return cls(memory_id, description, theme, hits, stamp, parse_time(stamp), f"{description}\n{theme}".casefold(),
                   bool(locked), str(actor or IMPORTED), bool(pinned), str(author or actor or IMPORTED))

    @classmethod
    def from_state(cls, memory_id: str, state: dict[str, Any]) -> "Card":
        """From a store row or a change record's state (``record.card_state``)."""
        return cls.build(memory_id, state.get("description"), state.get("theme"), state.get("hit"),
                         state.get("latest_update_time"), locked=state.get("locked", False),
                         actor=state.get("last_actor") or IMPORTED, pinned=state.get("pinned", False),
                         author=state.get("author"))  # (a record of an older process has none: its last actor)

    @classmethod
    def from_item(cls, memory_id: str, item: MemoryItem) -> "Card":
        return cls.from_state(memory_id, card_state(item))


def read_cards(manager: BaseMemoryManager) -> list[Card]:
    """Every memory as a card (blocking: call it in a worker). Uses the grouped listing, which
    skips copying each memory's history."""
    return [
        Card.from_state(row["id"], row)
        for rows in manager.get_memories_grouped().values()
        for row in rows
    ]


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
        index = cls(cards, {card.id: row for row, card in enumerate(cards)})
        counts, by_theme = index.theme_counts, index.by_theme
        for card in cards:
            counts[card.theme] = counts.get(card.theme, 0) + 1
            by_theme.setdefault(card.theme, {})[card.id] = card
        return index


def read_card_index(manager: BaseMemoryManager) -> CardIndex:
    """``read_cards`` with the model's lookups (blocking: call it in a worker)."""
    return CardIndex.build(read_cards(manager))
