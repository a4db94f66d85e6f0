"""What a memory hygiene pass found and did (``Conflict``, ``HygieneReport``), apart from the pass
itself so the scheduler (``hygiene.py``) and the UI use them without importing the LLM stack."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from .. import kinds
from ..changes import MemoryChange
from .index import MOMENT_THEME


@dataclass(frozen=True)
class Conflict:
    """Two memories that contradict each other, for the user to settle."""

    ids: tuple[str, str]
    note: str
    found_at: str
    turn_id: str

    def to_dict(self) -> dict[str, Any]:
        return {"ids": list(self.ids), "note": self.note, "found_at": self.found_at, "turn_id": self.turn_id}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Conflict":
        ids = [str(i) for i in data.get("ids") or ()][:2]
        return cls((ids[0], ids[1]) if len(ids) == 2 else ("", ""), str(data.get("note") or ""),
                   str(data.get("found_at") or ""), str(data.get("turn_id") or ""))


@dataclass
class HygieneReport:
    """What one pass did. ``changes``: every change with its turn id; ``conflicts``: flagged pairs;
    ``expired``/``pairs``: what was handed to the model; ``skipped``: why the model was not asked."""

    turn_id: str
    started_at: datetime
    changes: list[MemoryChange] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)
    expired: int = 0
    pairs: int = 0
    llm_calls: int = 0
    prompt_tokens: int = 0
    skipped: str = ""

    @property
    def touched(self) -> int:
        return len({mid for change in self.changes if change.kind != kinds.HIT for mid in change.ids})

    def counts(self) -> Counter[str]:
        counted: Counter[str] = Counter()
        for change in self.changes:
            if change.kind == kinds.UPDATE and (change.state(change.ids[0]) or {}).get("theme") == MOMENT_THEME:
                counted["moment"] += 1
            elif change.kind != kinds.HIT:
                counted[change.kind] += 1
        return counted

    def summary(self) -> tuple[str, str]:
        """(zh, en) one line, e.g. "整理了 3 条记忆：合并 1 组重复，删除 1 条……"."""
        c = self.counts()
        zh_parts, en_parts = [], []
        for kind, zh, en in ((kinds.MERGE, "合并 {n} 组重复", "merged {n} duplicate(s)"),
                             ("moment", "{n} 条过期待办改为瞬间", "turned {n} past to-do(s) into moments"),
                             (kinds.DELETE, "删除 {n} 条过期待办", "deleted {n} past to-do(s)"),
                             (kinds.UPDATE, "改写 {n} 条", "rewrote {n}")):
            if c[kind]:
                zh_parts.append(zh.format(n=c[kind]))
                en_parts.append(en.format(n=c[kind]))
        if self.conflicts:
            zh_parts.append(f"发现 {len(self.conflicts)} 处矛盾待你确认")
            en_parts.append(f"found {len(self.conflicts)} contradiction(s) for you to check")
        if not self.touched:
            zh = "记忆很整齐，无需整理" + (f"；{'，'.join(zh_parts)}" if zh_parts else "")
            en = "Memories are tidy" + (f"; {', '.join(en_parts)}" if en_parts else "")
            return zh, en
        return (f"整理了 {self.touched} 条记忆：{'，'.join(zh_parts)}",
                f"Tidied {self.touched} memories: {', '.join(en_parts)}")
