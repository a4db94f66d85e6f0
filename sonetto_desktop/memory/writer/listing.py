"""What ``read_memories`` shows the writer agent: every memory while the store is small, a bounded
selection once it is large.

Listing every memory made the writer's prompt grow with the store (~66 k prompt tokens per turn
at 1000 memories, see docs/benchmarks.md). Above ``READ_ALL_MAX`` memories the listing
keeps the offline retriever's candidates for the current turn (``MechanicalRetriever.candidates``:
best matches first, filled up with recent and much-used memories) plus the few most recently
updated ones. Without a retriever (or when it fails) it keeps the most recent and most-hit ones.
Lines keep one format (``ID | 分区 | hit N | 日期 | 内容``) and one order (by section, then date),
whatever the selection; the first line says how many memories exist and what is listed.

Blocking (store read, index build): tools run on LangChain's worker threads, never on the loop.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Callable, Mapping, Protocol

from ..base import BaseMemoryManager
from ..item import MemoryItem

log = logging.getLogger(__name__)

READ_ALL_MAX = 60  # up to this many memories, read_memories lists them all
RELATED_K = 40  # above it: this many candidates for the current turn ...
RECENT_N = 5  # ... plus this many most recently updated memories
MAX_QUERY_CHARS = 2000  # the turn text handed to the retriever (as recall bounds its queries)

COLUMNS = "（ID | 分区 | 引用次数 | 最近更新日期 | 内容）"


class CandidateSource(Protocol):
    """What the listing needs from a retriever (``MechanicalRetriever`` has it)."""

    def candidates(self, prompt: str, k: int = ..., *, now: datetime | None = ...) -> list[dict]: ...


RetrieverProvider = Callable[[], "CandidateSource | None"]


@dataclass(frozen=True)
class Listing:
    """``text`` for the model; ``total`` memories in the store, ``shown`` of them listed;
    ``selection``: ``"all"``, ``"related"`` (retriever) or ``"recent"`` (no retriever)."""

    text: str
    total: int
    shown: int
    selection: str


def _updated(item: MemoryItem) -> str:
    return str(item.latest_update_time or "")


def memory_line(mid: str, item: MemoryItem) -> str:
    day = _updated(item)[:10] or "未知"
    return f"{mid} | {item.theme} | hit {int(item.hit or 0)} | {day} | {item.description}"


def _lines(items: Mapping[str, MemoryItem], ids: list[str]) -> list[str]:
    rows = sorted(ids, key=lambda mid: (items[mid].theme, _updated(items[mid]), mid))
    return [memory_line(mid, items[mid]) for mid in rows]


def _most_recent(items: Mapping[str, MemoryItem], n: int) -> list[str]:
    return sorted(items, key=lambda mid: (_updated(items[mid]), mid), reverse=True)[:max(n, 0)]


def _recent_and_used(items: Mapping[str, MemoryItem], k: int) -> list[str]:
    """Half the most recently updated, the rest the most hit (recent first among equals)."""
    chosen = dict.fromkeys(_most_recent(items, (k + 1) // 2))
    used = sorted(items, key=lambda mid: (int(items[mid].hit or 0), _updated(items[mid]), mid), reverse=True)
    for mid in used:
        if len(chosen) >= k:
            break
        chosen.setdefault(mid)
    return list(chosen)


def _related(retriever: CandidateSource, items: Mapping[str, MemoryItem], turn_text: str, k: int,
             now: datetime | None) -> list[str]:
    query = turn_text.strip()
    if len(query) > MAX_QUERY_CHARS:
        query = query[:MAX_QUERY_CHARS]
    found = retriever.candidates(query, k, now=now) if now is not None else retriever.candidates(query, k)
    # The index follows the store through its change feed; the store read just now is the truth.
    return [c["id"] for c in found[:k] if c.get("id") in items]


def read_listing(
    mm: BaseMemoryManager,
    turn_text: str | None = None,
    retriever: RetrieverProvider | None = None,
    *,
    now: datetime | None = None,
    read_all_max: int = READ_ALL_MAX,
    related_k: int = RELATED_K,
    recent_n: int = RECENT_N,
) -> Listing:
    """The ``read_memories`` text for the turn ``turn_text`` (see the module docstring)."""
    items = mm.all_items()
    total = len(items)
    if not items:
        return Listing("记忆库目前是空的。", 0, 0, "all")
    if total <= read_all_max:
        head = f"共 {total} 条记忆{COLUMNS}："
        return Listing("\n".join([head, *_lines(items, list(items))]), total, total, "all")
    related: list[str] | None = None
    if retriever is not None and turn_text and turn_text.strip():
        try:
            source = retriever()
            if source is not None:
                related = _related(source, items, turn_text, related_k, now)
        except Exception:
            log.exception("read_memories: the offline retriever failed; listing recent memories instead")
            related = None
    if related is None:
        chosen, selection = _recent_and_used(items, related_k), "recent"
        what = "最近更新和引用最多的 {n} 条"
    else:
        chosen, selection = related, "related"
        what = "与本轮对话相关的 {n} 条（另含最近更新的几条）"
    chosen = list(dict.fromkeys([*chosen, *_most_recent(items, recent_n)]))
    head = (f"共 {total} 条记忆，条目较多，下面只列出{what.format(n=len(chosen))}。"
            f"未列出的条目仍在记忆库里；已知 ID 的（如本轮对话提到的）可以直接使用。{COLUMNS}：")
    return Listing("\n".join([head, *_lines(items, chosen)]), total, len(chosen), selection)

