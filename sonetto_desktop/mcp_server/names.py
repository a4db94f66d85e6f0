"""A client's name as the history shows it and the allow list and the app tokens match it: one line,
printable, bounded (``mcp:`` plus at most ``MAX_CLIENT_CHARS`` characters)."""

from __future__ import annotations

import re
from typing import Any

MAX_CLIENT_CHARS = 40
UNKNOWN_CLIENT = "unknown"
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def client_label(name: Any) -> str:
    """A client's name from the handshake (or an app token's) as shown and matched."""
    text = " ".join(_UNPRINTABLE.sub(" ", str(name or "")).split())
    return text[:MAX_CLIENT_CHARS] or UNKNOWN_CLIENT
