"""Issue 36: learn the shortlist's fusion constants and the conversation block's shares on the tune
half of the project's own sets, check them on the other half.

    python -m bench.recall_issue36_learn fusion  [--grid small|full]   # the shortlist's constants
    python -m bench.recall_issue36_learn block                         # the block's shares, message by message
    python -m bench.recall_issue36_learn check   --set NAME=VALUE ...  # one choice on both halves and the shared sets

Reads what ``python -m bench.recall_issue36 collect`` saved (e5, 1,000 and 10,000 memories). The halves:
recall-phenomena's own ``tune`` / ``heldout`` split, and blind / heldout / example split in two by a
hash of the question (``half``). The shared sets (dev, MADial, MemDaily) are evaluation data: they
are reported by ``check`` and never used to choose.

*fusion* fills each budget as ``MemoryRecall._plan`` does (``bench.recall_issue36.shown``: the whole
budget, and a conversation block's first message) with ``Shortlist.ranking`` itself, the module's
constants patched per run. The objective is pooled reach (micro) over both sizes at the local
budget (8k, whole budget) and the cloud budget (48k in a block), and the worst shortfall against
the better of words only and e5 only (whole budget, 4k-48k, per set and per phenomenon).

*block* drives the real ``ConversationBlock.plan`` over each set's questions in a fixed shuffled
order (one conversation per set: unrelated questions back to back, the hard case), with stand-ins
for the listing and the shortlist that answer from the saved rankings, and a memory of 40 tokens
written after each message (as the writer does). Per message: reach (gold in the frozen stable
block or the block after it) and the share of the request after its common prefix with the
previous one (request = the system prompt + the stable block + the block + the query, in estimated
tokens). The stable share can only take the windows that were collected (a quarter of a collected
budget): at 48k 0.0625, 0.125, 0.208 and 0.25.
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
import zlib
from typing import Any

from bench import recall_issue36 as i36
from bench.recall_scale_e5 import QueryData, Ranker, r_dense, r_lex
from sonetto_desktop.memory.retrieval import conversation, shortlist
from sonetto_desktop.memory.retrieval.budget import estimate_tokens
from sonetto_desktop.memory.retrieval.listing import HEADING_TOKENS, ID, TOKENS, ListingEntry
from sonetto_desktop.memory.retrieval.llm_prompt import FIND_RELATED_MEMORY

MODELS = ["e5", "wordllama"]
OWN_SPLIT = ("blind", "heldout", "example")  # split in two by a hash of the question
SIZES = (1000, 10000)
LOCAL, CLOUD = 8000, 48000
NEVER_BUDGETS = (4000, 8000, 24000)
SYSTEM = estimate_tokens(FIND_RELATED_MEMORY)
WRITTEN = 40  # tokens of the memory the writer stores after each message


def half(qd: QueryData) -> str:
    """'tune' or 'heldout': phenomena's own split, else by a hash of the question (stable across runs)."""
    if qd.set == "phenomena":
        return qd.extra.get("split") or "tune"
    return "tune" if zlib.crc32(qd.q.encode("utf-8")) % 2 == 0 else "heldout"


def load_all() -> dict[int, dict[str, list[QueryData]]]:
    return {size: i36.load(list(i36.SETS), size, MODELS) for size in SIZES}


def split(data: dict[int, dict[str, list[QueryData]]], which: str) -> dict[int, dict[str, list[QueryData]]]:
    """The own sets' ``which`` half, by set and by phenomenon."""
    out: dict[int, dict[str, list[QueryData]]] = {}
    for size, sets in data.items():
        groups: dict[str, list[QueryData]] = {}
        for name in i36.OWN:
            qs = [q for q in sets.get(name, []) if half(q) == which]
            if qs:
                groups[name] = qs
        for kind in i36.KINDS:
            groups[f"phenomena: {kind}"] = [q for q in groups.get("phenomena", []) if q.kind == kind]
        out[size] = groups
    return out


def pooled(groups: dict[str, list[QueryData]]) -> list[QueryData]:
    return [q for name, qs in groups.items() if ":" not in name for q in qs]


# ── patching the product's constants ────────────────────────────────────

FUSION = {"STRONG_MATCH": shortlist, "STRONG_PLACES": shortlist, "WORDS_SHARE": shortlist,
          "LONG_MESSAGE": shortlist}
BLOCK = {"NEW_SHARE": conversation, "FIRST_SHARE": conversation, "MIN_ROOM": conversation}


def patch(params: dict[str, float]) -> dict[str, Any]:
    """Set the constants (returns the old values)."""
    old = {}
    for name, value in params.items():
        module = FUSION.get(name) or BLOCK.get(name)
        if module is None:
            continue
        if not hasattr(module, name):  # a constant of another version (MIN_ROOM: before the cut)
            continue
        old[name] = getattr(module, name)
        setattr(module, name, type(old[name])(value))
        if hasattr(i36, name):
            setattr(i36, name, type(old[name])(value))
    i36._SHOWN.clear()
    return old


# ── fusion: the product's fill, whole budget and a block's first message ──


_BEST: dict[tuple, float] = {}


def evaluate(groups: dict[int, dict[str, list[QueryData]]], agreement: Any) -> dict[str, float]:
    """Reach at the local and cloud budgets (pooled, micro) and the worst shortfall against the
    better single ranking (per set and phenomenon, whole budget)."""
    ranker = i36.r_product("e5", agreement)
    out: dict[str, float] = {}
    hit = gold = 0
    for size, sets in groups.items():
        qs = pooled(sets)
        for label, budget, block in (("local", LOCAL, False), ("cloud", CLOUD, True)):
            h, g = i36.hits(qs, budget, ranker, block)
            out[f"{label} {size // 1000}k"] = h / g if g else 0.0
            hit, gold = hit + h, gold + g
    out["mean"] = hit / gold if gold else 0.0
    worst = 0.0
    for sets in groups.values():
        for qs in sets.values():
            if not qs:
                continue
            for b in NEVER_BUDGETS:
                if all(q.stable[b] is None for q in qs):
                    continue
                key = (id(qs[0]), len(qs), b)
                if key not in _BEST:  # words only and e5 only do not depend on the constants
                    _BEST[key] = max(i36.reach(qs, b, r_lex), i36.reach(qs, b, r_dense("e5")))
                worst = min(worst, i36.reach(qs, b, ranker) - _BEST[key])
    out["worst"] = worst
    return out


FUSION_GRID = {
    "long": {"LONG_MESSAGE": [8, 12, 16, 24, 32, 48, 10_000]},
    "small": {"STRONG_MATCH": [0.5, 0.7, 1.0], "STRONG_PLACES": [0.25, 0.5], "WORDS_SHARE": [0.34, 0.5, 0.67],
              "LONG_MESSAGE": [16]},
    "full": {"STRONG_MATCH": [0.3, 0.5, 0.7, 1.0, 1.5], "STRONG_PLACES": [0.15, 0.25, 0.35, 0.5],
             "WORDS_SHARE": [0.25, 0.34, 0.5, 0.67], "LONG_MESSAGE": [12, 16, 24, 10_000]},
}


def score(r: dict[str, float]) -> float:
    """What is chosen: pooled reach, minus twice any shortfall beyond one gold memory's worth."""
    return r["mean"] + 2 * min(0.0, r["worst"] + 0.03)


def fusion(grid: str, out: Any) -> int:
    data = load_all()
    tune, held = split(data, "tune"), split(data, "heldout")
    agreement = i36.counted([q for d in data.values() for n in i36.TRAIN for q in d.get(n, [])], MODELS)
    axes = FUSION_GRID[grid]
    names = list(axes)
    rows = []
    for values in itertools.product(*axes.values()):
        params = dict(zip(names, values, strict=True))
        old = patch(params)
        try:
            r = evaluate(tune, agreement)
        finally:
            patch(old)
        rows.append((score(r), params, r))
        print(f"{score(r):.4f} {params} " + " ".join(f"{k} {v:.3f}" for k, v in r.items()), file=sys.stderr,
              flush=True)
    rows.sort(key=lambda row: -row[0])
    print("| score | params | " + " | ".join(rows[0][2]) + " | heldout: " + " | ".join(rows[0][2]) + " |", file=out)
    print("|---|---|" + "---:|" * (2 * len(rows[0][2])), file=out)
    for s, params, r in rows[:15]:
        old = patch(params)
        try:
            h = evaluate(held, agreement)
        finally:
            patch(old)
        print(f"| {s:.4f} | {params} | " + " | ".join(f"{v:.3f}" for v in r.values()) + " | "
              + " | ".join(f"{v:.3f}" for v in h.values()) + " |", file=out, flush=True)
    return 0


# ── the block, message by message ──────────────────────────────────────


def _entry(mid: str, tokens: int) -> ListingEntry:
    """A stand-in for a listing entry: its id, key and tokens."""
    return (mid, (mid, mid), "", "", "", "", tokens, "", False)


class _ById:
    def __init__(self, tokens: Any) -> None:
        self.t = tokens

    def __contains__(self, mid: str) -> bool:
        return mid in self.t

    def __getitem__(self, mid: str) -> ListingEntry:
        return _entry(mid, self.t[mid])

    def get(self, mid: str, default: Any = None) -> Any:
        return _entry(mid, self.t[mid]) if mid in self.t else default


class _Part:
    def __init__(self, tokens: Any, smallest: int) -> None:
        self.by_id, self.smallest = _ById(tokens), smallest


class _Window:
    """``RecallListing.window`` for one stable block, and the memories written since."""

    def __init__(self, stable: list[str], tokens: Any) -> None:
        self.stable, self.written, self.tokens = stable, [], tokens

    def window(self, budget: int) -> tuple[list[ListingEntry], list, int]:
        block = [_entry(m, self.tokens[m]) for m in self.stable + self.written]
        return block, [], sum(e[TOKENS] for e in block)


class _Fill:
    """``Shortlist.fill`` over one question's saved rankings (``bench.recall_issue36._shown``'s loop)."""

    def __init__(self, qd: QueryData, ranker: Ranker) -> None:
        self.qd, self.ranker = qd, ranker

    def fill(self, prompt: str, part: _Part, exclude: set[str], tokens: int) -> list[ListingEntry]:
        qd = self.qd
        want = i36.fill_want(qd, tokens, len(exclude))
        while True:
            chosen, _, complete = shortlist.Shortlist._take(self.ranker(qd, want), part, exclude, tokens)  # type: ignore[arg-type]
            if complete or want >= qd.total:
                return chosen
            want = qd.total


def window_budget(budget: int, share: float) -> int | None:
    """The collected budget whose stable block is a ``share`` of ``budget`` (its window is a quarter of it)."""
    for b in i36.BUDGETS:
        if abs(0.25 * b - share * budget) < 1:
            return b
    return None


def sequence(qs: list[QueryData], budget: int, share: float, ranker: Ranker, seed: int = 36) -> dict[str, float]:
    """One conversation over ``qs`` (one bank) in a shuffled order: reach and differs per message."""
    order = list(qs)
    random.Random(seed).shuffle(order)
    wb = window_budget(budget, share)
    assert wb is not None, (budget, share)
    if order[0].stable[wb] is None:
        return {}
    tokens = dict(order[0].tokens)  # the bank's (the written memories join it)
    window = _Window(list(order[0].stable[wb]), tokens)
    part = _Part(tokens, order[0].smallest)
    block = conversation.ConversationBlock(clock=lambda: 0.0)
    hit = gold = 0
    differs: list[float] = []
    sizes: list[int] = []
    previous: list[str] | None = None
    for i, qd in enumerate(order):
        stable, extra, used = block.plan(qd.q, window, part, budget, int(share * budget), _Fill(qd, ranker))  # type: ignore[arg-type]
        ids = {e[ID] for e in stable} | {e[ID] for e in extra}
        hit += len(set(qd.gold) & ids)
        gold += len(qd.gold)
        s_ids, e_ids = [e[ID] for e in stable], [e[ID] for e in extra]
        head = SYSTEM + sum(tokens[m] for m in s_ids)
        total = head + sum(tokens[m] + HEADING_TOKENS for m in e_ids) + estimate_tokens(qd.q) + 60
        sizes.append(total)
        lines = [*s_ids, "## header", *e_ids]  # the request's lines in order: the stable block, then the block
        if previous is not None:
            common = SYSTEM
            for a, b in zip(previous, lines, strict=False):
                if a != b:
                    break
                common += HEADING_TOKENS if a == "## header" else tokens[a] + (HEADING_TOKENS if a in e_ids else 0)
            differs.append(1 - common / total)
        previous = lines
        mid = f"written-{i}"
        tokens[mid] = WRITTEN
        window.written.append(mid)
    return {"hit": hit, "gold": gold, "differs": sum(differs) / len(differs), "restarts": block.restarts,
            "request": sum(sizes) / len(sizes), "n": len(order)}


BLOCK_GRID = {"NEW_SHARE": [0.25, 0.3, 0.35, 0.4], "FIRST_SHARE": [0.25, 0.5, 1.0],
              "STABLE": [0.0625, 0.125, 0.2083333, 0.25]}
OLD_GRID = {"NEW_SHARE": [0.25, 0.3, 0.35], "MIN_ROOM": [0.125], "STABLE": [0.125, 0.25]}  # before the cut


def block_run(groups: dict[str, list[QueryData]], budget: int, params: dict[str, float],
              ranker: Ranker) -> dict[str, float]:
    old = patch({k: v for k, v in params.items() if k in BLOCK})
    try:
        hit = gold = 0
        diffs, reqs, weights = [], [], []
        first_hit = first_gold = 0
        for name, qs in groups.items():
            if ":" in name or not qs:
                continue
            r = sequence(qs, budget, params["STABLE"], ranker)
            if not r:
                continue
            hit, gold = hit + r["hit"], gold + r["gold"]
            diffs.append(r["differs"] * r["n"])
            reqs.append(r["request"] * r["n"])
            weights.append(r["n"])
            fh, fg = first_message(qs, budget, params["STABLE"], ranker)
            first_hit, first_gold = first_hit + fh, first_gold + fg
    finally:
        patch(old)
    n = sum(weights) or 1
    return {"reach": hit / max(gold, 1), "first": first_hit / max(first_gold, 1), "differs": sum(diffs) / n,
            "request": sum(reqs) / n}


def first_message(qs: list[QueryData], budget: int, share: float, ranker: Ranker) -> tuple[int, int]:
    """Each question as the first message of a conversation (``bench.recall_issue36``'s floor)."""
    wb = window_budget(budget, share)
    hit = gold = 0
    for qd in qs:
        stable = qd.stable[wb]
        gold += len(qd.gold)
        if stable is None:
            hit += len(qd.gold)
            continue
        used = sum(qd.tokens[m] for m in stable)
        share = getattr(conversation, "FIRST_SHARE", conversation.NEW_SHARE)
        room = max(0, min(budget - used, int(share * budget)))
        chosen = _Fill(qd, ranker).fill(qd.q, _Part(qd.tokens, qd.smallest), set(stable), room) if room else []
        shown = set(stable) | {e[ID] for e in chosen}
        hit += len(set(qd.gold) & shown)
    return hit, gold


def block(out: Any, budget: int = CLOUD, size: int = 10000) -> int:
    data = load_all()
    agreement = i36.counted([q for d in data.values() for n in i36.TRAIN for q in d.get(n, [])], MODELS)
    tune, held = split(data, "tune")[size], split(data, "heldout")[size]
    rankers = {"e5": i36.r_product("e5", agreement), "none": r_lex}
    print(f"\n| new share | first share (min room before) | stable share | {size:,} @{budget // 1000}k, tune: reach in sequence / "
          f"first message / differs / request, e5 · words only | heldout: the same |", file=out)
    print("|---:|---:|---:|---|---|", file=out)
    grid = BLOCK_GRID if hasattr(conversation, "FIRST_SHARE") else OLD_GRID
    for new, room, stable in itertools.product(*grid.values()):
        if window_budget(budget, stable) is None:
            continue
        params = {"NEW_SHARE": new, ("FIRST_SHARE" if grid is BLOCK_GRID else "MIN_ROOM"): room, "STABLE": stable}
        cells = []
        for groups in (tune, held):
            rs = [block_run(groups, budget, params, r) for r in rankers.values()]
            cells.append(" · ".join(f"{r['reach']:.3f} / {r['first']:.3f} / {r['differs']:.0%} / {r['request']:,.0f}"
                                    for r in rs))
        print(f"| {new} | {room} | {stable:.3f} | " + " | ".join(cells) + " |", file=out, flush=True)
    return 0


def check(params: dict[str, float], out: Any) -> int:
    data = load_all()
    agreement = i36.counted([q for d in data.values() for n in i36.TRAIN for q in d.get(n, [])], MODELS)
    shared = {size: {n: d[n] for n in i36.SHARED if n in d} for size, d in data.items()}
    old = patch(params)
    try:
        for label, groups in (("tune", split(data, "tune")), ("heldout", split(data, "heldout")),
                              ("shared (evaluation only)", shared)):
            r = evaluate(groups, agreement)
            print(f"| {label} | " + " | ".join(f"{k} {v:.3f}" for k, v in r.items()) + " |", file=out, flush=True)
    finally:
        patch(old)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.recall_issue36_learn", description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["fusion", "block", "check"])
    parser.add_argument("--grid", default="small", choices=list(FUSION_GRID))
    parser.add_argument("--set", action="append", default=[], help="NAME=VALUE: a constant for check")
    parser.add_argument("--budget", type=int, default=CLOUD)
    args = parser.parse_args(argv)
    if args.command == "fusion":
        return fusion(args.grid, sys.stdout)
    if args.command == "block":
        return block(sys.stdout, args.budget)
    params = {k: float(v) for k, v in (s.split("=", 1) for s in args.set)}
    return check(params, sys.stdout)


if __name__ == "__main__":
    raise SystemExit(main())
