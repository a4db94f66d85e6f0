"""How much another app may hand the memory writer through ``remember_conversation``.

Without a bound one app wrote 240 MB of journal in seconds and queued more turns than a model could
ever write. Per app (the client's label): at most ``MAX_CHARS`` characters of messages per call, at
most ``CALLS_PER_MINUTE`` calls in any minute (in this server process), and at most ``MAX_PENDING``
of its conversations waiting in the writer's journal (counted on disk, so it holds across the app
and every ``sonetto mcp`` process). A refusal is a tool error naming the limit and when to try again;
nothing of the refused call is journaled.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable

MAX_CHARS = 64_000
CALLS_PER_MINUTE = 10
MAX_PENDING = 50
WINDOW = 60.0


class QuotaExceeded(Exception):
    """The call is over one of the app's limits; the message says which and when to try again."""


class RememberQuota:
    """``pending(actor)``: how many of ``actor``'s conversations wait in the journal (blocking).
    ``check`` is blocking too (it counts the journal): call it in a worker thread."""

    def __init__(self, pending: Callable[[str], int], *, max_chars: int = MAX_CHARS,
                 calls_per_minute: int = CALLS_PER_MINUTE, max_pending: int = MAX_PENDING,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._pending = pending
        self.max_chars = max_chars
        self.calls_per_minute = calls_per_minute
        self.max_pending = max_pending
        self._clock = clock
        self._calls: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def check(self, app: str, actor: str, chars: int) -> None:
        """Count a call of ``app`` (written as ``actor``) handing over ``chars`` characters, or raise
        ``QuotaExceeded`` (the call is then not counted)."""
        if chars > self.max_chars:
            raise QuotaExceeded(
                f"对话太长：{chars} 字，每次最多 {self.max_chars} 字；请只交最近的部分，或分几次交 / the conversation "
                f"is {chars} characters, at most {self.max_chars} per call: hand over the recent part, or send it in parts")
        waiting = self._pending(actor)
        if waiting >= self.max_pending:
            raise QuotaExceeded(
                f"「{app}」已有 {waiting} 段对话在等待 Sonetto 整理（上限 {self.max_pending} 段）；请等它们写完再交 / "
                f"{waiting} conversations from {app!r} are waiting for Sonetto's writer (at most {self.max_pending}): "
                "try again once they are written")
        with self._lock:
            now = self._clock()
            calls = self._calls.setdefault(app, deque())
            while calls and now - calls[0] >= WINDOW:
                calls.popleft()
            if len(calls) >= self.calls_per_minute:
                wait = max(1, int(WINDOW - (now - calls[0]) + 0.999))
                raise QuotaExceeded(
                    f"交得太频繁：每个应用每分钟最多 {self.calls_per_minute} 次，请 {wait} 秒后再试 / too many calls: "
                    f"at most {self.calls_per_minute} a minute per app; try again in {wait} s")
            calls.append(now)
