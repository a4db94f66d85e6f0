"""MemoryWriter: the 湾流 write pipeline, a durable queue in front of ``MemoryConsumer``.

Producer: ``await send_history(turn)`` validates, journals (fsync, on a worker thread) and
enqueues — it returns at once. Consumer: one task on the event loop takes turns in order, runs the
writer agent, and removes a turn from the journal only when it was written. Failures are retried
with backoff (head of line, so later turns never overtake an earlier one); a turn failing
``max_attempts`` times moves to the journal's ``failed/`` list and is reported, never dropped.
A failed attempt's writes are taken back before the next one (``consumer``); an attempt cut off
(a kill, a stop) resumes from its journaled progress (``resume.py``). A turn that crosses a limit
(``guard.py``: ``max_tool_calls``, ``max_changed`` memories) is held in the failed list at once,
nothing of it applied. A failure of the disk (full, read-only) is never given up on: the turn stays
queued and is retried with backoff, the status naming the reason and the time of the next try
(``retry_at``); :meth:`retry_failed` retries at once. While a turn is written its journal entry is
locked (``TurnJournal.lock_entry``), so two app instances on one store never write the same turn.

The writer reports its state as :class:`~.events.WriterEvent` s on ``events`` (queued, started,
done, failed, gave_up, status); what it changes in the memories travels on the store's change
channel, tagged with the turn id. The agent runs on the caller's event loop (its sync tools and
store I/O in worker threads); the loop-stall benchmark (docs/benchmarks.md) keeps that honest.
All state lives on the event-loop thread. The queue and its turns are the :class:`~.worker.TurnWorker`'s,
a part the writer owns; the writer holds the model, the pause switch and the consumer it builds.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import uuid
from datetime import datetime
from typing import TYPE_CHECKING, Any, Callable, Sequence

from ...aio import run_blocking, spawn
from ..changes import AGENT
from ..errors import api_key_of, scrub
from ..lazy_model import resolve
from ..stores.base import BaseMemoryManager
from ..events import EventFeed
from ..unicode_text import storable
from ..operations import MemoryOperations
from .events import WriterEvent
from .index import WriterIndex
from .limits import DEFAULT_MAX_CHANGED, DEFAULT_MAX_TOOL_CALLS, DRAIN_BURST, DRAIN_PER_MINUTE
from .journal import JournalEntry, TurnJournal, default_journal_path, retried_progress
from .listing import RetrieverProvider
from .secret_filter import redact_secrets
from .status import Bilingual, ErrorDescriber, WriterStatus, describe_failure, make_status
from .turns import last_exchange, normalize_turn
from .worker import PolicyValue, TurnWorker, WorkerPolicy

if TYPE_CHECKING:  # LangChain (the writer's tool loop): imported when the first turn is written, off the loop
    from .consumer import MemoryConsumer

log = logging.getLogger(__name__)

HANDED_KEPT = 256  # turn ids remembered by ``was_handed``


class MemoryWriter:
    """See the module docstring. ``memory``: the memory operations (or a store, wrapped). ``llm``:
    the writer's chat model; ``None`` means none is configured (turns wait in the journal until
    ``set_llm``). ``retriever``: a provider of the offline retriever for the bounded listing.
    ``describe_error(exc, api_key, language)`` words a failure for people (default: type and message).
    ``events``: the feed to report on (default: a new one; a front end may keep one across writers).
    ``user_name()``: what the user wants to be called (the settings' field), for the memories' wording.
    ``on_written(entry)``: blocking, after a turn is written and before it leaves the journal (see
    ``TurnWorker``: an import's ledger). ``drain_burst`` / ``drain_per_minute``: how fast a backlog
    is written (``worker.DrainRate``). ``index``: the :class:`WriterIndex` of another writer on the same
    store to share (an import's writer uses chat's: at 100,000 memories a second one is a full read
    and tens of MB); default: one of its own, built at its first query."""

    def __init__(
        self,
        memory: MemoryOperations | BaseMemoryManager,
        llm: Any = None,
        journal_path: Any = None,
        *,
        max_attempts: int = 5,
        backoff: Sequence[float] = (1, 2, 5, 15, 60),
        stop_timeout: float = 10.0,
        now: Callable[[], datetime] | None = None,
        retriever: RetrieverProvider | None = None,
        describe_error: ErrorDescriber | None = None,
        events: EventFeed[WriterEvent] | None = None,
        user_name: Callable[[], str] | None = None,
        language: Callable[[], str] | None = None,
        max_tool_calls: int = DEFAULT_MAX_TOOL_CALLS,
        max_changed: int = DEFAULT_MAX_CHANGED,
        on_written: Callable[[JournalEntry], None] | None = None,
        drain_burst: int = DRAIN_BURST,
        drain_per_minute: float = DRAIN_PER_MINUTE,
        index: WriterIndex | None = None,
    ) -> None:
        ops = memory if isinstance(memory, MemoryOperations) else MemoryOperations(memory)
        if journal_path is None:
            store_path = getattr(ops.store, "path", None)
            if store_path is None:
                raise ValueError("this memory manager has no .path: pass journal_path explicitly")
            journal_path = default_journal_path(store_path)
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self._ops = ops
        self._llm = llm
        self.journal = TurnJournal(journal_path)
        self.events: EventFeed[WriterEvent] = events if events is not None else EventFeed()
        self.stop_timeout = stop_timeout
        self._now = now
        self._retriever = retriever
        self._describe = describe_error
        self._user_name = user_name
        self._language = language  # the UI's language: the writer's reasons are shown in it
        self.max_tool_calls = max_tool_calls
        self.max_changed = max_changed
        self._activity: tuple[str, str] | None = None
        self._consumer: MemoryConsumer | None = None
        self._consumer_llm: Any = None  # the (maybe lazy) model ``_consumer`` was built for
        self._index: WriterIndex | None = index  # (another writer's on the same store: an import shares chat's)
        self._index_lock = threading.Lock()
        self._paused = False
        self._last_status: tuple | None = None
        self._loop: asyncio.AbstractEventLoop | None = None  # the loop the writer runs on (``start``)
        self._locked_told: set[tuple[str | None, str]] = set()  # (turn, memory) a lock refusal was told of
        self._journaling: dict[str, asyncio.Future] = {}  # turn id -> its append under way (``send_history``)
        self._handed: dict[str, None] = {}  # the turn ids sent lately, oldest first (``was_handed``)
        self._worker = TurnWorker(
            self.journal, WorkerPolicy(max_attempts, tuple(float(b) for b in backoff) or (1.0,),
                                       burst=drain_burst, per_minute=drain_per_minute),
            runnable=lambda: not self._paused and self._llm is not None, consumer=self._ready_consumer,
            emit=self._emit, changed=self._status_changed, describe=self._failure_words, redact=self._redact,
            written=on_written, language=self.language)

    # ── limits (live: the worker reads them at each attempt) ──────────

    max_attempts = PolicyValue()
    backoff = PolicyValue(lambda value: tuple(float(b) for b in value) or (1.0,))
    elsewhere_recheck = PolicyValue()  # how often a journal holder looks again at another instance's turns
    server_retry = PolicyValue()  # seconds between tries while the memory server is away

    # ── observable state ──────────────────────────────────────────────

    @property
    def ops(self) -> MemoryOperations:
        return self._ops

    @property
    def llm(self) -> Any:
        return self._llm

    @property
    def index(self) -> WriterIndex:
        """What the turns and the tidy-up pass know about the whole store (recency, due dates, same
        text, names): one for both, following the store. Built by its first query, one full read:
        :meth:`warm_up` does that at start rather than in the first turn."""
        with self._index_lock:
            if self._index is None:
                self._index = WriterIndex(self._ops.store)
            return self._index

    def warm_up(self) -> None:
        """Blocking (a worker thread): build :attr:`index` now (~0.1 s at 10,000 memories)."""
        self.index.warm_up()

    @property
    def pending(self) -> int:
        return self._worker.waiting

    @property
    def busy(self) -> bool:
        return self._worker.busy

    @property
    def paused(self) -> bool:
        return self._paused

    @property
    def last_error(self) -> str | None:
        """Why the last attempt failed, in the UI's language now (``error_in``)."""
        return self.error_in(self.language())

    def error_in(self, language: str) -> str | None:
        """Why the last attempt failed, in ``language``: asked when it is shown, so a view made after a
        language switch says it in the new language; None once a turn is written."""
        error = self._worker.last_error
        return error.said_in(language) if error else None

    @property
    def last_result(self) -> Any:
        """The last written turn's ``ConsumeResult``."""
        return self._worker.last_result

    @property
    def running(self) -> bool:
        return self._worker.running

    def failed_turns(self) -> list[JournalEntry]:
        """Turns given up on (kept on disk in the journal's ``failed/``), oldest first."""
        return list(self._worker.failed)

    def status(self) -> WriterStatus:
        """The writer's state now; ``last_error`` in the UI's language (``zh`` / ``en``: each in its own)."""
        worker = self._worker
        configured = self._llm is not None
        retry_at = worker.retry_at.replace(microsecond=0).isoformat() if worker.retry_at else None
        throttled = worker.throttled_until.replace(microsecond=0).isoformat() if worker.throttled_until else None
        return make_status(pending=self.pending, busy=worker.busy, paused=self._paused, configured=configured,
                           failed=len(worker.failed), error=worker.last_error, activity=self._activity,
                           retry_at=retry_at, held=sum(1 for e in worker.failed if e.held), catching_up=throttled,
                           note=worker.note, language=self.language())

    def set_activity(self, activity: tuple[str, str] | None) -> None:
        """Background work besides turns to show in the status ((zh, en); ``None`` when it ends),
        e.g. the memory hygiene pass."""
        self._activity = activity
        self._status_changed()

    def _emit(self, kind: str, entry: JournalEntry | None = None, detail: str = "", *, attempt: int = 0,
              why: Bilingual | None = None) -> None:
        """``why``: what made the attempt fail, in both languages too (a view shown later, after a
        language switch, says it in the language of then)."""
        zh, en = why if why is not None else ("", "")
        self.events.publish(WriterEvent(kind, entry.turn_id if entry else None,
                                        entry.session_id if entry else None, detail, attempt, zh=zh, en=en))

    def _status_changed(self) -> None:
        st = self.status()
        key = (st.pending, st.busy, st.paused, st.configured, st.failed, st.last_error, st.zh, st.retry_at)
        if key != self._last_status:
            self._last_status = key
            self.events.publish(WriterEvent("status", detail=st.zh))

    def _failure_words(self, exc: BaseException) -> Bilingual:
        key = api_key_of(self._llm)
        return Bilingual(*(describe_failure(exc, key, self._describe, language) for language in ("zh_CN", "en")))

    def _redact(self, text: str) -> str:
        return scrub(text, [api_key_of(self._llm)])

    def language(self) -> str:
        """The UI's language (``"zh_CN"`` / ``"en"``): the writer's reasons are asked in it."""
        return self._language() if self._language is not None else "zh_CN"

    # ── the consumer (built for the current model) ────────────────────

    def _get_consumer(self) -> MemoryConsumer:
        """Blocking (run on a worker thread): the first call imports LangChain (the tool loop) and builds
        the model (a ``LazyModel`` is built here)."""
        if self._consumer is None or self._consumer_llm is not self._llm:
            from .consumer import MemoryConsumer  # LangChain, the first time

            llm = self._llm
            self._consumer = MemoryConsumer(resolve(llm), self._ops, now=self._now, retriever=self._retriever,
                                            user_name=self._user_name, language=self._language,
                                            max_tool_calls=self.max_tool_calls,
                                            max_changed=self.max_changed, index=self.index,
                                            on_locked=self._refused_by_lock)
            self._consumer_llm = llm
        return self._consumer

    def _refused_by_lock(self, memory_id: str, context: Any) -> None:
        """A tool call met a locked memory (on a worker thread): a ``locked`` event, once per turn and
        memory, published on the writer's loop."""
        key = (context.turn_id, memory_id)
        loop = self._loop
        if key in self._locked_told or loop is None:
            return
        if len(self._locked_told) > 1000:  # only recent turns matter
            self._locked_told.clear()
        self._locked_told.add(key)
        try:
            text = self._ops.store.get(memory_id).description
        except Exception:  # noqa: BLE001 - gone meanwhile: the id still says which
            text = ""
        event = WriterEvent("locked", context.turn_id, context.session_id, text, memory_id=memory_id)
        loop.call_soon_threadsafe(self.events.publish, event)

    async def _ready_consumer(self) -> MemoryConsumer:
        consumer = self._consumer
        if consumer is None or self._consumer_llm is not self._llm:
            consumer = await run_blocking(self._get_consumer)  # building the tools takes ~20 ms
        return consumer

    # ── controls ──────────────────────────────────────────────────────

    def pause(self) -> None:
        """Stop taking new turns (the one being written finishes); turns keep queueing."""
        self._paused = True
        self._status_changed()

    def resume(self) -> None:
        self._paused = False
        self._worker.wake()
        self._status_changed()

    def set_llm(self, llm: Any) -> None:
        """Use another model from now on (``None``: none configured, turns wait in the journal)."""
        self._llm = llm
        self._consumer = None
        self._worker.wake()
        self._status_changed()

    # ── lifecycle ─────────────────────────────────────────────────────

    def start(self) -> None:
        """Start the consumer task; must be called inside a running event loop. Journaled turns
        from earlier runs are written first, in the order they were sent."""
        self._loop = asyncio.get_running_loop()
        if self.running:
            return
        self._worker.start()

    async def stop(self, timeout: float | None = None) -> bool:
        """Stop after the queued turns, waiting at most ``timeout`` (default ``stop_timeout``)
        seconds. Returns ``True`` when everything queued was written; unwritten turns stay journaled."""
        drained = await self._worker.stop(self.stop_timeout if timeout is None else timeout)
        self._status_changed()
        return drained

    # ── producer ──────────────────────────────────────────────────────

    async def send_history(self, turn_messages: Any, session_id: str | None = None, turn_id: str | None = None, *,
                           actor: str | None = None, as_of: datetime | None = None, origin: str = "",
                           secrets_hidden: bool = False) -> str:
        """Journal the turn durably and queue it; returns the turn id at once.

        ``actor``: who its changes are written as (default Sonetto, ``agent``; ``mcp:<app>`` for a
        conversation another app handed over, ``import:<source>`` for imported history); ``as_of``:
        the turn's own time (what its dates are relative to; default: when it is written);
        ``origin``: where the conversation came from, kept with each change (its secret values hidden,
        as the turn's: an imported title may hold one); ``secrets_hidden``: the messages' texts are the
        secret filter's output already (an import's rendered batches: not filtered twice). ``ValueError`` if the
        turn has no user/assistant text or the actor is not one a turn may be written as. Before
        ``start()`` or after ``stop()`` the turn is only journaled: the next start writes it."""
        messages = normalize_turn(turn_messages, secrets_hidden=secrets_hidden)
        origin = redact_secrets(storable(origin))[0]  # kept with each change, said in the prompt
        turn_id = turn_id or uuid.uuid4().hex[:12]
        if actor == AGENT:
            actor = None
        when = as_of.isoformat() if as_of is not None else None
        # The append (fsync, in a worker thread) cannot be called off once started: if the caller is
        # cancelled meanwhile (a stopped reply) the turn lands in the journal all the same, so it is
        # queued all the same, when the append ends (``_journaled``), and is where ``forget_turn``
        # looks: a caller that does not want it after all takes it back there.
        self._handed[turn_id] = None
        if len(self._handed) > HANDED_KEPT:
            del self._handed[next(iter(self._handed))]
        job = spawn(run_blocking(self.journal.append, turn_id, session_id, messages, actor=actor, as_of=when,
                                 origin=origin, hidden=True), name="sonetto-journal-append", awaited=True)
        self._journaling[turn_id] = job
        job.add_done_callback(lambda done: self._journaled(done, turn_id, session_id, messages, actor, when, origin))
        try:
            await asyncio.shield(job)
        except OSError:
            pass  # kept in memory (``_journaled``)
        return turn_id

    def _journaled(self, job: asyncio.Future, turn_id: str, session_id: str | None, messages: list[dict[str, Any]],
                   actor: str | None, when: str | None, origin: str) -> None:
        """``send_history``'s append ended (on the loop, whether or not its caller still waits): queue the turn."""
        if self._journaling.get(turn_id) is job:
            del self._journaling[turn_id]
        if job.cancelled():
            return
        exc = job.exception()
        if isinstance(exc, OSError):
            # Keep the chat going and the turn in memory; say that it is not durable.
            log.error("could not journal turn %s: %s", turn_id, exc)
            self._worker.last_error = Bilingual(f"无法写入日志文件（{exc.strerror or exc}），本轮仅保存在内存中",
                                                f"the turn journal cannot be written ({exc.strerror or exc}): this turn is kept in memory only")
            entry = JournalEntry(uuid.uuid4().hex[:16], 0, turn_id, session_id, messages, actor=actor, as_of=when,
                                 origin=origin, hidden_by=self.journal.instance)
        elif exc is not None:
            return  # (ValueError: raised to the caller)
        else:
            entry = job.result()
        self._emit("queued", entry)
        self._worker.enqueue(entry)
        self._status_changed()

    def was_handed(self, turn_id: str) -> bool:
        """Whether ``send_history`` was given turn ``turn_id`` lately (among the last ``HANDED_KEPT``) in
        this run: a chat that did not keep the turn after all asks before taking it back (``forget_turn``)."""
        return turn_id in self._handed

    async def send_history_from_session(self, session_id: str, messages: Sequence[Any]) -> str:
        """Queue the latest turn (last user message + the replies after it) of a stored session."""
        return await self.send_history(last_exchange(messages), session_id=session_id)

    async def retry_failed(self) -> int:
        """Retry now: every given-up or held turn goes back in the queue (attempts reset; a held mass
        change is then applied, undoable as one turn), and a turn waiting for its next automatic try
        is tried at once. Returns how many given-up turns were requeued."""
        worker = self._worker
        moved = await run_blocking(self.journal.requeue_failed)  # (back in pending/, listed without text)
        journaled = {e.key for e in moved}
        kept = []
        for entry in worker.failed:  # failed turns that could not reach the journal's failed list
            if entry.key not in journaled and entry.has_text:  # (one listed without its text was on disk:
                # gone from there meanwhile, it has nothing left to write)
                entry.allow_mass = entry.allow_mass or entry.held == "mass_change"  # the person said yes
                entry.attempts, entry.progress, entry.held = 0, retried_progress(entry), None
                kept.append(entry)
        worker.failed = []
        if worker.retry_at is not None:
            worker.wake()  # cuts the backoff short
        if moved:
            worker.rescan(len(moved))  # read back from pending/ a window at a time
        for entry in kept:
            worker.enqueue(entry)
        self._status_changed()
        return len(moved) + len(kept)

    async def _take_out(self, entry: Any) -> bool:
        """Remove a journaled turn that is not being written; False when another instance holds it."""
        if not await run_blocking(self.journal.lock_entry, entry):
            return False
        try:
            await self._worker.journal_step(self.journal.remove, entry)
        finally:
            await run_blocking(self.journal.unlock_entry, entry)
        return True

    async def forget_turn(self, turn_id: str, *, wait: float = 120.0) -> str:
        """The person asked not to remember turn ``turn_id`` ("别记住这个"). Returns what became of it:

        - ``"dropped"``: it was waiting (queued, retrying or in the failed list): taken out of the
          queue and the journal; nothing of it is written;
        - ``"written"``: it was being written, and that has finished (waited up to ``wait``
          seconds): its changes are in the store, for the caller to undo (``undo_turn``);
        - ``"writing"``: still being written after ``wait`` seconds (undo its changes later);
        - ``"elsewhere"``: another app instance is writing it (its changes can be undone after);
        - ``"unknown"``: not here (already written earlier, never journaled, or another store).
        """
        worker = self._worker
        worker.forgotten.add(turn_id)
        job = self._journaling.get(turn_id)
        if job is not None:  # still being journaled (its sender may have been stopped): let it land, queued
            await asyncio.gather(asyncio.shield(job), return_exceptions=True)  # (``_journaled`` ran before)
        state = "unknown"
        for entry in [e for e in worker.failed if e.turn_id == turn_id]:
            worker.failed.remove(entry)
            await worker.journal_step(self.journal.discard_failed, entry)
            state = "dropped"
        for entry in await run_blocking(lambda: self.journal.failed(text=False)):
            if entry.turn_id == turn_id:
                await worker.journal_step(self.journal.discard_failed, entry)
                state = "dropped"
        for key, entry in list(worker.entries.items()):
            if entry.turn_id != turn_id:
                continue
            if key == worker.current:
                worker.wake()  # waiting out a failed attempt: cut the backoff short, it is dropped then
                deadline = asyncio.get_running_loop().time() + wait
                while worker.current == key and asyncio.get_running_loop().time() < deadline:
                    await asyncio.sleep(0.05)
                if worker.current == key:
                    return "writing"
                return "dropped" if worker.dropped == turn_id else "written"
            if not await self._take_out(entry):
                return "elsewhere"
            worker.entries.pop(key, None)
            state = "dropped"
        if state == "unknown":  # journaled but not queued in this run: not read yet (a long journal is read a
            # window at a time), or journaled while the writer was not taking turns (before start, stopping)
            for entry in await run_blocking(self.journal.find_pending, turn_id):
                if not await self._take_out(entry):
                    return "elsewhere"
                if worker.unread:
                    worker.unread -= 1
                state = "dropped"
        self._status_changed()
        return state

    def close(self) -> None:
        """Nothing to release today (the journal claim goes with ``stop()``); kept so owners can
        close every part the same way. Safe to call twice."""
