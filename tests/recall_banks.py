"""A small hand-written memory bank behind a real offline retriever, for the recall tests."""

from __future__ import annotations

import contextlib
from datetime import datetime, timedelta
from pathlib import Path
from typing import Iterator

from sonetto_desktop.memory import MemoryItem, SqliteMemoryManager
from sonetto_desktop.memory.retrieval.mechanical import MechanicalRetriever


@contextlib.contextmanager
def bank_retriever(path: Path, bank: dict[str, tuple[str, str]], now: datetime, *,
                   age: timedelta = timedelta(days=10)) -> Iterator[MechanicalRetriever]:
    """``bank``: id -> (description, theme), all written ``age`` before ``now``; no saved index."""
    mm = SqliteMemoryManager(path)
    stamp = (now - age).isoformat()
    mm.import_items({mid: MemoryItem(d, t, latest_update_time=stamp) for mid, (d, t) in bank.items()})
    retriever = MechanicalRetriever(mm, now=lambda: now, index_path=False)
    try:
        yield retriever
    finally:
        retriever.close()
        mm.close()
