"""Point reads and writes of one PostgreSQL store transaction; a write's change record goes to the
store's change log (``log.PgChangeLog``) in the same transaction."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Any, Container, Iterable, Mapping

from ... import record
from ...changes import MemoryChange
from ...item import MemoryItem, parse_time
from ..columns import Columns, fill, read_columns
from ..transaction import Transaction
from ..validation import item_from_fields, sound_row, trash_entry_problem
from .log import PgChangeLog
from .problems import BadRecords
from .text import clean_item, no_nul

_dumps = partial(json.dumps, ensure_ascii=False, default=str)
COLUMNS = ", ".join(record.COLUMNS)  # what an item is read from
_WRITTEN = ", ".join(record.ROW_COLUMNS)  # what a write writes: the derived card values too
_PLACES = ", ".join(["%s"] * len(record.ROW_COLUMNS))
_UPDATE = ", ".join(f"{name} = EXCLUDED.{name}" for name in record.ROW_COLUMNS[1:])
#: The rows whose derived card values are not known (``record.DERIVED_COLUMNS``).
DERIVED_UNKNOWN = "(locked IS NULL OR last_actor IS NULL OR last_actor = '' OR author IS NULL OR author = '')"


@dataclass(frozen=True)
class Tables:
    """The qualified table names of one schema."""

    memories: str
    trash: str
    meta: str
    changes: str

    @classmethod
    def of(cls, schema: str) -> "Tables":
        return cls(*(f'"{schema}".{name}' for name in ("memories", "trash", "meta", "changes")))


def read_row(row: tuple, *, shared: bool = True) -> tuple[MemoryItem, list[str], list[str]]:
    """A ``memories`` row (``COLUMNS``) as an item, with what had to be repaired in it (see
    ``validation.item_from_fields``). ``shared``: its texts shared with the other readers' (``record.row_values``)."""
    return item_from_fields(*record.row_values(row, shared=shared))


def trash_row(memory_id: str, entry: dict[str, Any]) -> tuple:
    """``(id, entry, deleted_at, age in seconds)``. The server's deletion time is its own clock less
    the entry's age as the writing computer measured it on its own clock (zero for a deletion made
    now; an entry copied from a local store keeps the age it had there): the writer's clock may be
    off by any amount without making an entry older for anyone."""
    deleted = parse_time(entry.get("deleted_at"))
    age = (datetime.now(deleted.tzinfo) - deleted).total_seconds() if deleted is not None else 0.0
    return memory_id, _dumps(no_nul(entry)), entry.get("deleted_at"), max(age, 0.0)


def _parse_entry(text: Any) -> tuple[dict[str, Any] | None, str | None]:
    """A trash row's entry and None, or None and what makes it unusable."""
    try:
        entry = json.loads(text)
    except (TypeError, ValueError):
        return None, "not JSON"
    problem = trash_entry_problem(entry)
    return (entry, None) if problem is None else (None, problem)


def item_row(memory_id: str, item: MemoryItem) -> tuple:
    return record.item_row(memory_id, clean_item(item))  # (a NUL in a text: U+FFFD, see text.py)


class DeferredWrites:
    """A connection whose writes that return nothing wait (``queue``) and go to the server together,
    pipelined, with the next statement whose result is read, or with the COMMIT (``commit``): a write
    transaction's round trips are its reads', plus one (issue 37: with its new id checked at the start,
    ``store._transaction``, an add is the start's round trip and the commit's, as a raw INSERT and its
    COMMIT take). Every other use of the connection (``execute``, ``cursor``, any attribute) sends what
    waits first, so a read always sees the transaction's own writes (the store's reads on the writing
    thread use this connection too: ``PgConnection.locked``); an error of a write that waited is raised
    there, and the transaction is rolled back as it would have been at the write."""

    def __init__(self, conn: Any) -> None:
        self._conn = conn
        self._pending: list[tuple[str, Any]] = []

    def queue(self, query: str, params: Any = None) -> None:
        self._pending.append((query, params))

    def flush(self) -> None:
        pending, self._pending = self._pending, []
        if len(pending) == 1:
            self._conn.execute(*pending[0])
        elif pending:
            with self._conn.pipeline():
                for query, params in pending:
                    self._conn.execute(query, params)

    def commit(self) -> None:
        """What waits and the COMMIT, in one round trip."""
        pending, self._pending = self._pending, []
        with self._conn.pipeline():
            for query, params in pending:
                self._conn.execute(query, params)
            self._conn.execute("COMMIT")

    def execute(self, query: str, params: Any = None, **kwargs: Any) -> Any:
        self.flush()
        return self._conn.execute(query, params, **kwargs)

    def __getattr__(self, name: str) -> Any:
        self.flush()
        return getattr(self._conn, name)


#: The rows whose history may name a turn id (a superset: ``transaction.mentions`` checks exactly).
MENTIONING = "strpos(history::text, %s) > 0"


class PgTransaction(Transaction):
    """Reads and writes on ``conn``, inside a transaction that holds the store's advisory lock; on a
    :class:`DeferredWrites`, its writes wait to go with the next read or the commit."""

    def __init__(self, conn: Any, tables: Tables, log: PgChangeLog | None = None,
                 problems: BadRecords | None = None, *, candidates: Iterable[str] = (),
                 checked: Iterable[str] = (), taken: Iterable[str] = ()) -> None:
        self.conn = conn
        self.t = tables
        self.log = log
        self.problems = problems
        # the id generator's first ids (``candidates``), those of them looked up with the transaction's
        # start (``checked``) and which of those a memory or a trash entry has (``taken``): fresh_id
        self._candidates = list(candidates)
        self._checked, self._taken = set(checked), set(taken)
        #: The memories this transaction's change records name (None: a change names none, e.g. a reload).
        self.changed: set[str] | None = set()

    def _item(self, row: tuple, *, shared: bool = True) -> MemoryItem:
        item, issues, repaired = read_row(row, shared=shared)
        if (issues or repaired) and self.problems is not None:
            self.problems.note("memory", row[0], f"memory {row[0]} read with repairs: "
                                                 + "; ".join(m.split(": ", 1)[-1] for m in issues + repaired))
        return item

    def _entry(self, memory_id: str, text: Any) -> dict[str, Any] | None:
        """A trash row's entry, or None (noted) when it cannot be used."""
        entry, problem = _parse_entry(text)
        if problem is not None and self.problems is not None:
            self.problems.note("trash", memory_id, f"trash entry {memory_id} skipped: {problem}")
        return entry

    def record(self, change: MemoryChange) -> None:
        """The change log row and its NOTIFY; both take effect at commit."""
        if self.log is None:
            raise RuntimeError("a read-only transaction records no change")
        self.log.append(self.write_statement, change)
        if self.changed is not None:
            self.changed = self.changed | set(change.ids) if change.ids else None

    def get(self, memory_id: str) -> MemoryItem | None:
        row = self.conn.execute(f"SELECT {COLUMNS} FROM {self.t.memories} WHERE id = %s", (memory_id,)).fetchone()
        return self._item(row, shared=False) if row else None  # a point read: not shared (see the SQLite store's)

    def exists(self, memory_id: str) -> bool:
        return self.conn.execute(f"SELECT 1 FROM {self.t.memories} WHERE id = %s", (memory_id,)).fetchone() is not None

    def fresh_id(self, planned: Container[str] = ()) -> str | None:
        """The next of the generator's first ids that no memory, trash entry or ``planned`` id has, in
        the generator's order (one not looked up with the start is looked up now); None when none is left."""
        while self._candidates:
            memory_id = self._candidates.pop(0)
            taken = memory_id in self._taken if memory_id in self._checked else bool(self.taken_ids((memory_id,)))
            if not taken and memory_id not in planned:
                return memory_id
        return None

    def write_statement(self, query: str, params: Any) -> None:
        """A statement whose result is not read: waits for the next read or the commit when deferring."""
        (self.conn.queue if isinstance(self.conn, DeferredWrites) else self.conn.execute)(query, params)

    def put(self, memory_id: str, item: MemoryItem) -> None:
        self.write_statement(
            f"INSERT INTO {self.t.memories} ({_WRITTEN}) VALUES ({_PLACES}) ON CONFLICT (id) DO UPDATE SET {_UPDATE}",
            item_row(memory_id, item))

    def remove(self, memory_id: str) -> None:
        self.write_statement(f"DELETE FROM {self.t.memories} WHERE id = %s", (memory_id,))

    def ids(self) -> Iterable[str]:
        return [r[0] for r in self.conn.execute(f"SELECT id FROM {self.t.memories}")]

    def ids_mentioning(self, text: str) -> Iterable[str]:
        return [r[0] for r in self.conn.execute(
            f"SELECT id FROM {self.t.memories} WHERE {MENTIONING}", (text,))]

    def items_mentioning(self, text: str) -> dict[str, MemoryItem]:
        """The memories ``ids_mentioning`` names (one round trip; not shared, as a point read)."""
        return {row[0]: self._item(row, shared=False) for row in self.conn.execute(
            f"SELECT {COLUMNS} FROM {self.t.memories} WHERE {MENTIONING}", (text,))}

    def trash_get(self, memory_id: str) -> dict[str, Any] | None:
        row = self.conn.execute(f"SELECT entry FROM {self.t.trash} WHERE id = %s", (memory_id,)).fetchone()
        return self._entry(memory_id, row[0]) if row else None

    def _trash_upsert(self) -> str:
        return (f"INSERT INTO {self.t.trash} (id, entry, deleted_at, deleted_server)"
                " VALUES (%s, %s, %s, now() - make_interval(secs => %s))"
                " ON CONFLICT (id) DO UPDATE SET entry = EXCLUDED.entry, deleted_at = EXCLUDED.deleted_at,"
                " deleted_server = EXCLUDED.deleted_server")

    def trash_put(self, memory_id: str, entry: dict[str, Any]) -> None:
        self.write_statement(self._trash_upsert(), trash_row(memory_id, entry))

    def expire_trash(self, max_age_days: float, now: datetime | None = None) -> list[str]:
        """By the server's clock (``now``, a computer's, is not used: one whose clock runs fast must
        not empty everyone's trash)."""
        rows = self.conn.execute(
            f"DELETE FROM {self.t.trash} WHERE deleted_server < now() - make_interval(secs => %s) RETURNING id",
            (float(max_age_days) * 86400,)).fetchall()
        return [row[0] for row in rows]

    def trash_remove(self, memory_id: str) -> None:
        self.write_statement(f"DELETE FROM {self.t.trash} WHERE id = %s", (memory_id,))

    def trash_ids(self) -> Iterable[str]:
        return [r[0] for r in self.conn.execute(f"SELECT id FROM {self.t.trash}")]

    # ── bulk work: one round trip each, whatever the size ─────────────

    def content_keys(self) -> set[tuple[Any, Any]]:
        return set(self.conn.execute(f"SELECT description, theme FROM {self.t.memories}"))

    def taken_ids(self, ids: Iterable[str]) -> set[str]:
        wanted = list(ids)
        if not wanted:
            return set()
        rows = self.conn.execute(f"SELECT id FROM {self.t.memories} WHERE id = ANY(%s)"
                                 f" UNION SELECT id FROM {self.t.trash} WHERE id = ANY(%s)", (wanted, wanted))
        return {row[0] for row in rows}

    def put_new(self, items: Mapping[str, MemoryItem]) -> None:
        """``COPY`` straight into the table (ids checked free by the caller: a taken one fails the
        whole write, nothing half done)."""
        if not items:
            return
        with self.conn.cursor() as cur, cur.copy(f"COPY {self.t.memories} ({_WRITTEN}) FROM STDIN") as copy:
            for memory_id, item in items.items():
                copy.write_row(item_row(memory_id, item))

    def trash_put_many(self, entries: Mapping[str, dict[str, Any]]) -> None:
        if not entries:
            return
        with self.conn.cursor() as cur:  # pipelined: one round trip for all
            cur.executemany(self._trash_upsert(), [trash_row(mid, entry) for mid, entry in entries.items()])

    # ── bulk (the seed's primitives, for migration and self-check) ──────

    def load_all(self) -> dict[str, MemoryItem]:
        return {row[0]: self._item(row) for row in self.conn.execute(f"SELECT {COLUMNS} FROM {self.t.memories}")}

    def load_some(self, ids: list[str]) -> tuple[dict[str, MemoryItem], dict[str, dict[str, Any]]]:
        """The memories and trash entries of ``ids`` (two round trips, whatever the count)."""
        items = {row[0]: self._item(row) for row in self.conn.execute(
            f"SELECT {COLUMNS} FROM {self.t.memories} WHERE id = ANY(%s)", (ids,))}
        rows = self.conn.execute(f"SELECT id, entry FROM {self.t.trash} WHERE id = ANY(%s)", (ids,))
        trash = {mid: entry for mid, entry in ((mid, self._entry(mid, text)) for mid, text in rows) if entry is not None}
        return items, trash

    def light(self, names: tuple[str, ...]) -> Columns:
        """``columns.read_columns`` of every row's ``names`` (their columns only), the rows it leaves
        to a whole read filled in as a read gives them (one more round trip, when there are any)."""
        rows = self.conn.execute(f"SELECT id, {', '.join(names)} FROM {self.t.memories}").fetchall()
        columns, others = read_columns(rows, names)
        items = self.load_some([columns[0][i] for i in others])[0] if others else {}
        return fill(columns, others, {mid: tuple(getattr(item, name) for name in names) for mid, item in items.items()})

    def fill_derived(self) -> int:
        """Write the derived card values of the rows that do not have them (a store made by an older
        release, rows an older release wrote since), as a read of each gives them: one statement
        (arrays of ids and values), whatever the count. Not a change of any memory: no change record.
        Returns how many rows."""
        rows = self.conn.execute(f"SELECT {COLUMNS} FROM {self.t.memories} WHERE {DERIVED_UNKNOWN}").fetchall()
        if not rows:
            return 0
        items = [(row[0], self._item(row)) for row in rows]
        names = tuple(record.DERIVED_COLUMNS)
        arrays = ", ".join(f"%s::{kind}[]" for kind in ("TEXT", *record.DERIVED_COLUMNS.values()))
        self.conn.execute(
            f"UPDATE {self.t.memories} AS m SET {', '.join(f'{name} = v.{name}' for name in names)}"
            f" FROM unnest({arrays}) AS v (id, {', '.join(names)}) WHERE m.id = v.id",
            ([mid for mid, _ in items], *([getattr(item, name) for _, item in items] for name in names)))
        return len(items)

    def load_checked(self) -> tuple[int, list[tuple[str, MemoryItem, list[str], list[str]]]]:
        """How many memories there are, and those with something to say, with what had to be repaired
        in them: ``(id, item, issues, repaired)``. A row ``validation.sound_row`` passes is one the full
        way (reading it, then ``validate_item``) finds nothing in: no item is built for it."""
        rows = self.conn.execute(f"SELECT {COLUMNS} FROM {self.t.memories}").fetchall()
        sound = sound_row(record.COLUMNS)
        return len(rows), [(row[0], *read_row(row)) for row in rows if not sound(row)]

    def bad_trash(self) -> dict[str, str]:
        """The trash rows that cannot be used: id -> why."""
        found = {mid: _parse_entry(text)[1] for mid, text in self.conn.execute(f"SELECT id, entry FROM {self.t.trash}")}
        return {mid: why for mid, why in found.items() if why is not None}

    def load_trash(self) -> dict[str, dict[str, Any]]:
        rows = self.conn.execute(f"SELECT id, entry FROM {self.t.trash}")
        return {mid: entry for mid, entry in ((mid, self._entry(mid, text)) for mid, text in rows) if entry is not None}

    def save_all(self, items: dict[str, MemoryItem]) -> None:
        self.conn.execute(f"DELETE FROM {self.t.memories}")
        self.put_new(items)

    def save_trash(self, trash: dict[str, dict[str, Any]]) -> None:
        self.conn.execute(f"DELETE FROM {self.t.trash}")
        self.trash_put_many(trash)
