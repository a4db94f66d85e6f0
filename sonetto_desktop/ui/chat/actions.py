"""What a chat message or a recalled-memory chip asks of the app (a part ``SonettoApp`` owns): open the chat
a change came from, "别记住这个" on a turn, "忘掉这条" on a memory; each says what happened in a toast."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QApplication

from sonetto_desktop import ops
from sonetto_desktop.memory.reasons import reason_text
from sonetto_desktop.presentation.undo_words import card_names

from ..notices.memory_undo import restores, undoes_turn
from ..widgets.deferred import alive


class ChatActions:
    """``services``: the app's services (its chat engine, ``forget_turn``); ``service``: the UI's operation
    runner; ``controller``: the chat controller; ``window()`` / ``toasts()``: the current window and the
    toast overlay (a language switch builds a new window)."""

    def __init__(self, services: Any, service: Any, controller: Any, *, window: Callable[[], Any],
                 toasts: Callable[[], Any]) -> None:
        self.services = services
        self.service = service
        self.controller = controller
        self._window = window
        self._toasts = toasts
        if controller is not None:  # an edit-and-resend takes back what the replaced turns wrote
            controller.withdraw = self.withdraw_replaced

    def connect_notices(self, window: Any, quick_view: Any, spawn: Callable[[Any], Any]) -> None:
        """What a (new) window's chat says through the app: an export done, a memory that is gone."""
        self._quick_view = quick_view
        window.chat_panel.exported.connect(self.chat_exported)
        window.memory_missing.connect(lambda memory_id: spawn(self.memory_gone(memory_id)))

    async def withdraw_replaced(self, session_id: str, turn_ids: list[str]) -> Any:
        """Edit and resend replaced ``turn_ids``: what they wrote is taken back (one undoable action,
        before the new turn's recall), and a toast says so with 撤销 to bring it back."""
        if self.services is None or self.service is None:
            return None
        key, toasts, service = f"withdraw:{turn_ids[0]}", self.toasts, self.service
        result = await service.run(ops.WithdrawTurns(ops.ids(turn_ids)),
                                   on_error=lambda why: toasts.show_toast(why, key=key, kind="error"))
        if result is None:
            return None
        if result.conflicts:
            touched = result.touched
            self.toasts.show_toast(lambda: QApplication.translate(
                "SonettoApp", "被替换的那几轮写下的记忆后来又被改过，这些没有撤销（{0}）。可以在记忆墙上处理。").format(
                card_names(touched)), key=key, kind="error")
        if result.undo_turn:
            undo = result.undo_turn
            changes = result.changes  # (a plain name: lupdate reads only those as a count)
            self.toasts.show_toast(lambda: QApplication.translate(
                "SonettoApp", "消息改过了：已撤销被替换那几轮记下的 %Ln 处记忆变化", "", changes),
                key=key if not result.conflicts else f"{key}:done", kind="success", timeout_ms=8000,
                action_text=lambda: QApplication.translate("SonettoApp", "撤销"), on_action=lambda: service.submit(ops.UndoTurn(undo)),
                undone_by=undoes_turn(undo))
        return result

    def chat_exported(self, path: str) -> None:
        """A chat written to Markdown: said, with the way to its folder."""
        folder = str(Path(path).parent)
        self.toasts.show_toast(lambda: QApplication.translate("SonettoApp", "已导出到 {0}").format(path), key="chat-exported",
                               kind="success", action_text=lambda: QApplication.translate("SonettoApp", "打开文件夹"),
                               on_action=lambda: QDesktopServices.openUrl(QUrl.fromLocalFile(folder)))

    async def memory_gone(self, memory_id: str) -> None:
        """A recalled memory's chip, for a memory no longer on the wall: say where it went (the trash,
        with 恢复; the wall then shows it), and strike its chips through."""
        for view in (self.window.chat_panel.view, getattr(self, "_quick_view", None)):
            if view is not None and alive(view):
                view.mark_memory_gone(memory_id)
        trash = await self.service.run(ops.Trash()) if self.service is not None else None
        entry = next((row for row in trash or [] if row.get("id") == memory_id), None)
        if entry is None:
            self.toasts.show_toast(lambda: QApplication.translate(
                "SonettoApp", "这条记忆已经不在了（合并进了别的记忆，或已永久删除）。"), key=f"gone:{memory_id}", kind="info")
            return
        service = self.service
        said = " ".join(str(entry.get("description") or "").split())
        said = said if len(said) <= 40 else said[:39] + "…"
        self.toasts.show_toast(lambda: QApplication.translate("SonettoApp", "这条记忆已被忘掉，在回收站里：{0}").format(said),
            key=f"gone:{memory_id}", kind="info",
            action_text=lambda: QApplication.translate("SonettoApp", "恢复"), on_action=lambda: service.submit(ops.RestoreMemory(memory_id)),
            undone_by=restores([memory_id]))

    @property
    def window(self) -> Any:
        return self._window()

    @property
    def toasts(self) -> Any:
        return self._toasts()

    @property
    def engine(self) -> Any:
        return self.services.chat if self.services is not None else None

    async def open_chat_turn(self, session_id: str, turn_id: str, excerpt: str = "") -> bool:
        """The history's 打开这段对话 (or a chat search hit): bring the window up on that chat,
        scrolled to the message and highlighted. False (and a toast) when the chat is gone (deleted,
        or a temporary one) or the message is (replaced by an edit; ``excerpt`` says what it was)."""
        assert self.controller is not None and self.window is not None and self.toasts is not None
        if self.engine is None or await self.engine.session(session_id) is None:
            self.toasts.show_toast(lambda: QApplication.translate("SonettoApp", "那段对话已经不在了（删除了，或是临时对话）。"),
                                   key="chat-gone", kind="info")
            return False
        self.window.bring_to_front()
        if session_id != self.controller.current_session_id or not self.window.chat_panel.view.bubble_of_turn(turn_id):
            await self.controller.select_session(session_id)
        view = self.window.chat_panel.view
        if view.scroll_to_turn(turn_id):  # kept in view while the transcript is laid out
            view.setFocus()
            return True
        said = " ".join(excerpt.split())
        text = ((lambda: QApplication.translate("SonettoApp", "那条消息后来被编辑替换了，已不在这段对话里。原话：“{0}”").format(said))
                if said else (lambda: QApplication.translate("SonettoApp", "那条消息后来被编辑替换了，已不在这段对话里。")))
        self.toasts.show_toast(text, key="chat-turn-gone", kind="info", timeout_ms=10000)
        return False

    async def forget_turn(self, turn_id: str, text: str) -> None:
        """"别记住这个" on a chat message: services.forget_turn through the UI's runner, then a toast
        saying what happened (a failure is worded by the runner, in the same toast)."""
        assert self.services is not None and self.service is not None and self.toasts is not None
        if self.service.refuse_changes(self.toasts):  # the memory server away: said before anything is tried
            return
        key, toasts = f"forget:{turn_id}", self.toasts
        result = await self.service.run(ops.ForgetTurn(turn_id, text),
                                        on_error=lambda why: toasts.show_toast(why, key=key, kind="error"))
        if result is None:
            return
        words: Callable[[], str]
        if result.conflicts:
            touched = result.touched
            words = lambda: QApplication.translate(  # noqa: E731
                "SonettoApp", "以后不会再记住这件事；但这轮写下的记忆后来又被改过，没有撤销（{0}）。可以在记忆墙上处理。"
            ).format(card_names(touched))
            kind = "error"
        elif result.undo is not None:
            changes = len(result.undo.changes)
            words = lambda: QApplication.translate(  # noqa: E731
                "SonettoApp", "已撤销这轮的 %Ln 处记忆变化，以后也不会记住这件事。", "", changes)
            kind = "success"
        else:
            words = lambda: QApplication.translate("SonettoApp", "好的，这件事不会被记住。")  # noqa: E731
            kind = "success"
        toasts.show_toast(words, key=key, kind=kind)

    async def forget_memory(self, memory_id: str) -> None:
        """"忘掉这条" on a recalled-memory chip: to the trash, with 撤销 on the toast."""
        assert self.service is not None and self.toasts is not None
        if self.service.refuse_changes(self.toasts):  # (as the wall's 删除)
            return
        item = await self.service.run(ops.Item(memory_id))
        if item is None:
            return  # gone already (the service said why)
        why = reason_text("chat.forget_memory")
        if await self.service.submit(ops.DeleteMemory(memory_id, why)) is None:
            return
        service = self.service
        preview = item.description if len(item.description) <= 30 else item.description[:29] + "…"
        self.toasts.show_toast(lambda: QApplication.translate("SonettoApp", "已忘掉：{0}").format(preview),
                               key=f"forgot:{memory_id}", kind="success",
                               action_text=lambda: QApplication.translate("SonettoApp", "撤销"),
                               on_action=lambda: service.submit(ops.RestoreMemory(memory_id)),
                               undone_by=restores([memory_id]))
