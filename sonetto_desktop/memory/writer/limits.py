"""The writer's limits per turn and the exceptions of a turn the writer stops for a reason of its own
(held for crossing a limit, see ``guard.py``; tool calls written as text, see ``text_calls.py``).
Apart from ``guard`` so the pipeline uses them without importing LangChain."""

from __future__ import annotations

DEFAULT_MAX_TOOL_CALLS = 30
DEFAULT_MAX_CHANGED = 15
#: A backlog (more turns waiting than ``DRAIN_BURST``, e.g. after a day without a model, or what other
#: apps handed over) is written at most ``DRAIN_PER_MINUTE`` turns a minute once ``DRAIN_BURST`` went
#: at full speed: the model is not sent hundreds of requests in a few seconds.
DRAIN_BURST = 5
DRAIN_PER_MINUTE = 6.0
#: Turn ids of the undo that takes back a failed attempt (``consumer``; views may keep quiet about them).
ROLLBACK_PREFIX = "rollback-"


class TurnProblem(Exception):
    """The writer stopped a turn for a reason of its own, not the model server's or the disk's:
    ``detail`` says it to the person (a turn kept in the failed list, retried by hand); ``en``: the
    same in English, for an English UI (``status.describe_failure``)."""

    def __init__(self, detail: str, en: str = "") -> None:
        self.detail = detail
        self.en = en or detail
        super().__init__(detail)


class TurnHeld(TurnProblem):
    """A run crossed a limit; what it wrote was undone. ``reason``: ``tool_calls`` or ``mass_change``."""

    def __init__(self, reason: str, detail: str, en: str = "") -> None:
        self.reason = reason
        super().__init__(detail, en)


class CallsWrittenAsText(TurnProblem):
    """The model wrote its tool calls as text instead of calling the tools (the server does not turn
    them into tool calls): nothing was written, and the same model would do the same again."""

    def __init__(self) -> None:
        super().__init__("模型把工具调用写成了文字，没有真正调用工具，所以什么也没记下：请换一个支持工具调用"
                         "（function calling）的模型（llama.cpp 的服务需要加 --jinja 启动），再重试",
                         "the model wrote its tool calls as text instead of calling the tools, so nothing was "
                         "remembered: choose a model that supports tool calls (function calling) (a llama.cpp "
                         "server needs --jinja) and try again")
