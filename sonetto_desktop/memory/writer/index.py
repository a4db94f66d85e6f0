"""WriterIndex: what the writer needs to know about the whole store without reading the whole store.

The writer's listing and tools must cost what they show, not what the store holds: a listing of 30
memories out of 100,000 reads 30. This index keeps, per memory, only a few small fields — last
update, theme, a hash of the normalised text, the due date of a dated to-do, the name a memory
states — with sorted views for "most recently updated", "due or expired" and "same text". It is
built once (one full read, on a worker thread, at the first use) and then follows the store's
change channel: a change only notes the ids it touched, and the next query re-reads just those
(from the change record's card state when it carries one). ``reload`` and bulk imports without
ids re-read everything.

Thread-safe: change callbacks run on whichever thread wrote; queries run on the writer's tool
threads. The subscription is released by :meth:`close` or when the index is garbage-collected.
"""

from __future__ import annotations

import bisect
import threading
import weakref
from collections import Counter
from datetime import date, datetime
from typing import Any, Iterable, Mapping

from ..stores.base import BaseMemoryManager
from .. import kinds
from ..changes import MemoryChange
from ..errors import MemoryNotFound
from ..item import parse_time
from ..retrieval.time_expressions import date_spans_in_text
from .names import leading_name, stated_name

TODO_THEME = "时效待办"
MOMENT_THEME = "瞬间"
FULL_RELOAD_AFTER = 512  # more ids noted than this between two queries: re-read everything
_GONE = object()


def text_key(text: str) -> str:
    """The text with spaces and a final full stop removed (what counts as "the same text")."""
    return "".join(str(text or "").split()).rstrip("。.")


def is_todo_theme(theme: str) -> bool:
    return TODO_THEME in (theme or "") or "待办" in (theme or "")


def due_date(description: str, theme: str, updated: str | None) -> date | None:
    """The last date a dated to-do names (its deadline or day), resolved against when it was
    written; ``None`` for other memories and for to-dos without a date."""
    if not is_todo_theme(theme):
        return None
    ref = parse_time(updated) or datetime.now()
    spans = date_spans_in_text(description, ref)
    return max((span.end for span in spans), default=None)


#: One memory in the index: a plain tuple ``(updated, theme, key, due, stated, leading, hit)`` of
#: strings, ints and None, read by the indices below. The collector stops tracking such a tuple the
#: first time it sees it, so 100,000 of them cost a full collection nothing (a dataclass instance,
#: slotted or not, is walked on every pass: issue 37's stalls while the wall fills).
_Entry = tuple[str, str, int, int | None, str | None, str | None, int]
_UPDATED, _THEME, _KEY, _DUE, _STATED, _LEADING, _HIT = range(7)


class WriterIndex:
    """See the module docstring."""

    def __init__(self, store: BaseMemoryManager) -> None:
        self._store = store
        self._lock = threading.RLock()
        self._pending_lock = threading.Lock()
        self._pending: dict[str, Any] = {}  # id -> card state, or None: re-read it
        self._hits: dict[str, int] = {}  # id -> new hit count (hits change nothing else)
        self._reload = True
        self._entries: dict[str, _Entry] = {}
        self._recent: list[tuple[str, str]] = []  # (updated, id), ascending
        self._due: list[tuple[int, str]] = []  # (due ordinal, id), ascending
        self._used: list[tuple[int, str, str]] = []  # (hit, updated, id), ascending
        self._keys: dict[int, str | set[str]] = {}  # text hash -> the id, or the ids when several
        self._leading: Counter[str] = Counter()
        self._stated: dict[str, tuple[str, str]] = {}
        self.full_reads = 0  # how many times the whole store was read (tests, benchmarks)
        ref = weakref.ref(self)

        def on_change(change: MemoryChange) -> None:
            index = ref()
            if index is not None:
                index._note(change)

        self._finalizer = weakref.finalize(self, store.subscribe(on_change))

    def close(self) -> None:
        """Stop following the store (idempotent)."""
        self._finalizer()

    # ── following the store ───────────────────────────────────────────

    def _note(self, change: MemoryChange) -> None:
        if change.kind == kinds.PURGE:
            return  # the trash is not indexed
        if change.kind == kinds.HIT:
            if len(change.ids) == 1 and "hit" in change.extra:
                with self._pending_lock:
                    self._hits[change.ids[0]] = int(change.extra["hit"])
            return
        with self._pending_lock:
            if change.kind == kinds.RELOAD or (change.kind == kinds.IMPORT and not change.ids):
                self._reload = True
                return
            for mid in change.ids:
                state = change.state(mid) if mid in change.states else None
                self._pending[mid] = _GONE if (mid in change.states and state is None) else state
            if len(self._pending) > FULL_RELOAD_AFTER:
                self._reload = True

    def invalidate(self) -> None:
        with self._pending_lock:
            self._reload = True

    def _refresh(self) -> None:
        with self._pending_lock:
            reload, pending, hits = self._reload, self._pending, self._hits
            self._reload, self._pending, self._hits = False, {}, {}
        try:
            if reload:
                self.full_reads += 1
                # the four columns, not every item with its history (100,000 memories: ~1 s less)
                items = self._store.fields_of_all(("description", "theme", "latest_update_time", "hit"))
                for gone in set(self._entries) - set(items):
                    self._drop(gone)
                for mid, fields in items.items():
                    self._put(mid, *fields)
                return
            for mid, state in pending.items():
                if state is _GONE:
                    self._drop(mid)
                    continue
                if state is None:
                    try:
                        item = self._store.get(mid)
                    except MemoryNotFound:
                        self._drop(mid)
                        continue
                    state = {"description": item.description, "theme": item.theme,
                             "latest_update_time": item.latest_update_time, "hit": item.hit}
                self._put(mid, state.get("description") or "", state.get("theme") or "",
                          state.get("latest_update_time"), state.get("hit"))
            for mid, hit in hits.items():
                entry = self._entries.get(mid)
                if entry is not None and mid not in pending:
                    _remove_sorted(self._used, (entry[_HIT], entry[_UPDATED], mid))
                    self._entries[mid] = entry = entry[:_HIT] + (hit,)
                    bisect.insort(self._used, (hit, entry[_UPDATED], mid))
        except BaseException:
            self.invalidate()
            raise

    def _put(self, mid: str, description: str, theme: str, updated: Any, hit: Any = 0) -> None:
        self._drop(mid)
        stamp = str(updated or "")
        due = due_date(description, theme, stamp)
        key, ordinal, hits = hash(text_key(description)), due.toordinal() if due else None, _count(hit)
        stated, leading = stated_name(description), leading_name(description)
        self._entries[mid] = (stamp, theme, key, ordinal, stated, leading, hits)
        bisect.insort(self._recent, (stamp, mid))
        bisect.insort(self._used, (hits, stamp, mid))
        if ordinal is not None:
            bisect.insort(self._due, (ordinal, mid))
        same = self._keys.get(key)
        if same is None:
            self._keys[key] = mid  # almost every text is unique: no set for it
        elif isinstance(same, set):
            same.add(mid)
        elif same != mid:
            self._keys[key] = {same, mid}
        if leading:
            self._leading[leading] += 1
        if stated:
            self._stated[mid] = (stamp, stated)

    def _drop(self, mid: str) -> None:
        entry = self._entries.pop(mid, None)
        if entry is None:
            return
        updated, _theme, key, due, _stated, leading, hit = entry
        _remove_sorted(self._recent, (updated, mid))
        _remove_sorted(self._used, (hit, updated, mid))
        if due is not None:
            _remove_sorted(self._due, (due, mid))
        same = self._keys.get(key)
        if same == mid:
            del self._keys[key]
        elif isinstance(same, set):
            same.discard(mid)
            if len(same) == 1:
                self._keys[key] = next(iter(same))
        if leading:
            self._leading[leading] -= 1
            if self._leading[leading] <= 0:
                del self._leading[leading]
        self._stated.pop(mid, None)

    def warm_up(self) -> None:
        """Build now (blocking: one full read of the store)."""
        with self._lock:
            self._refresh()

    # ── queries (each refreshes first; cost: what changed + what is returned) ──

    def count(self) -> int:
        with self._lock:
            self._refresh()
            return len(self._entries)

    def ids(self) -> list[str]:
        with self._lock:
            self._refresh()
            return list(self._entries)

    def recent(self, n: int) -> list[str]:
        """The ``n`` most recently updated memories, newest first."""
        with self._lock:
            self._refresh()
            return [mid for _, mid in reversed(self._recent[-n:])] if n > 0 else []

    def most_used(self, n: int) -> list[str]:
        """The ``n`` most referenced memories (most recently updated first among equals)."""
        with self._lock:
            self._refresh()
            return [mid for _, _, mid in reversed(self._used[-n:])] if n > 0 else []

    def updated_since(self, stamp: str, limit: int) -> list[str]:
        """Memories updated at or after ``stamp`` (ISO time), newest first, at most ``limit``."""
        with self._lock:
            self._refresh()
            start = bisect.bisect_left(self._recent, (stamp, ""))
            return [mid for _, mid in reversed(self._recent[start:])][:limit]

    def due(self, today: date, limit: int, *, include_today: bool = True) -> list[tuple[str, date]]:
        """Dated to-dos whose day is past (or today), most overdue first, at most ``limit``."""
        with self._lock:
            self._refresh()
            edge = today.toordinal() + (1 if include_today else 0)
            end = bisect.bisect_left(self._due, (edge, ""))
            return [(mid, date.fromordinal(day)) for day, mid in self._due[:end][:limit]]

    def due_count(self, today: date) -> int:
        with self._lock:
            self._refresh()
            return bisect.bisect_left(self._due, (today.toordinal(), ""))

    def is_todo(self, mid: str) -> bool:
        with self._lock:
            entry = self._entries.get(mid)
            return entry is not None and is_todo_theme(entry[_THEME])

    def due_of(self, mid: str) -> date | None:
        with self._lock:
            entry = self._entries.get(mid)
            return date.fromordinal(entry[_DUE]) if entry is not None and entry[_DUE] is not None else None

    def same_text(self, text: str) -> list[str]:
        """Memories whose text is ``text`` up to spaces and a final full stop (checked against the store)."""
        key = text_key(text)
        with self._lock:
            self._refresh()
            candidates = sorted(_members(self._keys.get(hash(key))))
        found = []
        for mid in candidates:
            try:
                if text_key(self._store.get(mid).description) == key:
                    found.append(mid)
            except MemoryNotFound:
                continue
        return found

    def exact_duplicate_groups(self, limit: int) -> list[list[str]]:
        """Groups of memories with the same text (candidates: confirm with :meth:`same_text`)."""
        with self._lock:
            self._refresh()
            groups = [sorted(ids) for ids in self._keys.values() if isinstance(ids, set) and len(ids) > 1]
        return sorted(groups)[:limit]

    def name_hints(self) -> tuple[list[tuple[str, str]], dict[str, int]]:
        """(updated, name) of memories stating the user's name; leading name -> count."""
        with self._lock:
            self._refresh()
            return list(self._stated.values()), dict(self._leading)


def _count(value: Any) -> int:
    try:
        return max(int(value or 0), 0)
    except (TypeError, ValueError, OverflowError):
        return 0


def _remove_sorted(rows: list, row: tuple) -> None:
    i = bisect.bisect_left(rows, row)
    if i < len(rows) and rows[i] == row:
        del rows[i]


def read_items(store: BaseMemoryManager, ids: Iterable[str]) -> Mapping[str, Any]:
    """``{id: item}`` for the ids that still exist (one point read each)."""
    out = {}
    for mid in dict.fromkeys(ids):
        try:
            out[mid] = store.get(mid)
        except MemoryNotFound:
            continue
    return out


def _members(same: str | set[str] | None) -> tuple[str, ...] | set[str]:
    """The ids under one text hash (see ``WriterIndex._keys``)."""
    if same is None:
        return ()
    return (same,) if isinstance(same, str) else same
