"""The numpy vector search at scale (issue 36, item 6): exact while the table is small enough,
above it narrowed by *centred* sign bits, whose centre (the rows' mean) follows adds, replaces and
deletes.

The vectors are what an embeddings model gives: they share a common direction (a large offset every
row has), then a topic, then each row's own variation; normalised. The truth is a plain numpy cosine
over the same int8 rows, computed here."""

from __future__ import annotations

import numpy as np
import pytest

from sonetto_desktop.memory.retrieval import vectors
from sonetto_desktop.memory.retrieval.vectors import SqliteVectors, _Matrix, quantize


def embeddings_like(n: int, dims: int, seed: int, topics: int = 200, offset: float = 2.6) -> np.ndarray:
    """``n`` normalised rows: common direction × ``offset`` + one of ``topics`` topics + own variation
    (e5's rows: the mean of the normalised rows has length 0.94; here ~0.93)."""
    rng = np.random.default_rng(seed)
    common = rng.normal(size=dims).astype(np.float32)
    common /= np.linalg.norm(common)
    centres = rng.normal(size=(topics, dims)).astype(np.float32) / np.sqrt(dims)
    out = np.empty((n, dims), np.float32)
    for start in range(0, n, 5000):
        m = min(n, start + 5000) - start
        rows = (offset * common + centres[rng.integers(0, topics, m)]
                + 0.8 * rng.normal(size=(m, dims)).astype(np.float32) / np.sqrt(dims))
        out[start:start + m] = rows / np.linalg.norm(rows, axis=1, keepdims=True)
    return out


def query_near(matrix: np.ndarray, row: int, seed: int) -> np.ndarray:
    """A query about the topic of ``row`` (not the row itself): the row plus noise of its own size."""
    rng = np.random.default_rng(seed)
    q = matrix[row] + 0.5 * rng.normal(size=matrix.shape[1]).astype(np.float32) / np.sqrt(matrix.shape[1])
    return q / np.linalg.norm(q)


def true_top(rows: np.ndarray, alive: np.ndarray, query: np.ndarray, k: int) -> list[int]:
    """The exact cosine top ``k`` over int8 ``rows`` (only ``alive`` ones), best first."""
    f = rows.astype(np.float32)
    scores = (f @ query) / np.linalg.norm(f, axis=1)
    scores[~alive] = -np.inf
    return [int(i) for i in np.argsort(-scores, kind="stable")[:k]]


def table_of(matrix: np.ndarray) -> tuple[_Matrix, np.ndarray]:
    rows, scale = quantize(matrix)
    table = _Matrix()
    table.put([f"m{i}" for i in range(len(rows))], rows, scale)
    return table, rows


def kept(table: _Matrix, rows: np.ndarray, alive: np.ndarray, queries: list[np.ndarray], k: int) -> float:
    shares = []
    for q in queries:
        truth = {f"m{i}" for i in true_top(rows, alive, q, k)}
        shares.append(len(truth & set(table.search(q, k))) / k)
    return float(np.mean(shares))


def test_vectors_sharing_a_direction_keep_the_true_top_k_through_the_narrowing():
    """The prefilter at the app's own size threshold and keep: 40,000 rows of 1,024 numbers (above
    ``EXACT_UP_TO``). Raw sign bits are nearly the same for every row (the common direction decides
    them) and kept ~0.3 of the true top k; centred ones keep at least 0.95."""
    matrix = embeddings_like(40_000, 1024, seed=36)
    queries = [query_near(matrix, i, seed=i) for i in (7, 901, 12_345, 33_333)]
    table, rows = table_of(matrix)
    del matrix
    alive = np.ones(len(rows), bool)
    assert len(table) * 1024 > 40_000_000  # narrowed, not scored whole
    assert kept(table, rows, alive, queries, 200) >= 0.95
    assert kept(table, rows, alive, queries, 800) >= 0.95


def test_centred_bits_keep_more_than_raw_bits_at_the_same_keep(monkeypatch):
    """Same table, same number of candidates (8 × k): only the bits differ."""
    monkeypatch.setattr(vectors, "EXACT_UP_TO", 0, raising=False)
    monkeypatch.setattr(vectors, "PREFILTER_FROM", 0, raising=False)  # the code before issue 36
    monkeypatch.setattr(vectors, "PREFILTER_FACTOR", 8)
    monkeypatch.setattr(vectors, "PREFILTER_MIN", 400)
    matrix = embeddings_like(8000, 256, seed=5, topics=80)
    table, rows = table_of(matrix)
    alive = np.ones(len(rows), bool)
    queries = [query_near(matrix, i, seed=i) for i in range(0, 8000, 400)]
    assert kept(table, rows, alive, queries, 50) >= 0.95


def test_a_table_under_the_threshold_is_scored_exactly():
    """30,000 rows of 384 numbers (11.5M ≤ ``EXACT_UP_TO``): the exact top k, in order, even where
    a narrowing would have lost some (before: narrowed from 20,000 rows on)."""
    matrix = embeddings_like(30_000, 384, seed=11)
    table, rows = table_of(matrix)
    alive = np.ones(len(rows), bool)
    for i in (3, 17_000, 29_999):
        q = query_near(matrix, i, seed=i)
        assert table.search(q, 300) == [f"m{j}" for j in true_top(rows, alive, q, 300)]


def test_the_mean_follows_adds_replaces_and_deletes():
    rng = np.random.default_rng(2)
    matrix = embeddings_like(3000, 96, seed=2)
    rows, scale = quantize(matrix)
    table = _Matrix()
    table.put([f"m{i}" for i in range(2000)], rows[:2000], scale[:2000])
    table.put([f"m{i}" for i in range(1500, 3000)], rows[1500:], scale[1500:])  # 500 replaced, 1,000 added
    other = quantize(rng.normal(size=(300, 96)).astype(np.float32))
    table.put([f"m{i}" for i in range(300)], *other)  # replaced by vectors of another kind
    gone = [f"m{i}" for i in range(100, 3000, 7)]
    table.drop(gone)
    table.put(["m100", "m100"], other[0][:2], other[1][:2])  # back, given twice: its last vector counts
    kept_rows = {f"m{i}": rows[i] for i in range(3000)}
    kept_rows.update({f"m{i}": other[0][i] for i in range(300)})
    kept_rows["m100"] = other[0][1]
    for mid in gone:
        if mid != "m100":
            kept_rows.pop(mid)
    expected = np.array([r.astype(np.float64) / np.linalg.norm(r.astype(np.float64)) for r in kept_rows.values()])
    assert len(table) == len(kept_rows)
    assert np.allclose(table.mean(), expected.mean(axis=0), atol=1e-5)
    table.drop(list(kept_rows))
    assert len(table) == 0 and not np.any(table.mean())


def test_the_bits_follow_the_rows_and_are_rebuilt_when_the_mean_moves(monkeypatch):
    """Rows added, replaced and deleted after the bits were built are found (their bits are taken
    around the same centre as the query's); when a new topic moves the mean past ``CENTRE_DRIFT``,
    the next search rebuilds the bits around the new mean and still keeps the true top k."""
    monkeypatch.setattr(vectors, "EXACT_UP_TO", 0)
    monkeypatch.setattr(vectors, "PREFILTER_MIN", 400)
    monkeypatch.setattr(vectors, "PREFILTER_FACTOR", 8)
    matrix = embeddings_like(8000, 128, seed=8, topics=60)
    table, rows = table_of(matrix[:6000])
    table.search(matrix[0], 10)
    first_centre = table.centre.copy()
    assert np.allclose(first_centre, table.mean(), atol=1e-5)
    # a new row, a replaced row: found by their own vectors, first
    new_rows, new_scale = quantize(matrix[6000:6002])
    table.put(["fresh", "m5"], new_rows, new_scale)
    assert table.search(matrix[6000], 5)[0] == "fresh"
    assert table.search(matrix[6001], 5)[0] == "m5"
    table.drop(["fresh"])
    assert "fresh" not in table.search(matrix[6000], 50)
    assert table.centre is not None and np.array_equal(table.centre, first_centre)  # small change: same bits
    # a flood of another kind of memories moves the mean: rebuilt around the new one
    shifted = embeddings_like(6000, 128, seed=99, topics=60)
    monkeypatch.setattr(vectors, "PREFILTER_FACTOR", 16)  # two kinds of rows in 12,000: keep 800
    more_rows, more_scale = quantize(shifted)
    table.put([f"s{i}" for i in range(6000)], more_rows, more_scale)
    moved = float(np.linalg.norm(table.mean() - first_centre))
    spread = float(np.sqrt(1 - table.mean() @ table.mean()))
    assert moved > vectors.CENTRE_DRIFT * spread
    found = table.search(shifted[4], 50)
    assert np.allclose(table.centre, table.mean(), atol=1e-5)  # rebuilt
    n = len(table.ids)
    alive = np.array([mid is not None for mid in table.ids])
    truth = {table.ids[i] for i in true_top(table.rows[:n], alive, shifted[4], 50)}
    assert len(truth & set(found)) >= 0.95 * len(truth)


def test_each_model_and_size_has_its_own_mean(tmp_path, monkeypatch):
    """Through the sidecar: the mean and the bits of a loaded table are those of its model's stored
    rows; switching to a model of another size starts its own, and switching back finds the first."""
    monkeypatch.setattr(vectors, "EXACT_UP_TO", 0)
    monkeypatch.setattr(vectors, "PREFILTER_MIN", 100)

    def unit_mean(m: np.ndarray) -> np.ndarray:
        f = quantize(m)[0].astype(np.float64)
        return (f / np.linalg.norm(f, axis=1, keepdims=True)).mean(0)

    narrow, wide = embeddings_like(1000, 64, seed=1), embeddings_like(1000, 48, seed=3)
    store = SqliteVectors(tmp_path / "memory.vectors.sqlite3", "model-a")
    try:
        store.put([f"n{i}" for i in range(1000)], list(range(1000)), narrow)
        store.use("model-a", None)  # forget the copy: the next search loads the rows again
        assert store.search(narrow[20], 3)[0] == "n20"
        assert store._matrix.bits is not None and np.allclose(store._matrix.centre, unit_mean(narrow), atol=1e-5)
        store.use("model-b", None)
        store.put([f"w{i}" for i in range(1000)], list(range(1000)), wide)
        assert store.search(wide[10], 3)[0] == "w10"
        assert store._matrix.centre.shape == (48,) and np.allclose(store._matrix.mean(), unit_mean(wide), atol=1e-5)
        store.use("model-a", 64)
        assert store.search(narrow[30], 3)[0] == "n30"
        assert np.allclose(store._matrix.centre, unit_mean(narrow), atol=1e-5)
    finally:
        store.close()


@pytest.mark.parametrize("dims", [100, 130])
def test_sizes_that_are_not_a_multiple_of_64_narrow_alike(monkeypatch, dims):
    monkeypatch.setattr(vectors, "EXACT_UP_TO", 0)
    monkeypatch.setattr(vectors, "PREFILTER_MIN", 300)
    matrix = embeddings_like(4000, dims, seed=dims, topics=40)
    table, rows = table_of(matrix)
    alive = np.ones(len(rows), bool)
    assert table.bits is None
    queries = [query_near(matrix, i, seed=i) for i in range(0, 4000, 500)]
    assert kept(table, rows, alive, queries, 20) >= 0.95
    assert table.bits is not None and table.bits.shape[0] == (dims + 63) // 64
