"""How much another app may do through MCP: limits per caller, so that no app takes the memories over.

Without bounds one app wrote 240 MB of journal in seconds and queued more turns than a model could
ever write, and another added 2,000 long memories in 7 s (issue 35). The limits count calls in
sliding windows (:data:`ADD`, :data:`CHANGE`, :data:`REMEMBER`), in this server process, per
**credential** (``access.Caller.buckets``), never per declared name (any client can declare any
name, six of them in a row):

- a call with an app's own HTTP token counts for that token's app;
- any other call counts for its transport session (one HTTP session of the shared token, or the
  stdio process), and calls with the shared token count together too, against limits of their own
  (``Rate.shared``: several apps may share that token, and opening a new session per call must
  not multiply a client's quota).

``add_memory``: at most 30 a minute and 200 an hour per credential (an assistant remembers a few
things per conversation; 2,000 in 7 s stop at 30), and 1,000 an hour for all sessions of the shared
token together (100 apps adding 5 each at once still get through). ``update_memory`` and
``delete_memory`` together: 60 a minute and 600 an hour, 2,000 an hour shared.
``remember_conversation``: 10 a minute, 30 a minute shared, at most ``MAX_CHARS`` characters of
messages per call, and at most ``MAX_PENDING`` of the app's conversations waiting in the writer's
journal (counted on disk, so it holds across the app and every ``sonetto mcp`` process). A refusal
is a tool error naming the limit and in how many seconds the caller may try again; a refused call
does nothing and is not counted.
"""

from __future__ import annotations

import bisect
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from .access import Caller

MAX_CHARS = 64_000
MAX_PENDING = 50


@dataclass(frozen=True)
class Rate:
    """A limit: at most ``calls`` in any ``seconds``, for each ``(seconds, calls)`` of ``windows``
    (per credential) and of ``shared`` (all sessions of the shared token together)."""

    name: str
    zh: str  # what is counted, in the refusal: 添加记忆
    en: str  # memories added
    windows: tuple[tuple[float, int], ...]
    shared: tuple[tuple[float, int], ...] = ()


ADD = Rate("add", "添加记忆", "memories added", ((60.0, 30), (3600.0, 200)), shared=((3600.0, 1000),))
CHANGE = Rate("change", "修改或删除记忆", "memories changed or deleted", ((60.0, 60), (3600.0, 600)),
              shared=((3600.0, 2000),))
REMEMBER = Rate("remember", "交对话", "conversations handed over", ((60.0, 10),), shared=((60.0, 30),))

_WHO = {"app": ("每个应用", "per app"), "session": ("每个连接", "per connection"),
        "shared": ("用共用令牌的应用合计", "for all apps of the shared token together")}


def _span(seconds: float) -> tuple[str, str]:
    if seconds == 60:
        return "每分钟", "a minute"
    if seconds == 3600:
        return "每小时", "an hour"
    return f"每 {seconds:g} 秒", f"in {seconds:g} s"


class QuotaExceeded(Exception):
    """The call is over one of the caller's limits; the message says which and when to try again
    (``retry_after``: seconds, None when waiting does not help)."""

    def __init__(self, message: str, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class Quota:
    """The limits of one server process. ``pending(actor)``: how many of ``actor``'s conversations
    wait in the journal (blocking). ``rates``: the limits by name (tests lower them).
    Thread-safe; :meth:`remember` is blocking (it counts the journal): call it in a worker thread."""

    def __init__(self, pending: Callable[[str], int] = lambda actor: 0, *, max_chars: int = MAX_CHARS,
                 max_pending: int = MAX_PENDING, rates: dict[str, Rate] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._pending = pending
        self.max_chars = max_chars
        self.max_pending = max_pending
        self.rates = {rate.name: rate for rate in (ADD, CHANGE, REMEMBER)} | dict(rates or {})
        self._clock = clock
        self._calls: dict[tuple[str, str, str], list[float]] = {}
        self._lock = threading.Lock()

    def check(self, rate: str, caller: Caller) -> None:
        """Count a call of ``caller`` against the limit ``rate`` (``add``, ``change``, ``remember``), or
        raise ``QuotaExceeded`` (the call is then not counted)."""
        limit = self.rates[rate]
        with self._lock:
            now = self._clock()
            found: list[tuple[float, str, float, int]] = []  # (wait, bucket kind, window, most)
            buckets = caller.buckets()
            for kind, key in buckets:
                windows = limit.shared if kind == "shared" else limit.windows
                if not windows:
                    continue
                calls = self._calls.get((rate, kind, key), [])
                del calls[:bisect.bisect_right(calls, now - max(seconds for seconds, _ in windows))]
                for seconds, most in windows:
                    inside = len(calls) - bisect.bisect_right(calls, now - seconds)
                    if inside >= most:  # the oldest calls that must leave the window first
                        found.append((calls[len(calls) - most] + seconds - now, kind, seconds, most))
            if found:
                wait, kind, seconds, most = max(found)
                raise QuotaExceeded(_refusal(limit, caller, kind, seconds, most, wait), max(1, int(wait + 0.999)))
            for kind, key in buckets:
                if limit.shared if kind == "shared" else limit.windows:
                    self._calls.setdefault((rate, kind, key), []).append(now)
            if len(self._calls) > 1_000:  # sessions come and go: forget the ones whose calls are all old
                oldest = now - max(seconds for rate in self.rates.values() for seconds, _ in rate.windows + rate.shared)
                for bucket in [b for b, calls in self._calls.items() if not calls or calls[-1] <= oldest]:
                    del self._calls[bucket]

    def remember(self, caller: Caller, actor: str, chars: int) -> None:
        """The bounds of ``remember_conversation``: ``chars`` characters handed over by ``caller``,
        written as ``actor``; ``QuotaExceeded`` when over one (nothing is then counted)."""
        if chars > self.max_chars:
            raise QuotaExceeded(
                f"对话太长：{chars} 字，每次最多 {self.max_chars} 字；请只交最近的部分，或分几次交 / the conversation "
                f"is {chars} characters, at most {self.max_chars} per call: hand over the recent part, or send it in parts")
        waiting = self._pending(actor)
        if waiting >= self.max_pending:
            raise QuotaExceeded(
                f"「{caller.name}」已有 {waiting} 段对话在等待 Sonetto 整理（上限 {self.max_pending} 段）；请等它们写完再交 / "
                f"{waiting} conversations from {caller.name!r} are waiting for Sonetto's writer (at most "
                f"{self.max_pending}): try again once they are written")
        self.check(REMEMBER.name, caller)


def _refusal(limit: Rate, caller: Caller, kind: str, seconds: float, most: int, wait: float) -> str:
    who_zh, who_en = _WHO[kind]
    span_zh, span_en = _span(seconds)
    retry = max(1, int(wait + 0.999))
    return (f"「{caller.name}」{limit.zh}太频繁：{who_zh}{span_zh}最多 {most} 次，请 {retry} 秒后再试 / too many "
            f"{limit.en} by {caller.name!r}: at most {most} {span_en} {who_en}; try again in {retry} s")
