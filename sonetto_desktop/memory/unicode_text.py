"""Text that can be stored: Python strings may hold lone surrogates (a model's JSON can carry
``"\\ud83d"`` alone), which UTF-8, SQLite, YAML and JSON files refuse. No Qt."""

from __future__ import annotations

import re

_SURROGATE = re.compile("[\ud800-\udfff]")


def storable(text: str) -> str:
    """``text`` with every lone surrogate replaced by U+FFFD (a surrogate pair becomes its character)."""
    if not _SURROGATE.search(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
