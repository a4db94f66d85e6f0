"""Memory recall (湾流 section 4): which memories matter for the user's message.

``MemoryRecall`` is the entry point; ``RetrievalMode`` picks LLM, MECHANICAL or HYBRID.
``MechanicalRetriever`` (offline, Chinese-aware) is imported on first access: building it pulls
in jieba and numpy, which LLM-only callers should not pay for at import time.
"""

from __future__ import annotations

from typing import Any

from .llm_parse import UnparseableAnswer, parse_indices
from .llm_retriever import LLMRetriever, RecallFailed
from .modes import RetrievalMode
from .recall import MemoryRecall

__all__ = [
    "LLMRetriever",
    "MechanicalRetriever",
    "MemoryRecall",
    "RecallFailed",
    "RetrievalMode",
    "UnparseableAnswer",
    "parse_indices",
]


def __getattr__(name: str) -> Any:
    if name == "MechanicalRetriever":
        from .mechanical import MechanicalRetriever

        return MechanicalRetriever
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
