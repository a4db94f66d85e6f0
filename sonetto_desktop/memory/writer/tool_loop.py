"""The writer's tool loop: ask the model, run the tools it called, answer it, until it is done.

A plain ReAct loop over ``llm.bind_tools(tools)`` (bound once, when the writer is built: the tools'
schemas are not rebuilt per call), in place of LangChain's ``create_agent``, whose LangGraph graph
(a checkpoint per step, a task per node, a middleware chain per call) cost several times the model
call's own CPU per turn (issue 37). Per round:

1. the run ends without asking the model when the guard stopped it (``guard.RunGuard``) or when the
   last round's tool calls all succeeded and none was a read (``budget.should_end``); a run that
   needs more than ``max_rounds`` model calls raises :class:`StepLimit` (a loop the tool-call guard
   did not catch: held, not retried);
2. the model is asked with the system prompt and the run's messages (or, resuming an interrupted
   attempt, its recorded reply is handed back: ``resume.py``); no tool calls: the run is done;
3. the calls run one at a time, in the model's order (writes, and their events, in a predictable
   order), each counted by the guard first: a call past a limit is answered "已停止" and not run; a
   tool that does not exist is answered with the tool list; a tool's refusal (``ToolException``) or
   arguments its schema refuses come back as an error ``ToolMessage`` the model sees, and the run
   goes on. Anything
   else a tool raises (the disk, the memory server) fails the run, as a model failure does: the
   writer takes its writes back and retries the turn.

Sync tools run through ``aio.run_blocking`` (with their journal bookkeeping, in one hop), so the
store's blocking I/O never runs on the event loop. :func:`run_tools_sync` is the same loop for a
caller already on a worker thread (the hygiene pass), without guard or journal.

A tool call the server sent without an id (some OpenAI-compatible servers do) is given one
(:func:`with_call_ids`) before anything else sees the reply: the reply in the run's history, its
answer's ``tool_call_id`` and the journaled progress all name the same id.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from langchain_core.messages import AIMessage, BaseMessage, SystemMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from pydantic import ValidationError

from ...aio import run_blocking
from .budget import should_end
from .guard import RunGuard
from .resume import TurnRecorder, answer_recorded, recorded_reply, remember_reply

#: What a call of a tool that does not exist is answered (the wording LangChain's agent used: the
#: models the writer was tuned with know it).
UNKNOWN_TOOL = "Error: {requested_tool} is not a valid tool, try one of [{available_tools}]."
STOPPED = "已停止：{detail}"
#: What a call whose arguments its tool's schema refused is answered (a tool without a wording of its own).
BAD_ARGUMENTS = "错误：{tool} 的参数不对（{errors}）。请改正后重试。"


def with_call_ids(reply: AIMessage) -> AIMessage:
    """``reply``, its tool calls each with an id: one the server left out is generated (``call_…``)."""
    if all(call.get("id") for call in reply.tool_calls):
        return reply
    calls = [{**call, "id": call.get("id") or f"call_{uuid.uuid4().hex[:24]}"} for call in reply.tool_calls]
    return reply.model_copy(update={"tool_calls": calls})


class StepLimit(Exception):
    """A run asked the model ``rounds`` times and it still called tools."""

    def __init__(self, rounds: int) -> None:
        self.rounds = rounds
        super().__init__(f"the model still called tools after {rounds} rounds")


@dataclass
class ToolLoop:
    """``llm`` bound to ``tools`` once; :meth:`run` is one run over them (see the module docstring)."""

    llm: Any
    tools: Sequence[BaseTool]
    max_rounds: int

    def __post_init__(self) -> None:
        self.by_name = {tool.name: tool for tool in self.tools}
        self.model = self.llm.bind_tools(list(self.tools))

    async def run(self, system: SystemMessage, messages: list[BaseMessage], config: RunnableConfig, *,
                  guard: RunGuard | None = None, recorder: TurnRecorder | None = None,
                  applied: Callable[[str, str, dict], bool] | None = None) -> list[BaseMessage]:
        """Run until done; returns ``messages`` (changed in place) with every reply and answer.
        ``config``: handed to each tool (the run's ``ToolContext``). ``guard``: the run's limits;
        ``recorder``: its journal progress (replayed and kept); ``applied(turn_id, name, args)``:
        whether a call caught ``applying`` reached the store (``resume.already_applied``)."""
        rounds = 0
        while True:
            if guard is not None and guard.stopped:
                return messages
            if should_end(messages):
                return messages
            if rounds >= self.max_rounds:
                raise StepLimit(rounds)
            rounds += 1
            reply = recorded_reply(recorder)
            unsaved = False  # a new reply with calls is saved before any of them runs (in the first call's hop)
            if reply is None:
                reply = with_call_ids(await self.model.ainvoke([system, *messages]))
                unsaved = recorder is not None and remember_reply(recorder, reply)
            else:
                reply = with_call_ids(reply)  # (kept by an attempt before ids were given)
            messages.append(reply)
            if not reply.tool_calls:
                return messages
            for call in reply.tool_calls:
                name = str(call.get("name") or "")
                if guard is not None and not guard.take_call(name, known=name in self.by_name):
                    messages.append(ToolMessage(content=STOPPED.format(detail=guard.detail), tool_call_id=call["id"],
                                                name=name, status="error"))
                    continue
                messages.append(await run_blocking(self._answer, call, config, recorder, applied, unsaved))
                unsaved = False
            if unsaved:
                await run_blocking(recorder.save)

    def _answer(self, call: dict, config: RunnableConfig, recorder: TurnRecorder | None,
                applied: Callable[[str, str, dict], bool] | None, save_first: bool) -> ToolMessage:
        """One call's answer (blocking), kept in the attempt's progress when there is one."""
        if save_first and recorder is not None:
            recorder.save()
        if recorder is None or not call.get("id"):
            return self.answer_sync(call, config)
        return answer_recorded(recorder, call, lambda: self.answer_sync(call, config), applied)

    def answer_sync(self, call: dict, config: RunnableConfig) -> ToolMessage:
        """One call's answer (blocking): the tool's, or the tool list for a tool that does not exist."""
        tool = self.by_name.get(str(call.get("name") or ""))
        return self.unknown(call) if tool is None else self.invoke(tool, call, config)

    @staticmethod
    def invoke(tool: BaseTool, call: dict, config: RunnableConfig) -> ToolMessage:
        answer = getattr(tool, "answer", None)  # the writer's own tools (``tools.RunnerTool``)
        if callable(answer):
            return answer(call, config)
        try:
            result = tool.invoke({**call, "type": "tool_call"}, config)
        except ValidationError as exc:  # the writer's tools word their own (``registry.validation_message``)
            errors = "; ".join(f"{'.'.join(str(p) for p in e.get('loc', ()))}: {e.get('msg', '')}"
                               for e in exc.errors())
            return ToolMessage(content=BAD_ARGUMENTS.format(tool=tool.name, errors=errors), tool_call_id=call["id"],
                               name=tool.name, status="error")
        if isinstance(result, ToolMessage):
            return result
        return ToolMessage(content=str(result), tool_call_id=call["id"], name=tool.name)

    def unknown(self, call: dict) -> ToolMessage:
        name = str(call.get("name") or "")
        content = UNKNOWN_TOOL.format(requested_tool=name, available_tools=", ".join(self.by_name))
        return ToolMessage(content=content, tool_call_id=call["id"], name=name, status="error")


def run_tools_sync(loop: ToolLoop, system: SystemMessage, messages: list[BaseMessage],
                   config: RunnableConfig | None = None) -> list[BaseMessage]:
    """:meth:`ToolLoop.run` for a caller on a worker thread (blocking; no guard, no journal)."""
    config = config or {}
    rounds = 0
    while not should_end(messages):
        if rounds >= loop.max_rounds:
            raise StepLimit(rounds)
        rounds += 1
        reply: AIMessage = with_call_ids(loop.model.invoke([system, *messages]))
        messages.append(reply)
        if not reply.tool_calls:
            break
        messages.extend(loop.answer_sync(call, config) for call in reply.tool_calls)
    return messages
