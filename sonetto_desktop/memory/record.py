"""A memory's fields, described once.

Everything that stores, copies or shows a memory derives from :data:`FIELDS`:

- :class:`~.item.MemoryItem`: its attributes, ``to_dict`` / ``from_dict``, equality;
- the SQLite and PostgreSQL tables: their columns (created, and added to an older table when
  missing), the row of an item and the item of a row (:func:`item_row`, :func:`row_item`);
- the card state every change record carries (:func:`card_state`), which the wall's cards read;
- merges (:attr:`Field.merge`), ``set_field`` (who may change a field: :attr:`Field.set_by`);
- the store contract tests (each field round-trips its :attr:`Field.sample` through every backend).

Keys of a stored memory that are not fields here (a person's ``note:``, another tool's keys) are
kept as the item's ``extra`` mapping through every backend's round trip (YAML, SQLite, PostgreSQL,
export and import): the file formats keep them as keys of the entry, the tables in one ``extra``
column holding JSON.

Adding a field is one :class:`Field` appended to :data:`FIELDS` (an ``optional`` one is left out of
an entry while it has its default, so files stay in the seed's five-key format); tables gain the
column when a store opens. What it means — how the wall shows it, which writer rule applies — is
the field's UI and its rule, nothing else.

The value readers used by the fields (times, hit counts, text) live here too.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from datetime import date, datetime, time
from typing import Any, Callable, Iterable, Mapping, Sequence

from . import kinds
from .changes import PERSON_ACTORS
from .shared_text import share

# ── values ────────────────────────────────────────────────────────────

#: Largest hit count stored: a counter that every store, the recall index (int32) and PostgreSQL's
#: ``INTEGER`` column hold. Larger or non-finite values are read as this, negative ones as 0.
MAX_HIT = 2**31 - 1


def now_iso() -> str:
    """Current local time as ISO 8601 with seconds (the format we write)."""
    return datetime.now().replace(microsecond=0).isoformat()


def parse_time(value: Any) -> datetime | None:
    """Parse a stored time: ISO 8601 with ``T`` or a space, or a datetime, or a date (YAML reads an
    unquoted ``2024-05-01`` as one: its midnight). ``None`` if unparseable."""
    if isinstance(value, datetime):
        return value
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day)
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip().replace("/", "-")
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        pass
    for fmt in ("%Y-%m-%d %H:%M:%S.%f", "%Y-%m-%d %H:%M", "%Y-%m-%d"):
        try:
            return datetime.strptime(text, fmt)
        except ValueError:
            continue
    return None


def normalize_time(value: Any) -> str | None:
    """Normalise a stored time to our ISO format; unparseable text is returned unchanged."""
    parsed = parse_time(value)
    if parsed is None:
        return value if isinstance(value, str) and value.strip() else None
    return parsed.replace(microsecond=0).isoformat()


def clamp_hit(value: Any) -> int:
    """A usable hit count: an int in 0..MAX_HIT (non-numbers, NaN and negatives become 0)."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, float):
        if value != value:  # NaN
            return 0
        if value in (float("inf"), float("-inf")):
            return MAX_HIT if value > 0 else 0
    try:
        number = int(value)
    except (TypeError, ValueError, OverflowError):
        return 0
    return min(max(number, 0), MAX_HIT)


_SCALARS = (str, int, float, bool, type(None))


def plain(value: Any) -> Any:
    """A stored value as JSON can hold it: dates (YAML parses unquoted timestamps) become ISO
    strings, keys become strings, tuples and sets lists. A value that needs nothing is returned as
    it is (the same object: callers tell "changed" by identity)."""
    kind = type(value)
    if kind in _SCALARS:
        return value
    if isinstance(value, (datetime, date, time)):
        return value.isoformat()
    if isinstance(value, dict):
        items = [(k, plain(v)) for k, v in value.items()]
        if all(type(k) is str and v is value[k] for k, v in items):
            return value
        return {str(k): v for k, v in items}
    if isinstance(value, list):
        converted = [plain(v) for v in value]
        return value if all(a is b for a, b in zip(converted, value, strict=True)) else converted
    if isinstance(value, (tuple, set, frozenset)):
        return [plain(v) for v in value]
    return value


def as_text(value: Any) -> str:
    """A stored value that should have been text, as text (nothing of it dropped)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (datetime, date, time)):
        return value.isoformat()
    if isinstance(value, (list, tuple)) and all(isinstance(v, (str, int, float)) for v in value):
        return "；".join(as_text(v) for v in value)
    if isinstance(value, (list, tuple, dict)):
        return json.dumps(plain(value), ensure_ascii=False, default=str)
    return str(value)


_TRUE = frozenset({"true", "yes", "on", "1", "y"})


def as_flag(value: Any) -> bool:
    """A stored yes/no value (``true``, ``yes``, ``1`` … or a bool) as a bool; anything else False."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return value == 1
    if isinstance(value, str):
        return value.strip().lower() in _TRUE
    return False


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _json_column(text: Any) -> Any:
    """A JSON text column's value (text that is not JSON as it is: the reader's validation says so)."""
    if not isinstance(text, (str, bytes)):
        return text
    try:
        return json.loads(text) if text else None
    except ValueError:
        return text


def _text_column(value: Any) -> str:
    return value if isinstance(value, str) else as_text(value)


def _same(value: Any) -> Any:
    return value


# ── the schema ────────────────────────────────────────────────────────


@dataclass(frozen=True)
class Field:
    """One field of a memory.

    ``column``: its SQL type and constraints (the same text for SQLite and PostgreSQL).
    ``default``: its value when an entry has none. ``read``: a stored value (a file's, an import's)
    as an item holds it. ``to_column`` / ``from_column``: the value in a table row.
    ``card``: carried in the card state of change records (views show it). ``optional``: left out
    of an entry while it has its default. ``set_by``: the actors that may change it with
    ``set_field`` (empty: only the store's own operations change it). ``merge``: its value when two
    memories merge (``merge(kept, absorbed)``; ``None``: the kept memory's). ``sample``: a value
    other than the default, for the contract tests. ``seed``: one of the seed's five keys.
    ``flag``: a true/false field whose changes are history entries of these actions (on, off): the
    history shows them and an undo of their action sets the field back (``undo.py``).
    """

    name: str
    column: str
    default: Callable[[], Any] = lambda: None
    read: Callable[[Any], Any] = _same
    to_column: Callable[[Any], Any] = _same
    from_column: Callable[[Any], Any] = _same
    copy: Callable[[Any], Any] = _same
    card: bool = False
    optional: bool = False
    set_by: frozenset[str] = frozenset()
    merge: Callable[[Any, Any], Any] | None = None
    sample: Any = None
    seed: bool = False
    flag: tuple[str, str] | None = None

    def stored(self, value: Any) -> bool:
        """Whether an entry carries this value (an optional field at its default is left out)."""
        return not (self.optional and value == self.default())


FIELDS: tuple[Field, ...] = (
    Field("description", "TEXT NOT NULL", to_column=_text_column, card=True, seed=True, sample="样例描述"),
    Field("theme", "TEXT NOT NULL", to_column=_text_column, card=True, seed=True, sample="样例主题"),
    Field("history", "TEXT NOT NULL DEFAULT '[]'", default=list, to_column=_dumps,
          from_column=_json_column, copy=copy.deepcopy, seed=True,
          sample=[{"time": "2026-01-02T03:04:05", "action": kinds.CREATE, "actor": "user", "reason": "样例"}]),
    Field("latest_update_time", "TEXT NOT NULL", default=now_iso, read=normalize_time, card=True, seed=True,
          sample="2026-01-02T03:04:05"),
    Field("hit", "INTEGER NOT NULL DEFAULT 0", default=int, read=clamp_hit, to_column=clamp_hit, card=True,
          seed=True, sample=7),
    # The person pins a memory: pinned cards come first in their theme. Only the person pins and
    # unpins (each a history entry, undone with its action); a merge keeps a pin of either memory.
    Field("pinned", "BOOLEAN NOT NULL DEFAULT FALSE", default=bool, read=as_flag, to_column=bool,
          from_column=as_flag, card=True, optional=True, set_by=PERSON_ACTORS, flag=kinds.PINNING,
          merge=lambda kept, absorbed: bool(kept or absorbed), sample=True),
)

BY_NAME: dict[str, Field] = {f.name: f for f in FIELDS}
NAMES: tuple[str, ...] = tuple(BY_NAME)
#: The fields after the seed's five (``MemoryItem`` takes them as keyword arguments).
ADDED: tuple[Field, ...] = tuple(f for f in FIELDS if not f.seed)
#: What a view shows of a memory besides its fields: derived from its history (``author``: whose memory
#: it is, ``MemoryItem.author``; ``last_actor``: who changed it last).
DERIVED_CARD = ("locked", "last_actor", "author")
#: What a card shows of a memory (:func:`card_state`'s keys): the card fields, then the derived values.
CARD: tuple[str, ...] = (*(f.name for f in FIELDS if f.card), *DERIVED_CARD)

#: The table column holding a memory's other keys (JSON text).
EXTRA_COLUMN = "extra"
#: The columns a memory is read from (an item is built from these).
COLUMNS: tuple[str, ...] = ("id", *NAMES, EXTRA_COLUMN)
#: The tables also keep :data:`DERIVED_CARD` as columns, written with every row (:func:`item_row`), so
#: the wall reads what its cards show without parsing 100,000 histories (issue 37). They are a copy
#: of what the history says, never the truth: NULL means "not known" — a row written by a program
#: that does not keep them (an older release, a hand edit: the tables' triggers clear them when
#: another writer changes a history) — and a reader derives that row's values from its history;
#: the store's self-check fills them in again.
DERIVED_COLUMNS: dict[str, str] = {"locked": "BOOLEAN", "last_actor": "TEXT", "author": "TEXT"}
#: The columns a write writes: :data:`COLUMNS`, then the derived ones.
ROW_COLUMNS: tuple[str, ...] = (*COLUMNS, *DERIVED_CARD)


def field(name: str) -> Field:
    """The field called ``name`` (``KeyError`` naming the known fields otherwise)."""
    try:
        return BY_NAME[name]
    except KeyError:
        raise KeyError(f"a memory has no field {name!r} (fields: {', '.join(NAMES)})") from None


def card_state(item: Any) -> dict[str, Any]:
    """What a view shows of a memory (carried in change records and the grouped listing)."""
    return {name: getattr(item, name) for name in CARD}


def derived_sound(name: str, value: Any) -> bool:
    """Whether a table's derived column ``name`` holds ``value`` as a write keeps it (NULL, or anything
    else a write never leaves there, reads as not known)."""
    if name == "locked":
        return type(value) is bool or (type(value) is int and value in (0, 1))
    return type(value) is str and bool(value)


def split_extra(data: Mapping[str, Any]) -> dict[str, Any]:
    """The keys of a stored entry that are not fields, as JSON holds them (order kept)."""
    if data.keys() <= BY_NAME.keys():
        return {}
    return {str(k): plain(v) for k, v in data.items() if k not in BY_NAME}


# ── tables ────────────────────────────────────────────────────────────


def column_definitions() -> list[str]:
    """``name TYPE …`` of every column of the ``memories`` table, ``id`` first."""
    return ["id TEXT PRIMARY KEY", *(f"{f.name} {f.column}" for f in FIELDS),
            f"{EXTRA_COLUMN} TEXT NOT NULL DEFAULT '{{}}'",
            *(f"{name} {kind}" for name, kind in DERIVED_COLUMNS.items())]


def missing_columns(present: Iterable[str]) -> list[str]:
    """``ADD COLUMN`` clauses for the columns an older table lacks (each has a default: NULL for the
    derived ones, which a reader then derives)."""
    have = {name.lower() for name in present}
    added = [f"{f.name} {f.column}" for f in FIELDS if f.name not in have]
    if EXTRA_COLUMN not in have:
        added.append(f"{EXTRA_COLUMN} TEXT NOT NULL DEFAULT '{{}}'")
    added += [f"{name} {kind}" for name, kind in DERIVED_COLUMNS.items() if name not in have]
    return added


def item_row(memory_id: str, item: Any) -> tuple:
    """The row of ``item`` in :data:`ROW_COLUMNS` order (its derived values too)."""
    return (memory_id, *(f.to_column(getattr(item, f.name)) for f in FIELDS), _dumps(item.extra),
            *(getattr(item, name) for name in DERIVED_CARD))


def row_values(row: Sequence[Any], columns: Sequence[str] = COLUMNS, *,
               shared: bool = True, extra: bool = True) -> tuple[str, dict[str, Any]]:
    """``(id, {key: value})`` of a table row whose columns are ``columns``, as an entry holds them. The
    id and the text fields are shared (``shared_text.share``): every reader of the store (the wall, the
    recall listing and index, the writer's index) holds one object per text, not one copy each.
    ``shared=False``: for a reader that keeps nothing (a point read, the self-check), which need not pay
    for it; ``extra=False``: the fields only, without the other keys (the self-check's look at each row)."""
    values = dict(zip(columns, row, strict=True))
    data = {f.name: f.from_column(values[f.name]) for f in FIELDS if f.name in values}
    if shared:
        for name in _SHARED:
            if name in data:
                data[name] = share(data[name])
    raw_extra = values.get(EXTRA_COLUMN) if extra else None
    if raw_extra:
        try:
            others = json.loads(raw_extra)
        except (TypeError, ValueError):
            others = {"extra": raw_extra}
        if isinstance(others, dict):
            data.update((k, v) for k, v in others.items() if k not in BY_NAME)
    mid = str(values["id"])
    return (share(mid) if shared else mid), data


#: The fields of a row :func:`row_values` shares (the id too): text that several readers keep.
_SHARED = tuple(f.name for f in FIELDS if f.name in ("description", "theme", "latest_update_time"))

__all__ = [
    "ADDED", "BY_NAME", "CARD", "COLUMNS", "DERIVED_CARD", "DERIVED_COLUMNS", "EXTRA_COLUMN", "FIELDS", "Field",
    "MAX_HIT", "NAMES", "ROW_COLUMNS", "as_flag", "as_text", "card_state", "clamp_hit", "column_definitions",
    "derived_sound", "field", "item_row",
    "missing_columns", "normalize_time", "now_iso", "parse_time", "plain", "row_values", "split_extra",
]
