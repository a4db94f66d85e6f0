"""The read side of ``LongTermMemory``: recall delegated to ``retrieval.MemoryRecall``.

Imported lazily so the writer works (and its tests run) without the retrieval package.
"""

from __future__ import annotations

from typing import Any


class RecallSide:
    """Mixin: needs ``_mm``, ``_llm``, ``events``, ``_recall`` and ``_recall_timeout`` on the instance."""

    _recall: Any

    def _recaller(self) -> Any:
        if self._recall is None:
            from ..retrieval.recall import MemoryRecall

            self._recall = MemoryRecall(self._mm, self._llm, events=self.events,  # type: ignore[attr-defined]
                                        timeout=self._recall_timeout)  # type: ignore[attr-defined]
        return self._recall

    @staticmethod
    def _mode(mode: Any) -> Any:
        from ..retrieval.modes import RetrievalMode

        return RetrievalMode.LLM if mode is None else RetrievalMode.coerce(mode)

    def get_related_memory_from(self, prompt: str, mode: Any = None) -> Any:
        """Memories related to ``prompt``: ``[{id, description, theme}]``, most relevant first.
        Blocking (see ``MemoryRecall.retrieve``); default mode ``RetrievalMode.LLM``."""
        return self._recaller().retrieve(prompt, self._mode(mode))

    async def aget_related_memory_from(self, prompt: str, mode: Any = None) -> Any:
        """Async ``get_related_memory_from``: the LLM call never blocks the loop."""
        return await self._recaller().aretrieve(prompt, self._mode(mode))

    def related_retriever(self) -> Any:
        """The recall's offline retriever, shared with the writer's ``read_memories`` (one index per
        store); ``None`` when the retrieval package is unavailable. Builds it on first use (blocking)."""
        try:
            return self._recaller().mechanical
        except ImportError:
            return None

    def warm_up_recall(self) -> None:
        """Load the tokenizer and build the offline index now (blocking: call it in a worker thread)."""
        self._recaller().mechanical.warm_up()

    def close(self) -> None:
        """Release the recall's offline index (the store itself belongs to the caller)."""
        if self._recall is not None:
            self._recall.close()
