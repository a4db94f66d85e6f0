"""How the chat checkpoints in ``sessions.db`` are (de)serialized: strictly, and without secrets. No Qt.

LangGraph's default serializer rebuilds any ``module.name(*args)`` a checkpoint names, so whoever
can write ``sessions.db`` could run code in the app. Ours rebuilds only the message types a chat
checkpoint holds (plus LangGraph's own list of safe value types: datetime, UUID, …); anything else
comes back as plain data, and nothing named in the file is ever imported or called for it. That holds
for both formats a row may be typed as: ``msgpack`` (what LangGraph writes today) and ``json`` (older
LangGraph, or a crafted file: LangChain's JSON loader would otherwise build any of its "core" classes,
a PromptTemplate, a RunnableSequence). A message of an allowed type that cannot be rebuilt makes the
row :class:`~.storage_errors.UnreadableCheckpoint`: that session's turn fails with a ``storage``
error saying so (reason ``unreadable``); the app and the other sessions go on.

An error that ends a graph step is stored by LangGraph as its ``repr`` (the ``__error__`` write);
servers echo the API key in error bodies, so that text is scrubbed of the key (and of anything
that looks like a key or a bearer token) before it is written.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import importlib

from langchain_core.load.load import Reviver
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer

from .llm_errors import scrub
from .storage_errors import UnreadableCheckpoint

__all__ = ["STORED_TYPES", "CheckpointSerializer", "UnreadableCheckpoint"]

#: (module, class) of every object a chat checkpoint stores (see ``graph.CompanionState``).
STORED_TYPES: tuple[tuple[str, str], ...] = (
    ("langchain_core.messages.human", "HumanMessage"),
    ("langchain_core.messages.ai", "AIMessage"),
    ("langchain_core.messages.tool", "ToolMessage"),
    ("langchain_core.messages.modifier", "RemoveMessage"),
)


#: LangChain's ``lc: 1`` JSON constructor kinds; any other than a ``constructor`` of an allowed id
#: (a ``secret`` read from the environment, ``not_implemented``) is left as plain data.
LC1_KINDS = ("constructor", "secret", "not_implemented")


class CheckpointSerializer(JsonPlusSerializer):
    """``JsonPlusSerializer`` with an allow-list (``STORED_TYPES``, for msgpack and JSON rows alike),
    no pickle, and errors scrubbed of ``secrets()`` (called at each write: the key may change while
    the app runs)."""

    def __init__(self, secrets: Callable[[], Iterable[str]] = tuple) -> None:
        super().__init__(pickle_fallback=False, allowed_json_modules=[(*module.split("."), name)
                                                                      for module, name in STORED_TYPES],
                         allowed_msgpack_modules=STORED_TYPES)
        self._secrets = secrets
        # lc 1 (LangChain's own JSON form of a message): only the ids of the stored message types
        self._messages = Reviver(allowed_objects=[getattr(importlib.import_module(module), name)
                                                  for module, name in STORED_TYPES])
        self._message_ids = frozenset(self._messages.allowed_class_paths or ())

    def _reviver(self, value: dict[str, Any]) -> Any:
        """A JSON row's object (inner ones first): an allowed message rebuilt, anything else that
        names a class as it is. ``lc: 2`` goes to LangGraph, which rebuilds its safe types and the
        ``allowed_json_modules`` (ours: the stored message types) only."""
        if value.get("lc") == 1 and value.get("type") in LC1_KINDS:
            key = value.get("id")
            if value.get("type") != "constructor" or not isinstance(key, list) or tuple(key) not in self._message_ids:
                return value
            try:
                return self._messages(value)
            except Exception as exc:
                raise UnreadableCheckpoint(f"a checkpoint's {key[-1]} cannot be rebuilt: {type(exc).__name__}") from exc
        return super()._reviver(value)

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        if isinstance(obj, BaseException):
            obj = scrub(repr(obj), [s for s in self._secrets() if s])
        return super().dumps_typed(obj)
