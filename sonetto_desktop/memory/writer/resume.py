"""Resuming a turn exactly where an interrupted attempt stopped (issue 11, item 4).

A writer killed mid-turn (kill -9, power loss, a stop that timed out) used to replay the whole turn:
the model was asked again, answered a little differently, and memories were written twice. Now an
attempt keeps its progress in the turn's journal entry (``JournalEntry.progress``), fsync'd at each
step:

- each model reply (its text and tool calls, with their ids) before any of its calls runs;
- each tool call as ``applying`` before it runs and ``done`` (with its answer) after.

A later attempt with that progress (``tool_loop.ToolLoop`` through :func:`recorded_reply` and
:func:`answer_recorded`) hands the model's recorded replies back
instead of asking again, answers ``done`` calls with their recorded answers without running them,
and runs only what never ran. A call caught ``applying`` (killed between the store's commit and the
journal's ``done``) is checked against the store: a created text that exists, an update whose text
is there, a deleted or merged memory that is in the trash for this turn count as applied; a hit is
never repeated (one lost reference count, never a doubled one). An attempt that fails normally is
rolled back (``consumer``); the next one replays the model's first reply and runs its calls again
(:meth:`TurnRecorder.after_rollback`), so retrying a turn (a full disk, a server that was away) does
not pay for the model again.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, Callable

from langchain_core.messages import AIMessage, ToolMessage

from ..errors import MemoryNotFound
from ..operations import MemoryOperations
from .index import WriterIndex
from .registry import Registry

log = logging.getLogger(__name__)

APPLYING, DONE = "applying", "done"
#: ``response_metadata`` flag of a model reply handed back from the journal (not a model call).
REPLAYED = "sonetto_replayed"


def empty_progress() -> dict[str, Any]:
    return {"responses": [], "calls": {}}


def keep_first_reply(progress: dict[str, Any] | None) -> dict[str, Any]:
    """A fresh progress that keeps only the model's first reply of ``progress`` (see ``after_rollback``)."""
    replies = list((progress or {}).get("responses") or [])[:1]
    return {"responses": replies, "calls": {}}


@dataclass
class TurnRecorder:
    """One attempt's progress (``progress``: the entry's dict, changed in place) and how to keep it
    (``save()``: a blocking, durable write of the entry)."""

    progress: dict[str, Any]
    save: Callable[[], None]
    turn_id: str
    model_calls: int = 0
    replayed_calls: int = 0
    skipped: list[str] = field(default_factory=list)

    def after_rollback(self, taken_back: bool, reusable: bool = True) -> None:
        """A failed attempt ended. ``taken_back``: its writes were undone — the next attempt keeps
        the model's first reply when it is ``reusable`` (made from the turn and the listing, both as
        they were, and not the cause of the failure: replayed, no model call is paid again, e.g.
        while a full disk is retried) and runs its calls again; later replies answered results that
        no longer exist, so they go. Otherwise (the undo failed) everything is kept and the next
        attempt resumes where this one stopped."""
        if not taken_back:
            return
        self.progress["responses"] = keep_first_reply(self.progress)["responses"] if reusable else []
        self.progress["calls"] = {}
        try:
            self.save()
        except OSError as exc:  # the disk: the in-memory entry is right, the file catches up later
            log.warning("writer resume: could not keep the progress of %s: %s", self.turn_id, exc)

    @property
    def responses(self) -> list[dict[str, Any]]:
        return self.progress.setdefault("responses", [])

    @property
    def calls(self) -> dict[str, dict[str, Any]]:
        return self.progress.setdefault("calls", {})


def already_applied(ops: MemoryOperations, index: WriterIndex, turn_id: str, name: str, args: dict[str, Any],
                    tools: Registry) -> bool:
    """Whether a tool call caught ``applying`` reached the store before the attempt died (blocking):
    the tool's own check in ``tools`` (``WriterTool.landed``); a tool without one is run again."""
    spec = tools[name] if name in tools else None
    if spec is None or spec.landed is None:
        return False
    try:
        return bool(spec.landed(ops.store, index, turn_id, args))
    except MemoryNotFound:
        return False
    except Exception:  # the check itself failed: run the call (its own errors are answered to the model)
        log.exception("writer resume: could not check tool call %s", name)
    return False


def recorded_reply(rec: TurnRecorder | None) -> AIMessage | None:
    """The next model call of the attempt: its reply as recorded by an interrupted attempt (handed back
    instead of asking the model again, flagged ``REPLAYED``), or ``None`` when the model must be asked.
    Counts the call either way (``model_calls``)."""
    if rec is None:
        return None
    index = rec.model_calls
    rec.model_calls += 1
    if index >= len(rec.responses):
        return None
    kept = rec.responses[index]
    return AIMessage(content=kept.get("content") or "", tool_calls=list(kept.get("tool_calls") or []),
                     response_metadata={REPLAYED: True})


def remember_reply(rec: TurnRecorder, reply: AIMessage) -> bool:
    """Keep the model's ``reply`` in the progress; True when it must be saved before its calls run (a
    reply without calls ends the run: nothing to resume from)."""
    calls = [{"id": c["id"], "name": c["name"], "args": c["args"]} for c in reply.tool_calls]
    rec.responses.append({"content": reply.content if isinstance(reply.content, str) else "", "tool_calls": calls})
    return bool(calls)


def answer_recorded(rec: TurnRecorder, call: dict[str, Any], run: Callable[[], ToolMessage],
                    applied: Callable[[str, str, dict[str, Any]], bool] | None) -> ToolMessage:
    """One tool call of a recorded attempt (blocking): a call ``done`` before is answered as it was,
    without running; one caught ``applying`` is checked against the store (``applied``, see
    ``already_applied``); otherwise it is kept ``applying``, run (``run()``) and kept ``done`` with its
    answer, each step saved."""
    cid, name = call["id"], call["name"]
    known = rec.calls.get(cid)
    if known is not None and known.get("state") == APPLYING and applied is not None:
        if applied(rec.turn_id, name, dict(call.get("args") or {})):
            known = {"state": DONE, "content": "已完成（中断前已写入）。", "status": "success"}
            rec.calls[cid] = known
            rec.save()
    if known is not None and known.get("state") == DONE:
        rec.replayed_calls += 1
        rec.skipped.append(cid)
        return ToolMessage(content=known.get("content", ""), tool_call_id=cid, name=name,
                           status=known.get("status", "success"))
    rec.calls[cid] = {"state": APPLYING}
    rec.save()
    result = run()
    content = result.content if isinstance(result.content, str) else str(result.content)
    rec.calls[cid] = {"state": DONE, "content": content, "status": result.status}
    rec.save()
    return result
