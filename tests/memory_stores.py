"""Store factories shared by the memory tests: one contract, every backend."""

from __future__ import annotations

from pathlib import Path

from sonetto_desktop.memory import BaseMemoryManager, SqliteMemoryManager, YamlMemoryManager

BACKENDS = ("yaml", "sqlite")


def store_path(kind: str, folder: Path) -> Path:
    return folder / ("memory.yaml" if kind == "yaml" else "memory.db")


def open_store(kind: str, folder: Path) -> BaseMemoryManager:
    path = store_path(kind, folder)
    return YamlMemoryManager(path) if kind == "yaml" else SqliteMemoryManager(path)
