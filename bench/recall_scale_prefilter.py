"""``bench.recall_scale_e5 prefilter``: narrowing 100,000 real e5 vectors before the exact score.

The vectors are the cached e5 passages (``texts``: the shared sets' and other people's memories, the
MADial dialogue lines, MemDaily questions and choices, then sentences recombined from two real ones
at a comma); the queries are the sets' questions. Stored as the app stores them (``vectors.quantize``:
int8 rows, a float scale each, sign bits). The truth is the exact cosine over those int8 rows (what
the app returns below ``PREFILTER_FROM``). For each way of narrowing: the share of the true top k
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
from sonetto_desktop.memory.retrieval.vectors import CHUNK, PREFILTER_FACTOR, PREFILTER_MIN, quantize

KS = (100, 200, 400, 800)


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
        f"today: sign bits → max({PREFILTER_MIN}, {PREFILTER_FACTOR}·k), exact": hamming(store, PREFILTER_FACTOR),
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
