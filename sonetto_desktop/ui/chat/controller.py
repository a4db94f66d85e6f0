"""ChatController: drives the ChatEngine for every chat view (main window and quick chat).

One controller per app. It owns the *current session*, runs each turn's event stream as an asyncio
task on the Qt loop and re-emits the engine's events as Qt signals, so the main chat panel and the
tray's quick chat show the same conversation. No widget here; views hold no chat state of their own.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Awaitable, Callable

from PySide6.QtCore import QCoreApplication, QObject, Signal


from sonetto_desktop.aio import spawn
from sonetto_desktop.presentation.errors import error_detail
from sonetto_desktop.presentation.i18n import Worded
from ..i18n import ui_language
from ..widgets.tasks import task_scope

if TYPE_CHECKING:  # the agent package pulls in LangChain: imported lazily, after the window shows
    from sonetto_desktop.agent.chat_events import ChatEvent, SessionInfo

log = logging.getLogger(__name__)



@dataclass
class RunningTurn:
    """What the running turn has shown so far (a chat shown again while it replies shows it on):
    the user's ``text``, the ``reply`` streamed so far, the recalled ``memories``, and the ``tool``
    being used or last used (``tool_done``)."""

    session_id: str
    text: str
    reply: str = ""
    memories: list = field(default_factory=list)
    tool: str = ""
    tool_done: bool = False


class ChatController(QObject):
    """Signals carry the session id first, so a view can ignore other sessions' traffic."""

    ready_changed = Signal(bool)  # the engine is started and usable
    sessions_changed = Signal(list)  # [SessionInfo], newest first
    current_session_changed = Signal(str)
    transcript_loaded = Signal(str, list)  # session id, [{role, content, memories, error?}]
    turn_replacing = Signal(str, str)  # session id, the turn being replaced (it and all after it go)
    turn_started = Signal(str, str)  # session id, the user's text
    turn_identified = Signal(str, str)  # session id, the running turn's id (with its done / error)
    memories_recalled = Signal(str, list)  # session id, [{id, description, theme}]
    token_received = Signal(str, str)
    tool_started = Signal(str, str, str)  # session id, tool, input
    tool_finished = Signal(str, str, str)  # session id, tool, output
    reply_finished = Signal(str, str)  # session id, full reply
    reply_failed = Signal(str, str, str, str)  # session id, code, message for a person, user text
    busy_changed = Signal(bool)
    operation_failed = Signal(object)  # str, or a ``Worded`` (said again on a language switch)
    typing = Signal()  # the person is typing in a composer (the app readies what a turn needs)

    def __init__(self, engine: Any = None, *, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._engine = engine
        self._sessions: list[SessionInfo] = []
        self._current = ""
        # The chat asked for last (``select_session``) and its ask's number: a chat's transcript is read
        # from the store that holds it (saved or temporary), each waiting only for its own, so the reads
        # may come back out of order; only the last one asked for is shown.
        self._wanted = ""
        self._asks = 0
        self._turn: asyncio.Task[None] | None = None
        self._turn_session = ""
        self._running: RunningTurn | None = None
        self._stop_asked = False  # 停止 before the engine had the running turn: it stops as it starts
        self._withdrawing: asyncio.Task[None] | None = None  # an edit taking back what it replaced
        self._accepting = True
        self._background = task_scope(self, "chat-controller")  # session-list refreshes, transcript reloads
        # The app's way to take back what replaced turns wrote (edit and resend), awaited before the
        # new turn runs so its recall no longer finds them: (session id, [turn ids]) -> awaitable.
        self.withdraw: Callable[[str, list[str]], Awaitable[Any]] | None = None

    # ── state ──────────────────────────────────────────────────────────

    @property
    def engine(self) -> Any:
        return self._engine

    @property
    def ready(self) -> bool:
        return self._engine is not None and self._accepting

    @property
    def busy(self) -> bool:
        return self._turn is not None and not self._turn.done()

    @property
    def turn_session(self) -> str:
        """The session of the running turn (or of the last one)."""
        return self._turn_session

    @property
    def running_turn(self) -> RunningTurn | None:
        """The running turn as shown so far; None when no turn runs."""
        return self._running if self.busy else None

    @property
    def current_session_id(self) -> str:
        return self._current

    @property
    def wanted_session_id(self) -> str:
        """The chat being shown: the one asked for last while its transcript is read, else the current one."""
        return self._wanted or self._current

    @property
    def sessions(self) -> list[SessionInfo]:
        return list(self._sessions)

    @property
    def turn_task(self) -> asyncio.Task[None] | None:
        return self._turn

    # ── life cycle ─────────────────────────────────────────────────────

    async def attach(self, engine: Any) -> None:
        """Use a started engine: load the sessions and open the newest (or a new one)."""
        self._engine = engine
        self._accepting = True
        await self.refresh_sessions()
        if self._sessions:
            await self.select_session(self._sessions[0].id)
        else:
            await self.new_session()
        self.ready_changed.emit(True)

    def stop_accepting(self) -> None:
        """Shutdown step 1: no new turns from here on."""
        self._accepting = False
        self.ready_changed.emit(False)

    async def close(self) -> None:
        """Stop accepting, cancel the running turn and wait for it to wind down."""
        self.stop_accepting()
        if self._turn is not None and not self._turn.done():
            if self._engine is not None:
                self._engine.cancel(self._turn_session)
            self._turn.cancel()
            await asyncio.gather(self._turn, return_exceptions=True)
        if self._withdrawing is not None and not self._withdrawing.done():  # not against a closing store
            self._withdrawing.cancel()
            await asyncio.gather(self._withdrawing, return_exceptions=True)
        await self._background.close()  # a session-list refresh must not outlive the engine
        self._background = task_scope(self, "chat-controller")  # the controller may be attached again
        self._engine = None

    # ── sessions ───────────────────────────────────────────────────────

    async def refresh_sessions(self) -> list[SessionInfo]:
        if self._engine is None:
            return []
        self._sessions = list(await self._engine.list_sessions())
        self.sessions_changed.emit(self.sessions)
        return self.sessions

    async def select_session(self, session_id: str) -> None:
        """Show ``session_id``: its transcript read, then made current. Chosen again before that read
        came back (another chat clicked), it is not shown: the last chat asked for is (a saved chat's
        read may wait for another process writing the chats' file while a temporary chat's does not)."""
        if self._engine is None or not session_id:
            return
        self._asks += 1
        ask, self._wanted = self._asks, session_id
        try:
            entries = await self._engine.transcript(session_id)
        finally:
            if ask == self._asks:
                self._wanted = ""
        if ask != self._asks:
            return  # another chat was asked for since: that one is shown
        self._current = session_id
        self.current_session_changed.emit(session_id)
        self.transcript_loaded.emit(session_id, entries)

    def reload_current(self) -> None:
        """Show the current session's stored transcript again (in the background): the chat being
        switched to, if a switch is under way."""
        if self._engine is not None and self.wanted_session_id:
            self._background.spawn(self.select_session(self.wanted_session_id), name="reload-transcript")

    @property
    def current_session(self) -> SessionInfo | None:
        """The current session as last listed (its title, memory switches, temporary or not)."""
        return next((info for info in self._sessions if info.id == self._current), None)

    async def new_session(self, title: str | None = None, *, temporary: bool = False) -> str:
        """A new chat, made current; ``temporary``: recalls nothing, writes nothing, never saved."""
        if self._engine is None:
            return ""
        info = await self._engine.create_session(title, temporary=temporary)
        await self.refresh_sessions()
        await self.select_session(info.id)
        return info.id

    async def set_memory(self, session_id: str, *, recall: bool | None = None, write: bool | None = None) -> None:
        """Switch recall / writing for one chat (the engine keeps it); the session list follows. A switch
        that could not be saved (the database held by another program) is said, and the list read again
        shows what holds (the menu's tick must not say writing is off while it goes on)."""
        if self._engine is None or not session_id:
            return
        try:
            await self._engine.set_session_memory(session_id, recall=recall, write=write)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # reported, never raised into a slot
            log.warning("memory switch failed", exc_info=True)
            failure = exc  # (``exc`` is gone after the clause; the wording is said again later)
            self.operation_failed.emit(Worded(lambda: QCoreApplication.translate(
                "ChatController", "没能保存这个对话的记忆设置，仍按原来的设置：") + error_detail(failure)))
        await self.refresh_sessions()

    async def rename_session(self, session_id: str, title: str) -> None:
        """Rename the chat; a blank name is refused, and the list is filled again all the same (a name
        cleared in place shows the chat's name again, not a blank row)."""
        if self._engine is None:
            return
        if not title.strip():
            await self.refresh_sessions()
            return
        try:
            await self._engine.rename_session(session_id, title.strip())
        except Exception as exc:  # noqa: BLE001 - reported, never raised into a slot
            log.warning("rename failed: %s", exc)
            failure = exc  # (``exc`` is gone after the clause; the wording is said again later)
            self.operation_failed.emit(Worded(lambda: QCoreApplication.translate("ChatController", "重命名失败：")
                                              + error_detail(failure)))
        await self.refresh_sessions()

    async def delete_session(self, session_id: str) -> None:
        if self._engine is None:
            return
        if session_id == self._turn_session and self.busy:
            self.stop()
            await asyncio.gather(self._turn, return_exceptions=True)
        await self._engine.delete_session(session_id)
        sessions = await self.refresh_sessions()
        if session_id == self._current:
            if sessions:
                await self.select_session(sessions[0].id)
            else:
                await self.new_session()

    async def search_chats(self, query: str) -> list[Any]:
        """[ChatHit] for ``query`` across every session (the engine searches off this thread)."""
        if self._engine is None or not query.strip():
            return []
        return list(await self._engine.search_chats(query))

    async def export_chat(self, session_id: str, path: str) -> Any:
        """Write the session as Markdown to ``path`` (atomically, off this thread)."""
        if self._engine is None:
            raise RuntimeError("the chat is not ready")
        return await self._engine.export_chat(session_id, path, language=ui_language())

    # ── turns ──────────────────────────────────────────────────────────

    def send(self, text: str, *, replace_turn: str = "", withdraw: bool = False) -> asyncio.Task[None] | None:
        """Start a turn in the current session; None when not ready, busy or the text is blank.
        ``replace_turn``: that turn and everything after it are replaced (regenerate, edit);
        ``withdraw``: what the replaced turns wrote to memory is taken back first (an edit: the
        person changed what they said)."""
        if not self.ready or self.busy or not text.strip() or not self._current:
            return None
        session_id = self._turn_session = self._current
        self._stop_asked = False
        self._running = RunningTurn(session_id, text)
        # in the app's root, beside the UI's scopes: ended by close() (the engine told first), not by the UI's end
        self._turn = spawn(self._run(session_id, text, replace_turn, withdraw), name="chat-turn")
        self.busy_changed.emit(True)
        return self._turn

    def prepare(self) -> None:
        """The person is typing (any composer): the engine gets ready for the turn (see ChatEngine.prepare)."""
        self.typing.emit()
        if self._engine is not None and self._accepting and not self._engine.prepared:
            self._background.spawn(self._engine.prepare(), name="prepare-turn")

    def stop(self) -> bool:
        """Stop the reply being streamed (its partial text is kept by the engine). Before the engine
        has the turn (an edit reading what it replaces) the turn stops as soon as it starts: the
        message is kept, nothing is asked."""
        if not self.busy or self._engine is None:
            return False
        if not self._engine.cancel(self._turn_session):
            self._stop_asked = True
        return True

    def _message(self, event: ChatEvent) -> str:
        if ui_language() == "en":  # the installed translators are the one source of the UI language
            return event.error_en or event.error_zh
        return event.error_zh or event.error_en

    async def _replaced_turns(self, session_id: str, replace_turn: str) -> list[str]:
        """The turns a replace drops: ``replace_turn`` and every later one, as stored."""
        entries = await self._engine.transcript(session_id)
        start = next((i for i, e in enumerate(entries) if e.get("turn_id") == replace_turn), None)
        if start is None:
            return []
        return list(dict.fromkeys(str(e.get("turn_id")) for e in entries[start:] if e.get("turn_id")))

    async def _withdraw(self, session_id: str, replace_turn: str) -> asyncio.Task[None] | None:
        """Start taking back what the turns ``replace_turn`` replaces wrote (read before the engine
        drops them): a task of its own, which a stop of the new turn does not cut short (its toast
        says what was taken back, with 撤销)."""
        try:
            turns = await self._replaced_turns(session_id, replace_turn)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.warning("could not read the turns an edit replaces", exc_info=True)
            return None
        if not turns or self.withdraw is None:
            return None
        self._withdrawing = spawn(self._take_back(session_id, turns), name="chat-withdraw")
        return self._withdrawing

    async def _take_back(self, session_id: str, turns: list[str]) -> None:
        assert self.withdraw is not None
        try:
            await self.withdraw(session_id, turns)
        except asyncio.CancelledError:
            raise
        except Exception:  # the app says what failed; the new turn runs all the same
            log.warning("could not take back the replaced turns' memories", exc_info=True)

    async def _hold(self, session_id: str, withdrawing: asyncio.Task[None] | None) -> None:
        """Run by the engine once the turn's message is stored, before it recalls or asks anything:
        a 停止 that came before the engine had the turn stops it now; an edit waits (up to the
        writer's wait) until what the replaced turns wrote is taken back, so recall no longer finds
        it; 停止 meanwhile ends the turn at once (the taking back goes on)."""
        if self._stop_asked and self._engine is not None:
            self._engine.cancel(session_id)
            await asyncio.sleep(0)  # (the cancel lands here)
        if withdrawing is not None:
            await asyncio.shield(withdrawing)

    async def _run(self, session_id: str, text: str, replace_turn: str = "", withdraw: bool = False) -> None:
        finished = False
        options = {"replace_turn": replace_turn} if replace_turn else {}
        try:
            if replace_turn:
                self.turn_replacing.emit(session_id, replace_turn)
            self.turn_started.emit(session_id, text)
            withdrawing = await self._withdraw(session_id, replace_turn) if replace_turn and withdraw else None
            hold = lambda: self._hold(session_id, withdrawing)  # noqa: E731
            async for event in self._engine.send(session_id, text, hold=hold, **options):
                finished = self._dispatch(session_id, text, event) or finished
        except asyncio.CancelledError:
            self.reply_failed.emit(session_id, "cancelled", QCoreApplication.translate("ChatController", "已停止"), text)
            raise
        except Exception as exc:
            log.exception("chat turn failed")
            self.reply_failed.emit(session_id, "internal", QCoreApplication.translate("ChatController", "出错了：") + error_detail(exc), text)
        else:
            if not finished:
                self.reply_failed.emit(session_id, "internal", QCoreApplication.translate("ChatController", "回复意外中断了。"), text)
        finally:
            self._running = None
            self.busy_changed.emit(False)
            if self._engine is not None and self._accepting:
                self._background.spawn(self._refresh_quietly(), name="refresh-sessions")

    def _dispatch(self, session_id: str, text: str, event: ChatEvent) -> bool:
        kind = event.kind
        shown = self._running or RunningTurn(session_id, text)
        if kind == "memories":
            shown.memories = list(event.memories)
            self.memories_recalled.emit(session_id, list(event.memories))
        elif kind == "token":
            shown.reply += event.text
            self.token_received.emit(session_id, event.text)
        elif kind == "tool_start":
            shown.tool, shown.tool_done = event.tool, False
            self.tool_started.emit(session_id, event.tool, event.text)
        elif kind == "tool_end":
            shown.tool, shown.tool_done = event.tool, True
            self.tool_finished.emit(session_id, event.tool, event.text)
        elif kind == "done":
            self._running = None  # (stored before it came: a chat shown again from here has the reply)
            if event.turn_id:
                self.turn_identified.emit(session_id, event.turn_id)
            self.reply_finished.emit(session_id, event.text)
            return True
        elif kind == "error":
            self._running = None
            if event.turn_id:
                self.turn_identified.emit(session_id, event.turn_id)
            self.reply_failed.emit(session_id, event.error_code or "error", self._message(event), text)
            return True
        return False

    async def _refresh_quietly(self) -> None:
        try:
            await self.refresh_sessions()  # titles come from the first message
        except Exception:
            log.debug("session refresh failed", exc_info=True)
