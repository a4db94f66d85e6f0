"""The wall's rows laid out again only where they changed (issue 14): after any insert, removal,
move or change of a card, the incremental layout is exactly the one computed from scratch, and the
rows it does not touch are the old ones."""

from __future__ import annotations

import random

from PySide6.QtCore import QSize

from sonetto_desktop.ui.wall.card_rows import lay_out


def _measure(widths: dict[str, int]):
    def measure(cards):
        sizes = [QSize(widths[c], 40 + widths[c] % 3 * 10) for c in cards]
        # at another width a card may need fewer lines (as the delegate's height_at)
        return sizes, lambda i, w: sizes[i].height() - (10 if w > sizes[i].width() + 30 else 0)
    return measure


def test_an_incremental_layout_is_the_layout_from_scratch():
    rng = random.Random(14)
    for trial in range(600):
        widths: dict[str, int] = {}
        ids = [f"c{i}" for i in range(rng.randint(0, 60))]
        for mid in ids:
            widths[mid] = rng.randint(40, 220)
        avail = rng.randint(200, 640)
        setting = (avail, "comfortable", "font")
        flow = lay_out(ids, lambda m: m, _measure(widths), avail, setting)
        for step in range(6):
            ids, dirty = list(ids), set()
            op = rng.choice(["insert", "append", "remove", "move", "change", "change", "none"])
            if op in ("insert", "append"):
                new = f"n{trial}_{step}"
                widths[new] = rng.randint(40, 220)
                ids.insert(len(ids) if op == "append" else rng.randint(0, len(ids)), new)
            elif op == "remove" and ids:
                ids.pop(rng.randrange(len(ids)))
            elif op == "move" and ids:
                ids.insert(rng.randint(0, len(ids) - 1), ids.pop(rng.randrange(len(ids))))
            elif op == "change" and ids:
                changed = rng.choice(ids)
                widths[changed] = rng.randint(40, 220)
                dirty.add(changed)
            grown = lay_out(ids, lambda m: m, _measure(widths), avail, setting, flow, dirty)
            fresh = lay_out(ids, lambda m: m, _measure(widths), avail, setting)
            assert (grown.starts, grown.sizes) == (fresh.starts, fresh.sizes), (trial, step, op)
            flow = grown


def test_a_change_keeps_the_rows_before_it_and_meets_the_old_rows_after_it():
    widths = {f"c{i}": 60 + (i * 37) % 150 for i in range(2000)}
    ids = list(widths)
    measured: list[str] = []

    def measure(cards):
        measured.extend(cards)
        return _measure(widths)(cards)

    flow = lay_out(ids, lambda m: m, measure, 700, (700,))
    assert len(measured) == len(ids)
    measured.clear()
    widths["c1000"] += 90
    changed = lay_out(ids, lambda m: m, measure, 700, (700,), flow, {"c1000"})
    assert len(measured) < 200  # the rows around the change, not 2,000 cards
    assert all(a is b for a, b in zip(changed.sizes[:900], flow.sizes[:900], strict=True))
    assert all(a is b for a, b in zip(changed.sizes[-800:], flow.sizes[-800:], strict=True))
    measured.clear()
    moved = ["c1500", *[mid for mid in ids if mid != "c1500"]]  # an edit: the card to the top
    on_top = lay_out(moved, lambda m: m, measure, 700, (700,), changed, {"c1500"})
    assert len(measured) < 300  # the rows at both ends of the move, not the 1,500 cards between
    assert on_top.sizes == lay_out(moved, lambda m: m, _measure(widths), 700, (700,)).sizes
    reused = {id(size) for size in changed.sizes}
    assert sum(id(size) in reused for size in on_top.sizes) > 1800
    measured.clear()
    other = lay_out(ids, lambda m: m, measure, 640, (640,), changed)  # another width: everything
    assert len(measured) == len(ids)
    assert other.sizes == lay_out(ids, lambda m: m, _measure(widths), 640, (640,)).sizes
