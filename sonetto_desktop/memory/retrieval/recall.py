"""MemoryRecall: the one entry point for "which memories matter for this message?".

It picks the strategy (LLM, MECHANICAL or HYBRID), keeps the LLM prompt bounded as the bank
grows (LLM mode becomes HYBRID past ``auto_hybrid_over`` memories) and never lets an LLM failure
turn into "no memories": it owns the one recall timeout (the LLM call's deadline) and, when the
model is slow, fails or is missing, answers with the offline retriever's result instead, logging
why (``last_fallback_reason``). Results carry each memory's date: ``[{id, description, theme, date}]``.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Callable

from ..stores.base import BaseMemoryManager
from .llm_prompt import MAX_QUERY_CHARS
from .llm_retriever import LLMRetriever, RecallFailed
from .modes import RetrievalMode

if TYPE_CHECKING:  # built by another module; imported lazily at first use
    from langchain_core.language_models import BaseChatModel

    from .mechanical import MechanicalRetriever

__all__ = ["MemoryRecall"]

log = logging.getLogger(__name__)


@dataclass
class _Plan:
    """What a recall call will do, decided without touching the LLM (may block: store, jieba)."""

    mode: RetrievalMode
    result: list[dict[str, str]] | None = None  # final answer already known
    records: list[dict[str, Any]] = field(default_factory=list)  # what the LLM will number
    failure: RecallFailed | None = None  # fall back without asking the LLM


class MemoryRecall:
    """Recall for one memory store.

    ``llm`` may be ``None`` (or set later through the ``llm`` attribute): LLM and HYBRID then
    fall back to the offline result. ``mechanical`` defaults to a ``MechanicalRetriever`` over
    ``mm`` built on first use (and closed by :meth:`close`); pass your own to share or tune it.
    """

    def __init__(
        self,
        mm: BaseMemoryManager,
        llm: BaseChatModel | None = None,
        *,
        timeout: float = 8.0,
        hybrid_k: int = 60,
        auto_hybrid_over: int = 200,
        mechanical: "MechanicalRetriever | None" = None,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        if int(hybrid_k) < 1:
            raise ValueError(f"hybrid_k must be >= 1, got {hybrid_k!r}")
        if int(auto_hybrid_over) < 0:
            raise ValueError(f"auto_hybrid_over must be >= 0, got {auto_hybrid_over!r}")
        self._mm = mm
        self._llm_retriever = LLMRetriever(mm, llm, timeout=timeout, clock=clock)
        self.hybrid_k = int(hybrid_k)
        self.auto_hybrid_over = int(auto_hybrid_over)
        self._mechanical = mechanical
        self._owns_mechanical = mechanical is None
        self._mechanical_lock = threading.Lock()
        self.last_fallback_reason: str | None = None
        """Why the last LLM / HYBRID recall fell back (``"timeout: ..."``), ``None`` if it did not."""
        self.last_mode: RetrievalMode | None = None
        """The strategy the last call actually used (LLM may have become HYBRID)."""
        self.fallback_count = 0
        """How many calls fell back to the offline result so far."""

    # ── configuration ─────────────────────────────────────────────────

    @property
    def llm(self) -> BaseChatModel | None:
        return self._llm_retriever.llm

    @llm.setter
    def llm(self, value: BaseChatModel | None) -> None:
        self._llm_retriever.llm = value

    @property
    def timeout(self) -> float:
        """Seconds the LLM may take before the offline result is used instead."""
        return self._llm_retriever.timeout

    @timeout.setter
    def timeout(self, value: float) -> None:
        if not value or value <= 0:
            raise ValueError(f"timeout must be > 0 seconds, got {value!r}")
        self._llm_retriever.timeout = float(value)

    @property
    def mechanical(self) -> "MechanicalRetriever":
        """The offline retriever (built on first use: its first index build may take a while)."""
        with self._mechanical_lock:
            if self._mechanical is None:
                from .mechanical import MechanicalRetriever

                self._mechanical = MechanicalRetriever(self._mm)
            return self._mechanical

    def close(self) -> None:
        """Close the offline retriever if this object built it."""
        with self._mechanical_lock:
            mechanical, self._mechanical = self._mechanical, None
        if mechanical is not None and self._owns_mechanical:
            mechanical.close()

    # ── recall ────────────────────────────────────────────────────────

    def retrieve(self, prompt: str, mode: RetrievalMode | str = RetrievalMode.LLM) -> list[dict[str, str]]:
        """Memories relevant to ``prompt``, most relevant first: ``[{id, description, theme, date}]``.

        Blocks (store read, offline index, up to ``timeout`` s of LLM): call it off the UI thread,
        or use :meth:`aretrieve`.
        """
        plan = self._plan(prompt, mode)
        if plan.result is not None:
            return plan.result
        failure = plan.failure
        if failure is None:
            try:
                return self._llm_retriever.retrieve(prompt, plan.records)
            except RecallFailed as exc:
                failure = exc
        result = self._mechanical_result(prompt)
        self._report_fallback(failure, plan.mode, result)
        return result

    async def aretrieve(
        self, prompt: str, mode: RetrievalMode | str = RetrievalMode.LLM
    ) -> list[dict[str, str]]:
        """Async :meth:`retrieve`: offline work runs in a thread, the LLM call never blocks the loop."""
        plan = await asyncio.to_thread(self._plan, prompt, mode)
        if plan.result is not None:
            return plan.result
        failure = plan.failure
        if failure is None:
            try:
                return await self._llm_retriever.aretrieve(prompt, plan.records)
            except RecallFailed as exc:
                failure = exc
        result = await asyncio.to_thread(self._mechanical_result, prompt)
        self._report_fallback(failure, plan.mode, result)
        return result

    # ── steps ─────────────────────────────────────────────────────────

    def _plan(self, prompt: Any, mode: RetrievalMode | str) -> _Plan:
        mode = RetrievalMode.coerce(mode)
        if prompt is not None and not isinstance(prompt, str):
            raise TypeError(f"prompt must be a string, got {type(prompt).__name__}")
        if not prompt or not prompt.strip():
            return _Plan(mode, result=[])
        if mode is RetrievalMode.MECHANICAL:
            self.last_mode, self.last_fallback_reason = mode, None
            return _Plan(mode, result=self._mechanical_result(prompt))
        count = self._mm.count()  # cheap: the whole bank is read only when it is all numbered
        if count == 0:
            return _Plan(mode, result=[])
        if mode is RetrievalMode.LLM and count > self.auto_hybrid_over:
            log.debug("%d memories > %d: LLM recall runs as HYBRID", count, self.auto_hybrid_over)
            mode = RetrievalMode.HYBRID
        self.last_mode, self.last_fallback_reason = mode, None
        if self.llm is None:
            return _Plan(mode, failure=RecallFailed("no chat model is configured", kind="no_llm"))
        if mode is RetrievalMode.HYBRID:
            shortlist = self.mechanical.candidates(_bounded(prompt), self.hybrid_k)[: self.hybrid_k]
            records = self._llm_retriever.records({"id": c["id"]} for c in shortlist)
        else:
            records = self._llm_retriever.records()
        if not records:
            return _Plan(mode, result=[])
        return _Plan(mode, records=records)

    def _mechanical_result(self, prompt: str) -> list[dict[str, str]]:
        return [public(r) for r in self.mechanical.retrieve(_bounded(prompt))]

    def _report_fallback(self, failure: RecallFailed, mode: RetrievalMode, result: list[dict[str, str]]) -> None:
        self.last_fallback_reason = failure.reason
        self.fallback_count += 1
        log.warning(
            "memory recall (%s) fell back to the offline retriever (%d memories): %s",
            mode.value,
            len(result),
            failure.reason,
        )


def public(record: dict) -> dict[str, str]:
    """A recalled memory as the graph and the UI take it: id, text, theme and date (YYYY-MM-DD)."""
    date = record.get("date") or str(record.get("latest_update_time") or "")[:10]
    return {"id": record["id"], "description": record["description"], "theme": record["theme"], "date": date}


def _bounded(prompt: str) -> str:
    """The offline retriever gets the same bounded query as the LLM (the newest words)."""
    prompt = prompt.strip()
    return prompt if len(prompt) <= MAX_QUERY_CHARS else prompt[-MAX_QUERY_CHARS:]
