"""BadRecords: what a PostgreSQL store skipped or repaired of what it read from its server.

The server is shared: another program, an older or newer release on another device, or a hand in
``psql`` may leave a row the store cannot use as it is — a change record that is not one, a memory
whose history is not a list, a trash entry that is not JSON. Reading it must never stop the store
(live sync, the wall, undo, the local copy): the row is repaired in what is read or skipped, said
once in the log, and listed by the store's ``self_check`` (the app's self-test and
``sonetto memory check`` show it) until the store is closed. Nothing is written back on a read.
"""

from __future__ import annotations

import logging
import threading

log = logging.getLogger(__name__)

#: The most problems kept (a whole table of bad rows is one problem many times over).
KEPT = 200


class BadRecords:
    def __init__(self, where: str) -> None:
        self.where = where
        self._lock = threading.Lock()
        self._seen: dict[tuple[str, str], str] = {}
        self.dropped = 0  # problems past KEPT, counted only

    def note(self, kind: str, key: str, message: str) -> None:
        """Row ``key`` of ``kind`` ("memory", "trash", "change") could not be used as it is."""
        with self._lock:
            if (kind, key) in self._seen:
                return
            if len(self._seen) >= KEPT:
                self.dropped += 1
                return
            self._seen[(kind, key)] = message
        log.warning("memory server %s: %s", self.where, message)

    def messages(self, kind: str | None = None) -> list[str]:
        """What was noted (of ``kind`` only, when given), oldest first."""
        with self._lock:
            found = [message for (k, _), message in self._seen.items() if kind in (None, k)]
            if self.dropped and kind is None:
                found.append(f"and {self.dropped} more rows that could not be used as they are")
        return found

    def __len__(self) -> int:
        with self._lock:
            return len(self._seen) + self.dropped
