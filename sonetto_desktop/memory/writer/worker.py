"""TurnWorker: the consumer side of :class:`~.pipeline.MemoryWriter`, a part it owns. It takes each
queued turn, runs its attempts and decides what a failure means.

A turn is taken only with its journal entry locked (``TurnJournal.lock_entry``): one in flight in
another app instance is left to it, and looked at again later by the journal's holder (that
instance may die). Each attempt resumes from the entry's recorded progress (``resume.py``); a
failed attempt was taken back by the consumer, which keeps only the model's first reply for the
next one (``TurnRecorder.after_rollback``). Then:

- a held turn (``guard.TurnHeld``: too many tool calls or memories changed) or one whose tool calls
  the model wrote as text (``text_calls.py``) goes to the failed list at once, nothing of it
  applied, until the person retries it;
- a failure of the disk (full, read-only: ``status.storage_failure``) is retried with backoff for
  as long as it takes, never given up (the status says why and when the next try is: ``retry_at``);
- any other failure is retried with backoff, up to ``max_attempts``, then kept in the failed list.

A journal step that fails with the disk keeps the turn in memory; it is never dropped. While more
than ``burst`` turns wait, they are taken at most ``per_minute`` a minute after a first ``burst``
(:class:`DrainRate`, a token bucket): a large backlog never becomes hundreds of model requests in a
few seconds; the status says the writer is catching up (``throttled_until``).

The worker owns the queue and what it knows of each turn (waiting, being written, failed); the
writer asks it (``entries``, ``failed``, ``busy``, …) and tells it (``enqueue``, ``wake``). What it
needs of the writer is given to its constructor: the journal, the limits (``WorkerPolicy``, which
the writer may change live), whether turns may run now (``runnable``: not paused, a model set),
the consumer (``consumer``), and where to report (``emit``, ``changed``, ``describe``). All its
state lives on the event-loop thread.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Awaitable, Callable

from ...aio import run_blocking, spawn
from ..backoff import Backoff
from ..changes import AGENT
from .journal import JournalEntry, TurnJournal
from .limits import DRAIN_BURST, DRAIN_PER_MINUTE, TurnHeld, TurnProblem
from .status import Bilingual, server_away, storage_failure

if TYPE_CHECKING:  # LangChain (the writer's tool loop): imported by the writer's consumer factory, on a worker thread
    from .consumer import MemoryConsumer

log = logging.getLogger(__name__)

SERVER_RETRY = 2.0  # seconds between tries while the memory server is away (not the growing backoff)
RESCAN = "\0rescan"  # a queue item: look at the journal again (not a turn key)
JOURNAL_WINDOW = 16  # journaled turns read into memory at a time (an import journals a thousand batches)


@dataclass
class WorkerPolicy:
    """How hard the worker tries: ``max_attempts`` per turn (a disk failure is never given up),
    ``backoff`` seconds between attempts (the last repeats), and how often a journal holder looks
    again at turns another instance was writing (``elsewhere_recheck``: that instance may die);
    ``server_retry``: seconds between tries while the memory server is away (it reconnects on its own);
    ``window``: how many journaled turns are read into memory at a time when replaying the journal."""

    max_attempts: int = 5
    backoff: tuple[float, ...] = (1.0, 2.0, 5.0, 15.0, 60.0)
    elsewhere_recheck: float = 30.0
    server_retry: float = SERVER_RETRY
    burst: int = DRAIN_BURST
    per_minute: float = DRAIN_PER_MINUTE
    window: int = JOURNAL_WINDOW


class PolicyValue:
    """An attribute of the writer that is its worker's ``WorkerPolicy`` field of the same name (live:
    the worker reads it at each attempt); ``convert`` normalises what is set."""

    def __init__(self, convert: Callable[[Any], Any] | None = None) -> None:
        self._convert = convert
        self._name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    def __get__(self, writer: Any, owner: type | None = None) -> Any:
        return self if writer is None else getattr(writer._worker.policy, self._name)

    def __set__(self, writer: Any, value: Any) -> None:
        setattr(writer._worker.policy, self._name, self._convert(value) if self._convert else value)


class DrainRate:
    """A token bucket of ``burst`` turns, refilled at ``per_minute``; only a backlog (more than
    ``burst`` turns waiting) takes from it. ``per_minute`` 0 or less: no limit (a writer whose
    turns are paced otherwise, e.g. a history import the person started and watches)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._tokens: float | None = None
        self._at = 0.0

    def wait(self, policy: WorkerPolicy, backlog: int) -> float:
        """Seconds until a turn may start (0: start now, its token taken)."""
        now = self._clock()
        rate = max(policy.per_minute, 0.0) / 60.0
        tokens = float(policy.burst) if self._tokens is None else self._tokens
        self._tokens = min(float(policy.burst), tokens + (now - self._at) * rate)
        self._at = now
        if backlog <= policy.burst or rate <= 0:
            return 0.0
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return 0.0
        return (1.0 - self._tokens) / rate


class TurnWorker:
    """See the module docstring. ``consumer()``: the consumer for the current model (awaitable; it
    may build it on a worker thread). ``emit(kind, entry, detail, attempt=, why=)``: a writer event
    (``why``: a failed attempt's reason in both languages); ``changed()``: the state may have changed
    (the writer publishes its status); ``describe(exc)``: a failure worded for people, in both languages
    (``Bilingual``); ``language()``: the UI's, for what is said now (an event's text, the log);
    ``redact(text)``: text with the model's key taken out;
    ``written(entry)``: blocking, called once a turn is written and before it leaves the journal (a
    record of what was written, e.g. an import's ledger: after a kill the turn is replayed from its
    progress and this is called again; if it fails, the turn stays and is tried again)."""

    def __init__(self, journal: TurnJournal, policy: WorkerPolicy, *, runnable: Callable[[], bool],
                 consumer: Callable[[], Awaitable[MemoryConsumer]], emit: Callable[..., None],
                 changed: Callable[[], None], describe: Callable[[BaseException], Bilingual],
                 redact: Callable[[str], str], written: Callable[[JournalEntry], None] | None = None,
                 language: Callable[[], str] = lambda: "zh_CN") -> None:
        self.journal = journal
        self.policy = policy
        self._runnable = runnable
        self._consumer = consumer
        self._emit = emit
        self._changed = changed
        self._describe = describe
        self._language = language
        self._redact = redact
        self._written = written
        self.entries: dict[str, JournalEntry] = {}  # waiting or being written, in order
        self.unread = 0  # journaled turns still to replay beyond those read (``entries``)
        self.failed: list[JournalEntry] = []  # given up or held (kept on disk in ``failed/``)
        self.forgotten: set[str] = set()  # turns the person asked not to remember (``MemoryWriter.forget_turn``)
        self.current: str | None = None  # the key of the turn being written now
        self.dropped: str | None = None  # the last turn forgotten while it waited out a failed attempt
        self.busy = False
        #: why the last attempt failed (or the journal could not be read), in both languages: a view says
        #: it in its language of then; None once a turn is written
        self.last_error: Bilingual | None = None
        #: something true about this writer that is no failure, in both languages: another app instance
        #: on the same data folder holds the journal and writes the older turns (this one writes its own)
        self.note: Bilingual | None = None
        self.retry_at: datetime | None = None
        self.throttled_until: datetime | None = None  # catching up on a backlog: the next turn's time
        self.last_result: Any = None
        self._drain = DrainRate()
        self.stopping = False
        self._queue: asyncio.Queue[str | None] | None = None
        self._wake: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self._recheck: asyncio.TimerHandle | None = None
        self._started = 0

    # ── what the writer tells it ──────────────────────────────────────

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    @property
    def waiting(self) -> int:
        """Turns still to write: those in memory and the journaled ones not read yet."""
        return len(self.entries) + self.unread

    @property
    def accepting(self) -> bool:
        """Whether a queued turn is taken in this run (started and not stopping)."""
        return self._queue is not None and not self.stopping

    def start(self) -> None:
        """Start the consumer task in the running loop. The journal is the source of truth: what an
        earlier run left is replayed from disk; only turns that could not be journaled (disk error)
        are carried over from memory."""
        asyncio.get_running_loop()  # (raises outside a running loop)
        self._queue = asyncio.Queue()
        self._wake = asyncio.Event()
        self.stopping = False
        self.entries = {k: e for k, e in self.entries.items() if e.seq == 0}
        self.unread = 0  # counted again as the journal is replayed
        self._started = self.journal.mark()  # the start's replay takes turns journaled before it (see _replay)
        for key in self.entries:
            self._queue.put_nowait(key)
        self._task = spawn(self._run(), name="sonetto-memory-writer")

    async def stop(self, timeout: float) -> bool:
        """Stop after the queued turns, waiting at most ``timeout`` seconds; True when nothing is left."""
        task = self._task
        if task is None:
            return True
        self.stopping = True
        if self._queue is not None:
            self._queue.put_nowait(None)
        self.wake()
        try:
            await asyncio.wait_for(asyncio.shield(task), timeout)
        except asyncio.TimeoutError:
            log.warning("memory writer did not finish within %.1fs; unwritten turns stay journaled", timeout)
            task.cancel()
            try:
                await task
            except asyncio.CancelledError:
                pass
        except Exception:
            log.exception("memory writer task failed")
        drained = not self.entries and not self.unread
        if self._recheck is not None:
            self._recheck.cancel()
            self._recheck = None
        await run_blocking(self.journal.release)
        self._task = None
        self._queue = None
        self.busy = False
        return drained

    def enqueue(self, entry: JournalEntry) -> bool:
        """Queue a turn in this run; False (not queued) before start or while stopping."""
        if not self.accepting:
            return False
        assert self._queue is not None
        if entry.key not in self.entries:  # else already queued (or read from the journal by a rescan)
            self._queue.put_nowait(entry.key)
        self.entries[entry.key] = entry
        return True

    def rescan(self, added: int = 0) -> bool:
        """Read the journal's pending turns this run does not know, a window at a time, after what is
        queued now (``added`` turns moved back from ``failed/`` by a retry, counted as waiting at once:
        their text is read from disk as they come, never all at once). False before start or while
        stopping (the next start reads them)."""
        if not self.accepting:
            return False
        assert self._queue is not None
        self.unread += added
        self._queue.put_nowait(RESCAN)
        return True

    def wake(self) -> None:
        """Look again now: paused/unpaused, a new model, or a backoff to cut short."""
        if self._wake is not None:
            self._wake.set()

    # ── the loop ──────────────────────────────────────────────────────

    async def _consume(self, entry: JournalEntry) -> Any:
        consumer = await self._consumer()
        from .resume import TurnRecorder, empty_progress  # imported with the consumer

        if entry.progress is None:
            entry.progress = empty_progress()
        recorder = TurnRecorder(entry.progress, lambda: self.journal.save_progress(entry), entry.turn_id)
        return await consumer.consume(entry.session_id, entry.turn_id, entry.messages, recorder=recorder,
                                      allow_mass=entry.allow_mass, now=entry.when(), actor=entry.actor or AGENT,
                                      origin=entry.origin,
                                      normalized=bool(entry.hidden_by) and entry.hidden_by == self.journal.instance)

    async def _run(self) -> None:
        assert self._queue is not None
        self._changed()
        replay = False
        try:
            if await run_blocking(self.journal.claim):
                self.failed = await run_blocking(lambda: self.journal.failed(text=False))  # their text stays on disk
                replay = True
            else:  # another instance replays the journal; this one writes only what it is sent
                log.warning("another writer holds %s: not replaying its journal", self.journal.path)
                self.note = Bilingual("另一个 Sonetto 正在使用这个记忆库，未处理的旧对话由它写入",
                                      "another Sonetto is using this memory store: it writes the older turns still waiting")
        except OSError as exc:
            log.error("cannot read the turn journal %s: %s", self.journal.path, exc)
            self.last_error = _unreadable_journal(exc)
        if replay:
            await self._replay(at_start=True)
        self._changed()
        while True:
            key = await self._queue.get()
            if key is None:
                break
            if key is RESCAN:
                await self._replay()
                continue
            await self._guarded(key)

    async def _replay(self, *, at_start: bool = False) -> None:
        """Write the journal's pending turns this writer does not know (an earlier run's, or those of
        an instance that died), oldest first, before anything queued now. Read ``policy.window`` at a
        time: a long journal (an import's batches) is never held in memory whole; ``unread`` counts
        the rest. A window whose turns could not all be written (stopping, paused at stop, disk)
        ends the replay: the rest stays journaled for the next start. At start only turns journaled
        before it are replayed: one sent meanwhile is journaled before it is queued, and must not be
        taken twice (or ahead of the turns sent before it)."""
        after = 0
        before = self._started if at_start else None
        while True:
            try:
                window, self.unread = await run_blocking(self.journal.pending_window, after,
                                                         max(1, self.policy.window), set(self.entries), before)
            except OSError as exc:
                log.error("cannot read the turn journal %s: %s", self.journal.path, exc)
                if at_start:
                    self.last_error = _unreadable_journal(exc)
                self.unread = 0
                return
            if not window:
                self.unread = 0
                return
            after = window[-1].seq
            keys = [entry.key for entry in window]
            # Replayed turns were sent before anything queued now: they go first, in order.
            self.entries = {**{entry.key: entry for entry in window},
                            **{k: v for k, v in self.entries.items() if k not in keys}}
            self._changed()
            for key in keys:
                await self._guarded(key)
            if any(key in self.entries for key in keys):  # stays journaled: the next start reads it again
                return

    async def _guarded(self, key: str) -> None:
        try:
            await self._process(key)
        except asyncio.CancelledError:
            self.busy = False
            raise
        except Exception as exc:
            log.exception("memory writer: unexpected failure on %s", key)
            self.busy = False
            self.retry_at = None
            bug = self._describe_bug(exc)  # a bug: say what (its type and words: the same in both languages)
            self.last_error = Bilingual(bug, bug)
            entry = self.entries.pop(key, None)
            if entry is not None:  # not "retrying" for ever: failed, kept (journaled), retry_failed() offered
                self.failed.append(entry)
                self._emit("gave_up", entry, bug)
            self._changed()

    def _describe_bug(self, exc: BaseException) -> str:
        return self._redact(f"{type(exc).__name__}: {exc}")

    async def _wait_until_runnable(self) -> bool:
        assert self._wake is not None
        while True:
            self._wake.clear()
            if self._runnable():
                return True
            if self.stopping:
                return False
            self._changed()
            await self._wake.wait()

    async def _sleep(self, seconds: float) -> None:
        assert self._wake is not None
        self._wake.clear()
        try:
            await asyncio.wait_for(self._wake.wait(), seconds)
        except asyncio.TimeoutError:
            pass

    async def _process(self, key: str) -> None:
        entry = self.entries.get(key)
        if entry is None:
            return
        if not await self._wait_until_runnable() or key not in self.entries:  # stopped, or forgotten meanwhile
            return
        if not await self._wait_for_rate() or key not in self.entries:
            return
        if not await run_blocking(self.journal.lock_entry, entry):
            # Another app instance is writing this turn (or has written it): it is not ours.
            log.info("memory writer: turn %s is in flight elsewhere; leaving it", entry.turn_id)
            self.entries.pop(key, None)
            self._changed()
            if self.journal.claimed and self._recheck is None:  # if that instance dies, the turn is ours
                self._recheck = asyncio.get_running_loop().call_later(self.policy.elsewhere_recheck,
                                                                      self._look_again)
            return
        self.current = key
        try:
            if entry.turn_id in self.forgotten:  # "别记住这个" before its turn came: never written
                await self.journal_step(self.journal.remove, entry)
                self.entries.pop(key, None)
                self._changed()
                return
            await self._attempts(key, entry)
        finally:
            self.current = None
            await run_blocking(self.journal.unlock_entry, entry)

    async def _wait_for_rate(self) -> bool:
        """Take a backlog at the drain rate; False when stopping meanwhile (the turn stays journaled)."""
        while (delay := self._drain.wait(self.policy, self.waiting)) > 0:
            if self.stopping:
                return False
            self.throttled_until = datetime.now() + timedelta(seconds=delay)
            self._changed()
            await self._sleep(delay)
            if not await self._wait_until_runnable():
                self.throttled_until = None
                return False
        if self.throttled_until is not None:
            self.throttled_until = None
            self._changed()
        return True

    def _look_again(self) -> None:
        self._recheck = None
        if self._queue is not None and not self.stopping:
            self._queue.put_nowait(RESCAN)

    async def journal_step(self, step: Callable[..., Any], *args: Any) -> bool:
        """A journal step that may fail with the disk (full, read-only): the turn is kept in memory."""
        try:
            await run_blocking(step, *args)
            return True
        except OSError as exc:
            log.error("memory writer: journal step %s failed: %s", getattr(step, "__name__", step), exc)
            return False

    async def _attempts(self, key: str, entry: JournalEntry) -> None:
        while True:
            if not await self._wait_until_runnable():
                return
            if entry.attempts and entry.turn_id in self.forgotten:  # forgotten while waiting out a failure:
                await self.journal_step(self.journal.remove, entry)  # a failed attempt left nothing behind
                self.entries.pop(key, None)
                self.dropped = entry.turn_id
                self._changed()
                return
            self.busy = True
            self.retry_at = None
            self._emit("started", entry, f"attempt {entry.attempts + 1}")
            self._changed()
            try:
                self.last_result = await self._consume(entry)
                if self._written is not None:
                    await run_blocking(self._written, entry)
            except asyncio.CancelledError:
                self.busy = False
                raise
            except Exception as exc:  # noqa: BLE001 - every failure is counted and retried
                self.busy = False
                if await self._failed_attempt(key, entry, exc):
                    return
                continue
            self.busy = False
            await self.journal_step(self.journal.remove, entry)
            self.entries.pop(key, None)
            self.last_error = None
            result = self.last_result
            self._emit("done", entry,
                       f"llm_calls={result.llm_calls} tool_calls={result.tool_calls} "
                       f"prompt_tokens={result.prompt_tokens}")
            self._changed()
            return

    async def _failed_attempt(self, key: str, entry: JournalEntry, exc: Exception) -> bool:
        """Count a failed attempt; True when the turn is done with (failed list, or stopping), False
        to try again (after the backoff)."""
        why = self._describe(exc)
        message = why.said_in(self._language())
        log.warning("memory writer: turn %s failed (attempt %d): %s", entry.turn_id, entry.attempts + 1, message)
        if not await self.journal_step(self.journal.record_failure, entry, why.zh, why.en):
            entry.attempts = max(entry.attempts, 1)
        self.last_error = why
        self._emit("failed", entry, message, attempt=entry.attempts, why=why)
        disk = storage_failure(exc)
        # held, or calls written as text (trying the same model again would do the same): kept
        # in the failed list at once, for the person to retry
        if isinstance(exc, TurnProblem) or (entry.attempts >= self.policy.max_attempts and not disk):
            entry.held = exc.reason if isinstance(exc, TurnHeld) else None
            kept = await self.journal_step(self.journal.move_to_failed, entry)
            self.entries.pop(key, None)
            self.failed.append(entry.without_text() if kept else entry)  # (on disk: its text need not stay here)
            # (the reason, in the UI's language; how often it failed is the event's number: a view words it)
            self._emit("gave_up", entry, message, attempt=0 if entry.held else entry.attempts, why=why)
            self._changed()
            return True
        if self.stopping:
            self._changed()
            return True  # stays journaled; the next start retries it
        delay = Backoff(tuple(self.policy.backoff)).delay(entry.attempts - 1)
        if server_away(exc):  # the memory server reconnects on its own: look again soon
            delay = min(delay, self.policy.server_retry)
        self.retry_at = datetime.now() + timedelta(seconds=delay)
        self._changed()
        await self._sleep(delay)
        self.retry_at = None
        return self.stopping


def _unreadable_journal(exc: OSError) -> Bilingual:
    return Bilingual(f"无法读取日志目录：{exc}", f"the turn journal's folder cannot be read: {exc}")
