"""The background memory writer (湾流 sections 2–3): CRUD tools, prompts, the writer agent and the
durable pipeline in front of it. No Qt.

The names below are imported on first access: the agent (``consumer``) and the tools pull in
LangChain, which the app imports only when the first turn is written (``pipeline`` does not)."""

from __future__ import annotations

import importlib
from typing import Any

_WHERE = {
    "COLD_START_SYSTEM": "prompts", "UPDATE_SYSTEM": "prompts", "ConsumeResult": "consumer",
    "MemoryConsumer": "consumer", "JournalEntry": "journal", "TurnJournal": "journal",
    "default_journal_path": "journal", "MemoryWriter": "pipeline", "WriterEvent": "events",
    "WriterStatus": "status", "make_memory_tools": "tools",
}

__all__ = ["COLD_START_SYSTEM", "ConsumeResult", "JournalEntry", "MemoryConsumer", "MemoryWriter", "TurnJournal",
           "UPDATE_SYSTEM", "WriterEvent", "WriterStatus", "default_journal_path", "make_memory_tools"]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
