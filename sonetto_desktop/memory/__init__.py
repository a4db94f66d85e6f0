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
]
