"""The bulk build's cut against the one-by-one cut, on the bench's texts and every recall set (issue 37).

    python -m bench.cut_identity [--sizes 10000,100000] [--datasets DIR] [--digest-only]

The index build cuts and keys a batch of memories at once (``cut.SearchCut.cut_for_search_many``,
``tokenize.batch_keys`` with ``MANY_TEXTS`` or more texts); a query, and a single memory added or
edited, are cut one by one (``cut_for_search``, jieba's algorithm: a test holds the two equal). For
each set of texts this compares, text by text,

- the tokens of ``cut_for_search_many`` over batches of ``index_lifecycle.BATCH`` texts with
  ``cut_for_search`` of each text, and
- the index keys of ``batch_keys`` over the same batches with ``batch_keys([text])``,

and prints the mismatches (0 expected) and a digest of the tokens and of the keys. The digests use only
``cut_for_search`` and ``batch_keys``, which older versions have too: ``--digest-only`` run on an older
checkout prints the digests its build produces, to compare with this one's.

Sets: ``synthetic-N`` (``bench.recall.synthetic_bank(N)``, the memories ``bench.recall_build``
indexes), the hand-written sets of ``bench/datasets`` and, with ``--datasets`` (or
``SONETTO_DATASETS``), the shared dev set and the public MemDaily, MADial and LoCoMo banks; memories
and questions of each.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import time
from pathlib import Path
from typing import Any, Iterator

from bench.recall import synthetic_bank


def text_sets(sizes: list[int], datasets: Path | None) -> Iterator[tuple[str, list[str]]]:
    for n in sizes:
        yield f"synthetic-{n}", [m.description for m in synthetic_bank(n)]
    from bench import recall_public as rp

    names = ["example", "blind", "heldout"]
    if datasets is not None and Path(datasets).is_dir():
        names += ["dev", *rp.PUBLIC]
    else:
        print("(no --datasets: the shared dev set and the public sets are left out)", file=sys.stderr)
    options = argparse.Namespace(memdaily_per_file=40, pad=100)
    extra = Path(rp.OWN_SETS)
    for name in names:
        groups = rp.LOADERS[name](datasets, options)
        texts = [m.description for g in groups for m in g.bank] + [c.q for g in groups for c in g.cases]
        yield name, texts
    for path in sorted(extra.glob("recall-*.yaml")):
        if path.stem.removeprefix("recall-") not in names:
            group = rp.yaml_group(path)
            yield path.stem, [m.description for m in group.bank] + [c.q for c in group.cases]


def digests(texts: list[str], batch: int) -> tuple[str, str, list[list[str]], list[Any]]:
    """(token digest, key digest, tokens one by one, keys of the bulk build per text)."""
    from sonetto_desktop.memory.retrieval import tokenize as tok

    cut = tok._cutter().cut_for_search
    tokens = [cut(text) if text else [] for text in texts]
    tok.release_memos()
    keys = []
    for start in range(0, len(texts), batch):
        keys += [sorted(k.tolist()) for k in tok.batch_keys(texts[start : start + batch])]
    tok.release_memos()
    token_hash, key_hash = hashlib.blake2b(digest_size=8), hashlib.blake2b(digest_size=8)
    for words, found in zip(tokens, keys, strict=True):
        token_hash.update("\x1f".join(words).encode("utf-8", "surrogatepass") + b"\x1e")
        key_hash.update(",".join(map(str, found)).encode() + b";")
    return token_hash.hexdigest(), key_hash.hexdigest(), tokens, keys


def compare(texts: list[str], batch: int, tokens: list[list[str]]) -> tuple[int, int]:
    """(texts whose bulk cut differs from the one-by-one cut, texts whose bulk keys differ from their own)."""
    from sonetto_desktop.memory.retrieval import tokenize as tok

    cutter = tok._cutter()
    bulk: list[list[str]] = []
    for start in range(0, len(texts), batch):
        bulk += cutter.cut_for_search_many(texts[start : start + batch])
    bad_tokens = sum(a != b for a, b in zip(tokens, bulk, strict=True))
    tok.release_memos()
    bad_keys = 0
    for start in range(0, len(texts), batch):
        chunk = texts[start : start + batch]
        for text, found in zip(chunk, tok.batch_keys(chunk), strict=True):
            bad_keys += sorted(found.tolist()) != sorted(tok.batch_keys([text])[0].tolist())
    tok.release_memos()
    return bad_tokens, bad_keys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.cut_identity", description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--datasets", type=Path, default=os.environ.get("SONETTO_DATASETS"))
    parser.add_argument("--digest-only", action="store_true", help="print the digests only (any version)")
    args = parser.parse_args(argv)
    from sonetto_desktop.memory.retrieval import index_lifecycle as lc
    from sonetto_desktop.memory.retrieval import tokenize as tok

    tok.warm_up()
    failed = 0
    for name, texts in text_sets([int(s) for s in args.sizes.split(",") if s.strip()], args.datasets):
        start = time.perf_counter()
        token_digest, key_digest, tokens, keys = digests(texts, lc.BATCH)
        line = (f"{name:>18}: {len(texts):>7} texts, {sum(map(len, tokens)):>9} tokens, {sum(map(len, keys)):>9} keys"
                f" | tokens {token_digest} keys {key_digest}")
        if not args.digest_only:
            bad_tokens, bad_keys = compare(texts, lc.BATCH, tokens)
            failed += bad_tokens + bad_keys
            line += f" | bulk cut differs on {bad_tokens}, bulk keys on {bad_keys}"
        print(f"{line} ({time.perf_counter() - start:.0f} s)", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
