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

A save is merged three ways against the version it was made from (``fold``, ``versions``, ``merge``):
an editor's buffer read before Sonetto's last writes reverts nothing of them, entries the person
changed win, a true conflict keeps both versions and is said.

A file that is gone or unusable is damage, never "the person deleted everything" (``notices``):

- gone, or replaced by a link (never followed): the memories held are kept and written out again;
- unreadable (does not parse, larger than :data:`MAX_FILE_BYTES`, no permission): the last good
  state is still served, writes are refused and the file is never written over, until it reads again.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from . import change_log as journal
from ...changes import EXTERNAL, MemoryChange
from ... import kinds
from ...errors import StoreCorrupt
from ..notices import CONDITIONS, StoreNotice
from ..transaction import OverlayTransaction
from ..validation import item_from_raw, validate_item
from .cache import CACHE_MIN_BYTES, ParseCache
from .diff import foreign_changes
from .files import MAX_FILE_BYTES, PARSE_ERRORS, Keys, Refused, YamlFiles, sha1
from .fold import ADD_REASON, BACK_REASON, CONFLICT_REASON, DELETE_REASON, EDIT_REASON, SaveMerge, differing
from .format import Chunk, Layout, apply_flags, layout_of, parse_items, parse_trash, split_chunks
from .state import DiskState, MemoryState
from .versions import FileVersions

log = logging.getLogger(__name__)

#: A changed memory.yaml is taken in by readers once it has not changed for this long.
SETTLE_SECONDS = 0.1
#: An empty memory.yaml is taken for an emptied one only once it has been empty this long: an editor
#: saving in place empties the file first, and on a slow disk the writing can come a while later.
EMPTY_SETTLE_SECONDS = 2.0
#: How long a write waits for a memory.yaml still being saved to settle (else it goes on, and the save is
#: taken in once it has: merged against the version it was made from).
WRITE_SETTLE_WAIT = 0.5

class YamlSync:
    """Takes what is on disk into ``state`` (always with the store's file lock held). ``publish``
    hands a change to the store's channel; ``commit(txn)`` commits a write (a hand edit taken in);
    ``notice`` says something about the files once (``notices.StoreNotice``); ``rewrite_soon`` asks
    for memory.yaml to be written out again, ``look_later(seconds)`` for a look at the files then;
    ``new_id(txn)`` names a new memory."""

    def __init__(self, files: YamlFiles, log: journal.ChangeLog, state: MemoryState, disk: DiskState,
                 cache: ParseCache, *, origin: str, read_only: bool, publish: Callable[[MemoryChange], Any],
                 commit: Callable[..., None], notice: Callable[[StoreNotice], None] = lambda _: None,
                 rewrite_soon: Callable[[], None] = lambda: None,
                 look_later: Callable[[float], None] = lambda _: None,
                 new_id: Callable[[OverlayTransaction], str] | None = None) -> None:
        self.files = files
        self.log = log
        self.state = state
        self.disk = disk
        self.cache = cache
        self.origin = origin
        self.read_only = read_only
        self._publish = publish
        self._commit = commit
        self._notice = notice
        self._rewrite_soon = rewrite_soon
        self._look_later = look_later
        self._new_id = new_id
        self.keys: Keys | None = None  # the files' identities as last taken in
        self.edit_pending = False  # memory.yaml changed and is not taken in yet (not settled)
        self.full_reads = 0
        #: Why memory.yaml cannot be used now (the last good state is served, writes are refused).
        self.damage: StoreCorrupt | None = None
        #: The earlier texts of memory.yaml a save may have been made from.
        self.versions = FileVersions()
        self._conditions: set[str] = set()  # the lasting conditions said (once each until they end)
        #: Saves of memory.yaml taken in as hand edits.
        self.merge = SaveMerge(files, state, disk, self.versions, commit=commit, publish=publish, say=self.say,
                               rewrite_soon=rewrite_soon, new_id=new_id)
        self._watched: list[Any] = []  # files rewrites displaced from memory.yaml, while they are watched

    def current(self) -> bool:
        return (self.state.items is not None and not any(w.pending() for w in self._watched)
                and self.files.keys() == self.keys)

    def corrupt(self, path: Path, exc: BaseException) -> StoreCorrupt:
        return self.files.corrupt(path, exc)

    def _read_log(self, offset: int) -> journal.Tail | None:
        try:
            return self.log.read(offset)
        except journal.JournalCorrupt as exc:
            raise self.corrupt(self.files.log_path, exc) from exc

    def say(self, notice: StoreNotice) -> None:
        """Say ``notice`` (a lasting condition: once, until ``ended``)."""
        if notice.kind in CONDITIONS:
            if notice.kind in self._conditions:
                return
            self._conditions.add(notice.kind)
        self._notice(notice)

    def ended(self, kind: str, then: StoreNotice | None = None) -> None:
        """The lasting condition ``kind`` is over: ``then`` says so (if it was said)."""
        if kind in self._conditions:
            self._conditions.discard(kind)
            if then is not None:
                self._notice(then)

    # ── taking in ──────────────────────────────────────────────────────

    def sync(self, *, settle: bool = True, strict: bool = False) -> None:
        """Take in what changed on disk since we last looked. ``settle``: leave a memory.yaml that
        changed less than ``SETTLE_SECONDS`` ago for a later look (``edit_pending``). ``strict`` (a
        write): raise when memory.yaml cannot be used (else the last good state is kept, and said)."""
        try:
            self._sync(settle)
        except StoreCorrupt as exc:
            if strict or self.state.items is None or exc.path not in (str(self.files.path),
                                                                      str(self.files.trash_path)):
                raise
            self._damaged(exc)
        if strict and self.damage is not None:
            raise self.damage

    def watch_replaced(self, replaced: Any) -> None:
        """A rewrite just displaced a file from memory.yaml; ``replaced`` (``writer._Replaced``) is that
        file, kept open a moment: a save into it (in place, or one that landed as it was displaced) is
        taken in once it has settled (now, or at a look until the watch ends)."""
        self._watched.append(replaced)
        self._take_replaced()

    def _take_replaced(self) -> None:
        for replaced in list(self._watched):
            raw = replaced.written()
            if raw is not None:
                self.take_saved(raw, made_from=replaced.made_from)
                replaced.taken()
            if time.monotonic() > replaced.until and replaced.path is None:
                replaced.close()
                self._watched.remove(replaced)
        if self._watched:
            self._look_later(SETTLE_SECONDS)  # (taken in even when nothing reads or writes meanwhile)

    def take_saved(self, raw: bytes, *, made_from: str = "") -> None:
        """A save of memory.yaml that a rewrite displaced (written into the old file, or renamed over it
        at the last moment), made from the file with SHA-1 ``made_from`` or an older one: taken in as a
        hand edit, and the file written again."""
        if self.state.items is None or self.read_only:
            return
        found = sha1(raw)
        if found == self.disk.sha1:
            return
        log.info("memory.yaml was saved while it was being rewritten: the save is taken in")
        try:
            self.fold(raw, found, made_from=made_from)
        except StoreCorrupt as exc:  # (a save that does not parse: kept as the last good state, and said)
            self.say(StoreNotice("file_unreadable", exc.path, f"a save that was displaced by a rewrite: {exc.detail}"))
            return
        self.disk.needs_rewrite = True
        self._rewrite_soon()

    def close(self) -> None:
        """Stop watching displaced files (a displaced save not taken in yet stays on disk for the next
        opening)."""
        for replaced in self._watched:
            replaced.close()
        self._watched.clear()

    def _take_displaced(self) -> None:
        """Saves displaced by a rewrite and not taken in before the store stopped (a crash): taken in now."""
        for path in self.files.displaced():
            try:
                raw = self.files.read(path)
            except Refused:
                continue
            if not raw:
                path.unlink(missing_ok=True)
                continue
            try:
                self.take_saved(raw)
            except StoreCorrupt:
                continue
            path.unlink(missing_ok=True)

    def _sync(self, settle: bool) -> None:
        self._take_replaced()
        keys = self.files.keys()
        if self.state.items is None:
            self.full_load(publish=False)
            return
        if keys == self.keys:
            return
        assert self.keys is not None
        base, trash, log_key = keys
        old_base, old_trash, old_log = self.keys
        if log_key is None and old_log is not None:
            # The log was removed under us: the state holds every write; the files are written out again
            # with a new log (never read as "no writes since the file").
            self.log.reset()
            self.disk.needs_rewrite = True
            self._rewrite_soon()
        elif self.log.appended_only(log_key, old_log):
            tail = self._read_log(self.log.end)
            if tail is None:
                self.full_load(publish=True)
                return
            self.take_records([r for r in tail.records if r["seq"] > self.state.seq], publish=True)
            self.log.end = tail.end
        elif log_key is not None and not self._adopt():
            self.full_load(publish=True)
            return
        header = self.log.header
        if trash != old_trash:
            if header is not None and trash is not None and trash == header.trash_stat:
                self.disk.trash_sha1 = header.trash_sha1  # another instance's rewrite
            else:
                raw = self._read_kept(self.files.trash_path)
                if raw is None:  # gone (or a link): the trash held is kept and written out again
                    self.disk.trash_written = -1
                    self._rewrite_soon()
                else:
                    found = sha1(raw)
                    if found not in (self.disk.trash_sha1, header.trash_sha1 if header else None):
                        self.full_load(publish=True)  # the trash file was changed by something else
                        return
                    self.disk.trash_sha1 = found
        self.edit_pending = False
        if base != old_base:
            if header is not None and base is not None and base == header.base_stat:
                self.disk.sha1 = header.base_sha1  # another instance's rewrite
                self.versions.clear()  # (its text is not read: earlier versions no longer connect)
                self._readable()
            elif not self._take_file(base, settle):
                self.edit_pending = True
                keys = (old_base, *keys[1:])  # looked at again next time
        self.keys = keys

    def _read_kept(self, path: Path) -> bytes | None:
        """A file of the store read while the store holds its state: ``None`` when it is gone or a
        link was put in its place (both said; the state is written out again). Raises
        ``StoreCorrupt`` when it cannot be read."""
        try:
            raw = self.files.read(path)
        except Refused as exc:
            if exc.kind != "link":
                raise StoreCorrupt(str(path), exc.detail, words=exc.words) from exc
            self.say(StoreNotice("file_link", str(path), exc.detail))
            return None
        if raw is None:
            self.say(StoreNotice("file_missing", str(path), f"{path} disappeared: written again from the "
                                 "memories held"))
        return raw

    def _damaged(self, exc: StoreCorrupt) -> None:
        """memory.yaml (or the trash) cannot be used: keep serving the last good state, refuse writes."""
        self.damage = exc
        self.keys = self.files.keys()  # (not read again until it changes)
        self.edit_pending = False
        self.say(StoreNotice("file_unreadable", exc.path, exc.detail))

    def _readable(self) -> None:
        if self.damage is not None:
            path, self.damage = self.damage.path, None
            self.ended("file_unreadable", StoreNotice("file_readable", path))

    def _take_file(self, base: Any, settle: bool) -> bool:
        """memory.yaml changed on disk: a touch, another instance's rewrite, or a hand edit (taken in
        as a write). False when it is too fresh to take in yet."""
        raw = self._read_settled(wait=not settle) if base is not None else self._read_kept(self.files.path)
        if raw is False:
            return False
        if raw == b"" and base is not None and time.time() - base[1] / 1e9 < EMPTY_SETTLE_SECONDS:
            return False  # a save in place under way, maybe: looked at again
        if raw == b"":  # emptied (a save cut short, a sync client's placeholder): nothing to take in
            self.say(StoreNotice("file_missing", str(self.files.path), f"{self.files.path} was emptied: written "
                                 "again from the memories held"))
            raw = None
        if raw is None:  # gone, or a link in its place: the memories held are written out again
            self._readable()
            self.disk.file_known = False
            self.disk.needs_rewrite = True
            self._rewrite_soon()
            return True
        found = sha1(raw)
        header = self.log.header
        known = {self.disk.sha1}
        if header is not None:
            known |= {header.base_sha1, header.prev_sha1}
        if found == self.disk.sha1:
            self._readable()
            return True
        if found in known and not self.versions.known(found):
            self.disk.sha1 = found  # a rewrite cut short, another instance's: its records are applied
            self._readable()
            return True
        if found in self.disk.folded:  # another instance took this edit in: its record is applied
            self._learn_text(raw, found)
            self._readable()
            return True
        self.fold(raw, found)
        self._readable()
        return True

    def _read_settled(self, *, wait: bool) -> bytes | None | bool:
        """memory.yaml once it has been still for ``SETTLE_SECONDS`` and did not change while it was
        read (an editor saving in place empties the file, then writes it: a look in between must not
        take half a file for the person's edit). ``False``: not settled. ``wait`` (a write, which takes
        an edit in first): wait a moment for it to settle."""
        path = self.files.path
        deadline = time.monotonic() + WRITE_SETTLE_WAIT
        while True:
            key = journal.stat_key(path)
            age = time.time() - key[1] / 1e9 if key is not None else SETTLE_SECONDS
            if age >= SETTLE_SECONDS:
                raw = self._read_kept(path)
                if journal.stat_key(path) == key:
                    return raw
            if not wait or time.monotonic() >= deadline:
                return False
            time.sleep(max(0.005, min(SETTLE_SECONDS - age, 0.05)))

    def _learn_text(self, raw: bytes, found: str) -> None:
        """Know ``raw`` as the file's text (its chunks tied to no item: they are compared, not reused)."""
        split = split_chunks(raw)
        if split is None or None in (keys := [key for key, _ in split[1]]) or len(set(keys)) != len(keys):
            self.full_load(publish=True)  # (rare: a file that does not split; read whole)
            return
        old = self.disk.layout
        layout = Layout(split[0], {key: Chunk(None, text) for key, text in split[1]})  # type: ignore[misc]
        self.versions.advance(self.disk.sha1, old, differing(old, layout))
        self.disk.layout = layout
        self.disk.sha1, self.disk.size, self.disk.ids = found, len(raw), None
        self.disk.file_known = True

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
        """Read the files and replay the log. Returns (issues, repaired) of the reading. With a state
        held, a memory.yaml that is gone or a link keeps that state (written out again). Opening on a
        memory.yaml saved by something else while no store had it open (the log does not name it), with
        the file the log names still at hand (memory.yaml.bak): that file and the log are the state, and
        the save is merged into it as a hand edit (``fold``), as it would be while the store is open."""
        self.full_reads += 1
        keys = self.files.keys()
        held = self.state.items is not None
        try:
            raw = self.files.read(self.files.path)
        except Refused as exc:
            if exc.kind == "link" and held:
                raw = None
            else:
                raise StoreCorrupt(str(self.files.path), exc.detail,
                                   str(self.files.backup_path) if self.files.backup_path.exists() else None,
                                   exc.words) from exc
        if raw is None and held:
            self._take_file(None, settle=False)  # (says so, keeps the state, writes it out again)
            self.keys = keys
            return [], []
        raw = raw or b""
        trash = self._read_trash()
        tail = self._read_log(0)
        header = tail.header if tail is not None else None
        match = None
        if header is not None:
            match = header.holds(sha1(raw), trash.sha1)
            if match is None and header.base_stat == keys[0] and header.trash_stat == keys[1] and keys[0] is not None:
                match = "base"
        if match is None and not held and not self.read_only and header is not None and raw:
            named = self._named_copy(header, trash.sha1)
            if named is not None:  # a save made while closed: merged into the state the log names
                copy, match = named
                found = sha1(raw)
                read = self._install(copy, match, trash, tail, keys, publish=False)
                self.versions.load(self.files.versions_path, sha1(copy))
                try:
                    if found not in self.disk.folded:
                        issues, repaired = self.fold(raw, found)
                        read = (read[0] + issues, read[1] + repaired)
                    else:  # (taken in already, by a store that then stopped before writing the file)
                        self._learn_text(raw, found)
                except StoreCorrupt as exc:  # the save does not parse: the state the log names is served
                    self._damaged(exc)
                    raise
                self._take_displaced()
                return read
        read = self._install(raw, match, trash, tail, keys, publish=publish)
        if not held and not self.read_only:
            self._take_displaced()
        return read

    def _named_copy(self, header: journal.Header, trash_sha1: str | None) -> tuple[bytes, str] | None:
        """memory.yaml.bak when it is a file the log's header names (the one it holds, or the one before),
        with which: the state of the store is that file and the log's records after it."""
        try:
            copy = self.files.read(self.files.backup_path)
        except Refused:
            return None
        if not copy:
            return None
        match = header.holds(sha1(copy), trash_sha1)
        if match is None and sha1(copy) == header.base_sha1:
            match = "base"  # (the trash file was written by something else meanwhile: read as it is)
        return (copy, match) if match is not None else None

    def _read_trash(self) -> "_Trash":
        try:
            raw = self.files.read(self.files.trash_path)
        except Refused as exc:
            return _Trash(None, None, StoreCorrupt(str(self.files.trash_path), exc.detail))
        try:
            items = parse_trash(raw, str(self.files.trash_path)) if raw is not None else {}
        except PARSE_ERRORS as exc:
            return _Trash(None, sha1(raw) if raw is not None else None, self.corrupt(self.files.trash_path, exc))
        return _Trash(items, sha1(raw) if raw is not None else None, None)

    def _install(self, raw: bytes, match: str | None, trash: "_Trash", tail: journal.Tail | None, keys: Keys, *,
                 publish: bool) -> tuple[list[str], list[str]]:
        """Make ``raw`` (memory.yaml's text) and the trash the state, and replay the log's records it
        lacks (``match``: which file of the log's header it is, if any)."""
        base_sha1 = sha1(raw)
        parsed = self.cache.read(base_sha1, str(self.files.path)) if len(raw) > CACHE_MIN_BYTES else None
        if parsed is None:
            try:
                parsed = parse_items(raw, str(self.files.path))
            except PARSE_ERRORS as exc:
                raise self.corrupt(self.files.path, exc) from exc
        apply_flags(parsed.items, self.files.read_flags())  # the app's own fields (pinned), kept beside it
        header = tail.header if tail is not None else None
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
        held = self.state.items is not None
        previous_items, previous_trash = self.state.view() if held else None, (
            dict(self.state.trash) if self.state.trash is not None else None)
        layout = layout_of(raw, parsed.items)
        unwritten = {mid: None for mid in parsed.items if mid in parsed.rewrite or mid not in layout.chunks}
        self.state.replace(parsed.items, trash.items, trash.error, unwritten if layout.split else {})
        self.state.seq = seq
        self.disk.layout = layout
        self.disk.sha1, self.disk.size, self.disk.trash_sha1 = base_sha1, len(raw), trash.sha1
        self.disk.ids = frozenset(parsed.items) if unwritten or not layout.split else None
        self.disk.lineage = lineage
        self.disk.needs_rewrite = bool(parsed.rewrite)
        self.disk.file_known = True
        self.disk.trash_written = self.state.trash_version
        self.versions.clear()
        self.take_records(replay, publish=False)
        self.disk.base_seq = start
        self.log.follow(tail, ok=match == "base")
        self.keys = keys
        self.edit_pending = False
        self._readable()
        if publish and previous_items is not None:
            changes = foreign_changes(previous_items, self.state.view(), lambda: self.state.trash or {})
            if not changes and previous_trash != self.state.trash:
                changes = [MemoryChange(kinds.PURGE, (), EXTERNAL, local=False)]  # only the trash changed
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
                        changes.append(MemoryChange(kinds.RELOAD, (), EXTERNAL, local=False))
                if not recorded and not record.get("restated"):  # (a record that only restates states: none)
                    changes.append(MemoryChange(kinds.RELOAD, (), EXTERNAL, local=False))
        for change in changes:
            self._publish(change)

    # ── a hand edit ────────────────────────────────────────────────────

    def fold(self, raw: bytes, found: str, *, made_from: str = "") -> tuple[list[str], list[str]]:
        """memory.yaml was saved by something else while we hold a state: taken in (``fold.SaveMerge``;
        a read-only store reads it whole instead). Returns (issues, repaired) of reading the save."""
        if self.read_only:
            return self.full_load(publish=True)
        return self.merge.fold(raw, found, made_from=made_from)


@dataclass
class _Trash:
    """The trash file as read: its entries (``None``: damaged), SHA-1, and why it is damaged."""

    items: dict[str, dict[str, Any]] | None
    sha1: str | None
    error: StoreCorrupt | None


__all__ = ["ADD_REASON", "BACK_REASON", "CONFLICT_REASON", "DELETE_REASON", "EDIT_REASON", "MAX_FILE_BYTES", "Refused",
           "SETTLE_SECONDS", "WRITE_SETTLE_WAIT", "YamlFiles", "YamlSync", "sha1"]
