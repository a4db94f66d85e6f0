"""Conversation: shows the controller's current session in a ChatView, fed from a Composer.

The user's message, the streaming reply with its recalled memories and tool activity, then the
finished text or an inline error. Shared by the main chat panel and the tray's quick chat, so
both behave the same; it holds no chat data of its own beyond the bubble being streamed into.
"""

from __future__ import annotations

import asyncio

from PySide6.QtCore import QObject, Signal

from .controller import ChatController
from .view import ChatView
from .composer import Composer
from .link_confirm import confirm_open_link
from .message_bubble import MessageBubble
from ..widgets.deferred import alive
from ..widgets.tasks import task_scope

REFUSED_PREVIEW_CHARS = 500  # of a message too long to send: what its bubble shows


class Conversation(QObject):
    transcript_shown = Signal()

    def __init__(self, controller: ChatController, view: ChatView, composer: Composer, *,
                 recent: int | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent or view)
        self.controller = controller
        self.view = view
        self.composer = composer
        self._recent = recent
        self._reply: MessageBubble | None = None
        self._asked: MessageBubble | None = None  # the user's message of the running turn
        self._replacing = ""
        self._sent: asyncio.Task[None] | None = None  # the last turn started from this conversation
        self._editing_in = ""  # the chat of the message being edited in this composer
        self._tasks = task_scope(self, "conversation")
        self.asking: asyncio.Task[None] | None = None  # 重新生成 of an earlier reply, asking first
        self.last_question = None  # (its box: tests answer it)

        view.focus_fallback = lambda: composer.input
        composer.send_requested.connect(self._on_send_requested)
        view.regenerate_requested.connect(self._on_regenerate_requested)
        view.retry_requested.connect(self._on_retry_requested)
        view.edit_requested.connect(self._on_edit_requested)
        view.link_activated.connect(lambda url: confirm_open_link(view.window(), url))
        composer.stop_requested.connect(self._on_stop_requested)
        composer.typing.connect(controller.prepare)
        c = controller
        c.current_session_changed.connect(self._on_session_changed)
        c.transcript_loaded.connect(self._on_transcript_loaded)
        c.turn_replacing.connect(self._on_turn_replacing)
        c.turn_started.connect(self._on_turn_started)
        c.turn_identified.connect(self._on_turn_identified)
        # Bound methods, never lambdas: Qt drops them when this view is deleted (the controller
        # outlives its views, e.g. when the language changes and the windows are rebuilt).
        c.memories_recalled.connect(self._on_memories_recalled)
        c.token_received.connect(self._on_token_received)
        c.tool_started.connect(self._on_tool_started)
        c.tool_finished.connect(self._on_tool_finished)
        c.reply_finished.connect(self._on_reply_finished)
        c.reply_failed.connect(self._on_reply_failed)
        self._busy = c.busy
        c.busy_changed.connect(self._on_busy_changed)
        c.current_session_changed.connect(self._show_busy)
        c.ready_changed.connect(composer.set_ready)
        composer.set_ready(c.ready)
        self._show_busy()

    def _mine(self, session_id: str) -> bool:
        return session_id == self.controller.current_session_id

    def _on_busy_changed(self, busy: bool) -> None:
        self._busy = busy
        self._show_busy()

    def _show_busy(self, *_args) -> None:
        """停止 in the chat whose reply is coming; in another chat the input waits until it has ended
        (one reply at a time), saying so, and offers no 停止 (it would stop the other chat)."""
        here = self._busy and self._mine(self.controller.turn_session)
        self.composer.set_busy(here)
        self.composer.set_waiting(self._busy and not here)
        self.view.set_waiting(self._busy)  # (their 重试 / 重新生成 could not send now)

    def _on_stop_requested(self) -> None:
        if self._mine(self.controller.turn_session):
            self.controller.stop()

    def _in_reply(self, session_id: str, action) -> None:
        if self._mine(session_id) and self._reply is not None:
            action(self._reply)

    def _on_memories_recalled(self, session_id: str, memories: list) -> None:
        self._in_reply(session_id, lambda r: r.set_memories(memories))

    def _on_token_received(self, session_id: str, token: str) -> None:
        self._in_reply(session_id, lambda r: r.append_token(token))

    def _on_tool_started(self, session_id: str, tool: str, _input: str) -> None:
        self._in_reply(session_id, lambda r: r.set_tool_activity(self.tr("正在使用工具：%1…").replace("%1", tool)))

    def _on_tool_finished(self, session_id: str, tool: str, _output: str) -> None:
        self._in_reply(session_id, lambda r: r.set_tool_activity(self.tr("用过工具：%1").replace("%1", tool)))

    def _on_transcript_loaded(self, session_id: str, entries: list) -> None:
        if self._mine(session_id):
            self._reply = self._asked = None
            self.view.load_transcript(entries if self._recent is None else entries[-self._recent:])
            self._resume(session_id)
            self.transcript_shown.emit()

    def _on_session_changed(self, session_id: str) -> None:
        """An edit belongs to the chat its message is in: another chat shown (from this window or
        another one on the controller) ends it, and what was typed before it comes back (the main
        window's Drafts then files that text under the chat it was typed in)."""
        if self.composer.editing_turn and session_id != self._editing_in:
            self.composer.cancel_editing()

    def _send(self, text: str, replace_turn: str = "", withdraw: bool = False) -> asyncio.Task[None] | None:
        task = self.controller.send(text, replace_turn=replace_turn, withdraw=withdraw)
        if task is not None:
            self._sent = task
        return task

    def _sent_here(self) -> bool:
        """The running (or just ended) turn was started from this conversation's view or input."""
        return self._sent is not None and self._sent is self.controller.turn_task

    def _resume(self, session_id: str) -> None:
        """The chat shown again while its reply is coming (switched back to, 打开这段对话): the
        reply streamed so far is shown, and streams on."""
        live = self.controller.running_turn
        if live is None or live.session_id != session_id:
            return
        bubbles = self.view.bubbles
        last = bubbles[-1] if bubbles else None  # the message is stored before it is answered
        shown = self._shown(live.text)
        self._asked = last if last is not None and last.role == "user" and last.text == shown \
            else self.view.add_message("user", shown)
        self._asked.set_answering(True)
        self._reply = self.view.add_reply(live.text)
        self._reply.set_memories(live.memories)
        if live.reply:
            self._reply.set_text(live.reply)
        if live.tool:
            (self._on_tool_finished if live.tool_done else self._on_tool_started)(session_id, live.tool, "")

    def _on_send_requested(self, text: str) -> None:
        editing = self.composer.editing_turn
        if self._send(text, editing, withdraw=bool(editing)) is not None:
            self.composer.clear_if(text)
            self.composer.finish_editing()

    def _on_regenerate_requested(self, user_text: str, turn_id: str) -> None:
        """Answer again: the reply (and anything after it) is replaced by a new one. An earlier reply
        asks first: the turns after it go (a long chat lost by one click, with no word)."""
        if not user_text.strip():
            return
        later = self.view.turns_after(turn_id)
        if not later:
            self._send(user_text, turn_id)
            return
        self.asking = self._tasks.spawn(self._regenerate_after_asking(user_text, turn_id, later), name="regenerate-ask")

    async def _regenerate_after_asking(self, user_text: str, turn_id: str, later: int) -> None:
        from PySide6.QtWidgets import QMessageBox

        from ..widgets.dialogs import Question

        question = Question(self.view.window(), self.tr("重新生成这条回复？"),
                            self.tr("这条回复之后的 {0} 轮对话会从这个对话里删去（它们让 Sonetto 记下的记忆不受影响）。").format(later),
                            self.tr("重新生成"), QMessageBox.Icon.Warning)
        self.last_question = question.box
        if await question.answer() and alive(self.view):
            self._send(user_text, turn_id)

    def _on_retry_requested(self, user_text: str, turn_id: str) -> None:
        """Try a failed reply again: the failed turn (its message and error) is replaced by the new
        one, in the view and in the stored transcript (so the export has it once)."""
        if user_text.strip():
            self._send(user_text, turn_id)

    def _on_edit_requested(self, text: str, turn_id: str) -> None:
        """Put an earlier message into the input; sending it replaces that message and what followed."""
        if not turn_id:  # (not offered: no turn to replace; the draft is not given up for nothing)
            return
        self._editing_in = self.controller.current_session_id
        self.composer.set_editing(turn_id)
        self.composer.set_text(text)
        self.composer.input.setFocus()
        cursor = self.composer.input.textCursor()
        cursor.movePosition(cursor.MoveOperation.End)
        self.composer.input.setTextCursor(cursor)

    def _on_turn_replacing(self, session_id: str, turn_id: str) -> None:
        if self._mine(session_id):
            self._replacing = turn_id
            self.view.remove_from_turn(turn_id)

    def _on_turn_started(self, session_id: str, text: str) -> None:
        if self._mine(session_id):
            self._asked = self.view.add_message("user", self._shown(text))
            self._asked.set_answering(True)
            self._reply = self.view.add_reply(text)

    def _shown(self, text: str) -> str:
        """The message as its bubble shows it: one over the engine's limit is refused (the reply says
        so, and the text goes back to the input), so only its beginning is laid out -- a pasted book
        laid out whole stopped the UI for a second or more."""
        limit = getattr(self.controller.engine, "max_input_chars", None)
        if isinstance(limit, int) and len(text) > limit:
            return text[:REFUSED_PREVIEW_CHARS].rstrip() + "…"
        return text

    def _answered(self) -> None:
        """The running turn ended: its message can be edited now (once its turn is known)."""
        if self._asked is not None and alive(self._asked):
            self._asked.set_answering(False)
        self._asked = None

    def _on_turn_identified(self, session_id: str, turn_id: str) -> None:
        if self._mine(session_id):
            for bubble in (self._asked, self._reply):
                if bubble is not None:
                    bubble.turn_id = turn_id

    def _on_reply_finished(self, session_id: str, text: str) -> None:
        self._replacing = ""
        if self._mine(session_id):
            self._answered()
        if self._mine(session_id) and self._reply is not None:
            self._reply.set_text(text)
            self._reply.flush()
            self._reply = None

    def _on_reply_failed(self, session_id: str, code: str, message: str, text: str) -> None:
        if not self._mine(session_id):
            return
        self._answered()
        if self._replacing and code == "input":  # the turn could not be replaced: show what is stored
            self._replacing = ""
            self.controller.reload_current()
        if self._reply is not None:
            if code == "cancelled":
                self._reply.set_stopped()  # the person asked for it: not an error
            else:
                self._reply.set_error(message, retry=code != "input")
            self._reply = None
        if code == "input" and self._sent_here() and not self.composer.text().strip():
            self.composer.set_text(text)  # nothing was stored: give the text back to where it was typed
