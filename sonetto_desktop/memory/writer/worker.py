"""The consumer side of :class:`~.pipeline.MemoryWriter` (mixed into it): take each queued turn,
run its attempts, and decide what a failure means.

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

A journal step that fails with the disk keeps the turn in memory; it is never dropped.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Callable

from ...aio import imports_settled, run_blocking
from ..errors import api_key_of, scrub
from ..lazy_model import resolve
from .journal import JournalEntry
from .limits import TurnHeld, TurnProblem
from .status import describe_failure, server_away, storage_failure

if TYPE_CHECKING:  # LangChain's agent: imported by ``_get_consumer``, on a worker thread
    from .consumer import MemoryConsumer

log = logging.getLogger(__name__)

SERVER_RETRY = 2.0  # seconds between tries while the memory server is away (not the growing backoff)
RESCAN = "\0rescan"  # a queue item: look at the journal again (not a turn key)


class TurnWorker:
    """See the module docstring; the state it uses is ``MemoryWriter``'s."""

    # Provided by MemoryWriter.
    journal: Any
    events: Any
    backoff: tuple[float, ...]
    max_attempts: int
    max_tool_calls: int
    max_changed: int
    elsewhere_recheck: float
    last_result: Any
    _ops: Any
    _llm: Any
    _now: Any
    _retriever: Any
    _describe: Any
    _user_name: Any
    _consumer: MemoryConsumer | None
    _consumer_llm: Any
    _queue: asyncio.Queue[str | None] | None
    _wake: asyncio.Event | None
    _stopping: bool
    _entries: dict[str, JournalEntry]
    _forgotten: set[str]
    _current: str | None
    _failed: list[JournalEntry]
    _busy: bool
    _paused: bool
    _last_error: str | None
    _retry_at: datetime | None
    _recheck: asyncio.TimerHandle | None
    _emit: Callable[..., None]
    _status_changed: Callable[[], None]

    def _get_consumer(self) -> MemoryConsumer:
        """Blocking (run on a worker thread): the first call imports LangChain's agent and builds
        the model (a ``LazyModel`` is built here)."""
        if self._consumer is None or self._consumer_llm is not self._llm:
            with imports_settled():  # LangChain's agent, the first time
                from .consumer import MemoryConsumer

            llm = self._llm
            self._consumer = MemoryConsumer(resolve(llm), self._ops, now=self._now, retriever=self._retriever,
                                            user_name=self._user_name, max_tool_calls=self.max_tool_calls,
                                            max_changed=self.max_changed, index=self.index)
            self._consumer_llm = llm
        return self._consumer

    async def _consume(self, entry: JournalEntry) -> Any:
        consumer = self._consumer
        if consumer is None or self._consumer_llm is not self._llm:
            consumer = await run_blocking(self._get_consumer)  # building the tools takes ~20 ms
        from .resume import TurnRecorder, empty_progress  # imported with the consumer

        if entry.progress is None:
            entry.progress = empty_progress()
        recorder = TurnRecorder(entry.progress, lambda: self.journal.save_progress(entry), entry.turn_id)
        return await consumer.consume(entry.session_id, entry.turn_id, entry.messages, recorder=recorder,
                                      allow_mass=entry.allow_mass)

    def _failure_text(self, exc: BaseException) -> str:
        return describe_failure(exc, api_key_of(self._llm), self._describe)

    async def _run(self) -> None:
        assert self._queue is not None
        self._status_changed()
        try:
            if await run_blocking(self.journal.claim):
                replay = await run_blocking(self.journal.pending)
                self._failed = await run_blocking(self.journal.failed)
            else:  # another instance replays the journal; this one writes only what it is sent
                log.warning("another writer holds %s: not replaying its journal", self.journal.path)
                self._last_error = "另一个 Sonetto 正在使用这个记忆库，未处理的旧对话由它写入"
                replay = []
        except OSError as exc:
            log.error("cannot read the turn journal %s: %s", self.journal.path, exc)
            self._last_error = f"无法读取日志目录：{exc}"
            replay = []
        keys = []
        for entry in replay:
            if entry.key not in self._entries:
                self._entries[entry.key] = entry
                keys.append(entry.key)
        # Replayed turns were sent before anything queued now: they go first, in order.
        self._entries = {**{k: self._entries[k] for k in keys},
                         **{k: v for k, v in self._entries.items() if k not in keys}}
        self._status_changed()
        for key in keys:
            await self._guarded(key)
        while True:
            key = await self._queue.get()
            if key is None:
                break
            if key is RESCAN:
                await self._rescan()
                continue
            await self._guarded(key)

    async def _guarded(self, key: str) -> None:
        try:
            await self._process(key)
        except asyncio.CancelledError:
            self._busy = False
            raise
        except Exception as exc:
            log.exception("memory writer: unexpected failure on %s", key)
            self._busy = False
            self._retry_at = None
            self._last_error = scrub(f"{type(exc).__name__}: {exc}", [api_key_of(self._llm)])  # a bug: say what
            entry = self._entries.pop(key, None)
            if entry is not None:  # not "retrying" for ever: failed, kept (journaled), retry_failed() offered
                self._failed.append(entry)
                self._emit("gave_up", entry, self._last_error)
            self._status_changed()

    async def _wait_until_runnable(self) -> bool:
        assert self._wake is not None
        while True:
            self._wake.clear()
            if not self._paused and self._llm is not None:
                return True
            if self._stopping:
                return False
            self._status_changed()
            await self._wake.wait()

    async def _sleep(self, seconds: float) -> None:
        assert self._wake is not None
        self._wake.clear()
        try:
            await asyncio.wait_for(self._wake.wait(), seconds)
        except asyncio.TimeoutError:
            pass

    async def _process(self, key: str) -> None:
        entry = self._entries.get(key)
        if entry is None:
            return
        if not await self._wait_until_runnable() or key not in self._entries:  # stopped, or forgotten meanwhile
            return
        if not await run_blocking(self.journal.lock_entry, entry):
            # Another app instance is writing this turn (or has written it): it is not ours.
            log.info("memory writer: turn %s is in flight elsewhere; leaving it", entry.turn_id)
            self._entries.pop(key, None)
            self._status_changed()
            if self.journal.claimed and self._recheck is None:  # if that instance dies, the turn is ours
                self._recheck = asyncio.get_running_loop().call_later(self.elsewhere_recheck, self._look_again)
            return
        self._current = key
        try:
            if entry.turn_id in self._forgotten:  # "别记住这个" before its turn came: never written
                await self._journal(self.journal.remove, entry)
                self._entries.pop(key, None)
                self._status_changed()
                return
            await self._attempts(key, entry)
        finally:
            self._current = None
            await run_blocking(self.journal.unlock_entry, entry)

    def _look_again(self) -> None:
        self._recheck = None
        if self._queue is not None and not self._stopping:
            self._queue.put_nowait(RESCAN)

    async def _rescan(self) -> None:
        """Queue the journal's pending turns this writer does not know (left by an instance that died)."""
        try:
            found = await run_blocking(self.journal.pending)
        except OSError as exc:
            log.error("cannot read the turn journal %s: %s", self.journal.path, exc)
            return
        for entry in found:
            if entry.key not in self._entries and self._queue is not None:
                self._entries[entry.key] = entry
                self._queue.put_nowait(entry.key)
        self._status_changed()

    async def _journal(self, step: Callable[..., Any], *args: Any) -> bool:
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
            self._busy = True
            self._retry_at = None
            self._emit("started", entry, f"attempt {entry.attempts + 1}")
            self._status_changed()
            try:
                self.last_result = await self._consume(entry)
            except asyncio.CancelledError:
                self._busy = False
                raise
            except Exception as exc:  # noqa: BLE001 - every failure is counted and retried
                self._busy = False
                message = self._failure_text(exc)
                log.warning("memory writer: turn %s failed (attempt %d): %s", entry.turn_id, entry.attempts + 1,
                            message)
                if not await self._journal(self.journal.record_failure, entry, message):
                    entry.attempts = max(entry.attempts, 1)
                self._last_error = message
                self._emit("failed", entry, message, attempt=entry.attempts)
                disk = storage_failure(exc)
                # held, or calls written as text (trying the same model again would do the same): kept
                # in the failed list at once, for the person to retry
                if isinstance(exc, TurnProblem) or (entry.attempts >= self.max_attempts and not disk):
                    entry.held = exc.reason if isinstance(exc, TurnHeld) else None
                    await self._journal(self.journal.move_to_failed, entry)
                    self._entries.pop(key, None)
                    self._failed.append(entry)
                    what = "已暂缓" if entry.held else f"已失败 {entry.attempts} 次"
                    self._emit("gave_up", entry, f"{what}，保留在失败列表中：{message}")
                    self._status_changed()
                    return
                if self._stopping:
                    self._status_changed()
                    return  # stays journaled; the next start retries it
                delay = self.backoff[min(entry.attempts - 1, len(self.backoff) - 1)]
                if server_away(exc):  # the memory server reconnects on its own: look again soon
                    delay = min(delay, SERVER_RETRY)
                self._retry_at = datetime.now() + timedelta(seconds=delay)
                self._status_changed()
                await self._sleep(delay)
                self._retry_at = None
                if self._stopping:
                    return
                continue
            self._busy = False
            await self._journal(self.journal.remove, entry)
            self._entries.pop(key, None)
            self._last_error = None
            result = self.last_result
            self._emit("done", entry,
                       f"llm_calls={result.llm_calls} tool_calls={result.tool_calls} "
                       f"prompt_tokens={result.prompt_tokens}")
            self._status_changed()
            return
