"""PgChangeLog: a PostgreSQL store's ``changes`` table (a part the store owns).

Every committed write adds its change record there, in the write's own transaction, and sends a
``NOTIFY`` with a summary in the same statement (``append``); writes hold the store's advisory lock,
so ``seq`` grows in commit order. Other devices read the log from the last ``seq`` they saw
(``since``). It keeps the last ``kept`` records: every ``prune_every`` writes the older ones go and
``meta.pruned_through`` says how far (a device that saw less than that re-reads everything).
"""

from __future__ import annotations

import json
from functools import partial
from typing import Any, Callable

from ...changes import MemoryChange
from .text import no_nul

_dumps = partial(json.dumps, ensure_ascii=False, default=str)

#: The change log keeps this many recent records (a device away for longer re-reads everything).
CHANGES_KEPT = 20_000
PRUNE_EVERY = 500
#: PostgreSQL refuses NOTIFY payloads of 8000 bytes or more; the ids list is cut to fit.
NOTIFY_MAX_BYTES = 7000


def notify_payload(change: MemoryChange, origin: str, device: str) -> str:
    """The NOTIFY text of a change (``seq`` is added by the server): kind, ids, actor, device, turn id,
    reason. The full record (with the cards' states) is in the change log under the same ``seq``."""
    summary: dict[str, Any] = no_nul({"origin": origin, "device": device, "kind": change.kind, "ids": list(change.ids),
                                      "actor": change.actor, "turn_id": change.turn_id, "reason": change.reason[:200]})
    text = _dumps(summary)
    while len(text.encode()) > NOTIFY_MAX_BYTES and summary["ids"]:
        summary["ids"] = summary["ids"][: len(summary["ids"]) // 2]
        summary["ids_cut"] = True
        text = _dumps(summary)
    return text


class PgChangeLog:
    """The change log of one store, written as ``device`` by this store instance (``origin``)."""

    def __init__(self, changes: str, meta: str, *, origin: str, device: str, channel: str,
                 kept: int = CHANGES_KEPT, prune_every: int = PRUNE_EVERY) -> None:
        self.changes = changes
        self.meta = meta
        self.origin = origin
        self.device = device
        self.channel = channel
        self.kept = kept
        self.prune_every = max(1, prune_every)
        self._writes = 0

    def append(self, write: Callable[[str, Any], Any], change: MemoryChange) -> None:
        """The change's row and its NOTIFY, in one statement given to ``write`` (a connection's
        ``execute``, or a transaction's that sends it with the commit); both take effect at commit."""
        record = no_nul(change.to_dict())  # (jsonb refuses \u0000)
        record["extra"] = {**record["extra"], "device": self.device}
        write(
            f"WITH row AS (INSERT INTO {self.changes} (origin, device, kind, turn_id, record)"
            " VALUES (%s, %s, %s, %s, %s) RETURNING seq)"
            " SELECT pg_notify(%s, jsonb_set(%s::jsonb, '{seq}', to_jsonb(row.seq))::text) FROM row",
            (self.origin, self.device, change.kind, change.turn_id, _dumps(record), self.channel,
             notify_payload(change, self.origin, self.device)),
        )

    def written(self, write: Callable[[str, Any], Any]) -> None:
        """One more write is about to commit (its statements given to ``write``, as ``append``'s):
        prune the log every ``prune_every`` writes."""
        self._writes += 1
        if self._writes % self.prune_every == 0:
            write(
                f"WITH gone AS (DELETE FROM {self.changes} WHERE seq <= (SELECT MAX(seq) FROM {self.changes}) - %s"
                " RETURNING seq)"
                f" UPDATE {self.meta} SET value = GREATEST(value::bigint, COALESCE((SELECT MAX(seq) FROM gone), 0))::text"
                " WHERE key = 'pruned_through'", (self.kept,))

    def last_seq(self, conn: Any) -> int:
        return conn.execute(f"SELECT COALESCE(MAX(seq), 0) FROM {self.changes}").fetchone()[0]

    def since(self, conn: Any, seq: int) -> tuple[list[tuple[int, str, str, str]], int]:
        """The rows ``(seq, origin, device, record)`` after ``seq``, oldest first, and the newest
        ``seq`` pruning deleted (the log reaches back only past it)."""
        rows = conn.execute(
            f"SELECT seq, origin, device, record, (SELECT value FROM {self.meta} WHERE key = 'pruned_through')"
            f" FROM {self.changes} WHERE seq > %s ORDER BY seq", (seq,)).fetchall()
        try:
            pruned = int(rows[0][4]) if rows else 0
        except (TypeError, ValueError):  # a damaged meta row: take the log as reaching back to its start
            pruned = 0
        return [row[:4] for row in rows], pruned
