"""The seed's ``memory.yaml`` text: parsing it into items (keeping every entry) and writing it back
from per-memory fragments (a compaction re-serialises only the memories that changed).

Format (unchanged from SonettoHere, so an existing ``memory.yaml`` loads as is, and what we write
loads with a plain ``yaml.safe_load``)::

    <id>:
      description: ...
      theme: ...
      history: [...]
      latest_update_time: '2026-12-02T10:15:00'
      hit: 0
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml

from ...files import atomic_write
from ...item import MemoryItem
from ..validation import item_from_raw, validate_item
from .safe import load_pairs

_Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
_TOP_LEVEL = re.compile(r"^(?=[^\s#])", re.MULTILINE)

Fragment = tuple[MemoryItem, str]


def dump(data: Any) -> bytes:
    return yaml.dump(data, Dumper=_Dumper, default_flow_style=False, allow_unicode=True,
                     sort_keys=False).encode("utf-8")


def serialise(items: dict[str, MemoryItem], fragments: dict[str, Fragment]) -> tuple[bytes, dict[str, Fragment]]:
    """The whole file from per-entry fragments (one-entry mappings concatenate into one mapping);
    returns it and the fragments of this version. A fragment is reused while its entry is the very
    item object it was written from (committed items are never changed in place: a write stores a
    new object), so every field and every other key of an entry is covered."""
    parts = []
    fresh: dict[str, Fragment] = {}
    for mid, item in items.items():
        cached = fragments.get(mid)
        text = cached[1] if cached and cached[0] is item else dump({mid: item.to_dict(copy=False)}).decode("utf-8")
        fresh[mid] = (item, text)
        parts.append(text)
    return ("".join(parts) or "{}\n").encode("utf-8"), fresh


def split_fragments(text: str, items: dict[str, MemoryItem]) -> dict[str, Fragment]:
    """The fragments of a file this app wrote (each entry starts at column 0 with its key), so the
    first compaction after a start does not re-serialise every memory. Empty when the text does not
    split into exactly the entries of ``items``, in order."""
    starts = [m.start() for m in _TOP_LEVEL.finditer(text)]
    if len(starts) != len(items):
        return {}
    starts.append(len(text))
    fragments: dict[str, Fragment] = {}
    for (mid, item), begin, end in zip(items.items(), starts, starts[1:], strict=False):
        chunk = text[begin:end]
        if not chunk.startswith((f"{mid}:", f"'{mid}':", f'"{mid}":')):
            return {}
        fragments[mid] = (item, chunk)
    return fragments


def _fresh_id(memory_id: str, taken: set[str]) -> str:
    n = 2
    while f"{memory_id}-{n}" in taken:
        n += 1
    return f"{memory_id}-{n}"


def parse_items(raw: bytes, source: str) -> tuple[dict[str, MemoryItem], list[str], list[str]]:
    """Items of a store file, every entry kept. Returns (items, issues, repaired). A second entry with an id already seen (``1`` and ``'1'`` are the same id) is kept
    under ``<id>-2`` (``-3`` …) and reported as an issue. Raises what ``load_pairs`` raises."""
    pairs = load_pairs(raw, source)
    taken = {str(key) for key, _ in pairs}
    items: dict[str, MemoryItem] = {}
    issues: list[str] = []
    repaired: list[str] = []
    for key, value in pairs:
        memory_id = str(key)
        item, note = item_from_raw(memory_id, value)
        if note:
            repaired.append(note)
        found, fixed = validate_item(memory_id, item)
        issues += found
        repaired += fixed
        if memory_id in items:
            new_id = _fresh_id(memory_id, taken)
            taken.add(new_id)
            issues.append(f"duplicate id {memory_id!r} in {source}: both entries kept, the later one "
                          f"now has the id {new_id!r}")
            memory_id = new_id
        items[memory_id] = item
    return items, issues, repaired


def parse_trash(raw: bytes, source: str) -> dict[str, dict[str, Any]]:
    """Trash entries (id -> entry dict); a duplicated id is kept under a fresh id too."""
    pairs = load_pairs(raw, source)
    taken = {str(key) for key, _ in pairs}
    trash: dict[str, dict[str, Any]] = {}
    for key, value in pairs:
        if not isinstance(value, dict):
            continue
        memory_id = str(key)
        if memory_id in trash:
            memory_id = _fresh_id(memory_id, taken)
            taken.add(memory_id)
        trash[memory_id] = value
    return trash


# ── the parse cache: memory.yaml read back as JSON (a YAML parse of 10,000 memories takes seconds) ──

CACHE_FORMAT = "sonetto-memory-cache"


def write_cache(path: Path, base_sha1: str, items: dict[str, MemoryItem]) -> None:
    """Keep ``items`` — what memory.yaml with this SHA-1 parses to — as JSON beside it."""
    head = json.dumps({"format": CACHE_FORMAT, "version": 1, "base_sha1": base_sha1})
    body = json.dumps({mid: item.to_dict(copy=False) for mid, item in items.items()}, ensure_ascii=False,
                      separators=(",", ":"), default=str)
    atomic_write(path, (head + "\n" + body + "\n").encode("utf-8"))


def read_cache(path: Path, base_sha1: str) -> tuple[dict[str, MemoryItem], list[str], list[str]] | None:
    """The items of memory.yaml from its cache, when the cache was made from exactly this file
    (same SHA-1); ``None`` otherwise (then the YAML is parsed)."""
    try:
        with open(path, "rb") as fh:
            head = json.loads(fh.readline())
            if head.get("format") != CACHE_FORMAT or head.get("base_sha1") != base_sha1:
                return None
            data = json.loads(fh.read())
    except (OSError, ValueError, AttributeError):
        return None
    if not isinstance(data, dict):
        return None
    items: dict[str, MemoryItem] = {}
    issues: list[str] = []
    repaired: list[str] = []
    for memory_id, raw in data.items():
        item, note = item_from_raw(memory_id, raw)
        found, fixed = validate_item(memory_id, item)
        issues += found
        repaired += fixed + ([note] if note else [])
        items[memory_id] = item
    return items, issues, repaired
