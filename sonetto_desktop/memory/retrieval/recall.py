"""MemoryRecall: the one entry point for "which memories matter for this message?".

It picks the strategy (LLM, MECHANICAL or HYBRID) and decides what the model reads: LLM and HYBRID
recall fill a token budget (``budget.py``: a setting, by default by provider, and a small bank read
whole) with as many memories as fit, in compact form (``llm_prompt.py``). Below the budget every memory is shown, in the order
of ``listing.py``, which keeps the request's beginning the same from one message to the next so a
provider's prompt cache serves it. Above it, the budget is shared: ``stable_share`` of it for the
newest memories (the stable block, whose first line moves only in steps), the rest for the query's
shortlist of the other memories, ranked by the offline retriever fused with the embeddings model's
ranking when one is configured (``shortlist.py``). With a cloud endpoint the person's part is a
conversation block instead (``conversation.py``): the stable block frozen while the conversation
lasts, then one block that only grows at its end (what was written since, then each message's new
shortlist), so consecutive requests share most of their beginning. LLM mode over a bank larger than the budget runs
as HYBRID (``last_mode`` says so). The two modes differ only there: HYBRID is the name of "the
budget holds a shortlist".

Other apps' memories (written through MCP: ``changes.by_other_app``) get at most ``app_share`` of
the budget when not every memory fits in it, the person's own the rest and first: one app adding 2,000 long memories took the whole
request before (none of the person's 20 memories was in it). Each part is filled as above (all of it,
or its stable window and its shortlist), the person's listed before the apps' (``llm_prompt``), so
an app's writes never move the person's part of the request. Both parts draw on one ``Shortlist``: the
query's vector is asked for once per recall (one request, one deadline), each part takes its own
memories from the one ranking.

It never lets an LLM failure turn into "no memories": it owns the one recall timeout (the LLM call's
deadline) and, when the model is slow, fails or is missing, answers with the offline retriever's
result instead, logging why (``last_fallback_reason``). An automatic budget follows the model: a
request refused as too long for the context or a timeout halves it, quick answers to a full listing
grow it (``BudgetPolicy.observe``); a local Ollama server is asked for the context the budget needs
(``BudgetPolicy.num_ctx``, sent through its native API: ``ollama_chat.py``). Results carry each memory's date:
``[{id, description, theme, date}]``.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Callable

from ..stores.base import BaseMemoryManager
from .agreement import ModelAgreement
from .budget import BudgetPolicy, says_too_long
from .conversation import ConversationBlock
from .follow import CatchUp
from .listing import HEADING_TOKENS, ID, TOKENS, ListingEntry, ListingSnapshot, RecallListing, entry_record
from .llm_prompt import MAX_QUERY_CHARS, said_parts
from .llm_retriever import LLMRetriever, RecallFailed
from .modes import RetrievalMode
from .shortlist import DenseRanker, Shortlist
from ...aio import run_blocking

if TYPE_CHECKING:  # built by another module; imported lazily at first use
    from langchain_core.language_models import BaseChatModel

    from .mechanical import MechanicalRetriever

__all__ = ["APP_SHARE", "ListingStats", "MemoryRecall", "STABLE_SHARE"]

log = logging.getLogger(__name__)

#: Above the budget, the stable block of the newest memories gets this share of it; the query's
#: shortlist gets the rest (and whatever the block leaves unused). bench/recall_reach.py measured
#: 0, 0.25, 0.5 and 0.75 at 10,000 memories: reach falls as the share grows (the shortlist finds what
#: recency does not), the cacheable prefix grows with it; 0.25 loses nothing against 0 at 48,000 tokens.
STABLE_SHARE = 0.25
#: Other apps' memories take at most this share of the budget; the person's own get the rest (and
#: all of it when apps wrote nothing, or when every memory fits). At the cloud default (48,000) that is
#: ~9,600 tokens, ~270 one-line memories.
APP_SHARE = 0.2
#: The conversation's lines before the message, as far as recall reads them (their end; the message and
#: they together stay within the query's ``MAX_QUERY_CHARS``).
MAX_CONTEXT_CHARS = 600


@dataclass(frozen=True)
class ListingStats:
    """What the last LLM / HYBRID recall showed the model (for the status, benchmarks and tests)."""

    memories: int  # in the bank
    shown: int  # numbered in the request
    stable: int  # of those, in the stable listing (the cacheable prefix)
    budget: int  # listing tokens allowed
    tokens: int  # listing tokens used (estimated)
    stable_tokens: int
    dense: bool = False  # the shortlist used the embeddings model's ranking
    apps: int = 0  # of ``shown``, other apps' memories
    apps_tokens: int = 0  # their listing tokens (at most ``app_share`` of the budget)


@dataclass
class _Plan:
    """What a recall call will do, decided without touching the LLM (may block: store, jieba)."""

    mode: RetrievalMode
    result: list[dict[str, str]] | None = None  # final answer already known
    records: list[dict[str, Any]] = field(default_factory=list)  # the listing the LLM will number
    extra: list[dict[str, Any]] = field(default_factory=list)  # the query's shortlist after it
    apps: list[dict[str, Any]] = field(default_factory=list)  # other apps' listing
    apps_extra: list[dict[str, Any]] = field(default_factory=list)  # other apps' shortlist
    failure: RecallFailed | None = None  # fall back without asking the LLM
    tokens: int = 0
    budget: int = 0
    num_ctx: int | None = None  # the context to ask a local server for (``BudgetPolicy.num_ctx``)


class MemoryRecall:
    """Recall for one memory store.

    ``llm`` may be ``None`` (or set later through the ``llm`` attribute): LLM and HYBRID then
    fall back to the offline result. ``mechanical`` defaults to a ``MechanicalRetriever`` over
    ``mm`` built on first use (and closed by :meth:`close`); pass your own to share or tune it.
    ``budget``: the listing's token budget, a :class:`~.budget.BudgetPolicy` or a number of tokens
    (default: a policy without an endpoint, i.e. the cloud default). ``dense``: the embeddings
    model's ranking (:class:`~.shortlist.DenseRanker`), or None; both may be set later.
    ``app_share``: the most of the budget other apps' memories take. ``agreement``: the embeddings
    models' agreement counts (``agreement.py``; kept in memory when not given).
    """

    def __init__(
        self,
        mm: BaseMemoryManager,
        llm: BaseChatModel | None = None,
        *,
        timeout: float = 8.0,
        budget: BudgetPolicy | int | None = None,
        stable_share: float = STABLE_SHARE,
        app_share: float = APP_SHARE,
        mechanical: "MechanicalRetriever | None" = None,
        dense: DenseRanker | None = None,
        clock: Callable[[], datetime] | None = None,
        agreement: ModelAgreement | None = None,
    ) -> None:
        if not 0.0 <= float(stable_share) <= 1.0:
            raise ValueError(f"stable_share must be between 0 and 1, got {stable_share!r}")
        if not 0.0 <= float(app_share) <= 1.0:
            raise ValueError(f"app_share must be between 0 and 1, got {app_share!r}")
        self._mm = mm
        self._llm_retriever = LLMRetriever(mm, llm, timeout=timeout, clock=clock)
        self.budget = budget  # type: ignore[assignment]  (the setter takes a number too)
        self.stable_share = float(stable_share)
        self.app_share = float(app_share)
        self.dense = dense
        self.agreement = agreement if agreement is not None else ModelAgreement()
        """Whether each embeddings model earns its place in the shortlist (``agreement.py``)."""
        self.conversation = ConversationBlock()
        self.conversation_block: bool | None = None
        """Order the person's part as a conversation block (``conversation.py``): True, False, or None
        for automatic: for a cloud endpoint (its prompt cache), not for a local server or no endpoint."""
        self._mechanical = mechanical
        self._owns_mechanical = mechanical is None
        self._mechanical_lock = threading.Lock()
        self._listing: RecallListing | None = None
        self.last_fallback_reason: str | None = None
        """Why the last LLM / HYBRID recall fell back (``"timeout: ..."``), ``None`` if it did not."""
        self.last_mode: RetrievalMode | None = None
        """The strategy the last call actually used (LLM may have become HYBRID)."""
        self.last_listing: ListingStats | None = None
        """What the last LLM / HYBRID call showed the model."""
        self.fallback_count = 0
        """How many calls fell back to the offline result so far."""
        self.catch_up = CatchUp(mm, self._catch_up)
        """Applies a burst of the store's changes (an import) to the index and listing in the background
        (``follow.py``): the next message's recall does not."""

    # ── configuration ─────────────────────────────────────────────────

    @property
    def llm(self) -> BaseChatModel | None:
        return self._llm_retriever.llm

    @llm.setter
    def llm(self, value: BaseChatModel | None) -> None:
        self._llm_retriever.llm = value

    @property
    def budget(self) -> BudgetPolicy:
        """The listing's token budget (``budget.tokens()`` is the number now)."""
        return self._budget

    @budget.setter
    def budget(self, value: BudgetPolicy | int | None) -> None:
        if value is None:
            value = BudgetPolicy()
        elif not isinstance(value, BudgetPolicy):
            if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
                raise ValueError(f"budget must be a positive number of tokens, got {value!r}")
            value = BudgetPolicy(setting=value)
        self._budget = value

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

    @property
    def listing(self) -> RecallListing:
        """Every memory in the recall prompt's order (built on first use)."""
        with self._mechanical_lock:
            if self._listing is None:
                self._listing = RecallListing(self._mm)
            return self._listing

    def warm_up(self, progress: Callable[[Any], None] | None = None, *, listing: bool | None = None) -> None:
        """Build the offline index (``progress``: its first build's progress, see
        ``MechanicalRetriever.warm_up``) and, with a model, read the listing and start asking a local
        server for its context, now rather than at the first message (blocking). ``listing``: False
        leaves the listing to the first LLM or HYBRID recall (the app's offline mode never reads it:
        ~0.6 KB a memory, 58 MB at 100,000); None reads it when a model is set."""
        self.mechanical.warm_up(progress=progress)
        if self.llm is not None and listing is not False:
            self.listing.warm_up()
            self.budget.tokens()  # a local server's context: asked now (in the background), not at the first message

    def close(self) -> None:
        """Stop following the store; close the offline retriever if this object built it."""
        self.catch_up.close()
        with self._mechanical_lock:
            mechanical, self._mechanical = self._mechanical, None
            listing, self._listing = self._listing, None
        if listing is not None:
            listing.close()
        if mechanical is not None and self._owns_mechanical:
            mechanical.close()
        self.agreement.save()

    def _catch_up(self) -> None:
        """What changed, into what is built already (the offline index, the listing): ``self.catch_up``."""
        with self._mechanical_lock:
            mechanical, listing = self._mechanical, self._listing
        if mechanical is not None:
            mechanical.catch_up()
        if listing is not None:
            listing.catch_up()

    # ── recall ────────────────────────────────────────────────────────

    def retrieve(self, prompt: str, mode: RetrievalMode | str = RetrievalMode.LLM,
                 context: str = "") -> list[dict[str, str]]:
        """Memories relevant to ``prompt``, most relevant first: ``[{id, description, theme, date}]``.
        ``context``: the conversation's lines before it (the shortlist's vectors read them too, and
        the recall model is shown them to read a follow-up by).

        Blocks (store read, offline index, up to ``timeout`` s of LLM): call it off the UI thread,
        or use :meth:`aretrieve`.
        """
        plan = self._plan(prompt, mode, context)
        if plan.result is not None:
            return plan.result
        failure = plan.failure
        if failure is None:
            started = time.monotonic()
            try:
                answer = self._llm_retriever.retrieve(prompt, plan.records, plan.extra, apps=plan.apps,
                                                      apps_extra=plan.apps_extra, num_ctx=plan.num_ctx,
                                                      context=_context(prompt, context))
            except RecallFailed as exc:
                failure = exc
            else:
                self.budget.loaded(self._llm_retriever.last_load_seconds if plan.num_ctx else None)
                self.budget.observe(time.monotonic() - started, self.timeout, plan.tokens, plan.budget)
                return answer
        result = self._mechanical_result(prompt, context)
        self._report_fallback(failure, plan, result)
        return result

    async def aretrieve(
        self, prompt: str, mode: RetrievalMode | str = RetrievalMode.LLM, context: str = ""
    ) -> list[dict[str, str]]:
        """Async :meth:`retrieve`: offline work runs in a thread, the LLM call never blocks the loop."""
        plan = await run_blocking(self._plan, prompt, mode, context)
        if plan.result is not None:
            return plan.result
        failure = plan.failure
        if failure is None:
            started = time.monotonic()
            try:
                answer = await self._llm_retriever.aretrieve(prompt, plan.records, plan.extra, apps=plan.apps,
                                                             apps_extra=plan.apps_extra, num_ctx=plan.num_ctx,
                                                             context=_context(prompt, context))
            except RecallFailed as exc:
                failure = exc
            else:
                self.budget.loaded(self._llm_retriever.last_load_seconds if plan.num_ctx else None)
                self.budget.observe(time.monotonic() - started, self.timeout, plan.tokens, plan.budget)
                return answer
        result = await run_blocking(self._mechanical_result, prompt, context)
        self._report_fallback(failure, plan, result)
        return result

    # ── steps ─────────────────────────────────────────────────────────

    def _plan(self, prompt: Any, mode: RetrievalMode | str, context: str = "") -> _Plan:
        mode = RetrievalMode.coerce(mode)
        if prompt is not None and not isinstance(prompt, str):
            raise TypeError(f"prompt must be a string, got {type(prompt).__name__}")
        if not prompt or not prompt.strip():
            return _Plan(mode, result=[])
        try:  # another process's write just before (the watcher looks every 0.5 s): taken in first
            self._mm.catch_up()
        except Exception as exc:  # noqa: BLE001 - a store that cannot be read now: the query says so below
            log.warning("memory recall: could not look for other processes' writes: %s", exc)
        if mode is RetrievalMode.MECHANICAL:
            self.last_mode, self.last_fallback_reason = mode, None
            return _Plan(mode, result=self._mechanical_result(prompt, context))
        if self.llm is None:
            self.last_mode, self.last_fallback_reason = mode, None
            if self._mm.count() == 0:
                return _Plan(mode, result=[])
            return _Plan(mode, failure=RecallFailed("no chat model is configured", kind="no_llm"))
        listing = self.listing
        own, apps = listing.parts()
        if not own.order and not apps.order:
            self.last_mode, self.last_fallback_reason = mode, None
            return _Plan(mode, result=[])
        whole = own.tokens + apps.tokens
        self.budget.bank(whole)  # its context is said only when it cuts what this bank would give
        self.budget.settle()  # a local server's context: its answer waited for briefly (the first recall)
        budget = self.budget.tokens()  # a bank that fits is read whole
        # everything fits: nothing to share out; else other apps take at most their share
        cap = (apps.tokens if whole <= budget else int(budget * self.app_share)) if apps.order else 0
        theirs = min(apps.tokens, cap)  # the apps' share: bounded, and only what they need
        shortlist = Shortlist(self.mechanical, self.dense, self.agreement, _context(prompt, context))
        # The person's window is sized on what apps may take, not on what they take now: an app's
        # writes never move its cutoff (the cacheable beginning of the request).
        mine_window = int((budget - cap) * self.stable_share)
        if self._in_blocks() and own.tokens > budget - theirs:
            mine_stable, mine_extra, mine_used = self.conversation.plan(_bounded(prompt), listing, own,
                                                                        budget - theirs, mine_window, shortlist)
        else:
            mine_stable, mine_extra, mine_used = self._fill(prompt, listing, own, budget - theirs, shortlist,
                                                            window=mine_window, apps=False)
        apps_stable, apps_extra, apps_used = self._fill(prompt, listing, apps, theirs, shortlist,
                                                        window=int(theirs * self.stable_share), apps=True)
        if mode is RetrievalMode.LLM and (len(mine_stable) < len(own.order) or len(apps_stable) < len(apps.order)):
            log.debug("%d memories (%d tokens) > the budget of %d: LLM recall runs as HYBRID",
                      len(own.order) + len(apps.order), own.tokens + apps.tokens, budget)
            mode = RetrievalMode.HYBRID
        self.last_mode, self.last_fallback_reason = mode, None
        used = mine_used + apps_used
        stable = len(mine_stable) + len(apps_stable)
        shown = [*mine_stable, *apps_stable, *mine_extra, *apps_extra]
        self.last_listing = ListingStats(len(own.order) + len(apps.order), len(shown), stable, budget, used,
                                         _tokens(mine_stable) + _tokens(apps_stable), shortlist.used_dense,
                                         len(apps_stable) + len(apps_extra), apps_used)
        hits = iter(listing.hits([e[ID] for e in shown]))
        records, apps_records, more, apps_more = ([entry_record(e, next(hits)) for e in part]
                                                  for part in (mine_stable, apps_stable, mine_extra, apps_extra))
        return _Plan(mode, records=records, extra=more, apps=apps_records, apps_extra=apps_more, tokens=used,
                     budget=budget, num_ctx=self.budget.num_ctx())

    def _in_blocks(self) -> bool:
        if self.conversation_block is not None:
            return self.conversation_block
        return bool(self.budget.base_url) and not self.budget.local

    def _fill(self, prompt: str, listing: RecallListing, part: ListingSnapshot, budget: int, shortlist: Shortlist,
              *, window: int, apps: bool) -> tuple[list[ListingEntry], list[ListingEntry], int]:
        """(the stable block, the query's shortlist, their tokens) of one part of the listing within
        ``budget``: every memory when they fit, else the newest within ``window`` tokens from its
        window's cutoff and the best-ranked of the others."""
        if part.tokens <= budget:
            return part.order, [], part.tokens
        block, _, used = listing.window(window, apps=apps)
        extra = shortlist.fill(_bounded(prompt), part, {e[ID] for e in block}, budget - used)
        return block, extra, used + sum(e[TOKENS] + HEADING_TOKENS for e in extra)

    def _mechanical_result(self, prompt: str, context: str = "") -> list[dict[str, str]]:
        if self._mechanical is None and self._mm.count() == 0:
            return []  # an empty store: nothing to find, and no tokenizer or lexicon to load for it
        return [public(r) for r in self.mechanical.retrieve(_bounded(prompt), context=_context(prompt, context))]

    def _report_fallback(self, failure: RecallFailed, plan: _Plan, result: list[dict[str, str]]) -> None:
        self.last_fallback_reason = failure.reason
        self.fallback_count += 1
        if failure.kind == "http_error" and plan.tokens and says_too_long(failure.status, failure.reason):
            self.budget.too_long(plan.tokens)
        elif failure.kind == "timeout" and plan.tokens:
            self.budget.timed_out()
        log.warning(
            "memory recall (%s) fell back to the offline retriever (%d memories): %s",
            plan.mode.value,
            len(result),
            failure.reason,
        )


def _tokens(entries: list[ListingEntry]) -> int:
    return sum(e[TOKENS] for e in entries)


def public(record: dict) -> dict[str, str]:
    """A recalled memory as the graph and the UI take it: id, text, theme and date (YYYY-MM-DD)."""
    date = record.get("date") or str(record.get("latest_update_time") or "")[:10]
    return {"id": record["id"], "description": record["description"], "theme": record["theme"], "date": date}


def _context(prompt: str, context: str) -> str:
    """The conversation's lines before ``prompt``, at most ``MAX_CONTEXT_CHARS`` (:func:`_shared`); none for a
    message that nearly fills the query's room itself (it carries its own context, and the request's
    reserve holds the query's room once: ``budget.REQUEST_RESERVE``)."""
    room = MAX_QUERY_CHARS - len((prompt or "").strip())
    return _shared(context, min(MAX_CONTEXT_CHARS, room)) if room >= MAX_CONTEXT_CHARS // 4 else ""


def _shared(context: str, limit: int) -> str:
    """The lines of ``context`` within ``limit`` characters, each its share: a line longer than its share
    is cut to its end (the shortest lines are kept whole first), so a long reply does not push out the
    person's line before it."""
    lines = [line.strip() for line in (context or "").splitlines() if line.strip()]
    if len("\n".join(lines)) <= limit:
        return "\n".join(lines)
    left = limit - (len(lines) - 1)  # (the line breaks)
    kept: dict[int, str] = {}
    for i in sorted(range(len(lines)), key=lambda i: len(lines[i])):
        share = max(0, left // (len(lines) - len(kept)))
        who, text = said_parts(lines[i])  # who said it stays in front of what is kept
        keep = min(max(share - len(who), 0), len(text))
        kept[i] = who + text[len(text) - keep:] if keep else ""
        left -= len(kept[i])
    return "\n".join(kept[i] for i in range(len(lines)) if kept[i])


def _bounded(prompt: str, limit: int = MAX_QUERY_CHARS) -> str:
    """The offline retriever gets the same bounded query as the LLM (the newest words)."""
    prompt = (prompt or "").strip()
    return prompt if len(prompt) <= limit else prompt[-limit:]
