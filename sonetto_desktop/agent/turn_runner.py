"""TurnRunner: a ChatEngine's turns (see ``engine.py`` for the event contract): input checks, the
graph run streamed as ChatEvents, cancel, timeouts, and what is kept of a failed or interrupted turn.
A part the engine owns: it is given the session database, the temporary chats, the model and its
graphs (``ChatModel``), a way to read a session's memory switches, and the limits; it owns the running
turns. The LLM stack is imported when the first turn starts, on a worker thread (``TURN_MODULES``)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, AsyncIterator, Awaitable, Callable

from ..aio import import_off_loop, spawn
from ..memory.unicode_text import storable
from .chat_events import ChatEvent, SessionInfo, input_error, storage_error
from .chat_model import PREPARE_MODULES, TURN_MODULES, ChatModel
from .deadlines import DEFAULT_FIRST_TOKEN_TIMEOUT, DEFAULT_IDLE_TIMEOUT
from .llm import FIRST_REQUEST_MODULES
from .storage_errors import storage_problem
from .turn_rewind import rewind

if TYPE_CHECKING:
    from .session_db import SessionDatabase
    from .stall_guard import StallGuard
    from .sessions import SessionStore
    from .turn_events import TurnRecorder

__all__ = ["PREPARE_MODULES", "TURN_MODULES", "TurnLimits", "TurnRunner"]

log = logging.getLogger(__name__)


@dataclass
class TurnLimits:
    """How long a message may be, how many graph steps a turn may take, and the stream's deadlines
    (settings ``first_token_timeout`` / ``stream_idle_timeout``; see ``stall_guard``)."""

    max_input_chars: int
    recursion_limit: int
    first_token_timeout: float = DEFAULT_FIRST_TOKEN_TIMEOUT
    idle_timeout: float = DEFAULT_IDLE_TIMEOUT


class TurnRunner:
    """See the module docstring. ``session_info(id)``: the session with its memory switches (None if unknown)."""

    def __init__(self, db: SessionDatabase, temporary: SessionStore, model: ChatModel,
                 session_info: Callable[[str], Awaitable[SessionInfo | None]], limits: TurnLimits) -> None:
        self._db = db
        self._temporary = temporary
        self._model = model
        self._session_info = session_info
        self.limits = limits
        self.accepting = False  # the engine is started and not closed
        self._running: dict[str, asyncio.Task[None]] = {}
        # Turns past their imports and not yet asking the model (going back before a replaced turn,
        # keeping the message): a stop waits until the message is kept, then ends the turn
        # (``_stopping``), never half-way through.
        self._preparing: set[str] = set()
        self._stopping: set[str] = set()

    def store_for(self, session_id: str) -> Any:
        """Where ``session_id``'s transcript lives: in memory for a temporary chat, else the database."""
        return self._temporary if session_id in self._temporary else self._db.store

    def is_busy(self, session_id: str) -> bool:
        return session_id in self._running

    async def stop(self, session_id: str) -> None:
        """Cancel ``session_id``'s running reply and wait until it has ended."""
        task = self._running.get(session_id)
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    async def stop_all(self) -> None:
        """Cancel every running reply (their partial replies are kept) and wait until they have ended."""
        tasks = list(self._running.values())
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _graph_for(self, session_id: str) -> Any:
        return await self._model.graph_for(session_id in self._temporary, self._db.checkpointer)

    def cancel(self, session_id: str) -> bool:
        """Stop the reply running in ``session_id``; False if none was running."""
        task = self._running.get(session_id)
        if task is None or task.done():
            return False
        if session_id in self._preparing:
            self._stopping.add(session_id)
        else:
            task.cancel()
        return True

    async def send(self, session_id: str, text: str, *, replace_turn: str = "",
                   hold: Callable[[], Awaitable[Any]] | None = None) -> AsyncIterator[ChatEvent]:
        """Run one turn; see the module docstring for the event contract. ``replace_turn``: first
        drop that turn and everything after it (regenerate, edit and resend; see turn_rewind).
        ``hold()``: awaited once the message is stored, before anything is recalled or asked (an
        edit takes back what the replaced turns wrote meanwhile); a stop then ends the turn as
        stopped, the message kept, the model never asked."""
        problem = self._check_input(session_id, text)
        if problem is not None:
            yield problem
            return
        text = storable(text)  # a lone surrogate (pasted bytes) cannot be stored: U+FFFD
        turn_id = uuid.uuid4().hex
        queue: asyncio.Queue[ChatEvent | None] = asyncio.Queue()
        task = spawn(self._run_turn(session_id, text, turn_id, queue.put_nowait, replace_turn=replace_turn, hold=hold),
                     name="sonetto-chat-turn", awaited=True)
        self._running[session_id] = task
        try:
            while (event := await queue.get()) is not None:
                yield event
        finally:
            if not task.done():  # the caller stopped listening: stop the turn too
                task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            if self._running.get(session_id) is task:
                del self._running[session_id]
                self._preparing.discard(session_id)
                self._stopping.discard(session_id)

    def _check_input(self, session_id: str, text: Any) -> ChatEvent | None:
        if not self.accepting:
            raise RuntimeError("ChatEngine.start() has not been awaited (or the engine is closed)")
        if not isinstance(session_id, str) or not session_id.strip():
            return input_error("没有指定会话。", "No session was given.")
        if not isinstance(text, str) or not text.strip():
            return input_error("消息是空的，写点什么再发送吧。", "The message is empty.")
        if len(text) > self.limits.max_input_chars:
            return input_error(
                f"消息太长了（{len(text)} 字，上限 {self.limits.max_input_chars} 字），请分几次发送。",
                f"The message is too long ({len(text)} characters, limit {self.limits.max_input_chars}); send it in parts.",
            )
        if session_id in self._running:
            return input_error("上一条消息还在回复中，请稍等或先停止。", "Still replying to the previous message.")
        return None

    async def _run_turn(
        self, session_id: str, text: str, turn_id: str, emit: Callable[[ChatEvent | None], None],
        *, replace_turn: str = "", hold: Callable[[], Awaitable[Any]] | None = None,
    ) -> None:
        try:
            # the first turn: ~100 MB of modules, off the loop, with what the clients import lazily
            await import_off_loop(TURN_MODULES, optional=FIRST_REQUEST_MODULES)
        except asyncio.CancelledError:
            emit(_cancelled(turn_id))
            emit(None)
            return
        self._preparing.add(session_id)
        from langchain_core.messages import HumanMessage

        from .llm_errors import ReplyCut
        from .stall_guard import ReplyStalled
        from .turn_events import TurnRecorder, describe_turn_error

        config: dict[str, Any] = {"configurable": {"thread_id": session_id}, "recursion_limit": self.limits.recursion_limit}
        graph: Any = None
        if replace_turn:
            try:
                graph = await self._rewound(session_id, replace_turn, config, emit)
            except asyncio.CancelledError:  # (the engine closing: ``cancel`` waits until the message is kept)
                graph = None
                emit(_cancelled(turn_id))
                emit(None)
            if graph is None:
                return
        guard: StallGuard | None = None
        turn = TurnRecorder()
        generation = self._db.generation
        kept = False  # the turn ended ``done``: else what the graph handed to the memory writer is taken back
        try:
            if not await self._store_message(session_id, text, turn_id, config, generation, turn, emit):
                return
            asked = False  # the graph has the message: its history keeps it whatever happens next
            try:
                if graph is None:
                    graph = await self._graph_for(session_id)
                await self._before_asking(session_id, turn_id, hold)
                guard = self._stall_guard()
                if guard is not None:
                    config["callbacks"] = [guard]
                inputs = {"messages": [HumanMessage(content=text)], "session_id": session_id, "turn_id": turn_id}
                asked = True
                async with guard.watch() if guard is not None else contextlib.nullcontext():
                    async for mode, chunk in graph.astream(inputs, config, stream_mode=["messages", "updates"]):
                        for event in turn.handle(mode, chunk):
                            emit(event)
            except asyncio.CancelledError:
                current = asyncio.current_task()
                if current is not None:
                    current.uncancel()
                if asked:
                    await self._close_interrupted(graph, config, turn.uncommitted_text())
                else:  # stopped before the model was asked (while held): the history keeps the message
                    await self._keep_unasked(graph, config, text, session_id, turn_id)
                await self._finish(session_id, turn, describe_turn_error(asyncio.CancelledError(), turn_id), emit)
                return
            except Exception as exc:  # noqa: BLE001 - every failure becomes one error event
                if storage_problem(exc) is not None:  # the checkpointer could not read or write
                    log.error("turn %s: the session database failed: %s", turn_id, exc)
                    event, _ = await self._storage_failure(exc, generation, session_id, text, turn_id)
                    await self._finish(session_id, turn, event, emit)
                    return
                event = describe_turn_error(exc, turn_id, api_key=self._model.secret, model=self._model.name)
                log.info("turn %s failed: %s (%s)", turn_id, event.error_code, type(exc).__name__)
                partial = isinstance(exc, (ReplyStalled, ReplyCut))  # what arrived stays the model's too
                await self._close_interrupted(graph, config, turn.uncommitted_text() if partial else "")
                await self._finish(session_id, turn, event, emit)
                return
            done = ChatEvent("done", text=turn.reply_text(), turn_id=turn_id, memories=turn.memories)
            await self._finish(session_id, turn, done, emit)
            kept = True
        except asyncio.CancelledError:  # cancelled again while finishing: the stream still ends cleanly
            emit(describe_turn_error(asyncio.CancelledError(), turn_id))
        finally:
            await self._take_back(turn_id, kept)
            emit(None)

    async def _take_back(self, turn_id: str, kept: bool) -> None:
        """Unless ``kept`` (the turn ended ``done``), the turn was stopped or failed: if ``ltm_write`` handed it to the memory writer already (a
        stop while it was journaled, or after), it is withdrawn (``LongTermMemory.take_back``), as the
        contract says such turns are not remembered. The turn's stream ends only after that, so a
        regenerate never overtakes it; a further stop meanwhile does not cut it short."""
        take_back = getattr(self._model.ltm, "take_back", None)
        if kept or not asyncio.iscoroutinefunction(take_back):  # (a stand-in memory without a writer)
            return
        job = spawn(take_back(turn_id), name="sonetto-chat-take-back", awaited=True)
        while True:
            try:
                await asyncio.shield(job)
                return
            except asyncio.CancelledError:
                if job.done():
                    return
                current = asyncio.current_task()
                if current is not None:
                    current.uncancel()
            except Exception:  # said; the stream still ends
                log.warning("could not take turn %s back from the memory writer", turn_id, exc_info=True)
                return

    async def _rewound(self, session_id: str, replace_turn: str, config: dict[str, Any],
                       emit: Callable[[ChatEvent | None], None]) -> Any:
        """The session's graph with ``config`` pointed before ``replace_turn`` (its answer is asked
        again); None when it cannot go back there, said and the stream ended."""
        try:
            graph = await self._graph_for(session_id)
            saver = self._model.temporary_saver if session_id in self._temporary else await self._db.checkpointer()
            config["configurable"] = await rewind(graph, saver, self.store_for(session_id), session_id, replace_turn)
        except Exception as exc:  # noqa: BLE001 - nothing was changed that matters: say so, run nothing
            log.warning("could not go back before turn %s: %s", replace_turn, exc)
            emit(input_error("这条消息已经不能重新回答了。", "This message can no longer be answered again."))
            emit(None)
            return None
        return graph

    async def _finish(self, session_id: str, turn: TurnRecorder, event: ChatEvent, emit) -> None:
        """Store the assistant entry for ``event`` (done or error), then emit exactly one final event."""
        from .turn_events import error_dict

        failed = event.kind == "error"
        try:
            await self.store_for(session_id).append(
                session_id, "assistant", turn.streamed_text() if failed else event.text,
                memories=turn.memories, turn_id=event.turn_id, error=error_dict(event) if failed else None,
            )
        except Exception as exc:  # noqa: BLE001 - the reply was shown but could not be saved
            log.error("could not store the reply: %s", exc)
            reason = storage_problem(exc) or "other"
            moved = ""
            if reason == "damaged":
                aside = await self._recover_damaged(exc, self._db.generation)
                moved = aside.name if aside is not None else ""
            if not failed:
                event = storage_error(event.turn_id, text=event.text, reason=reason, moved_to=moved)
        emit(event)

    async def _recover_damaged(self, exc: BaseException, generation: int) -> Path | None:
        """Replace a damaged sessions.db by a new one and rebuild the graph on its checkpointer."""
        aside = await self._db.recover(exc, generation)
        if aside is not None:
            self._model.drop_graphs()
        return aside

    async def _storage_failure(
        self, exc: BaseException, generation: int, session_id: str, text: str, turn_id: str
    ) -> tuple[ChatEvent, bool]:
        """The ``storage`` error for ``exc``, and whether a damaged database was replaced by a new
        one (the user's message is then stored in the new one, so the turn can be recorded)."""
        reason = storage_problem(exc) or "other"
        if reason != "damaged":
            return storage_error(turn_id, reason=reason), False
        aside = await self._recover_damaged(exc, generation)
        if aside is None:
            return storage_error(turn_id, reason=reason), False
        try:
            await self._db.store.ensure(session_id)
            await self._db.store.append(session_id, "user", text, turn_id=turn_id)
        except Exception:  # the message is still shown; the error says what happened
            log.exception("could not store the message in the new session database")
            return storage_error(turn_id, reason=reason, moved_to=aside.name), False
        return storage_error(turn_id, reason=reason, moved_to=aside.name), True

    def _stall_guard(self) -> StallGuard | None:
        """Deadlines for a streamed reply (a model that does not stream is bound by its request timeout)."""
        if not self._model.streaming:
            return None
        from .stall_guard import StallGuard

        return StallGuard(self.limits.first_token_timeout, self.limits.idle_timeout)

    async def _store_message(self, session_id: str, text: str, turn_id: str, config: dict[str, Any], generation: int,
                             turn: TurnRecorder, emit: Callable[[ChatEvent | None], None]) -> bool:
        """The user's message stored, and the session's memory switches in ``config``; False when it
        could not even be kept (said: the model is not called)."""
        store = self.store_for(session_id)
        try:
            await store.ensure(session_id)
            await store.append(session_id, "user", text, turn_id=turn_id)
            info = await self._session_info(session_id)
            config["configurable"].update(
                sonetto_recall=info.recall if info else True, sonetto_write=info.write if info else True
            )
            return True
        except Exception as exc:  # noqa: BLE001 - cannot even keep the message: say so, call nothing
            log.error("could not store the user's message: %s", exc)
            event, recovered = await self._storage_failure(exc, generation, session_id, text, turn_id)
            if recovered:
                await self._finish(session_id, turn, event, emit)
            else:
                emit(event)
            return False

    async def _before_asking(self, session_id: str, turn_id: str, hold: Callable[[], Awaitable[Any]] | None) -> None:
        """The message is kept and the graph is ready: from here a stop ends the turn at once, and one
        asked meanwhile lands now. Then ``hold()`` is awaited; its failure is logged (whoever made it
        says what failed) and the turn goes on."""
        self._preparing.discard(session_id)
        current = asyncio.current_task()
        if session_id in self._stopping and current is not None:
            self._stopping.discard(session_id)
            current.cancel()
            await asyncio.sleep(0)  # (the cancel lands here)
        if hold is None:
            return
        try:
            await hold()
        except asyncio.CancelledError:
            raise
        except Exception:
            log.warning("turn %s: what it waited for failed", turn_id, exc_info=True)

    async def _keep_unasked(self, graph: Any, config: dict, text: str, session_id: str, turn_id: str) -> None:
        """A turn stopped before its graph ran: its message goes into the model's history as it is in
        the transcript (the contract: the person's message survives a stop), with no reply."""
        if graph is None:
            return
        from langchain_core.messages import HumanMessage

        try:
            await graph.aupdate_state(
                config, {"messages": [HumanMessage(content=text)], "session_id": session_id, "turn_id": turn_id},
                as_node="ltm_write")
        except Exception:
            log.warning("could not keep the stopped message in the history", exc_info=True)

    async def _close_interrupted(self, graph: Any, config: dict, partial: str = "") -> None:
        """Leave the model's history valid (no dangling tool call) and keep what she already said."""
        if graph is None:  # the turn ended before its graph was built: no history to fix
            return
        from .graph import history_after_interruption

        try:
            fix = await history_after_interruption(graph, config, partial)
            if fix:
                await graph.aupdate_state(config, {"messages": fix}, as_node="ltm_write")
        except Exception:
            log.warning("could not keep the partial reply in the history", exc_info=True)




def _cancelled(turn_id: str) -> ChatEvent:
    from .turn_events import describe_turn_error

    return describe_turn_error(asyncio.CancelledError(), turn_id)
