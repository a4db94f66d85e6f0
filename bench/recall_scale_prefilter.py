"""``bench.recall_scale_e5 prefilter``: narrowing 100,000 real e5 vectors before the exact score.

The vectors are the cached e5 passages (``texts``: the shared sets' and other people's memories, the
MADial dialogue lines, MemDaily questions and choices, then sentences recombined from two real ones
at a comma); the queries are the sets' questions. Stored as the app stores them (``vectors.quantize``:
int8 rows, a float scale each, sign bits). The truth is the exact cosine over those int8 rows (what
the app returned below 20,000 rows before issue 36). For each way of narrowing: the share of the true top k
it keeps (mean over questions) for k = 100 … 800, and the median / p95 time of one search (narrow
and re-score), one thread of numpy as the app runs it.
"""

from __future__ import annotations

import os
import statistics
import time
from pathlib import Path
from typing import Callable

import numpy as np

from bench.embed_models import Embedder
from bench.recall import p95
from bench.recall_scale_e5 import OUT
from sonetto_desktop.memory.retrieval.vectors import quantize

KS = (100, 200, 400, 800)
CHUNK = 512  # rows upcast at a time by the phase-1 methods below (the app's own: vectors.CHUNK numbers)
PREFILTER_FACTOR, PREFILTER_MIN = 4, 2000  # the app's prefilter before issue 36 (raw sign bits)


def _vectors(n: int) -> tuple[np.ndarray, np.ndarray, int]:
    """(n passage vectors, the questions' vectors, how many passages are real): every cached e5
    passage, then (when fewer than ``n`` are cached) mixtures of two real ones, normalised (a
    memory between two topics), to make up ``n``."""
    texts = (OUT / "texts-passages.txt").read_text(encoding="utf-8").splitlines()
    texts += (OUT / "texts-extra.txt").read_text(encoding="utf-8").splitlines()
    texts = list(dict.fromkeys(t for t in texts if t.strip()))[:n]
    emb = Embedder("e5")
    _, real = emb.only_cached("passage", texts)
    real = real[:n]
    rows = [real]
    if len(real) < n:
        rng = np.random.default_rng(36)
        i = rng.integers(0, len(real), n - len(real))
        j = rng.integers(0, len(real), n - len(real))
        a = rng.uniform(0.3, 0.7, (n - len(real), 1)).astype(np.float32)
        mixed = a * real[i] + (1 - a) * real[j]
        rows.append(mixed / np.linalg.norm(mixed, axis=1, keepdims=True))
    queries = (OUT / "texts-queries.txt").read_text(encoding="utf-8").splitlines()
    return np.vstack(rows).astype(np.float32), emb.queries([q for q in queries if q.strip()]), len(real)


class Store:
    """The app's in-RAM layout: int8 rows, scales, sign bits."""

    def __init__(self, matrix: np.ndarray) -> None:
        self.rows, self.scale = quantize(matrix)
        self.bits = np.packbits(self.rows > 0, axis=1)
        self.n = len(self.rows)

    def exact(self, q: np.ndarray, subset: np.ndarray | None = None) -> np.ndarray:
        if subset is not None:
            return (self.rows[subset].astype(np.float32) @ q) * self.scale[subset]
        scores = np.empty(self.n, np.float32)
        for start in range(0, self.n, CHUNK):
            stop = min(self.n, start + CHUNK)
            scores[start:stop] = (self.rows[start:stop].astype(np.float32) @ q) * self.scale[start:stop]
        return scores


def _top(scores: np.ndarray, k: int, ids: np.ndarray | None = None) -> np.ndarray:
    k = min(k, len(scores))
    top = np.argpartition(-scores, k - 1)[:k]
    return top if ids is None else ids[top]


def hamming(store: Store, factor: int, floor: int = PREFILTER_MIN) -> Callable[[np.ndarray, int], np.ndarray]:
    def search(q: np.ndarray, k: int) -> np.ndarray:
        keep = min(store.n, max(floor, factor * k))
        differ = np.bitwise_xor(store.bits, np.packbits(q > 0))
        distance = np.bitwise_count(differ).sum(axis=1, dtype=np.uint32)
        cand = np.argpartition(distance, keep - 1)[:keep]
        return _top(store.exact(q, cand), k, cand)
    return search


def centred_hamming(store: Store, factor: int, floor: int) -> Callable[[np.ndarray, int], np.ndarray]:
    """Sign bits of the rows minus their mean (an embeddings model's vectors share a common
    direction, so raw sign bits are nearly the same for every row), the query likewise."""
    full_mean = np.zeros(store.rows.shape[1], np.float64)
    for start in range(0, store.n, CHUNK):
        full_mean += (store.rows[start:start + CHUNK].astype(np.float32) * store.scale[start:start + CHUNK, None]).sum(0)
    mean = (full_mean / store.n).astype(np.float32)
    bits = np.vstack([np.packbits((store.rows[start:start + CHUNK].astype(np.float32)
                                   * store.scale[start:start + CHUNK, None] - mean) > 0, axis=1)
                      for start in range(0, store.n, CHUNK)])

    def search(q: np.ndarray, k: int) -> np.ndarray:
        keep = min(store.n, max(floor, factor * k))
        differ = np.bitwise_xor(bits, np.packbits((q - mean) > 0))
        distance = np.bitwise_count(differ).sum(axis=1, dtype=np.uint32)
        cand = np.argpartition(distance, keep - 1)[:keep]
        return _top(store.exact(q, cand), k, cand)
    return search


def exact_int8(store: Store) -> Callable[[np.ndarray, int], np.ndarray]:
    return lambda q, k: _top(store.exact(q), k)


def exact_f16(store: Store) -> Callable[[np.ndarray, int], np.ndarray]:
    """float16 rows kept in RAM (2 bytes a dimension), scored in float32 chunks."""
    f16 = (store.rows.astype(np.float32) * store.scale[:, None]).astype(np.float16)

    def search(q: np.ndarray, k: int) -> np.ndarray:
        scores = np.empty(store.n, np.float32)
        for start in range(0, store.n, CHUNK):
            stop = min(store.n, start + CHUNK)
            scores[start:stop] = f16[start:stop].astype(np.float32) @ q
        return _top(scores, k)
    return search


def exact_f32(store: Store) -> Callable[[np.ndarray, int], np.ndarray]:
    """float32 rows in RAM (4 bytes a dimension): one BLAS matrix-vector product."""
    f32 = store.rows.astype(np.float32) * store.scale[:, None]
    return lambda q, k: _top(f32 @ q, k)


def pca(store: Store, dims: int, factor: int) -> Callable[[np.ndarray, int], np.ndarray]:
    """Project to the top ``dims`` principal directions (float32), keep ``factor`` × k, re-score exactly."""
    full = store.rows.astype(np.float32) * store.scale[:, None]
    sample = full[np.random.default_rng(0).choice(store.n, min(store.n, 20_000), replace=False)]
    mean = sample.mean(0)
    _, _, vt = np.linalg.svd(sample - mean, full_matrices=False)
    basis = vt[:dims].T.astype(np.float32)
    low = (full - mean) @ basis
    del full

    def search(q: np.ndarray, k: int) -> np.ndarray:
        keep = min(store.n, factor * k)
        approx = low @ (q @ basis)
        cand = np.argpartition(-approx, keep - 1)[:keep]
        return _top(store.exact(q, cand), k, cand)
    return search


def report(root: Path | None, n: int) -> int:
    from threadpoolctl import threadpool_limits

    passages, queries, real = _vectors(n)
    store = Store(passages)
    del passages
    truth = {k: [] for k in KS}
    for q in queries:
        scores = store.exact(q)
        order = np.argsort(-scores)[: max(KS)]
        for k in KS:
            truth[k].append(set(order[:k].tolist()))
    methods: dict[str, Callable[[np.ndarray, int], np.ndarray]] = {
        f"before: sign bits → max({PREFILTER_MIN}, {PREFILTER_FACTOR}·k), exact": hamming(store, PREFILTER_FACTOR),
        "sign bits → 16·k (≥ 4,000), exact": hamming(store, 16, 4000),
        "sign bits → 32·k (≥ 8,000), exact": hamming(store, 32, 8000),
        "centred sign bits → 4·k (≥ 2,000), exact": centred_hamming(store, 4, 2000),
        "centred sign bits → 8·k (≥ 4,000), exact": centred_hamming(store, 8, 4000),
        "centred sign bits → 16·k (≥ 8,000), exact": centred_hamming(store, 16, 8000),
        "centred sign bits → 32·k (≥ 16,000), exact": centred_hamming(store, 32, 16000),
        "centred sign bits → 48·k (≥ 24,000), exact": centred_hamming(store, 48, 24000),
        "PCA 64 → 8·k, exact": pca(store, 64, 8),
        "PCA 96 → 8·k, exact": pca(store, 96, 8),
        "exact int8 (upcast in chunks)": exact_int8(store),
        "exact float16 rows": exact_f16(store),
        "exact float32 rows (BLAS)": exact_f32(store),
    }
    only = os.environ.get("BENCH_PREFILTER_ONLY")  # words of the methods' names (comma-separated): only those
    if only:
        methods = {name: m for name, m in methods.items() if any(w in name for w in only.split(","))}
    print(f"\n### Prefilter at {store.n:,} e5 vectors ({real:,} real, the rest mixtures of two real ones; "
          f"{store.rows.shape[1]} dimensions), {len(queries)} questions\n")
    print("| method | " + " | ".join(f"top {k} kept" for k in KS) + " | ms median (k=800) | ms p95 | RAM MB |")
    print("|---|" + "---:|" * (len(KS) + 3))
    ram = {"exact float16 rows": 2, "exact float32 rows (BLAS)": 4}
    with threadpool_limits(1):
        for name, search in methods.items():
            kept = {k: statistics.fmean(len(set(search(q, k).tolist()) & t) / k for q, t in zip(queries, truth[k], strict=True))
                    for k in KS}
            times = []
            for q in queries[:60]:
                t0 = time.perf_counter()
                search(q, 800)
                times.append((time.perf_counter() - t0) * 1000)
            extra = ram.get(name, 0) * store.n * store.rows.shape[1] / 1e6
            base = store.rows.nbytes / 1e6 + store.bits.nbytes / 1e6
            print(f"| {name} | " + " | ".join(f"{kept[k]:.3f}" for k in KS)
                  + f" | {statistics.median(times):.1f} | {p95(times):.1f} | {base + extra:.0f} |", flush=True)
    return 0


# ── the app's own search (issue 36, item 6) ─────────────────────────────

def lifted(passages: np.ndarray, queries: np.ndarray, how: str, dims: int = 1024, noise: float = 0.5,
           seed: int = 1024) -> tuple[np.ndarray, np.ndarray]:
    """1,024-number vectors made from the 384-number e5 ones (no 1,024-dimension model runs here),
    two ways that bracket a real model's sign bits:

    - ``rotation``: a fixed random map with orthonormal columns (384 → 1,024; every cosine kept),
      plus each vector's own noise in all 1,024 numbers (``noise`` × the rows' spread around their
      mean, so the vectors are not confined to 384 directions). Each number mixes every e5 number:
      its sign bits are random hyperplanes, the kindest case for sign bits.
    - ``copies``: the 384 numbers, then two signed permutations of them (the third cut to 256),
      plus the same noise. The numbers keep e5's uneven spread and its common direction, and two
      thirds of the bits repeat others: the least informative 1,024 bits.

    Both keep e5's common direction (mean length 0.93 after the lift; e5 0.94) and its neighbours.
    Not shown by either: a real 1,024-dimension model's own structure (its neighbours differ from
    e5's; a few numbers of very large spread)."""
    rng = np.random.default_rng(seed)
    d = passages.shape[1]
    if how == "rotation":
        basis, _ = np.linalg.qr(rng.normal(size=(dims, d)).astype(np.float32))

        def mapped(x: np.ndarray) -> np.ndarray:
            return x @ basis.T
    elif how == "copies":
        index = np.concatenate([np.arange(d), rng.permutation(d), rng.permutation(d)])[:dims]
        sign = np.where(np.arange(dims) < d, 1.0, rng.choice([-1.0, 1.0], dims)).astype(np.float32)

        def mapped(x: np.ndarray) -> np.ndarray:
            return x[:, index] * sign * np.float32(np.sqrt(d / dims))
    else:
        raise ValueError(how)
    mean = passages.mean(0)
    sigma = noise * float(np.sqrt(max(1e-9, 1 - mean @ mean))) / np.sqrt(dims)

    def made(x: np.ndarray) -> np.ndarray:
        out = np.empty((len(x), dims), np.float32)
        for start in range(0, len(x), 10_000):
            y = mapped(x[start:start + 10_000]) + rng.normal(scale=sigma, size=(len(x[start:start + 10_000]), dims))
            out[start:start + len(y)] = y / np.linalg.norm(y, axis=1, keepdims=True)
        return out
    return made(passages), made(queries)


def product(n: int, lifts: list[str], runs: int, timed: int = 60) -> int:
    """The app's ``_Matrix.search`` (exact up to ``EXACT_UP_TO``, centred sign bits above) and the
    search before issue 36 (raw sign bits → max(2,000, 4·k)), at ``n`` e5 vectors of 384 numbers and
    lifted to 1,024: the share of the true top k kept, and ms median / p95 of one search (``timed``
    questions × ``runs`` runs, k = 100 and 800), one numpy thread; the load average with each run.
    Wall time on a shared, loaded machine is mostly waiting for a core, so the CPU time of the
    searching thread (``time.thread_time``) is shown too: what the search costs where it has a core."""
    from threadpoolctl import threadpool_limits

    from sonetto_desktop.memory.retrieval import vectors

    passages, queries, real = _vectors(n)
    sets = [("e5, 384", passages, queries)] + [(f"1,024 ({how})", *lifted(passages, queries, how)) for how in lifts]
    print(f"\n### The app's search at {n:,} vectors ({real:,} real e5 passages, the rest mixtures of two), "
          f"{len(queries)} questions, one numpy thread\n")
    print("| vectors | search | " + " | ".join(f"top {k} kept" for k in KS)
          + " | ms k=100 median / p95 | ms k=800 median / p95 | CPU ms k=100 / k=800 median | load (1 min) |")
    print("|---|---|" + "---:|" * (len(KS) + 3) + "---|")
    for label, matrix, qs in sets:
        rows, scale = quantize(matrix)
        store = Store.__new__(Store)
        store.rows, store.scale, store.n = rows, scale, len(rows)
        store.bits = np.packbits(rows > 0, axis=1)
        table = vectors._Matrix()
        table.put([str(i) for i in range(len(rows))], rows, scale)
        norms = np.linalg.norm(rows.astype(np.float32), axis=1)
        truth = {k: [] for k in KS}
        with threadpool_limits(1):
            for q in qs:
                order = np.argsort(-(store.exact(q) / norms / scale))[: max(KS)]
                for k in KS:
                    truth[k].append(set(order[:k].tolist()))
            t0 = time.perf_counter()
            table.search(qs[0], 10)  # builds the sign bits when the table is narrowed
            first = (time.perf_counter() - t0) * 1000
            searches: dict[str, Callable[[np.ndarray, int], np.ndarray]] = {
                f"before: raw sign bits → max({PREFILTER_MIN}, {PREFILTER_FACTOR}·k)": hamming(store, PREFILTER_FACTOR),
                "now: " + ("exact" if table.narrowed(qs[0], 800) is None else
                           f"centred sign bits → max({vectors.PREFILTER_MIN:,}, {vectors.PREFILTER_FACTOR}·k)"):
                    lambda q, k: np.array([int(i) for i in table.search(q, k)]),
            }
            for name, search in searches.items():
                kept = {k: statistics.fmean(len(set(search(q, k).tolist()) & t) / k for q, t in zip(qs, truth[k],
                                                                                                   strict=True))
                        for k in KS}
                times: dict[int, list[float]] = {100: [], 800: []}
                cpu: dict[int, list[float]] = {100: [], 800: []}
                loads = []
                for _ in range(runs):
                    loads.append(f"{os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else "?")
                    for k in times:
                        for q in qs[:timed]:
                            c1, t1 = time.thread_time(), time.perf_counter()
                            search(q, k)
                            times[k].append((time.perf_counter() - t1) * 1000)
                            cpu[k].append((time.thread_time() - c1) * 1000)
                print(f"| {label} | {name} | " + " | ".join(f"{kept[k]:.3f}" for k in KS)
                      + "".join(f" | {statistics.median(t):.1f} / {p95(t):.1f}" for t in times.values())
                      + f" | {statistics.median(cpu[100]):.1f} / {statistics.median(cpu[800]):.1f}"
                      + f" | {', '.join(loads)} |", flush=True)
        built = "its centred sign bits built" if table.bits is not None else "exact: no sign bits"
        print(f"(first search of {label}, {built}: {first:.0f} ms)", flush=True)
    return 0


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--lifts", default="rotation,copies")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--timed", type=int, default=60, help="questions timed per run")
    args = parser.parse_args()
    raise SystemExit(product(args.n, [w for w in args.lifts.split(",") if w], args.runs, args.timed))
