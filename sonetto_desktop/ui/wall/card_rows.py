"""Cards in rows filled edge to edge (the card wall's flow), measured once and laid out again only
where they changed.

Each card is *measured* once from its text (``CardMetrics.measure``: its natural width, the width
of its text on one line, the badge beside it, and its words' widths when it has spaces, measured the
first time it wraps) — what it needs at any width.
``lay_out`` then *flows* the cards: every card at its natural width (within the density's minimum
and maximum), rows broken where the next card does not fit, every full row stretched in proportion
to fill the width, and every card as tall as its row's tallest needs at its width; a last row at
least ``FILL_LAST_ROW`` full is stretched too. The view paints and hit-tests from this flow
(``ThemeCardView``); Qt lays nothing out.

Everything is kept in flat arrays (a few bytes per card: the measurements, the card's width in the
flow; per row its card count and height), so 100,000 cards cost ~2 MB here, and a tuple of its words'
widths per card whose text has spaces.

Given the previous flow, only what changed is done again (issue 14: a live change in a theme of
4,000 cards must not measure 4,000 cards): cards that were there before keep their measurements
(another width flows them again without measuring); the rows before the first changed card stay;
from there the cards are flowed again until a row starts at a card that began a row before and
after which nothing changed — every row from there on is the old one (shifted by the cards added
or removed). Cards appended at the end (a section growing while it loads) cost the last row and the
new cards. ``dirty``: cards whose content changed without moving (measured again).
"""

from __future__ import annotations

import math
from array import array
from bisect import bisect_right
from itertools import accumulate
from typing import Callable, Protocol, Sequence

from sonetto_desktop.presentation.cards import Card

FILL_LAST_ROW = 0.75  # a last row at least this full is stretched too; a shorter one stays natural
CHUNK = 64  # cards measured at a time (measuring stops where the old rows take over)
WIDEST = 0xFFFF  # natural widths are kept in 16 bits (the density's maximum is far below)


class Metrics(Protocol):
    """What flowing needs to know about card sizes (``card_delegate.CardMetrics``)."""

    setting: tuple  # (density, font): another setting measures every card again
    min_width: int
    max_width: int
    chrome: int  # the card's width around its text (margins, stripe, padding)
    base: int  # the card's height without its lines of text
    line_spacing: float
    max_lines: int

    def measure(self, cards: Sequence[Card | None]) -> tuple[list[int], list[float], list[float], list[int]]:
        """(natural widths, text widths, badge widths, texts with spaces or None) of ``cards``."""
        ...

    def words(self, text: str) -> tuple[float, ...]:
        """``text``'s words' widths for ``text_lines``."""
        ...


class Flow:
    """The cards of one view in rows: per card its measurements and its width in the flow, per row
    how many cards it has and how tall it is. ``setting`` says for which width (and metrics) the
    rows are; ``metrics`` for which density and font the measurements are."""

    __slots__ = ("setting", "metrics", "ids", "nat", "text", "badge", "words", "widths", "counts",
                 "heights", "measured", "flowed", "kept_rows", "_starts", "_tops")

    def __init__(self, setting: tuple | None, metrics: tuple, ids: list[str]) -> None:
        self.setting = setting
        self.metrics = metrics
        self.ids = ids
        self.nat = array("H")  # natural width (before the minimum / maximum of the density)
        self.text = array("d")  # the text's width on one line
        self.badge = array("d")  # what sits beside the text (a compact card's count and lock)
        #: a text with spaces: the text, its words' widths once it needed more than a line (``text_lines``)
        self.words: list[str | tuple[float, ...] | None] = []
        self.widths = array("H")  # the card's width in the flow
        self.counts = array("H")  # per row: its cards
        self.heights = array("H")  # per row: its height (every card of the row has it)
        self.measured = 0  # cards measured by the lay_out that made it (the others' were kept)
        self.flowed = 0  # cards flowed by the lay_out that made it (the others' rows were the old ones)
        self.kept_rows = 0  # the rows at the start that are the old flow's, unmoved
        self._starts: array | None = None
        self._tops: array | None = None

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def starts(self) -> array:
        """The index of the first card of each row."""
        if self._starts is None:
            self._starts = array("I", accumulate(self.counts[:-1], initial=0)) if self.counts else array("I")
        return self._starts

    @property
    def tops(self) -> array:
        """The y of each row, and the flow's height at the end (one more than the rows)."""
        if self._tops is None:
            self._tops = array("I", accumulate(self.heights, initial=0))
        return self._tops

    def height(self) -> int:
        return self.tops[-1]

    def row_of(self, card: int) -> int:
        return bisect_right(self.starts, card) - 1

    def row_at(self, y: int) -> int:
        """The row at ``y`` (clamped to the first and last row; -1 when there is none)."""
        if not self.counts:
            return -1
        return max(0, min(len(self.counts) - 1, bisect_right(self.tops, y) - 1))

    def rect(self, card: int) -> tuple[int, int, int, int]:
        """(x, y, width, height) of card ``card``."""
        row = self.row_of(card)
        start = self.starts[row]
        tops = self.tops
        return sum(self.widths[start:card]), tops[row], self.widths[card], tops[row + 1] - tops[row]

    def row_cards(self, row: int) -> range:
        start = self.starts[row]
        return range(start, start + self.counts[row])

    def card_at(self, x: int, y: int) -> int:
        """The card whose rectangle holds (x, y), or -1."""
        if y < 0 or not self.counts or y >= self.height() or x < 0:
            return -1
        row = self.row_at(y)
        left = 0
        for card in self.row_cards(row):
            left += self.widths[card]
            if x < left:
                return card
        return -1


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
    """How many items ``a`` and ``b`` have in common at their ends, at most ``limit``."""
    if limit <= 0:
        return 0
    if a[len(a) - limit:] == b[len(b) - limit:]:
        return limit
    low, high = 0, limit
    while high - low > 1:
        mid = (low + high) // 2
        if a[len(a) - mid:] == b[len(b) - mid:]:
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


def positions(ids: list[str], wanted: set[str] | frozenset) -> list[int]:
    """Where the ids of ``wanted`` are in ``ids``, in order (those not there left out)."""
    if not wanted:
        return []
    if len(wanted) <= 8:
        return sorted(ids.index(mid) for mid in wanted if mid in ids)
    return [i for i, mid in enumerate(ids) if mid in wanted]


def text_lines(width: float, words: Sequence[float] | None, room: float, max_lines: int) -> int:
    """How many lines (at most ``max_lines``) a text ``width`` wide on one line takes at ``room``: a text
    without spaces breaks between any characters; one with spaces (``words``: each word's width and the
    space's after it, a CJK character a word of its own) as painting wraps it — a word that does not fit
    moves whole to the next line, one wider than a line breaks anywhere. (An estimate of 10 % more for any
    text with spaces gave an English card a blank last line, or cut one.)"""
    if not words:
        return min(max_lines, max(1, math.ceil(width / room)))
    lines, x = 1, 0.0
    for at in range(0, len(words), 2):
        word, space = words[at], words[at + 1]
        if x and x + word > room:  # (the space before it ends the line above)
            lines, x = lines + 1, 0.0
        if word > room:  # a word longer than a line: broken anywhere
            lines += math.ceil(word / room) - 1
            word -= (math.ceil(word / room) - 1) * room
        x += word + space
        if lines >= max_lines:
            return max_lines
    return lines


def _measure(flow: Flow, cards: Sequence[Card | None], metrics: Metrics) -> None:
    """Append the measurements of ``cards`` to ``flow``."""
    flow.measured += len(cards)
    for start in range(0, len(cards), CHUNK):
        nat, text, badge, words = metrics.measure(cards[start:start + CHUNK])
        flow.nat.extend(min(w, WIDEST) for w in nat)
        flow.text.extend(text)
        flow.badge.extend(badge)
        flow.words.extend(words)


def _measurements(flow: Flow, card_of: Callable[[str], Card | None], metrics: Metrics, old: Flow | None,
                  dirty: set[str] | frozenset) -> None:
    """Fill ``flow``'s measurements: taken from ``old`` for the cards it had (by position where the
    two agree at their start and end, by id in between), measured for new and ``dirty`` ones."""
    ids = flow.ids
    if old is None or old.metrics != flow.metrics or not old.ids:
        _measure(flow, [card_of(mid) for mid in ids], metrics)
        return
    head = _prefix(ids, old.ids)
    tail = _suffix(ids, old.ids, min(len(ids), len(old.ids)) - head)
    flow.nat, flow.text, flow.badge, flow.words = old.nat[:head], old.text[:head], old.badge[:head], old.words[:head]
    middle = ids[head:len(ids) - tail]
    if middle:
        before = {mid: head + i for i, mid in enumerate(old.ids[head:len(old.ids) - tail])}
        new: list[Card | None] = []
        for mid in middle:  # runs of new cards measured together, known ones copied
            at = before.get(mid)
            if at is None or mid in dirty:
                new.append(card_of(mid))
                continue
            if new:
                _measure(flow, new, metrics)
                new = []
            flow.nat.append(old.nat[at])
            flow.text.append(old.text[at])
            flow.badge.append(old.badge[at])
            flow.words.append(old.words[at])
        if new:
            _measure(flow, new, metrics)
    if tail:
        end = len(old.ids) - tail
        flow.nat.extend(old.nat[end:])
        flow.text.extend(old.text[end:])
        flow.badge.extend(old.badge[end:])
        flow.words.extend(old.words[end:])
    for at in positions(ids, dirty):  # changed in place (in the common start or end): measured again
        mid = ids[at]
        if at < head or at >= len(ids) - tail:
            flow.measured += 1
            nat, text, badge, words = metrics.measure([card_of(mid)])
            flow.nat[at], flow.text[at], flow.badge[at], flow.words[at] = min(nat[0], WIDEST), text[0], badge[0], words[0]


def lay_out(ids: list[str], card_of: Callable[[str], Card | None], metrics: Metrics, avail: int | None,
            old: Flow | None = None, dirty: set[str] | frozenset = frozenset()) -> Flow:
    """The flow of ``ids``' cards in rows ``avail`` px wide (see the module's docstring). ``ids`` is
    kept by the flow (not copied). ``avail`` None: the cards are only measured (a view not shown
    yet: its rows are flowed at its width once it is shown)."""
    if avail is None:
        flow = Flow(None, metrics.setting, ids)
        _measurements(flow, card_of, metrics, old, dirty)
        return flow
    min_w = metrics.min_width
    max_w = max(min_w, min(metrics.max_width, avail + 1))
    flow = Flow((avail, max_w, metrics.setting), metrics.setting, ids)
    _measurements(flow, card_of, metrics, old, dirty)
    widths, counts, heights = flow.widths, flow.counts, flow.heights

    start = 0
    usable = old is not None and old.setting == flow.setting and bool(old.ids)
    changed: list[int] = []
    if usable:
        changed = positions(ids, dirty)
        first = min([_prefix(ids, old.ids), *changed])
        # the row before the first change is flowed again (a narrower card may now fit at its end)
        r = old.row_of(max(0, first - 1)) if old.counts else -1
        if r >= 0:
            start = old.starts[r]
            widths.extend(old.widths[:start])
            counts.extend(old.counts[:r])
            heights.extend(old.heights[:r])
            flow.kept_rows = r
        # cards only added after the old ones (the wall filling in slices): no old row past the one
        # flowed again can come back, so the old cards are not even looked up
        appended = first >= len(old.ids)
        old_at: dict[str, int] = {}
        old_starts = old.starts

    def reuse(n: int) -> int:
        """At a row starting at card ``n``: the old rows that begin here and whose cards (with the
        card that broke each) are the same, copied; where the flow goes on (``n`` if none)."""
        if appended:
            return n
        if not old_at:
            old_at.update((mid, i) for i, mid in enumerate(old.ids))
        q = old_at.get(ids[n])
        k0 = bisect_right(old_starts, q) - 1 if q is not None else -1
        if k0 < 0 or old_starts[k0] != q:
            return n
        d = bisect_right(changed, n - 1)
        run = _run(ids, n, old.ids, q, (changed[d] if d < len(changed) else len(ids)) - n)
        k = k0
        while k + 1 < len(old_starts) and old_starts[k + 1] < q + run:
            k += 1
        if k == len(old_starts) - 1 and q + run == len(old.ids) and n + run == len(ids):
            end, k = len(old.ids), k + 1  # through the last row
        else:
            end = old_starts[k]
        widths.extend(old.widths[q:end])
        counts.extend(old.counts[k0:k])
        heights.extend(old.heights[k0:k])
        return n + end - q

    _flow_rows(flow, start, metrics, reuse if usable else None)
    return flow


def append(flow: Flow, new: list[str], card_of: Callable[[str], Card | None], metrics: Metrics) -> Flow:
    """``flow`` with the cards ``new`` after its last ones (a section growing while the wall fills),
    changed in place: only the new cards are measured, and only its last row and the new cards
    flowed (no copy of what was there: O(new cards) at any size)."""
    flow.measured = flow.flowed = 0
    if not new:
        return flow
    if flow.setting is None:  # only measured so far
        flow.ids.extend(new)
        _measure(flow, [card_of(mid) for mid in new], metrics)
        return flow
    last = len(flow.counts) - 1  # flowed again with the new cards (it was closed as the last row)
    start = flow.starts[last] if last >= 0 else 0
    tops = flow.tops
    del flow.counts[max(0, last):], flow.heights[max(0, last):], flow.widths[start:]
    del flow.starts[max(0, last):], tops[max(0, last) + 1:]
    flow.kept_rows = max(0, last)
    flow.ids.extend(new)
    _measure(flow, [card_of(mid) for mid in new], metrics)
    _flow_rows(flow, start, metrics)
    starts = flow.starts
    for row in range(max(0, last), len(flow.counts)):  # the rows' starts and tops kept up to date
        if row:
            starts.append(starts[row - 1] + flow.counts[row - 1])
        else:
            starts.append(0)
        tops.append(tops[row] + flow.heights[row])
    return flow


def _flow_rows(flow: Flow, start: int, metrics: Metrics, reuse: Callable[[int], int] | None = None) -> None:
    """Flow the cards of ``flow`` from ``start`` (the first card of a row) to its end, appending the
    rows; ``reuse(n)``, at each row start, may copy old rows and say where flowing goes on."""
    avail, max_w, _ = flow.setting
    min_w = metrics.min_width
    nat, text, badge, words = flow.nat, flow.text, flow.badge, flow.words
    widths, counts, heights = flow.widths, flow.counts, flow.heights
    chrome, base, spacing, max_lines = metrics.chrome + 2, metrics.base, metrics.line_spacing, metrics.max_lines
    one_line = int(base + spacing + 0.999)
    flowed = 0

    def close(first: int, end: int, total: int, last: bool) -> None:
        extra = max(0, avail - total) if not last or total >= FILL_LAST_ROW * avail else 0
        given, tallest = 0, 0
        for i in range(first, end):
            w = max(min_w, min(max_w, nat[i]))
            if extra:
                add = extra - given if i == end - 1 else extra * w // total
                given += add
                w += add
            widths.append(w)
            t, b = text[i], badge[i]
            if t + b + chrome <= w:
                h = one_line
            else:
                u = words[i]
                if isinstance(u, str):  # measured once, the first time it does not fit on a line
                    u = words[i] = metrics.words(u)
                h = int(base + text_lines(t, u, max(1.0, w - chrome + 2 - b), max_lines) * spacing + 0.999)
            if h > tallest:
                tallest = h
        counts.append(end - first)
        heights.append(tallest)

    count = len(flow.ids)
    x, first, n = 0, start, start
    while n < count:
        if n == first and reuse is not None:  # a row starts here: the old rows, where they are the same
            n = first = reuse(n)
            if n >= count:
                break
        w = max(min_w, min(max_w, nat[n]))
        if n > first and x + w > avail:
            close(first, n, x, last=False)
            flowed += n - first
            first, x = n, 0
            continue  # (the row starting here may be an old one)
        x += w
        n += 1
    if n > first:
        close(first, n, x, last=True)
        flowed += n - first
    flow.flowed += flowed
