"""Held calls, planned again: what the review inbox (``review``) does when the person approves one.

A proposal keeps the writer's call (tool, arguments, the run's context). Approving it plans the call
again through the tool's registry, against the store as it is then, and carries the plan out by the
runner's rules (``registry.check_plan``, then its writes in one store transaction), as who proposed
it for its turn, or as the person when they reworded it. No switch on kinds: a new tool's calls are
approved the way they were proposed.

``HELD_TOOLS`` are the calls of what proposes without a writer tool: the saved memories of an
imported history, the clean-up pass's exact duplicates, and inbox entries written before proposals
kept their call (``review._from_json`` reads those as calls of these tools). They are never offered
to the model.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .. import kinds
from ..changes import USER, MemoryChange
from ..errors import MemoryNotFound, ProposalNotApplicable, ProposalOutdated
from .index import WriterIndex
from .memory_tools import MEMORY_TOOLS
from pydantic import ValidationError

from .registry import (Outcome, Plan, Registry, ToolContext, ToolEnv, ToolRefused, WriterTool, check_plan,
                       undeclared, validation_message)

if TYPE_CHECKING:
    from ..operations import MemoryOperations
    from ..review import Proposal

#: A proposal's reason when it gave none, and what approving it adds ("…（你审核后批准）").
PROPOSED_REASON = "记忆写入助手的提议"
APPROVED = "（你审核后批准）"
REWORDED = "（你审核后改写并批准）"

HELD_TOOLS = Registry()


@HELD_TOOLS.tool
def held_create(env: ToolEnv, description: str, theme: str, reason: str = "") -> Plan:
    """A new memory."""

    def write(ops: MemoryOperations) -> Outcome:
        memory_id = ops.add(description, theme or "瞬间", reason=reason).ids[0]
        return Outcome(memory_id, kinds.CREATE, (memory_id,))

    return Plan(kinds.CREATE, write, description=description, theme=theme, reason=reason)


@HELD_TOOLS.tool
def held_update(env: ToolEnv, id: str, description: str = "", theme: str = "", reason: str = "") -> Plan:
    """A memory's new text and/or theme."""

    def write(ops: MemoryOperations) -> Outcome:
        ops.update(id, description=description or None, theme=theme or None, reason=reason)
        return Outcome(id, kinds.UPDATE, (id,))

    return Plan(kinds.UPDATE, write, (id,), description=description or None, theme=theme or None, reason=reason)


@HELD_TOOLS.tool
def held_delete(env: ToolEnv, id: str, reason: str = "") -> Plan:
    """A memory to the trash."""

    def write(ops: MemoryOperations) -> Outcome:
        ops.delete(id, reason=reason)
        return Outcome(id, kinds.DELETE, (id,))

    return Plan(kinds.DELETE, write, (id,), reason=reason)


@HELD_TOOLS.tool
def held_merge(env: ToolEnv, id1: str, id2: str, description: str, theme: str = "", reason: str = "") -> Plan:
    """Two memories made one: ``id1`` kept, ``id2`` to the trash."""

    def write(ops: MemoryOperations) -> Outcome:
        ops.merge(id1, id2, description, theme or env.store.get(id1).theme, reason=reason)
        return Outcome(id1, kinds.MERGE, (id1, id2))

    return Plan(kinds.MERGE, write, (id1, id2), description=description, theme=theme or None, reason=reason)


#: The held tool of each kind an inbox entry of an older version (or ``ReviewInbox.propose``) names.
HELD_BY_KIND = {kinds.CREATE: "held_create", kinds.UPDATE: "held_update", kinds.DELETE: "held_delete",
                kinds.MERGE: "held_merge"}


def held_call(kind: str, memory_ids: tuple[str, ...], description: str | None, theme: str | None,
              reason: str) -> tuple[str, dict[str, Any]] | None:
    """The held tool's call for a change of ``kind`` described by fields (None: no such kind)."""
    tool = HELD_BY_KIND.get(kind)
    if tool is None or len(memory_ids) != {kinds.CREATE: 0, kinds.MERGE: 2}.get(kind, 1):
        return None
    arguments: dict[str, Any] = {"reason": reason or ""}
    if kind == kinds.MERGE:
        arguments.update(id1=memory_ids[0], id2=memory_ids[1])
    elif memory_ids:
        arguments["id"] = memory_ids[0]
    if kind != kinds.DELETE:
        arguments.update(description=description or "", theme=theme or "")
    return tool, arguments


class Planner:
    """Plans held calls again over one store: the writer's tools, the held ones, ``extra`` (tools the
    inbox was given) and those the runner proposed calls of in this process (``know``)."""

    def __init__(self, extra: Registry | None = None) -> None:
        self._tools: dict[str, WriterTool] = {}
        for spec in (*MEMORY_TOOLS, *HELD_TOOLS, *(extra or ())):
            self._tools.setdefault(spec.name, spec)
        self._index: tuple[Any, WriterIndex] | None = None

    def know(self, tool: WriterTool) -> None:
        self._tools.setdefault(tool.name, tool)

    def tool(self, name: str) -> WriterTool | None:
        return self._tools.get(name)

    def _index_of(self, store: Any) -> WriterIndex:
        if self._index is None or self._index[0] is not store:
            self._index = (store, WriterIndex(store))
        return self._index[1]

    def apply(self, proposal: Proposal, ops: MemoryOperations, *, description: str | None = None,
              theme: str | None = None, seen: Sequence[str] | None = None) -> MemoryChange | None:
        """Plan ``proposal``'s call again and carry it out (the person's ``description`` / ``theme``
        instead of the model's, if given: written as the person then, only over the texts of its
        memories they were shown, ``seen``, by default ``proposal.before``). Returns its first change
        record (None: it changed nothing, e.g. the text was there already)."""
        spec = self.tool(proposal.tool) if proposal.tool else None
        if spec is None:
            raise ProposalNotApplicable(proposal.id, proposal.tool or proposal.kind, unknown=True)
        rewritten = (description is not None and description != proposal.description) or (
            theme is not None and theme != proposal.theme)
        arguments = dict(proposal.arguments)
        if rewritten:
            arguments = spec.reworded(arguments, description, theme)
        if "reason" in spec.schema.model_fields:
            arguments["reason"] = (arguments.get("reason") or PROPOSED_REASON) + (REWORDED if rewritten else APPROVED)
        context = ToolContext.from_json(proposal.context)
        writer = ops.as_actor(USER) if rewritten else ops.as_actor(proposal.actor, proposal.turn)
        env = ToolEnv(ops.store, self._index_of(ops.store), context)
        try:
            plan = spec.plan(env, **spec.schema.model_validate(arguments).model_dump())
        except ToolRefused as exc:
            raise ProposalNotApplicable(proposal.id, spec.name, str(exc)) from None
        except ValidationError as exc:
            raise ProposalNotApplicable(proposal.id, spec.name, validation_message(exc)) from None
        before = check_plan(plan, writer) if plan.changes else []
        with ops.store.group(), ops.store.capture() as changes:
            if not rewritten:  # as proposed: never over words someone else wrote since (the person's edit)
                self._check_unchanged(proposal, plan, ops)
            else:  # the person's words: over the texts they were shown only (not an edit made elsewhere since)
                self._check_seen(proposal, proposal.before if seen is None else tuple(seen), ops)
            plan.write(writer)
            if plan.changes and undeclared(plan, before, changes):
                raise ProposalNotApplicable(proposal.id, spec.name, "it stored words its plan did not declare")
        return changes[0] if changes else None

    @staticmethod
    def _check_unchanged(proposal: Proposal, plan: Plan, ops: MemoryOperations) -> None:
        """``ProposalOutdated`` when the call, planned again, would write what was proposed (it takes no
        account of the text now, as an update's or a deletion's) over a memory someone other than its
        proposer changed since it was proposed (the text it had then, ``before``, is what the person was
        shown as 原来): an edit made meanwhile is not written over. The proposer's own changes meanwhile
        (an earlier proposal of the same import, approved) do not count."""
        if len(proposal.before) != len(proposal.memory_ids) or (plan.ids, plan.description) != (
                proposal.memory_ids, proposal.description):
            return
        clashes = []
        for memory_id, then in zip(proposal.memory_ids, proposal.before, strict=True):
            try:
                item = ops.store.get(memory_id)
            except MemoryNotFound:
                continue  # gone: the tool's own plan says so
            by = next((entry.get("actor") for entry in reversed(item.history) if "new_description" in entry), None)
            if item.description != then and by != proposal.actor:
                clashes.append((memory_id, item.description, then))
        if clashes:
            raise ProposalOutdated(proposal.id, proposal.tool or proposal.kind, clashes)

    @staticmethod
    def _check_seen(proposal: Proposal, seen: tuple[str, ...], ops: MemoryOperations) -> None:
        """``ProposalOutdated`` when a memory of a reworded proposal no longer says what the person was
        shown (``seen``): another process, another window, the writer changed it since, and their words
        are not written over by a rewording made without them (the refusal says what it reads now)."""
        if len(seen) != len(proposal.memory_ids):
            return
        clashes = []
        for memory_id, shown in zip(proposal.memory_ids, seen, strict=True):
            try:
                now = ops.store.get(memory_id).description
            except MemoryNotFound:
                continue  # gone: the tool's own plan says so
            if now != shown:
                clashes.append((memory_id, now, shown))
        if clashes:
            raise ProposalOutdated(proposal.id, proposal.tool or proposal.kind, clashes, reworded=True)
