"""The 湾流 (Gulf Stream) memory domain: items, stores, retrieval and the background writer. No Qt."""

from .base import BaseMemoryManager, SelfCheckReport
from .errors import MemoryNotFound, StoreCorrupt
from .events import EventFeed, MemoryChange, MemoryEvent
from .item import MemoryItem
from .sqlite_store import SqliteMemoryManager
from .yaml_store import YamlMemoryManager

__all__ = [
    "BaseMemoryManager",
    "EventFeed",
    "MemoryChange",
    "MemoryEvent",
    "MemoryItem",
    "MemoryNotFound",
    "SelfCheckReport",
    "SqliteMemoryManager",
    "StoreCorrupt",
    "YamlMemoryManager",
    "LongTermMemory",
    "RetrievalMode",
]


def __getattr__(name: str):
    # Lazy: the writer pulls in LangChain, which plain store users (CLI, tests) should not pay for.
    if name == "LongTermMemory":
        from .writer.ltm import LongTermMemory

        return LongTermMemory
    if name == "RetrievalMode":
        from .retrieval.modes import RetrievalMode

        return RetrievalMode
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
