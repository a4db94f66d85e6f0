"""Drafts: what the person typed and did not send, kept per chat across switching chats and restarts.

The main chat's composer text belongs to the chat it was typed in: switching chats puts it aside
and brings back the other chat's draft; it is written to the UI state (``chat/drafts/<session>``)
half a second after typing stops, when switching chats and when the window saves its state (quit),
and removed once sent (the input is empty) or when the chat is deleted. A temporary chat keeps
none (it is not saved at all). While an earlier message is being edited, the draft is the text
from before the edit (the edit itself is the message, not a draft).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, QSettings, QTimer

from .composer import Composer
from .controller import ChatController

PREFIX = "chat/drafts"
SAVE_DELAY_MS = 500
MAX_DRAFT_CHARS = 200_000  # a pasted book is not kept in the UI state file


class Drafts(QObject):
    def __init__(self, controller: ChatController, composer: Composer, state: QSettings,
                 parent: QObject | None = None) -> None:
        super().__init__(parent or composer)
        self._controller = controller
        self._composer = composer
        self._state = state
        self._session = controller.current_session_id  # the chat the composer's text belongs to
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SAVE_DELAY_MS)
        self._timer.timeout.connect(self.save)
        self._loading = False
        composer.input.textChanged.connect(self._on_text_changed)
        controller.current_session_changed.connect(self._on_session_changed)
        controller.sessions_changed.connect(self._on_sessions_changed)

    @staticmethod
    def _key(session_id: str) -> str:
        return f"{PREFIX}/{session_id}"

    def draft(self, session_id: str) -> str:
        value = self._state.value(self._key(session_id), "", type=str) if session_id else ""
        return value if isinstance(value, str) else ""

    def _temporary(self, session_id: str) -> bool:
        info = next((s for s in self._controller.sessions if s.id == session_id), None)
        return bool(info is not None and info.temporary)

    def save(self) -> None:
        """Write the current chat's draft now (or forget it when the input is empty)."""
        self._timer.stop()
        session = self._session
        if not session:
            return
        text = self._composer.draft_text()
        if not text.strip() or self._temporary(session) or len(text) > MAX_DRAFT_CHARS:
            self._state.remove(self._key(session))
        else:
            self._state.setValue(self._key(session), text)

    def _on_text_changed(self) -> None:
        if not self._loading:
            self._timer.start()

    def _on_session_changed(self, session_id: str) -> None:
        if session_id == self._session:
            return
        self.save()  # the text typed so far belongs to the chat being left
        self._session = session_id
        self._loading = True
        try:
            self._composer.set_editing("")
            self._composer.set_text(self.draft(session_id))
            cursor = self._composer.input.textCursor()
            cursor.movePosition(cursor.MoveOperation.End)
            self._composer.input.setTextCursor(cursor)
        finally:
            self._loading = False

    def _on_sessions_changed(self, sessions: list[Any]) -> None:
        """A chat that is gone (deleted) takes its draft with it."""
        live = {info.id for info in sessions}
        self._state.beginGroup(PREFIX)
        try:
            gone = [key for key in self._state.childKeys() if key not in live]
        finally:
            self._state.endGroup()
        for key in gone:
            if key != self._session:
                self._state.remove(self._key(key))
