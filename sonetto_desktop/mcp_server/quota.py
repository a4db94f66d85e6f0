"""How much another app may do through MCP: limits per caller, so that no app takes the memories over.

Without bounds one app wrote 240 MB of journal in seconds and queued more turns than a model could
ever write, and another added 2,000 long memories in 7 s (issue 35). The limits count calls in
sliding windows (:data:`ADD`, :data:`CHANGE`, :data:`REMEMBER`) per **credential**
(``access.Caller.buckets``), never per declared name (any client can declare any name, six of them
in a row):

- a call with an app's own HTTP token counts for that token's app;
- a call with the shared HTTP token counts for its transport session (one HTTP session), and all
  sessions of the shared token count together too, against limits of their own (``Rate.shared``:
  several apps may share that token, and opening a new session every 30 adds must not multiply a
  client's quota);
- a call over stdio counts for stdio: every ``sonetto mcp`` process together (a process has no
  credential but that it was started on this computer; starting a new process per 30 adds must not
  start the count afresh). Apps that need a quota of their own get a token of their own.

The counts of a credential (an app's token, the shared token, stdio) are kept in a small file in the
data folder (:data:`QUOTA_FILE`, changed under a file lock), so they hold across every server process
and a restart; a session's count lives in its process (the session ends with it).

``add_memory``: at most 30 a minute and 200 an hour per credential (an assistant remembers a few
things per conversation; 2,000 in 7 s stop at 30); all sessions of the shared token together 600 a
minute (100 apps adding 5 each at once, and 300 adding 2, still get through: ``bench/mcp_http_load.py``)
and 1,000 an hour: a flood that opens a new session every 30 adds reaches the hour's limit after a
minute, not in seconds. ``update_memory`` and ``delete_memory`` together: 60 a minute and 600 an hour, shared
1,000 a minute and 2,000 an hour. ``remember_conversation``: 10 a minute, 30 a minute shared, at most
``MAX_CHARS`` characters of messages per call, and at most ``MAX_PENDING`` of the app's conversations
waiting in the writer's journal (counted on disk, so it holds across the app and every ``sonetto mcp``
process). ``search_memories`` in ``hybrid`` mode with a model (:data:`MODEL_SEARCH`, each may send recall's
token budget to a paid model): 10 a minute and 60 an hour, shared 30 a minute and 200 an hour; over it the
search is not refused but answered offline, with a note saying so. A refusal is a tool error naming the limit and in how many seconds the caller may try
again; a refused call does nothing and is not counted.
"""

from __future__ import annotations

import bisect
import contextlib
import json
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import portalocker

from ..memory.files import private_opener, temp_name
from .access import Caller

log = logging.getLogger(__name__)

MAX_CHARS = 64_000
MAX_PENDING = 50
#: The credentials' counts, in the data folder (``<name>.lock`` beside it is the file lock).
QUOTA_FILE = "mcp_quota.json"
#: The bucket kinds counted in the file (every process together); ``session`` is counted in memory.
DURABLE = frozenset({"app", "shared", "stdio"})
#: Seconds a call waits for another process's turn at the file before it is refused ("try again").
LOCK_TIMEOUT = 5.0


@dataclass(frozen=True)
class Rate:
    """A limit: at most ``calls`` in any ``seconds``, for each ``(seconds, calls)`` of ``windows``
    (per credential, per session) and of ``shared`` (all sessions of the shared token together)."""

    name: str
    zh: str  # what is counted, in the refusal: 添加记忆
    en: str  # memories added
    windows: tuple[tuple[float, int], ...]
    shared: tuple[tuple[float, int], ...] = ()


ADD = Rate("add", "添加记忆", "memories added", ((60.0, 30), (3600.0, 200)), shared=((60.0, 600), (3600.0, 1000)))
CHANGE = Rate("change", "修改或删除记忆", "memories changed or deleted", ((60.0, 60), (3600.0, 600)),
              shared=((60.0, 1000), (3600.0, 2000)))
REMEMBER = Rate("remember", "交对话", "conversations handed over", ((60.0, 10),), shared=((60.0, 30),))
#: ``search_memories`` in hybrid mode with a model configured: each may send up to recall's token budget
#: to the person's (possibly paid) model. Over the limit the search answers offline (``tools``).
MODEL_SEARCH = Rate("model_search", "用模型搜索", "searches with the model", ((60.0, 10), (3600.0, 60)),
                    shared=((60.0, 30), (3600.0, 200)))

_WHO = {"app": ("每个应用", "per app"), "session": ("每个连接", "per connection"),
        "shared": ("用共用令牌的应用合计", "for all apps of the shared token together"),
        "stdio": ("用 stdio 连接的应用合计", "for all apps connected through stdio together")}


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
    """The limits of the MCP server. ``pending(actor)``: how many of ``actor``'s conversations wait
    in the journal (blocking). ``path``: the file of the credentials' counts (:data:`QUOTA_FILE` in
    the data folder; None: counted in this object only). ``rates``: the limits by name (tests lower
    them). ``clock``: seconds, the same in every process (wall time). Thread-safe and blocking (the
    file, the journal): call it in a worker thread."""

    def __init__(self, pending: Callable[[str], int] = lambda actor: 0, *, path: Path | str | None = None,
                 max_chars: int = MAX_CHARS, max_pending: int = MAX_PENDING, rates: dict[str, Rate] | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self._pending = pending
        self._file = _CountsFile(Path(path)) if path is not None else None
        self.max_chars = max_chars
        self.max_pending = max_pending
        self.rates = {rate.name: rate for rate in (ADD, CHANGE, REMEMBER, MODEL_SEARCH)} | dict(rates or {})
        self._clock = clock
        self._calls: Counts = {}
        self._lock = threading.Lock()

    def check(self, rate: str, caller: Caller) -> None:
        """Count a call of ``caller`` against the limit ``rate`` (``add``, ``change``, ``remember``,
        ``model_search``), or
        raise ``QuotaExceeded`` (the call is then not counted)."""
        limit = self.rates[rate]
        buckets = [(kind, key) for kind, key in caller.buckets() if _windows(limit, kind)]
        durable = self._file is not None and any(kind in DURABLE for kind, _ in buckets)
        with self._lock, (self._file.held() if durable else contextlib.nullcontext(None)) as kept:
            now = self._clock()
            found: list[tuple[float, str, float, int]] = []  # (wait, bucket kind, window, most)
            counted: list[list[float]] = []
            for kind, key in buckets:
                windows = _windows(limit, kind)
                table = kept if kept is not None and kind in DURABLE else self._calls
                calls = table.setdefault((rate, kind, key), [])
                if calls and calls[-1] > now:  # the clock went back: those calls count as made now
                    calls[:] = [min(t, now) for t in calls]
                del calls[:bisect.bisect_right(calls, now - max(seconds for seconds, _ in windows))]
                counted.append(calls)
                for seconds, most in windows:
                    inside = len(calls) - bisect.bisect_right(calls, now - seconds)
                    if inside >= most:  # the oldest calls that must leave the window first
                        found.append((calls[len(calls) - most] + seconds - now, kind, seconds, most))
            if found:
                wait, kind, seconds, most = max(found)
                raise QuotaExceeded(_refusal(limit, caller, kind, seconds, most, wait), max(1, int(wait + 0.999)))
            for calls in counted:
                calls.append(now)
            for table in (self._calls, kept):
                if table is not None and (table is kept or len(table) > 1_000):  # sessions come and go
                    self._forget(table, now)

    def _forget(self, table: Counts, now: float) -> None:
        """Drop the buckets whose calls are all older than their limit's longest window."""
        for bucket in [bucket for bucket, calls in table.items() if bucket[0] not in self.rates or not calls
                       or calls[-1] <= now - max(s for s, _ in self.rates[bucket[0]].windows
                                                 + self.rates[bucket[0]].shared)]:
            del table[bucket]

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


def _windows(limit: Rate, kind: str) -> tuple[tuple[float, int], ...]:
    return limit.shared if kind == "shared" else limit.windows


#: ``(rate, bucket kind, key)`` -> the times of its calls, oldest first.
Counts = dict[tuple[str, str, str], list[float]]


class _CountsFile:
    """The credentials' counts in one JSON file, read and rewritten under a file lock by each call
    (a few kilobytes: the calls of the last hour). A file that cannot be read as written (damaged by
    hand) starts the counts again, said in the log; a file that cannot be written refuses the call."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lock_path = path.with_name(path.name + ".lock")

    @contextlib.contextmanager
    def held(self) -> Iterator[Counts]:
        """The counts, held against every other process's; written back unless the body raised."""
        lock = portalocker.Lock(str(self.lock_path), mode="a", timeout=LOCK_TIMEOUT, check_interval=0.01,
                                opener=private_opener)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            lock.acquire()
        except (portalocker.exceptions.LockException, OSError) as exc:
            raise QuotaExceeded(f"MCP 用量正被其他连接更新，请稍后再试 / the MCP call counts are busy in another "
                                f"process; try again in 1 s ({exc})", 1) from exc
        try:
            counts = self._read()
            yield counts
            self._write(counts)
        finally:
            lock.release()

    def _read(self) -> Counts:
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return {}
        except OSError as exc:
            raise QuotaExceeded(f"无法读取 MCP 用量记录 / the MCP call counts cannot be read ({exc})") from exc
        try:
            rows = json.loads(raw)["calls"]
            return {(str(rate), str(kind), str(key)): sorted(float(t) for t in times)
                    for rate, kind, key, times in rows}
        except (ValueError, TypeError, KeyError) as exc:
            log.warning("%s cannot be read (%s): the MCP call counts start again", self.path.name, exc)
            return {}

    def _write(self, counts: Counts) -> None:
        payload = json.dumps({"calls": [[rate, kind, key, [round(t, 3) for t in times]]
                                        for (rate, kind, key), times in counts.items() if times]},
                             ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        tmp = temp_name(self.path)
        try:
            with open(tmp, "wb", opener=private_opener) as fh:  # owner-only; no fsync: counts, not memories
                fh.write(payload)
            os.replace(tmp, self.path)
        except OSError as exc:
            with contextlib.suppress(OSError):
                tmp.unlink()
            raise QuotaExceeded(f"无法记录 MCP 用量，本次调用未执行 / the MCP call counts cannot be kept ({exc}); "
                                "the call was not made") from exc
