"""One toast per writer turn (issue 12, capability 2): "记住了 2 条，更新了 1 条 · 查看 · 撤销".

Every change Sonetto makes for a chat turn carries that turn's id; ``TurnTally`` counts them as they
arrive, so the turn's toast grows into a summary instead of stacking a toast per memory. A turn of
one change reads as that change ("记住了：喜欢爵士乐"); the daily clean-up pass (``tidy-`` turns)
reads "整理了 3 条记忆". Rollbacks of a failed attempt (``rollback-`` turns) are not news.
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from dataclasses import dataclass, field

from ..memory import kinds
from ..memory.changes import AGENT, MemoryChange
from .i18n import counted, translate

QUIET_PREFIXES = ("rollback-",)
TIDY_PREFIX = "tidy-"
KEPT_TURNS = 50


def summarised(change: MemoryChange) -> bool:
    """Whether ``change`` belongs in a turn summary: Sonetto's content change, with a turn id."""
    turn = change.turn_id or ""
    return (change.actor == AGENT and bool(turn) and bool(kinds.group(change.kind))
            and not turn.startswith(QUIET_PREFIXES))


def quiet(change: MemoryChange) -> bool:
    """Changes that are never news (a failed attempt taken back)."""
    return (change.turn_id or "").startswith(QUIET_PREFIXES)


@dataclass
class TurnTally:
    turn_id: str
    counts: Counter = field(default_factory=Counter)
    ids: list[str] = field(default_factory=list)  # the memories it touched that still exist, first first
    changes: list[MemoryChange] = field(default_factory=list)

    def add(self, change: MemoryChange) -> None:
        kind = kinds.kind(change.kind)
        self.counts[kind.group] += len(change.ids) if kind.per_id else 1
        self.changes.append(change)
        if kind.gone:
            self.ids = [mid for mid in self.ids if mid not in change.ids]
        else:
            for mid in change.ids[:1]:  # a merge: the kept memory
                if mid not in self.ids:
                    self.ids.append(mid)

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def text(self, single: str | None = None) -> str:
        """``single``: the text for a turn of one change (the change's own toast text)."""
        if self.turn_id.startswith(TIDY_PREFIX):
            return translate("TurnSummary", "整理了 {0} 条记忆").format(counted(self.total))
        if self.total == 1 and single:
            return single
        parts = []
        if self.counts[kinds.ADDED]:
            parts.append(translate("TurnSummary", "记住了 {0} 条").format(self.counts[kinds.ADDED]))
        if self.counts[kinds.UPDATED]:
            parts.append(translate("TurnSummary", "更新了 {0} 条").format(self.counts[kinds.UPDATED]))
        if self.counts[kinds.MERGED]:
            parts.append(translate("TurnSummary", "合并了 {0} 处").format(self.counts[kinds.MERGED]))
        if self.counts[kinds.DELETED]:
            parts.append(translate("TurnSummary", "删除了 {0} 条").format(self.counts[kinds.DELETED]))
        return translate("TurnSummary", "，").join(parts)


class TurnTallies:
    """The last ``KEPT_TURNS`` turns' tallies (a turn's changes may arrive over several seconds)."""

    def __init__(self) -> None:
        self._tallies: OrderedDict[str, TurnTally] = OrderedDict()

    def add(self, change: MemoryChange) -> TurnTally:
        turn = change.turn_id or ""
        tally = self._tallies.get(turn)
        if tally is None:
            tally = self._tallies[turn] = TurnTally(turn)
            while len(self._tallies) > KEPT_TURNS:
                self._tallies.popitem(last=False)
        tally.add(change)
        return tally

    def get(self, turn_id: str) -> TurnTally | None:
        return self._tallies.get(turn_id)
