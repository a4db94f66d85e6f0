"""A small hand-written memory bank behind a real offline retriever, for the recall tests."""

from __future__ import annotations

import contextlib
import re
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


_LINE = re.compile(r"^\[(\d+)\] \((.+?)\) (.*)$")
_DAY = re.compile(r"^# (?:(\d{4})年)?(\d{1,2})月(\d{1,2})日$")
_HIT = re.compile(r"\[(\d+)\] (\d+) 次")


def parse_listing(text: str) -> dict[int, tuple[str, str, str]]:
    """number -> (theme, description, day) of each numbered memory of a recall request (the day,
    as ``YYYY-MM-DD``, from the ``# 2026年11月2日`` / ``# 11月3日`` heading above it)."""
    found: dict[int, tuple[str, str, str]] = {}
    day, year = "", ""
    for line in text.splitlines():
        heading = _DAY.match(line)
        if heading:
            year = heading[1] or year
            day = f"{year}-{int(heading[2]):02d}-{int(heading[3]):02d}"
            continue
        match = _LINE.match(line)
        if match:
            found[int(match[1])] = (match[2], match[3], day)
    return found


def parse_hits(text: str) -> dict[int, int]:
    """number -> hit count, from the request's "常被提起的记忆" line."""
    lines = text.splitlines()
    at = lines.index("## 常被提起的记忆")
    return {int(n): int(h) for n, h in _HIT.findall(lines[at + 1])}
