"""Durable turn journal: a chat turn is on disk before ``send_history`` returns and leaves the
disk only after the writer consumed it.

Layout — one JSON file per turn, in a directory next to the store::

    <store dir>/<store stem>.journal/pending/<seq>-<key>.json   waiting (or being retried)
    <store dir>/<store stem>.journal/failed/<seq>-<key>.json    gave up after N attempts (or held); kept
    <store dir>/<store stem>.journal/quarantine/<name>            a file not named as its content says
                                                                (renamed or copied in by hand): kept, never replayed

Why one file per turn rather than an append-only JSONL: every operation is a single atomic
filesystem step — add (write temp, fsync, ``os.replace``, fsync dir), attempt count (same, over the
turn's own file), done (``unlink``), give up / retry (``os.replace`` between the two dirs). There is
no compaction pass to get wrong, a crash can at worst leave a stray ``*.tmp`` (ignored; removed once stale),
and one damaged file cannot hide the turns after it. ``<seq>`` (nanoseconds, zero-padded) keeps the
order turns were sent in.

An entry also carries what its current attempt has done (``progress``: the model's replies and each
tool call's state, see ``resume.py``), so a turn interrupted mid-way resumes instead of running
again. Each step appends one fsync'd line to ``<name>.progress`` beside the entry (``{"rev", "progress"}``,
the whole small progress, never the turn's text): one write and one fsync a step, where a rewrite of the
entry took a temp file, two fsyncs and a rename. Reading takes the last whole line whose ``rev`` is above
the entry's own (a line cut by a kill is skipped: its step had not returned, so nothing depended on
it); a rewrite of the entry (a failed attempt, the failed list) carries the progress, a higher ``rev``,
and drops the log. While a writer works on a turn it holds an OS lock on ``<name>.lock`` beside it: another app
instance replaying the journal leaves that turn alone (it is in flight elsewhere).
"""

from __future__ import annotations

import itertools
import json
import logging
import os
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any, Container

import portalocker

from ..changes import excerpt_of, writer_actor
from ..files import atomic_write, private_dir, private_opener
from ..item import now_iso
from .secret_filter import redact_secrets

log = logging.getLogger(__name__)


@dataclass
class JournalEntry:
    """One journaled turn. ``key`` is unique per entry (a turn id may in principle repeat)."""

    key: str
    seq: int
    turn_id: str
    session_id: str | None
    messages: list[dict[str, Any]]
    created_at: str = field(default_factory=now_iso)
    attempts: int = 0
    last_error: str | None = None  # why the last attempt failed, in Chinese (``error_in``)
    progress: dict[str, Any] | None = None  # the current attempt's replies and tool calls (resume.py)
    held: str | None = None  # why the turn was held instead of retried (guard.py), None: not held
    allow_mass: bool = False  # the person retried a held mass change: apply it this time
    actor: str | None = None  # who its changes are written as (``changes.writer_actor``); None: Sonetto (agent)
    as_of: str | None = None  # the turn's own time (ISO), e.g. an imported chat's; None: when it is written
    origin: str = ""  # where the conversation came from (one line, kept with each change)
    progress_rev: int = 0  # how many progress saves ``progress`` holds (the log's lines above it are newer)
    #: The journal object (one writer's run, ``TurnJournal.instance``) whose ``normalize_turn`` hid the
    #: turn's secret values before it was journaled: that run need not filter it again; any other run
    #: (a later start, another version, another instance) does.
    hidden_by: str = ""
    #: ``last_error`` in English (empty in an entry of an older version: its one reason, in the UI's
    #: language of then, is said in both)
    last_error_en: str = ""

    def error_in(self, language: str) -> str | None:
        """Why its last attempt failed, in ``language`` (``"en"`` or Chinese): asked when it is shown."""
        return (self.last_error_en or self.last_error) if language == "en" else self.last_error

    def when(self) -> datetime | None:
        """``as_of`` as a time (None when unset or unreadable: the writer's clock then)."""
        try:
            return datetime.fromisoformat(self.as_of) if self.as_of else None
        except ValueError:
            return None

    @property
    def filename(self) -> str:
        return f"{self.seq:020d}-{self.key}.json"

    def without_text(self) -> "JournalEntry":
        """A copy without the turn's messages and progress, for a list that only names and counts
        turns kept on disk (the writer's failed list: an import's thousands of batches given up on,
        its text stays in ``failed/``). ``has_text`` tells it apart."""
        return replace(self, messages=[], progress=None)

    @property
    def has_text(self) -> bool:
        return bool(self.messages)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "JournalEntry":
        return cls(
            key=str(data["key"]),
            seq=int(data["seq"]),
            turn_id=str(data["turn_id"]),
            session_id=data.get("session_id"),
            messages=list(data["messages"]),
            created_at=str(data.get("created_at") or now_iso()),
            attempts=int(data.get("attempts", 0)),
            last_error=data.get("last_error"),
            progress=data["progress"] if isinstance(data.get("progress"), dict) else None,
            held=data.get("held") if isinstance(data.get("held"), str) else None,
            allow_mass=data.get("allow_mass") is True,
            actor=writer_actor(data.get("actor", _older_app_turn(data.get("session_id")))),
            as_of=data.get("as_of") if isinstance(data.get("as_of"), str) else None,
            # an entry of an older version may keep a secret an imported title held
            origin=excerpt_of(redact_secrets(data["origin"])[0]) if isinstance(data.get("origin"), str) else "",
            progress_rev=data["progress_rev"] if isinstance(data.get("progress_rev"), int) else 0,
            hidden_by=data["hidden_by"] if isinstance(data.get("hidden_by"), str) else "",
            last_error_en=data["last_error_en"] if isinstance(data.get("last_error_en"), str) else "",
        )


def _older_app_turn(session_id: Any) -> str | None:
    """A turn another app handed over before entries named their actor: its session was the app's actor."""
    return session_id if isinstance(session_id, str) and session_id.startswith("mcp:") else None


def retried_progress(entry: JournalEntry) -> dict[str, Any] | None:
    """What a turn the person retries starts from: a held mass change keeps the model's reply that
    was held, so exactly that change is applied; anything else is asked afresh."""
    if entry.held == "mass_change" and entry.progress:
        return {"responses": list(entry.progress.get("responses") or [])[:1], "calls": {}}
    return None


def default_journal_path(store_path: str | os.PathLike[str]) -> Path:
    """``<store dir>/<store stem>.journal`` — found again by any writer opened on the same store."""
    store = Path(store_path)
    return store.with_name(f"{store.stem}.journal")


STALE_TMP_SECONDS = 60.0
PROGRESS = ".progress"  # an entry's progress log: ``<seq>-<key>.json.progress``


def _progress_log(folder: Path, entry: "JournalEntry") -> Path:
    return folder / (entry.filename + PROGRESS)


def _logged_progress(path: Path) -> tuple[int, dict[str, Any]] | None:
    """The last whole line of a progress log (``rev``, ``progress``); None without one."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    for line in reversed(data.split(b"\n")):
        try:
            record = json.loads(line)
        except ValueError:
            continue  # empty, or cut by a kill mid-write
        if isinstance(record, dict) and isinstance(record.get("rev"), int) and isinstance(record.get("progress"), dict):
            return record["rev"], record["progress"]
    return None


def _named(name: str) -> tuple[int, str] | None:
    """``(seq, key)`` of an entry's file name ``<seq>-<key>.json``; None for any other name."""
    seq, dash, key = name.removesuffix(".json").partition("-")
    if not name.endswith(".json") or not dash or not seq.isdigit() or not key:
        return None
    return int(seq), key


def _older_than(path: Path, seconds: float) -> bool:
    try:
        return time.time() - path.stat().st_mtime > seconds
    except OSError:
        return False


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # Windows cannot open a directory; NTFS metadata is journaled anyway
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class TurnJournal:
    """Thread-safe; every method does blocking I/O (call it through ``asyncio.to_thread``)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.pending_dir = self.path / "pending"
        self.failed_dir = self.path / "failed"
        self.quarantine_dir = self.path / "quarantine"
        self._lock = threading.Lock()
        self._last_seq = 0
        self._claim: Any = None
        self.quarantined: list[Path] = []  # files set aside by this journal object (see ``_quarantine``)
        self._entry_locks: dict[str, Any] = {}
        self.instance = uuid.uuid4().hex[:12]  # this journal object's run (``JournalEntry.hidden_by``)

    def _ensure_dirs(self) -> None:
        for folder in (self.path, self.pending_dir, self.failed_dir):
            private_dir(folder)  # owner-only (0700)

    def _next_seq(self) -> int:
        seq = time.time_ns()
        if seq <= self._last_seq:
            seq = self._last_seq + 1
        self._last_seq = seq
        return seq

    def _write(self, folder: Path, entry: JournalEntry) -> None:
        data = json.dumps(asdict(entry), ensure_ascii=False).encode("utf-8")
        atomic_write(folder / entry.filename, data)  # owner-only (0600), fsync'd, the folder too

    def _read_dir(self, folder: Path, *, after: int = 0, before: int | None = None, limit: int | None = None,
                  skip: Container[str] = ()) -> list[JournalEntry]:
        """The entries in ``folder``, oldest first: those with a sequence number after ``after`` (and
        before ``before``) whose key is not in ``skip`` — all told by the file's name: the others are
        not read — at most ``limit``."""
        entries = list(itertools.islice(self._entries(folder, after=after, before=before, skip=skip), limit))
        entries.sort(key=lambda e: e.seq)
        return entries

    def _entries(self, folder: Path, *, after: int = 0, before: int | None = None,
                 skip: Container[str] = ()) -> Iterator[JournalEntry]:
        """``_read_dir``'s entries one at a time, in the order of their files' names (each read when it
        is asked for: a caller that keeps only a field of each never holds the journal's text)."""
        if not folder.is_dir():
            return
        for file in sorted(folder.iterdir()):
            if file.name.endswith(".tmp"):
                if file.name.startswith(".") and _older_than(file, STALE_TMP_SECONDS):
                    # An append interrupted before os.replace. A fresh one may be another app
                    # instance's append in progress on the same store: that one is left alone.
                    file.unlink(missing_ok=True)
                continue
            if file.name.endswith(".json" + PROGRESS):
                if not (folder / file.name.removesuffix(PROGRESS)).exists():  # its entry went (done, moved)
                    file.unlink(missing_ok=True)
                continue
            if not file.name.endswith(".json"):
                continue
            named = _named(file.name)
            if named is not None and (named[0] <= after or named[1] in skip
                                      or (before is not None and named[0] >= before)):
                continue
            try:
                entry = JournalEntry.from_dict(json.loads(file.read_text(encoding="utf-8")))
                if entry.filename != file.name:  # renamed or copied in: ``remove`` could never drop it
                    self._quarantine(file, f"its content belongs to {entry.filename}")
                    continue
                logged = _logged_progress(_progress_log(folder, entry))
                if logged is not None and logged[0] > entry.progress_rev:
                    entry.progress_rev, entry.progress = logged
            except (OSError, ValueError, KeyError, TypeError) as exc:
                # Never delete what we cannot read: set it aside for a person to look at.
                log.error("journal file %s is unreadable (%s); renamed to *.corrupt", file, exc)
                try:
                    os.replace(file, file.with_suffix(".corrupt"))
                except OSError:
                    log.exception("could not set %s aside", file)
                continue
            yield entry

    def _quarantine(self, file: Path, why: str) -> None:
        """Move a file that must not be replayed out of the way, keeping it for a person to look at."""
        private_dir(self.quarantine_dir)
        target = self.quarantine_dir / file.name
        n = 1
        while target.exists():
            target = self.quarantine_dir / f"{file.name}.{n}"
            n += 1
        try:
            os.replace(file, target)
            self.quarantined.append(target)
            log.error("journal file %s is not a turn of this journal (%s); moved to %s", file, why, target)
        except OSError:
            log.exception("could not move %s to the journal's quarantine", file)

    # ── API ───────────────────────────────────────────────────────────

    def claim(self) -> bool:
        """Take the right to replay this journal (a non-blocking OS file lock, freed by the OS if the
        process dies). ``False``: another writer (another app instance) holds it; this one must not
        replay the journal, or turns would be written twice."""
        with self._lock:
            if self._claim is not None:
                return True
            private_dir(self.path)
            handle = open(self.path / "writer.lock", "a+b", opener=private_opener)  # owner-only (0600)
            try:
                portalocker.lock(handle, portalocker.LockFlags.EXCLUSIVE | portalocker.LockFlags.NON_BLOCKING)
            except portalocker.exceptions.LockException:
                handle.close()
                return False
            self._claim = handle
            return True

    @property
    def claimed(self) -> bool:
        """This journal object holds the claim (see ``claim``)."""
        return self._claim is not None

    def release(self) -> None:
        """Give the claim back (safe to call without one)."""
        with self._lock:
            handle, self._claim = self._claim, None
        if handle is not None:
            try:
                portalocker.unlock(handle)
            finally:
                handle.close()

    def append(self, turn_id: str, session_id: str | None, messages: list[dict[str, Any]], *,
               actor: str | None = None, as_of: str | None = None, origin: str = "",
               hidden: bool = False) -> JournalEntry:
        """Durably add a turn (fsync'd file and directory) and return its entry (``actor``, ``as_of``,
        ``origin``: see ``JournalEntry``; an actor a turn may not be written as is ``ValueError``).
        ``hidden``: the caller hid the messages' secret values (``turns.normalize_turn``) in this run."""
        if actor is not None and writer_actor(actor) is None:
            raise ValueError(f"a journaled turn cannot be written as {actor!r}")
        with self._lock:
            self._ensure_dirs()
            entry = JournalEntry(uuid.uuid4().hex[:16], self._next_seq(), turn_id, session_id, list(messages),
                                 actor=actor, as_of=as_of, origin=excerpt_of(origin),
                                 hidden_by=self.instance if hidden else "")
            self._write(self.pending_dir, entry)
            return entry

    def mark(self) -> int:
        """A sequence number above every turn this journal object appended so far and below every
        one it appends later (whatever the clock does meanwhile)."""
        with self._lock:
            return self._next_seq()

    def pending(self) -> list[JournalEntry]:
        """Turns still to be written, oldest first (every one read: see ``pending_window``)."""
        with self._lock:
            return self._read_dir(self.pending_dir)

    def pending_window(self, after: int = 0, limit: int = 16, skip: Container[str] = (),
                       before: int | None = None) -> tuple[list[JournalEntry], int]:
        """At most ``limit`` pending turns with a sequence number after ``after`` (and before
        ``before``) whose keys are not in ``skip``, oldest first, and how many more there are after
        them (counted by name, not read): a writer replays a long journal (an import's thousand
        batches) a window at a time."""
        with self._lock:
            window = self._read_dir(self.pending_dir, after=after, before=before, limit=limit, skip=skip)
            last = window[-1].seq if window else after
            names = os.listdir(self.pending_dir) if self.pending_dir.is_dir() else []
            more = sum(1 for name in names if (n := _named(name)) is not None and n[0] > last and n[1] not in skip
                       and (before is None or n[0] < before))
            return window, more

    def find_pending(self, turn_id: str) -> list[JournalEntry]:
        """The pending entries of turn ``turn_id`` (each file read in turn, only the matches kept)."""
        found: list[JournalEntry] = []
        after = 0
        while window := self.pending_window(after, 64)[0]:
            found += [entry for entry in window if entry.turn_id == turn_id]
            after = window[-1].seq
        return found

    def count_pending(self, actor: str) -> int:
        """How many pending turns are to be written as ``actor`` (e.g. one app's conversations)."""
        with self._lock:
            return sum(1 for entry in self._entries(self.pending_dir) if entry.actor == actor)

    def pending_turn_ids(self) -> list[str]:
        """The turn ids of the pending turns, oldest first, each file read and let go in turn (an
        import's thousands of batches are never in memory at once, as ``pending()`` would hold them)."""
        return self._turn_ids(self.pending_dir)

    def failed_turn_ids(self) -> list[str]:
        """``pending_turn_ids`` of the turns given up on."""
        return self._turn_ids(self.failed_dir)

    def _turn_ids(self, folder: Path) -> list[str]:
        with self._lock:
            named = sorted((entry.seq, entry.turn_id) for entry in self._entries(folder))
        return [turn_id for _seq, turn_id in named]

    def failed(self, *, text: bool = True) -> list[JournalEntry]:
        """Turns the writer gave up on, oldest first; ``text`` False: without their messages
        (``JournalEntry.without_text``; each file read and its text let go in turn)."""
        with self._lock:
            if text:
                return self._read_dir(self.failed_dir)
            return sorted((entry.without_text() for entry in self._entries(self.failed_dir)), key=lambda e: e.seq)

    def record_failure(self, entry: JournalEntry, error: str, en: str = "") -> JournalEntry:
        """Count one more failed attempt on disk (atomic rewrite of the turn's file): why, in Chinese
        (``error``) and in English (``en``)."""
        with self._lock:
            entry.attempts += 1
            entry.last_error, entry.last_error_en = error[:2000], en[:2000]
            if (self.pending_dir / entry.filename).exists():
                self._rewrite(self.pending_dir, entry)
            return entry

    def save_progress(self, entry: JournalEntry) -> None:
        """Durably keep the entry's ``progress``: one fsync'd line appended to its progress log
        (nothing when the turn is not journaled). Each line starts on a line of its own, so one cut
        by a kill never spoils the next."""
        with self._lock:
            if not entry.seq or not (self.pending_dir / entry.filename).exists():
                return
            entry.progress_rev += 1
            line = json.dumps({"rev": entry.progress_rev, "progress": entry.progress}, ensure_ascii=False)
            path = _progress_log(self.pending_dir, entry)
            new = not path.exists()
            with open(path, "ab", opener=private_opener) as fh:  # owner-only (0600)
                fh.write(b"\n" + line.encode("utf-8") + b"\n")
                fh.flush()
                os.fsync(fh.fileno())
            if new:
                _fsync_dir(self.pending_dir)

    def _rewrite(self, folder: Path, entry: JournalEntry) -> None:
        """The entry's file rewritten with its progress, above any line of its log (then dropped)."""
        entry.progress_rev += 1
        self._write(folder, entry)
        _progress_log(folder, entry).unlink(missing_ok=True)

    def lock_entry(self, entry: JournalEntry) -> bool:
        """Take the turn for this writer: an OS lock on ``<name>.lock`` (freed by the OS if the process
        dies). False when another writer is working on it, or when it is no longer pending (written
        by another writer meanwhile). A turn that was never journaled needs no lock."""
        if not entry.seq:
            return True
        with self._lock:
            if entry.key in self._entry_locks:
                return True
            if not self.pending_dir.is_dir():
                return False
            handle = open(self.pending_dir / f"{entry.filename}.lock", "a+b", opener=private_opener)
            try:
                portalocker.lock(handle, portalocker.LockFlags.EXCLUSIVE | portalocker.LockFlags.NON_BLOCKING)
            except portalocker.exceptions.LockException:
                handle.close()
                return False
            if not (self.pending_dir / entry.filename).exists():  # written by another writer meanwhile
                try:
                    (self.pending_dir / f"{entry.filename}.lock").unlink(missing_ok=True)  # ours: nobody waits
                except OSError:
                    pass
                portalocker.unlock(handle)
                handle.close()
                return False
            self._entry_locks[entry.key] = handle
            return True

    def unlock_entry(self, entry: JournalEntry) -> None:
        """Let the turn go (safe without the lock); its lock file goes once the turn left pending."""
        with self._lock:
            handle = self._entry_locks.pop(entry.key, None)
            if handle is None:
                return
            lock_file = self.pending_dir / f"{entry.filename}.lock"
            if not (self.pending_dir / entry.filename).exists():
                try:
                    lock_file.unlink(missing_ok=True)  # still ours: nobody can hold it now
                except OSError:
                    pass
            try:
                portalocker.unlock(handle)
            finally:
                handle.close()

    def remove(self, entry: JournalEntry) -> None:
        """The turn was consumed: drop it."""
        with self._lock:
            (self.pending_dir / entry.filename).unlink(missing_ok=True)
            _progress_log(self.pending_dir, entry).unlink(missing_ok=True)
            if self.pending_dir.is_dir():
                _fsync_dir(self.pending_dir)

    def discard_failed(self, entry: JournalEntry) -> None:
        """The person asked not to remember this turn: drop it from the failed list."""
        with self._lock:
            (self.failed_dir / entry.filename).unlink(missing_ok=True)
            if self.failed_dir.is_dir():
                _fsync_dir(self.failed_dir)

    def move_to_failed(self, entry: JournalEntry) -> None:
        """Give up on a turn, keeping it (with its attempts and last error) in ``failed/``."""
        with self._lock:
            self._ensure_dirs()
            entry.progress_rev += 1  # above any line of its log (left in pending/ if this is cut short)
            self._write(self.failed_dir, entry)
            (self.pending_dir / entry.filename).unlink(missing_ok=True)
            _progress_log(self.pending_dir, entry).unlink(missing_ok=True)
            _fsync_dir(self.pending_dir)

    def requeue_failed(self) -> list[JournalEntry]:
        """Move every failed turn back to pending with its attempt count reset; returns them without
        their text (``JournalEntry.without_text``: pending/ has it; each file is read and let go in
        turn). A turn held for a mass change is retried with the memory limit lifted (the person asked
        for it), applying the reply that was held (``retried_progress``)."""
        with self._lock:
            self._ensure_dirs()
            moved = []
            for entry in self._entries(self.failed_dir):
                entry.attempts = 0
                entry.progress = retried_progress(entry)
                entry.allow_mass = entry.allow_mass or entry.held == "mass_change"  # the person said yes
                entry.held = None
                self._rewrite(self.pending_dir, entry)  # a log left in pending/ by a cut-short move: dropped
                (self.failed_dir / entry.filename).unlink(missing_ok=True)
                moved.append(entry.without_text())
            _fsync_dir(self.failed_dir)
            moved.sort(key=lambda e: e.seq)
            return moved
