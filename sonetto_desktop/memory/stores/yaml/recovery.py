"""Restoring memory.yaml that went missing (or was emptied) while no store had it open.

A sync client, an editor or a person removed or emptied the file; the store's other files are still there. The
file is damage, never "the person deleted everything": it is restored from the copy that matches
the change log (``memory.yaml.bak`` is the file before the last rewrite, the parse cache the file at
the last close), and the log's records replay every write since. Only when no copy matches is an
older ``memory.yaml.bak`` used (said: recent changes may be missing); with nothing to restore from,
opening fails with a clear error instead of starting empty.
"""

from __future__ import annotations

import logging

from . import change_log as journal
from ...errors import StoreCorrupt
from ...files import atomic_write
from ..notices import StoreNotice
from .cache import ParseCache
from .format import Layout, serialise
from .sync import Refused, YamlFiles, sha1

log = logging.getLogger(__name__)

EMPTY = b"{}\n"


def recover_missing(files: YamlFiles, cache: ParseCache) -> StoreNotice:
    """Write memory.yaml again from the best copy (the store's lock held); what to say about it."""
    try:
        tail = journal.read(files.log_path)
    except journal.JournalCorrupt as exc:
        raise StoreCorrupt(str(files.path), f"the file is missing and its change log cannot be read ({exc})") from exc
    header = tail.header if tail is not None else None
    try:
        backup = files.read(files.backup_path)
    except Refused:
        backup = None
    matching = {header.base_sha1, header.prev_sha1} - {None} if header is not None else set()
    data: bytes | None = None
    exact = True
    if backup is not None and sha1(backup) in matching:
        data, source = backup, files.backup_path.name
    elif (cached := cache.base_sha1()) is not None and (header is None or cached == header.base_sha1):
        parsed = cache.read(cached, str(files.cache_path))
        if parsed is not None:
            data, source, exact = serialise(parsed.items, Layout())[0], files.cache_path.name, header is not None
    if data is None and header is not None and sha1(EMPTY) in matching:
        data, source = EMPTY, "an empty store"  # (never rewritten: every memory is in the log)
    if data is None and backup is not None:
        data, source, exact = backup, files.backup_path.name, False
    if data is None:
        if header is None:  # nothing says there were memories (only a trash file): a new store
            atomic_write(files.path, EMPTY)
            return StoreNotice("file_recovered", str(files.path), "memory.yaml was missing and nothing "
                               "held a copy: started empty", exact=False)
        raise StoreCorrupt(str(files.path), f"the file is missing and no copy of it matches its change log "
                           f"({files.log_path.name}): put memory.yaml back, or restore it from a backup of "
                           "your own")
    atomic_write(files.path, data)
    detail = (f"memory.yaml was missing: restored from {source}" + (" and the change log" if tail else "")
              + ("" if exact else " (changes made after that copy may be missing)"))
    log.warning("%s: %s", files.path, detail)
    return StoreNotice("file_recovered", str(files.path), detail, exact=exact)
