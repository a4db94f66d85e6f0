"""What an import would change, before it is applied (read-only; no Qt).

It answers with the same rules as ``import_items`` (``crud.py``): an entry whose description and
theme equal a stored memory's (or an earlier entry's of the same file) is skipped; any other entry
is added — under its own id when that id is free (not stored, not in the trash), else under a fresh
id, next to the stored memory with that id (nothing is overwritten). So there are three outcomes:
``new``, ``new_id`` (an id that is taken, added beside it; or an id the file gives to an earlier
entry too, ``transfer.Incoming.renamed``: added under ``<id>-2``) and ``skipped``. An export's trash
(``transfer.Incoming.trash``) is counted apart: ``trashed``, the entries that go back into the trash
(not those equal to a stored memory or trash entry, as ``import_trash`` leaves them out).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .stores.base import BaseMemoryManager
from .item import MemoryItem

NEW, NEW_ID, SKIPPED = "new", "new_id", "skipped"


@dataclass(frozen=True)
class PreviewRow:
    memory_id: str
    outcome: str  # NEW, NEW_ID or SKIPPED
    description: str
    theme: str


@dataclass(frozen=True)
class ImportPreview:
    rows: list[PreviewRow] = field(default_factory=list)
    trashed: int = 0  # trash entries the import puts back into the trash

    def count(self, outcome: str) -> int:
        return sum(1 for row in self.rows if row.outcome == outcome)

    @property
    def changes_anything(self) -> bool:
        return self.trashed > 0 or any(row.outcome != SKIPPED for row in self.rows)


def preview_import(mm: BaseMemoryManager, items: dict[str, MemoryItem]) -> ImportPreview:
    """The outcome of ``mm.import_items(items)`` for each entry, without writing anything. Reads the
    stored memories' text and theme only (``fields_of_all``), as the import compares them: at 100,000
    memories not every one built with its history."""
    stored = mm.fields_of_all(("description", "theme"))
    in_trash = mm.list_trash()
    trashed = {row["id"] for row in in_trash}
    existing = set(stored.values())
    renamed = getattr(items, "renamed", {})  # (transfer.Incoming: the later entries of a repeated id)
    rows: list[PreviewRow] = []
    for mid, item in items.items():
        key = (item.description, item.theme)
        if key in existing:
            outcome = SKIPPED
        else:
            existing.add(key)
            outcome = NEW if (mid and mid not in stored and mid not in trashed and mid not in renamed) else NEW_ID
        rows.append(PreviewRow(str(mid), outcome, str(item.description), str(item.theme)))
    existing |= {(row["description"], row["theme"]) for row in in_trash}
    back = 0
    for entry in getattr(items, "trash", {}).values():
        key = (entry["item"].get("description"), entry["item"].get("theme"))
        if key not in existing:
            existing.add(key)
            back += 1
    return ImportPreview(rows, back)
