"""YamlSync: how a YAML store instance takes in what is on disk (the store's reading part).

- Another instance's new log records are applied from where this one stopped reading.
- Another instance's rewrite of memory.yaml is adopted without parsing: its log names the files
  and carries the newest records over.
- A hand edit of memory.yaml (a person, another tool) becomes the state: each entry whose text
  differs from what this instance last read or wrote is parsed (only those), and an entry edited,
  added or deleted by hand is committed as a write with actor ``file`` (a history entry for a new
  text or theme; a deleted entry goes to the trash, restorable). The edit is newer than whatever the
  log holds for that memory, so no older change is replayed over it.
- Anything else (no log, a damaged or foreign log, the trash file edited) is a full read of the files
  plus the log, and the differences are published as external changes.

An edit is taken in once the file has been still for :data:`SETTLE_SECONDS` when a reader or the
background rewrite looks (an editor may be half way through saving); a write folds it at once (a
file that does not parse then fails the write and is never written over).
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import yaml

from . import change_log as journal
from ...changes import EXTERNAL, FILE, MemoryChange
from ...errors import StoreCorrupt
from ...item import MemoryItem, now_iso
from ..crud import STATES_MAX
from ...record import card_state
from ..transaction import OverlayTransaction
from ..validation import item_from_raw, validate_item
from .cache import CACHE_MIN_BYTES, ParseCache
from .diff import foreign_changes
from .format import Chunk, Layout, layout_of, parse_items, parse_trash, split_chunks
from .safe import YamlRefused
from .state import DiskState, MemoryState

#: A changed memory.yaml is taken in by readers once it has not changed for this long.
SETTLE_SECONDS = 0.1
#: The reason of the history entry of a memory edited by hand in memory.yaml.
EDIT_REASON = "在 memory.yaml 中手动修改"
ADD_REASON = "在 memory.yaml 中手动添加"
DELETE_REASON = "从 memory.yaml 中删除"

_PARSE_ERRORS = (yaml.YAMLError, UnicodeDecodeError, YamlRefused, TypeError, RecursionError)

Keys = tuple[Any, Any, Any]


def sha1(data: bytes) -> str:
    return hashlib.sha1(data, usedforsecurity=False).hexdigest()


@dataclass(frozen=True)
class YamlFiles:
    """The files of one YAML store."""

    path: Path

    @property
    def trash_path(self) -> Path:
        return self.path.with_name(f"{self.path.stem}.trash.yaml")

    @property
    def log_path(self) -> Path:
        return self.path.with_name(self.path.name + ".log")

    @property
    def backup_path(self) -> Path:
        return self.path.with_name(self.path.name + ".bak")

    @property
    def cache_path(self) -> Path:
        return self.path.with_name(self.path.name + ".cache")

    @property
    def lock_path(self) -> Path:
        return self.path.with_name(self.path.name + ".lock")

    def keys(self) -> Keys:
        return journal.stat_key(self.path), journal.stat_key(self.trash_path), journal.stat_key(self.log_path)

    def read(self, path: Path) -> bytes | None:
        try:
            return path.read_bytes()
        except FileNotFoundError:
            return None


@dataclass
class _Entries:
    """A changed file's entries in file order: id -> (the parsed item, or ``None`` when its text is
    what we knew; its text, or ``None`` when the file did not split)."""

    preamble: bytes
    split: bool
    entries: dict[str, tuple[MemoryItem | None, bytes | None]]


class YamlSync:
    """Takes what is on disk into ``state`` (always with the store's file lock held). ``publish``
    hands a change to the store's channel; ``commit(txn)`` commits a write (a hand edit taken in)."""

    def __init__(self, files: YamlFiles, log: journal.ChangeLog, state: MemoryState, disk: DiskState,
                 cache: ParseCache, *, origin: str, read_only: bool, publish: Callable[[MemoryChange], Any],
                 commit: Callable[..., None]) -> None:
        self.files = files
        self.log = log
        self.state = state
        self.disk = disk
        self.cache = cache
        self.origin = origin
        self.read_only = read_only
        self._publish = publish
        self._commit = commit
        self.keys: Keys | None = None  # the files' identities as last taken in
        self.edit_pending = False  # memory.yaml changed and is not taken in yet (not settled)
        self.full_reads = 0

    def current(self) -> bool:
        return self.state.items is not None and self.files.keys() == self.keys

    def corrupt(self, path: Path, exc: BaseException) -> StoreCorrupt:
        backup = str(self.files.backup_path) if path == self.files.path and self.files.backup_path.exists() else None
        return StoreCorrupt(str(path), str(exc).replace("\n", " "), backup)

    def _read_log(self, offset: int) -> journal.Tail | None:
        try:
            return self.log.read(offset)
        except journal.JournalCorrupt as exc:
            raise self.corrupt(self.files.log_path, exc) from exc

    # ── taking in ──────────────────────────────────────────────────────

    def sync(self, *, settle: bool = True) -> None:
        """Take in what changed on disk since we last looked. ``settle``: leave a memory.yaml that
        changed less than ``SETTLE_SECONDS`` ago for a later look (``edit_pending``)."""
        keys = self.files.keys()
        if self.state.items is None:
            self.full_load(publish=False)
            return
        if keys == self.keys:
            return
        assert self.keys is not None
        base, trash, log_key = keys
        old_base, old_trash, old_log = self.keys
        if self.log.appended_only(log_key, old_log):
            tail = self._read_log(self.log.end)
            if tail is None:
                self.full_load(publish=True)
                return
            self.take_records([r for r in tail.records if r["seq"] > self.state.seq], publish=True)
            self.log.end = tail.end
        elif not self._adopt():
            self.full_load(publish=True)
            return
        header = self.log.header
        if trash != old_trash:
            if header is not None and trash is not None and trash == header.trash_stat:
                self.disk.trash_sha1 = header.trash_sha1  # another instance's rewrite
            else:
                raw = self.files.read(self.files.trash_path)
                found = sha1(raw) if raw is not None else None
                if found not in (self.disk.trash_sha1, header.trash_sha1 if header else None):
                    self.full_load(publish=True)  # the trash file was changed by something else
                    return
                self.disk.trash_sha1 = found
        self.edit_pending = False
        if base != old_base:
            if header is not None and base is not None and base == header.base_stat:
                self.disk.sha1 = header.base_sha1  # another instance's rewrite
            elif not self._take_file(base, settle):
                self.edit_pending = True
                keys = (old_base, *keys[1:])  # looked at again next time
        self.keys = keys

    def _take_file(self, base: Any, settle: bool) -> bool:
        """memory.yaml changed on disk: a touch, another instance's rewrite, or a hand edit (taken in
        as a write). False when it is too fresh to take in yet."""
        if settle and base is not None and time.time() - base[1] / 1e9 < SETTLE_SECONDS:
            return False
        raw = self.files.read(self.files.path)
        if raw is None:  # deleted: read everything again (a missing file holds no memories)
            self.full_load(publish=True)
            return True
        found = sha1(raw)
        header = self.log.header
        known = {self.disk.sha1}
        if header is not None:
            known |= {header.base_sha1, header.prev_sha1}
        if found in known:
            self.disk.sha1 = found
            return True
        if found in self.disk.folded:  # another instance took this edit in: its record is applied
            self._learn_text(raw, found)
            return True
        self.fold(raw, found)
        return True

    def _learn_text(self, raw: bytes, found: str) -> None:
        """Know ``raw`` as the file's text (its chunks tied to no item: they are compared, not reused)."""
        split = split_chunks(raw)
        if split is None or None in (keys := [key for key, _ in split[1]]) or len(set(keys)) != len(keys):
            self.full_load(publish=True)  # (rare: a file that does not split; read whole)
            return
        self.disk.layout = Layout(split[0], {key: Chunk(None, text) for key, text in split[1]})  # type: ignore[misc]
        self.disk.sha1, self.disk.size, self.disk.ids = found, len(raw), None

    def _adopt(self) -> bool:
        """Another instance started a new log (it rewrote the files): take the records it carried
        over when they connect to ours. False when a full read is needed."""
        tail = self._read_log(0)
        if tail is None or tail.header is None or tail.header.lineage != self.disk.lineage:
            return False
        header = tail.header
        seqs = {r["seq"] for r in tail.records}
        if self.state.seq < header.base_seq and self.state.seq + 1 not in seqs:
            return False
        self.take_records([r for r in tail.records if r["seq"] > self.state.seq], publish=True)
        self.log.follow(tail, ok=True)
        self.disk.base_seq = header.base_seq
        self.disk.trash_written = self.state.trash_version if not any(
            r.get("trash") for r in tail.records if r["seq"] > header.base_seq) else -1
        return True

    def full_load(self, *, publish: bool) -> tuple[list[str], list[str]]:
        """Read the files and replay the log. Returns (issues, repaired) of the reading."""
        self.full_reads += 1
        keys = self.files.keys()
        base, trash, _ = keys
        raw = self.files.read(self.files.path) or b""
        base_sha1 = sha1(raw)
        parsed = self.cache.read(base_sha1, str(self.files.path)) if len(raw) > CACHE_MIN_BYTES else None
        if parsed is None:
            try:
                parsed = parse_items(raw, str(self.files.path))
            except _PARSE_ERRORS as exc:
                raise self.corrupt(self.files.path, exc) from exc
        trash_raw = self.files.read(self.files.trash_path)
        trash_items: dict[str, dict[str, Any]] | None
        trash_error = None
        try:
            trash_items = parse_trash(trash_raw, str(self.files.trash_path)) if trash_raw is not None else {}
        except _PARSE_ERRORS as exc:
            trash_items, trash_error = None, self.corrupt(self.files.trash_path, exc)
        trash_sha1 = sha1(trash_raw) if trash_raw is not None else None
        tail = self._read_log(0)
        header = tail.header if tail is not None else None
        match = None
        if header is not None:
            match = header.holds(base_sha1, trash_sha1)
            if match is None and header.base_stat == base and header.trash_stat == trash and base is not None:
                match = "base"
        records = tail.records if tail is not None else []
        if match == "base":
            assert header is not None
            start, lineage = header.base_seq, header.lineage
        elif match == "prev":  # a rewrite was cut short: the old files and every record since them
            assert header is not None and header.prev_base_seq is not None
            start, lineage = header.prev_base_seq, header.lineage
        else:  # no log, or files written by something else: what the log holds beyond its base is replayed
            start, lineage = (header.base_seq if header else 0), "h" + base_sha1[:16]
        # Records up to ``start`` are in the files; newer ones are absolute states, harmless to apply
        # to files that already hold them.
        replay = [r for r in records if r["seq"] > start]
        seq = max([start, *(r["seq"] for r in records)])
        previous_items, previous_trash = self.state.view() if self.state.items is not None else None, (
            dict(self.state.trash) if self.state.trash is not None else None)
        layout = layout_of(raw, parsed.items)
        unwritten = {mid: None for mid in parsed.items if mid in parsed.rewrite or mid not in layout.chunks}
        self.state.replace(parsed.items, trash_items, trash_error, unwritten if layout.split else {})
        self.state.seq = seq
        self.disk.layout = layout
        self.disk.sha1, self.disk.size, self.disk.trash_sha1 = base_sha1, len(raw), trash_sha1
        self.disk.ids = frozenset(parsed.items) if unwritten or not layout.split else None
        self.disk.lineage = lineage
        self.disk.needs_rewrite = bool(parsed.rewrite)
        self.disk.trash_written = self.state.trash_version
        self.take_records(replay, publish=False)
        self.disk.base_seq = start
        self.log.follow(tail, ok=match == "base")
        self.keys = keys
        self.edit_pending = False
        if publish and previous_items is not None:
            changes = foreign_changes(previous_items, self.state.view(), lambda: self.state.trash or {})
            if not changes and previous_trash != self.state.trash:
                changes = [MemoryChange("purge", (), EXTERNAL, local=False)]  # only the trash changed
            for change in changes:
                self._publish(change)
        return parsed.issues, parsed.repaired

    def take_records(self, records: list[dict[str, Any]], *, publish: bool) -> None:
        """Apply log records (absolute states) to the state; publish their changes when asked."""
        if not records:
            return
        assert self.state.items is not None
        changes: list[MemoryChange] = []
        for record in records:
            for mid, raw in (record.get("items") or {}).items():
                if raw is None:
                    self.state.put(mid, None)
                    continue
                item, _ = item_from_raw(mid, raw)
                validate_item(mid, item)
                self.state.put(mid, item)
            for mid, entry in (record.get("trash") or {}).items():
                self.state.put_trash(mid, entry)
            if record.get("file_sha1"):
                self.disk.folded.add(str(record["file_sha1"]))
            self.state.seq = max(self.state.seq, int(record["seq"]))
            if publish and record.get("origin") != self.origin:
                recorded = record.get("changes") or []
                for data in recorded:
                    try:
                        changes.append(MemoryChange.from_dict(data, local=False))
                    except ValueError:  # not a change record (another program's line): views re-read
                        changes.append(MemoryChange("reload", (), EXTERNAL, local=False))
                if not recorded:
                    changes.append(MemoryChange("reload", (), EXTERNAL, local=False))
        for change in changes:
            self._publish(change)

    # ── a hand edit ────────────────────────────────────────────────────

    def fold(self, raw: bytes, found: str) -> None:
        """memory.yaml was edited by something else while we hold a state: every entry whose text
        differs from what we last knew becomes the memory's state (committed as a write by ``file``);
        entries deleted by hand go to the trash. A file that does not parse raises ``StoreCorrupt``
        (and is never written over)."""
        if self.read_only:
            self.full_load(publish=True)
            return
        items = self.state.items
        assert items is not None
        known = self.disk.layout.chunks
        known_ids = set(self.disk.known_ids())
        entries = self._changed_entries(raw, known)
        layout = Layout(entries.preamble, split=entries.split)
        if self.state.trash is None:  # a damaged trash file: nothing can be moved there
            raise self.state.trash_error or self.corrupt(self.files.trash_path, ValueError("unreadable"))
        txn = OverlayTransaction(items, self.state.trash)
        changes: list[MemoryChange] = []
        for memory_id, (item, text) in entries.entries.items():
            chunk = known.get(memory_id)
            if item is None:  # text as we knew it
                assert chunk is not None
                layout.chunks[memory_id] = chunk
                continue
            current = items.get(memory_id)
            if current is not None and current == item:  # written so by another writer: no edit
                layout.chunks[memory_id] = Chunk(current, text) if text is not None else Chunk(None, b"")
                continue
            new = self._edited(memory_id, item, current, chunk)
            layout.chunks[memory_id] = Chunk(item, text if text is not None else b"")
            txn.put(memory_id, new)
            changes.append(self._change_of(memory_id, new, current))
        for memory_id in known_ids - entries.entries.keys():
            current = items.get(memory_id)
            if current is None or memory_id in txn.items:
                continue  # gone already, or added since the file was written (not in it yet)
            txn.trash_put(memory_id, {"item": current.to_dict(), "deleted_at": now_iso(), "reason": DELETE_REASON,
                                      "actor": FILE})
            txn.remove(memory_id)
            changes.append(MemoryChange("delete", (memory_id,), FILE, DELETE_REASON, states={memory_id: None},
                                        extra={"description": current.description, "theme": current.theme},
                                        local=False))
        if len(changes) > STATES_MAX:
            changes = [MemoryChange("reload", (), FILE, EDIT_REASON, local=False)]
        for change in changes:
            txn.record(change)
        self.disk.layout, self.disk.sha1, self.disk.size = layout, found, len(raw)
        self.disk.ids = None if entries.split else frozenset(entries.entries)
        if txn.touched:
            self.disk.folded.add(found)
            self._commit(txn, file_sha1=found)
            for change in changes:
                self._publish(change)

    def _changed_entries(self, raw: bytes, known: dict[str, Chunk]) -> _Entries:
        """The file's entries: ``(None, text)`` for an entry whose text is what we knew, else the
        parsed item (only changed entries are parsed; a file that does not split is parsed whole)."""
        split = split_chunks(raw)
        keys = [key for key, _ in split[1]] if split is not None else []
        if split is None or None in keys or len(set(keys)) != len(keys):
            try:
                parsed = parse_items(raw, str(self.files.path))
            except _PARSE_ERRORS as exc:
                raise self.corrupt(self.files.path, exc) from exc
            return _Entries(b"", False, {mid: (item, None) for mid, item in parsed.items.items()})
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
            except _PARSE_ERRORS as exc:
                raise self.corrupt(self.files.path, exc) from exc
            for key, text in changed:
                item = parsed.items.get(key)
                if item is None:
                    raise self.corrupt(self.files.path, ValueError(f"entry {key!r} could not be read"))
                out[key] = (item, text)
        return _Entries(split[0], True, out)

    @staticmethod
    def _edited(memory_id: str, item: MemoryItem, current: MemoryItem | None, chunk: Chunk | None) -> MemoryItem:
        """The memory's new state: the file's, with the edit in its history."""
        new = item.copy()
        if current is None:
            if not new.history:
                new.record_creation(FILE, ADD_REASON)
            return new
        if chunk is not None and chunk.item is not None and new.history == chunk.item.history:
            new.history = current.copy().history  # the history was not edited: keep what the log added
        if (new.description, new.theme) != (current.description, current.theme):
            new.history.append({"time": now_iso(), "action": "update", "actor": FILE, "reason": EDIT_REASON,
                                "old_description": current.description, "new_description": new.description,
                                "old_theme": current.theme, "new_theme": new.theme})
            new.latest_update_time = new.history[-1]["time"]
        return new

    @staticmethod
    def _change_of(memory_id: str, new: MemoryItem, current: MemoryItem | None) -> MemoryChange:
        if current is None:
            kind = "add"
        elif (new.description, new.theme) != (current.description, current.theme):
            kind = "update"
        elif {**new.to_dict(copy=False), "hit": 0} == {**current.to_dict(copy=False), "hit": 0}:
            kind = "hit"  # only the count
        else:
            kind = "set"
        extra = {"hit": new.hit} if kind == "hit" else {}
        reason = ADD_REASON if kind == "add" else EDIT_REASON
        return MemoryChange(kind, (memory_id,), FILE, reason, states={memory_id: card_state(new)}, extra=extra,
                            local=False)


__all__ = ["ADD_REASON", "DELETE_REASON", "EDIT_REASON", "SETTLE_SECONDS", "YamlFiles", "YamlSync", "sha1"]
