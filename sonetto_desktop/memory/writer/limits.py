"""The writer's limits per turn and the exception of a turn held for crossing one (see ``guard.py``,
which enforces them). Apart from ``guard`` so the pipeline uses them without importing LangChain."""

from __future__ import annotations

DEFAULT_MAX_TOOL_CALLS = 30
DEFAULT_MAX_CHANGED = 15


class TurnHeld(Exception):
    """A run crossed a limit; what it wrote was undone. ``reason``: ``tool_calls`` or ``mass_change``."""

    def __init__(self, reason: str, detail: str) -> None:
        self.reason = reason
        self.detail = detail
        super().__init__(detail)
