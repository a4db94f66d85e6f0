"""YamlSync: how a YAML store takes in what is on disk (``YamlMemoryManager``'s reading half).

Another instance's new log records are applied from where this one stopped reading; a compaction
by another instance is adopted without parsing when its files hold what this one holds; anything
else (an editor, a restored backup, a damaged log) is a full parse of the files plus the log, and
the differences are published as external changes.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import yaml

from . import change_log as journal
from ...changes import EXTERNAL, MemoryChange
from ...errors import StoreCorrupt
from ..validation import item_from_raw, validate_item
from .diff import foreign_changes
from .format import parse_items, parse_trash, read_cache, split_fragments
from .safe import YamlRefused

#: memory.yaml files larger than this get a JSON parse cache (``memory.yaml.cache``, checked by SHA-1).
CACHE_MIN_BYTES = 64 * 1024

_PARSE_ERRORS = (yaml.YAMLError, UnicodeDecodeError, YamlRefused, TypeError, RecursionError)


def sha1(data: bytes) -> str:
    return hashlib.sha1(data, usedforsecurity=False).hexdigest()


class YamlSync:
    """Needs the store's paths, ``_items`` / ``_trash`` and the log state set by ``_reset_state``,
    ``_stat_keys``, ``_write_cache``, ``_publish`` and ``read_only``; called with the file lock held."""

    def _corrupt(self, path: Path, exc: BaseException) -> StoreCorrupt:
        backup = str(self.backup_path) if path == self.path and self.backup_path.exists() else None
        return StoreCorrupt(str(path), str(exc).replace("\n", " "), backup)

    def _read(self, path: Path) -> bytes | None:
        try:
            return path.read_bytes()
        except FileNotFoundError:
            return None

    def _sync(self) -> None:
        """Take in what changed on disk since we last looked (lock held)."""
        keys = self._stat_keys()
        if self._items is None:
            self._full_load(publish=False)
            return
        if keys == self._keys:
            return
        assert self._keys is not None
        base, trash, log_key = keys
        old_base, old_trash, old_log = self._keys
        appended = (log_key is not None and old_log is not None and log_key[0] == old_log[0]
                    and log_key[2] >= self._log_end and bool(self._head)
                    and journal.head_of(self.log_path, len(self._head)) == self._head)
        if not appended:
            if not self._adopt_compaction(keys):
                self._full_load(publish=True)
            return
        if base != old_base:
            raw = self._read(self.path)
            if raw is None or sha1(raw) != self._base_sha1:
                self._full_load(publish=True)
                return
        if trash != old_trash:
            raw = self._read(self.trash_path)
            if (sha1(raw) if raw is not None else None) != self._trash_sha1:
                self._full_load(publish=True)
                return
        tail = self._read_log(self._log_end)
        if tail is None:
            self._full_load(publish=True)
            return
        self._take_records([r for r in tail.records if r["seq"] > self._seq], publish=True)
        self._log_end = tail.end
        self._keys = keys

    def _read_log(self, offset: int) -> journal.Tail | None:
        try:
            return journal.read(self.log_path, offset)
        except journal.JournalCorrupt as exc:
            raise self._corrupt(self.log_path, exc) from exc

    def _files_match(self, header: journal.Header, base: Any, trash: Any) -> tuple[bool, bytes | None, bytes | None]:
        """Whether memory.yaml and the trash file are the ones ``header`` describes (by identity,
        else by content). Also returns whatever it had to read."""
        base_raw = trash_raw = None
        if base != header.base_stat:
            base_raw = self._read(self.path)
            if base_raw is None or sha1(base_raw) != header.base_sha1:
                return False, base_raw, None
        if trash != header.trash_stat:
            trash_raw = self._read(self.trash_path)
            if (sha1(trash_raw) if trash_raw is not None else None) != header.trash_sha1:
                return False, base_raw, trash_raw
        return True, base_raw, trash_raw

    def _adopt_compaction(self, keys: tuple[Any, Any, Any]) -> bool:
        """Another instance compacted: when its files hold what we hold, or what we hold plus
        records it carried over, take them in without parsing. False when a full read is needed."""
        base, trash, _ = keys
        tail = self._read_log(0)
        if tail is None or tail.header is None or tail.header.lineage != self._lineage:
            return False
        header = tail.header
        seqs = {r["seq"] for r in tail.records}
        if not (self._seq == header.base_seq or (self._seq < header.base_seq and self._seq + 1 in seqs)):
            return False
        matches, _, _ = self._files_match(header, base, trash)
        if not matches:
            return False
        newer = [r for r in tail.records if r["seq"] > self._seq]
        self._base_sha1, self._trash_sha1 = header.base_sha1, header.trash_sha1
        self._base_seq, self._log_ok, self._log_end, self._head = header.base_seq, True, tail.end, tail.head
        self._base_size = base[2] if base else 0
        self._take_records(newer, publish=True)
        self._trash_dirty = any(r.get("trash") for r in newer if r["seq"] > header.base_seq)
        self._keys = keys
        return True

    def _full_load(self, *, publish: bool) -> tuple[list[str], list[str]]:
        """Parse the files and replay the log. Returns (issues, repaired) of the parse."""
        self.full_reads += 1
        keys = self._stat_keys()
        base, trash, _ = keys
        raw = self._read(self.path) or b""
        base_sha1 = sha1(raw)
        cached = read_cache(self.cache_path, base_sha1) if len(raw) > CACHE_MIN_BYTES else None
        if cached is not None:
            items, issues, repaired = cached
        else:
            try:
                items, issues, repaired = parse_items(raw, str(self.path))
            except _PARSE_ERRORS as exc:
                raise self._corrupt(self.path, exc) from exc
            if len(raw) > CACHE_MIN_BYTES and not (issues or repaired or self.read_only):
                self._write_cache(base_sha1, items)
        trash_raw = self._read(self.trash_path)
        trash_items: dict[str, dict[str, Any]] | None
        trash_error = None
        try:
            trash_items = parse_trash(trash_raw, str(self.trash_path)) if trash_raw is not None else {}
        except _PARSE_ERRORS as exc:
            trash_items, trash_error = None, self._corrupt(self.trash_path, exc)
        tail = self._read_log(0)
        header = tail.header if tail is not None else None
        trash_sha1 = sha1(trash_raw) if trash_raw is not None else None
        matches = header is not None and (header.base_stat == base or header.base_sha1 == base_sha1) and (
            header.trash_stat == trash or header.trash_sha1 == trash_sha1)
        records = tail.records if tail is not None else []
        # Records up to the header's base_seq are in the files it describes (or in files written
        # later: a crash mid-compaction, an edit by hand), so only newer ones are replayed; those
        # are absolute states, harmless to apply to files that already hold them.
        replay = [r for r in records if r["seq"] > (header.base_seq if header else 0)]
        seq = max([header.base_seq if header else 0, *(r["seq"] for r in records)])
        if matches:
            assert header is not None
            lineage, base_seq = header.lineage, header.base_seq
            fragments = {} if issues or repaired else split_fragments(raw.decode("utf-8"), items)
        else:  # no log, or files changed by something else: a new lineage, compacted at the next write
            lineage, fragments = "h" + base_sha1[:16], {}
            base_seq = None if replay else seq
        previous_items, previous_trash = self._items, self._trash
        self._items, self._trash, self._trash_error = items, trash_items, trash_error
        self._fragments = fragments
        self._take_records(replay, publish=False)
        self._base_sha1, self._trash_sha1, self._base_size = base_sha1, trash_sha1, len(raw)
        self._lineage, self._seq, self._base_seq = lineage, seq, base_seq
        self._log_ok = matches
        self._log_end = tail.end if tail is not None else 0
        self._head = tail.head if tail is not None else b""
        self._trash_dirty = any(r.get("trash") for r in replay)
        self._needs_rewrite = bool(repaired) or any(i.startswith("duplicate id") for i in issues)
        self._keys = keys
        if publish and previous_items is not None:
            changes = foreign_changes(previous_items, self._items, lambda: self._trash or {})
            if not changes and previous_trash != self._trash:
                changes = [MemoryChange("purge", (), EXTERNAL, local=False)]  # only the trash changed
            for change in changes:
                self._publish(change)
        return issues, repaired

    def _take_records(self, records: list[dict[str, Any]], *, publish: bool) -> None:
        """Apply log records (absolute states) to the state; publish their changes when asked."""
        if not records:
            return
        assert self._items is not None
        items = dict(self._items)
        trash = dict(self._trash) if self._trash is not None else None  # None: the trash file is damaged
        changes: list[MemoryChange] = []
        for record in records:
            for mid, raw in (record.get("items") or {}).items():
                if raw is None:
                    items.pop(mid, None)
                    continue
                item, _ = item_from_raw(mid, raw)
                validate_item(mid, item)
                items[mid] = item
            for mid, entry in (record.get("trash") or {}).items() if trash is not None else ():
                if entry is None:
                    trash.pop(mid, None)
                else:
                    trash[mid] = entry
            if record.get("trash"):
                self._trash_dirty = True
            self._seq = max(self._seq, int(record["seq"]))
            if publish and record.get("origin") != self._origin:
                recorded = record.get("changes") or []
                for data in recorded:
                    try:
                        changes.append(MemoryChange.from_dict(data, local=False))
                    except ValueError:  # not a change record (another program's): views re-read
                        changes.append(MemoryChange("reload", (), EXTERNAL, local=False))
                if not recorded:
                    changes.append(MemoryChange("reload", (), EXTERNAL, local=False))
        self._items, self._trash = items, trash
        for change in changes:
            self._publish(change)
