"""Fewer model calls per writer run.

A ReAct loop asks the model once more after every round of tool calls, so a turn that writes one
memory costs two full prompts — the second only to hear "已记录". The writer's message already
holds the memory listing, so the model can issue every call in its first reply; once a round of
tool calls has all succeeded, nothing is left for the model to do. :func:`should_end` ends the run
there (``tool_loop.ToolLoop``). The model is asked again only when a call failed (it may correct it)
or when it asked to read the listing (it wants to act on what it read).
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import ToolMessage

#: Tool calls after which the model must see the result before the run can end.
READ_TOOLS = frozenset({"read_memories"})


def should_end(messages: list[Any]) -> bool:
    """True when the messages end with a round of tool results that all succeeded and none of
    which was a read."""
    tail = []
    for msg in reversed(messages):
        if not isinstance(msg, ToolMessage):
            break
        tail.append(msg)
    if not tail:
        return False
    return all(msg.status != "error" and msg.name not in READ_TOOLS for msg in tail)
