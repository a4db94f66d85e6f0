"""How the chat checkpoints in ``sessions.db`` are (de)serialized: strictly, and without secrets. No Qt.

LangGraph's default serializer rebuilds any ``module.name(*args)`` a checkpoint names, so whoever
can write ``sessions.db`` could run code in the app. Ours rebuilds only the message types a chat
checkpoint holds (plus LangGraph's own list of safe value types: datetime, UUID, …); anything else
comes back as plain data, and nothing named in the file is ever imported or called for it.

An error that ends a graph step is stored by LangGraph as its ``repr`` (the ``__error__`` write);
servers echo the API key in error bodies, so that text is scrubbed of the key (and of anything
that looks like a key or a bearer token) before it is written.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from .llm_errors import scrub

#: (module, class) of every object a chat checkpoint stores (see ``graph.CompanionState``).
STORED_TYPES: tuple[tuple[str, str], ...] = (
    ("langchain_core.messages.human", "HumanMessage"),
    ("langchain_core.messages.ai", "AIMessage"),
    ("langchain_core.messages.tool", "ToolMessage"),
    ("langchain_core.messages.modifier", "RemoveMessage"),
)


class CheckpointSerializer(JsonPlusSerializer):
    """``JsonPlusSerializer`` with an allow-list (``STORED_TYPES``), no pickle, and errors scrubbed
    of ``secrets()`` (called at each write: the key may change while the app runs)."""

    def __init__(self, secrets: Callable[[], Iterable[str]] = tuple) -> None:
        super().__init__(pickle_fallback=False, allowed_json_modules=None, allowed_msgpack_modules=STORED_TYPES)
        self._secrets = secrets

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        if isinstance(obj, BaseException):
            obj = scrub(repr(obj), [s for s in self._secrets() if s])
        return super().dumps_typed(obj)
