"""The parse cache: ``memory.yaml`` read back as JSON (a YAML parse of 10,000 memories takes
seconds). ``memory.yaml.cache`` holds the items of exactly one memory.yaml, named by its SHA-1;
opening a store reads it instead of the YAML when the SHA-1 matches. It is written when a store
closes (and after a full parse), not per rewrite: a store opened after a crash parses the YAML.
Like memory.yaml it leaves out the app's own fields (they are in ``memory.flags.yaml``)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from ...files import atomic_write
from ...item import MemoryItem
from .format import Parsed, entry_of

log = logging.getLogger(__name__)

CACHE_FORMAT = "sonetto-memory-cache"
#: memory.yaml files larger than this get a cache.
CACHE_MIN_BYTES = 64 * 1024


class ParseCache:
    """``memory.yaml.cache`` beside a store file."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def write(self, base_sha1: str, items: dict[str, MemoryItem]) -> None:
        """Keep ``items`` — what memory.yaml with this SHA-1 parses to — as JSON beside it (best
        effort: memory.yaml is parsed instead when it cannot be written)."""
        head = json.dumps({"format": CACHE_FORMAT, "version": 1, "base_sha1": base_sha1})
        body = json.dumps({mid: entry_of(item) for mid, item in items.items()}, ensure_ascii=False,
                          separators=(",", ":"), default=str)
        try:
            atomic_write(self.path, (head + "\n" + body + "\n").encode("utf-8"))
        except OSError as exc:
            log.info("could not write %s: %s", self.path, exc)

    def base_sha1(self) -> str | None:
        """The SHA-1 of the memory.yaml the cache was made from (``None``: no usable cache)."""
        try:
            with open(self.path, "rb") as fh:
                head = json.loads(fh.readline())
        except (OSError, ValueError):
            return None
        return head.get("base_sha1") if isinstance(head, dict) and head.get("format") == CACHE_FORMAT else None

    def read(self, base_sha1: str, source: str) -> Parsed | None:
        """The items of memory.yaml from its cache, when the cache was made from exactly this file
        (same SHA-1); ``None`` otherwise (then the YAML is parsed)."""
        try:
            with open(self.path, "rb") as fh:
                head = json.loads(fh.readline())
                if head.get("format") != CACHE_FORMAT or head.get("base_sha1") != base_sha1:
                    return None
                data = json.loads(fh.read())
        except (OSError, ValueError, AttributeError):
            return None
        if not isinstance(data, dict):
            return None
        parsed = Parsed({}, [], [], set())
        for memory_id, raw in data.items():
            parsed.read(memory_id, raw)
        return parsed
