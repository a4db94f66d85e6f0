"""VectorStatus: how far the embeddings model's vectors are (published by ``vector_sync.VectorSync``
on the services' feed). Its own module so the UI can follow it without importing numpy."""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

__all__ = ["ErrorFacts", "VectorStatus", "error_facts"]


@dataclass(frozen=True)
class VectorStatus:
    """How far the vectors are. ``state``: starting | running | waiting (rate-limited or the server
    is away: ``retry_in`` seconds; or the query's vector failed and recall uses words only for that
    long) | idle (all done) | consent (the store's vectors are another model's: ``total`` memories
    would be embedded again, ~``tokens`` estimated tokens; nothing is sent and recall uses words only
    until the person agrees) | error (``error`` says why; it waits for new settings or a retry) |
    stopped. ``done`` counts the memories whose vector the search sees. ``previous``: the model
    whose vectors the store has (consent). ``skipped``: memories the model refused even with their
    text clipped (too long for it): they have no vector until their text changes. ``query_failed``:
    the waiting (or the error over a running build) is recall's: the query's vector failed (the
    service is away), and recall goes by the words until it is tried again. ``asked`` (consent): which
    question this is (a number of its own each time a sync asks): the answer agrees to it only."""

    state: str
    done: int = 0
    total: int = 0
    error: str = ""
    retry_in: float | None = None
    model: str = ""
    previous: str = ""
    tokens: int = 0
    skipped: int = 0
    query_failed: bool = False
    asked: int = 0
    words: tuple[str, str] | None = None  # (Chinese, English) of ``error`` when its maker said it so

    @property
    def complete(self) -> bool:
        return self.total > 0 and self.done + self.skipped >= self.total

    @property
    def builtin_query(self) -> bool:
        """Whether the failure is the built-in model's (it runs in this process: there is no service to reach)."""
        return error_facts(self.error).kind in ("builtin", "builtin_busy")

    @property
    def zh(self) -> str:
        count = f"向量 {self.done:,}/{self.total:,}" + (f"（{self.skipped:,} 条模型不收，跳过）" if self.skipped else "")
        if self.state == "consent":
            return f"向量模型换成了 {self.model}：{self.total:,} 条记忆要重新计算向量，等你同意"
        if self.query_failed and self.builtin_query:
            return f"{count}：内置向量模型正忙，回忆暂时只按字面找（{self.error}）"
        if self.query_failed:
            return f"{count}：向量服务连不上，回忆暂时只按字面找（{self.error}）"
        if self.state == "error":
            return f"{count}：出错了（{self.error}）"
        if self.state == "waiting":
            wait = f"{self.retry_in:.0f} 秒后重试" if self.retry_in else "稍后重试"
            return f"{count}：{wait}" + (f"（{self.error}）" if self.error else "")
        return count

    @property
    def en(self) -> str:
        count = f"Vectors {self.done:,}/{self.total:,}" + (f" ({self.skipped:,} refused by the model, skipped)"
                                                             if self.skipped else "")
        if self.state == "consent":
            return f"The embeddings model is now {self.model}: {self.total:,} memories need new vectors, waiting for you"
        if self.query_failed and self.builtin_query:
            return f"{count}: the built-in embeddings model is busy; recall goes by the words for now ({self.error})"
        if self.query_failed:
            return f"{count}: the embeddings service cannot be reached; recall goes by the words for now ({self.error})"
        if self.state == "error":
            return f"{count}: failed ({self.error})"
        if self.state == "waiting":
            wait = f"retrying in {self.retry_in:.0f} s" if self.retry_in else "retrying later"
            return f"{count}: {wait}" + (f" ({self.error})" if self.error else "")
        return count


@dataclass(frozen=True)
class ErrorFacts:
    """What a vectors error (``VectorStatus.error``, the embeddings client's or the sync's English
    sentence) is, for words in the window's language: ``kind`` "http" (``code``), "unreachable" or
    "timeout" (``host``: host and port, no address's user or path; ``seconds``), "builtin_busy" (the built-in
    model, in this process, did not answer a query by its deadline: ``seconds``), "builtin" (another failure of
    the built-in model), "unstable" (the model
    answers a text differently each time), "answer" (not an embeddings model's answer), "" (another:
    its sentence is in the log)."""

    kind: str
    code: int | None = None
    host: str = ""
    seconds: float | None = None


_HTTP = re.compile(r"^HTTP (\d{3})\b")
_UNREACHABLE = re.compile(r"^cannot reach (\S+): ")
_TIMEOUT = re.compile(r"^no answer from (\S+) within ([\d.]+) s")
_BUILTIN_LATE = re.compile(r"^the built-in embeddings model did not answer within ([\d.]+) s")
_ANSWER = re.compile(r"^(the answer |asked for \d+ vectors|the model answered vectors)")


def _host(url: str) -> str:
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = None
    host = parts.hostname or ""
    return f"{host}:{port}" if host and port else host


def error_facts(error: str) -> ErrorFacts:
    """See :class:`ErrorFacts` (the sentences are ``embeddings.py``'s and ``vector_sync.py``'s)."""
    text = (error or "").strip()
    if found := _HTTP.match(text):
        return ErrorFacts("http", int(found.group(1)))
    if found := _UNREACHABLE.match(text):
        return ErrorFacts("unreachable", host=_host(found.group(1)))
    if found := _TIMEOUT.match(text):
        return ErrorFacts("timeout", host=_host(found.group(1)), seconds=float(found.group(2)))
    if text.startswith("the model answers the same text differently"):
        return ErrorFacts("unstable")
    if _ANSWER.match(text):
        return ErrorFacts("answer")
    if found := _BUILTIN_LATE.match(text):  # (the model runs in this process: busy, not away)
        return ErrorFacts("builtin_busy", seconds=float(found.group(1)))
    if text.startswith(("the built-in embeddings model", "the built-in model")):
        return ErrorFacts("builtin")
    return ErrorFacts("")
