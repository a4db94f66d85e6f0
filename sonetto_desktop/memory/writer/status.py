"""The writer's observable state as one value, with a sentence for people in zh and en, and the
wording of a failure (the front end may supply its own describer)."""

from __future__ import annotations

import errno
import logging
from dataclasses import dataclass
from typing import Callable

from ..errors import StoreReadOnly, StoreWriteFailed, scrub

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class WriterStatus:
    """A snapshot for status bars. ``configured`` is False only once the writer knows no model is set."""

    pending: int
    busy: bool
    paused: bool
    configured: bool
    failed: int
    last_error: str | None
    zh: str
    en: str
    #: When the next automatic retry of a failing turn happens (ISO time), ``None`` when none is due.
    retry_at: str | None = None
    #: ``MemoryWriter.retry_failed()`` has something to do: failed or held turns, or one waiting to retry.
    can_retry: bool = False
    #: Of the failed turns, how many were held (too many changes or tool calls), not failed.
    held: int = 0


def make_status(*, pending: int, busy: bool, paused: bool, configured: bool, failed: int,
                last_error: str | None, activity: tuple[str, str] | None = None, retry_at: str | None = None,
                held: int = 0) -> WriterStatus:
    """Pick the one sentence that matters most right now. ``activity``: (zh, en) of background work
    besides turns (the memory hygiene pass), shown when nothing more pressing is. ``retry_at``:
    when a failing turn is tried again (said in the sentence, so "retrying" never hides the reason)."""
    n = pending
    can_retry = bool(failed or retry_at)
    at = (retry_at or "")[11:19]
    if not configured:
        zh, en = "未配置模型，记忆写入暂停", "No model configured: memory writing is paused"
        if n:
            zh, en = f"{zh}（{n} 轮待写入）", f"{en} ({n} turns waiting)"
    elif paused:
        zh, en = f"记忆写入已暂停（{n} 轮待写入）", f"Memory writing paused ({n} turns waiting)"
    elif last_error and n and retry_at and not busy:
        zh = f"记忆写入出错：{last_error}。将于 {at} 自动重试（{n} 轮待写入）"
        en = f"Memory writing failed: {last_error}. Retrying at {at} ({n} turns waiting)"
    elif last_error and n and not busy:
        zh, en = f"记忆写入出错：{last_error}（{n} 轮待写入）", f"Memory writing failed: {last_error} ({n} turns waiting)"
    elif busy or n:
        zh, en = f"正在写入记忆…（{n} 轮待写入）", f"Writing memories… ({n} turns waiting)"
    elif held and held == failed:
        zh = f"有 {held} 轮对话要改动的记忆太多，已暂缓、未做任何改动；确认后可重试"
        en = f"{held} turns would change too many memories: held, nothing changed; retry to apply them"
    elif failed:
        zh, en = f"有 {failed} 轮对话未能写入记忆，可重试", f"{failed} turns could not be written to memory (retry possible)"
        if last_error:
            zh, en = f"{zh}：{last_error}", f"{en}: {last_error}"
    elif activity:
        zh, en = activity
    else:
        zh, en = "记忆已是最新", "Memories are up to date"
    return WriterStatus(n, busy, paused, configured, failed, last_error, zh, en, retry_at, can_retry, held)


_STORAGE_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO, errno.EFBIG}
_STORAGE_WORDS = ("disk is full", "database or disk is full", "no space left", "readonly database", "disk i/o error")


def storage_failure(exc: BaseException) -> bool:
    """Whether a failure is the disk's (full, read-only, I/O error), not the model's: such a turn is
    kept and retried until the disk is fixed, never given up on."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, (StoreWriteFailed, StoreReadOnly)):
            return True
        if isinstance(current, OSError) and getattr(current, "errno", None) in _STORAGE_ERRNOS:
            return True
        if any(word in str(current).lower() for word in _STORAGE_WORDS):
            return True
        current = current.__cause__ or current.__context__
    return False


ErrorDescriber = Callable[[BaseException, str], str]


def describe_failure(exc: BaseException, api_key: str = "", describe: ErrorDescriber | None = None) -> str:
    """A short sentence for a failed turn in which ``api_key`` never appears, even when the server
    echoed it back (nor a bearer token or anything shaped like a key). ``describe(exc, api_key)`` is the front end's wording (the app passes the agent
    package's LLM error descriptions); without it, the error's type and message."""
    if describe is not None:
        try:
            return scrub(describe(exc, api_key), [api_key])
        except Exception:
            log.exception("describing a writer failure failed")
    return scrub(f"{type(exc).__name__}: {str(exc)[:300]}", [api_key])
