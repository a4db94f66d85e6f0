"""LongTermMemory: the seed's read and write interface for the companion graph (湾流 section 3),
composed of the two parts that do the work — :class:`~.retrieval.recall.MemoryRecall` (which
memories matter for this message) and :class:`~.writer.pipeline.MemoryWriter` (remember this turn,
in the background). It holds no state of its own."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

if TYPE_CHECKING:
    from .retrieval.recall import MemoryRecall
    from .writer.pipeline import MemoryWriter


class LongTermMemory:
    def __init__(self, recall: "MemoryRecall", writer: "MemoryWriter | None" = None) -> None:
        self.recall = recall
        self.writer = writer

    def get_related_memory_from(self, prompt: str, mode: Any = None, context: str = "") -> list[dict[str, Any]]:
        """Memories related to ``prompt`` (blocking): ``[{id, description, theme, date}]``. ``context``:
        the conversation's lines before it (``MemoryRecall.retrieve``)."""
        return self.recall.retrieve(prompt, mode if mode is not None else "llm", context)

    async def aget_related_memory_from(self, prompt: str, mode: Any = None, context: str = "") -> list[dict[str, Any]]:
        """The same, without blocking the loop (the recall's own timeout and fallback apply)."""
        return await self.recall.aretrieve(prompt, mode if mode is not None else "llm", context)

    async def send_history(self, turn_messages: Any, session_id: str | None = None,
                           turn_id: str | None = None) -> str | None:
        """Hand a finished turn to the background writer (journaled first); ``None`` without one."""
        if self.writer is None:
            return None
        return await self.writer.send_history(turn_messages, session_id=session_id, turn_id=turn_id)

    async def take_back(self, turn_id: str) -> bool:
        """A turn handed to the writer (``send_history``) that its chat did not keep after all: the
        reply was stopped, or the turn failed, after it was handed. It is not written (taken out of the
        queue and the journal), or what it wrote is taken back (``forget.withdraw_turns``). False when
        the turn was not handed lately (nothing to do)."""
        writer = self.writer
        if writer is None or not writer.was_handed(turn_id):
            return False
        from .forget import STOPPED_REASON, withdraw_turns

        await withdraw_turns(writer.ops, writer, [turn_id], reason=STOPPED_REASON)
        return True

    async def send_history_from_session(self, session_id: str, messages: Sequence[Any]) -> str | None:
        if self.writer is None:
            return None
        return await self.writer.send_history_from_session(session_id, messages)
