"""Changes made elsewhere — the command line, another AI app (MCP), another program on the same
store — told as theirs, in one quiet notice per source that grows ("命令行：新增 5 条记忆") instead
of a pile of "记住了：…" toasts worded as if Sonetto had remembered them. No Qt."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from ..history_import.ledger import batch_seq
from ..history_import.model import import_source
from ..memory import kinds
from ..memory.changes import AGENT, CLI, EXTERNAL, USER, MemoryChange
from .i18n import translate


def from_elsewhere(change: MemoryChange) -> bool:
    """A content change by someone other than the person in this window or Sonetto's writer."""
    return change.actor not in (USER, AGENT) and bool(kinds.group(change.kind))


def shown_device(device: Any) -> str:
    """A computer's name as the window shows it (a history entry's or a change's ``device``): one line, at most
    24 characters; "" for none."""
    name = " ".join(str(device or "").split())
    return name if len(name) <= 24 else name[:23] + "…"


def changed_elsewhere_on(item: Any, this_device: str) -> str:
    """The computer ``item``'s (a ``MemoryItem``'s) last change was made on, shown, when another one sharing the
    memories made it; "" when this computer made it or its history does not say (a local store, or entries
    written before the computer was recorded)."""
    history = getattr(item, "history", None) or []
    last = history[-1] if history and isinstance(history[-1], dict) else {}
    device = shown_device(last.get("device"))
    return "" if device == shown_device(this_device) else device


def source_name(actor: str) -> str:
    """Who, in words: 命令行, <app>（其他应用）, 导入（ChatGPT）, 其他程序."""
    imported = import_source(actor)
    if imported is not None:
        return translate("OthersNotice", "导入（{0}）").format(imported)
    if actor == CLI:
        return translate("OthersNotice", "命令行")
    if actor.startswith("mcp:"):
        return translate("OthersNotice", "{0}（其他应用）").format(actor[4:].strip() or "MCP")
    if actor == EXTERNAL:
        return translate("OthersNotice", "其他程序")
    return translate("OthersNotice", "其他程序（{0}）").format(actor)


@dataclass
class SourceTally:
    """What one source changed since its notice appeared. ``device``: the computer it changed them on,
    when that is another one sharing the memories (a change another device wrote: ``extra["device"]``)."""

    actor: str
    counts: Counter = field(default_factory=Counter)
    ids: list[str] = field(default_factory=list)  # the memories touched that still exist, newest last
    device: str = ""
    run: str = ""  # the history import its changes are of (their turn ids': ``imp-…``), or ""

    @classmethod
    def of(cls, change: MemoryChange) -> "SourceTally":
        """An empty tally for ``change``'s source (its actor, and its device when another wrote it)."""
        return cls(change.actor, device="" if change.local else shown_device(change.extra.get("device")),
                   run=_import_of(change))

    def goes_on(self, change: MemoryChange) -> bool:
        """``change`` is of the import this tally counts: counted on, though its notice went meanwhile (an
        import's notice says the whole import so far, as its progress does; it goes between slow batches)."""
        return bool(self.run) and self.run == _import_of(change)

    @property
    def key(self) -> str:
        """The notice it is said in: one per source (and computer)."""
        return f"elsewhere:{self.actor}" + (f"@{self.device}" if self.device else "")

    def add(self, change: MemoryChange) -> None:
        kind = kinds.kind(change.kind)
        self.counts[kind.group] += len(change.ids) if kind.per_id else 1
        if kind.gone:
            self.ids = [mid for mid in self.ids if mid not in change.ids]
        else:
            for mid in change.ids[:1]:
                if mid in self.ids:
                    self.ids.remove(mid)
                self.ids.append(mid)

    def text(self) -> str:
        parts = []
        if self.counts[kinds.ADDED]:
            parts.append(translate("OthersNotice", "新增 {0} 条记忆").format(self.counts[kinds.ADDED]))
        if self.counts[kinds.UPDATED]:
            parts.append(translate("OthersNotice", "修改 {0} 条记忆").format(self.counts[kinds.UPDATED]))
        if self.counts[kinds.MERGED]:
            parts.append(translate("OthersNotice", "合并 {0} 处记忆").format(self.counts[kinds.MERGED]))
        if self.counts[kinds.DELETED]:
            parts.append(translate("OthersNotice", "删除 {0} 条记忆").format(self.counts[kinds.DELETED]))
        who = source_name(self.actor)
        if self.device:
            who = translate("OthersNotice", "{0}（在 {1} 上）").format(who, self.device)
        return translate("OthersNotice", "{0}：{1}").format(who, translate("OthersNotice", "，").join(parts))


def _import_of(change: MemoryChange) -> str:
    """The history import a change is of (its batch's turn id without the batch: ``imp-…``), or ""."""
    turn = change.turn_id or ""
    return turn.rpartition("-")[0] if import_source(change.actor) is not None and batch_seq(turn) is not None else ""
