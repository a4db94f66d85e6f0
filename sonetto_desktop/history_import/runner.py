"""ImportRunner: an import, written by a memory writer of its own (issue 31).

The planned batches (``plan.py``) go straight into the journal of a
:class:`~..memory.writer.pipeline.MemoryWriter` of the import's own (made by the app's one writer
factory, ``agent_lifecycle.make_writer``, as chat's), one at a time as they are read back, each as a
turn ``imp-<id>-<seq>`` written as ``import:<source>``, with the batch's time as the writer's "now"
and the conversation's title and date as the provenance of every change; the import's folder keeps
only an index (``ledger.py``: each batch's conversation, title, time and keys, no text). The
writer's guarantees hold for each batch (journaled before it runs, resumed mid-way after a kill,
never written twice); the runner adds:

- **The ledger.** A batch's keys go to the ledger once it is written and before it leaves the
  journal (the writer's ``on_written``), so after a kill every batch is either in the ledger or
  journaled (replayed). An import begun by an older version, whose batches wait in
  ``batches.jsonl``, has the ones neither written nor journaled moved into the journal on resume.
- **One unit.** Every batch's turn id starts with the import's id, which undoes them all at once
  (``memory/undo.py`` groups ``imp-`` ids); the import's hits are not counted (``count_hits``), so
  an undo gives back the store exactly as it was.
- **The person's memories stay the person's.** The import's writer may create memories and change
  the ones this import created; any change to another memory waits in the review inbox for the
  person, in any mode (``memory/writer/ownership.py``): imported text may try to steer the model.
  What waits is counted for the whole import (``proposals``) and withdrawn by its undo (``undo_import``).
- **Pause.** The person's pause, a chat of this app being written (a live chat never waits behind
  an import: the runner waits whenever the app's own writer has turns), and a nearly full review
  inbox (in any mode: held changes wait there too) each hold the import after the batch being
  written; it goes on when none holds.
- **Progress.** Batches and turns done, memories so far, the conversation being written, and the time
  left (a moving average of seconds per batch); published on ``progress`` (the app's services relay it
  onto their one feed). The memories are counted from the store when the import starts or goes on (the
  one count the finished import says too: ``count_changes``), then each change of the import as it lands
  (the change channel, which the window's toasts count from, counted as they count it): the progress
  never says fewer than the toast beside it. (Not from the store again per change: that read grows
  with the import, ~450 memories and their histories after 1,000 turns, once per change.)

Two processes cannot run one import: the import journal's claim decides (``ImportElsewhere``).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from typing import Any

from ..aio import root_scope, run_blocking
from ..memory import kinds
from ..memory.events import EventFeed
from ..memory.operations import MemoryOperations
from ..memory.review import ReviewInbox
from ..memory.reasons import reason_text
from ..memory.undo import NothingToUndo, TurnSet, UndoPreview, turn_text
from ..memory.writer.secret_filter import redact_secrets
from .ledger import DONE, PAUSED, RUNNING, UNDONE, ImportLedger, ImportState, batch_seq, batch_turn_id, new_import_id
from .formats import format_named
from .plan import Batch, Plan

log = logging.getLogger(__name__)

#: The review inbox: hold the import at this share of its limit, go on below the second.
INBOX_HOLD, INBOX_GO = 0.9, 0.8
INBOX_RECHECK = 30.0  # seconds: the person may empty the inbox in another process
EWMA = 0.3
#: Seconds between saves of a running import's state file for its progress (a status change, a stop
#: and the end are saved at once; what is written is in the ledger, fsync'd per batch, whatever this says).
STATE_EVERY = 2.0


class ImportElsewhere(Exception):
    """Another process is running this import."""


@dataclass(frozen=True)
class ImportProgress:
    """A snapshot for the window and the command line. ``held``: why it waits (``person``, ``chat``,
    ``inbox``), empty when it runs; ``status``: running | paused | done | undone."""

    import_id: str
    status: str
    batches: int
    batches_done: int
    turns: int
    turns_done: int
    failed_batches: int = 0
    created: int = 0
    updated: int = 0
    deleted: int = 0
    proposals: int = 0
    title: str = ""
    day: date | None = None
    seconds_left: float | None = None
    held: tuple[str, ...] = ()
    writing: bool = False  # a batch (``title``, ``day``) is being written now
    #: the batch being written failed and waits for its next try: why (the writer's words, in Chinese;
    #: ``retrying_en`` in English: ``why_retrying`` picks) and how many of its tries failed so far; empty
    #: once it is written or given up on
    retrying: str = ""
    failed_tries: int = 0
    retrying_en: str = ""

    def why_retrying(self, language: str) -> str:
        """Why the batch is being retried, in ``language`` (``"en"`` or Chinese): asked when it is shown,
        so a view made after a language switch says it in the new language."""
        return (self.retrying_en or self.retrying) if language == "en" else self.retrying

    @property
    def finished(self) -> bool:
        return self.batches_done + self.failed_batches >= self.batches


@dataclass(frozen=True)
class ImportResult:
    """What an import did (the command line's ``--json``). ``batches`` / ``batches_done`` /
    ``failed_batches``: of the whole import; ``error``: why a batch was last given up on (the
    writer's words, in Chinese; ``error_en`` in English: ``error_in`` picks), empty when none was."""

    undo_id: str
    turns_written: int
    memories_created: int
    memories_updated: int
    memories_deleted: int
    proposals: int
    failed_turns: int
    batches: int = 0
    batches_done: int = 0
    failed_batches: int = 0
    error: str = ""
    error_en: str = ""

    def error_in(self, language: str) -> str:
        """Why a batch was last given up on, in ``language`` (``"en"`` or Chinese): asked when it is
        shown, so a view made after a language switch says it in the new language."""
        return (self.error_en or self.error) if language == "en" else self.error

    @property
    def failed(self) -> bool:
        """Nothing of the import could be written: every batch it tried was given up on."""
        return self.failed_batches > 0 and self.batches_done == 0

    def to_json(self, language: str = "zh_CN") -> dict[str, Any]:
        """``error`` in ``language`` (the terminal's)."""
        return {"turns_written": self.turns_written, "memories_created": self.memories_created,
                "memories_updated": self.memories_updated, "memories_deleted": self.memories_deleted,
                "proposals": self.proposals, "failed_turns": self.failed_turns, "batches": self.batches,
                "failed_batches": self.failed_batches, "error": self.error_in(language) or None,
                "undo_id": self.undo_id or None}


def safe_title(title: str, limit: int | None = None) -> str:
    """A conversation's title on one line with its secret values hidden ("wifi 密码是 ［已隐去的密码］"):
    it names the origin of every change (the writer's prompt, each memory's history, a held change,
    the import's files and progress). ``limit``: at most this many characters (no half placeholder)."""
    flat = redact_secrets(" ".join(str(title or "").split()))[0]
    if limit is not None and len(flat) > limit:
        flat = flat[:limit]
        if flat.rfind("［") > flat.rfind("］"):
            flat = flat[:flat.rfind("［")].rstrip()
    return flat


def origin_of(label: str, title: str, when: datetime) -> str:
    """The provenance line of an imported batch: ``ChatGPT「搬家去杭州」· 2024-05-01``."""
    return f"{label}「{safe_title(title, 40)}」· {when:%Y-%m-%d}"


def batch_record(batch: Batch) -> dict[str, Any]:
    """What the import keeps of a batch besides the journal: no text (``batch_text`` reads it back)."""
    return {"seq": batch.seq, "conversation": batch.conversation_id, "title": safe_title(batch.title),
            "now": batch.now.isoformat(), "keys": list(batch.keys), "turns": len(batch.exchanges)}


def batch_text(batch: Batch) -> list[dict[str, Any]]:
    """A batch's messages, read back from the plan's spill file (blocking)."""
    return batch.loaded().messages()


@dataclass
class _Run:
    """The running import's moving parts."""

    state: ImportState
    batches: dict[int, dict[str, Any]]
    writer: Any
    written: dict[int, int] = field(default_factory=dict)  # batch -> its turns
    failed: set[int] = field(default_factory=set)
    lost: int = 0  # batches neither written nor journaled (a damaged import folder)
    dropped: int = 0  # batches of conversations undone while the import was stopped (not to be written)
    started_at: dict[int, float] = field(default_factory=dict)
    per_batch: float | None = None
    current: int | None = None
    retrying: tuple[int, str, str] | None = None  # the batch being written failed: (tries failed, why, in en); tried again
    live: dict[str, int] = field(default_factory=lambda: {"created": 0, "updated": 0, "deleted": 0})
    finished: asyncio.Event = field(default_factory=asyncio.Event)
    unsubscribe: list[Callable[[], None]] = field(default_factory=list)
    stopping: bool = False  # ``ImportRunner.stop``: the writer stays paused until it has stopped
    saved_at: float = 0.0  # when its state file was last saved for a batch written (monotonic)


class ImportRunner:
    """Runs one import at a time over ``ops`` (the store's memory operations). ``make_writer(memory,
    **options)``: the app's writer factory (``agent_lifecycle.make_writer`` with the settings' model),
    called with the import's actor, journal and ``on_written``. ``chat_busy()`` /
    ``subscribe_chat(callback)``: the app's own writer has turns / tell me when its state changes (the
    import then waits). ``progress``: an :class:`ImportProgress` after every step."""

    def __init__(self, ops: MemoryOperations, ledger: ImportLedger, make_writer: Callable[..., Any], *,
                 review: ReviewInbox | None = None, chat_busy: Callable[[], bool] | None = None,
                 subscribe_chat: Callable[[Callable[[Any], None]], Callable[[], None]] | None = None,
                 stop_timeout: float = 60.0) -> None:
        self.ops = ops
        self.ledger = ledger
        self.make_writer = make_writer
        self.review = review
        self._chat_busy = chat_busy or (lambda: False)
        self._subscribe_chat = subscribe_chat
        self.stop_timeout = stop_timeout
        self.progress: EventFeed[ImportProgress] = EventFeed()
        self.last: ImportProgress | None = None
        self._run: _Run | None = None
        self._held: set[str] = set()
        self._inbox_timer: asyncio.TimerHandle | None = None
        self._saving: asyncio.Task[None] | None = None
        self._tasks = root_scope().child("history-import")  # the feed, re-reads and state saves; logs their failures
        self._loop: asyncio.AbstractEventLoop | None = None
        #: An import being begun or resumed (its batches journaled, its writer claimed): a second start
        #: meanwhile is refused, as one while an import runs is.
        self._starting = False

    @property
    def running(self) -> ImportState | None:
        return self._run.state if self._run is not None else None

    @property
    def starting(self) -> bool:
        """An import is being begun or resumed (not running yet)."""
        return self._starting

    # ── starting ──────────────────────────────────────────────────────

    async def begin(self, plan: Plan, *, file_name: str, digest: str, since: date | None = None,
                    until: date | None = None, selected: list[str] | None = None) -> ImportState:
        """Journal the plan's batches as a new import and start writing them. Returns its state."""
        self._refuse_a_second()
        if not plan.batches:
            raise ValueError("nothing to import")
        self._starting = True
        try:
            return await self._begin(plan, file_name=file_name, digest=digest, since=since, until=until,
                                     selected=selected)
        finally:
            self._starting = False

    def _refuse_a_second(self) -> None:
        if self._run is not None:
            raise RuntimeError(f"an import is already running ({self._run.state.id})")
        if self._starting:
            raise RuntimeError("an import is already starting")

    async def _begin(self, plan: Plan, *, file_name: str, digest: str, since: date | None,
                     until: date | None, selected: list[str] | None) -> ImportState:
        state = ImportState(new_import_id(), plan.source, getattr(format_named(plan.source), "label", plan.label), file_name,
                            digest, since=since.isoformat() if since else None,
                            until=until.isoformat() if until else None, selected=selected,
                            review=bool(self.review is not None and self.review.enabled),
                            batches=len(plan.batches), turns=plan.turns)
        records = [batch_record(b) for b in plan.batches]
        by_seq = {int(r["seq"]): r for r in records}
        writer = await self._claimed_writer(state, by_seq)
        try:
            await run_blocking(self.ledger.sweep_unbegun)  # (this one's journal is claimed: it stays)
            await run_blocking(self.ledger.save_batches, state.id, records)  # the index, before any turn
            for batch in plan.batches:  # each batch's text read back and journaled once, in order
                await self._journal(writer, state, by_seq[batch.seq], await run_blocking(batch_text, batch),
                                    secrets_hidden=True)  # (rendered with its secrets hidden: ``Batch.render``)
            pending = writer.journal.pending_dir
            if await run_blocking(lambda: sum(1 for _ in pending.glob("*.json"))) < len(records):
                raise OSError(writer.last_error or "the import's batches could not be journaled")  # a full disk
            await run_blocking(self.ledger.save, state)  # listed (and resumable) once every batch is journaled
        except BaseException:
            await run_blocking(writer.journal.release)
            await run_blocking(self.ledger.discard, state.id)  # nothing of it stays: it never began
            raise
        await self._start(state, by_seq, writer)
        return state

    async def _journal(self, writer: Any, state: ImportState, record: dict[str, Any],
                       messages: list[dict[str, Any]], *, secrets_hidden: bool = False) -> None:
        """One batch into the import writer's journal (fsync'd; the writer is not started yet, so it
        is only journaled: ``MemoryWriter.send_history``). ``secrets_hidden``: its messages are the
        secret filter's output (not read by it again; an older version's ``batches.jsonl`` is)."""
        when = datetime.fromisoformat(record["now"])
        await writer.send_history(messages, None, batch_turn_id(state.id, int(record["seq"])),
                                  actor=f"import:{state.source}", as_of=when,
                                  origin=origin_of(state.label, record["title"], when), secrets_hidden=secrets_hidden)

    async def resume(self, import_id: str) -> ImportState:
        """Go on with an unfinished import (after a pause, a stop or a kill)."""
        if self._run is not None and self._run.state.id == import_id:
            self.set_paused(False)
            return self._run.state
        self._refuse_a_second()
        self._starting = True
        try:
            return await self._resume(import_id)
        finally:
            self._starting = False

    async def _resume(self, import_id: str) -> ImportState:
        state = await run_blocking(self.ledger.get, import_id)
        if state is None or not state.unfinished:
            raise ValueError(f"{import_id} is not an unfinished import")
        records = {int(r["seq"]): r for r in await run_blocking(self.ledger.load_batches, import_id)}
        writer = await self._claimed_writer(state, records)
        try:
            await self._journal_legacy(writer, state, records)
        except BaseException:
            await run_blocking(writer.journal.release)
            raise
        await self._start(state, records, writer)
        return state

    async def _journal_legacy(self, writer: Any, state: ImportState, records: dict[int, dict[str, Any]]) -> None:
        """An import begun by an older version keeps its batches in ``batches.jsonl`` and fed the
        journal a few at a time: the ones neither written, journaled nor given up on go into the
        journal now, then the file goes (the index keeps what is needed of them)."""
        legacy = await run_blocking(self.ledger.legacy_batches, state.id)
        if legacy is None:
            return
        written = await run_blocking(self.ledger.written_batches, state.id)
        seen = {batch_seq(turn_id) for turn_id in [*await run_blocking(writer.journal.pending_turn_ids),
                                                   *await run_blocking(writer.journal.failed_turn_ids)]}
        for record in legacy:
            seq = int(record["seq"])
            if seq not in written and seq not in seen:
                await self._journal(writer, state, record, record["messages"])
        await run_blocking(self.ledger.save_batches, state.id, list(records.values()))
        await run_blocking(self.ledger.drop_legacy_batches, state.id)

    async def _claimed_writer(self, state: ImportState, records: dict[int, dict[str, Any]]) -> Any:
        """The import's writer over its own journal, whose claim it holds (``ImportElsewhere``: another
        process holds it; nothing of the import's state is touched)."""

        def on_written(entry: Any) -> None:  # blocking, before the entry leaves the journal
            seq = batch_seq(entry.turn_id)
            if seq is not None and seq in records:
                self.ledger.record(state.id, seq, records[seq]["keys"])

        writer = self.make_writer(self.ops.as_actor(f"import:{state.source}"),
                                  journal_path=self.ledger.journal_path(state.id), on_written=on_written,
                                  stop_timeout=self.stop_timeout, drain_per_minute=0.0)  # paced by the import
        if not await run_blocking(writer.journal.claim):
            raise ImportElsewhere(state.id)
        return writer

    async def _start(self, state: ImportState, batches: dict[int, dict[str, Any]], writer: Any) -> None:
        self._loop = asyncio.get_running_loop()
        if state.status != RUNNING:
            state.status = RUNNING
            await run_blocking(self.ledger.save, state)
        run = _Run(state, batches, writer)
        run.written = await run_blocking(self.ledger.written_batches, state.id)
        # going on: its counts go on from what it left in the store before (a batch cut off half-way too)
        await self._count(state)
        run.live.update(created=state.memories_created, updated=state.memories_updated,
                        deleted=state.memories_deleted)
        run.failed = {s for t in await run_blocking(writer.journal.failed_turn_ids) if (s := batch_seq(t)) is not None}
        journaled = {s for t in await run_blocking(writer.journal.pending_turn_ids) if (s := batch_seq(t)) is not None}
        self._run = run
        run.unsubscribe.append(writer.events.subscribe(self._on_writer_event))
        run.unsubscribe.append(self.ops.subscribe(lambda change: self._on_change(run, change)))
        if self._subscribe_chat is not None:
            run.unsubscribe.append(self._subscribe_chat(lambda _event: self._call_soon(self._update_holds)))
        if self.review is not None:
            run.unsubscribe.append(self.review.subscribe(lambda _count: self._call_soon(self._update_holds)))
        self._update_holds()
        writer.start()  # writes the journaled batches, in order
        # the batches of a conversation undone while the import was stopped are written no more (``undo_conversation``)
        undone = {seq for seq, record in batches.items() if seq not in run.written and seq not in journaled
                  and seq not in run.failed and record.get("conversation") in state.undone_conversations}
        run.lost = max(0, state.batches - len(run.written) - len(run.failed) - len(journaled - run.written.keys())
                       - len(undone))
        run.dropped = len(undone)
        if run.lost:
            log.warning("history import %s: %d batches can no longer be found", state.id, run.lost)
        self._publish()
        if not journaled:
            self._check_finished()

    def _call_soon(self, fn: Callable[[], None]) -> None:
        """From any thread (the change channel publishes on the writer's worker threads)."""
        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(fn)

    # ── following the writer ──────────────────────────────────────────

    def _on_writer_event(self, event: Any) -> None:
        run = self._run
        seq = batch_seq(event.turn_id or "") if run is not None else None
        if run is None or seq is None:
            return
        if event.kind == "started":
            run.current = seq
            run.started_at.setdefault(seq, time.monotonic())
        elif event.kind == "done":
            run.written[seq] = int(run.batches.get(seq, {}).get("turns", 0))
            run.failed.discard(seq)
            run.retrying = None
            began = run.started_at.pop(seq, None)
            if began is not None:
                took = time.monotonic() - began
                run.per_batch = took if run.per_batch is None else EWMA * took + (1 - EWMA) * run.per_batch
            self._call_soon(self._after_batch)
        elif event.kind == "gave_up":
            run.failed.add(seq)
            run.started_at.pop(seq, None)
            run.retrying = None
            self._call_soon(self._after_batch)
        elif event.kind == "failed":  # it is tried again after a pause (or given up on: "gave_up" follows)
            run.retrying = (max(event.attempt, 1), event.zh or event.detail, event.en or event.detail)
        else:
            return
        self._publish()

    def _on_change(self, run: _Run, change: Any) -> None:
        """A committed change (any thread): one of this import's batches' is counted, as the window's
        notice counts it (``presentation.others.SourceTally``), and said."""
        turn = getattr(change, "turn_id", None) or ""
        if turn.startswith(run.state.id + "-"):
            self._call_soon(lambda: self._count_change(run, change))

    def _count_change(self, run: _Run, change: Any) -> None:
        kind = kinds.kind(change.kind)
        counted = _LIVE.get(kind.group)
        if self._run is not run or counted is None:  # finished or stopped meanwhile: its end is counted
            return
        run.live[counted] += len(change.ids) if kind.per_id else 1
        self._publish()

    def _after_batch(self) -> None:
        run = self._run
        if run is None:
            return
        _tally(run)
        now = time.monotonic()
        if now - run.saved_at >= STATE_EVERY:  # the counts are the ledger's anyway: the file follows at a pace
            run.saved_at = now
            self._save_soon(run.state)
        self._update_holds()
        self._check_finished()

    def _save_soon(self, state: ImportState) -> None:
        """Save a copy of ``state`` after the saves before it (never an older state over a newer one)."""
        before, snapshot = self._saving, replace(state)

        async def save() -> None:
            if before is not None:
                await asyncio.gather(before, return_exceptions=True)
            try:
                await run_blocking(self.ledger.save, snapshot)
            except OSError:
                log.exception("history import %s: its state could not be saved", state.id)

        self._saving = self._tasks.spawn(save(), name="sonetto-import-state-save")

    async def _saved(self) -> None:
        """Until the saves started so far are done (before a final state is written)."""
        if self._saving is not None:
            await asyncio.gather(self._saving, return_exceptions=True)

    def _check_finished(self) -> None:
        run = self._run
        if run is not None and _over(run) and not run.writer.pending:
            run.finished.set()

    # ── holding ───────────────────────────────────────────────────────

    def set_paused(self, paused: bool) -> None:
        """The person's pause (after the batch being written) or resume."""
        if paused:
            self._held.add("person")
        else:
            self._held.discard("person")
        self._update_holds()

    def _inbox_full(self) -> bool:
        review = self.review
        if review is None:
            return False
        count = review.cached_count
        limit = INBOX_GO if "inbox" in self._held else INBOX_HOLD
        return count >= review.capacity * limit

    def _update_holds(self) -> None:
        for reason, on in (("chat", self._chat_busy()), ("inbox", self._inbox_full())):
            if on:
                self._held.add(reason)
            else:
                self._held.discard(reason)
        run = self._run
        if run is not None:
            if self._held and not run.writer.paused:
                run.writer.pause()
            elif not self._held and run.writer.paused and not run.stopping:
                run.writer.resume()
            status = PAUSED if "person" in self._held else RUNNING
            if run.state.status != status:
                run.state.status = status
                self._save_soon(run.state)
        if "inbox" in self._held and self._inbox_timer is None and self._loop is not None:
            self._inbox_timer = self._loop.call_later(INBOX_RECHECK, self._recheck_inbox)
        self._publish()

    def _recheck_inbox(self) -> None:
        self._inbox_timer = None
        review = self.review
        if review is None:
            return

        async def reread() -> None:
            await run_blocking(review.count)  # another process's changes show in the cached count
            self._update_holds()

        self._tasks.spawn(reread(), name="sonetto-import-inbox-reread")

    # ── reporting ─────────────────────────────────────────────────────

    def snapshot(self) -> ImportProgress | None:
        run = self._run
        if run is None:
            return self.last
        state = run.state
        turns_done = sum(run.written.values())
        left = state.batches - len(run.written) - len(run.failed) - run.lost - run.dropped
        current = run.batches.get(run.current) if run.current is not None else None
        proposals = 0
        if self.review is not None:  # review mode, or changes to memories the import did not create
            proposals = self.review.cached_count_of(state.id)
        return ImportProgress(
            state.id, state.status, state.batches, len(run.written), state.turns, turns_done, len(run.failed),
            run.live["created"], run.live["updated"], run.live["deleted"], proposals,
            safe_title(current["title"]) if current else "",
            datetime.fromisoformat(current["now"]).date() if current else None,
            run.per_batch * left if run.per_batch is not None and left else (0.0 if not left else None),
            tuple(sorted(self._held)), bool(run.writer.busy),
            *((run.retrying[1], run.retrying[0], run.retrying[2]) if run.retrying else ("", 0, "")))

    def _publish(self) -> None:
        snap = self.snapshot()
        if snap is not None:
            self.last = snap
            self.progress.publish(snap)

    # ── ending ────────────────────────────────────────────────────────

    async def wait(self) -> ImportResult:
        """Until every batch is written (or given up on); then the import is marked done, its
        parsed chats leave the disk, and what it did is counted from the store."""
        run = self._run
        if run is None:
            raise RuntimeError("no import is running")
        await run.finished.wait()
        return await self._finish(run)

    async def _finish(self, run: _Run) -> ImportResult:
        await run.writer.stop(self.stop_timeout)
        self._detach(run)
        state = run.state
        await self._done(run)
        self._publish_final(state)
        failed_turns = sum(int(run.batches[s]["turns"]) for s in run.failed if s in run.batches)
        error, error_en = "", ""
        if run.failed:  # the writer's own words for the last batch given up on (both languages: a view picks)
            entries = await run_blocking(lambda: run.writer.journal.failed(text=False))
            last = next((e for e in reversed(entries) if batch_seq(e.turn_id) in run.failed and e.last_error), None)
            if last is not None:
                error, error_en = last.error_in("zh_CN") or "", last.error_in("en") or ""
        return ImportResult(state.id, state.turns_written, state.memories_created, state.memories_updated,
                            state.memories_deleted, state.proposals, failed_turns, state.batches,
                            state.batches_done, state.failed_batches, error, error_en)

    def _detach(self, run: _Run) -> None:
        for unsubscribe in run.unsubscribe:
            unsubscribe()
        run.unsubscribe.clear()
        self._run = None
        if self._inbox_timer is not None:
            self._inbox_timer.cancel()
            self._inbox_timer = None

    async def _done(self, run: _Run) -> None:
        """Mark the import done, counted from the store; its parsed chats leave the disk (unless a
        batch failed: those wait in the journal for a retry)."""
        state = run.state
        _tally(run)
        await self._count(state)
        if self.review is not None:
            state.proposals = len(await run_blocking(self.review.pending_of, state.id))
        state.status = DONE
        state.finished_at = datetime.now().replace(microsecond=0).isoformat()
        await self._saved()
        await run_blocking(self.ledger.save, state)
        if not run.failed:
            await run_blocking(self.ledger.finish, state.id)

    async def _count(self, state: ImportState) -> None:
        """What the import left in the store so far, counted from it (one read, in a worker)."""
        state.memories_created, state.memories_updated, state.memories_deleted = await run_blocking(
            count_changes, self.ops, state.id)

    def _publish_final(self, state: ImportState) -> None:
        last = self.last
        snap = ImportProgress(state.id, state.status, state.batches, state.batches_done, state.turns,
                              state.turns_written, state.failed_batches, state.memories_created,
                              state.memories_updated, state.memories_deleted, state.proposals,
                              seconds_left=0.0, day=last.day if last else None, title=last.title if last else "")
        self.last = snap
        self.progress.publish(snap)

    async def stop(self, *, pause: bool = True) -> ImportState | None:
        """Stop after the batch being written; what is left stays for ``resume``. ``pause``: the import
        is marked paused (the person stopped it); else it stays running, so the next start of the app
        goes on with it (the app is quitting), unless the person had paused it."""
        run = self._run
        if run is None:
            return None
        run.stopping = True  # no hold's end resumes it meanwhile (``_update_holds``)
        paused = pause or "person" in self._held  # (the person's pause outlasts a quit: it stays paused)
        run.writer.pause()
        await run.writer.stop(self.stop_timeout)
        self._detach(run)
        self._held.clear()
        state = run.state
        if _over(run):
            await self._done(run)
        else:
            _tally(run)
            await self._count(state)  # (the status line and the stopped window's line say them)
            state.status = PAUSED if paused else RUNNING
            await self._saved()
            await run_blocking(self.ledger.save, state)
        self._publish_final(state)
        return state

    async def retry_failed(self) -> int:
        """Write the batches given up on again (the import must be running)."""
        run = self._run
        if run is None:
            return 0
        count = await run.writer.retry_failed()
        run.failed.clear()
        run.finished.clear()
        self._publish()
        return count


#: The progress's count each kind of change goes to (merging: the memory kept is changed).
_LIVE = {kinds.ADDED: "created", kinds.UPDATED: "updated", kinds.MERGED: "updated", kinds.DELETED: "deleted"}
#: History actions of an import that left a memory with new text (besides creating it).
_REWRITES = (kinds.UPDATE, kinds.MERGE, kinds.REVERT)


def _over(run: _Run) -> bool:
    """Every batch of the import is written or given up on."""
    return len(run.written) + len(run.failed) + run.lost + run.dropped >= run.state.batches


def _tally(run: _Run) -> None:
    run.state.batches_done = len(run.written)
    run.state.failed_batches = len(run.failed)
    run.state.turns_written = sum(run.written.values())


def count_changes(ops: MemoryOperations, import_id: str) -> tuple[int, int, int]:
    """What an import left in the store (blocking, one read): memories it created that exist now,
    existing memories it changed, and memories it took away (in the trash because of it). An import
    id, or a ``TurnSet`` of some of its batches (``conversation_turns``)."""
    group = import_id + "-"
    members = getattr(import_id, "members", None)

    def of_it(turn_id: object) -> bool:  # a batch of it, or the import itself (saved memories: one turn)
        if members is not None:
            return turn_id in members
        return isinstance(turn_id, str) and (turn_id == import_id or turn_id.startswith(group))

    created = updated = 0
    text = turn_text(import_id)  # (a TurnSet's name, "imp-…/conversation", is in no turn id: its members' start is)
    for item in (ops.items_mentioning(text) if text else ops.all_items()).values():  # (not every memory)
        own = [e for e in item.own_history() if of_it(e.get("turn_id"))]
        if not own:
            continue
        if any(e.get("action") == kinds.CREATE for e in own):
            created += 1
        elif any(e.get("action") in _REWRITES for e in own):
            updated += 1
    deleted = sum(1 for row in ops.trash() if of_it(row.get("turn_id")))
    return created, updated, deleted


def _tidy(drop: Callable[..., Any], *args: Any) -> None:
    """``drop(*args)``: an undo's tidying of the import's journal, after the undo is done (a failure
    is logged; the undo stands)."""
    try:
        drop(*args)
    except OSError:
        log.exception("history import: its journal could not be tidied after an undo")


def undo_target(ledger: ImportLedger, import_id: str) -> str:
    """What undoing the whole import takes back: the import (its id), or, when some of its
    conversations were undone on their own, its batches together with those undos (a ``TurnSet``
    named as the import: what they put back is no later change of the person's to ask about)."""
    state = ledger.get(import_id)
    if state is None or not state.undone_conversations or state.redone_by:
        return import_id
    batches = ledger.batch_conversations(import_id)
    return TurnSet(import_id, [*(batch_turn_id(import_id, seq) for seq in batches),
                               *state.undone_conversations.values()])


def _not_running_elsewhere(ledger: ImportLedger, import_id: str) -> None:
    """An import another process is writing is not undone here: it would go on writing the batches it
    still has after the undo (``ImportElsewhere``; stopped there first, it can be undone)."""
    if ledger.running_elsewhere(import_id):
        raise ImportElsewhere(import_id)


def _undo_of(ledger: ImportLedger, import_id: str) -> str:
    """What ``undo_import`` takes back: the redo when the import was redone, else ``undo_target``."""
    state = ledger.get(import_id)
    return state.redone_by if state is not None and state.redone_by else undo_target(ledger, import_id)


def preview_undo_import(ops: MemoryOperations, ledger: ImportLedger, import_id: str) -> UndoPreview:
    """What ``undo_import`` would do now, changing nothing (``MemoryOperations.preview_undo``): the
    memories it keeps because they were changed since (``kept``) and what it does to the rest, for the
    question asked before it. Blocking; reads the memories the import's turns name, not every one."""
    return ops.preview_undo(_undo_of(ledger, import_id))


def preview_undo_conversation(ops: MemoryOperations, ledger: ImportLedger, import_id: str,
                              conversation_id: str) -> UndoPreview:
    """``preview_undo_import`` for one conversation of the import (``undo_conversation``)."""
    return ops.preview_undo(conversation_turns(ledger, import_id, conversation_id))


def undo_import(ops: MemoryOperations, ledger: ImportLedger, import_id: str, *, reason: str = "",
                rest: bool = False) -> Any:
    """Take the whole import back as one action (``UndoConflict``: memories changed since stand in the
    way, nothing changed; it says which and what the rest is). ``rest``: keep those memories as they
    are and take back the rest (``result.kept``). Its changes waiting in the review inbox (``ops``'
    inbox) are withdrawn in the same step (``result.withdrawn``; ``NothingToUndo.withdrawn`` when it
    left nothing else): approving one still on the person's screen is refused, saying the import was
    undone. Blocking. The ledger then lets its chats be imported again."""
    _not_running_elsewhere(ledger, import_id)
    # redone: undo the redo; some conversations undone on their own: the others (``undo_target``)
    target = _undo_of(ledger, import_id)
    try:
        result = ops.undo_turn(target, reason=reason or reason_text("import.undo", import_id), keep_touched=rest)
    except NothingToUndo:
        ledger.note_undo(target, "")  # it left nothing behind: its chats may be imported again
        _tidy(ledger.drop_journal, import_id)
        raise
    ledger.note_undo(target, result.turn_id, kept=len(result.kept))
    _tidy(ledger.drop_journal, import_id)  # what it had still to write goes with it (it is resumed no more)
    return result


def count_by_conversation(ops: MemoryOperations, ledger: ImportLedger, import_id: str) -> dict[str, tuple[int, int, int]]:
    """``count_changes`` for each conversation of an import at once (one read of the store)."""
    of_batch = {batch_turn_id(import_id, seq): cid for seq, cid in ledger.batch_conversations(import_id).items()}
    counts = {cid: [0, 0, 0] for cid in of_batch.values()}
    for item in ops.items_mentioning(import_id).values():  # (the memories its batches changed, not every one)
        made: dict[str, int] = {}
        for entry in item.own_history():
            cid = of_batch.get(entry.get("turn_id"))
            if cid is None:
                continue
            if entry.get("action") == kinds.CREATE:
                made[cid] = 0
            elif entry.get("action") in _REWRITES:
                made.setdefault(cid, 1)
        for cid, column in made.items():
            counts[cid][column] += 1
    for row in ops.trash():
        cid = of_batch.get(row.get("turn_id"))
        if cid is not None:
            counts[cid][2] += 1
    return {cid: (c[0], c[1], c[2]) for cid, c in counts.items()}


def conversation_turns(ledger: ImportLedger, import_id: str, conversation_id: str) -> TurnSet:
    """The batches of one conversation of ``import_id``, to undo (or count) as one; ``LookupError``
    when the ledger does not know them (an import made before they were kept)."""
    seqs = next((seqs for cid, _title, seqs in ledger.conversations(import_id) if cid == conversation_id), None)
    if not seqs:
        raise LookupError(f"import {import_id} has no conversation {conversation_id} on record")
    return TurnSet(f"{import_id}/{conversation_id}", [batch_turn_id(import_id, seq) for seq in seqs])


def undo_conversation(ops: MemoryOperations, ledger: ImportLedger, import_id: str, conversation_id: str, *,
                      rest: bool = False) -> Any:
    """Take back what one conversation of an import wrote, as one action (``UndoConflict`` as for the
    whole import: memories changed since — by the person, or by a later conversation of the import —
    stand in the way; ``rest`` keeps them). Its chats can then be imported again; undoing this undo
    (``sonetto memory undo``) makes them imported again. Blocking."""
    _not_running_elsewhere(ledger, import_id)
    turns = conversation_turns(ledger, import_id, conversation_id)
    title = next((t for cid, t, _seqs in ledger.conversations(import_id) if cid == conversation_id), "")
    result = ops.undo_turn(turns, reason=reason_text("import.undo_conversation", import_id, title[:40]), keep_touched=rest)
    ledger.note_conversation_undo(import_id, conversation_id, result.turn_id)
    # an import stopped part-way: the conversation's batches still to write are not written when it goes on
    _tidy(ledger.drop_batches, import_id, [s for s in map(batch_seq, turns.members) if s is not None])
    return result


def redo_import(ops: MemoryOperations, ledger: ImportLedger, import_id: str, *, rest: bool = False) -> Any:
    """Take back the undo of an import (``undo_import``): its memories as the import left them, as one
    action (``UndoConflict`` as for an undo: memories changed since the undo stand in the way; ``rest``
    keeps them). The ledger counts the import's chats as imported again. Blocking. ``LookupError``
    when the import is not undone."""
    state = ledger.get(import_id)
    if state is None or state.status != UNDONE or not state.undone_by:
        raise LookupError(f"import {import_id} is not undone")
    result = ops.undo_turn(state.undone_by, reason=reason_text("import.redo", import_id), keep_touched=rest)
    ledger.note_undo(state.undone_by, result.turn_id)
    return result


__all__ = ["DONE", "PAUSED", "RUNNING", "UNDONE", "ImportElsewhere", "ImportProgress", "ImportResult",
           "ImportRunner", "conversation_turns", "count_by_conversation", "count_changes", "origin_of",
           "preview_undo_conversation", "preview_undo_import", "redo_import", "undo_conversation",
           "undo_import"]
