"""Errors of the memory domain."""

from __future__ import annotations

from typing import Any

from ..redaction import redact, scrub  # noqa: F401 - re-exported for the domain


class MemoryError_(Exception):
    """Base class of memory-store errors (named with a trailing underscore: ``MemoryError`` is a builtin)."""


class MemoryNotFound(MemoryError_, KeyError):
    """No memory (or trash entry) with this id."""

    def __init__(self, memory_id: str, where: str = "memory store") -> None:
        self.memory_id = memory_id
        super().__init__(f"no memory with id {memory_id!r} in the {where}")

    def __str__(self) -> str:  # KeyError would repr() the message
        return self.args[0]


class StoreCorrupt(MemoryError_):
    """The store cannot be parsed. Nothing is written over it until the user repairs or restores it."""

    def __init__(self, path: str, detail: str, backup: str | None = None) -> None:
        self.path = path
        self.detail = detail
        self.backup = backup
        hint = f"; the last good version is in {backup}" if backup else ""
        super().__init__(f"memory store {path} cannot be read: {detail}{hint}")


def api_key_of(llm: Any) -> str:
    """The API key a chat model sends ("" when it has none we can see), so error texts can scrub it."""
    key = getattr(llm, "openai_api_key", None)
    if hasattr(key, "get_secret_value"):
        key = key.get_secret_value()
    return str(key or "")


class StoreOffline(MemoryError_):
    """The memory server cannot be reached: the store is read-only (its local copy) until it is back.
    Nothing was written; the change can be made again once the server answers."""

    def __init__(self, where: str, detail: str) -> None:
        self.where = where
        self.detail = detail
        self.zh = f"记忆服务器暂时连不上，现在只能查看、不能修改（{where}：{detail}）"
        super().__init__(f"记忆服务器暂时连不上，只能查看 / the memory server {where} cannot be reached ({detail});"
                         " read-only until it is back")
