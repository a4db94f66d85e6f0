"""A MemoryService over a test's store, for fixtures: ``yield from memory_service_over(store)``."""

from __future__ import annotations

from typing import Iterator

from sonetto_desktop.ui.memory_service import MemoryService


def memory_service_over(store) -> Iterator[MemoryService]:
    """Yields the service; closes it (its worker and bridge) and deletes it after the test."""
    service = MemoryService(store)
    yield service
    service.close()
    service.deleteLater()
