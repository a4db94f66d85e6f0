"""The running chat-history import in the window's header, beside the writer's status (issue 38): an
import in the background is seen — "导入 ChatGPT 12/40 轮" (or 已暂停 / waiting for the chat), its
counts in the tooltip — with a pause / resume button, and a click on it opens the import's window.

:class:`ImportStatus` follows ``HistoryImportActions`` (its ``progress`` and ``finished`` signals, on
the GUI thread) and is hidden while no import runs. ``shown_changed`` tells the status indicator to
make room (``StatusIndicator.set_import_status``).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QToolButton, QWidget

from ..dialogs.history_progress import held_text, progress_line
from ..widgets.focus import enter_clicks
from ..widgets.icons import icon

ENDED = ("done", "undone")


class ImportStatus(QWidget):
    """See the module docstring. ``open_requested``: the badge was clicked (open the import's window)."""

    open_requested = Signal()
    shown_changed = Signal(bool)

    def __init__(self, actions: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("ImportStatus")
        self._actions = actions
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        self.badge = QToolButton(self)
        self.badge.setObjectName("ImportBadge")
        self.badge.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.badge.clicked.connect(self.open_requested)
        self.pause_button = QToolButton(self)
        self.pause_button.setIconSize(QSize(14, 14))
        self.pause_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonIconOnly)
        self.pause_button.clicked.connect(self._toggle_pause)
        layout.addWidget(self.badge)
        layout.addWidget(self.pause_button)
        for button in self.tab_stops():  # a click must not take the focus (as the status indicator's)
            button.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        enter_clicks(self.badge)  # (a link to the import's window: Enter opens it, as Space does)
        self._paused = False
        self.setVisible(False)
        actions.progress.connect(self._on_event)
        actions.finished.connect(self._on_event)
        self.refresh()

    def tab_stops(self) -> list[QWidget]:
        return [self.badge, self.pause_button]

    @property
    def paused(self) -> bool:
        return self._paused

    def _on_event(self, *_event: Any) -> None:
        self.refresh()

    def _toggle_pause(self) -> None:
        self._actions.set_paused(not self._paused)

    def refresh(self) -> None:
        state = self._actions.running
        progress = self._actions.last_progress
        if progress is not None and state is not None and progress.import_id != state.id:
            progress = None  # the last one's snapshot: this import has not reported yet
        shown = state is not None and (progress is None or progress.status not in ENDED)
        if shown:
            self._show(state, progress)
        if shown != self.isVisible():
            self.setVisible(shown)
            self.shown_changed.emit(shown)

    def _show(self, state: Any, progress: Any) -> None:
        held = progress.held if progress is not None else ()
        self._paused = "person" in held
        done = progress.turns_done if progress is not None else state.turns_written
        total = progress.turns if progress is not None else state.turns
        if self._paused:
            text = self.tr("导入 {0} 已暂停 {1}/{2}")
        elif held:
            text = self.tr("导入 {0} 稍候 {1}/{2}")
        elif progress is not None and progress.retrying:  # why: in the tooltip (progress_line)
            text = self.tr("导入 {0} 出错重试中 {1}/{2}")
        else:
            text = self.tr("导入 {0} {1}/{2} 轮")
        self.badge.setText(text.format(state.label, done, total))
        lines = [self.tr("正在导入 {0} 的聊天记录（{1}）").format(state.label, state.file_name)]
        if progress is not None:
            lines.append(progress_line(progress))
        if held_text(held):
            lines.append(held_text(held))
        lines.append(self.tr("点击打开导入窗口"))
        self.badge.setToolTip("\n".join(lines))
        self.badge.setAccessibleName(self.tr("聊天记录导入：{0}").format(self.badge.text()))
        word = self.tr("继续导入") if self._paused else self.tr("暂停导入")
        self.pause_button.setIcon(icon("resume") if self._paused else icon("pause"))
        self.pause_button.setToolTip(word)
        self.pause_button.setAccessibleName(word)
