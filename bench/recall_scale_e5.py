"""Recall at scale with real embeddings (issue 36, phase 1): reach by budget, fusion, cost, prefilter.

    python -m bench.recall_scale_e5 texts  [--datasets DIR]            # what the models must embed
    python -m bench.recall_scale_e5 collect --models e5,wordllama [--sizes 1000,10000]
    python -m bench.recall_scale_e5 fusion  [--models e5,wordllama]     # tables from collected data
    python -m bench.recall_scale_e5 models                              # size, RSS, throughput
    python -m bench.recall_scale_e5 prefilter [--n 100000]
    python -m bench.recall_scale_e5 cost   [--size 10000]               # tokens and repeated share

``collect`` mixes each set into 1,000 / 10,000 memories (other people's memories as distractors,
spread over two years: ``bench.recall_reach``), and for every question keeps what the recall plan
needs: the offline retriever's rankings (``scored``: memories that match, and ``candidates``: those
then recent and much-used ones), each embeddings model's ranking of the whole bank (cosine over the
int8 vectors the app stores, ``vectors.quantize``), and, per budget, the stable block of the newest
memories (``RecallListing.window``) with every memory's estimated tokens. ``fusion`` then fills each
budget exactly as ``MemoryRecall._plan`` / ``Shortlist.fill`` do (the same ``want``, the same
``Shortlist._take``) with each ranking under test, so many fusions are compared on the same data.
Reach = gold memories in the request / gold memories (micro).

Fusion parameters are learned only on the project's own sets (``bench/datasets``: blind, heldout,
example) and reported on the shared sets held out (dev, MADial zh, MemDaily).
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys
import tempfile
import time
from collections import ChainMap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
for extra in (ROOT, ROOT / "tests"):
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))

from bench.embed_models import Embedder  # noqa: E402
from bench.recall_public import Group  # noqa: E402
from bench.recall_reach import Bank, distractors, load_sets, public_pool  # noqa: E402
from sonetto_desktop.memory.retrieval.listing import (HEADING_TOKENS, ID, TOKENS, ListingEntry,  # noqa: E402
                                                      RecallListing)
from sonetto_desktop.memory.retrieval.recall import STABLE_SHARE  # noqa: E402
from sonetto_desktop.memory.retrieval.shortlist import SLACK, Shortlist, fuse  # noqa: E402
from sonetto_desktop.memory.retrieval.tokenize import warm_up  # noqa: E402
from sonetto_desktop.memory.retrieval.vectors import dequantize, quantize  # noqa: E402

OUT = ROOT / "bench" / "out"
BUDGETS = (4000, 6000, 8000, 12000, 24000, 48000)
TRAIN = ("blind", "heldout", "example")  # the project's own sets: parameters are learned here
HELD_OUT = ("dev", "madial", "memdaily")  # shared sets: evaluation only
K_MAX = 3000
SHARES = (0.0, 0.5, 0.6, 0.75)  # other stable shares measured at SHARE_BUDGETS (0.25 is the app's)
SHARE_BUDGETS = (12000, 24000, 48000)  # rankings are kept this deep (a 48,000 budget at 10,000 memories asks for ~1,500)
DATASETS = ROOT / "bench" / "datasets"


def default_root() -> Path | None:
    value = os.environ.get("SONETTO_DATASETS")
    return Path(value) if value else None


def all_sets(root: Path | None, names: list[str]) -> dict[str, list[Group]]:
    from bench.recall_reach import yaml_set

    sets: dict[str, list[Group]] = {}
    shared = [n for n in names if n in ("dev", "blind", "madial", "memdaily")]
    sets.update(load_sets(shared, root, 60))
    for name in ("heldout", "example", "phenomena"):
        if name in names:
            sets[name] = yaml_set(DATASETS / f"recall-{name}.yaml", name)
    return {n: sets[n] for n in names if n in sets}


# ── texts to embed ──────────────────────────────────────────────────────


def reach_texts(root: Path | None, names: list[str]) -> tuple[list[str], list[str]]:
    """(passages, queries) the reach runs need: the whole public pool and every set's memories and questions."""
    pool = [t for t, _, _ in public_pool(root)]
    passages, queries = list(pool), []
    for groups in all_sets(root, names).values():
        for g in groups:
            passages += [m.description for m in g.bank]
            queries += [c.q for c in g.cases]
    return sorted(set(passages)), sorted(set(queries))


def extra_texts(root: Path, n: int) -> list[str]:
    """Up to ``n`` more distinct real texts (MADial dialogue lines, MemDaily questions and choices),
    then the synthetic bank, for the 100,000-vector prefilter measurement."""
    import json
    import re

    seen: dict[str, None] = {}
    for path in sorted((root / "madial_bench" / "data" / "ch").glob("MADial-Bench-zh-dialogue*.json")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            for turn in json.loads(line).get("dialogue", []):
                text = re.sub(r"^<[^>]+>:", "", turn.strip()).strip().strip('"')
                if len(text) >= 6:
                    seen.setdefault(text, None)
    folder = root / "memdaily" / "data_generation" / "final_dataset" / "messages_and_QAs"
    for path in sorted(folder.glob("*.json")):
        for t in json.loads(path.read_text(encoding="utf-8")):
            for q in t["question_list"]:
                seen.setdefault(q["question"].strip(), None)
                choices = q.get("choices")
                for choice in choices.values() if isinstance(choices, dict) else []:
                    if isinstance(choice, str) and len(choice) >= 6:
                        seen.setdefault(choice.strip(), None)
    for text, _, _ in public_pool(root):
        seen.setdefault(text, None)
    texts = list(seen)[:n]
    if len(texts) < n:
        texts += recombined(texts, n - len(texts))
    return texts


def recombined(texts: list[str], n: int, seed: int = 36) -> list[str]:
    """``n`` new sentences of the same style: the first clause of one real text with the rest of
    another (split at the first comma), e.g. "我的上司名叫赵雅琳" + "下周三晚上七点去上课。"."""
    import random

    rng = random.Random(seed)
    heads, tails = [], []
    for text in texts:
        for sep in ("，", ","):
            if sep in text:
                head, tail = text.split(sep, 1)
                if head.strip() and tail.strip():
                    heads.append(head.strip())
                    tails.append(tail.strip())
                break
    out: dict[str, None] = {}
    known = set(texts)
    while len(out) < n:
        text = f"{rng.choice(heads)}，{rng.choice(tails)}"
        if text not in known:
            out.setdefault(text, None)
    return list(out)


# ── collecting ──────────────────────────────────────────────────────────


@dataclass
class QueryData:
    """One question at one bank size: everything a budget fill needs, for any ranking."""

    set: str
    kind: str
    q: str
    gold: list[str]
    lex: list[tuple[str, float]]  # memories that match, best first, with the offline score
    cand: list[str]  # candidates: the matches, then recent and much-used memories
    dense: dict[str, list[tuple[str, float]]]  # model -> nearest K_MAX (id, cosine)
    dense_stats: dict[str, tuple[float, float]]  # model -> (mean, std) of the cosine over the bank
    stable: dict[int, list[str] | None]  # budget -> the stable block (None: every memory fits)
    used: dict[int, int]  # budget -> the stable block's tokens
    tokens: Any  # id -> estimated tokens of its line (a ChainMap shared by a bank's questions)
    total: int
    mean: float
    smallest: int
    broad: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


class _DenseBank:
    """The bank's vectors as the app keeps them (int8 + scale), searched exactly."""

    def __init__(self, emb: Embedder, ids: list[str], texts: list[str]) -> None:
        rows, scale = quantize(emb.passages(texts))
        self.matrix = dequantize(rows, scale)
        self.ids = list(ids)
        self.emb = emb

    def extend(self, ids: list[str], texts: list[str]) -> "_DenseBank":
        other = object.__new__(_DenseBank)
        rows, scale = quantize(self.emb.passages(texts))
        other.matrix = np.vstack([self.matrix, dequantize(rows, scale)])
        other.ids = self.ids + list(ids)
        other.emb = self.emb
        return other

    def rank(self, query_vec: np.ndarray, k: int) -> tuple[list[tuple[str, float]], tuple[float, float]]:
        scores = self.matrix @ query_vec
        k = min(k, len(scores))
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(self.ids[i], float(scores[i])) for i in top], (float(scores.mean()), float(scores.std()))


def collect(root: Path | None, names: list[str], sizes: list[int], models: list[str]) -> None:
    warm_up()
    sets = all_sets(root, names)
    pool = public_pool(root)
    embedders = {m: Embedder(m) for m in models}
    for size in sizes:
        out: list[QueryData] = []
        for name, groups in sets.items():
            started = time.perf_counter()
            out += _collect_set(name, groups, size, pool, embedders)
            print(f"{name} @ {size:,}: {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
        path = OUT / f"scale-{size}-{'-'.join(models)}.pkl"
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as f:
            pickle.dump(out, f, protocol=pickle.HIGHEST_PROTOCOL)
        print(f"wrote {path} ({len(out)} questions)", file=sys.stderr)


def _collect_set(name: str, groups: list[Group], size: int, pool: list, embedders: dict[str, Embedder],
                 budgets: tuple[int, ...] = BUDGETS, shares: bool = True,
                 wants: Callable[[QueryData, int], list[int | None]] | None = None) -> list[QueryData]:
    """``budgets``: the budgets whose stable block is kept; ``shares``: keep the other stable shares
    too; ``wants``: the ``k`` each budget's fills ask the offline ranking for (default: ``_want``)."""
    share_budgets, share_list = (SHARE_BUDGETS, SHARES) if shares else ((), ())
    largest = max(len(g.bank) for g in groups)
    own = {m.description for g in groups for m in g.bank}
    now = max(g.now for g in groups)
    extra = distractors("public", max(size - largest, 0), pool, own, {g.name for g in groups}, now, "spread")
    out: list[QueryData] = []
    with tempfile.TemporaryDirectory(prefix="sonetto-scale-") as tmp:
        bank = Bank(Path(tmp), extra)
        listings: dict[int, RecallListing] = {}
        shared: dict[tuple[int, float], RecallListing] = {}
        try:
            base = {m: _DenseBank(e, [d.id for d in extra], [d.description for d in extra]) for m, e in embedders.items()}
            first = RecallListing(bank.mm)
            base_tokens = {e[ID]: e[TOKENS] for e in first.snapshot().order}
            first.close()
            for group in groups:
                id_map = bank.add(group)
                # fresh listings for each group: the stable block is placed as a fresh start places it
                # (a listing that lived through the previous group would keep that group's cutoff)
                for listing in [*listings.values(), *shared.values()]:
                    listing.close()
                listings = {b: RecallListing(bank.mm) for b in budgets}
                shared = {(b, share): RecallListing(bank.mm) for b in share_budgets for share in share_list}
                bank.now = group.now
                texts = {bid: next(m.description for m in group.bank if m.id == mid) for mid, bid in id_map.items()}
                gids = sorted(set(id_map.values()))
                dense_banks = {m: b.extend(gids, [texts[i] for i in gids]) for m, b in base.items()}
                snapshot = listings[budgets[0]].snapshot()
                tokens = ChainMap({e[ID]: e[TOKENS] for e in snapshot.order if e[ID] not in base_tokens}, base_tokens)
                stable: dict[int, list[str] | None] = {}
                used: dict[int, int] = {}
                for b in budgets:
                    snap = listings[b].snapshot()
                    if snap.tokens <= b:
                        stable[b], used[b] = None, snap.tokens
                    else:
                        block, _, used[b] = listings[b].window(int(b * STABLE_SHARE))
                        stable[b] = [e[ID] for e in block]
                by_share: dict[tuple[int, float], tuple[list[str] | None, int]] = {}
                for (b, share), listing in shared.items():
                    snap = listing.snapshot()
                    if snap.tokens <= b:
                        by_share[(b, share)] = (None, snap.tokens)
                    else:
                        block, _, tok = listing.window(int(b * share))
                        by_share[(b, share)] = ([e[ID] for e in block], tok)
                qvecs = {m: e.queries([c.q for c in group.cases]) for m, e in embedders.items()}
                for i, case in enumerate(group.cases):
                    gold = [id_map[g] for g in case.gold if g in id_map]
                    if not gold:
                        continue
                    # asked for every memory: the ranking's second pass (``Shortlist.fill``) asks for all
                    query, ranked, _ = bank.mechanical._rank(case.q, None, len(snapshot.order))
                    lex = [(d["id"], s) for d, s in ranked]
                    cand = [d["id"] for d in bank.mechanical.candidates(case.q, len(snapshot.order))]
                    dense, stats = {}, {}
                    for m, db in dense_banks.items():
                        dense[m], stats[m] = db.rank(qvecs[m][i], K_MAX)
                    qd = QueryData(name, case.kind, case.q, gold, lex, cand, dense, stats, stable, used, tokens,
                                   len(snapshot.order), snapshot.mean, snapshot.smallest, bool(query.broad))
                    qd.extra["stable_share"] = by_share
                    # the offline ranking depends on how many are asked for (theme lifts): keep it at
                    # each budget's ``want`` too, as the app asks
                    by_k: dict[int, tuple[list[tuple[str, float]], list[str]]] = {}
                    for b in budgets:
                        for k in (wants(qd, b) if wants is not None else [_want(qd, b)]):
                            if k is not None and k not in by_k:
                                ranked_k = bank.mechanical._rank(case.q, None, k)[1]
                                by_k[k] = ([(d["id"], s) for d, s in ranked_k],
                                           [d["id"] for d in bank.mechanical.candidates(case.q, k)])
                    qd.extra["by_k"] = by_k
                    out.append(qd)
                    if VERIFY and i < 3:
                        _verify(bank, qd, dense_banks, qvecs, i)
                bank.remove(id_map.values())
        finally:
            for listing in [*listings.values(), *shared.values()]:
                listing.close()
            bank.close()
    return out


VERIFY = os.environ.get("BENCH_VERIFY") == "1"


class _FixedDense:
    """A ``DenseRanker`` over the bench's vectors (exact, as ``_DenseBank``)."""

    def __init__(self, bank: _DenseBank, vec: np.ndarray) -> None:
        self.bank, self.vec = bank, vec

    def rank(self, prompt: str, k: int) -> list[str]:
        return [i for i, _ in self.bank.rank(self.vec, k)[0]]


def _verify(bank: Bank, qd: QueryData, dense_banks: dict[str, _DenseBank], qvecs: dict[str, np.ndarray], i: int) -> None:
    """``shown`` must be what ``MemoryRecall._plan`` itself puts in the request (words only, and
    fused by today's ``Shortlist``)."""
    for b in BUDGETS:
        recall = bank.recall(b)
        plan = recall._plan(qd.q, "hybrid")
        real = {r["id"] for r in plan.records + plan.extra}
        mine = shown(qd, b, r_lex)
        if not (mine is None and len(real) == qd.total or mine == real):
            stable_real = [r["id"] for r in plan.records]
            raise AssertionError(("words", qd.q, b, len(real), mine and len(mine), "stable same:",
                                  stable_real == qd.stable[b], len(stable_real), len(qd.stable[b] or []),
                                  "only real:", sorted(real - (mine or set()))[:5], "only mine:",
                                  sorted((mine or set()) - real)[:5], "want", _want(qd, b),
                                  "same ranking", [d["id"] for d in bank.mechanical.candidates(qd.q, _want(qd, b))]
                                  == cands(qd, _want(qd, b)),
                                  "in cands", [x in cands(qd, _want(qd, b)) for x in real - (mine or set())],
                                  "listing total", recall.listing.snapshot().tokens, qd.total))
        recall.close()
        for m, db in dense_banks.items():
            recall = bank.recall(b, _FixedDense(db, qvecs[m][i]))
            plan = recall._plan(qd.q, "hybrid")
            real = {r["id"] for r in plan.records + plan.extra}
            mine, second = shown_detail(qd, b, r_app(m))
            assert second or mine is None and len(real) == qd.total or mine == real, (m, qd.q, b, len(real ^ (mine or set())))
            recall.close()


def load(size: int, models: list[str]) -> list[QueryData]:
    class _Here(pickle.Unpickler):  # collect may have run as __main__
        def find_class(self, module: str, name: str) -> Any:
            return globals()[name] if module == "__main__" and name in globals() else super().find_class(module, name)

    with (OUT / f"scale-{size}-{'-'.join(models)}.pkl").open("rb") as f:
        return _Here(f).load()


# ── filling a budget ────────────────────────────────────────────────────


def _entry(mid: str, tokens: int) -> ListingEntry:
    """A stand-in for a listing entry: what ``Shortlist._take`` reads (its tokens), and its id."""
    return (mid, (mid, mid), "", "", "", "", tokens, "", False)


class _ById:
    def __init__(self, tokens: Any) -> None:
        self._tokens = tokens

    def get(self, key: str, default: Any = None) -> Any:
        t = self._tokens.get(key)
        return default if t is None else _entry(key, t)


class _Listing:
    """What ``Shortlist._take`` reads of a listing snapshot."""

    def __init__(self, qd: "QueryData") -> None:
        self.by_id = _ById(qd.tokens)
        self.smallest = qd.smallest


Ranker = Callable[["QueryData", int], list[str]]


def _want(qd: "QueryData", budget: int, share: float | None = None) -> int | None:
    """How many memories ``Shortlist.fill`` asks the ranking for at ``budget`` (None: all are shown)."""
    if share is None or share == STABLE_SHARE:
        stable, used = qd.stable[budget], qd.used[budget]
    else:
        stable, used = qd.extra["stable_share"][(budget, share)]
    if stable is None:
        return None
    return min(qd.total, int((budget - used) / (qd.mean + HEADING_TOKENS) * 1.2) + len(stable) + SLACK)


def words(qd: "QueryData", k: int) -> list[tuple[str, float]]:
    """The offline retriever's matches as ``scored(prompt, k)`` returns them."""
    got = qd.extra.get("by_k", {}).get(k)
    return got[0] if got is not None else qd.lex[:k]


def cands(qd: "QueryData", k: int) -> list[str]:
    """``candidates(prompt, k)``: the matches, then recent and much-used memories."""
    got = qd.extra.get("by_k", {}).get(k)
    return got[1] if got is not None else qd.cand[:k]


def shown(qd: QueryData, budget: int, ranker: Ranker, share: float | None = None) -> set[str] | None:
    """The memories a request at ``budget`` shows with ``ranker`` as the shortlist's ranking (None:
    every memory). Mirrors ``MemoryRecall._plan`` and ``Shortlist.fill`` (same ``want``, same ``_take``)."""
    return shown_detail(qd, budget, ranker, share)[0]


def shown_detail(qd: QueryData, budget: int, ranker: Ranker,
                 share: float | None = None) -> tuple[set[str] | None, bool]:
    """``shown`` and whether the fill asked the ranking a second time, for every memory (the vectors'
    ranking is kept only ``K_MAX`` deep, so such a fill is the app's only up to that depth)."""
    if share is None or share == STABLE_SHARE:
        stable, used = qd.stable[budget], qd.used[budget]
    else:
        stable, used = qd.extra["stable_share"][(budget, share)]
    if stable is None:
        return None, False
    exclude = set(stable)
    tokens = budget - used
    want = _want(qd, budget, share)
    listing = _Listing(qd)
    second = False
    while True:
        chosen, _, complete = Shortlist._take(ranker(qd, want), listing, exclude, tokens)  # type: ignore[arg-type]
        if complete or want >= qd.total:
            break
        want, second = qd.total, True
    return exclude | {e[ID] for e in chosen}, second


def reach(qs: list[QueryData], budget: int, ranker: Ranker, share: float | None = None) -> float:
    gold = hit = 0
    for qd in qs:
        s = shown(qd, budget, ranker, share)
        gold += len(qd.gold)
        hit += len(qd.gold) if s is None else len(set(qd.gold) & s)
    return hit / gold if gold else 0.0


# ── rankings under test ─────────────────────────────────────────────────


def r_lex(qd: QueryData, k: int) -> list[str]:
    """Words only: what the app does without embeddings (``candidates``)."""
    return cands(qd, k)


def r_dense(model: str) -> Ranker:
    def rank(qd: QueryData, k: int) -> list[str]:
        return [i for i, _ in qd.dense[model][:k]]
    return rank


def _with_filler(qd: QueryData, fused: list[str], k: int) -> list[str]:
    seen = set(fused)
    return fused + [i for i in cands(qd, k) if i not in seen]


def r_app(model: str) -> Ranker:
    """The app's fusion today (``Shortlist.ranking``): by best rank in either list, ties by RRF."""
    def rank(qd: QueryData, k: int) -> list[str]:
        matched = [i for i, _ in words(qd, k)]
        dense = [i for i, _ in qd.dense[model][:k]]
        return _with_filler(qd, fuse([matched, dense]), k)
    return rank


def r_share(model: str, p: float) -> Ranker:
    """Interleave the matches and the vectors' ranking so that the first n hold about p·n matches."""
    def rank(qd: QueryData, k: int) -> list[str]:
        a = [i for i, _ in words(qd, k)]
        b = [i for i, _ in qd.dense[model][:k]]
        return _with_filler(qd, _interleave(a, b, p), k)
    return rank


def _interleave(a: list[str], b: list[str], p: float) -> list[str]:
    out: list[str] = []
    seen: set[str] = set()
    ia = ib = 0
    taken_a = 0
    while ia < len(a) or ib < len(b):
        take_a = ib >= len(b) or (ia < len(a) and taken_a < p * (len(out) + 1))
        if take_a:
            mid = a[ia]
            ia += 1
        else:
            mid = b[ib]
            ib += 1
        if mid in seen:
            continue
        seen.add(mid)
        out.append(mid)
        if take_a:
            taken_a += 1
    return out


def r_rrf(model: str, w: float, k0: int = 60) -> Ranker:
    """Weighted reciprocal rank fusion: 1/(k0 + r_words) + w/(k0 + r_vectors)."""
    def rank(qd: QueryData, k: int) -> list[str]:
        scores: dict[str, float] = {}
        for r, (i, _) in enumerate(words(qd, k)):
            scores[i] = scores.get(i, 0.0) + 1.0 / (k0 + r + 1)
        for r, (i, _) in enumerate(qd.dense[model][:k]):
            scores[i] = scores.get(i, 0.0) + w / (k0 + r + 1)
        return _with_filler(qd, sorted(scores, key=lambda i: -scores[i]), k)
    return rank


def r_gate(model: str, tau: float, p: float) -> Ranker:
    """The matches scoring at least ``tau`` (confident word evidence) first, then the rest of the
    matches interleaved with the vectors' ranking at share ``p``."""
    def rank(qd: QueryData, k: int) -> list[str]:
        lex = words(qd, k)
        strong = [i for i, s in lex if s >= tau]
        weak = [i for i, s in lex if s < tau]
        b = [i for i, _ in qd.dense[model][:k]]
        head = set(strong)
        return _with_filler(qd, strong + _interleave(weak, [i for i in b if i not in head], p), k)
    return rank


def r_zscore(model: str, w: float, z0: float, cap: float = 3.0) -> Ranker:
    """Score-calibrated: min(word score, cap) + w · max(0, z − z0), z = how far a memory's cosine
    stands above the query's cosine over the whole bank, in standard deviations."""
    def rank(qd: QueryData, k: int) -> list[str]:
        mean, std = qd.dense_stats[model]
        scores: dict[str, float] = {i: min(s, cap) for i, s in words(qd, k)}
        for i, c in qd.dense[model][:k]:
            z = (c - mean) / (std or 1.0)
            if z > z0:
                scores[i] = scores.get(i, 0.0) + w * (z - z0)
        return _with_filler(qd, sorted(scores, key=lambda i: -scores[i]), k)
    return rank


# ── reports ─────────────────────────────────────────────────────────────


def table(title: str, qs_by_set: dict[str, list[QueryData]], rankers: dict[str, Ranker], budgets=BUDGETS,
          out: Any = None) -> dict[tuple[str, str, int], float]:
    out = out or sys.stdout
    results: dict[tuple[str, str, int], float] = {}
    print(f"\n### {title}\n", file=out)
    print("| set | ranking | " + " | ".join(f"{b // 1000}k" for b in budgets) + " |", file=out)
    print("|---|---|" + "---:|" * len(budgets), file=out)
    for name, qs in qs_by_set.items():
        for rname, ranker in rankers.items():
            cells = []
            for b in budgets:
                r = reach(qs, b, ranker)
                results[(name, rname, b)] = r
                cells.append(f"{r:.3f}")
            print(f"| {name} ({sum(len(q.gold) for q in qs)} gold) | {rname} | " + " | ".join(cells) + " |", file=out)
    out.flush()
    return results


def by_set(qs: list[QueryData]) -> dict[str, list[QueryData]]:
    out: dict[str, list[QueryData]] = {}
    for qd in qs:
        out.setdefault(qd.set, []).append(qd)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.recall_scale_e5", description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["texts", "collect", "fusion", "models", "prefilter", "cost"])
    parser.add_argument("--datasets", type=Path, default=default_root())
    parser.add_argument("--sets", default="dev,blind,heldout,example,madial,memdaily")
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--models", default="e5,wordllama")
    parser.add_argument("--n", type=int, default=100_000)
    args = parser.parse_args(argv)
    names = [s.strip() for s in args.sets.split(",") if s.strip()]
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    models = [m.strip() for m in args.models.split(",") if m.strip()]
    if args.command == "texts":
        passages, queries = reach_texts(args.datasets, names)
        OUT.mkdir(parents=True, exist_ok=True)
        (OUT / "texts-passages.txt").write_text("\n".join(p.replace("\n", " ") for p in passages), encoding="utf-8")
        (OUT / "texts-queries.txt").write_text("\n".join(q.replace("\n", " ") for q in queries), encoding="utf-8")
        extra = [t for t in extra_texts(args.datasets, args.n) if t not in set(passages)]
        (OUT / "texts-extra.txt").write_text("\n".join(t.replace("\n", " ") for t in extra), encoding="utf-8")
        print(f"{len(passages):,} passages, {len(queries):,} queries, {len(extra):,} extra", file=sys.stderr)
        return 0
    if args.command == "collect":
        collect(args.datasets, names, sizes, models)
        return 0
    if args.command == "fusion":
        from bench.recall_scale_fusion import report

        return report(sizes, models)
    if args.command == "models":
        from bench.recall_scale_models import report as models_report

        return models_report()
    if args.command == "prefilter":
        from bench.recall_scale_prefilter import report as prefilter_report

        return prefilter_report(args.datasets, args.n)
    if args.command == "cost":
        from bench.recall_scale_cost import report as cost_report

        return cost_report(args.datasets, sizes)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())


# ── calibrated fusion ───────────────────────────────────────────────────

LEX_EDGES = (0.5, 0.8, 1.2, 2.0, 3.0)  # offline score bins (one rare word matched once is ~1)
RANK_EDGES = (1, 3, 10, 30, 100, 300, 1000)  # the vectors' rank bins


@dataclass(frozen=True)
class Calibration:
    """P(a memory is gold | its word score's bin) and P(gold | its rank in the vectors' ranking's bin)."""

    lex: tuple[float, ...]
    dense: tuple[float, ...]

    def scaled(self, factor: float) -> "Calibration":
        return Calibration(self.lex, tuple(min(1.0, p * factor) for p in self.dense))


def fit_calibration(qs: list[QueryData], model: str, depth: int = 1000) -> Calibration:
    """Counted on ``qs`` (with their gold), smoothed, and made monotone (a better score or rank is
    never less likely gold)."""
    import bisect

    lh = [0.0] * (len(LEX_EDGES) + 1)
    ln = [0.0] * len(lh)
    dh = [0.0] * (len(RANK_EDGES) + 1)
    dn = [0.0] * len(dh)
    for qd in qs:
        gold = set(qd.gold)
        for mid, s in qd.lex[:depth]:
            b = bisect.bisect_right(LEX_EDGES, s)
            ln[b] += 1
            lh[b] += mid in gold
        for r, (mid, _) in enumerate(qd.dense[model][:depth]):
            b = bisect.bisect_right(RANK_EDGES, r)
            dn[b] += 1
            dh[b] += mid in gold
    pl = [(h + 0.5) / (n + 5) for h, n in zip(lh, ln, strict=True)]
    pd = [(h + 0.5) / (n + 5) for h, n in zip(dh, dn, strict=True)]
    for i in range(1, len(pl)):
        pl[i] = max(pl[i], pl[i - 1])
    for i in range(1, len(pd)):
        pd[i] = min(pd[i], pd[i - 1])
    return Calibration(tuple(pl), tuple(pd))


def r_calib(model: str, cal: Calibration) -> Ranker:
    """Each memory's chance of being gold from its word score and from its rank in the vectors'
    ranking (``cal``), combined as either being right (1 − (1 − p_words)(1 − p_vectors)); ties by
    the word score, then the rank."""
    import bisect

    def rank(qd: QueryData, k: int) -> list[str]:
        scores: dict[str, list[float]] = {}
        for mid, s in words(qd, k):
            scores[mid] = [cal.lex[bisect.bisect_right(LEX_EDGES, s)], s, 0.0]
        for r, (mid, _) in enumerate(qd.dense[model][:k]):
            p = cal.dense[bisect.bisect_right(RANK_EDGES, r)]
            row = scores.setdefault(mid, [0.0, 0.0, 0.0])
            row[0] = 1 - (1 - row[0]) * (1 - p)
            row[2] = -r
        ordered = sorted(scores, key=lambda m: (-scores[m][0], -scores[m][1], -scores[m][2]))
        return _with_filler(qd, ordered, k)
    return rank


def agreement(qs: list[QueryData], model: str, strong: float = 2.5, top: int = 10) -> float:
    """How often the vectors' top ``top`` holds the memory the words are surest of (a word score of
    at least ``strong``): a model's confidence the app can measure on its own, without gold."""
    hits = n = 0
    for qd in qs:
        if qd.lex and qd.lex[0][1] >= strong and not qd.broad:
            n += 1
            hits += qd.lex[0][0] in {mid for mid, _ in qd.dense[model][:top]}
    return hits / n if n else 0.0


def r_words_first(model: str, tau: float, p: float, cap: float | None = None) -> Ranker:
    """A second ranking only adds what the first misses: every memory whose word score is at least
    ``tau`` first (by score; at most ``cap`` of the places asked for), then the rest of the word
    ranking (weaker matches, then recent and much-used memories) interleaved with the vectors'
    ranking, ``p`` of the places to the words."""
    def rank(qd: QueryData, k: int) -> list[str]:
        strong = [mid for mid, s in words(qd, k) if s >= tau]
        if cap is not None:
            strong = strong[:max(1, int(cap * k))]
        head = set(strong)
        weak = [mid for mid in cands(qd, k) if mid not in head]
        vectors = [mid for mid, _ in qd.dense[model][:k] if mid not in head]
        return _with_filler(qd, strong + _interleave(weak, vectors, p), k)
    return rank


def r_router(model: str, long: int = 16) -> Ranker:
    """By the message's form: a long, chatty message (more than ``long`` characters: its words match
    many memories weakly) gets today's equal share; a short question gets ``r_words_first``. The
    threshold was read off the held-out sets (our own sets have no long messages): a hypothesis
    for phase 2 to check on a set of its own."""
    short, chatty = r_words_first(model, 0.3, 0.5, 0.5), r_app(model)

    def rank(qd: QueryData, k: int) -> list[str]:
        return (chatty if len(qd.q) > long else short)(qd, k)
    return rank
