"""Drafts: what the person typed and did not send, kept per chat across switching chats and restarts.

The main chat's composer text belongs to the chat it was typed in: switching chats puts it aside
and brings back the other chat's draft; it is written to the UI state (``chat/drafts/<session>``)
half a second after typing stops, when switching chats and when the window saves its state (quit),
and removed once sent (the input is empty) or when the chat is deleted. A draft longer than the
state file keeps (a pasted book) is written to its own file beside it (``chat-drafts/``) instead:
never dropped. A temporary chat keeps none (it is not saved at all). While an earlier message is
being edited, the draft is the text from before the edit (the edit itself is the message, not a draft).
"""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QSettings, QTimer

from ...memory.files import atomic_write, private_dir

from .composer import Composer
from .controller import ChatController

PREFIX = "chat/drafts"
SAVE_DELAY_MS = 500
MAX_DRAFT_CHARS = 200_000  # a pasted book is not kept in the UI state file (read whole at start) but beside it
LONG_DRAFTS = "chat-drafts"

log = logging.getLogger(__name__)


#: The tray's quick chat: its input's drafts, kept apart from the main window's (both follow the chat open).
QUICK_PREFIX, QUICK_LONG_DRAFTS = "chat/quick-drafts", "chat-quick-drafts"


class Drafts(QObject):
    """``prefix`` / ``long_folder``: where this composer's drafts go in the UI state and beside it (the
    main window's by default; the quick chat's are QUICK_PREFIX / QUICK_LONG_DRAFTS)."""

    def __init__(self, controller: ChatController, composer: Composer, state: QSettings,
                 parent: QObject | None = None, *, prefix: str = PREFIX, long_folder: str = LONG_DRAFTS) -> None:
        super().__init__(parent or composer)
        self._controller = controller
        self._composer = composer
        self._state = state
        self._prefix = prefix
        self._folder = Path(state.fileName()).parent / long_folder
        self._unwritten: dict[str, str] = {}  # a long draft its file could not take (disk full): kept for this run
        self._session = controller.current_session_id  # the chat the composer's text belongs to
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SAVE_DELAY_MS)
        self._timer.timeout.connect(self.save)
        self._loading = False
        composer.input.textChanged.connect(self._on_text_changed)
        controller.current_session_changed.connect(self._on_session_changed)
        controller.sessions_changed.connect(self._on_sessions_changed)

    def _key(self, session_id: str) -> str:
        return f"{self._prefix}/{session_id}"

    def _long_file(self, session_id: str) -> Path:
        return self._folder / f"{hashlib.sha256(session_id.encode()).hexdigest()[:32]}.txt"

    def draft(self, session_id: str) -> str:
        if not session_id:
            return ""
        if session_id in self._unwritten:
            return self._unwritten[session_id]
        value = self._state.value(self._key(session_id), "", type=str)
        if isinstance(value, str) and value:
            return value
        try:
            return self._long_file(session_id).read_text(encoding="utf-8")
        except FileNotFoundError:
            return ""
        except (OSError, UnicodeDecodeError):
            log.warning("a long draft could not be read back", exc_info=True)
            return ""

    def _forget_long(self, session_id: str) -> None:
        self._long_file(session_id).unlink(missing_ok=True)

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
        self._unwritten.pop(session, None)
        if not text.strip() or self._temporary(session):
            self._state.remove(self._key(session))
            self._forget_long(session)
        elif len(text) > MAX_DRAFT_CHARS:
            self._state.remove(self._key(session))
            try:
                atomic_write(private_dir(self._folder) / self._long_file(session).name, text.encode("utf-8"))
            except OSError:
                log.warning("a long draft could not be written to its file; kept for this run", exc_info=True)
                self._unwritten[session] = text
        else:
            self._state.setValue(self._key(session), text)
            self._forget_long(session)

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
        self._state.beginGroup(self._prefix)
        try:
            gone = [key for key in self._state.childKeys() if key not in live]
        finally:
            self._state.endGroup()
        for key in gone:
            if key != self._session:
                self._state.remove(self._key(key))
        if self._folder.is_dir():
            kept = {self._long_file(session).name for session in live | {self._session}}
            for path in self._folder.glob("*.txt"):
                if path.name not in kept:
                    path.unlink(missing_ok=True)
