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


def _run(a: Sequence[str], i: int, b: Sequence[str], j: int, limit: int) -> int:
    """How many items ``a[i:]`` and ``b[j:]`` have in common from their start, at most ``limit``
    (compared in growing slices: O(run), at C speed)."""
    limit = min(limit, len(a) - i, len(b) - j)
    done, step = 0, 8
    while done < limit:
        end = min(limit, done + step)
        if a[i + done:i + end] == b[j + done:j + end]:
            done, step = end, step * 2
            continue
        low, high = done, end  # a mismatch in [low, high)
        while high - low > 1:
            mid = (low + high) // 2
            if a[i + low:i + mid] == b[j + low:j + mid]:
                low = mid
            else:
                high = mid
        return low
    return done


def lay_out(ids: list[str], card_of: Callable[[str], Card | None], measure: Measure, avail: int,
            setting: tuple, old: Flow | None = None, dirty: set[str] | frozenset = frozenset()) -> Flow:
    """The sizes of ``ids``' cards in rows ``avail`` px wide (see the module's docstring)."""
    start, starts, sizes = 0, [], []
    usable = old is not None and old.setting == setting and bool(old.ids)
    changed: list[int] = []
    old_at: dict[str, int] = {}
    if usable:
        changed = sorted(ids.index(mid) for mid in dirty if mid in ids)
        first = min([_prefix(ids, old.ids), *changed])
        # the row before the first change is flowed again (a narrower card may now fit at its end)
        r = bisect_right(old.starts, max(0, first - 1)) - 1
        if r >= 0:
            start, starts, sizes = old.starts[r], old.starts[:r], old.sizes[:old.starts[r]]

    # cards only added after the old ones (the wall filling in slices): no old row past the one
    # flowed again can come back, so the old cards are not even looked up
    appended = usable and first >= len(old.ids)

    def reuse(n: int) -> int:
        """At a row starting at card ``n``: the old rows that begin here and whose cards (with the
        card that broke each) are the same, copied; where the flow goes on (``n`` if none)."""
        if appended:
            return n
        if not old_at:
            old_at.update((mid, i) for i, mid in enumerate(old.ids))
        q = old_at.get(ids[n])
        k0 = bisect_right(old.starts, q) - 1 if q is not None else -1
        if k0 < 0 or old.starts[k0] != q:
            return n
        d = bisect_right(changed, n - 1)
        run = _run(ids, n, old.ids, q, (changed[d] if d < len(changed) else len(ids)) - n)
        k = k0
        while k + 1 < len(old.starts) and old.starts[k + 1] < q + run:
            k += 1
        if k == len(old.starts) - 1 and q + run == len(old.ids) and n + run == len(ids):
            end, k = len(old.ids), k + 1  # through the last row
        else:
            end = old.starts[k]
        starts.extend(n + s - q for s in old.starts[k0:k])
        sizes.extend(old.sizes[q:end])
        return n + end - q

    naturals: dict[int, tuple[QSize, Callable[[int, int], int], int]] = {}

    def natural(n: int) -> tuple[QSize, Callable[[int, int], int], int]:
        found = naturals.get(n)
        if found is None:
            got, height_at = measure([card_of(mid) for mid in ids[n:n + CHUNK]])
            for i, size in enumerate(got):
                naturals.setdefault(n + i, (size, height_at, i))
            found = naturals[n]
        return found

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
            height = max(naturals[first + i][1](naturals[first + i][2], w) for i, w in enumerate(widths))
        else:
            height = max(s.height() for s in row)
        sizes.extend(QSize(w, height) for w in widths)

    x, first, row = 0, start, []
    n = start
    while n < len(ids):
        if not row and usable:  # a row starts here: the old rows, where they are the same
            n = first = reuse(n)
            if n >= len(ids):
                break
        size = natural(n)[0]
        if row and x + size.width() > avail:
            close(first, row, last=False)
            starts.append(first)
            first, row, x = n, [], 0
            continue  # (the row starting here may be an old one)
        row.append(size)
        x += size.width()
        n += 1
    if row:
        close(first, row, last=True)
        starts.append(first)
    return Flow(setting, list(ids), starts, sizes)
