"""Which recall strategy to use before a reply (湾流 section 4)."""

from __future__ import annotations

from enum import Enum


class RetrievalMode(str, Enum):
    """Recall strategy.

    - ``LLM``: the model reads the numbered memory bank and picks what matters. Past a size
      threshold the recall switches to ``HYBRID`` so the prompt stays bounded.
    - ``MECHANICAL``: offline, Chinese-aware keyword / time matching. Never needs an LLM.
    - ``HYBRID``: the mechanical retriever shortlists candidates, the LLM picks among them.
    """

    LLM = "llm"
    MECHANICAL = "mechanical"
    HYBRID = "hybrid"

    @classmethod
    def coerce(cls, value: "RetrievalMode | str") -> "RetrievalMode":
        """Accept a mode or its value (case-insensitive); a clear ``ValueError`` otherwise."""
        if isinstance(value, cls):
            return value
        if isinstance(value, str):
            try:
                return cls(value.strip().lower())
            except ValueError:
                pass
        choices = ", ".join(mode.value for mode in cls)
        raise ValueError(f"unknown retrieval mode {value!r}; expected one of: {choices}")

    def __str__(self) -> str:
        return self.value
