"""Text PostgreSQL takes: it refuses the NUL character in ``text`` and ``\\u0000`` in ``jsonb``, which
SQLite, YAML and JSON files keep (a model's or an MCP client's text may carry one). A NUL in what is
written to the server becomes U+FFFD, as a lone surrogate does elsewhere (``unicode_text.storable``);
moving a local store onto a server cleans its texts the same way (``migrate.open_postgres_store``)."""

from __future__ import annotations

import copy
from typing import Any

from ... import record
from ...unicode_text import server_storable


def no_nul(value: Any) -> Any:
    """``value`` (a string, or lists, tuples and dicts of them) as the server takes it
    (``unicode_text.server_storable``); the very same object when nothing in it had to change."""
    if isinstance(value, str):
        return server_storable(value)
    if isinstance(value, dict):
        pairs = [(no_nul(k), no_nul(v)) for k, v in value.items()]
        same = all(a is k and b is v for (a, b), (k, v) in zip(pairs, value.items(), strict=True))
        return value if same else dict(pairs)
    if isinstance(value, (list, tuple)):
        parts = [no_nul(v) for v in value]
        return value if all(a is b for a, b in zip(parts, value, strict=True)) else type(value)(parts)
    return value


def clean_item(item: Any) -> Any:
    """A copy of a memory whose texts (its fields and extra keys) the server takes; the item itself
    when nothing had to change."""
    names = [f.name for f in record.FIELDS] + ["extra"]
    cleaned = {name: no_nul(getattr(item, name, None)) for name in names}
    if all(cleaned[name] is getattr(item, name, None) for name in names):
        return item
    copied = copy.copy(item)
    for name, value in cleaned.items():
        if value is not None:
            setattr(copied, name, value)
    return copied
