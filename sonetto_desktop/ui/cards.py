"""Card: what the wall shows of one memory, built from the store's data. Pure Python (no Qt), so
cards can be built in a worker thread and handed to the GUI thread ready to use."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sonetto_desktop.memory.base import BaseMemoryManager
from sonetto_desktop.memory.item import MemoryItem, parse_time


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

    @classmethod
    def build(cls, memory_id: str, description: Any, theme: Any, hit: Any, stamp: Any) -> "Card":
        description = str(description or "")
        theme = str(theme or "")
        stamp = str(stamp or "")
        try:
            hits = int(hit or 0)
        except (TypeError, ValueError):
            hits = 0
        return cls(memory_id, description, theme, hits, stamp, parse_time(stamp), f"{description}\n{theme}".casefold())

    @classmethod
    def from_item(cls, memory_id: str, item: MemoryItem) -> "Card":
        return cls.build(memory_id, item.description, item.theme, item.hit, item.latest_update_time)


def read_cards(manager: BaseMemoryManager) -> list[Card]:
    """Every memory as a card (blocking: call it in a worker). Uses the grouped listing, which
    skips copying each memory's history."""
    return [
        Card.build(row["id"], row["description"], row["theme"], row["hit"], row["latest_update_time"])
        for rows in manager.get_memories_grouped().values()
        for row in rows
    ]
