"""Per-memory columns of the offline recall index, numbered by the same slots as ``Postings``.

Columns are numpy arrays (theme number, last update, hit count, content fingerprint, alive),
plus the id and description of each slot; dates a memory mentions are rows of three parallel
arrays (slot, first day, last day). Date and "how have you been" queries filter and rank these
arrays directly: nothing is kept sorted, so a change costs O(1) and a query never re-sorts.
"""

from __future__ import annotations

import hashlib
from datetime import date, datetime
from typing import Iterable, Mapping

import numpy as np

from ..shared_text import share_all

NO_TIME = -1  # a memory without a parsable latest_update_time
DAY = 86_400


def seconds(moment: datetime | None) -> int:
    """Seconds since 0001-01-01 of a naive local time (``NO_TIME`` for None)."""
    if moment is None:
        return NO_TIME
    return moment.date().toordinal() * DAY + moment.hour * 3600 + moment.minute * 60 + moment.second


def fingerprint(description: str, theme: str) -> int:
    """What the words of a memory depend on: a change of either means re-tokenizing it."""
    payload = f"{theme}\x00{description}".encode("utf-8")
    return int.from_bytes(hashlib.blake2b(payload, digest_size=8).digest(), "little")


def _resize(array: np.ndarray, size: int, fill: int | bool = 0) -> np.ndarray:
    out = np.full(size, fill, dtype=array.dtype)
    n = min(len(array), size)
    out[:n] = array[:n]
    return out


class DocTable:
    """Slot -> memory columns. Not thread-safe on its own."""

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.texts: list[str] = []
        self.stamps: list[str] = []  # latest_update_time as the store wrote it
        self.slot_of: dict[str, int] = {}
        self.theme_names: list[str] = []
        self._theme_numbers: dict[str, int] = {}
        self.theme = np.zeros(0, dtype=np.int32)
        self.updated = np.zeros(0, dtype=np.int64)
        self.hit = np.zeros(0, dtype=np.int32)
        self.fp = np.zeros(0, dtype=np.uint64)
        self.alive = np.zeros(0, dtype=bool)
        self.span_slot = np.zeros(0, dtype=np.int64)
        self.span_start = np.zeros(0, dtype=np.int32)  # date ordinals, inclusive
        self.span_end = np.zeros(0, dtype=np.int32)
        self.n_spans = 0

    def __len__(self) -> int:
        return len(self.slot_of)

    @property
    def n_slots(self) -> int:
        return len(self.ids)

    def theme_number(self, name: str) -> int:
        number = self._theme_numbers.get(name)
        if number is None:
            number = self._theme_numbers[name] = len(self.theme_names)
            self.theme_names.append(name)
        return number

    def add(self, slot: int, mid: str, text: str, theme: str, updated: datetime | None, hit: int,
            spans: Iterable[tuple[date, date]], stamp: str = "", fp: int | None = None) -> None:
        assert slot == len(self.ids), "slots are added in order"
        if slot >= len(self.alive):
            size = max(2 * len(self.alive), 64, slot + 1)
            self.theme, self.updated = _resize(self.theme, size), _resize(self.updated, size, NO_TIME)
            self.hit, self.fp, self.alive = _resize(self.hit, size), _resize(self.fp, size), _resize(self.alive, size)
        self.ids.append(mid)
        self.texts.append(text)
        self.stamps.append(stamp)
        self.slot_of[mid] = slot
        self.theme[slot] = self.theme_number(theme)
        self.updated[slot] = seconds(updated)
        self.hit[slot] = hit
        self.fp[slot] = fingerprint(text, theme) if fp is None else fp
        self.alive[slot] = True
        for start, end in spans:
            if self.n_spans >= len(self.span_slot):
                size = max(2 * len(self.span_slot), 64)
                self.span_slot = _resize(self.span_slot, size)
                self.span_start, self.span_end = _resize(self.span_start, size), _resize(self.span_end, size)
            self.span_slot[self.n_spans] = slot
            self.span_start[self.n_spans], self.span_end[self.n_spans] = start.toordinal(), end.toordinal()
            self.n_spans += 1

    def kill(self, slot: int) -> None:
        mid = self.ids[slot]
        if self.slot_of.get(mid) == slot:
            del self.slot_of[mid]
        self.ids[slot] = self.texts[slot] = self.stamps[slot] = ""
        self.alive[slot] = False

    def touch(self, slot: int, hit: int, updated: datetime | None, stamp: str | None = None) -> None:
        self.hit[slot] = hit
        if stamp is not None:
            self.stamps[slot] = stamp
        self.updated[slot] = seconds(updated)

    def live(self) -> np.ndarray:
        return self.alive[: self.n_slots]

    def spans(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        n = self.n_spans
        return self.span_slot[:n], self.span_start[:n], self.span_end[:n]

    def theme_mask(self, names: Iterable[str]) -> np.ndarray:
        numbers = [self._theme_numbers[n] for n in names if n in self._theme_numbers]
        if not numbers:
            return np.zeros(self.n_slots, dtype=bool)
        themes = self.theme[: self.n_slots]
        mask = themes == numbers[0]  # one name, or a few: a comparison each (np.isin sorts them all)
        for number in numbers[1:]:
            mask |= themes == number
        return mask & self.live()

    def compact(self, mapping: np.ndarray) -> None:
        """Apply ``Postings.compact``'s old -> new slot map (drops dead slots)."""
        keep = mapping >= 0
        n = int(keep.sum())
        self.ids = [mid for mid, k in zip(self.ids, keep.tolist(), strict=True) if k]
        self.texts = [t for t, k in zip(self.texts, keep.tolist(), strict=True) if k]
        self.stamps = [t for t, k in zip(self.stamps, keep.tolist(), strict=True) if k]
        self.slot_of = {mid: i for i, mid in enumerate(self.ids)}
        for name in ("theme", "updated", "hit", "fp"):
            setattr(self, name, getattr(self, name)[: len(keep)][keep].copy())
        self.alive = np.ones(n, dtype=bool)
        slot, start, end = self.spans()
        new = mapping[slot] if len(slot) else slot
        good = new >= 0
        self.span_slot, self.span_start, self.span_end = new[good].copy(), start[good].copy(), end[good].copy()
        self.n_spans = len(self.span_slot)

    # ── persistence ──────────────────────────────────────────────────────

    def arrays(self) -> tuple[dict[str, np.ndarray], dict]:
        """(numeric columns, JSON-able strings) of a compacted table."""
        n = self.n_slots
        assert len(self) == n, "compact before saving"
        slot, start, end = self.spans()
        columns = {"theme": self.theme[:n], "updated": self.updated[:n], "hit": self.hit[:n], "fp": self.fp[:n],
                   "span_slot": slot, "span_start": start, "span_end": end}
        return columns, {"ids": self.ids, "texts": self.texts, "stamps": self.stamps, "themes": self.theme_names}

    @classmethod
    def from_arrays(cls, columns: Mapping[str, np.ndarray], strings: Mapping) -> "DocTable":
        t = cls()
        ids, texts, themes = list(strings["ids"]), list(strings["texts"]), list(strings["themes"])
        stamps = list(strings["stamps"])
        n = len(ids)
        t.theme = np.asarray(columns["theme"], np.int32).copy()
        t.updated = np.asarray(columns["updated"], np.int64).copy()
        t.hit = np.asarray(columns["hit"], np.int32).copy()
        t.fp = np.asarray(columns["fp"], np.uint64).copy()
        t.span_slot = np.asarray(columns["span_slot"], np.int64).copy()
        t.span_start = np.asarray(columns["span_start"], np.int32).copy()
        t.span_end = np.asarray(columns["span_end"], np.int32).copy()
        sizes = {len(texts), len(stamps), len(t.theme), len(t.updated), len(t.hit), len(t.fp)}
        spans_ok = len(t.span_slot) == len(t.span_start) == len(t.span_end)
        if sizes != {n} or not spans_ok or len(set(ids)) != n or not all(isinstance(s, str) for s in ids + texts + stamps):
            raise ValueError("inconsistent document columns")
        if n and (int(t.theme.min()) < 0 or int(t.theme.max()) >= len(themes)):
            raise ValueError("theme numbers out of range")
        if len(t.span_slot) and (int(t.span_slot.min()) < 0 or int(t.span_slot.max()) >= n):
            raise ValueError("date spans point outside the table")
        # the same objects as the store's reads (the wall's cards, the listing): pointers, not copies
        t.ids, t.texts, t.stamps = share_all(ids), share_all(texts), share_all(stamps)
        t.slot_of = {mid: i for i, mid in enumerate(ids)}
        t.theme_names = share_all([str(x) for x in themes])
        t._theme_numbers = {name: i for i, name in enumerate(t.theme_names)}
        t.alive = np.ones(n, dtype=bool)
        t.n_spans = len(t.span_slot)
        return t
