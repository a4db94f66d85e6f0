"""The wall's rows laid out again only where they changed (issues 14, 29): after any insert, removal,
move or change of a card, the incremental flow is exactly the one computed from scratch, each card
is measured once (again only when it changed), and the rows a change does not touch are the old
ones, not flowed again."""

from __future__ import annotations

import random

from sonetto_desktop.ui.wall.card_rows import lay_out


class Metrics:
    """Card sizes for the flow without Qt: a card's natural width is given; a card narrower than
    that needs more lines (as ``CardMetrics``)."""

    setting = ("comfortable", "font")
    min_width, max_width, chrome, base, line_spacing, max_lines = 40, 220, 10, 30, 10.0, 3

    def __init__(self, widths: dict[str, int]) -> None:
        self.widths = widths
        self.measured: list[str] = []

    def measure(self, cards):
        self.measured.extend(cards)
        nat = [self.widths[c] for c in cards]
        texts = [float(w - self.chrome - 2) for w in nat]
        # an odd width: a text of two words (they wrap whole), else one without spaces
        return nat, texts, [0.0] * len(cards), [f"{t} {t}" if w % 2 else None for w, t in zip(nat, texts, strict=True)]

    def words(self, text):
        half = float(text.split(" ")[0]) / 2
        return (half - 2, 4.0, half - 2, 0.0)


def _rows(flow):
    return (list(flow.counts), list(flow.heights), list(flow.widths), list(flow.nat), list(flow.text))


def test_an_incremental_layout_is_the_layout_from_scratch():
    rng = random.Random(14)
    for trial in range(600):
        widths: dict[str, int] = {}
        ids = [f"c{i}" for i in range(rng.randint(0, 60))]
        for mid in ids:
            widths[mid] = rng.randint(40, 400)
        avail = rng.randint(200, 640)
        metrics = Metrics(widths)
        flow = lay_out(ids, lambda m: m, metrics, avail)
        for step in range(6):
            ids, dirty = list(ids), set()
            op = rng.choice(["insert", "append", "remove", "move", "change", "change", "width", "none"])
            if op in ("insert", "append"):
                new = f"n{trial}_{step}"
                widths[new] = rng.randint(40, 400)
                ids.insert(len(ids) if op == "append" else rng.randint(0, len(ids)), new)
            elif op == "remove" and ids:
                ids.pop(rng.randrange(len(ids)))
            elif op == "move" and ids:
                ids.insert(rng.randint(0, len(ids) - 1), ids.pop(rng.randrange(len(ids))))
            elif op == "change" and ids:
                changed = rng.choice(ids)
                widths[changed] = rng.randint(40, 400)
                dirty.add(changed)
            elif op == "width":
                avail = rng.randint(200, 640)
            grown = lay_out(list(ids), lambda m: m, metrics, avail, flow, dirty)
            fresh = lay_out(list(ids), lambda m: m, Metrics(widths), avail)
            assert _rows(grown) == _rows(fresh), (trial, step, op)
            assert grown.height() == sum(fresh.heights)
            flow = grown


def test_a_change_keeps_the_rows_before_it_and_meets_the_old_rows_after_it():
    widths = {f"c{i}": 60 + (i * 37) % 150 for i in range(2000)}
    ids = list(widths)
    metrics = Metrics(widths)
    flow = lay_out(list(ids), lambda m: m, metrics, 700)
    assert sorted(metrics.measured) == sorted(ids)  # each card measured once
    assert flow.flowed == len(ids)
    metrics.measured.clear()
    widths["c1000"] += 90
    changed = lay_out(list(ids), lambda m: m, metrics, 700, flow, {"c1000"})
    assert metrics.measured == ["c1000"]  # only the changed card is measured again
    assert changed.flowed < 200  # the rows around the change, not 2,000 cards
    assert _rows(changed) == _rows(lay_out(list(ids), lambda m: m, Metrics(widths), 700))
    metrics.measured.clear()
    moved = ["c1500", *[mid for mid in ids if mid != "c1500"]]  # an edit: the card to the top
    on_top = lay_out(list(moved), lambda m: m, metrics, 700, changed, {"c1500"})
    assert metrics.measured == ["c1500"]
    assert on_top.flowed < 300  # the rows at both ends of the move, not the 1,500 cards between
    assert _rows(on_top) == _rows(lay_out(list(moved), lambda m: m, Metrics(widths), 700))
    metrics.measured.clear()
    other = lay_out(list(moved), lambda m: m, metrics, 640, on_top)  # another width: every row...
    assert metrics.measured == []  # ...without measuring a card again
    assert other.flowed == len(ids)
    assert _rows(other) == _rows(lay_out(list(moved), lambda m: m, Metrics(widths), 640))


def test_cards_appended_cost_the_last_row_and_themselves():
    widths = {f"c{i}": 60 + (i * 53) % 170 for i in range(4800)}
    ids = list(widths)
    metrics = Metrics(widths)
    flow = lay_out(ids[:400], lambda m: m, metrics, 700)
    for end in range(800, 4801, 400):  # a section growing while the wall fills
        metrics.measured.clear()
        flow = lay_out(ids[:end], lambda m: m, metrics, 700, flow)
        assert metrics.measured == ids[end - 400:end]
        assert flow.flowed < 400 + 10
    assert _rows(flow) == _rows(lay_out(list(ids), lambda m: m, Metrics(widths), 700))


def test_geometry_from_the_flow():
    widths = {f"c{i}": 100 + (i * 37) % 120 for i in range(300)}
    ids = list(widths)
    flow = lay_out(ids, lambda m: m, Metrics(widths), 600)
    y = 0
    for row in range(len(flow.counts)):
        x = 0
        for card in flow.row_cards(row):
            assert flow.rect(card) == (x, y, flow.widths[card], flow.heights[row])
            assert flow.card_at(x, y) == card and flow.card_at(x + flow.widths[card] - 1, y + flow.heights[row] - 1) == card
            x += flow.widths[card]
        assert x == 600 or row == len(flow.counts) - 1  # full rows edge to edge
        assert flow.row_at(y) == row
        y += flow.heights[row]
    assert flow.height() == y
    assert flow.card_at(0, y) == -1 and flow.card_at(-1, 0) == -1
