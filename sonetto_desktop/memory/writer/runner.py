"""ToolRunner: carries out the writer's tool calls, every tool by the same rules.

A call is planned by its tool (``registry``) and then, if it changes what the person has (every
plan but reading and counting a use, unless the plan says otherwise: ``Plan.changes``):

1. checked as a whole before anything is written or held (``registry.check_plan``): every text it
   would store for secret values and against the person's "don't remember" list, every memory it
   touches for existing and not being locked;
2. in review mode, held in the review inbox instead: the call itself (tool, arguments, the run's
   context), planned again when the person approves it (``review.ReviewInbox.approve``); a full
   inbox asks the model to stop for now;
3. in any mode, held in the review inbox the same way when it would change memories the run may not
   change by itself (``ownership``: an import, or another app's conversation, touching what it did
   not create); without an inbox such a change is refused;
4. otherwise written through ``MemoryOperations`` as the run's actor, for the run's turn, in one
   store transaction (``BaseMemoryManager.group``): a write refused half-way leaves nothing behind,
   and so does a plan whose writes stored words it did not declare (``registry.undeclared``: words
   the checks of step 1 never saw, and a reviewer would not see).

What the memories refuse (a secret, a don't-remember entry, a locked memory, an unknown id) comes back to the
model as a :class:`~.registry.ToolRefused` saying why and what to do; anything else (the disk, the
memory server) propagates and fails the run, which the pipeline retries. ``on_locked(memory_id,
context)`` hears of each call a lock refused (the window says so once). Blocking (store I/O): the
agent runs the tools on worker threads.
"""

from __future__ import annotations

import logging
from typing import Any, Callable, Mapping

from .. import kinds
from ..changes import APP_PREFIX
from ..errors import DontRememberRefused, MemoryLocked, MemoryNotFound, SecretRefused
from ..operations import MemoryOperations
from ..review import InboxFull
from .index import WriterIndex
from .listing import READ_ALL_MAX, RECENT_N, RELATED_K, RetrieverProvider
from .ownership import held_for_person
from .registry import (
    INBOX_FULL,
    NOT_THE_APPS,
    NOT_YOURS,
    PROPOSED,
    UNDECLARED,
    Outcome,
    Plan,
    ToolContext,
    ToolEnv,
    ToolRefused,
    WriterTool,
    check_plan,
    dont_remember_refusal,
    locked_refusal,
    not_found_refusal,
    secret_refusal,
    undeclared,
)

log = logging.getLogger(__name__)

LockListener = Callable[[str, ToolContext], None]


class ToolRunner:
    """Runs tool calls over ``ops`` (the memory operations; each call writes as its context's actor).
    ``index``: the writer's index over the store; ``retriever`` and the ``read_*`` bounds: what
    ``read_memories`` lists (``listing.read_listing``)."""

    def __init__(self, ops: MemoryOperations, *, index: WriterIndex | None = None,
                 retriever: RetrieverProvider | None = None, read_all_max: int = READ_ALL_MAX,
                 related_k: int = RELATED_K, recent_n: int = RECENT_N, on_locked: LockListener | None = None) -> None:
        self.ops = ops
        self.index = index if index is not None else WriterIndex(ops.store)
        self.retriever = retriever
        self.read_all_max = read_all_max
        self.related_k = related_k
        self.recent_n = recent_n
        self.on_locked = on_locked

    def env(self, context: ToolContext) -> ToolEnv:
        return ToolEnv(self.ops.store, self.index, context, self.retriever, self.read_all_max, self.related_k,
                       self.recent_n)

    def run(self, tool: WriterTool, arguments: Mapping[str, Any], context: ToolContext) -> Outcome:
        """Plan and carry out one call (see the module docstring); ``ToolRefused`` tells the model why not."""
        writer = self.ops.as_actor(context.actor, context.turn(), writer_run=True)
        try:
            plan = tool.plan(self.env(context), **arguments)
            if not plan.changes:
                return plan.write(writer)
            items = check_plan(plan, writer)
            inbox = writer.reviewing
            if inbox is None and held_for_person(writer.store, plan.ids, context):
                inbox = writer.review
                if inbox is None:
                    raise ToolRefused(NOT_THE_APPS if context.actor.startswith(APP_PREFIX) else NOT_YOURS)
            if inbox is not None:
                return self._propose(tool, arguments, context, plan, items, writer, inbox)
            with writer.store.group(), writer.store.capture() as changes:
                outcome = plan.write(writer)
                stray = undeclared(plan, items, changes)
                if stray:  # a tool's bug: words no rule saw; its writes are rolled back
                    log.error("writer: %s stored words its plan did not declare (%d); refused", tool.name, len(stray))
                    raise ToolRefused(UNDECLARED)
            return outcome
        except DontRememberRefused as exc:
            raise dont_remember_refusal(exc.entry) from None
        except SecretRefused as exc:
            raise secret_refusal(exc.kind) from None
        except MemoryLocked as exc:
            self._locked(exc.memory_id, context)
            raise locked_refusal(exc.memory_id) from None
        except MemoryNotFound as exc:
            raise not_found_refusal(exc.memory_id) from None

    def _propose(self, tool: WriterTool, arguments: Mapping[str, Any], context: ToolContext, plan: Plan,
                 items: list[Any], writer: MemoryOperations, inbox: Any) -> Outcome:
        """Review mode: the call waits in the person's inbox (checked as a write would be), with what
        its plan says it would do for the person to read."""
        try:
            proposal = inbox.propose_call(tool, dict(arguments), context.to_json(), kind=plan.kind,
                                          memory_ids=plan.ids, description=plan.description, theme=plan.theme,
                                          reason=plan.reason or plan.note, turn=writer.turn,
                                          before=tuple(item.description for item in items), actor=writer.actor)
        except InboxFull:
            raise ToolRefused(INBOX_FULL) from None
        return Outcome(PROPOSED.format(id=proposal.id), kinds.PROPOSE, plan.ids)

    def _locked(self, memory_id: str, context: ToolContext) -> None:
        if self.on_locked is None:
            return
        try:
            self.on_locked(memory_id, context)
        except Exception:  # a listener's bug must not turn a refusal into a failed run
            log.exception("writer: the lock listener failed")
