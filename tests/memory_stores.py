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


def backend_store_fixture(name: str = "mm"):
    """A fixture ``name`` giving a fresh store of each backend in ``tmp_path`` (closed afterwards).

    Use as ``mm = backend_store_fixture()`` in a test module."""
    import pytest

    @pytest.fixture(params=BACKENDS, name=name)
    def store(request, tmp_path):
        opened = open_store(request.param, tmp_path)
        yield opened
        opened.close()

    return store


def yaml_store_fixture(name: str = "mm"):
    """A fixture ``name`` giving a fresh YAML store ``tmp_path/memory.yaml`` (closed afterwards)."""
    import pytest

    @pytest.fixture(name=name)
    def store(tmp_path):
        opened = YamlMemoryManager(tmp_path / "memory.yaml")
        yield opened
        opened.close()

    return store
