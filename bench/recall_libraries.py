"""Our hand-built recall parts against the libraries that do the same job (issue 39 item 8).

    python -m bench.recall_libraries [--sizes 10000,100000] [--queries 300] [--json OUT]

(``bm25s`` comes with the ``bench`` extra: ``pip install -e .[bench]``.)

1. **The cut** (``memory/retrieval/cut.py`` over ``compact_dict.py``) against jieba itself:
   ``jieba.lcut_for_search(text, HMM=False)`` on jieba's own dictionary (the algorithm ``cut.py``
   follows; a test holds the outputs equal), and the same jieba call over the app's compact table
   (``cut-jieba-compact``: what the app would run without ``cut.py``). Measured: loading the dictionary (ours from its cache
   in the temp dir, built once per machine), cutting every memory, the process's resident memory
   added by load + cut.
2. **The index** (``postings.py``: hashed terms, a numpy CSR base plus a delta) against SQLite FTS5
   (the standard library's sqlite3, ``unicode61``, its ``bm25()`` ranking, on disk) and ``bm25s``
   (sparse-matrix BM25 on numpy, ``method="lucene"``). Every engine gets the same token lists (our
   cut of the same memories, made before the clock) and the same queries (4 tokens drawn from random
   memories). Measured: build, one query (top 10; median and p95 of single queries, as recall asks
   them), replacing one memory (remove + add; ``bm25s`` has no update: it rebuilds), resident memory
   added by the build, the saved size on disk and loading it back.

Every engine runs in a fresh child process (``--child``); times are CPU seconds of that process
(the fair figure on this shared 2-core machine) and wall seconds. Memories are
``bench.recall.synthetic_bank``'s (jieba-frequency filler, ~25 content words each).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.proc import rss_mb
from typing import Any, Callable

ENGINES = ("cut-ours", "cut-jieba", "cut-jieba-compact", "index-ours", "index-fts5", "index-bm25s")
TOP = 10




def _timed(fn: Callable[[], Any]) -> tuple[Any, float, float]:
    start, cpu = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - start, time.process_time() - cpu


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


# ── children ──────────────────────────────────────────────────────────

def _cut_child(engine: str, texts: list[str]) -> dict[str, Any]:
    import logging

    import jieba

    from sonetto_desktop.memory.retrieval.compact_dict import compact_tokenizer
    from sonetto_desktop.memory.retrieval.cut import SearchCut

    jieba.setLogLevel(logging.WARNING)
    before = rss_mb()  # modules imported: what is counted is the dictionary and the cut
    if engine == "cut-ours":
        cutter, load_s, load_cpu = _timed(lambda: SearchCut(compact_tokenizer().FREQ))
        cut = cutter.cut_for_search
    else:
        if engine == "cut-jieba":  # jieba as shipped: its dictionary a dict of ~350,000 strings
            tokenizer, load_s, load_cpu = _timed(lambda: (jieba.dt.initialize(), jieba.dt)[1])
        else:  # jieba's cut over the app's compact table (what the app would run without cut.py)
            tokenizer, load_s, load_cpu = _timed(compact_tokenizer)

        def cut(text: str) -> list[str]:
            return tokenizer.lcut_for_search(text, HMM=False)
    tokens, cut_s, cut_cpu = _timed(lambda: sum(len(list(cut(t))) for t in texts))
    return {"load_s": load_s, "load_cpu": load_cpu, "cut_s": cut_s, "cut_cpu": cut_cpu, "tokens": tokens,
            "rss_mb": rss_mb() - before}


def _index_child(engine: str, docs: list[list[str]], queries: list[list[str]], folder: Path) -> dict[str, Any]:
    import sqlite3

    import bm25s
    import numpy as np

    from sonetto_desktop.memory.retrieval.postings import Postings, hash_term, key_counts

    out: dict[str, Any] = {}
    rng = random.Random(3)
    replace = [rng.randrange(len(docs)) for _ in range(100)]
    before = rss_mb()  # modules imported: what is counted is the index
    if engine == "index-ours":

        def build() -> Any:
            p = Postings()
            for toks in docs:
                p.stage([hash_term(t) for t in toks])
            p.flush()
            return p

        index, out["build_s"], out["build_cpu"] = _timed(build)

        def query(q: list[str]) -> list[int]:
            scores = index.score({hash_term(t): 1.0 for t in q})
            top = np.argpartition(-scores, TOP)[:TOP]
            return top[np.argsort(-scores[top])].tolist()

        slots = list(range(len(docs)))

        def update(i: int) -> None:
            index.remove(slots[i])
            slots[i] = index.add(*key_counts([hash_term(t) for t in docs[i]]))

        def save() -> int:
            path = folder / "ours.npz"
            index.compact()  # the app compacts before it saves (index_file.save)
            np.savez(path, **index.arrays())
            return path.stat().st_size

        def load() -> Any:
            with np.load(folder / "ours.npz") as data:
                return Postings.from_arrays({k: data[k] for k in data.files})
    elif engine == "index-fts5":
        db = folder / "fts5.db"

        def build() -> Any:
            conn = sqlite3.connect(db)
            conn.execute("PRAGMA journal_mode=WAL")  # as the app's SQLite store: a commit is not an fsync
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("CREATE VIRTUAL TABLE t USING fts5(body, tokenize='unicode61')")
            with conn:
                conn.executemany("INSERT INTO t(rowid, body) VALUES (?, ?)",
                                 ((i, " ".join(toks)) for i, toks in enumerate(docs)))
            return conn

        conn, out["build_s"], out["build_cpu"] = _timed(build)

        def _match(q: list[str]) -> str:
            return " OR ".join('"' + t.replace('"', '""') + '"' for t in q)

        def query(q: list[str]) -> list[int]:
            rows = conn.execute("SELECT rowid FROM t WHERE t MATCH ? ORDER BY rank LIMIT ?", (_match(q), TOP))
            return [r[0] for r in rows]

        def update(i: int) -> None:
            with conn:
                conn.execute("DELETE FROM t WHERE rowid = ?", (i,))
                conn.execute("INSERT INTO t(rowid, body) VALUES (?, ?)", (i, " ".join(docs[i])))

        def save() -> int:
            conn.execute("INSERT INTO t(t) VALUES ('optimize')")
            conn.commit()
            return db.stat().st_size

        def load() -> Any:
            other = sqlite3.connect(db)
            other.execute("SELECT rowid FROM t WHERE t MATCH ? LIMIT 1", (_match(queries[0]),)).fetchall()
            return other
    else:
        def build() -> Any:
            r = bm25s.BM25(k1=1.2, b=0.4, method="lucene")
            r.index(docs, show_progress=False)
            return r

        retriever, out["build_s"], out["build_cpu"] = _timed(build)

        def query(q: list[str]) -> list[int]:
            found, _ = retriever.retrieve([q], k=TOP, show_progress=False)
            return found[0].tolist()

        def update(i: int) -> None:  # no incremental update: the index is built again
            nonlocal retriever
            retriever = build()

        replace = replace[:2]

        def save() -> int:
            retriever.save(str(folder / "bm25s"))
            return sum(p.stat().st_size for p in (folder / "bm25s").iterdir())

        def load() -> Any:
            return bm25s.BM25.load(str(folder / "bm25s"))
    out["rss_mb"] = rss_mb() - before
    for q in queries[:5]:
        query(q)  # warm
    times = []
    for q in queries:
        start = time.perf_counter()
        query(q)
        times.append(time.perf_counter() - start)
    out["query_ms_median"] = statistics.median(times) * 1000
    out["query_ms_p95"] = _pct(times, 0.95) * 1000
    updates = []
    for i in replace:
        start = time.perf_counter()
        update(i)
        updates.append(time.perf_counter() - start)
    out["update_ms_median"] = statistics.median(updates) * 1000
    out["disk_mb"] = save() / 1e6
    _, out["load_s"], _ = _timed(load)
    return out


def child(engine: str, data: Path) -> dict[str, Any]:
    payload = json.loads(data.read_text(encoding="utf-8"))
    if engine.startswith("cut-"):
        return _cut_child(engine, payload["texts"])
    with tempfile.TemporaryDirectory(prefix="sonetto-libs-") as tmp:
        return _index_child(engine, payload["docs"], payload["queries"], Path(tmp))


# ── parent ────────────────────────────────────────────────────────────

def _prepare(n: int, n_queries: int, folder: Path) -> Path:
    from bench.recall import synthetic_bank
    from sonetto_desktop.memory.retrieval import tokenize as tok

    texts = [m.description for m in synthetic_bank(n)]
    docs = [tok.words(t) for t in texts]
    rng = random.Random(11)
    queries = []
    while len(queries) < n_queries:
        doc = docs[rng.randrange(len(docs))]
        if len(doc) >= 4:
            queries.append(rng.sample(doc, 4))
    path = folder / f"data-{n}.json"
    path.write_text(json.dumps({"texts": texts, "docs": docs, "queries": queries}, ensure_ascii=False), encoding="utf-8")
    return path


def run(sizes: list[int], n_queries: int) -> dict[str, dict[str, Any]]:
    results: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="sonetto-libs-") as tmp:
        for n in sizes:
            data = _prepare(n, n_queries, Path(tmp))
            for engine in ENGINES:
                done = subprocess.run([sys.executable, "-m", "bench.recall_libraries", "--child", engine, str(data)],
                                      capture_output=True, text=True, check=True, cwd=Path(__file__).resolve().parent.parent,
                                      env={**os.environ, "PYTHONHASHSEED": "0"})
                row = json.loads(done.stdout.strip().splitlines()[-1])
                results.setdefault(str(n), {})[engine] = row
                print(n, engine, {k: round(v, 3) if isinstance(v, float) else v for k, v in row.items()}, flush=True)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--child", nargs=2, metavar=("ENGINE", "DATA"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child[0], Path(args.child[1]))))
        return
    results = run([int(s) for s in args.sizes.split(",")], args.queries)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
