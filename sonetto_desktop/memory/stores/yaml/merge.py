"""Three-way merge of one memory.yaml entry: the person's saved text against the version it was read
from (the *base*) and the memory as the store holds it now.

Each key of the entry is taken from whoever changed it since the base: the person's value when they
changed it, the store's when only the store did (a hit, Sonetto's update written after the editor
read the file). When both changed the same key to different values — a true conflict — the
person's value wins (memory.yaml is theirs) and the merge says so: for the text or the theme the
store keeps the other version as a memory of its own (see ``sync.YamlSync.fold``), so neither is
lost. The history is the store's (it holds every change made since the base), unless the person
edited it by hand.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...item import MemoryItem
from .format import APP_KEYS

_MISSING = object()
#: Keys whose conflict keeps both versions (the memory's content); other keys: the person's value.
CONTENT_KEYS = ("description", "theme")
_OWN_KEYS = ("history", "latest_update_time")


@dataclass
class Merged:
    item: MemoryItem  # the entry's state after the merge (history not yet extended by the edit)
    person_changed: bool  # the person changed something of it since the base
    conflict: bool  # the person and the store changed its text or theme differently since the base


def merge_entry(base: MemoryItem | None, edited: MemoryItem, current: MemoryItem) -> Merged:
    """``edited`` (the person's save) merged with ``current`` (the store's state) against ``base``
    (the entry in the version the save was made from; ``None``: it was not in it)."""
    b = base.to_dict(copy=False) if base is not None else {}
    e = edited.to_dict(copy=False)
    c = current.to_dict(copy=False)
    out: dict[str, Any] = {}
    person_changed = conflict = False
    for key in dict.fromkeys([*c, *e, *b]):
        if key in _OWN_KEYS:
            continue
        bv, ev, cv = b.get(key, _MISSING), e.get(key, _MISSING), c.get(key, _MISSING)
        if ev is _MISSING and key in APP_KEYS:  # the app's own fields are not in the file (format.APP_KEYS)
            value = cv
        elif ev == bv or ev == cv:
            value = cv
        else:
            person_changed = True
            value = ev
            if cv != bv and key in CONTENT_KEYS:
                conflict = True
        if value is not _MISSING:
            out[key] = value
    history = c.get("history") or []
    if base is not None and edited.history != base.history:  # the person edited the history itself
        person_changed = True
        own = base.history
        history = list(edited.history) + (history[len(own):] if history[:len(own)] == own else [])
    out["history"] = [dict(entry) if isinstance(entry, dict) else entry for entry in history]
    out["latest_update_time"] = c.get("latest_update_time")
    return Merged(MemoryItem.from_dict(out), person_changed, conflict)
