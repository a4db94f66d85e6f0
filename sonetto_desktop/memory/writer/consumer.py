"""MemoryConsumer: one chat turn in, memory writes out, through a ReAct loop over the CRUD tools
(``tool_loop.ToolLoop``).

``consume`` raises when the LLM fails (so the pipeline can retry the turn), after taking back what
the failed run wrote (``undo_turn`` on the memories it touched: a retry starts from the store as it
was); a bad tool call is answered to the model as an error message and the run goes on. A run that
crosses a limit (``guard.py``: too many tool calls, too many memories changed) is taken back too and
raises ``TurnHeld``. Given a ``TurnRecorder`` (``resume.py``) a run keeps its progress in the turn's
journal entry and resumes an interrupted attempt instead of starting over. The sync tools run on
worker threads (``aio.run_blocking``), so the store's blocking I/O never runs on the event loop. What the run
changed is what the change channel carried for its turn id (``ConsumeResult.changes``).
"""

from __future__ import annotations

import logging
import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from ..stores.base import BaseMemoryManager
from .. import kinds
from ..changes import AGENT, IMPORT_PREFIX, MemoryChange, Turn, check_actor, source_of
from ..operations import MemoryOperations
from ..undo import NothingToUndo, UndoConflict
from .guard import DEFAULT_MAX_CHANGED, DEFAULT_MAX_TOOL_CALLS, TOOL_CALLS, RunGuard, TurnHeld
from .resume import REPLAYED, TurnRecorder, already_applied
from .status import describe_store_failure
from .index import WriterIndex
from .limits import ROLLBACK_PREFIX, CallsWrittenAsText
from .listing import RetrieverProvider, read_listing
from .names import resolve_name
from .prompts import choose_system_prompt, turn_message
from .memory_tools import MEMORY_TOOLS
from .text_calls import calls_written_as_text
from .tool_loop import StepLimit, ToolLoop
from .runner import LockListener
from .tools import CONTEXT_KEY, ToolContext, make_memory_tools
from .turns import format_turn, normalize_turn, turn_query_text
from ...aio import run_blocking

DEFAULT_MAX_ROUNDS = 10  # the least: model calls per run
ROLLBACK_REASON = "撤销失败的写入尝试"

log = logging.getLogger(__name__)


def max_rounds_for(max_tool_calls: int) -> int:
    """The model calls a run may make: the tool-call guard must always stop a loop first (a round
    that goes on made at least one call)."""
    return max(DEFAULT_MAX_ROUNDS, max_tool_calls + 4)


@dataclass
class ConsumeResult:
    """What one ``consume`` did."""

    turn_id: str
    cold_start: bool
    llm_calls: int = 0
    tool_calls: int = 0
    tool_errors: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    final_text: str = ""
    changes: list[MemoryChange] = field(default_factory=list)
    tool_error_texts: list[str] = field(default_factory=list)  # what failed tool calls answered (quality harness)
    resumed_calls: int = 0  # tool calls answered from the journal (done before an interruption)


class MemoryConsumer:
    """Runs the memory-writer agent over one turn through ``memory`` (the memory operations, or a
    store they are made for).

    ``retriever`` (a provider of the offline retriever, see ``tools.make_memory_tools``) lets
    the listing show only the memories related to the turn once the store is large; the listing
    goes into the run's one user message (``prompts.turn_message``), so the model need not call
    ``read_memories``. ``user_name()``: the name set in the settings (``names.resolve_name``).
    Each run hands the tools its turn through a ``ToolContext`` in the run config. ``max_rounds``:
    the model calls a run may make (default: enough for ``max_tool_calls``, see ``max_rounds_for``).
    ``on_locked(memory_id, context)``: told of each call a locked memory refused (a worker thread).
    """

    def __init__(
        self,
        llm: Any,
        memory: MemoryOperations | BaseMemoryManager,
        *,
        now: Callable[[], datetime] | None = None,
        max_rounds: int | None = None,
        retriever: RetrieverProvider | None = None,
        user_name: Callable[[], str] | None = None,
        language: Callable[[], str] | None = None,
        max_tool_calls: int = DEFAULT_MAX_TOOL_CALLS,
        max_changed: int = DEFAULT_MAX_CHANGED,
        index: WriterIndex | None = None,
        on_locked: LockListener | None = None,
    ) -> None:
        if llm is None:
            raise ValueError("MemoryConsumer needs a chat model (llm is None: no model configured)")
        ops = memory if isinstance(memory, MemoryOperations) else MemoryOperations(memory)
        self._llm = llm
        self._ops = ops
        self._now = now or datetime.now
        self.max_rounds = max_rounds or max_rounds_for(max_tool_calls)
        self._retriever = retriever
        self._user_name = user_name or (lambda: "")
        self._language = language or (lambda: "zh_CN")
        self.max_tool_calls = max_tool_calls
        self.max_changed = max_changed
        # count, recency, due dates, same text: never a full read per turn (the writer's, shared)
        self._index = index if index is not None else WriterIndex(ops.store)
        self._tools = make_memory_tools(ops, retriever=retriever, index=self._index, on_locked=on_locked)
        self._tool_loop = ToolLoop(llm, self._tools, self.max_rounds)  # the tools bound once (blocking: schemas)
        self._system: dict[str, SystemMessage] = {}

    @property
    def llm(self) -> Any:
        return self._llm

    def _system_message(self, system_prompt: str) -> SystemMessage:
        message = self._system.get(system_prompt)
        if message is None:
            message = self._system[system_prompt] = SystemMessage(content=system_prompt)
        return message

    def _already_applied(self, turn_id: str, name: str, args: dict) -> bool:
        return already_applied(self._ops, self._index, turn_id, name, args, MEMORY_TOOLS)

    def rollback(self, turn_id: str, changes: list[MemoryChange], *, whole_turn: bool = False,
                 actor: str | None = None) -> str | None:
        """Take back what a failed run of ``turn_id`` wrote, its hits included (blocking), as
        ``actor`` (the run's; default: the operations'). ``whole_turn``: every change of the turn (a
        resumed run: what ran before the interruption too), else the memories ``changes`` touched.
        Returns why something could not be taken back, or ``None``."""
        ids = None if whole_turn else [mid for c in changes if c.kind != kinds.HIT for mid in c.ids]
        hits = Counter(c.ids[0] for c in changes if c.kind == kinds.HIT and c.ids)
        if ids is not None and not ids and not hits:
            return None
        try:
            undoing = self._ops.as_actor(actor or self._ops.actor, Turn(f"{ROLLBACK_PREFIX}{uuid.uuid4().hex[:12]}",
                                                               excerpt=f"撤销 {turn_id} 失败的写入尝试"))
            undoing.undo_turn(turn_id, ids=ids, reason=ROLLBACK_REASON, unhit=dict(hits), withdraw=False)
        except NothingToUndo:
            return None
        except UndoConflict as exc:
            log.warning("memory writer: could not take back the failed run of %s: %s", turn_id, exc)
            return str(exc)
        except Exception as exc:  # noqa: BLE001 - e.g. a full disk: the original failure is what is reported
            log.warning("memory writer: taking back the failed run of %s failed: %s", turn_id, exc)
            return f"{type(exc).__name__}: {exc}"
        return None

    def subject(self) -> str:
        """What the memories call the user (blocking: the index may refresh)."""
        stated, leading = self._index.name_hints()
        return resolve_name(self._user_name(), stated, leading)[0]

    def build_prompt(self, turn_messages: Any, cold_start: bool | None = None, now: datetime | None = None,
                     actor: str = AGENT, origin: str = "") -> tuple[bool, str, str]:
        """(cold start, the user message, the user's name) for a turn written as ``actor`` (another
        app's conversation is quoted as such; imported history, ``import:<source>``, is read as the
        past it is, ``origin`` naming where and when). Blocking (index, listing): call it from a
        worker thread."""
        return self._prompt(normalize_turn(turn_messages), cold_start, now, actor, origin)

    def _prepared(self, turn_messages: Any, now: datetime, actor: str, origin: str,
                  normalized: bool) -> tuple[list[dict[str, str]], bool, str, str]:
        """The turn normalised once (its secrets hidden: ~1 ms for a batch of imported history; not
        again when ``normalized``) and ``build_prompt``'s (cold start, user message, name) made of it.
        Blocking."""
        messages = list(turn_messages) if normalized else normalize_turn(turn_messages)
        return (messages, *self._prompt(messages, None, now, actor, origin))

    def _prompt(self, messages: list[dict[str, str]], cold_start: bool | None, now: datetime | None, actor: str,
                origin: str) -> tuple[bool, str, str]:
        now = now or self._now()
        if cold_start is None:
            cold_start = self._index.count() == 0
        name = self.subject()
        listing = "" if cold_start else read_listing(
            self._ops.store, turn_query_text(messages), self._retriever, now=now, index=self._index,
            subject=name).text
        dont = self._ops.dont_remember
        avoid = dont.prompt_texts() if dont is not None else []
        source = source_of(actor)
        past = (origin or actor) if actor.startswith(IMPORT_PREFIX) else ""
        message = turn_message(format_turn(messages, source=source), listing, now, name=name, cold_start=cold_start,
                               dont_remember=avoid, source=source, past=past, language=self._language())
        return cold_start, message, name

    async def consume(self, session_id: str | None, turn_id: str | None, turn_messages: Any, *,
                      recorder: TurnRecorder | None = None, allow_mass: bool = False, now: datetime | None = None,
                      actor: str = AGENT, origin: str = "", normalized: bool = False) -> ConsumeResult:
        """Let the agent write what this turn taught about the user. Raises if the LLM fails (what
        the run wrote is taken back first) and ``TurnHeld`` when it crossed a limit (``guard.py``).
        ``recorder``: keep and resume the run's progress (``resume.py``). ``allow_mass``: no limit on
        how many memories this run may change (the person retried a held turn). ``now``: the turn's
        time (default: the writer's clock; an imported turn passes its own date), what the prompt's
        dates and the listing are relative to. ``actor``: who the changes are written as;
        ``origin``: where the conversation came from, kept with each change (see ``ToolContext``).
        ``normalized``: ``turn_messages`` are ``normalize_turn``'s, made by this run of the app (a turn
        this writer journaled: ``JournalEntry.hidden_by``), so the secret filter is not run twice."""
        turn_id = turn_id or uuid.uuid4().hex[:12]
        now = now or self._now()
        actor = check_actor(actor)
        messages, cold_start, user_prompt, name = await run_blocking(self._prepared, turn_messages, now, actor, origin,
                                                                     normalized)
        system_prompt = choose_system_prompt(cold_start)
        user_words = "\n".join(m["content"] for m in messages if m["role"] == "user")
        tool_context = ToolContext(session_id, turn_id, turn_query_text(messages), now, user_words, name, actor,
                                   origin)
        system = self._system_message(system_prompt)
        changes: list[MemoryChange] = []
        guard = RunGuard(self.max_tool_calls, None if allow_mass else self.max_changed)

        def seen(change: MemoryChange) -> None:
            if change.turn_id == turn_id:
                changes.append(change)
                guard.saw(change)

        unsubscribe = self._ops.subscribe(seen)
        resumed = recorder is not None and bool(recorder.responses or recorder.calls)
        try:
            messages_out = await self._tool_loop.run(
                system, [HumanMessage(content=user_prompt)], {"configurable": {CONTEXT_KEY: tool_context}},
                guard=guard, recorder=recorder, applied=self._already_applied)
        except Exception as exc:
            unsubscribe()
            problem = await run_blocking(self.rollback, turn_id, list(changes), whole_turn=resumed,
                                              actor=tool_context.actor)
            if isinstance(exc, StepLimit):  # a loop the guard did not catch: held, not retried
                if recorder is not None:
                    await run_blocking(recorder.after_rollback, problem is None, False)
                raise TurnHeld(TOOL_CALLS, f"模型在一轮里来回调用工具超过 {exc.rounds} 轮（可能陷入了循环），"
                                           "本轮写入已全部撤销并暂缓",
                               f"the model went back and forth with tools more than {exc.rounds} rounds in one "
                               "turn (it may be stuck in a loop): what the turn wrote was undone and held") from exc
            if recorder is not None:
                # The model's first reply is worth replaying when it was not the problem: the store or
                # the disk failed, or its calls all ran and a later model call failed.
                reusable = describe_store_failure(exc) is not None or recorder.model_calls > 1
                await run_blocking(recorder.after_rollback, problem is None, reusable)
            raise
        finally:
            unsubscribe()
        held = guard.held()
        if held is not None:
            problem = await run_blocking(self.rollback, turn_id, list(changes), whole_turn=resumed,
                                              actor=tool_context.actor)
            if recorder is not None:
                await run_blocking(recorder.after_rollback, problem is None)
            raise held
        result = ConsumeResult(turn_id, cold_start, changes=list(changes),
                               resumed_calls=recorder.replayed_calls if recorder is not None else 0)
        _tally(result, messages_out)
        if not result.tool_calls and calls_written_as_text(result.final_text):
            raise CallsWrittenAsText()  # not "nothing to remember": the turn is kept, retried by hand
        return result


def _tally(result: ConsumeResult, messages: list[Any]) -> None:
    """What the run's messages say into ``result``: tool calls and their errors, the model calls made
    (not those handed back from the journal), their tokens, and the model's last words."""
    for msg in messages:
        if isinstance(msg, ToolMessage):
            result.tool_calls += 1
            if msg.status == "error":
                result.tool_errors += 1
                result.tool_error_texts.append(str(msg.content))
        elif isinstance(msg, AIMessage):
            if msg.response_metadata.get(REPLAYED):
                continue  # handed back from the journal, not asked again
            result.llm_calls += 1
            usage = msg.usage_metadata or {}
            result.prompt_tokens += int(usage.get("input_tokens", 0) or 0)
            result.completion_tokens += int(usage.get("output_tokens", 0) or 0)
            if isinstance(msg.content, str) and msg.content.strip():
                result.final_text = msg.content.strip()
