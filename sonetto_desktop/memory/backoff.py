"""The app's one retry schedule: how long to wait before the next try of something that failed.

Three loops retry: the PostgreSQL listener reconnecting (``stores/postgres/listener.py``), the
vector sync waiting for its embeddings server or store (``retrieval/vector_sync.py``) and the memory
writer retrying a journaled turn (``writer/worker.py``). Each keeps its own loop, because what it
does between tries is its own: the listener resets after a good connection and waits on its stop
flag, the vector sync honours a server's ``Retry-After`` and says "waiting" with the seconds left,
the writer counts attempts in the journal (they survive a restart) and gives a turn up after
``max_attempts``. A library's retry decorator (tenacity, stamina) wraps one call and sleeps in it;
none of these is one call, and each must wake at once to stop. What they share is this schedule,
and how a server's ``Retry-After`` is read (``retry_after_seconds``: the embeddings client's and the
chat model's, ``agent/llm.py``).
"""

from __future__ import annotations

import email.utils
import math
import random
import time
from dataclasses import dataclass
from typing import Any, Callable

__all__ = ["Backoff", "retry_after_seconds"]


@dataclass(frozen=True)
class Backoff:
    """Seconds before retry ``attempt`` (0-based): ``steps[attempt]``, the last step repeating, times
    a random factor within ``1 ± jitter`` (so that many devices coming back at once do not knock on a
    server in step)."""

    steps: tuple[float, ...]
    jitter: float = 0.0

    def __post_init__(self) -> None:
        if not self.steps or any(step < 0 for step in self.steps) or not 0 <= self.jitter < 1:
            raise ValueError(f"a backoff needs steps of at least 0 s and a jitter in [0, 1): {self}")

    @classmethod
    def doubling(cls, first: float, most: float, *, jitter: float = 0.0) -> "Backoff":
        """``first``, twice that, … up to ``most`` (which then repeats)."""
        steps = [first]
        while steps[-1] * 2 < most:
            steps.append(steps[-1] * 2)
        return cls((*steps, most), jitter)

    def delay(self, attempt: int, *, uniform: Callable[[float, float], float] = random.uniform) -> float:
        base = self.steps[min(max(attempt, 0), len(self.steps) - 1)]
        return base * uniform(1 - self.jitter, 1 + self.jitter) if self.jitter else base


def retry_after_seconds(headers: Any) -> float | None:
    """How long a response asks the client to wait before trying again (``retry-after-ms``, else
    ``retry-after`` in seconds or as an HTTP date), or None when it does not say."""
    if headers is None:
        return None
    for name, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) / divisor
        except ValueError:
            continue
        return seconds if math.isfinite(seconds) and seconds >= 0 else None
    try:
        when = email.utils.parsedate_tz(headers.get("retry-after") or "")
        return max(0.0, float(email.utils.mktime_tz(when) - time.time())) if when is not None else None
    except (TypeError, ValueError, OverflowError):
        return None
