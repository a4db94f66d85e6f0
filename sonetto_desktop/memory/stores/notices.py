"""StoreNotice: what a store tells the person once about its files while it keeps working.

A store that finds its file gone, replaced by a link, unreadable, or saved from an older copy does
not stop and does not guess that the person deleted everything: it keeps serving what it holds,
repairs what it can, and says so once through ``BaseMemoryManager.subscribe_notices`` (the app shows
a notice, the command line prints it). Wording lives in ``presentation/store_notices.py``.

Kinds:

- ``file_missing``: memory.yaml disappeared while the store was open; it was written again from the
  memories held (nothing was deleted).
- ``file_link``: memory.yaml was replaced by a link to another file; the link was not followed and the
  file was written again from the memories held.
- ``file_unreadable``: memory.yaml cannot be read (a YAML error, too large, no permission): the store
  keeps showing the last good state, refuses writes and never writes over the file (``detail``: why
  and where).
- ``file_readable``: the file reads again (said after ``file_unreadable``).
- ``file_unsaved``: memory.yaml cannot be saved (the disk is full, the folder read-only, no permission):
  every write is still safe in the change log (``memory.yaml.log``), the file keeps its older text and is
  saved again by itself (``reason``: ``"full"``, ``"read_only"``, ``"permission"`` or ``""``; ``detail``:
  the system's words).
- ``file_saved``: memory.yaml saves again (said after ``file_unsaved``).
- ``file_recovered``: memory.yaml was missing when the store opened and was restored (``detail``: from
  what; ``exact`` False when recent changes may be missing).
- ``edit_stale``: memory.yaml was saved from an older copy; what Sonetto wrote since was kept.
- ``edit_deleted``: entries deleted in memory.yaml went to the trash (restorable; ``count``, ``texts``).
- ``edit_conflict``: the person's save and Sonetto changed the same memory: the person's version is the
  memory, the other one is kept (``ids``: the memory, then the kept copy, if any).
"""

from __future__ import annotations

import errno
from dataclasses import dataclass

#: Kinds that describe a lasting condition: said once until it ends.
CONDITIONS = frozenset({"file_unreadable", "file_unsaved"})
#: The notice that says a condition ended, for each condition (a view takes the condition's notice down).
ENDS = {"file_readable": "file_unreadable", "file_saved": "file_unsaved"}


@dataclass(frozen=True)
class StoreNotice:
    kind: str
    path: str
    detail: str = ""  # in English, for logs and the command line (the window words it itself)
    ids: tuple[str, ...] = ()
    texts: tuple[str, ...] = ()  # the memories' descriptions, in the order of ``ids``
    exact: bool = True
    count: int = 0  # how many memories it concerns (a stale save: how many changes were kept)
    reason: str = ""  # why a file cannot be saved (``file_unsaved``): "full", "read_only", "permission"


def unsaved(path: str, exc: OSError) -> StoreNotice:
    """``file_unsaved`` for a save of ``path`` that failed with ``exc``."""
    reason = {errno.ENOSPC: "full", errno.EDQUOT: "full", errno.EFBIG: "full", errno.EROFS: "read_only",
              errno.EACCES: "permission", errno.EPERM: "permission"}.get(exc.errno or 0, "")
    return StoreNotice("file_unsaved", path, str(exc), reason=reason)
