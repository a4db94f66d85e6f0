"""Whether an embeddings model earns a place in the shortlist, counted on the person's own messages.

A second ranking may only add what the first misses: a weak model (an English-centred one reading
Chinese memories) put beside the words' ranking takes places from memories the words found, and
recall loses what it had (bench/recall_scale_e5.py: wordllama lowered reach on every Chinese set, by
up to 0.18). No gold is needed to tell a weak model from a good one: when the words are sure of a
memory (a high score on a specific question), a good model's nearest ten hold it too. That
*agreement* is counted on each message the person sends: multilingual-e5-small agrees 0.73-0.80 of
the time on our sets, wordllama 0.24-0.37. A model below ``AGREEMENT_MIN`` is left out of the
shortlist, so it costs nothing; it keeps being counted (its vectors are still searched), so a model
that agrees more later comes back.

The count starts from a prior worth ``PRIOR_WEIGHT`` messages at ``PRIOR``: a new model takes part
from the first message, and a weak one is out after two or three disagreements. Counts are kept per
model (its name and endpoint) in a small JSON file beside the store when one is given, so a model
that earned its place keeps it across restarts. Thread-safe; saving is best effort (a failed save
only loses counts).
"""

from __future__ import annotations

import json
import logging
import threading
from pathlib import Path
from typing import Any

from ..files import atomic_write

__all__ = ["AGREEMENT_MIN", "AGREEMENT_TOP", "ModelAgreement", "STRONG_WORDS", "model_key"]

log = logging.getLogger(__name__)

#: A model whose agreement is below this is left out of the shortlist (e5 0.73, wordllama 0.37 on our sets).
AGREEMENT_MIN = 0.5
#: The words are sure of their best memory when it scores at least this (one rare word matched
#: twice, or a name and a topic): only such messages are counted.
STRONG_WORDS = 2.5
#: The model agrees when that memory is among its nearest this many.
AGREEMENT_TOP = 10
#: What a model is assumed to be worth before any message was counted, and how many messages that counts for.
PRIOR, PRIOR_WEIGHT = 0.65, 4.0
#: Counts are written at most every this many new counts (and at ``save``).
SAVE_EVERY = 5
#: Only the most recent evidence matters: counts are scaled down past this many messages.
WINDOW = 200


def model_key(dense: Any) -> str:
    """A name for the model behind a dense ranking: ``model_key`` if it has one, else its config's
    model and endpoint, else its type."""
    key = getattr(dense, "model_key", None)
    if isinstance(key, str) and key:
        return key
    config = getattr(dense, "config", None)
    model = getattr(config, "model", None)
    if model:
        return f"{model}@{getattr(config, 'base_url', '')}"
    return type(dense).__qualname__


class ModelAgreement:
    """Per model: how often its nearest ten held the words' surest memory (see the module docstring)."""

    def __init__(self, path: Path | None = None) -> None:
        self._path = Path(path) if path is not None else None
        self._lock = threading.Lock()
        self._counts: dict[str, list[float]] = self._read()  # key -> [agreed, counted]
        self._unsaved = 0

    def _read(self) -> dict[str, list[float]]:
        if self._path is None or not self._path.exists():
            return {}
        try:
            raw = json.loads(self._path.read_text(encoding="utf-8"))
            return {str(k): [float(v[0]), float(v[1])] for k, v in raw.items()
                    if isinstance(v, list) and len(v) == 2 and 0 <= float(v[0]) <= float(v[1])}
        except (OSError, ValueError, TypeError, AttributeError, IndexError):
            log.warning("the embeddings models' agreement counts in %s could not be read; counting anew",
                        self._path, exc_info=True)
            return {}

    def rate(self, key: str) -> float:
        """The model's agreement so far, with the prior."""
        with self._lock:
            agreed, counted = self._counts.get(key, (0.0, 0.0))
        return (agreed + PRIOR * PRIOR_WEIGHT) / (counted + PRIOR_WEIGHT)

    def counted(self, key: str) -> int:
        with self._lock:
            return int(self._counts.get(key, (0.0, 0.0))[1])

    def trusted(self, key: str) -> bool:
        """The model takes part in the shortlist."""
        return self.rate(key) >= AGREEMENT_MIN

    def record(self, key: str, agreed: bool) -> None:
        """One counted message: did the model's nearest ten hold the words' surest memory?"""
        with self._lock:
            row = self._counts.setdefault(key, [0.0, 0.0])
            if row[1] >= WINDOW:
                row[0], row[1] = row[0] * (WINDOW - 1) / WINDOW, row[1] * (WINDOW - 1) / WINDOW
            row[0] += 1.0 if agreed else 0.0
            row[1] += 1.0
            self._unsaved += 1
            due = self._unsaved >= SAVE_EVERY
        if due:
            self.save()

    def save(self) -> None:
        """Write the counts (when a file was given). Never raises."""
        if self._path is None:
            return
        with self._lock:
            payload = json.dumps(self._counts, ensure_ascii=False, sort_keys=True).encode("utf-8")
            self._unsaved = 0
        try:
            atomic_write(self._path, payload)
        except OSError:
            log.warning("could not save the embeddings models' agreement counts to %s", self._path, exc_info=True)
