"""jieba's word-frequency table in ~12 MB instead of ~75 MB. No Qt.

jieba keeps its dictionary as a Python dict of ~580,000 strings (every word and every prefix of a
word) to frequencies: the largest single part of the app's idle memory. Segmentation only asks three
things of that table — ``word in FREQ``, ``FREQ[word]`` and ``FREQ.get(word)`` — so
:class:`CompactFreq` answers them from two flat arrays: an open-addressed hash table of 64-bit
keys (linear probing from a multiplicative hash of the key, at most 60 % full) and the frequencies beside them. A key is exact for a word
of up to three characters (its code points packed, with the length: no collision possible) and a
stable 64-bit hash of a longer one. Built from the same dictionary file with the same rules as
jieba (a word's frequency, the last one given if it is listed twice; 0 for a prefix that is not a
word; the total over every line), so the cuts are identical. A collision between two hashed keys
is possible in principle; among 580,000 entries its odds are about 1 in 10^8.

The arrays are cached in the temporary directory (as jieba caches its own table), keyed by the
dictionary file's size and modification time, so only the first start builds them (~1 s).
"""

from __future__ import annotations

import hashlib
import logging
import sys
import tempfile
from array import array
from pathlib import Path
from typing import Any

import numpy as np

from ..files import atomic_file

log = logging.getLogger(__name__)

CACHE_VERSION = 2
_MAGIC = b"SNTFREQ2"
_EMPTY = 0
_SHORT = 3  # words this long or shorter get exact keys
_CODE_BITS = 20  # code points below 2**20 (all of Chinese but CJK extension G and later)
_MIX = 0x9E3779B97F4A7C15  # a slot is taken from the middle bits of key * this (exact keys share low bits)


def stable_hash(word: str) -> int:
    """A 64-bit key of ``word``, the same in every process (Python's ``hash`` is not): exact for
    up to three characters below U+100000, else a blake2b digest. Never 0 (the empty slot)."""
    n = len(word)
    if 0 < n <= _SHORT:
        key = n
        for ch in word:
            code = ord(ch)
            if code >> _CODE_BITS:
                break
            key = (key << _CODE_BITS) | code
        else:
            return key  # < 2**62: the length in the top bits keeps 1-, 2- and 3-character keys apart
    key = int.from_bytes(hashlib.blake2b(word.encode("utf-8", "surrogatepass"), digest_size=8).digest(),
                         "little", signed=True)
    return key or 1


class CompactFreq:
    """A read-only ``{word: frequency}`` over an open-addressed key array and a frequency array."""

    __slots__ = ("_keys", "_freqs", "_mask", "_count", "total", "_views")

    def __init__(self, keys: array, freqs: array, count: int, total: int) -> None:
        if len(keys) != len(freqs) or len(keys) & (len(keys) - 1) or not len(keys):
            raise ValueError("the table size must be a power of two")
        self._keys = keys
        self._freqs = freqs
        self._mask = len(keys) - 1
        self._count = count
        self.total = total
        self._views: tuple[np.ndarray, np.ndarray] | None = None

    def __len__(self) -> int:
        return self._count

    def lookup(self, word: str) -> int:
        """The frequency, or -1 for a word that is no entry (``cut.SearchCut`` asks once per fragment)."""
        if not isinstance(word, str):
            return -1
        key = stable_hash(word)
        keys, mask = self._keys, self._mask
        i = ((key * _MIX) >> 32) & mask
        while True:
            found = keys[i]
            if found == key:
                return self._freqs[i]
            if found == _EMPTY:
                return -1
            i = (i + 1) & mask

    def lookup_keys(self, keys: np.ndarray) -> np.ndarray:
        """:meth:`lookup` of many words at once, given their :func:`stable_hash` keys (int64): the
        frequencies, -1 where a key is no entry. The same probe as ``lookup``, in numpy."""
        if self._views is None:  # the arrays themselves, not copies
            self._views = (np.frombuffer(self._keys, dtype=np.int64),
                           np.frombuffer(self._freqs, dtype=np.dtype(f"i{self._freqs.itemsize}")))
        table, freqs = self._views
        keys = np.asarray(keys, dtype=np.int64)
        out = np.full(len(keys), -1, dtype=np.int64)
        mask = np.uint64(self._mask)
        # ((key * _MIX) >> 32) & mask keeps bits 32.. of the product: the same in 64-bit wrapping arithmetic
        slot = ((keys.view(np.uint64) * np.uint64(_MIX)) >> np.uint64(32)) & mask
        todo = np.arange(len(keys))
        while len(todo):
            found = table[slot]
            hit = found == keys
            out[todo[hit]] = freqs[slot[hit]]
            going = ~hit & (found != _EMPTY)
            todo, keys, slot = todo[going], keys[going], (slot[going] + np.uint64(1)) & mask
        return out

    def __contains__(self, word: object) -> bool:
        return self.lookup(word) >= 0  # type: ignore[arg-type]

    def __getitem__(self, word: str) -> int:
        freq = self.lookup(word)
        if freq < 0:
            raise KeyError(word)
        return freq

    def get(self, word: str, default: Any = None) -> Any:
        freq = self.lookup(word)
        return freq if freq >= 0 else default

    @property
    def nbytes(self) -> int:
        return self._keys.itemsize * len(self._keys) + self._freqs.itemsize * len(self._freqs)


def _table(entries: dict[int, int], total: int) -> CompactFreq:
    size = 1
    while size * 3 < len(entries) * 5:  # at most 60 % full
        size *= 2
    keys, freqs = array("q", [_EMPTY]) * size, array("l", [0]) * size
    mask = size - 1
    for key, freq in entries.items():
        i = ((key * _MIX) >> 32) & mask
        while keys[i] != _EMPTY:
            i = (i + 1) & mask
        keys[i] = key
        freqs[i] = freq
    return CompactFreq(keys, freqs, len(entries), total)


def build(lines: Any) -> CompactFreq:
    """The table for a jieba dictionary given as lines of bytes (``word freq [tag]``)."""
    table: dict[int, int] = {}
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
        table[stable_hash(word)] = freq
        total += freq
        for end in range(1, len(word)):
            prefix = stable_hash(word[:end])
            if prefix not in table:
                table[prefix] = 0
    out = _table(table, total)
    table.clear()
    return out


def _cache_path(source: Path) -> Path:
    stat = source.stat()
    tag = hashlib.blake2b(f"{source}|{stat.st_size}|{stat.st_mtime_ns}|{CACHE_VERSION}".encode(),
                          digest_size=6).hexdigest()
    return Path(tempfile.gettempdir()) / f"sonetto-jieba-freq-{tag}.bin"


def _save(table: CompactFreq, path: Path) -> None:
    header = (_MAGIC + len(table._keys).to_bytes(8, "little") + len(table).to_bytes(8, "little")
              + table.total.to_bytes(8, "little"))
    try:
        with atomic_file(path) as fh:
            fh.write(header)
            fh.write(table._keys.tobytes())
            fh.write(array("q", table._freqs).tobytes())
    except OSError:
        log.info("could not cache the compact dictionary at %s", path, exc_info=True)


def _load(path: Path) -> CompactFreq | None:
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if len(data) < 32 or data[:8] != _MAGIC:
        return None
    size = int.from_bytes(data[8:16], "little")
    count = int.from_bytes(data[16:24], "little")
    total = int.from_bytes(data[24:32], "little")
    if len(data) != 32 + 16 * size or not size or size & (size - 1) or count > size:
        return None
    keys, freqs = array("q"), array("q")
    keys.frombytes(data[32:32 + 8 * size])
    freqs.frombytes(data[32 + 8 * size:])
    if sys.byteorder != "little":
        keys.byteswap()
        freqs.byteswap()
    return CompactFreq(keys, array("l", freqs), count, total)


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
    (never loads jieba's own dict-of-strings table; the app imports jieba first: ``tokenize.import_jieba``)."""
    import jieba

    source = Path(jieba.__file__).with_name(jieba.DEFAULT_DICT_NAME)
    tokenizer = jieba.Tokenizer()
    table = load_for(source)
    tokenizer.FREQ = table
    tokenizer.total = table.total
    tokenizer.initialized = True
    return tokenizer
