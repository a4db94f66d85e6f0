"""What was imported, kept beside the memory store (``<store>.imports/``, owner-only)::

    ledger.jsonl            one line per written batch: {"import", "batch", "keys"} (fsync'd appends)
    <import id>/state.json  the import: where from, options, counts, status
    <import id>/conversations.json  each batch's conversation, title, time and keys (no text; kept:
                            undo per conversation)
    <import id>/journal/    the import writer's turn journal (``memory/writer/journal.py``): the
                            batches still to write, their text written there once
    <import id>/batches.jsonl   an import begun by an older version: its batches still to journal

A batch's keys are appended once its memories are written and before its journal entry is removed,
so after a kill a batch is either in the ledger or still journaled (a replay of a written batch is
answered from its recorded progress, and the ledger is read as a set). A later plan skips every key
of an import that is not undone: undoing an import (``note_undo``; also one that kept the memories
the person had changed since, ``kept``) lets the same chats be imported again, and undoing that undo
makes them imported again. A torn last line (a kill mid-append) is ignored.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable

from ..memory.files import atomic_write, fsync_dir, private_dir, private_opener
from ..memory.item import now_iso
from ..memory.writer.journal import TurnJournal, default_journal_path

log = logging.getLogger(__name__)

LEDGER = "ledger.jsonl"
STATE = "state.json"
BATCHES = "batches.jsonl"
CONVERSATIONS = "conversations.json"
#: Turn ids of an import: ``imp-<8 hex>`` for the whole import (its undo id), ``imp-<8 hex>-<seq>``
#: for each batch (the undo takes every batch back as one: ``memory/undo.py``).
PREFIX = "imp-"
RUNNING, PAUSED, DONE, UNDONE = "running", "paused", "done", "undone"


def imports_dir(store: Any) -> Path:
    """``<store dir>/<store stem>.imports`` (for a store on a server: beside its local journal)."""
    journal = getattr(store, "journal_path", None) or default_journal_path(store.path)
    return Path(journal).with_name(Path(journal).stem + ".imports")


def note_undo(store: Any, undone: str, undo_turn_id: str, *, kept: int = 0) -> ImportState | None:
    """After any undo in ``store`` (``sonetto memory undo``, the window): if it took back an import,
    or an undo of one, the ledger follows (see ``ImportLedger.note_undo``). Nothing when the store
    has no imports. Blocking."""
    folder = imports_dir(store)
    if not folder.is_dir() or not undone.startswith((PREFIX, "undo-")):
        return None
    return ImportLedger(folder).note_undo(undone, undo_turn_id, kept=kept)


def new_import_id() -> str:
    return f"{PREFIX}{uuid.uuid4().hex[:8]}"


def batch_turn_id(import_id: str, seq: int) -> str:
    return f"{import_id}-{seq:06d}"


def batch_seq(turn_id: str) -> int | None:
    head, _, tail = turn_id.rpartition("-")
    return int(tail) if head.startswith(PREFIX) and tail.isdigit() else None


@dataclass
class ImportState:
    """One import. ``status``: running | paused (by the person) | done | undone."""

    id: str
    source: str
    label: str
    file_name: str
    digest: str
    status: str = RUNNING
    created_at: str = field(default_factory=now_iso)
    finished_at: str | None = None
    since: str | None = None
    until: str | None = None
    selected: list[str] | None = None
    review: bool = False
    batches: int = 0
    turns: int = 0
    batches_done: int = 0
    turns_written: int = 0
    memories_created: int = 0
    memories_updated: int = 0
    memories_deleted: int = 0
    proposals: int = 0
    failed_batches: int = 0
    undone_by: str | None = None
    kept: int = 0  # undone but for this many memories the person had changed since (``undo_import(rest=True)``)
    redone_by: str | None = None  # undone, then that undo taken back (``redo_import``): undoing it again undoes this
    undone_conversations: dict[str, str] = field(default_factory=dict)  # conversation id -> its undo's turn id

    @property
    def unfinished(self) -> bool:
        return self.status in (RUNNING, PAUSED)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ImportState":
        known = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        return cls(**known)


class ImportLedger:
    """The imports of one store (see the module docstring). Blocking file I/O: call it off the loop."""

    def __init__(self, folder: str | os.PathLike[str]) -> None:
        self.folder = Path(folder)

    # ── keys ──────────────────────────────────────────────────────────

    def _lines(self) -> list[dict[str, Any]]:
        try:
            raw = (self.folder / LEDGER).read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        out = []
        for line in raw.splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                continue  # a torn line of an append a kill cut short
            if isinstance(entry, dict) and isinstance(entry.get("keys"), list):
                out.append(entry)
        return out

    def imported_keys(self) -> set[str]:
        """Every key written by an import that is not undone (nor the conversation it came from)."""
        states = self.imports()
        undone = {s.id for s in states if s.status == UNDONE}
        left_out = {(s.id, seq) for s in states if s.undone_conversations and s.status != UNDONE
                    for seq, conversation in self.batch_conversations(s.id).items()
                    if conversation in s.undone_conversations}
        return {k for e in self._lines() if e.get("import") not in undone
                and (e.get("import"), e.get("batch")) not in left_out for k in e["keys"]}

    def waiting_keys(self) -> set[str]:
        """The keys of the batches unfinished imports (paused, or running when the app stopped) have
        still to write: a new import of the same chats leaves them to that import, which writes them
        when it goes on (else both would)."""
        out: set[str] = set()
        unfinished = self.unfinished()
        if not unfinished:
            return out
        written: dict[str, set[int]] = {}  # (the ledger read once, not once per import)
        for entry in self._lines():
            if isinstance(entry.get("batch"), int):
                written.setdefault(str(entry.get("import")), set()).add(entry["batch"])
        for state in unfinished:
            done = written.get(state.id, set())
            for batch in self.load_batches(state.id):
                if batch.get("seq") not in done and isinstance(batch.get("keys"), list):
                    out.update(str(k) for k in batch["keys"])
        return out

    def written_batches(self, import_id: str) -> dict[int, int]:
        """The batches of ``import_id`` written so far: batch -> how many exchanges (turns) it held."""
        return {int(e["batch"]): len(e["keys"]) for e in self._lines()
                if e.get("import") == import_id and isinstance(e.get("batch"), int)}

    def record(self, import_id: str, seq: int, keys: Iterable[str]) -> None:
        """Durably note that batch ``seq`` of ``import_id`` is written (idempotent in effect)."""
        line = json.dumps({"import": import_id, "batch": seq, "keys": list(keys)}, ensure_ascii=False) + "\n"
        private_dir(self.folder)
        path = self.folder / LEDGER
        with open(path, "ab", opener=private_opener) as fh:
            fh.seek(0, os.SEEK_END)
            if fh.tell():  # a torn last line (no newline) must not swallow this one
                with open(path, "rb") as check:
                    check.seek(-1, os.SEEK_END)
                    if check.read(1) != b"\n":
                        fh.write(b"\n")
            fh.write(line.encode("utf-8"))
            fh.flush()
            os.fsync(fh.fileno())

    # ── imports ───────────────────────────────────────────────────────

    def folder_of(self, import_id: str) -> Path:
        return self.folder / import_id

    def journal_path(self, import_id: str) -> Path:
        return self.folder_of(import_id) / "journal"

    def imports(self) -> list[ImportState]:
        """Every import, oldest first (unreadable state files are skipped, and logged)."""
        if not self.folder.is_dir():
            return []
        found = []
        for child in self.folder.iterdir():
            if not child.name.startswith(PREFIX) or not (child / STATE).is_file():
                continue
            try:
                found.append(ImportState.from_dict(json.loads((child / STATE).read_text(encoding="utf-8"))))
            except (OSError, ValueError, TypeError) as exc:
                log.error("import state %s cannot be read: %s", child / STATE, exc)
        return sorted(found, key=lambda s: s.created_at)

    def get(self, import_id: str) -> ImportState | None:
        return next((s for s in self.imports() if s.id == import_id), None)

    def save(self, state: ImportState) -> None:
        private_dir(self.folder_of(state.id))
        atomic_write(self.folder_of(state.id) / STATE, json.dumps(asdict(state), ensure_ascii=False,
                                                                  indent=1).encode("utf-8"))

    def unfinished(self, digest: str | None = None) -> list[ImportState]:
        return [s for s in self.imports() if s.unfinished and (digest is None or s.digest == digest)]

    # ── batches still to write ────────────────────────────────────────

    def save_batches(self, import_id: str, batches: Iterable[dict[str, Any]]) -> None:
        """The import's index (fsync'd), written before its batches are journaled: which conversation
        each batch came from (kept after the import too), its title, time, keys and turns — never its
        text, which is in the import writer's journal."""
        batches = list(batches)
        meta = ("now", "keys", "turns")
        index = {"batches": {str(b["seq"]): str(b.get("conversation") or "") for b in batches},
                 "titles": {str(b.get("conversation") or ""): str(b.get("title") or "") for b in batches},
                 "records": {str(b["seq"]): {k: b[k] for k in meta if k in b} for b in batches}}
        private_dir(self.folder_of(import_id))
        atomic_write(self.folder_of(import_id) / CONVERSATIONS, json.dumps(index, ensure_ascii=False).encode("utf-8"))

    def _index(self, import_id: str) -> dict[str, Any]:
        try:
            data = json.loads((self.folder_of(import_id) / CONVERSATIONS).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def batch_conversations(self, import_id: str) -> dict[int, str]:
        """Batch -> the conversation it came from (empty for an import made before this was kept)."""
        batches = self._index(import_id).get("batches")
        if not isinstance(batches, dict):
            return {}
        return {int(seq): str(conversation) for seq, conversation in batches.items() if str(seq).isdigit()}

    def conversations(self, import_id: str) -> list[tuple[str, str, list[int]]]:
        """The import's conversations in the order they were written: (id, title, its batches)."""
        index = self._index(import_id)
        titles = index.get("titles") if isinstance(index.get("titles"), dict) else {}
        found: dict[str, list[int]] = {}
        for seq, conversation in sorted(self.batch_conversations(import_id).items()):
            found.setdefault(conversation, []).append(seq)
        return [(cid, str(titles.get(cid) or ""), seqs) for cid, seqs in found.items()]

    def note_conversation_undo(self, import_id: str, conversation_id: str, undo_turn_id: str) -> ImportState | None:
        """One conversation of ``import_id`` was undone (its chats can be imported again)."""
        state = self.get(import_id)
        if state is None:
            return None
        state.undone_conversations[conversation_id] = undo_turn_id
        self.save(state)
        return state

    def load_batches(self, import_id: str) -> list[dict[str, Any]]:
        """The index's record of each batch (seq, conversation, title, now, keys, turns; no text)."""
        index = self._index(import_id)
        records = index.get("records")
        if not isinstance(records, dict):  # an import begun by an older version
            legacy = self.legacy_batches(import_id) or []
            return [{k: v for k, v in b.items() if k != "messages"} for b in legacy]
        titles = index.get("titles") if isinstance(index.get("titles"), dict) else {}
        out = []
        for seq, conversation in self.batch_conversations(import_id).items():
            meta = records.get(str(seq)) if isinstance(records.get(str(seq)), dict) else {}
            out.append({"seq": seq, "conversation": conversation, "title": str(titles.get(conversation) or ""),
                        **meta})
        return sorted(out, key=lambda r: r["seq"])

    def legacy_batches(self, import_id: str) -> list[dict[str, Any]] | None:
        """The ``batches.jsonl`` of an import begun by an older version (with their text), or None."""
        try:
            text = (self.folder_of(import_id) / BATCHES).read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        return [json.loads(line) for line in text.splitlines() if line.strip()]

    def sweep_unbegun(self) -> list[str]:
        """Take away the folders of imports that never began: killed (a crash, the power) while their
        batches were being journaled, before they were listed (no state file) — their journals hold the
        chats' text, and nothing lists or resumes them. One whose journal is claimed is being prepared
        by another process now and stays. Returns the ids taken away."""
        try:
            children = list(self.folder.iterdir()) if self.folder.is_dir() else []
        except OSError as exc:
            log.warning("history import: %s could not be looked at: %s", self.folder, exc)
            return []
        swept = []
        for child in children:
            if not child.name.startswith(PREFIX) or not child.is_dir() or (child / STATE).exists():
                continue
            journal = TurnJournal(child / "journal")
            try:
                if journal.path.is_dir():
                    if not journal.claim():
                        continue
                    journal.release()
            except OSError as exc:  # (a folder it cannot look into: left, and the import goes on)
                log.warning("history import: %s could not be looked at: %s", child, exc)
                continue
            shutil.rmtree(child, ignore_errors=True)
            swept.append(child.name)
        if swept:
            log.info("history import: removed %d imports that never began: %s", len(swept), ", ".join(swept))
        return swept

    def discard(self, import_id: str) -> None:
        """An import that could not begin (its batches not all journaled): its folder goes."""
        shutil.rmtree(self.folder_of(import_id), ignore_errors=True)

    def drop_legacy_batches(self, import_id: str) -> None:
        """Once its batches are journaled (fsync'd there), an older import's ``batches.jsonl`` goes."""
        (self.folder_of(import_id) / BATCHES).unlink(missing_ok=True)
        fsync_dir(self.folder_of(import_id))

    def finish(self, import_id: str) -> None:
        """The import is over: its parsed chats leave the disk (the journal's failed turns stay)."""
        folder = self.folder_of(import_id)
        (folder / BATCHES).unlink(missing_ok=True)
        journal = self.journal_path(import_id)
        left = [p for sub in ("pending", "failed") if (journal / sub).is_dir()
                for p in (journal / sub).iterdir() if p.suffix == ".json"]
        if not left:
            shutil.rmtree(journal, ignore_errors=True)
        if folder.is_dir():
            fsync_dir(folder)

    def running_elsewhere(self, import_id: str) -> bool:
        """Another process (a window, a command line) is writing the import now: it holds the import's
        journal. (An import this process runs is stopped before it is undone.)"""
        journal = TurnJournal(self.journal_path(import_id))
        if not journal.path.is_dir():
            return False
        if not journal.claim():
            return True
        journal.release()
        return False

    def drop_journal(self, import_id: str) -> bool:
        """The import is undone: the batches it had still to write (stopped part-way) or gave up on
        leave the disk — their text is the chats' — as an older version's ``batches.jsonl`` does.
        False (nothing removed) when a writer holds its journal (another process is running it)."""
        journal = TurnJournal(self.journal_path(import_id))
        if not journal.path.is_dir():
            (self.folder_of(import_id) / BATCHES).unlink(missing_ok=True)
            return True
        if not journal.claim():
            return False
        try:
            for folder in (journal.pending_dir, journal.failed_dir, journal.quarantine_dir):
                shutil.rmtree(folder, ignore_errors=True)
            (self.folder_of(import_id) / BATCHES).unlink(missing_ok=True)
        finally:
            journal.release()
        shutil.rmtree(journal.path, ignore_errors=True)
        fsync_dir(self.folder_of(import_id))
        return True

    def drop_batches(self, import_id: str, seqs: Iterable[int]) -> bool:
        """Batches ``seqs`` of an unfinished import, not to be written any more (their conversation
        was undone), leave its journal. False (nothing removed) when a writer holds the journal."""
        wanted = {batch_turn_id(import_id, seq) for seq in seqs}
        journal = TurnJournal(self.journal_path(import_id))
        if not wanted or not journal.path.is_dir():
            return True
        if not journal.claim():
            return False
        try:
            after = 0
            while window := journal.pending_window(after, 64)[0]:
                for entry in window:
                    if entry.turn_id in wanted:
                        journal.remove(entry)
                after = window[-1].seq
            for entry in journal.failed(text=False):
                if entry.turn_id in wanted:
                    journal.discard_failed(entry)
        finally:
            journal.release()
        return True

    # ── undo ──────────────────────────────────────────────────────────

    def note_undo(self, undone: str, undo_turn_id: str, *, kept: int = 0) -> ImportState | None:
        """After ``undo_turn(undone)`` succeeded with its own turn ``undo_turn_id``: an undone import
        is marked so (its chats can be imported again; ``kept``: memories the person had changed since,
        left as they were); an undone undo of an import marks it done again (``redone_by``: that redo,
        which a later undo of the import takes back, or any undo of it). Returns the import concerned,
        or None."""
        for state in self.imports():
            back = [c for c, by in state.undone_conversations.items() if by == undone]
            if back:  # a conversation's undo taken back: its chats count as imported again
                for conversation in back:
                    del state.undone_conversations[conversation]
                self.save(state)
                return state
            if state.status != UNDONE and undone in (state.id, state.redone_by):
                state.status, state.undone_by, state.kept, state.redone_by = UNDONE, undo_turn_id, kept, None
            elif state.status == UNDONE and state.undone_by == undone:
                state.status, state.undone_by, state.kept, state.redone_by = DONE, None, 0, undo_turn_id
            else:
                continue
            self.save(state)
            return state
        return None
