"""Limits of one writer run: a model stuck in a loop, or one turn changing many memories at once.

:class:`RunGuard` counts a run's tool calls and the existing memories its changes touched (edits,
merges, deletes — not new memories, not hits). Past ``max_tool_calls`` or ``max_changed`` the run is stopped: the
call that crossed the line is answered with an error and no further call runs
(``tool_loop.ToolLoop``), the model is not asked again, and ``consume`` raises :class:`TurnHeld` after
taking back everything the run wrote. The pipeline keeps such a turn in the failed list ("held")
instead of retrying it: a careful user would not want a mass change applied behind their back,
nor a looping model to be paid for five times. Retrying a held mass change on purpose
(``retry_failed``) lifts the memory limit for that turn; the tool-call limit always holds. A model
that keeps calling a tool that does not exist is stopped after ``max_unknown`` such calls, the
reason naming the tool; a run that would outlast the loop's round limit first is held as a loop too
(``consumer``), never retried as a model failure.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from .. import kinds
from ..changes import MemoryChange

from .limits import DEFAULT_MAX_CHANGED, DEFAULT_MAX_TOOL_CALLS, TurnHeld

__all__ = ["DEFAULT_MAX_CHANGED", "DEFAULT_MAX_TOOL_CALLS", "TurnHeld", "RunGuard"]

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
    detail_en: str = ""  # the same in English (an English UI)
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
                self.detail_en = (f"this turn would change too many existing memories ({len(self.changed)} or "
                                  f"more, at most {self.max_changed}): all of it was undone and held; if it is "
                                  "right, retry it in the failed list")

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
                    self.detail_en = (f"the model kept calling a tool that does not exist, “{name[:40]}” "
                                      f"({self.unknown} times): the turn was stopped, what it wrote undone and "
                                      "held; choose a model that calls the tools correctly and try again")
                    return False
            if self.calls > self.max_tool_calls:
                self.stopped = TOOL_CALLS
                self.detail = (f"模型在一轮里调用工具超过 {self.max_tool_calls} 次（可能陷入了循环），"
                               "本轮写入已全部撤销并暂缓")
                self.detail_en = (f"the model called tools more than {self.max_tool_calls} times in one turn "
                                  "(it may be stuck in a loop): what the turn wrote was undone and held")
                return False
            return True

    def held(self) -> TurnHeld | None:
        return TurnHeld(self.stopped, self.detail, self.detail_en) if self.stopped else None
