"""The 湾流 (Gulf Stream) memory domain: items, stores, retrieval and the background writer. No Qt."""

from .stores.base import BaseMemoryManager, SelfCheckReport
from .changes import MemoryChange, Turn
from .errors import MemoryNotFound, StoreCorrupt
from .events import EventFeed
from .item import MemoryItem
from .operations import MemoryOperations
from .stores.sqlite import SqliteMemoryManager
from .stores.yaml.store import YamlMemoryManager

__all__ = [
    "BaseMemoryManager",
    "EventFeed",
    "MemoryChange",
    "MemoryItem",
    "MemoryOperations",
    "MemoryNotFound",
    "SelfCheckReport",
    "SqliteMemoryManager",
    "StoreCorrupt",
    "Turn",
    "YamlMemoryManager",
    "LongTermMemory",
    "MemoryWriter",
    "RetrievalMode",
]


def __getattr__(name: str):
    # Lazy: the writer pulls in LangChain, which plain store users (CLI, tests) should not pay for.
    if name == "LongTermMemory":
        from .ltm import LongTermMemory

        return LongTermMemory
    if name == "MemoryWriter":
        from .writer.pipeline import MemoryWriter

        return MemoryWriter
    if name == "RetrievalMode":
        from .retrieval.modes import RetrievalMode

        return RetrievalMode
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
