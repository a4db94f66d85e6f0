"""What the writer's memory listing costs on a large store (issue 37, seventh pass; CPU time and
unrepetitive batches since the eleventh).

    python -m bench.writer_listing [--sizes 10000,100000] [--probes 100] [--turns 60]

For each size a SQLite store in a temporary folder is filled with ``bench.recall.synthetic_bank``'s
memories (words drawn from jieba's dictionary by frequency, as common as in real text), the offline
retriever and the writer's index are built, and then, per size:

- **listing**: ``read_listing`` for ``--turns`` import batches of ``bench.history_import``'s synthetic
  history (the text the writer's related query reads: ``turn_query_text``), mean and p95 in ms;
- **related query**: the retriever's ``candidates`` for the same texts alone; and its CPU time
  (``related_query_cpu_ms``, the process's: steadier than wall time on a loaded machine), also for
  **unrepetitive batches** (``related_query_unrepetitive_cpu_ms``: 20 texts of 1,250 characters glued
  from another seed's memories, no sentence said twice, where the bench's chats repeat their lines);
- **duplicate probe**: for ``--probes`` memories of the store (half of them given a twin in the store:
  the same sentence with its last words changed), the duplicate search's candidates as it asks for
  them now (``lookalikes``: the memory's character pairs and ASCII words) and as it asked
  before (``candidates``: a question's whole analysis and ranking), ms per probe, and how many likely
  duplicates (similarity >= ``DUPLICATE_AT``) each found among its candidates.

Times are wall clock on whatever the machine is doing; the pairs found are exact.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

NOW = datetime(2026, 12, 6, 20, 0)


def _ms(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {"mean_ms": round(1000 * statistics.mean(ordered), 2),
            "p95_ms": round(1000 * ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 2)}


def turn_texts(turns: int, seed: int = 7) -> list[str]:
    """The related query's text of ``turns`` import batches (as the writer reads them)."""
    from bench.history_import import synthetic_history

    from sonetto_desktop.history_import.plan import make_plan
    from sonetto_desktop.memory.writer.turns import turn_query_text

    plan = make_plan(synthetic_history(max(turns * 5, 20), seed))
    return [turn_query_text(batch.messages()) for batch in plan.batches[:turns]]


def unrepetitive_texts(count: int = 20, chars: int = 1250) -> list[str]:
    """Batches whose lines are all different: another seed's memories glued together."""
    from bench.recall import synthetic_bank

    lines = [m.description for m in synthetic_bank(count * 40, seed=99)]
    return ["\n".join(lines[i * 40:(i + 1) * 40])[:chars] for i in range(count)]


def _cpu_ms(ask: Any, texts: list[str], passes: int = 3) -> float:
    """CPU time per text, the best of ``passes`` passes (after one to warm up)."""
    for text in texts[:3]:
        ask(text)
    best = float("inf")
    for _ in range(passes):
        began = time.process_time()
        for text in texts:
            ask(text)
        best = min(best, time.process_time() - began)
    return round(1000 * best / max(len(texts), 1), 2)


def measure(size: int, probes: int, turns: int) -> dict[str, Any]:
    from bench.recall import fill_store, open_store, synthetic_bank

    from sonetto_desktop.memory.retrieval.mechanical import MechanicalRetriever
    from sonetto_desktop.memory.writer.dupes import DUPLICATE_AT, probe_text, similarity
    from sonetto_desktop.memory.writer.index import WriterIndex
    from sonetto_desktop.memory.writer.listing import read_listing

    from dataclasses import replace

    texts = turn_texts(turns)
    bank = synthetic_bank(size)
    step = max(1, len(bank) // max(probes, 1))
    chosen = bank[::step][:probes]
    twins = [replace(m, id=f"twin{n:05d}", description=m.description[:-6] + "，后来又提过。")
             for n, m in enumerate(chosen[::2])]
    with tempfile.TemporaryDirectory(prefix="sonetto-listing-") as folder:
        store = open_store("sqlite", Path(folder))
        try:
            ids = fill_store(store, bank + twins)
            retriever = MechanicalRetriever(store, now=lambda: NOW)
            retriever.warm_up()
            index = WriterIndex(store)
            index.warm_up()
            listing, related = [], []
            for text in texts:
                began = time.perf_counter()
                read_listing(store, text, lambda: retriever, now=NOW, index=index)
                listing.append(time.perf_counter() - began)
                began = time.perf_counter()
                retriever.candidates(text, 12, now=NOW)
                related.append(time.perf_counter() - began)
            cpu = {name: _cpu_ms(lambda t: retriever.candidates(t, 12, now=NOW), batch)
                   for name, batch in (("related_query_cpu_ms", texts),
                                       ("related_query_unrepetitive_cpu_ms", unrepetitive_texts()))}
            sample = [(ids[m.id], m.description) for m in chosen]
            found: dict[str, Any] = {}
            for name, ask in (("lookalikes", lambda text: retriever.lookalikes(text, 5)),
                              ("candidates", lambda text: retriever.candidates(text, 5, now=NOW))):
                times, pairs = [], 0
                for mid, text in sample:
                    began = time.perf_counter()
                    got = ask(probe_text(text))
                    times.append(time.perf_counter() - began)
                    pairs += sum(1 for c in got if c["id"] != mid and similarity(text, c["description"]) >= DUPLICATE_AT)
                found[name] = {**_ms(times), "pairs": pairs}
            index.close()
            retriever.close()
        finally:
            store.close()
    return {"memories": size, "listing": _ms(listing), "related_query": _ms(related), **cpu,
            "duplicate_probe": found, "turns": len(texts), "probes": len(sample)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--probes", type=int, default=100)
    parser.add_argument("--turns", type=int, default=60)
    args = parser.parse_args(argv)
    for size in (int(s) for s in args.sizes.split(",") if s):
        print(json.dumps(measure(size, args.probes, args.turns), ensure_ascii=False), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
