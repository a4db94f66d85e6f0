"""Cards in rows filled edge to edge (the card wall's flow), laid out again only where they changed.

``lay_out`` gives each card its size in the flow: its natural size (from its text, see
``CardDelegate.card_layout``), then every full row stretched in proportion to fill the width, and
every card as tall as its row's tallest; a last row at least ``FILL_LAST_ROW`` full is stretched too.
QListView breaks the rows where this does (same widths, same rule).

Given the previous layout (``Flow``), only what changed is laid out again (issue 14: a live change
in a theme of 4,000 cards must not measure 4,000 cards): the rows before the first changed card
stay; from there the cards are flowed again until a row starts at a card that began a row before
and after which nothing changed — every row from there on is the old one (shifted by the cards
added or removed). Cards appended at the end (a section growing while it loads) cost the last row
and the new cards. ``dirty``: cards whose content changed without moving.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from typing import Callable, Sequence

from PySide6.QtCore import QSize

from .cards import Card

FILL_LAST_ROW = 0.75  # a last row at least this full is stretched too; a shorter one stays natural
CHUNK = 64  # cards measured at a time (measuring stops where the old rows take over)

Measure = Callable[[list], tuple[list[QSize], Callable[[int, int], int]]]


@dataclass(frozen=True)
class Flow:
    setting: tuple  # (width, density, font key): another setting lays everything out again
    ids: list[str]
    starts: list[int]  # the index of the first card of each row
    sizes: list[QSize]


def _prefix(a: Sequence[str], b: Sequence[str]) -> int:
    n = min(len(a), len(b))
    if a[:n] == b[:n]:
        return n
    low, high = 0, n  # a[:low] == b[:low], a[:high] != b[:high]
    while high - low > 1:
        mid = (low + high) // 2
        if a[:mid] == b[:mid]:
            low = mid
        else:
            high = mid
    return low


def _suffix(a: Sequence[str], b: Sequence[str], limit: int) -> int:
    """Length of the common end of ``a`` and ``b``, at most ``limit``."""
    n = 0
    while n < limit and a[-1 - n] == b[-1 - n]:
        n += 1
    return n


def lay_out(ids: list[str], card_of: Callable[[str], Card | None], measure: Measure, avail: int,
            setting: tuple, old: Flow | None = None, dirty: set[str] | frozenset = frozenset()) -> Flow:
    """The sizes of ``ids``' cards in rows ``avail`` px wide (see the module's docstring)."""
    start, starts, sizes = 0, [], []
    converge_from, shift, old_starts_set = len(ids) + 1, 0, frozenset()
    if old is not None and old.setting == setting and old.ids:
        changed = [ids.index(mid) for mid in dirty if mid in ids]
        first = min([_prefix(ids, old.ids), *changed])
        # the row before the first change is flowed again (a narrower card may now fit at its end)
        r = bisect_right(old.starts, max(0, first - 1)) - 1
        if r >= 0:
            start, starts, sizes = old.starts[r], old.starts[:r], old.sizes[:old.starts[r]]
        limit = min(len(ids), len(old.ids)) - first
        if changed:
            limit = min(limit, len(ids) - 1 - max(changed))
        same_end = _suffix(ids, old.ids, max(0, limit))
        converge_from, shift = len(ids) - same_end, len(ids) - len(old.ids)
        old_starts_set = frozenset(old.starts)

    naturals: list[QSize] = []
    heights: list[tuple[Callable[[int, int], int], int]] = []

    def measured(upto: int) -> None:  # naturals[i - start] for i < upto
        while start + len(naturals) < min(upto, len(ids)):
            at = start + len(naturals)
            cards = [card_of(mid) for mid in ids[at:at + CHUNK]]
            got, height_at = measure(cards)
            naturals.extend(got)
            heights.extend((height_at, i) for i in range(len(got)))

    def close(first: int, row: list[QSize], last: bool) -> None:
        total = sum(s.width() for s in row)
        stretch = not last or total >= FILL_LAST_ROW * avail
        extra = max(0, avail - total) if stretch else 0
        widths, given = [], 0
        for i, size in enumerate(row):
            add = extra - given if i == len(row) - 1 else extra * size.width() // total
            given += add
            widths.append(size.width() + add)
        # a wider card may need fewer lines: the row is as tall as its tallest card needs now
        if extra:
            height = max(heights[first - start + i][0](heights[first - start + i][1], w) for i, w in enumerate(widths))
        else:
            height = max(s.height() for s in row)
        sizes.extend(QSize(w, height) for w in widths)

    x, first, row = 0, start, []
    n = start
    while n < len(ids):
        measured(n + 1)
        size = naturals[n - start]
        if row and x + size.width() > avail:
            close(first, row, last=False)
            starts.append(first)
            first, row, x = n, [], 0
            if n >= converge_from and n - shift in old_starts_set:  # the old rows from here on
                k = bisect_right(old.starts, n - shift) - 1
                starts.extend(s + shift for s in old.starts[k:])
                sizes.extend(old.sizes[n - shift:])
                return Flow(setting, list(ids), starts, sizes)
        row.append(size)
        x += size.width()
        n += 1
    if row:
        close(first, row, last=True)
        starts.append(first)
    return Flow(setting, list(ids), starts, sizes)
