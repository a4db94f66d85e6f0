"""SaveMerge: a save of memory.yaml by something else (a person's editor, a sync client) taken in as
a hand edit while the store holds its state.

The save is merged three ways against the version it was made from (``versions``; else the file as
last known) and the store's state (``merge``): an entry the person changed becomes the memory's state
(committed as a write by ``file``, with a history entry), an entry only the store changed since keeps
the store's, entries deleted by hand go to the trash (restorable, and said), a true conflict keeps both
versions and is said. What the save left stale or lacks is restated in the write's log record (a store
opened after a crash replays it) and written by the next rewrite. A save that does not parse raises
``StoreCorrupt`` (and is never written over).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from ...changes import FILE, MemoryChange
from ... import kinds
from ...item import MemoryItem, now_iso
from ...record import card_state
from ..crud import STATES_MAX
from ..notices import StoreNotice
from ..transaction import OverlayTransaction
from .files import PARSE_ERRORS, YamlFiles
from .format import Chunk, Layout, parse_items, split_chunks
from .merge import merge_entry
from .state import DiskState, MemoryState
from .versions import FileVersions

#: The reason of the history entry of a memory edited by hand in memory.yaml.
EDIT_REASON = "在 memory.yaml 中手动修改"
ADD_REASON = "在 memory.yaml 中手动添加"
DELETE_REASON = "从 memory.yaml 中删除"
#: The reason of a memory put back by a save that edited it after Sonetto had deleted it.
BACK_REASON = "在 memory.yaml 中修改了已删除的记忆，按你的版本恢复"
#: The reason of the copy a conflict keeps: the version the person's save did not keep.
CONFLICT_REASON = "memory.yaml 的手动修改与这条记忆的另一次修改冲突：这是另一次修改的版本"


@dataclass
class _Entries:
    """A changed file's entries in file order: id -> (the parsed item, or ``None`` when its text is
    what we knew; its text, or ``None`` when the file did not split)."""

    preamble: bytes
    split: bool
    entries: dict[str, tuple[MemoryItem | None, bytes | None]]
    issues: list[str] = field(default_factory=list)  # what reading the changed entries found
    repaired: list[str] = field(default_factory=list)


class SaveMerge:
    """Takes saves of memory.yaml in (see the module doc), over the store's parts: ``commit(txn, **record)``
    commits a write, ``publish`` hands a change to the store's channel, ``say`` says a notice,
    ``rewrite_soon`` asks for the file to be written again, ``new_id(txn)`` names a new memory."""

    def __init__(self, files: YamlFiles, state: MemoryState, disk: DiskState, versions: FileVersions, *,
                 commit: Callable[..., None], publish: Callable[[MemoryChange], Any],
                 say: Callable[[StoreNotice], None], rewrite_soon: Callable[[], None],
                 new_id: Callable[[OverlayTransaction], str] | None) -> None:
        self.files = files
        self.state = state
        self.disk = disk
        self.versions = versions
        self._commit = commit
        self._publish = publish
        self.say = say
        self._rewrite_soon = rewrite_soon
        self._new_id = new_id

    def fold(self, raw: bytes, found: str, *, made_from: str = "") -> tuple[list[str], list[str]]:
        """memory.yaml was saved by something else while we hold a state: merged three ways against the
        version it was made from (``versions``; else the file as we last knew it). An entry the person
        changed becomes the memory's state (committed as a write by ``file``), an entry only the store
        changed since keeps the store's, entries deleted by hand go to the trash, a true conflict keeps
        both versions and is said. A file that does not parse raises ``StoreCorrupt`` (and is never
        written over)."""
        items = self.state.items
        assert items is not None
        if self.state.trash is None:  # a damaged trash file: nothing can be moved there
            raise self.state.trash_error or self.files.corrupt(self.files.trash_path, ValueError("unreadable"))
        old = self.disk.layout
        entries = self._changed_entries(raw, old.chunks)
        since = self._since(entries, found, made_from)  # entries changed since the save's version
        fold = _Fold(OverlayTransaction(items, self.state.trash))
        layout = self._fold_entries(fold, entries, since)
        in_base = (set(self.disk.known_ids()) - {mid for mid, text in since.items() if text is None}) | {
            mid for mid, text in since.items() if text is not None}
        self._fold_deletions(fold, in_base - entries.entries.keys(), since)
        # Memories the saved file lacks that were not in its version (added since), and stale entries:
        # restated in the fold's log record as they are (the file does not hold them: a store opened
        # after a crash replays them over it), and written by the next rewrite.
        kept = [mid for mid in items if mid not in entries.entries and mid not in in_base and mid not in fold.txn.items]
        for memory_id in (*fold.stale, *kept):
            if memory_id not in fold.txn.items and memory_id in items:
                fold.txn.put(memory_id, items[memory_id])
        fold.added_since = [mid for mid in kept if mid in since]
        changes = fold.changes if len(fold.changes) <= STATES_MAX else [
            MemoryChange(kinds.RELOAD, (), FILE, EDIT_REASON, local=False)]
        for change in changes:
            fold.txn.record(change)
        changed = [mid for mid, (item, _) in entries.entries.items() if item is not None] + [
            mid for mid in old.chunks if mid not in entries.entries]
        self.versions.advance(self.disk.sha1, old, changed if entries.split else None)
        self.disk.layout, self.disk.sha1, self.disk.size = layout, found, len(raw)
        self.disk.ids = None if entries.split else frozenset(entries.entries)
        self.disk.file_known = True
        if fold.stale or kept or fold.copies:
            self.disk.needs_rewrite = True
            self._rewrite_soon()
        if fold.txn.touched:
            self._commit(fold.txn, file_sha1=found, **({"restated": True} if not changes else {}))
            for change in changes:
                self._publish(change)
        self._tell(fold, bool(since))
        return entries.issues, entries.repaired

    def _since(self, entries: _Entries, found: str, made_from: str) -> dict[str, bytes | None]:
        """The entries changed since the version the save was made from, with their text then (empty:
        made from the file as last known)."""
        if not entries.split:
            return {}
        known = self.disk.layout.chunks
        texts = {mid: text for mid, (_, text) in entries.entries.items() if text is not None}
        base = self.versions.base_of(found, texts, lambda mid: chunk.text if (chunk := known.get(mid)) else None,
                                     self._edited_from)
        if base is None and made_from:  # (a displaced save: not made from anything newer)
            base = self.versions.base_at(made_from)
        if base is None:
            return {}
        self.versions.taken(found)
        return dict(base.texts)

    def _fold_entries(self, fold: "_Fold", entries: _Entries, since: dict[str, bytes | None]) -> Layout:
        """The save's entries into ``fold``; returns the save's layout."""
        items = self.state.items
        assert items is not None
        known = self.disk.layout.chunks
        layout = Layout(entries.preamble, split=entries.split)
        for memory_id, (item, text) in entries.entries.items():
            chunk = known.get(memory_id)
            if item is None:  # text as we knew it
                assert chunk is not None
                layout.chunks[memory_id] = chunk
                continue
            layout.chunks[memory_id] = Chunk(item, text if text is not None else b"")
            if memory_id in since and text == since[memory_id]:
                fold.stale.append(memory_id)  # as in the version it was saved from: the store's is newer
                continue
            base_item = self._base_item(memory_id, since, chunk)
            self._fold_entry(fold, memory_id, item, base_item, items.get(memory_id), in_base=(
                since[memory_id] is not None if memory_id in since else chunk is not None))
        return layout

    def _fold_deletions(self, fold: "_Fold", deleted: set[str], since: dict[str, bytes | None]) -> None:
        """Entries of the save's version the save lacks: deleted by hand, to the trash."""
        items = self.state.items
        assert items is not None
        known = self.disk.layout.chunks
        for memory_id in deleted:
            current = items.get(memory_id)
            if current is None or memory_id in fold.txn.items:
                continue  # gone already
            if memory_id in since and (current.description, current.theme) != _content(
                    self._base_item(memory_id, since, known.get(memory_id))):
                fold.conflicts.append((memory_id, None))  # deleted by hand, changed by Sonetto since: said
            fold.deleted.append(memory_id)
            fold.txn.trash_put(memory_id, {"item": current.to_dict(), "deleted_at": now_iso(),
                                           "reason": DELETE_REASON, "actor": FILE})
            fold.txn.remove(memory_id)
            fold.changes.append(MemoryChange(kinds.DELETE, (memory_id,), FILE, DELETE_REASON, states={memory_id: None},
                                             extra={"description": current.description, "theme": current.theme},
                                             local=False))

    def _edited_from(self, memory_id: str, text: bytes, found: bytes) -> bool:
        """Whether the saved entry ``found`` is an edit of ``text`` (an earlier version of it): its
        history has that version's entries (the store appends one whenever it changes an entry; a
        find-and-replace may have changed the words in them, not their times and actions)."""
        then, now = self._parse_entry(memory_id, text), self._parse_entry(memory_id, found)
        return then is not None and now is not None and _shape(then.history) == _shape(now.history)

    def _parse_entry(self, memory_id: str, text: bytes) -> MemoryItem | None:
        try:
            return parse_items(text, str(self.files.path)).items.get(memory_id)
        except PARSE_ERRORS:
            return None

    def _base_item(self, memory_id: str, since: dict[str, bytes | None], chunk: Chunk | None) -> MemoryItem | None:
        """The entry in the version a save was made from (``None``: it was not in it)."""
        if memory_id in since:
            text = since[memory_id]
        elif chunk is not None:
            if chunk.item is not None:
                return chunk.item
            text = chunk.text
        else:
            return None
        return self._parse_entry(memory_id, text) if text else None

    def _fold_entry(self, fold: "_Fold", memory_id: str, item: MemoryItem, base: MemoryItem | None,
                    current: MemoryItem | None, *, in_base: bool) -> None:
        """One entry the save changed (``item``), against its ``base`` and the store's ``current``."""
        txn = fold.txn
        if current is None:
            if in_base and base is not None:  # deleted by Sonetto since the save's version, edited by hand
                new = self._edited(memory_id, item, base, None, reason=BACK_REASON)
                if txn.trash_get(memory_id) is not None:
                    txn.trash_remove(memory_id)
                fold.conflicts.append((memory_id, None))
            else:
                new = self._edited(memory_id, item, None, None)
            txn.put(memory_id, new)
            fold.changes.append(self._change_of(memory_id, new, None))
            return
        merged = merge_entry(base, item, current)
        if not merged.person_changed:
            fold.stale.append(memory_id)
            return
        new = merged.item
        if (new.description, new.theme) != (current.description, current.theme):
            new.history.append({"time": now_iso(), "action": kinds.UPDATE, "actor": FILE, "reason": EDIT_REASON,
                                "old_description": current.description, "new_description": new.description,
                                "old_theme": current.theme, "new_theme": new.theme})
            new.latest_update_time = new.history[-1]["time"]
        elif new == current:
            return
        txn.put(memory_id, new)
        fold.changes.append(self._change_of(memory_id, new, current))
        if merged.conflict:
            copy_id = self._keep_other(fold, memory_id, current)
            fold.conflicts.append((memory_id, copy_id))

    def _keep_other(self, fold: "_Fold", memory_id: str, other: MemoryItem) -> str | None:
        """The version a conflict did not keep, as a memory of its own (its author kept)."""
        if self._new_id is None:
            return None
        copy_id = self._new_id(fold.txn)
        copy = MemoryItem(other.description, other.theme)
        copy.record_creation(other.last_actor if other.last_actor != "imported" else FILE, CONFLICT_REASON,
                             {"conflict_of": memory_id})
        fold.txn.put(copy_id, copy)
        fold.copies.append(copy_id)
        fold.changes.append(MemoryChange(kinds.ADD, (copy_id,), FILE, CONFLICT_REASON,
                                         states={copy_id: card_state(copy)}, local=False))
        return copy_id

    def _tell(self, fold: "_Fold", from_older: bool) -> None:
        """Say what a save merged: the conflicts, and a save from an older copy whose changes were kept."""
        items = self.state.items or {}
        path = str(self.files.path)
        for memory_id, copy_id in fold.conflicts:
            kept = items.get(memory_id)
            other = items.get(copy_id) if copy_id else None
            texts = tuple(x.description for x in (kept, other) if x is not None)
            ids = (memory_id, copy_id) if copy_id else (memory_id,)
            self.say(StoreNotice("edit_conflict", path, f"memory {memory_id} was changed both in memory.yaml and "
                                 f"by the app: the file's version is kept" + (f", the other as {copy_id}" if copy_id
                                                                              else ""), ids, texts))
        if fold.deleted:
            trash = self.state.trash or {}
            texts = tuple(str((trash.get(mid) or {}).get("item", {}).get("description", "")) for mid in fold.deleted[:20])
            self.say(StoreNotice("edit_deleted", path, f"{len(fold.deleted)} memories deleted in memory.yaml went to "
                                 "the trash", tuple(fold.deleted[:20]), texts, count=len(fold.deleted)))
        stale = [mid for mid in (*fold.stale, *fold.added_since) if mid in items]
        if from_older and stale:
            self.say(StoreNotice("edit_stale", path, "memory.yaml was saved from an older copy: the changes "
                                 "made since were kept", tuple(stale[:20]),
                                 tuple(items[mid].description for mid in stale[:20]), count=len(stale)))

    def _changed_entries(self, raw: bytes, known: dict[str, Chunk]) -> _Entries:
        """The file's entries: ``(None, text)`` for an entry whose text is what we knew, else the
        parsed item (only changed entries are parsed; a file that does not split is parsed whole)."""
        split = split_chunks(raw)
        keys = [key for key, _ in split[1]] if split is not None else []
        if split is None or None in keys or len(set(keys)) != len(keys):
            try:
                parsed = parse_items(raw, str(self.files.path))
            except PARSE_ERRORS as exc:
                raise self.files.corrupt(self.files.path, exc) from exc
            return _Entries(b"", False, {mid: (item, None) for mid, item in parsed.items.items()}, parsed.issues,
                            parsed.repaired)
        out: dict[str, tuple[MemoryItem | None, bytes | None]] = {}
        changed: list[tuple[str, bytes]] = []
        for key, text in split[1]:
            chunk = known.get(key)  # type: ignore[arg-type]
            if chunk is not None and chunk.text == text:
                out[key] = (None, text)  # type: ignore[index]
            else:
                changed.append((key, text))  # type: ignore[arg-type]
                out[key] = (None, text)  # placeholder: keeps the file's order
        if changed:
            try:
                parsed = parse_items(b"".join(text for _, text in changed), str(self.files.path))
            except PARSE_ERRORS as exc:
                raise self.files.corrupt(self.files.path, exc) from exc
            for key, text in changed:
                item = parsed.items.get(key)
                if item is None:
                    raise self.files.corrupt(self.files.path, ValueError(f"entry {key!r} could not be read"))
                out[key] = (item, text)
        return _Entries(split[0], True, out, *((parsed.issues, parsed.repaired) if changed else ([], [])))

    @staticmethod
    def _edited(memory_id: str, item: MemoryItem, base: MemoryItem | None, current: MemoryItem | None, *,
                reason: str = ADD_REASON) -> MemoryItem:
        """A memory the store does not hold, as the file has it: with its history (``base``'s when the
        file's is not edited), and a history entry saying where it came from."""
        new = item.copy()
        if base is not None and new.history == base.history and (new.description, new.theme) != (
                base.description, base.theme):
            new.history.append({"time": now_iso(), "action": kinds.UPDATE, "actor": FILE, "reason": reason,
                                "old_description": base.description, "new_description": new.description,
                                "old_theme": base.theme, "new_theme": new.theme})
            new.latest_update_time = new.history[-1]["time"]
        elif not new.history:
            new.record_creation(FILE, reason)
        return new

    @staticmethod
    def _change_of(memory_id: str, new: MemoryItem, current: MemoryItem | None) -> MemoryChange:
        if current is None:
            kind = kinds.ADD
        elif (new.description, new.theme) != (current.description, current.theme):
            kind = kinds.UPDATE
        elif {**new.to_dict(copy=False), "hit": 0} == {**current.to_dict(copy=False), "hit": 0}:
            kind = kinds.HIT  # only the count
        else:
            kind = kinds.SET
        extra = {"hit": new.hit} if kind == kinds.HIT else {}
        reason = ADD_REASON if kind == kinds.ADD else EDIT_REASON
        return MemoryChange(kind, (memory_id,), FILE, reason, states={memory_id: card_state(new)}, extra=extra,
                            local=False)


@dataclass
class _Fold:
    """What folding one save does: the write, its change records, and what to say afterwards."""

    txn: OverlayTransaction
    changes: list[MemoryChange] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)  # entries as in the save's version: the store's kept
    conflicts: list[tuple[str, str | None]] = field(default_factory=list)  # (memory, the copy kept)
    copies: list[str] = field(default_factory=list)
    added_since: list[str] = field(default_factory=list)  # memories the store added after the save's version
    deleted: list[str] = field(default_factory=list)  # memories the save deleted (to the trash)


def _shape(history: list[Any]) -> list[tuple[Any, Any, Any]]:
    return [(e.get("time"), e.get("action"), e.get("actor")) if isinstance(e, dict) else (None, None, None)
            for e in history]


def _content(item: MemoryItem | None) -> tuple[str, str] | None:
    return (item.description, item.theme) if item is not None else None


def differing(old: Layout, new: Layout) -> list[str]:
    """The ids whose text differs between two layouts (present in one only included)."""
    return [mid for mid in {**old.chunks, **new.chunks}
            if (a := old.chunks.get(mid)) is None or (b := new.chunks.get(mid)) is None or a.text != b.text]


__all__ = ["ADD_REASON", "BACK_REASON", "CONFLICT_REASON", "DELETE_REASON", "EDIT_REASON", "SaveMerge",
           "differing"]
