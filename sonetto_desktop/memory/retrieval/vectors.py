"""Where the embeddings model's vectors live: with the store, one row per memory and model.

A vector is stored compact: L2-normalised, then int8 with one float scale per row (1,024
dimensions: 1 KB + the id, so 100,000 memories take about 100 MB). The row keeps the fingerprint
of the text it was computed from, so the background sync (``vector_sync.py``) knows which
memories are missing or changed, and can resume after any stop. Each embeddings model has its own
rows (``model`` = ``EmbeddingsConfig.key``); switching models never mixes them.

- A YAML or SQLite store: a sidecar SQLite file beside it (``memory.vectors.sqlite3``). Not the
  store's own database: a SQLite store follows other processes' writes through ``PRAGMA
  data_version``, and a vector write would look like an unknown change and make every view re-read
  the store.
- A PostgreSQL store: a table in the store's schema (shared by every device). With the ``pgvector``
  extension on the server (``CREATE EXTENSION vector`` allowed), a ``halfvec`` column and an HNSW
  index answer the search in the server; without it the same table holds the int8 bytes. The
  pgvector branch is written for servers that have it but could not be run here (no pgvector
  package for this machine's PostgreSQL): it is not covered by the tests.

Search is cosine with numpy over a copy loaded on first use and kept up to date by this process's
writes (another process's writes are picked up when the row count changes): exact over all rows
(int8 rows upcast in chunks: ~40 ms for 10,000 vectors of 1,024 dimensions on a busy core), and
above ``PREFILTER_FROM`` rows first narrowed by the Hamming distance of the sign bits (128 bytes a
row at 1,024 dimensions; a few ms for 100,000 rows) to ``PREFILTER_FACTOR`` times the rows asked for,
which are then scored exactly.
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
from typing import Any, Iterable, Sequence

import numpy as np

__all__ = ["PgVectors", "SqliteVectors", "VectorTable", "dequantize", "open_vectors", "quantize", "text_fingerprint"]

log = logging.getLogger(__name__)

SIDECAR_SUFFIX = ".vectors.sqlite3"
CHUNK = 8192  # rows scored at a time (float32 copies of at most 32 MB at 1,024 dimensions)
PREFILTER_FROM = 20_000  # more rows than this: narrow by sign bits first
PREFILTER_FACTOR = 4  # ... to this many times the rows asked for (at least PREFILTER_MIN)
PREFILTER_MIN = 2000
_POPCOUNT = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint16)
RECHECK = 30.0  # seconds between looks at whether another process wrote rows


def text_fingerprint(text: str) -> int:
    """A signed 64-bit fingerprint of the text a vector is computed from."""
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "little", signed=True)


def quantize(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(int8 rows, float32 scale per row) of float rows: ``row ≈ int8_row * scale``."""
    matrix = np.asarray(matrix, dtype=np.float32)
    peak = np.abs(matrix).max(axis=1) if len(matrix) else np.zeros(0, np.float32)
    scale = np.where(peak > 0, peak / 127.0, 1.0).astype(np.float32)
    return np.clip(np.rint(matrix / scale[:, None]), -127, 127).astype(np.int8), scale


def dequantize(rows: np.ndarray, scale: np.ndarray) -> np.ndarray:
    return rows.astype(np.float32) * scale[:, None]


class _Matrix:
    """The vectors of one model in RAM: ids, int8 rows, scales and sign bits, with O(1) replace and remove."""

    def __init__(self, dims: int = 0) -> None:
        self.ids: list[str | None] = []
        self.row_of: dict[str, int] = {}
        self.rows = np.zeros((0, dims), np.int8)
        self.bits = np.zeros((0, (dims + 7) // 8), np.uint8)
        self.scale = np.zeros(0, np.float32)
        self.free: list[int] = []

    def __len__(self) -> int:
        return len(self.row_of)

    def put(self, ids: Sequence[str], rows: np.ndarray, scale: np.ndarray) -> None:
        if len(ids) and self.rows.shape[1] != rows.shape[1]:
            if len(self.row_of):
                log.warning("vectors of another size (%d, was %d): the old ones are dropped",
                            rows.shape[1], self.rows.shape[1])
            self.__init__(rows.shape[1])  # type: ignore[misc]
        new = sum(1 for mid in ids if mid not in self.row_of)
        self._reserve(len(self.ids) + max(0, new - len(self.free)))
        bits = np.packbits(rows > 0, axis=1)
        for i, (mid, row, s) in enumerate(zip(ids, rows, scale, strict=True)):
            at = self.row_of.get(mid)
            if at is None:
                if self.free:
                    at = self.free.pop()
                else:
                    at = len(self.ids)
                    self.ids.append(None)
                self.row_of[mid] = at
                self.ids[at] = mid
            self.rows[at] = row
            self.bits[at] = bits[i]
            self.scale[at] = s

    def _reserve(self, size: int) -> None:
        """Room for ``size`` rows (grown by a quarter at least, so appends stay cheap)."""
        if size <= len(self.rows):
            return
        size = max(size, len(self.rows) + len(self.rows) // 4, 64)
        for name in ("rows", "bits", "scale"):
            old = getattr(self, name)
            grown = np.zeros((size, *old.shape[1:]), old.dtype)
            grown[: len(old)] = old
            setattr(self, name, grown)

    def drop(self, ids: Iterable[str]) -> None:
        for mid in ids:
            at = self.row_of.pop(mid, None)
            if at is not None:
                self.ids[at] = None
                self.scale[at] = 0.0  # scores 0: never above a live row's
                self.free.append(at)

    def search(self, query: np.ndarray, k: int) -> list[str]:
        n = len(self.ids)
        if not len(self.row_of) or k <= 0 or query.shape[-1] != self.rows.shape[1]:
            return []
        q = np.asarray(query, np.float32).ravel()
        k = min(k, len(self.row_of))
        candidates = self._narrowed(q, k) if n > PREFILTER_FROM else None
        if candidates is None:
            scores = np.empty(n, np.float32)
            for start in range(0, n, CHUNK):
                stop = min(n, start + CHUNK)
                scores[start:stop] = (self.rows[start:stop].astype(np.float32) @ q) * self.scale[start:stop]
            if self.free:
                scores[self.free] = -np.inf
            top = np.argpartition(-scores, k - 1)[:k] if k < n else np.arange(n)
        else:
            scores = np.full(n, -np.inf, np.float32)
            scores[candidates] = (self.rows[candidates].astype(np.float32) @ q) * self.scale[candidates]
            if self.free:
                scores[self.free] = -np.inf
            top = candidates[np.argpartition(-scores[candidates], min(k, len(candidates)) - 1)[:k]]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [self.ids[int(i)] for i in top if self.ids[int(i)] is not None and np.isfinite(scores[int(i)])]

    def _narrowed(self, query: np.ndarray, k: int) -> np.ndarray | None:
        """The rows whose sign bits are nearest the query's (None: not worth it for ``k``)."""
        n = len(self.ids)
        keep = max(PREFILTER_MIN, PREFILTER_FACTOR * k)
        if keep * 2 >= n:
            return None
        qbits = np.packbits(query > 0)
        differ = np.bitwise_xor(self.bits[:n], qbits)
        distance = (np.bitwise_count(differ).sum(axis=1, dtype=np.uint32) if hasattr(np, "bitwise_count")
                    else _POPCOUNT[differ].sum(axis=1, dtype=np.uint32))
        return np.argpartition(distance, keep - 1)[:keep]


class VectorTable(ABC):
    """The vectors of one embeddings model (``model``) for one store. Thread-safe."""

    kind = "table"

    def __init__(self, model: str) -> None:
        self.model = model
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
        """memory id -> fingerprint of the text its stored vector was computed from."""

    @abstractmethod
    def count(self) -> int: ...

    @abstractmethod
    def drop_other_models(self) -> int:
        """Delete the vectors of every other embeddings model; returns how many rows went."""

    def close(self) -> None:
        """Release the connection (a backend closes its own, then calls this)."""
        self._matrix = None

    # shared
    def put(self, ids: Sequence[str], fps: Sequence[int], vectors: np.ndarray) -> None:
        """Store (or replace) the vectors of ``ids`` computed from texts with fingerprints ``fps``."""
        if not len(ids):
            return
        rows, scale = quantize(vectors)
        with self._lock:
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
            matrix = _Matrix(rows.shape[1] if rows.ndim == 2 else 0)
            if len(ids):
                matrix.put(ids, rows, scale)
            self._matrix, self._checked = matrix, now
        return self._matrix


def _blob(row: np.ndarray) -> bytes:
    return np.ascontiguousarray(row, dtype=np.int8).tobytes()


def _rows(blobs: Sequence[bytes]) -> np.ndarray:
    if not blobs:
        return np.zeros((0, 0), np.int8)
    size = len(blobs[0])
    kept = [b for b in blobs if len(b) == size]
    return np.frombuffer(b"".join(kept), dtype=np.int8).reshape(len(kept), size)


class SqliteVectors(VectorTable):
    """A sidecar SQLite file (YAML and SQLite stores). Created on first use."""

    kind = "sqlite"

    def __init__(self, path: Path | str, model: str) -> None:
        super().__init__(model)
        self.path = Path(path)
        self._conn = sqlite3.connect(self.path, check_same_thread=False, timeout=10.0, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.execute("CREATE TABLE IF NOT EXISTS vectors (model TEXT NOT NULL, id TEXT NOT NULL, "
                           "fp INTEGER NOT NULL, scale REAL NOT NULL, vec BLOB NOT NULL, PRIMARY KEY (model, id)) "
                           "WITHOUT ROWID")

    def _load(self) -> tuple[list[str], np.ndarray, np.ndarray]:
        found = self._conn.execute("SELECT id, scale, vec FROM vectors WHERE model = ?", (self.model,)).fetchall()
        rows = _rows([r[2] for r in found])
        keep = [r for r in found if len(r[2]) == rows.shape[1]] if len(rows) else []
        return [r[0] for r in keep], rows, np.asarray([r[1] for r in keep], np.float32)

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

    def fingerprints(self) -> dict[str, int]:
        with self._lock:
            return dict(self._conn.execute("SELECT id, fp FROM vectors WHERE model = ?", (self.model,)).fetchall())

    def count(self) -> int:
        with self._lock:
            return self._conn.execute("SELECT COUNT(*) FROM vectors WHERE model = ?", (self.model,)).fetchone()[0]

    def drop_other_models(self) -> int:
        with self._lock, self._conn:
            self._conn.execute("BEGIN IMMEDIATE")
            return self._conn.execute("DELETE FROM vectors WHERE model != ?", (self.model,)).rowcount

    def close(self) -> None:
        with self._lock:
            self._conn.close()
            super().close()


class PgVectors(VectorTable):
    """A table in a PostgreSQL store's schema (``memory_vectors``), shared by every device."""

    kind = "postgres"

    def __init__(self, location: Any, model: str) -> None:
        super().__init__(model)
        import psycopg

        self._location = location
        self._schema = location.schema
        self._conn = psycopg.connect(location.url, autocommit=True, **location.connect_kwargs())
        self._table = f'"{self._schema}".memory_vectors'
        self._conn.execute(f"CREATE TABLE IF NOT EXISTS {self._table} (model text NOT NULL, id text NOT NULL, "
                           "fp bigint NOT NULL, scale real NOT NULL, vec bytea NOT NULL, PRIMARY KEY (model, id))")
        self.pgvector = self._enable_pgvector()
        if self.pgvector:
            self.kind = "pgvector"

    def _enable_pgvector(self) -> bool:
        """Use pgvector when the server has it and we may enable it (never required)."""
        import psycopg

        try:
            if self._conn.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'").fetchone() is None:
                return False
            self._conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            self._conn.execute(f"ALTER TABLE {self._table} ADD COLUMN IF NOT EXISTS emb halfvec")
            return True
        except psycopg.Error as exc:
            log.info("pgvector is not usable on this server (%s); vectors are searched here", exc)
            return False

    def _load(self) -> tuple[list[str], np.ndarray, np.ndarray]:
        found = self._conn.execute(f"SELECT id, scale, vec FROM {self._table} WHERE model = %s", (self.model,)).fetchall()
        rows = _rows([bytes(r[2]) for r in found])
        keep = [r for r in found if len(r[2]) == rows.shape[1]] if len(rows) else []
        return [r[0] for r in keep], rows, np.asarray([r[1] for r in keep], np.float32)

    def _write(self, ids: Sequence[str], fps: Sequence[int], rows: np.ndarray, scale: np.ndarray) -> None:
        values = [(self.model, mid, int(fp), float(s), _blob(row)) for mid, fp, row, s in zip(ids, fps, rows, scale,
                                                                                                strict=True)]
        with self._conn.transaction():
            with self._conn.cursor() as cur:
                cur.executemany(
                    f"INSERT INTO {self._table} (model, id, fp, scale, vec) VALUES (%s, %s, %s, %s, %s) "
                    "ON CONFLICT (model, id) DO UPDATE SET fp = EXCLUDED.fp, scale = EXCLUDED.scale, vec = EXCLUDED.vec",
                    values)
                if self.pgvector:
                    cur.executemany(f"UPDATE {self._table} SET emb = %s::halfvec WHERE model = %s AND id = %s",
                                    [("[" + ",".join(f"{x:.5f}" for x in dequantize(row[None], np.array([s]))[0]) + "]",
                                      self.model, mid) for mid, row, s in zip(ids, rows, scale, strict=True)])

    def _delete(self, ids: Sequence[str]) -> None:
        with self._conn.transaction(), self._conn.cursor() as cur:
            cur.executemany(f"DELETE FROM {self._table} WHERE model = %s AND id = %s", [(self.model, mid) for mid in ids])

    def search(self, query: np.ndarray, k: int) -> list[str]:
        if not self.pgvector:
            return super().search(query, k)
        literal = "[" + ",".join(f"{x:.5f}" for x in np.asarray(query, np.float32).ravel()) + "]"
        with self._lock:
            found = self._conn.execute(f"SELECT id FROM {self._table} WHERE model = %s AND emb IS NOT NULL "
                                       "ORDER BY emb <=> %s::halfvec LIMIT %s", (self.model, literal, k)).fetchall()
        return [r[0] for r in found]

    def fingerprints(self) -> dict[str, int]:
        with self._lock:
            return dict(self._conn.execute(f"SELECT id, fp FROM {self._table} WHERE model = %s", (self.model,)).fetchall())

    def count(self) -> int:
        with self._lock:
            return self._conn.execute(f"SELECT COUNT(*) FROM {self._table} WHERE model = %s", (self.model,)).fetchone()[0]

    def drop_other_models(self) -> int:
        with self._lock:
            return self._conn.execute(f"DELETE FROM {self._table} WHERE model != %s", (self.model,)).rowcount

    def close(self) -> None:
        with self._lock:
            self._conn.close()
            super().close()


def sidecar_path(mm: Any) -> Path | None:
    """Where a file store's vectors live (None: the store has no file)."""
    path = getattr(mm, "path", None)
    if not isinstance(path, (str, Path)):
        return None
    path = Path(path)
    return path.with_name(path.stem + SIDECAR_SUFFIX)


def open_vectors(mm: Any, model: str) -> VectorTable:
    """The vector table of store ``mm`` for embeddings model ``model``. Blocking (opens a connection)."""
    location = getattr(mm, "location", None)
    if location is not None and hasattr(location, "connect_kwargs"):
        return PgVectors(location, model)
    path = sidecar_path(mm)
    if path is None:
        raise ValueError("this store has no place for vectors")
    return SqliteVectors(path, model)
