"""One ``str`` object per distinct text across every reader of the store (issue 37).

Every full read of a SQLite or PostgreSQL store makes a new ``str`` for each cell, and at 100,000
memories four parts of the app each hold one full read (the wall's cards, the recall listing, the
offline index, the writer's index): four copies of each id, description, theme and update time,
~60 MB of duplicates. :func:`share` hands back the one object already held for an equal text
(``sys.intern``), so each part keeps a pointer instead of a copy; the texts are freed as before
when the last part lets go of them. A point read (``get``) is not shared: most are dropped at once,
and each text interned and freed again is churn in the interpreter's intern table: every so often
it is rebuilt at the size of what it holds then, and keeps that size (1,000-turn imports: 1.9 ->
3.8 MB after the fourth or fifth).

That holds only where interned strings are mortal (CPython 3.11, and 3.12.6+/3.13+ again: 3.12.0-3.12.5
made every interned string immortal, which would keep each edited or deleted memory's text for the
life of the process). :data:`SHARING` is found out once, by interning a fresh string and looking at
its reference count; where interned strings would be immortal, :func:`share` returns its argument
as it is (copies, as before; nothing kept).
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["SHARING", "share", "share_all"]


def _interned_strings_are_mortal() -> bool:
    probe = sys.intern("".join(("sonetto-shared-text-probe-", str(id(object())))))
    return sys.getrefcount(probe) < 1_000_000  # an immortal object's count is ~2**32


SHARING: bool = _interned_strings_are_mortal()


def share(value: Any) -> Any:
    """The one object held for a text equal to ``value`` (``value`` itself when it is the first, or
    not exactly a ``str``: a subclass or another type is returned unchanged)."""
    if SHARING and type(value) is str:
        return sys.intern(value)
    return value


def share_all(values: list[Any]) -> list[Any]:
    """:func:`share` of each value of a list (a new list)."""
    if not SHARING:
        return list(values)
    intern = sys.intern
    return [intern(v) if type(v) is str else v for v in values]
