"""Tool calls a model wrote as text: ``<tool_call>{"name": "create_memory", ...}</tool_call>`` or
``create_memory(content=...)`` in its answer, with no tool actually called. A server without a tool
parser for the model (llama.cpp without ``--jinja``, some Ollama and LM Studio models) passes them on
as words; the writer would otherwise end the turn as "nothing to remember" and lose it silently."""

from __future__ import annotations

import re

from .memory_tools import MEMORY_TOOLS

#: The turn writer's tool names (from its registry).
WRITER_TOOLS = MEMORY_TOOLS.names
_NAMES = "|".join(WRITER_TOOLS)
_CALL_AS_TEXT = re.compile(
    r"<\|?tool_calls?\|?>"  # <tool_call>, <|tool_call|>, <tool_calls>
    rf"|\b(?:{_NAMES})\s*\("  # create_memory(content=...)
    rf"|[\"']name[\"']\s*:\s*[\"'](?:{_NAMES})[\"']"  # {"name": "create_memory", ...}
)


def calls_written_as_text(text: str) -> bool:
    """Whether a final answer holds tool calls written out instead of made."""
    return bool(text) and _CALL_AS_TEXT.search(text) is not None
