"""Text PostgreSQL takes: it refuses the NUL character in ``text`` and ``\\u0000`` in ``jsonb``, which
SQLite, YAML and JSON files keep (a model's or an MCP client's text may carry one). A NUL in what is
written to the server becomes U+FFFD, as a lone surrogate does elsewhere (``unicode_text.storable``);
moving a local store onto a server cleans its texts the same way (``migrate.open_postgres_store``)."""

from __future__ import annotations

import copy
from typing import Any

from ... import record

NUL, REPLACEMENT = "\x00", "\ufffd"


def no_nul(value: Any) -> Any:
    """``value`` (a string, or lists, tuples and dicts of them) with every NUL as U+FFFD; the same
    object when it holds none."""
    if isinstance(value, str):
        return value.replace(NUL, REPLACEMENT) if NUL in value else value
    if isinstance(value, dict):
        return {no_nul(k): no_nul(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(no_nul(v) for v in value)
    return value


def _holds_nul(value: Any) -> bool:
    if isinstance(value, str):
        return NUL in value
    if isinstance(value, dict):
        return any(_holds_nul(k) or _holds_nul(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return any(_holds_nul(v) for v in value)
    return False


def clean_item(item: Any) -> Any:
    """A copy of a memory whose texts (its fields and extra keys) hold no NUL; the item itself when none does."""
    names = [f.name for f in record.FIELDS]
    if not any(_holds_nul(getattr(item, name, None)) for name in names) and not _holds_nul(getattr(item, "extra", None)):
        return item
    cleaned = copy.deepcopy(item)
    for name in names:
        setattr(cleaned, name, no_nul(getattr(item, name)))
    if getattr(item, "extra", None) is not None:
        cleaned.extra = no_nul(item.extra)
    return cleaned
