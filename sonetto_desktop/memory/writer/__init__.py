"""The background memory writer (湾流 sections 2–3): CRUD tools, prompts, the writer agent and the
durable pipeline in front of it. No Qt."""

from .consumer import ConsumeResult, MemoryConsumer
from .events import WriterEvent
from .journal import JournalEntry, TurnJournal, default_journal_path
from .pipeline import MemoryWriter
from .prompts import COLD_START_SYSTEM, UPDATE_SYSTEM
from .status import WriterStatus
from .tools import make_memory_tools

__all__ = [
    "COLD_START_SYSTEM",
    "ConsumeResult",
    "JournalEntry",
    "MemoryConsumer",
    "MemoryWriter",
    "TurnJournal",
    "UPDATE_SYSTEM",
    "WriterEvent",
    "WriterStatus",
    "default_journal_path",
    "make_memory_tools",
]
