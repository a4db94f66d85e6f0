"""Light reads of a table store: a few columns of every row, as ``get`` would give them (``fields_of_all``).

The SQLite and PostgreSQL stores hand :func:`read_columns` the rows of ``SELECT id, <names>`` and it
gives each sound row's values as an item read gives them (``Field.from_column``; the texts shared,
``shared_text.share``). A row whose values a read would repair (a damaged row, written by another
program) and a row whose derived card values (``record.DERIVED_COLUMNS``) are not known are left to
the caller, which reads them whole: what a light read gives is what a full read gives, row for row.

It works a column at a time (one pass of a comprehension per column, ``map`` where it can): at
100,000 memories the wall's read of its eight card values is a few hundred milliseconds of Python,
not the seconds of building every item and parsing its history (issue 37).
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any, Callable, Iterable, Mapping, Sequence

from ..record import BY_NAME, DERIVED_CARD, MAX_HIT, Field, derived_sound
from ..shared_text import share_all

__all__ = ["LIGHT", "Columns", "fill", "items_columns", "read_columns"]


Column = Callable[[list[Any]], tuple[list[Any], list[int]]]
"""A column's reader: its values as an item holds them, and the indices of the rows not read as they are."""


def _text(kind: str) -> Column:
    """A text column: ``any`` text (a description), ``nonempty`` (a time, an actor) or ``nonblank`` (a theme)."""
    def read(raw: list[Any]) -> tuple[list[Any], list[int]]:
        if kind == "any":
            bad = [i for i, v in enumerate(raw) if type(v) is not str]
        elif kind == "nonempty":
            bad = [i for i, v in enumerate(raw) if type(v) is not str or not v]
        else:
            bad = [i for i, v in enumerate(raw) if type(v) is not str or not v.strip()]
        return share_all(raw), bad
    return read


def _hit(raw: list[Any]) -> tuple[list[Any], list[int]]:
    return raw, [i for i, v in enumerate(raw) if type(v) is not int or not 0 <= v <= MAX_HIT]


def _locked(raw: list[Any]) -> tuple[list[Any], list[int]]:
    """Only a write's own 0/1 (or a boolean) is known; NULL is not."""
    return [v == 1 for v in raw], [i for i, v in enumerate(raw) if not derived_sound("locked", v)]


def _field(spec: Field) -> Column:
    """Any other field: ``from_column``, then sound when a read would give the value as it is."""
    def read(raw: list[Any]) -> tuple[list[Any], list[int]]:
        values = [spec.from_column(v) for v in raw]
        bad = []
        for i, v in enumerate(values):
            if v is not None:
                read = spec.read(v)
                if type(read) is not type(v) or read != v:
                    bad.append(i)
        return values, bad
    return read


_READERS: dict[str, Column] = {
    "description": _text("any"), "theme": _text("nonblank"), "latest_update_time": _text("nonempty"), "hit": _hit,
    "locked": _locked, "last_actor": _text("nonempty"), "author": _text("nonempty"),
}
#: Names ``read_columns`` reads from their columns: the fields (not ``history``) and the derived values.
LIGHT: frozenset[str] = frozenset({*(name for name in BY_NAME if name != "history"), *DERIVED_CARD})


#: What a light read gives: the ids in the table's order, and a list of values per name (same order).
Columns = tuple[list[str], list[list[Any]]]


def read_columns(rows: Sequence[Sequence[Any]], names: Iterable[str]) -> tuple[Columns, list[int]]:
    """``rows``: ``(id, *names)`` as a table gives them. Returns ``((ids, columns), others)``: the values of
    ``names`` of every row, and the positions of the rows to read whole instead (see the module
    docstring), whose values the caller puts in their place (:func:`fill`)."""
    names = tuple(names)
    ids = share_all([v if type(v) is str else str(v) for v in map(itemgetter(0), rows)])
    bad: set[int] = set()
    values: list[list[Any]] = []
    for at, name in enumerate(names, 1):
        reader = _READERS.get(name) or _field(BY_NAME[name])
        column, unsound = reader(list(map(itemgetter(at), rows)))  # (zip(*rows): an iterator per row)
        values.append(column)
        bad.update(unsound)
    return (ids, values), sorted(bad)


def fill(columns: Columns, others: list[int], whole: Mapping[str, Sequence[Any]]) -> Columns:
    """``columns`` with the rows at ``others`` given their values read whole (``whole``: id -> the values of
    the names); a row that is not in ``whole`` (deleted before it was read) is left out."""
    ids, values = columns
    gone = []
    for i in others:
        row = whole.get(ids[i])
        if row is None:
            gone.append(i)
            continue
        for column, value in zip(values, row, strict=True):
            column[i] = value
    for i in reversed(gone):
        del ids[i]
        for column in values:
            del column[i]
    return ids, values


def items_columns(items: Mapping[str, Any], names: Sequence[str]) -> Columns:
    """The columns of ``names`` of items (id -> ``MemoryItem``), as ``get`` gives them."""
    ids = list(items)
    return ids, [[getattr(items[mid], name) for mid in ids] for name in names]
