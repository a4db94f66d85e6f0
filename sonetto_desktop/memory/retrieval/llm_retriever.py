"""LLMRetriever: number the memories, let the model pick the relevant ones (湾流 section 4).

Unlike the seed, a failure is never disguised as "nothing relevant": timeouts, HTTP and
connection errors and unparseable answers raise :class:`RecallFailed`, so the caller
(:class:`~.recall.MemoryRecall`) can fall back to the offline retriever and say why.
"""

from __future__ import annotations

import asyncio
import logging
import re
from datetime import datetime
from typing import Any, Callable, Iterable, Mapping

from typing import TYPE_CHECKING

from ..stores.base import BaseMemoryManager
from ..errors import MemoryNotFound, api_key_of, redact
from ..item import parse_time
from ..lazy_model import loaded_class, resolve
from .llm_parse import UnparseableAnswer, parse_indices
from .llm_prompt import FIND_RELATED_MEMORY, build_user_prompt, in_request_order
from .ollama_chat import NativeFailed, achat, chat
from ...aio import run_blocking

if TYPE_CHECKING:  # the LLM stack is imported at the first LLM recall, off the event loop
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import BaseMessage

__all__ = ["LLMRetriever", "RecallFailed", "memory_records"]

log = logging.getLogger(__name__)


def _recall_config() -> Any:
    """The recall call must not show up as chat output: no inherited callbacks (LangGraph's message
    stream listens through them), and the "nostream" tag for good measure."""
    from langchain_core.runnables import RunnableConfig

    return RunnableConfig(callbacks=[], tags=["nostream", "sonetto:recall"], run_name="memory_recall")


def _is_openai_error(exc: BaseException, name: str) -> bool:
    """``exc`` is the OpenAI SDK's ``name`` error (the SDK is not imported for this: a model that
    raised one imported it)."""
    cls = loaded_class("openai", name)
    return cls is not None and isinstance(exc, cls)


class RecallFailed(Exception):
    """The LLM could not give a usable answer; ``kind`` says how, ``reason`` says it in words.

    kinds: ``no_llm``, ``timeout``, ``http_error``, ``connection_error``, ``bad_response`` (the body
    is not a chat completion), ``unparseable`` (no index array in the answer), ``error`` (other).
    """

    def __init__(self, reason: str, *, kind: str = "error", status: int | None = None) -> None:
        super().__init__(f"{kind}: {reason}")
        self.kind = kind
        self.reason = f"{kind}: {reason}"
        self.status = status  # the HTTP status of an ``http_error``


def memory_records(mm: BaseMemoryManager) -> list[dict[str, Any]]:
    """Every memory as ``{id, description, theme, hit, latest_update_time}``, in the listing's order:
    by when its content last changed, oldest first (see ``listing.py``)."""
    records = [card for cards in mm.get_memories_grouped().values() for card in cards]
    records.sort(key=lambda card: (_sort_time(card.get("latest_update_time")), card["id"]))
    return records


def _sort_time(stamp: Any) -> str:
    moment = parse_time(stamp)
    return moment.replace(microsecond=0).isoformat() if moment else ""


def classify_error(exc: BaseException, timeout: float, secret: str = "") -> RecallFailed:
    """Map whatever the chat model raised to a :class:`RecallFailed` (``secret`` never appears in it)."""
    if isinstance(exc, RecallFailed):
        return exc
    if isinstance(exc, NativeFailed):  # Ollama's native API (``ollama_chat.py``): already classified
        return RecallFailed(exc.detail, kind=exc.kind, status=exc.status)
    if isinstance(exc, (TimeoutError, asyncio.TimeoutError)) or _is_openai_error(exc, "APITimeoutError"):
        return RecallFailed(f"no answer within {timeout:g} s", kind="timeout")
    if _is_openai_error(exc, "APIStatusError"):
        message = re.sub(r"^Error code: \d+ - ", "", str(exc.message))
        return RecallFailed(f"HTTP {exc.status_code}: {_short(message, secret)}", kind="http_error",
                            status=exc.status_code)
    if _is_openai_error(exc, "APIConnectionError"):
        return RecallFailed(f"cannot reach the model endpoint ({_short(str(exc), secret)})", kind="connection_error")
    if isinstance(exc, (ValueError, TypeError, KeyError, AttributeError)):
        # e.g. an HTML error page with status 200, or a body that is not a chat completion
        detail = f"{type(exc).__name__}: {_short(str(exc), secret)}"
        return RecallFailed(f"unusable response ({detail})", kind="bad_response")
    return RecallFailed(f"{type(exc).__name__}: {_short(str(exc), secret)}", kind="error")


def _short(text: str, secret: str = "", limit: int = 200) -> str:
    text = " ".join(redact(str(text), secret).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


class LLMRetriever:
    """Ask ``llm`` which of the numbered memories matter for a prompt.

    ``items`` (optional) is the list to number, e.g. the budgeted listing of ``MemoryRecall``; by
    default every memory is numbered. Items without ``hit`` / ``latest_update_time`` are completed
    from the store (ids no longer in it are skipped). ``extra``: a second list numbered on after
    them, under its own heading (the query's shortlist beyond the stable listing); ``apps`` and
    ``apps_extra``: other apps' memories, under theirs (``llm_prompt.in_request_order``).
    ``clock`` gives "now" for the date line (tests fix it).
    """

    def __init__(
        self,
        mm: BaseMemoryManager,
        llm: BaseChatModel | None,
        *,
        timeout: float = 8.0,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        if not timeout or timeout <= 0:
            raise ValueError(f"timeout must be > 0 seconds, got {timeout!r}")
        self._mm = mm
        self.llm = llm
        self.timeout = float(timeout)
        self._clock = clock or datetime.now
        self.last_load_seconds: float | None = None
        """How long the server said it spent loading the model for the last native request (Ollama)."""

    # ── building the request ──────────────────────────────────────────

    def records(self, items: Iterable[Mapping[str, Any]] | None = None) -> list[dict[str, Any]]:
        """The memories to number: all of them, or ``items`` completed with hit and date."""
        if items is None:
            return memory_records(self._mm)
        completed = []
        for record in items:
            if "hit" not in record or "latest_update_time" not in record:
                try:
                    stored = self._mm.get(record.get("id"))
                except MemoryNotFound:
                    continue  # deleted since the shortlist was made
                record = {
                    "id": record["id"],
                    "description": record.get("description") or stored.description,
                    "theme": record.get("theme") or stored.theme,
                    "hit": stored.hit,
                    "latest_update_time": stored.latest_update_time,
                }
            completed.append(dict(record) if not isinstance(record, dict) else record)
        return completed

    def build_messages(self, prompt: str, records: list[Mapping[str, Any]],
                       extra: list[Mapping[str, Any]] | None = None, *, apps: list[Mapping[str, Any]] | None = None,
                       apps_extra: list[Mapping[str, Any]] | None = None, context: str = "") -> list[BaseMessage]:
        from langchain_core.messages import HumanMessage, SystemMessage

        return [
            SystemMessage(content=FIND_RELATED_MEMORY.strip()),
            HumanMessage(content=build_user_prompt(prompt, records, self._clock(), extra or (), apps=apps or (),
                                                   apps_extra=apps_extra or (), context=context)),
        ]

    def _call_kwargs(self, model: Any) -> dict[str, Any]:
        # An OpenAI-compatible client also gets the deadline, so an abandoned call ends too.
        client = loaded_class("langchain_openai.chat_models.base", "BaseChatOpenAI")
        if client is not None and isinstance(model, client):
            return {"timeout": self.timeout}
        return {}

    # ── retrieval ─────────────────────────────────────────────────────

    def retrieve(self, prompt: str, items: Iterable[Mapping[str, Any]] | None = None,
                 extra: Iterable[Mapping[str, Any]] | None = None, *, apps: Iterable[Mapping[str, Any]] | None = None,
                 apps_extra: Iterable[Mapping[str, Any]] | None = None, num_ctx: int | None = None,
                 context: str = "") -> list[dict[str, str]]:
        """Relevant memories, most relevant first. Blocks up to ``timeout`` seconds (the request's own
        deadline: an OpenAI-compatible client is given it; another chat model must honour its own).
        ``num_ctx``: ask the server for this context length (an Ollama server, through its native
        API: ``ollama_chat.py``; a model that is not an OpenAI-compatible client ignores it). ``context``:
        the conversation's lines before ``prompt`` (shown to the model to read a follow-up by).

        Raises :class:`RecallFailed` on any failure; ``[]`` only when the model says nothing fits
        (or there is nothing to choose from, in which case no request is made).
        """
        records, messages, model = self._prepare(prompt, items, extra, apps, apps_extra, context)
        if not records:
            return []
        self.last_load_seconds = None
        try:
            if num_ctx and self._call_kwargs(model):
                native = chat(model, messages, num_ctx, self.timeout)
                self.last_load_seconds = native.load_seconds
                answer: Any = native.text
            else:
                answer = model.invoke(messages, config=_recall_config(), **self._call_kwargs(model))
        except Exception as exc:
            raise classify_error(exc, self.timeout, api_key_of(self.llm)) from exc
        return self._pick(answer, records)

    async def aretrieve(
        self, prompt: str, items: Iterable[Mapping[str, Any]] | None = None,
        extra: Iterable[Mapping[str, Any]] | None = None, *, apps: Iterable[Mapping[str, Any]] | None = None,
        apps_extra: Iterable[Mapping[str, Any]] | None = None, num_ctx: int | None = None, context: str = "",
    ) -> list[dict[str, str]]:
        """Async :meth:`retrieve`: the store read runs in a thread, the request never blocks the loop."""
        records, messages, model = await run_blocking(self._prepare, prompt, items, extra, apps, apps_extra, context)
        if not records:
            return []
        self.last_load_seconds = None
        try:
            if num_ctx and self._call_kwargs(model):
                native = await asyncio.wait_for(achat(model, messages, num_ctx, self.timeout), self.timeout)
                self.last_load_seconds = native.load_seconds
                answer: Any = native.text
            else:
                answer = await asyncio.wait_for(
                    model.ainvoke(messages, config=_recall_config(), **self._call_kwargs(model)), self.timeout
                )
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            raise classify_error(exc, self.timeout, api_key_of(self.llm)) from exc
        return self._pick(answer, records)

    def _prepare(
        self, prompt: str, items: Iterable[Mapping[str, Any]] | None,
        extra: Iterable[Mapping[str, Any]] | None = None, apps: Iterable[Mapping[str, Any]] | None = None,
        apps_extra: Iterable[Mapping[str, Any]] | None = None, context: str = "",
    ) -> tuple[list[dict[str, Any]], list[BaseMessage], Any]:
        """The records to number (in the request's order: ``llm_prompt.in_request_order``), the request
        and the model (a lazy one is built here, in the caller's thread: ``aretrieve`` runs this off the loop)."""
        if self.llm is None:
            raise RecallFailed("no chat model is configured", kind="no_llm")
        if not isinstance(prompt, str) or not prompt.strip():
            return [], [], None
        records = self.records(items)
        more = self.records(extra) if extra is not None else []
        theirs = self.records(apps) if apps is not None else []
        theirs_more = self.records(apps_extra) if apps_extra is not None else []
        if not records and not more and not theirs and not theirs_more:
            return [], [], None
        try:
            model = resolve(self.llm)
        except Exception as exc:
            raise classify_error(exc, self.timeout, api_key_of(self.llm)) from exc
        if model is None:
            raise RecallFailed("no chat model is configured", kind="no_llm")
        return (in_request_order(records, more, theirs, theirs_more),
                self.build_messages(prompt, records, more, apps=theirs, apps_extra=theirs_more, context=context), model)

    def _pick(self, answer: Any, records: list[Mapping[str, Any]]) -> list[dict[str, str]]:
        text = answer.text if hasattr(answer, "text") else answer
        if not isinstance(text, str):
            text = str(getattr(answer, "content", "") or "")
        text = str(text)
        try:
            indices = parse_indices(text, len(records))
        except UnparseableAnswer as exc:
            raise RecallFailed(str(exc), kind="unparseable") from exc
        log.debug("LLM recall picked %d of %d memories", len(indices), len(records))
        return [
            {"id": records[i]["id"], "description": records[i]["description"], "theme": records[i]["theme"],
             "date": str(records[i].get("latest_update_time") or "")[:10]}
            for i in indices
        ]
