"""What recall keeps of each memory, read as columns (issue 37: the running app at 100,000 memories).

The offline index (building it, and checking it against the store after a start) and the recall
listing (its first fill) keep five values of each memory. They read them with ``all_items()``: every
memory built as an item with its history parsed, ~6 s of Python and ~87 MB of transient objects at
100,000 memories, holding the GIL beside the window. A table store reads the five columns instead
(``BaseMemoryManager.fields_of_all``: the same values, a few hundred milliseconds); a store kept in
memory gives them from its items, as before.
"""

from __future__ import annotations

from typing import Any, NamedTuple


class CardFields(NamedTuple):
    """A memory's values recall keeps (the names of ``MemoryItem``'s attributes, so either serves)."""

    description: str
    theme: str
    latest_update_time: str
    hit: int
    author: str


NAMES: tuple[str, ...] = CardFields._fields


def card_fields(mm: Any) -> dict[str, CardFields]:
    """id -> :class:`CardFields` of every memory of ``mm`` (a store; anything else with ``all_items``
    is read whole)."""
    fields_of_all = getattr(mm, "fields_of_all", None)
    if fields_of_all is None:
        return {mid: CardFields(item.description, item.theme, item.latest_update_time, item.hit, item.author)
                for mid, item in mm.all_items().items()}
    return {mid: CardFields(*values) for mid, values in fields_of_all(NAMES).items()}
