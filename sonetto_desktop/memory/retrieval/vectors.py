"""Where the embeddings model's vectors live: with the store, one row per memory and model.

A vector is stored compact: L2-normalised, then int8 with one float scale per row (1,024
dimensions: 1 KB + the id, so 100,000 memories take about 100 MB). The row keeps the fingerprint
of the text it was computed from, so the background sync (``vector_sync.py``) knows which
memories are missing or changed, and can resume after any stop.

Each embeddings model has its own rows (``model``: the model's key); switching models never mixes
them. Beside them, the batch size a server was found to take (:meth:`VectorTable.learned_batch`), by
endpoint and model (``EmbeddingsConfig.endpoint_key``): the next start sends batches of that size at
once instead of being refused again, for ``LEARNED_DAYS`` (a PostgreSQL store shares it between
devices: the last device refused sets it; another device whose own server at the same address takes
fewer is refused once and learns again). A model is known by what it is, not by where it is served: its name, its vector size and its
vector of a fixed text (the *probe*), kept in a table of models (:meth:`VectorTable.models`,
:meth:`VectorTable.register`). Two devices that reach one model by two addresses (directly and
through a gateway) find the same record and share its vectors. All rows of a model have its size:
a vector of another size is refused (:class:`WrongSize`), never allowed to displace the others.

- A YAML or SQLite store: a sidecar SQLite file beside it (``memory.vectors.sqlite3``). Not the
  store's own database: a SQLite store follows other processes' writes through ``PRAGMA
  data_version``, and a vector write would look like an unknown change and make every view re-read
  the store.
- A PostgreSQL store: a table in the store's schema (shared by every device). With the ``pgvector``
  extension on the server (0.7 or later: ``halfvec``; ``CREATE EXTENSION vector`` allowed or done),
  each model also has a table of its own, ``memory_vec_<hash>`` (``emb halfvec(<its size>)``: the
  int8 rows, exact in a ``halfvec``, so the server's cosine is the numpy one's) with an HNSW index (cosine; up to 4,000 dimensions, pgvector's limit for ``halfvec``), and the search
  runs in the server: through the index for up to ``ANN_MAX_K`` results (``hnsw.ef_search`` at least
  ``EF_SEARCH`` and twice the results asked for), exactly (a scan) for more. The int8 rows stay the
  source of truth: rows written while pgvector was not usable (another device without it, an older
  version of the app) are copied into the model's table before the next search counts them, and
  the sync's count is of the rows the search sees. Without pgvector the same table holds the int8
  bytes and the search is the numpy one below.

Search without pgvector is cosine with numpy over a copy loaded on first use and kept up to date by
this process's writes (another process's writes are picked up when the row count changes): exact
over all rows (int8 rows upcast ``CHUNK`` numbers at a time) while rows × dimensions is at most
``EXACT_UP_TO`` (100,000 vectors of 384 dimensions: ~12 ms on a quiet core). Above it the rows are
first narrowed by the Hamming distance of *centred* sign bits — the sign of each number of the
normalised row minus the rows' mean, the query likewise — to ``PREFILTER_FACTOR`` times the rows
asked for (at least ``PREFILTER_MIN``), which are then scored exactly. Centred, because an
embeddings model's vectors share a common direction (e5's rows: a mean of length 0.94): the raw
signs are nearly the same for every row and kept a third of the true top 100 (bench
``recall_scale_prefilter``). The mean is kept as a running sum over the rows (added, replaced,
dropped); the bits stay taken around the point they were built with (the query is centred on the
same point, so they stay consistent), and are rebuilt, lazily at the next narrowed search, when the
mean has moved ``CENTRE_DRIFT`` of the rows' spread away from that point (measured: a centre off by
0.4 of the spread keeps as much).
``sqlite-vec`` (installed with LangGraph's SQLite checkpointer) is not used: its 0.1 search is the
same brute force, measured slower than numpy here (int8, 10,000 rows: ~32 ms vs ~11 ms), and most
Python builds (pyenv's, this app's CI) cannot load SQLite extensions at all.
"""

from __future__ import annotations

import hashlib
import logging
import sqlite3
import threading
import time
from abc import ABC, abstractmethod
from pathlib import Path
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

import numpy as np

from ..files import move_aside

__all__ = ["ModelRecord", "PgVectors", "SqliteVectors", "VectorTable", "WrongSize", "damaged", "dequantize",
           "find_model", "open_vectors", "quantize", "same_model", "set_aside"]

log = logging.getLogger(__name__)

SIDECAR_SUFFIX = ".vectors.sqlite3"
#: Numbers upcast and scored at a time (a 512 KB float32 copy that stays in the cache: 128 rows of
#: 1,024 numbers re-score 25,600 candidates in 9.5 ms where 512 rows took 15.4 and 8,192 more).
CHUNK = 131_072
#: How long a batch size learned from a server's refusal stands (then the configured size is tried again).
LEARNED_DAYS = 7
EXACT_UP_TO = 40_000_000  # rows × dimensions scored exactly; above, narrowed by centred sign bits first
PREFILTER_FACTOR = 32  # ... to this many times the rows asked for (at least PREFILTER_MIN)
PREFILTER_MIN = 16_000
#: Rebuild the sign bits when the rows' mean is this share of their spread away from the bits' centre.
CENTRE_DRIFT = 0.25
_POPCOUNT = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)
RECHECK = 30.0  # seconds between looks at whether another process wrote rows
#: Two probe vectors this close (cosine) come from the same model (one model's answers to one text
#: differ by rounding, ~0.99999; two models' by far more).
PROBE_MATCH = 0.999
#: pgvector: the HNSW index answers up to this many results; more are scored exactly by a scan.
ANN_MAX_K = 400
#: pgvector: ``hnsw.ef_search`` (the candidates kept while walking the graph) is at least this.
EF_SEARCH = 200
#: pgvector indexes ``halfvec`` columns of at most this many dimensions.
HNSW_MAX_DIMS = 4000
BACKFILL_ROWS = 500  # rows copied into a pgvector table at a time


class WrongSize(ValueError):
    """Vectors of another size than the model's: refused, the stored ones kept."""


@dataclass(frozen=True)
class ModelRecord:
    """An embeddings model a store has vectors of: its key, name, vector size and probe vector."""

    key: str
    name: str
    dims: int
    probe: np.ndarray


def same_model(probe: np.ndarray, other: np.ndarray) -> bool:
    """Do two probe vectors come from the same model? (same size, cosine at least ``PROBE_MATCH``)"""
    a, b = np.asarray(probe, np.float32).ravel(), np.asarray(other, np.float32).ravel()
    if a.shape != b.shape or not a.size:
        return False
    norm = float(np.linalg.norm(a) * np.linalg.norm(b))
    return norm > 0 and float(a @ b) / norm >= PROBE_MATCH


def model_key(name: str, probe: np.ndarray) -> str:
    """A new model's key: from its name, size and probe (two devices registering it at once agree)."""
    rounded = np.round(np.asarray(probe, np.float32).ravel(), 2).astype(np.float32)
    raw = f"{name}|{rounded.size}|".encode("utf-8") + rounded.tobytes()
    return hashlib.sha1(raw).hexdigest()[:16]


def find_model(records: Sequence[ModelRecord], name: str, probe: np.ndarray) -> ModelRecord | None:
    """The record of the model named ``name`` whose probe vector ``probe`` is (None: no such record)."""
    return next((r for r in records if r.name == name and r.dims == probe.size and same_model(r.probe, probe)), None)


def _probe_blob(probe: np.ndarray) -> bytes:
    return np.ascontiguousarray(np.asarray(probe, np.float32).ravel()).tobytes()


def quantize(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(int8 rows, float32 scale per row) of float rows: ``row ≈ int8_row * scale``."""
    matrix = np.asarray(matrix, dtype=np.float32)
    peak = np.abs(matrix).max(axis=1) if len(matrix) else np.zeros(0, np.float32)
    scale = np.where(peak > 0, peak / 127.0, 1.0).astype(np.float32)
    return np.clip(np.rint(matrix / scale[:, None]), -127, 127).astype(np.int8), scale


def dequantize(rows: np.ndarray, scale: np.ndarray) -> np.ndarray:
    return rows.astype(np.float32) * scale[:, None]


class _Matrix:
    """The vectors of one model in RAM: ids, int8 rows and their inverse norms, with O(1) replace and
    remove; the sum of the normalised rows (their mean: the centre of the sign bits) and, once a
    search narrows, the centred sign bits. The score is the cosine of the query and the int8 row
    (what pgvector computes over the same rows: the two searches rank alike)."""

    def __init__(self, dims: int = 0) -> None:
        self.ids: list[str | None] = []
        self.row_of: dict[str, int] = {}
        self.rows = np.zeros((0, dims), np.int8)
        self.scale = np.zeros(0, np.float32)  # 1 / the int8 row's norm (0: a free slot)
        self.free: list[int] = []
        self.total = np.zeros(dims, np.float64)  # sum of the live rows, normalised
        #: The sign bits of (normalised row - ``centre``), 64 to a word, one row of words per 64
        #: dimensions (a column per row: the distance is a few whole-array operations). None: not built.
        self.bits: np.ndarray | None = None
        self.centre: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.row_of)

    @property
    def dims(self) -> int:
        return int(self.rows.shape[1])

    @property
    def chunk(self) -> int:
        """Rows upcast at a time (``CHUNK`` numbers)."""
        return max(16, CHUNK // max(1, self.dims))

    def mean(self) -> np.ndarray:
        """The mean of the live rows, normalised (zeros when there are none)."""
        return (self.total / max(1, len(self.row_of))).astype(np.float32)

    def _unit(self, at: np.ndarray | slice) -> np.ndarray:
        return self.rows[at].astype(np.float32) * self.scale[at, None]

    def put(self, ids: Sequence[str], rows: np.ndarray, scale: np.ndarray | None = None) -> None:
        """Add or replace rows (``scale``, the rows' dequantizing scales, is not needed: cosine)."""
        if len(ids) and self.rows.shape[1] != rows.shape[1]:
            if len(self.row_of) or self.rows.shape[1]:
                raise WrongSize(f"vectors of {rows.shape[1]} numbers among vectors of {self.rows.shape[1]}")
            self.__init__(rows.shape[1])  # type: ignore[misc]
        last = {mid: i for i, mid in enumerate(ids)}  # an id given twice: its last row
        if len(last) < len(ids):
            ids = list(last)
            rows = rows[list(last.values())]
        new = sum(1 for mid in ids if mid not in self.row_of)
        self._reserve(len(self.ids) + max(0, new - len(self.free)))
        norms = np.linalg.norm(rows.astype(np.float32), axis=1) if len(rows) else np.zeros(0, np.float32)
        inverse = np.where(norms > 0, 1.0 / np.where(norms > 0, norms, 1.0), 0.0).astype(np.float32)
        replaced = np.array([self.row_of[mid] for mid in ids if mid in self.row_of], np.intp)
        if len(replaced):
            self.total -= self._unit(replaced).sum(axis=0, dtype=np.float64)
        at = np.empty(len(ids), np.intp)
        for i, mid in enumerate(ids):
            slot = self.row_of.get(mid)
            if slot is None:
                if self.free:
                    slot = self.free.pop()
                else:
                    slot = len(self.ids)
                    self.ids.append(None)
                self.row_of[mid] = slot
                self.ids[slot] = mid
            at[i] = slot
        if not len(at):
            return
        self.rows[at] = rows
        self.scale[at] = inverse
        unit = self._unit(at)
        self.total += unit.sum(axis=0, dtype=np.float64)
        if self.bits is not None and self.centre is not None:
            self.bits[:, at] = _words(unit - self.centre).T

    def _reserve(self, size: int) -> None:
        """Room for ``size`` rows (grown by a quarter at least, so appends stay cheap)."""
        if size <= len(self.rows):
            return
        size = max(size, len(self.rows) + len(self.rows) // 4, 64)
        for name in ("rows", "scale"):
            old = getattr(self, name)
            grown = np.zeros((size, *old.shape[1:]), old.dtype)
            grown[: len(old)] = old
            setattr(self, name, grown)
        if self.bits is not None:
            grown = np.zeros((self.bits.shape[0], size), np.uint64)
            grown[:, : self.bits.shape[1]] = self.bits
            self.bits = grown

    def drop(self, ids: Iterable[str]) -> None:
        for mid in ids:
            at = self.row_of.pop(mid, None)
            if at is not None:
                self.total -= self._unit(np.array([at]))[0]
                self.ids[at] = None
                self.scale[at] = 0.0  # scores 0: never above a live row's
                self.free.append(at)
        if not self.row_of:
            self.total[:] = 0.0  # no rounding left behind

    def search(self, query: np.ndarray, k: int) -> list[str]:
        n = len(self.ids)
        if not len(self.row_of) or k <= 0 or query.shape[-1] != self.rows.shape[1]:
            return []
        q = np.asarray(query, np.float32).ravel()
        k = min(k, len(self.row_of))
        candidates = self.narrowed(q, k)
        if candidates is None:
            scores = np.empty(n, np.float32)
            chunk = self.chunk
            for start in range(0, n, chunk):
                stop = min(n, start + chunk)
                scores[start:stop] = self.rows[start:stop].astype(np.float32) @ q
            scores *= self.scale[:n]
            if self.free:
                scores[self.free] = -np.inf
            top = np.argpartition(-scores, k - 1)[:k] if k < n else np.arange(n)
        else:
            candidates = np.sort(candidates)  # rows gathered in order: faster, and ties break alike
            picked = np.empty(len(candidates), np.float32)
            chunk = self.chunk
            for start in range(0, len(candidates), chunk):
                some = candidates[start:start + chunk]
                picked[start:start + len(some)] = self.rows[some].astype(np.float32) @ q
            picked *= self.scale[candidates]
            if self.free:
                picked[np.isin(candidates, np.array(self.free, np.intp))] = -np.inf
            scores = np.full(n, -np.inf, np.float32)
            scores[candidates] = picked
            top = candidates[np.argpartition(-picked, min(k, len(candidates)) - 1)[:k]]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [self.ids[int(i)] for i in top if self.ids[int(i)] is not None and np.isfinite(scores[int(i)])]

    def narrowed(self, query: np.ndarray, k: int) -> np.ndarray | None:
        """The rows whose centred sign bits are nearest the query's (None: score every row, as a table
        of at most ``EXACT_UP_TO`` numbers is, or when the narrowing would keep half of it)."""
        live = len(self.row_of)
        keep = max(PREFILTER_MIN, PREFILTER_FACTOR * k)
        if live * self.dims <= EXACT_UP_TO or keep * 2 >= live:
            return None
        bits, centre = self._centred_bits()
        norm = float(np.linalg.norm(query))
        qwords = _words(((query / norm) if norm > 0 else query) - centre)[0]
        n = len(self.ids)
        distance = np.zeros(n, np.uint16 if bits.shape[0] * 64 < 65536 else np.uint32)
        for word, qword in zip(bits[:, :n], qwords, strict=True):
            distance += _popcount(np.bitwise_xor(word, qword))
        if self.free:
            distance[self.free] = np.iinfo(distance.dtype).max  # never before a live row
        return np.argpartition(distance, keep - 1)[:keep]

    def _centred_bits(self) -> tuple[np.ndarray, np.ndarray]:
        """The sign bits and their centre, (re)built when missing or when the rows' mean has moved
        more than ``CENTRE_DRIFT`` of their spread from the centre (the sum is recounted then)."""
        if self.bits is not None and self.centre is not None:
            mean = self.mean()
            spread = float(np.sqrt(max(0.0, 1.0 - float(mean @ mean))))  # rows of length 1: E|row - mean|²
            if float(np.linalg.norm(mean - self.centre)) <= CENTRE_DRIFT * spread:
                return self.bits, self.centre
        n = len(self.ids)
        total = np.zeros(self.dims, np.float64)
        chunk = self.chunk
        for start in range(0, n, chunk):
            total += self._unit(slice(start, start + chunk)).sum(axis=0, dtype=np.float64)
        self.total = total
        self.centre = self.mean()
        bits = np.zeros(((self.dims + 63) // 64, len(self.rows)), np.uint64)
        for start in range(0, n, chunk):
            stop = min(n, start + chunk)
            bits[:, start:stop] = _words(self._unit(slice(start, stop)) - self.centre).T
        self.bits = bits
        return bits, self.centre


def _words(centred: np.ndarray) -> np.ndarray:
    """The sign bits of rows (2-D, or one row) packed 64 to a word: (rows, words) of uint64."""
    centred = np.atleast_2d(centred)
    packed = np.packbits(centred > 0, axis=1)
    pad = (-packed.shape[1]) % 8
    if pad:
        packed = np.hstack([packed, np.zeros((len(packed), pad), np.uint8)])
    return np.ascontiguousarray(packed).view(np.uint64)


def _popcount(words: np.ndarray) -> np.ndarray:
    """The set bits of each uint64 word."""
    if hasattr(np, "bitwise_count"):  # numpy 2
        return np.bitwise_count(words)
    return _POPCOUNT[words.view(np.uint8).reshape(len(words), 8)].sum(axis=1, dtype=np.uint8)


class VectorTable(ABC):
    """The vectors of one embeddings model (``model``) for one store. Thread-safe.

    ``model`` is the model's key: given (tests, tools), or found by :meth:`register` from what the
    model answers. ``dims`` is its vector size (None until known: the model's record, or the first
    vectors put)."""

    kind = "table"

    def __init__(self, model: str = "", dims: int | None = None) -> None:
        self.model = model
        self.dims = dims
        self._lock = threading.RLock()
        self._matrix: _Matrix | None = None
        self._checked = 0.0

    # what a backend provides
    @abstractmethod
    def _load(self) -> tuple[list[str], np.ndarray, np.ndarray]:
        """(ids, int8 rows, scales) of this model."""

    @abstractmethod
    def _write(self, ids: Sequence[str], fps: Sequence[int], rows: np.ndarray, scale: np.ndarray) -> None: ...

    @abstractmethod
    def _delete(self, ids: Sequence[str]) -> None: ...

    @abstractmethod
    def fingerprints(self) -> dict[str, int]:
        """memory id -> fingerprint of the text its vector was computed from, for the vectors the
        search sees."""

    @abstractmethod
    def count(self) -> int:
        """How many vectors of this model the search sees."""

    @abstractmethod
    def drop_other_models(self) -> int:
        """Delete the vectors of every other embeddings model; returns how many rows went."""

    @abstractmethod
    def models(self) -> list[ModelRecord]:
        """The models this store has a record of."""

    @abstractmethod
    def rows_by_model(self) -> dict[str, int]:
        """model key -> how many vectors the store keeps of it (every model, not only this one)."""

    @abstractmethod
    def _register(self, name: str, probe: np.ndarray, legacy: str) -> str:
        """In one transaction that no other device's registration interleaves with: the key of the
        recorded model ``probe`` matches, else of a new record; rows under ``legacy`` adopted."""

    @abstractmethod
    def learned_batch(self, endpoint: str) -> int | None:
        """The most texts a request the server at ``endpoint`` (``EmbeddingsConfig.endpoint_key``) was
        found to take in the last ``LEARNED_DAYS`` (None: nothing learned, or learned longer ago: the
        configured size, tried again, since a server's limit may have been raised or a refusal was
        about a few long texts rather than their number)."""

    @abstractmethod
    def learn_batch(self, endpoint: str, batch: int) -> None:
        """Keep ``batch`` as what the server at ``endpoint`` takes (it refused more)."""

    def close(self) -> None:
        """Release the connection (a backend closes its own, then calls this)."""
        self._matrix = None

    # shared
    def register(self, name: str, probe: np.ndarray, *, legacy: str = "") -> str:
        """Use the model whose vector of the probe text is ``probe``: the record that matches it (same
        name, same size, the same probe vector), else a new one. Vectors saved under ``legacy`` (the
        key of the same settings before models were known by their probe) of the model's size become
        this model's. Returns the key; the table now holds that model's vectors."""
        probe = np.asarray(probe, np.float32).ravel()
        with self._lock:
            key = self._register(name, probe, legacy)
            self.use(key, int(probe.size))
        return key

    def use(self, model: str, dims: int | None) -> None:
        """Hold the vectors of ``model`` (of ``dims`` numbers) from now on."""
        with self._lock:
            self.model, self.dims = model, dims
            self._matrix = None

    def _check_size(self, width: int) -> None:
        if self.dims is None:
            self.dims = width
        elif width != self.dims:
            raise WrongSize(f"vectors of {width} numbers for a model whose vectors have {self.dims}: refused, "
                            "the stored ones kept")

    def put(self, ids: Sequence[str], fps: Sequence[int], vectors: np.ndarray) -> None:
        """Store (or replace) the vectors of ``ids`` computed from texts with fingerprints ``fps``.
        Raises :class:`WrongSize` for vectors of another size than the model's."""
        if not len(ids):
            return
        with self._lock:
            self._check_size(int(np.asarray(vectors).shape[1]))
            rows, scale = quantize(vectors)
            self._write(ids, fps, rows, scale)
            if self._matrix is not None:
                self._matrix.put(ids, rows, scale)

    def drop(self, ids: Sequence[str]) -> None:
        ids = list(ids)
        if not ids:
            return
        with self._lock:
            self._delete(ids)
            if self._matrix is not None:
                self._matrix.drop(ids)

    def search(self, query: np.ndarray, k: int) -> list[str]:
        """Up to ``k`` memory ids, nearest to ``query`` (cosine) first."""
        with self._lock:
            matrix = self._loaded()
            return matrix.search(query, k)

    def _loaded(self) -> _Matrix:
        now = time.monotonic()
        if self._matrix is not None and now - self._checked > RECHECK:
            self._checked = now
            if self.count() != len(self._matrix):  # another process wrote or deleted rows
                self._matrix = None
        if self._matrix is None:
            ids, rows, scale = self._load()
            matrix = _Matrix(rows.shape[1] if rows.ndim == 2 and len(rows) else self.dims or 0)
            if len(ids):
                matrix.put(ids, rows, scale)
            self._matrix, self._checked = matrix, now
        return self._matrix

    def _width(self) -> int | None:
        """The size of this model's rows when known (rows of another size are left out of a load)."""
        return self.dims


def _blob(row: np.ndarray) -> bytes:
    return np.ascontiguousarray(row, dtype=np.int8).tobytes()


def _rows(blobs: Sequence[bytes], width: int | None = None) -> np.ndarray:
    """The int8 rows of ``blobs`` of ``width`` bytes (None: the most common width)."""
    if not blobs:
        return np.zeros((0, width or 0), np.int8)
    if width is None:
        sizes: dict[int, int] = {}
        for b in blobs:
            sizes[len(b)] = sizes.get(len(b), 0) + 1
        width = max(sizes, key=lambda size: sizes[size])
    kept = [b for b in blobs if len(b) == width]
    return np.frombuffer(b"".join(kept), dtype=np.int8).reshape(len(kept), width)


def _kept(found: Sequence[Any], width: int | None) -> tuple[list[str], np.ndarray, np.ndarray]:
    """(ids, rows, scales) of rows ``(id, scale, vec)`` of one width."""
    blobs = [bytes(r[2]) for r in found]
    rows = _rows(blobs, width)
    keep = [r for r, b in zip(found, blobs, strict=True) if len(b) == rows.shape[1]] if len(rows) else []
    return [r[0] for r in keep], rows, np.asarray([r[1] for r in keep], np.float32)


class SqliteVectors(VectorTable):
    """A sidecar SQLite file (YAML and SQLite stores). Created on first use."""

    kind = "sqlite"

    def __init__(self, path: Path | str, model: str = "") -> None:
        super().__init__(model)
        self.path = Path(path)
        self._conn = sqlite3.connect(self.path, check_same_thread=False, timeout=10.0, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.execute("CREATE TABLE IF NOT EXISTS vectors (model TEXT NOT NULL, id TEXT NOT NULL, "
                           "fp INTEGER NOT NULL, scale REAL NOT NULL, vec BLOB NOT NULL, PRIMARY KEY (model, id)) "
                           "WITHOUT ROWID")
        self._conn.execute("CREATE TABLE IF NOT EXISTS models (key TEXT PRIMARY KEY, name TEXT NOT NULL, "
                           "dims INTEGER NOT NULL, probe BLOB NOT NULL, created REAL NOT NULL)")
        self._conn.execute("CREATE TABLE IF NOT EXISTS limits (endpoint TEXT PRIMARY KEY, batch INTEGER NOT NULL, "
                           "learned REAL NOT NULL)")

    def _load(self) -> tuple[list[str], np.ndarray, np.ndarray]:
        found = self._conn.execute("SELECT id, scale, vec FROM vectors WHERE model = ?", (self.model,)).fetchall()
        return _kept(found, self._width())

    def _write(self, ids: Sequence[str], fps: Sequence[int], rows: np.ndarray, scale: np.ndarray) -> None:
        with self._conn:
            self._conn.execute("BEGIN IMMEDIATE")
            self._conn.executemany(
                "INSERT OR REPLACE INTO vectors (model, id, fp, scale, vec) VALUES (?, ?, ?, ?, ?)",
                [(self.model, mid, int(fp), float(s), _blob(row)) for mid, fp, row, s in zip(ids, fps, rows, scale,
                                                                                               strict=True)])

    def _delete(self, ids: Sequence[str]) -> None:
        with self._conn:
            self._conn.execute("BEGIN IMMEDIATE")
            self._conn.executemany("DELETE FROM vectors WHERE model = ? AND id = ?", [(self.model, mid) for mid in ids])

    def _sized(self) -> tuple[str, tuple[Any, ...]]:
        """The condition on this model's rows of its size (rows of another size are never searched)."""
        if self.dims is None:
            return "model = ?", (self.model,)
        return "model = ? AND length(vec) = ?", (self.model, self.dims)

    def fingerprints(self) -> dict[str, int]:
        where, args = self._sized()
        with self._lock:
            return dict(self._conn.execute(f"SELECT id, fp FROM vectors WHERE {where}", args).fetchall())

    def count(self) -> int:
        where, args = self._sized()
        with self._lock:
            return self._conn.execute(f"SELECT COUNT(*) FROM vectors WHERE {where}", args).fetchone()[0]

    def drop_other_models(self) -> int:
        with self._lock, self._conn:
            self._conn.execute("BEGIN IMMEDIATE")
            self._conn.execute("DELETE FROM models WHERE key != ?", (self.model,))
            return self._conn.execute("DELETE FROM vectors WHERE model != ?", (self.model,)).rowcount

    def models(self) -> list[ModelRecord]:
        with self._lock:
            found = self._conn.execute("SELECT key, name, dims, probe FROM models ORDER BY created").fetchall()
        return [ModelRecord(k, n, d, np.frombuffer(p, np.float32)) for k, n, d, p in found]

    def rows_by_model(self) -> dict[str, int]:
        with self._lock:
            return dict(self._conn.execute("SELECT model, COUNT(*) FROM vectors GROUP BY model").fetchall())

    def learned_batch(self, endpoint: str) -> int | None:
        with self._lock:
            found = self._conn.execute("SELECT batch FROM limits WHERE endpoint = ? AND learned > ?",
                                       (endpoint, time.time() - LEARNED_DAYS * 86400)).fetchone()
        return int(found[0]) if found else None

    def learn_batch(self, endpoint: str, batch: int) -> None:
        with self._lock, self._conn:
            self._conn.execute("BEGIN IMMEDIATE")
            self._conn.execute("INSERT OR REPLACE INTO limits (endpoint, batch, learned) VALUES (?, ?, ?)",
                               (endpoint, max(1, int(batch)), time.time()))

    def _register(self, name: str, probe: np.ndarray, legacy: str) -> str:
        with self._conn:
            self._conn.execute("BEGIN IMMEDIATE")
            records = [ModelRecord(k, n, d, np.frombuffer(p, np.float32)) for k, n, d, p in self._conn.execute(
                "SELECT key, name, dims, probe FROM models ORDER BY created").fetchall()]
            found = find_model(records, name, probe)
            key = found.key if found else model_key(name, probe)
            if found is None:
                self._conn.execute("INSERT OR IGNORE INTO models (key, name, dims, probe, created) VALUES (?, ?, ?, ?, ?)",
                                   (key, name, int(probe.size), _probe_blob(probe), time.time()))
            if legacy and legacy != key:
                self._conn.execute("UPDATE OR IGNORE vectors SET model = ? WHERE model = ? AND length(vec) = ?",
                                   (key, legacy, int(probe.size)))
        return key

    def close(self) -> None:
        with self._lock:
            self._conn.close()
            super().close()


class PgVectors(VectorTable):
    """A table in a PostgreSQL store's schema (``memory_vectors``), shared by every device; with
    pgvector, a table of each model's ``halfvec`` vectors beside it (see the module docstring)."""

    kind = "postgres"

    def __init__(self, location: Any, model: str = "") -> None:
        super().__init__(model)
        import psycopg

        self._location = location
        self._schema = location.schema
        self._connection = psycopg.connect(location.url, autocommit=True, **location.connect_kwargs())
        self._connecting = threading.Lock()
        self._closed = False
        self._table = f'"{self._schema}".memory_vectors'
        self._models = f'"{self._schema}".memory_vector_models'
        self._conn.execute(f"CREATE TABLE IF NOT EXISTS {self._table} (model text NOT NULL, id text NOT NULL, "
                           "fp bigint NOT NULL, scale real NOT NULL, vec bytea NOT NULL, PRIMARY KEY (model, id))")
        self._conn.execute(f"CREATE TABLE IF NOT EXISTS {self._models} (key text PRIMARY KEY, name text NOT NULL, "
                           "dims integer NOT NULL, probe bytea NOT NULL, created timestamptz NOT NULL DEFAULT now())")
        self._limits = f'"{self._schema}".memory_vector_limits'
        self._conn.execute(f"CREATE TABLE IF NOT EXISTS {self._limits} (endpoint text PRIMARY KEY, "
                           "batch integer NOT NULL, learned timestamptz NOT NULL DEFAULT now())")
        self._ready: tuple[str, int] | None = None  # (model, dims) whose pgvector table is made
        self.pgvector = self._enable_pgvector()
        if self.pgvector:
            self.kind = "pgvector"

    @property
    def _conn(self) -> Any:
        """The table's connection; a new one when the last was lost (the server restarted, a network cut an
        idle connection): the use after the one that failed connects again, where before every use failed
        ("the connection is closed") until the app restarted. While the server is away the connecting fails
        as the use did, and the next use tries again."""
        conn = self._connection
        if conn.closed and not self._closed:
            import psycopg

            with self._connecting:
                if self._connection.closed and not self._closed:
                    self._connection = psycopg.connect(self._location.url, autocommit=True,
                                                       **self._location.connect_kwargs())
                    self._ready = None  # this model's pgvector table checked again (safe to repeat)
                    log.info("vectors: connected to the memory server again")
                conn = self._connection
        return conn

    def _enable_pgvector(self) -> bool:
        """Use pgvector when the server has it (with ``halfvec``) and we may enable it (never required)."""
        import psycopg

        try:
            if self._conn.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'").fetchone() is None:
                return False
            self._conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            self._conn.execute("SELECT '[1,2]'::halfvec(2)")  # pgvector 0.7 or later
            return True
        except psycopg.Error as exc:
            log.info("pgvector is not usable on this server (%s); vectors are searched here", exc)
            return False

    @property
    def ann_table(self) -> str:
        """This model's pgvector table (its name from a hash of the model's key: any key is safe)."""
        return f'"{self._schema}"."{self._ann_name(self.model)}"'

    @staticmethod
    def _ann_name(model: str) -> str:
        return "memory_vec_" + hashlib.sha1(model.encode("utf-8")).hexdigest()[:16]

    @property
    def indexed(self) -> bool:
        """Does this model's pgvector table have an HNSW index (its size is within pgvector's limit)?"""
        return self.dims is not None and self.dims <= HNSW_MAX_DIMS

    def _searched_here(self) -> bool:
        """Does the server search this model's vectors (pgvector, the model's size known)?"""
        return self.pgvector and self.dims is not None

    def _ensure_ann(self) -> None:
        """This model's pgvector table and index (made once per model and size; safe to repeat)."""
        if self._ready == (self.model, self.dims) or not self._searched_here():
            return
        name = self._ann_name(self.model)
        with self._conn.transaction():
            self._conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"{self._schema}.{name}",))
            self._conn.execute(f"CREATE TABLE IF NOT EXISTS {self.ann_table} (id text PRIMARY KEY, "
                               f"emb halfvec({int(self.dims)}) NOT NULL)")
            if self.indexed:
                self._conn.execute(f'CREATE INDEX IF NOT EXISTS "{name}_hnsw" ON {self.ann_table} '
                                   "USING hnsw (emb halfvec_cosine_ops)")
        self._ready = (self.model, int(self.dims))

    def use(self, model: str, dims: int | None) -> None:
        with self._lock:
            super().use(model, dims)
            self._ensure_ann()

    def _check_size(self, width: int) -> None:
        known = self.dims is not None
        super()._check_size(width)
        if not known:
            self._ensure_ann()

    def _load(self) -> tuple[list[str], np.ndarray, np.ndarray]:
        found = self._conn.execute(f"SELECT id, scale, vec FROM {self._table} WHERE model = %s", (self.model,)).fetchall()
        return _kept(found, self._width())

    @staticmethod
    def _literal(vector: np.ndarray) -> str:
        if vector.dtype == np.int8:  # an int8 row: its numbers are exact in a halfvec
            return "[" + ",".join(str(int(x)) for x in vector.ravel()) + "]"
        return "[" + ",".join(f"{x:.6g}" for x in np.asarray(vector, np.float32).ravel()) + "]"

    def _write(self, ids: Sequence[str], fps: Sequence[int], rows: np.ndarray, scale: np.ndarray) -> None:
        values = [(self.model, mid, int(fp), float(s), _blob(row)) for mid, fp, row, s in zip(ids, fps, rows, scale,
                                                                                                strict=True)]
        with self._conn.transaction():
            with self._conn.cursor() as cur:
                cur.executemany(
                    f"INSERT INTO {self._table} (model, id, fp, scale, vec) VALUES (%s, %s, %s, %s, %s) "
                    "ON CONFLICT (model, id) DO UPDATE SET fp = EXCLUDED.fp, scale = EXCLUDED.scale, vec = EXCLUDED.vec",
                    values)
                if self._searched_here():
                    self._write_ann(cur, ids, rows)

    def _write_ann(self, cur: Any, ids: Sequence[str], rows: np.ndarray) -> None:
        """The int8 rows themselves (cosine does not need their scale; -127..127 are exact in a halfvec)."""
        cur.executemany(f"INSERT INTO {self.ann_table} (id, emb) VALUES (%s, %s::halfvec) "
                        "ON CONFLICT (id) DO UPDATE SET emb = EXCLUDED.emb",
                        [(mid, self._literal(row)) for mid, row in zip(ids, rows, strict=True)])

    def _delete(self, ids: Sequence[str]) -> None:
        with self._conn.transaction(), self._conn.cursor() as cur:
            cur.executemany(f"DELETE FROM {self._table} WHERE model = %s AND id = %s", [(self.model, mid) for mid in ids])
            if self._searched_here():
                cur.execute(f"DELETE FROM {self.ann_table} WHERE id = ANY(%s)", (list(ids),))

    def backfill(self) -> int:
        """Copy this model's vectors that its pgvector table lacks (written while pgvector was not
        usable) into it; returns how many. The int8 rows are the source: nothing is asked of the model."""
        if not self._searched_here():
            return 0
        done = 0
        with self._lock:
            self._ready = None  # another device may have dropped the table meanwhile
            self._ensure_ann()
            while True:
                found = self._conn.execute(
                    f"SELECT v.id, v.scale, v.vec FROM {self._table} v LEFT JOIN {self.ann_table} a ON a.id = v.id "
                    "WHERE v.model = %s AND a.id IS NULL AND length(v.vec) = %s LIMIT %s",
                    (self.model, self.dims, BACKFILL_ROWS)).fetchall()
                if not found:
                    break
                ids, rows, _ = _kept(found, self.dims)
                with self._conn.transaction(), self._conn.cursor() as cur:
                    self._write_ann(cur, ids, rows)
                done += len(ids)
        if done:
            log.info("vectors: %d vectors copied into the pgvector table", done)
        return done

    def search(self, query: np.ndarray, k: int) -> list[str]:
        if not self._searched_here():
            return super().search(query, k)
        query = np.asarray(query, np.float32).ravel()
        if k <= 0 or query.size != self.dims:
            return []
        literal = self._literal(query)
        with self._lock:
            self._ensure_ann()
            with self._conn.transaction():
                if self.indexed and k <= ANN_MAX_K:
                    self._conn.execute(f"SET LOCAL hnsw.ef_search = {min(1000, max(EF_SEARCH, 2 * k))}")
                else:  # more than the graph walk keeps: score every row
                    self._conn.execute("SET LOCAL enable_indexscan = off")
                found = self._conn.execute(f"SELECT id FROM {self.ann_table} ORDER BY emb <=> %s::halfvec({self.dims}) "
                                           "LIMIT %s", (literal, k)).fetchall()
        return [r[0] for r in found]

    def _sized(self) -> tuple[str, tuple[Any, ...]]:
        if self.dims is None:
            return f"FROM {self._table} v WHERE v.model = %s", (self.model,)
        if self._searched_here():
            return (f"FROM {self._table} v JOIN {self.ann_table} a ON a.id = v.id WHERE v.model = %s "
                    "AND length(v.vec) = %s", (self.model, self.dims))
        return f"FROM {self._table} v WHERE v.model = %s AND length(v.vec) = %s", (self.model, self.dims)

    def fingerprints(self) -> dict[str, int]:
        self.backfill()
        source, args = self._sized()
        with self._lock:
            return dict(self._conn.execute(f"SELECT v.id, v.fp {source}", args).fetchall())

    def count(self) -> int:
        with self._lock:
            if self._searched_here():
                self._ready = None  # another device may have dropped the table meanwhile
                self._ensure_ann()
            source, args = self._sized()
            return self._conn.execute(f"SELECT COUNT(*) {source}", args).fetchone()[0]

    def drop_other_models(self) -> int:
        with self._lock, self._conn.transaction():
            others = [r[0] for r in self._conn.execute(f"SELECT DISTINCT model FROM {self._table} WHERE model != %s "
                                                       f"UNION SELECT key FROM {self._models} WHERE key != %s",
                                                       (self.model, self.model)).fetchall()]
            for other in others:
                self._conn.execute(f'DROP TABLE IF EXISTS "{self._schema}"."{self._ann_name(other)}"')
            self._conn.execute(f"DELETE FROM {self._models} WHERE key != %s", (self.model,))
            return self._conn.execute(f"DELETE FROM {self._table} WHERE model != %s", (self.model,)).rowcount

    def models(self) -> list[ModelRecord]:
        with self._lock:
            found = self._conn.execute(f"SELECT key, name, dims, probe FROM {self._models} ORDER BY created").fetchall()
        return [ModelRecord(k, n, d, np.frombuffer(bytes(p), np.float32)) for k, n, d, p in found]

    def rows_by_model(self) -> dict[str, int]:
        with self._lock:
            return dict(self._conn.execute(f"SELECT model, COUNT(*) FROM {self._table} GROUP BY model").fetchall())

    def learned_batch(self, endpoint: str) -> int | None:
        with self._lock:
            found = self._conn.execute(f"SELECT batch FROM {self._limits} WHERE endpoint = %s "
                                       "AND learned > now() - make_interval(days => %s)", (endpoint, LEARNED_DAYS)).fetchone()
        return int(found[0]) if found else None

    def learn_batch(self, endpoint: str, batch: int) -> None:
        with self._lock:
            self._conn.execute(f"INSERT INTO {self._limits} (endpoint, batch) VALUES (%s, %s) ON CONFLICT (endpoint) "
                               "DO UPDATE SET batch = EXCLUDED.batch, learned = now()", (endpoint, max(1, int(batch))))

    def _register(self, name: str, probe: np.ndarray, legacy: str) -> str:
        with self._conn.transaction():
            self._conn.execute(f"LOCK TABLE {self._models} IN SHARE ROW EXCLUSIVE MODE")
            records = [ModelRecord(k, n, d, np.frombuffer(bytes(p), np.float32)) for k, n, d, p in self._conn.execute(
                f"SELECT key, name, dims, probe FROM {self._models} ORDER BY created").fetchall()]
            found = find_model(records, name, probe)
            key = found.key if found else model_key(name, probe)
            if found is None:
                self._conn.execute(f"INSERT INTO {self._models} (key, name, dims, probe) VALUES (%s, %s, %s, %s) "
                                   "ON CONFLICT (key) DO NOTHING", (key, name, int(probe.size), _probe_blob(probe)))
            if legacy and legacy != key:
                self._conn.execute(f"UPDATE {self._table} v SET model = %s WHERE v.model = %s AND length(v.vec) = %s "
                                   f"AND NOT EXISTS (SELECT 1 FROM {self._table} w WHERE w.model = %s AND w.id = v.id)",
                                   (key, legacy, int(probe.size), key))
        return key

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._connection.close()
            super().close()


def sidecar_path(mm: Any) -> Path | None:
    """Where a file store's vectors live (None: the store has no file)."""
    path = getattr(mm, "path", None)
    if not isinstance(path, (str, Path)):
        return None
    path = Path(path)
    return path.with_name(path.stem + SIDECAR_SUFFIX)


#: SQLite's result codes for a file that is not a database, or one whose pages are damaged.
SQLITE_CORRUPT, SQLITE_NOTADB = 11, 26


def damaged(exc: BaseException) -> bool:
    """Does ``exc`` say a sidecar file is not a database or is damaged (not: busy, locked, a full disk)?"""
    if not isinstance(exc, sqlite3.DatabaseError):
        return False
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (SQLITE_CORRUPT, SQLITE_NOTADB)
    text = str(exc).lower()
    return "malformed" in text or "not a database" in text


def set_aside(path: Path | str) -> Path:
    """Move a damaged sidecar file (and its ``-wal`` / ``-shm``) aside, kept for inspection, so a new one
    can be made; returns where it went (``<name>.damaged-<time>``)."""
    return move_aside(path, "damaged")


def open_vectors(mm: Any, model: str = "") -> VectorTable:
    """The vector table of store ``mm`` for embeddings model ``model`` (none yet: :meth:`VectorTable.register`
    finds it). Blocking (opens a connection)."""
    location = getattr(mm, "location", None)
    if location is not None and hasattr(location, "connect_kwargs"):
        return PgVectors(location, model)
    path = sidecar_path(mm)
    if path is None:
        raise ValueError("this store has no place for vectors")
    return SqliteVectors(path, model)
