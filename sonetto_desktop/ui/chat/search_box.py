"""ChatSearchBox: the search field over the session list. Typing (debounced) searches every chat
through the controller (the engine does the work off the Qt thread) and reports the hits; Esc or
the clear button ends the search."""

from __future__ import annotations

import asyncio
import logging

from PySide6.QtCore import QCoreApplication, Qt, QTimer, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QLineEdit, QWidget

from sonetto_desktop.presentation.errors import error_detail
from sonetto_desktop.presentation.i18n import Worded
from ..widgets.tasks import task_scope
from .controller import ChatController

log = logging.getLogger(__name__)
DEBOUNCE_MS = 250


class ChatSearchBox(QLineEdit):
    results_changed = Signal(object)  # [ChatHit], or None when no search is active

    def __init__(self, controller: ChatController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.setObjectName("ChatSearch")
        self.setPlaceholderText(self.tr("搜索所有对话…"))
        self.setAccessibleName(self.tr("搜索所有对话"))
        self.setClearButtonEnabled(True)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DEBOUNCE_MS)
        self._timer.timeout.connect(self._on_pause)
        self._tasks = task_scope(self, "chat-search")
        self.textChanged.connect(self._on_text_changed)
        self._generation = 0
        self.hits: list | None = None

    def _on_text_changed(self, text: str) -> None:
        if text.strip():
            self._timer.start()
        else:
            self._timer.stop()
            self._generation += 1  # a search still running is now stale
            self.hits = None
            self.results_changed.emit(None)

    def _on_pause(self) -> None:
        """The person stopped typing: search what the box holds now."""
        self._tasks.spawn(self.search(self.text()), name="chat-search")

    async def search(self, query: str) -> None:
        self._generation += 1
        generation = self._generation
        try:
            hits = await self.controller.search_chats(query)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("chat search failed", exc_info=True)
            failure = exc  # (``exc`` is gone after the clause; the box may be gone when said again)
            self.controller.operation_failed.emit(Worded(
                lambda: QCoreApplication.translate("ChatSearchBox", "搜索失败：{0}").format(error_detail(failure))))
            return
        if generation == self._generation and self.text().strip():
            self.hits = hits
            self.results_changed.emit(hits)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape and self.text():
            self.clear()
            return
        super().keyPressEvent(event)
