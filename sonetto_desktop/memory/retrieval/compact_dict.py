"""jieba's word-frequency table in ~7 MB instead of ~75 MB. No Qt.

jieba keeps its dictionary as a Python dict of ~580,000 strings (every word and every prefix of a
word) to frequencies: the largest single part of the app's idle memory. Segmentation only asks three
things of that table — ``word in FREQ``, ``FREQ[word]`` and ``FREQ.get(word)`` — so
:class:`CompactFreq` answers them from two sorted arrays: a stable 64-bit hash of each entry and its
frequency (a binary search per lookup). Built from the same dictionary file with the same rules as
jieba (a word's frequency, the last one given if it is listed twice; 0 for a prefix that is not a
word; the total over every line), so the cuts are identical. A collision between two 64-bit hashes
is possible in principle; among 580,000 entries its odds are about 1 in 10^8.

The arrays are cached in the temporary directory (as jieba caches its own table), keyed by the
dictionary file's size and modification time, so only the first start builds them (~1 s).
"""

from __future__ import annotations

import hashlib
import logging
import os
import sys
import tempfile
from array import array
from bisect import bisect_left
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

CACHE_VERSION = 1
_MAGIC = b"SNTFREQ1"


def stable_hash(word: str) -> int:
    """A 64-bit hash of ``word`` that is the same in every process (Python's ``hash`` is not)."""
    return int.from_bytes(hashlib.blake2b(word.encode("utf-8", "surrogatepass"), digest_size=8).digest(),
                          "little", signed=True)


class CompactFreq:
    """A read-only ``{word: frequency}`` over sorted hash / frequency arrays."""

    __slots__ = ("_keys", "_freqs", "total")

    def __init__(self, keys: array, freqs: array, total: int) -> None:
        self._keys = keys
        self._freqs = freqs
        self.total = total

    def __len__(self) -> int:
        return len(self._keys)

    def _index(self, word: Any) -> int:
        if not isinstance(word, str):
            return -1
        key = stable_hash(word)
        i = bisect_left(self._keys, key)
        return i if i < len(self._keys) and self._keys[i] == key else -1

    def __contains__(self, word: object) -> bool:
        return self._index(word) >= 0

    def __getitem__(self, word: str) -> int:
        i = self._index(word)
        if i < 0:
            raise KeyError(word)
        return self._freqs[i]

    def get(self, word: str, default: Any = None) -> Any:
        i = self._index(word)
        return self._freqs[i] if i >= 0 else default

    @property
    def nbytes(self) -> int:
        return self._keys.itemsize * len(self._keys) + self._freqs.itemsize * len(self._freqs)


def build(lines: Any) -> CompactFreq:
    """The table for a jieba dictionary given as lines of bytes (``word freq [tag]``)."""
    table: dict[int, int] = {}
    words: set[int] = set()
    total = 0
    for lineno, raw in enumerate(lines, 1):
        line = raw.strip().decode("utf-8")
        if not line:
            continue
        try:
            word, freq_text = line.split(" ")[:2]
            freq = int(freq_text)
        except ValueError:
            raise ValueError(f"invalid dictionary entry at line {lineno}: {line}") from None
        key = stable_hash(word)
        table[key] = freq
        words.add(key)
        total += freq
        for end in range(1, len(word)):
            prefix = stable_hash(word[:end])
            if prefix not in table:
                table[prefix] = 0
    del words
    keys = array("q", sorted(table))
    freqs = array("q", (table[k] for k in keys))
    table.clear()
    return CompactFreq(keys, freqs, total)


def _cache_path(source: Path) -> Path:
    stat = source.stat()
    tag = hashlib.blake2b(f"{source}|{stat.st_size}|{stat.st_mtime_ns}|{CACHE_VERSION}".encode(),
                          digest_size=6).hexdigest()
    return Path(tempfile.gettempdir()) / f"sonetto-jieba-freq-{tag}.bin"


def _save(table: CompactFreq, path: Path) -> None:
    header = _MAGIC + len(table).to_bytes(8, "little") + table.total.to_bytes(8, "little")
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(temp, "wb") as fh:
            fh.write(header)
            fh.write(table._keys.tobytes())
            fh.write(table._freqs.tobytes())
        os.replace(temp, path)
    except OSError:
        log.info("could not cache the compact dictionary at %s", path, exc_info=True)
        temp.unlink(missing_ok=True)


def _load(path: Path) -> CompactFreq | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if len(data) < 24 or data[:8] != _MAGIC:
        return None
    count = int.from_bytes(data[8:16], "little")
    total = int.from_bytes(data[16:24], "little")
    if len(data) != 24 + 16 * count:
        return None
    keys, freqs = array("q"), array("q")
    keys.frombytes(data[24:24 + 8 * count])
    freqs.frombytes(data[24 + 8 * count:])
    if sys.byteorder != "little":
        keys.byteswap()
        freqs.byteswap()
    return CompactFreq(keys, freqs, total)


def load_for(source: Path) -> CompactFreq:
    """The table for the dictionary file ``source``, from the cache or built (and cached)."""
    cache = _cache_path(source)
    table = _load(cache)
    if table is None:
        with open(source, "rb") as fh:
            table = build(fh)
        _save(table, cache)
    return table


def compact_tokenizer() -> Any:
    """A ``jieba.Tokenizer`` on jieba's default dictionary whose table is a :class:`CompactFreq`
    (never loads jieba's own dict-of-strings table)."""
    import jieba

    source = Path(jieba.__file__).with_name(jieba.DEFAULT_DICT_NAME)
    tokenizer = jieba.Tokenizer()
    table = load_for(source)
    tokenizer.FREQ = table
    tokenizer.total = table.total
    tokenizer.initialized = True
    return tokenizer
