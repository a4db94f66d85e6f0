"""The writer's observable state as one value, with a sentence for people in zh and en, and the
wording of a failure (the front end may supply its own describer)."""

from __future__ import annotations

import errno
import logging
from dataclasses import dataclass
from typing import Callable, NamedTuple

from ..errors import StoreOffline, StoreReadOnly, StoreWriteFailed, causes, describe_os_error, scrub
from .limits import TurnProblem

log = logging.getLogger(__name__)


class Bilingual(NamedTuple):
    """A reason for people in both languages, kept so: a view picks one when it shows it, so a view
    made after a language switch says it in the new language (not in that of the moment it failed)."""

    zh: str
    en: str

    def said_in(self, language: str) -> str:
        return self.en if language == "en" else self.zh


@dataclass(frozen=True)
class WriterStatus:
    """A snapshot for status bars. ``configured`` is False only once the writer knows no model is set."""

    pending: int
    busy: bool
    paused: bool
    configured: bool
    failed: int
    last_error: str | None  # why the last attempt failed, in the language asked (``make_status``)
    zh: str
    en: str
    #: When the next automatic retry of a failing turn happens (ISO time), ``None`` when none is due.
    retry_at: str | None = None
    #: ``MemoryWriter.retry_failed()`` has something to do: failed or held turns, or one waiting to retry.
    can_retry: bool = False
    #: Of the failed turns, how many were held (too many changes or tool calls), not failed.
    held: int = 0


def make_status(*, pending: int, busy: bool, paused: bool, configured: bool, failed: int,
                error: Bilingual | None, activity: tuple[str, str] | None = None, retry_at: str | None = None,
                held: int = 0, catching_up: str | None = None, note: Bilingual | None = None,
                language: str = "zh_CN") -> WriterStatus:
    """Pick the one sentence that matters most right now. ``error``: why the last attempt failed (each
    sentence says it in its own language; ``last_error``: in ``language``). ``activity``: (zh, en) of
    background work besides turns (the memory hygiene pass), shown when nothing more pressing is.
    ``retry_at``: when a failing turn is tried again (said in the sentence, so "retrying" never hides
    the reason). ``catching_up``: the time (ISO) the next turn of a backlog starts (written at a
    bounded rate). ``note``: something true that is no failure (another window writes the older turns),
    said after "up to date"."""
    n = pending
    last_error = error.said_in(language) if error else None
    why_zh, why_en = error if error else ("", "")
    can_retry = bool(failed or retry_at)
    at = (retry_at or "")[11:19]
    if not configured:
        zh, en = "未配置模型，记忆写入暂停", "No model configured: memory writing is paused"
        if n:
            zh, en = f"{zh}（{n} 轮待写入）", f"{en} ({n} turns waiting)"
    elif paused:
        zh, en = f"记忆写入已暂停（{n} 轮待写入）", f"Memory writing paused ({n} turns waiting)"
    elif last_error and n and retry_at and not busy:
        zh = f"记忆写入出错：{why_zh}。将于 {at} 自动重试（{n} 轮待写入）"
        en = f"Memory writing failed: {why_en}. Retrying at {at} ({n} turns waiting)"
    elif last_error and n and not busy:
        zh, en = f"记忆写入出错：{why_zh}（{n} 轮待写入）", f"Memory writing failed: {why_en} ({n} turns waiting)"
    elif catching_up and n and not busy:
        next_at = catching_up[11:19]
        zh = f"正在补写积压的对话：{n} 轮待写入，为免短时间内大量调用模型而放慢了速度，下一轮于 {next_at} 开始"
        en = f"Catching up on a backlog: {n} turns waiting, written slowly so the model is not flooded; next at {next_at}"
    elif busy or n:
        zh, en = f"正在写入记忆…（{n} 轮待写入）", f"Writing memories… ({n} turns waiting)"
    elif held and held == failed and last_error:  # the reason: too many memories, or a model in a loop
        zh = f"有 {held} 轮对话已暂缓、未做任何改动：{why_zh}"
        en = f"{held} turns were held, nothing changed: {why_en}"
    elif held and held == failed:
        zh = f"有 {held} 轮对话要改动的记忆太多，已暂缓、未做任何改动；确认后可重试"
        en = f"{held} turns would change too many memories: held, nothing changed; retry to apply them"
    elif failed:
        zh, en = f"有 {failed} 轮对话未能写入记忆，可重试", f"{failed} turns could not be written to memory (retry possible)"
        if last_error:
            zh, en = f"{zh}：{why_zh}", f"{en}: {why_en}"
    elif activity:
        zh, en = activity
    else:
        zh, en = "记忆已是最新", "Memories are up to date"
        if note:
            zh, en = f"{zh}。{note.zh}", f"{en}. {note.en[:1].upper()}{note.en[1:]}"
    return WriterStatus(n, busy, paused, configured, failed, last_error, zh, en, retry_at, can_retry, held)


_STORAGE_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO, errno.EFBIG}
_STORAGE_WORDS = ("disk is full", "database or disk is full", "no space left", "readonly database", "disk i/o error")


def storage_failure(exc: BaseException) -> bool:
    """Whether a failure is the disk's (full, read-only, I/O error) or the memory server's (away),
    not the model's: such a turn is kept and retried until the store works again, never given up on."""
    for current in causes(exc):
        if isinstance(current, (StoreWriteFailed, StoreReadOnly, StoreOffline)):
            return True
        if isinstance(current, OSError) and getattr(current, "errno", None) in _STORAGE_ERRNOS:
            return True
        if any(word in str(current).lower() for word in _STORAGE_WORDS):
            return True
    return False


def server_away(exc: BaseException) -> bool:
    """Whether a failure is the memory server being unreachable (it comes back by itself)."""
    return any(isinstance(current, StoreOffline) for current in causes(exc))


ErrorDescriber = Callable[[BaseException, str, str], str]  # (exc, api_key, language)


_STORE_ZH = {
    "the disk is full": "磁盘已满",
    "the file is larger than the system allows (file size limit)": "文件超过了系统允许的大小",
    "the disk or folder is read-only": "磁盘或文件夹是只读的",
    "permission denied": "没有写入权限",
}


def describe_store_failure(exc: BaseException, language: str = "zh_CN") -> str | None:
    """The true reason of a failure of the memory store or the disk, in Chinese with the English
    detail (``language`` ``"en"``: in English; never "the model returned something unintelligible");
    ``None`` for other failures."""
    en = language == "en"
    for current in causes(exc):
        if isinstance(current, StoreOffline):
            return f"the memory server {current.where} cannot be reached ({current.detail})" if en else current.zh
        if isinstance(current, StoreReadOnly):
            return f"{current}" if en else f"记忆库是只读的，无法写入（{current}）"
        if isinstance(current, StoreWriteFailed):
            return (f"the memories could not be saved: {current.detail}" if en
                    else f"记忆无法保存：{_STORE_ZH.get(current.detail, current.detail)}（{current.detail}）")
        if isinstance(current, OSError) and storage_failure(current):
            detail = describe_os_error(current)
            return f"could not write to the disk: {detail}" if en else f"无法写入磁盘：{_STORE_ZH.get(detail, detail)}（{detail}）"
    return None


def describe_failure(exc: BaseException, api_key: str = "", describe: ErrorDescriber | None = None,
                     language: str = "zh_CN") -> str:
    """A short sentence for a failed turn in which ``api_key`` never appears, even when the server
    echoed it back (nor a bearer token or anything shaped like a key). A failure of the store or the
    disk is said as such (``describe_store_failure``); otherwise ``describe(exc, api_key, language)`` is the
    front end's wording (the app passes the agent package's LLM error descriptions); without it, the
    error's type and message. ``language``: the UI's (``"en"``: the store's and the writer's own reasons
    in English, as ``describe`` says the model's)."""
    store = describe_store_failure(exc, language)
    if store is not None:
        return scrub(store, [api_key])
    if isinstance(exc, TurnProblem):  # the writer's own reason (a held turn, calls written as text)
        return scrub(exc.en if language == "en" else exc.detail, [api_key])
    if describe is not None:
        try:
            return scrub(describe(exc, api_key, language), [api_key])
        except Exception:
            log.exception("describing a writer failure failed")
    return scrub(f"{type(exc).__name__}: {str(exc)[:300]}", [api_key])
