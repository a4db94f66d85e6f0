"""The writer's observable state as one value, with a sentence for people in zh and en, and the
wording of a failure (the front end may supply its own describer)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Callable

from ..errors import scrub

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


def make_status(*, pending: int, busy: bool, paused: bool, configured: bool, failed: int,
                last_error: str | None, activity: tuple[str, str] | None = None) -> WriterStatus:
    """Pick the one sentence that matters most right now. ``activity``: (zh, en) of background work
    besides turns (the memory hygiene pass), shown when nothing more pressing is."""
    n = pending
    if not configured:
        zh, en = "未配置模型，记忆写入暂停", "No model configured: memory writing is paused"
        if n:
            zh, en = f"{zh}（{n} 轮待写入）", f"{en} ({n} turns waiting)"
    elif paused:
        zh, en = f"记忆写入已暂停（{n} 轮待写入）", f"Memory writing paused ({n} turns waiting)"
    elif last_error and n:
        zh = f"记忆写入出错，稍后重试（{n} 轮待写入）：{last_error}"
        en = f"Memory writing failed, will retry ({n} turns waiting): {last_error}"
    elif busy or n:
        zh, en = f"正在写入记忆…（{n} 轮待写入）", f"Writing memories… ({n} turns waiting)"
    elif failed:
        zh, en = f"有 {failed} 轮对话未能写入记忆，可重试", f"{failed} turns could not be written to memory (retry possible)"
    elif activity:
        zh, en = activity
    else:
        zh, en = "记忆已是最新", "Memories are up to date"
    return WriterStatus(n, busy, paused, configured, failed, last_error, zh, en)


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
