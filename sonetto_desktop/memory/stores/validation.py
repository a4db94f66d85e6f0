"""Field checks and safe repairs shared by every store's ``self_check``."""

from __future__ import annotations

import json
from datetime import date, datetime, time
from typing import Any

from ..item import (MAX_DESCRIPTION_CHARS, MAX_HIT, MAX_REASON_CHARS, MAX_THEME_CHARS, MemoryItem, clamp_hit,
                   normalize_time, now_iso)


def _plain(value: Any) -> Any:
    """Dates inside history entries (YAML parses unquoted timestamps) become ISO strings."""
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def validate_item(memory_id: str, item: MemoryItem) -> tuple[list[str], list[str]]:
    """Repair ``item`` in place where it is safe; return (issues, repaired) messages."""
    issues: list[str] = []
    repaired: list[str] = []
    for name in ("description", "theme"):
        value = getattr(item, name)
        if value is not None and not isinstance(value, str):
            setattr(item, name, as_text(value))
            repaired.append(f"{memory_id}: {name} was {_kind(value)}, stored as text")
            value = getattr(item, name)
        if value is None or (isinstance(value, str) and not value.strip()):
            if name == "theme":
                item.theme = "未分类"
                repaired.append(f"{memory_id}: empty theme set to 未分类")
            else:
                issues.append(f"{memory_id}: empty description")
        elif not isinstance(value, str):
            issues.append(f"{memory_id}: {name} is {type(value).__name__}, not text")
        elif value != value.strip():
            setattr(item, name, value.strip())
            repaired.append(f"{memory_id}: stripped blanks around {name}")
    if item.history is None or not isinstance(item.history, list):
        if item.history not in (None, []):
            issues.append(f"{memory_id}: history was {type(item.history).__name__}; kept as a note")
            item.history = [{"time": now_iso(), "action": "note", "actor": "user",
                             "reason": "自检：无法识别的历史", "raw": _plain(item.history)}]
        else:
            item.history = []
        repaired.append(f"{memory_id}: history reset to a list")
    else:
        plain = [_plain(e) if isinstance(e, dict) else {"raw": _plain(e)} for e in item.history]
        if plain != item.history:
            item.history = plain
            repaired.append(f"{memory_id}: history entries normalised")
    if not isinstance(item.hit, int) or isinstance(item.hit, bool) or not 0 <= item.hit <= MAX_HIT:
        item.hit = clamp_hit(item.hit)
        repaired.append(f"{memory_id}: hit repaired to {item.hit}")
    fixed_time = normalize_time(item.latest_update_time)
    if fixed_time is None:
        item.latest_update_time = now_iso()
        repaired.append(f"{memory_id}: missing latest_update_time set to now")
    elif fixed_time != item.latest_update_time:
        item.latest_update_time = fixed_time
    return issues, repaired


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a yes/no value"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, (datetime, date, time)):
        return "a date or time"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


def as_text(value: Any) -> str:
    """A stored value that should have been text, as text (nothing of it dropped)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (datetime, date, time)):
        return value.isoformat()
    if isinstance(value, (list, tuple)) and all(isinstance(v, (str, int, float)) for v in value):
        return "；".join(as_text(v) for v in value)
    if isinstance(value, (list, tuple, dict)):
        return json.dumps(_plain(value), ensure_ascii=False, default=str)
    return str(value)


def oversize_fields(memory_id: str, item: MemoryItem) -> list[str]:
    """What of ``item`` is over the limits of ``item.py`` (one message each; empty when all fit)."""
    found = []
    for name, limit in (("description", MAX_DESCRIPTION_CHARS), ("theme", MAX_THEME_CHARS)):
        value = getattr(item, name)
        if isinstance(value, str) and len(value) > limit:
            found.append(f"{memory_id}: {name} is {len(value):,} characters long (limit {limit:,})")
    for entry in item.history if isinstance(item.history, list) else ():
        reason = entry.get("reason") if isinstance(entry, dict) else None
        if isinstance(reason, str) and len(reason) > MAX_REASON_CHARS:
            found.append(f"{memory_id}: a history reason is {len(reason):,} characters long (limit {MAX_REASON_CHARS:,})")
            break
    return found


def validate_items(items: dict[str, Any]) -> tuple[list[str], list[str]]:
    issues: list[str] = []
    repaired: list[str] = []
    for memory_id, item in items.items():
        i, r = validate_item(memory_id, item)
        issues += i
        repaired += r
    return issues, repaired


def item_from_raw(memory_id: str, raw: Any) -> tuple[MemoryItem, str | None]:
    """Build an item from a raw stored value. Non-mapping values are kept as a description."""
    if isinstance(raw, dict):
        data = dict(raw)
        if "hit" not in data or data.get("hit") is None:
            data["hit"] = 0
        item = MemoryItem.__new__(MemoryItem)
        item.description = data.get("description")
        item.theme = data.get("theme")
        item.history = data.get("history")
        item.latest_update_time = data.get("latest_update_time")
        item.hit = data.get("hit", 0)
        note = None if "hit" in raw and raw.get("hit") is not None else f"{memory_id}: missing hit set to 0"
        return item, note
    return MemoryItem(str(raw), "未分类"), f"{memory_id}: entry was not a mapping; kept its text as the description"


def item_from_fields(memory_id: str, description: Any, theme: Any, history: Any, latest_update_time: Any,
                     hit: Any) -> tuple[MemoryItem, list[str], list[str]]:
    """An item from the fields a store read (``history`` as stored: JSON text, or already parsed),
    with (issues, repaired) as ``validate_item`` gives them. A row written by another program or
    damaged by hand never breaks a read: a field of the wrong kind is repaired in the item returned
    (history that is not a list is kept as a note entry, a hit out of range clamped…) and said; the
    store decides whether to write the repair back. Sound rows take a fast path."""
    if isinstance(history, (str, bytes)):
        try:
            history = json.loads(history) if history else []
        except ValueError:
            pass  # kept as text: validate_item keeps it as a note
    if (type(history) is list and all(type(entry) is dict for entry in history) and type(hit) is int
            and 0 <= hit <= MAX_HIT and type(description) is str and type(theme) is str and theme.strip()
            and type(latest_update_time) is str and latest_update_time):
        return MemoryItem(description, theme, history, latest_update_time, hit), [], []
    item, _ = item_from_raw(memory_id, {"description": description, "theme": theme, "history": history,
                                        "latest_update_time": latest_update_time, "hit": hit})
    issues, repaired = validate_item(memory_id, item)
    return item, issues, repaired


def trash_entry_problem(entry: Any) -> str | None:
    """What makes a stored trash entry unusable (None: it is usable). An entry is a mapping whose
    ``item`` is a mapping with a text description and theme and, if any, a list of history entries."""
    if not isinstance(entry, dict):
        return f"not a mapping but {_kind(entry)}"
    item = entry.get("item")
    if not isinstance(item, dict):
        return "it holds no memory"
    if not isinstance(item.get("description"), str) or not isinstance(item.get("theme"), str):
        return "its memory has no text description or theme"
    if item.get("history") is not None and not isinstance(item["history"], list):
        return "its memory's history is not a list"
    return None
