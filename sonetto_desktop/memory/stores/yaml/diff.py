"""What another process changed in a YAML store, told as change records.

A YAML file has no change log: when its identity changes under us we compare the fresh parse with
what this instance last read. Each differing memory becomes one change; its actor is taken from the
history entry the other process wrote (its actor, reason and turn), else ``external``. A deleted
memory's actor and reason come from its trash entry. Many differences at once (an import, a
restored backup) are told as one ``reload``.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from ...changes import EXTERNAL, MemoryChange
from ... import kinds
from ..crud import STATES_MAX
from ...record import card_state
from ...item import MemoryItem


def _newest_entry(item: MemoryItem, since: int) -> dict[str, Any]:
    """The newest of the history entries written after the first ``since`` ones ({} if none)."""
    entries = item.history or []
    if len(entries) > since and isinstance(entries[-1], dict):
        return entries[-1]
    return {}


def _change(kind: str, mid: str, state: Mapping[str, Any] | None, entry: Mapping[str, Any], **extra: Any) -> MemoryChange:
    return MemoryChange(kind, (mid,), str(entry.get("actor") or EXTERNAL), str(entry.get("reason") or ""),
                        entry.get("turn_id"), entry.get("session_id"), {mid: state}, extra, local=False)


def foreign_changes(before: Mapping[str, MemoryItem], after: Mapping[str, MemoryItem],
                    load_trash: Callable[[], Mapping[str, Any]], limit: int = STATES_MAX) -> list[MemoryChange]:
    added = [mid for mid in after if mid not in before]
    removed = [mid for mid in before if mid not in after]
    changed = [mid for mid in after if mid in before and after[mid] is not before[mid] and after[mid] != before[mid]]
    if len(added) + len(removed) + len(changed) > limit:
        return [MemoryChange(kinds.RELOAD, (), EXTERNAL, local=False)]
    out: list[MemoryChange] = []
    for mid in added:
        item = after[mid]
        entry = _newest_entry(item, 0)
        kind = kinds.RESTORE if entry.get("action") == kinds.RESTORE else kinds.ADD
        out.append(_change(kind, mid, card_state(item), entry))
    for mid in changed:
        old, item = before[mid], after[mid]
        grown = len(item.history or ()) > len(old.history or ())
        if not grown and (old.description, old.theme) == (item.description, item.theme):
            if old.hit != item.hit:
                out.append(_change(kinds.HIT, mid, card_state(item), {}, hit=item.hit))
            else:  # another field or key
                out.append(_change(kinds.SET, mid, card_state(item), {}))
            continue
        entry = _newest_entry(item, len(old.history or ()))
        kind = entry.get("action") if entry.get("action") in (kinds.MERGE, kinds.REVERT) else kinds.UPDATE
        out.append(_change(kind, mid, card_state(item), entry))
    if removed:
        trash = load_trash()
        for mid in removed:
            entry = trash.get(mid) or {}
            out.append(_change(kinds.DELETE, mid, None, entry))
    return out
