"""Limits of one writer run: a model stuck in a loop, or one turn changing many memories at once.

:class:`RunGuard` counts a run's tool calls and the existing memories its changes touched (edits,
merges, deletes — not new memories, not hits). Past ``max_tool_calls`` or ``max_changed`` the run is stopped: the
call that crossed the line is answered with an error and no further call runs
(:class:`GuardedRun`), the model is not asked again, and ``consume`` raises :class:`TurnHeld` after
taking back everything the run wrote. The pipeline keeps such a turn in the failed list ("held")
instead of retrying it: a careful user would not want a mass change applied behind their back,
nor a looping model to be paid for five times. Retrying a held mass change on purpose
(``retry_failed``) lifts the memory limit for that turn; the tool-call limit always holds. A model
that keeps calling a tool that does not exist is stopped after ``max_unknown`` such calls, the
reason naming the tool; a run that would outlast LangGraph's step limit first is held as a loop too
(``consumer``), never retried as a model failure.
"""

from __future__ import annotations

import contextvars
import threading
from dataclasses import dataclass, field
from typing import Any

from langchain.agents.middleware import AgentMiddleware, hook_config
from langchain_core.messages import ToolMessage

from .. import kinds
from ..changes import MemoryChange

from .limits import DEFAULT_MAX_CHANGED, DEFAULT_MAX_TOOL_CALLS, TurnHeld

__all__ = ["DEFAULT_MAX_CHANGED", "DEFAULT_MAX_TOOL_CALLS", "TurnHeld", "RunGuard", "GuardedRun"]

TOOL_CALLS, MASS_CHANGE = "tool_calls", "mass_change"
#: Calls of tools that do not exist a run may make (each answered with the tool list) before it stops.
DEFAULT_MAX_UNKNOWN = 3


@dataclass
class RunGuard:
    """Counters of one run (shared between the run's tasks and the store's writing threads)."""

    max_tool_calls: int = DEFAULT_MAX_TOOL_CALLS
    max_changed: int | None = DEFAULT_MAX_CHANGED  # None: no limit (a held mass change the user retried)
    max_unknown: int = DEFAULT_MAX_UNKNOWN
    calls: int = 0
    unknown: int = 0
    changed: set[str] = field(default_factory=set)
    stopped: str | None = None
    detail: str = ""
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def saw(self, change: MemoryChange) -> None:
        """Count a change of this run (called on the writing thread)."""
        kind = kinds.kind(change.kind)
        # A reference count or a new memory changes nothing the person had (additions lose nothing;
        # the tool-call limit bounds them).
        if not kind.changes or kind.new:
            return
        with self._lock:
            self.changed.update(change.ids)
            if self.max_changed is not None and len(self.changed) > self.max_changed and not self.stopped:
                self.stopped = MASS_CHANGE
                self.detail = (f"本轮要改动的已有记忆太多（{len(self.changed)} 条以上，上限 {self.max_changed} 条），"
                               "已全部撤销并暂缓；确认无误可在失败列表里重试")

    def take_call(self, name: str = "", *, known: bool = True) -> bool:
        """Count one tool call (of a tool that does not exist when not ``known``); False when the
        run must stop instead of making it."""
        with self._lock:
            if self.stopped:
                return False
            self.calls += 1
            if not known:
                self.unknown += 1
                if self.unknown > self.max_unknown:
                    self.stopped = TOOL_CALLS
                    self.detail = (f"模型反复调用不存在的工具「{name[:40]}」（{self.unknown} 次），本轮已停止，"
                                   "写入已全部撤销并暂缓；请换一个能正确调用工具的模型后重试")
                    return False
            if self.calls > self.max_tool_calls:
                self.stopped = TOOL_CALLS
                self.detail = (f"模型在一轮里调用工具超过 {self.max_tool_calls} 次（可能陷入了循环），"
                               "本轮写入已全部撤销并暂缓")
                return False
            return True

    def held(self) -> TurnHeld | None:
        return TurnHeld(self.stopped, self.detail) if self.stopped else None


CURRENT: contextvars.ContextVar[RunGuard | None] = contextvars.ContextVar("sonetto_writer_guard", default=None)


class GuardedRun(AgentMiddleware):
    """Enforces the current :class:`RunGuard` (see the module docstring)."""

    async def awrap_tool_call(self, request, handler):  # type: ignore[override]
        guard = CURRENT.get()
        if guard is None:
            return await handler(request)
        call = request.tool_call
        if not guard.take_call(str(call.get("name") or ""), known=request.tool is not None):
            return ToolMessage(content=f"已停止：{guard.detail}", tool_call_id=call["id"], name=call["name"],
                               status="error")
        return await handler(request)

    @hook_config(can_jump_to=["end"])
    def before_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        guard = CURRENT.get()
        return {"jump_to": "end"} if guard is not None and guard.stopped else None

    @hook_config(can_jump_to=["end"])
    async def abefore_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        return self.before_model(state, runtime)
