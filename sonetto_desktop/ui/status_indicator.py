"""The memory writer's state for people: "整理记忆中 (n)", the last error, and pause / resume.

:class:`WriterControl` adapts a ``LongTermMemory`` (no Qt) for the UI: one checkable
"暂停记忆写入" action shared by the tray menu and the status indicator, and a ``state_changed``
signal raised on every writer event (bridged to the GUI thread). :class:`StatusIndicator` shows it.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, QSize, Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QWidget

from .icons import icon
from .qt_bridge import QtEventBridge

ERROR_CHARS = 40


class WriterControl(QObject):
    state_changed = Signal()

    def __init__(self, ltm: Any = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._ltm: Any = None
        self._bridge: QtEventBridge | None = None
        self.pause_action = QAction(icon("pause"), self.tr("暂停记忆写入"), self)
        self.pause_action.setCheckable(True)
        self.pause_action.toggled.connect(self._on_pause_toggled)
        self.set_ltm(ltm)

    @property
    def ltm(self) -> Any:
        return self._ltm

    def set_ltm(self, ltm: Any) -> None:
        if self._bridge is not None:
            self._bridge.close()
            self._bridge.deleteLater()
            self._bridge = None
        self._ltm = ltm
        if ltm is not None:
            self._bridge = QtEventBridge(ltm.events.subscribe, self)
            self._bridge.event.connect(lambda _event: self.refresh())
        self.pause_action.setEnabled(ltm is not None)
        self.refresh()

    def close(self) -> None:
        self.set_ltm(None)

    def refresh(self) -> None:
        paused = bool(self._ltm is not None and self._ltm.paused)
        if self.pause_action.isChecked() != paused:
            self.pause_action.blockSignals(True)
            self.pause_action.setChecked(paused)
            self.pause_action.blockSignals(False)
        self.state_changed.emit()

    def _on_pause_toggled(self, checked: bool) -> None:
        if self._ltm is None:
            return
        if checked:
            self._ltm.pause()
        else:
            self._ltm.resume()
        self.refresh()


class StatusIndicator(QWidget):
    """``state`` property: idle | busy | paused | error | off (styled from the QSS)."""

    def __init__(self, control: WriterControl, *, language: str = "zh_CN", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("StatusIndicator")
        self._control = control
        self._language = language
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        self.label = QLabel(self)
        self.label.setObjectName("StatusIndicator")
        self.pause_button = QToolButton(self)
        self.pause_button.setDefaultAction(control.pause_action)
        self.pause_button.setIconSize(QSize(14, 14))
        self.pause_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonIconOnly)
        layout.addWidget(self.label)
        layout.addWidget(self.pause_button)
        control.state_changed.connect(self.refresh)
        self.refresh()

    @property
    def state(self) -> str:
        return str(self.label.property("state") or "")

    def refresh(self) -> None:
        ltm = self._control.ltm
        if ltm is None:
            state, text, tip = "off", self.tr("记忆写入未启动"), ""
        else:
            status = ltm.status()
            tip = status.en if self._language == "en" else status.zh
            if ltm.paused:
                state, text = "paused", self.tr("记忆写入已暂停 (%1)").replace("%1", str(ltm.pending))
            elif ltm.pending:
                state, text = "busy", self.tr("整理记忆中 (%1)").replace("%1", str(ltm.pending))
                if ltm.last_error:
                    state = "error"
            elif ltm.last_error:
                short = ltm.last_error if len(ltm.last_error) <= ERROR_CHARS else ltm.last_error[: ERROR_CHARS - 1] + "…"
                state, text = "error", self.tr("记忆写入出错：%1").replace("%1", short)
            else:
                state, text = "idle", self.tr("记忆已是最新")
        self.label.setText(text)
        self.label.setToolTip(tip)
        self.pause_button.setToolTip(self.tr("继续记忆写入") if state == "paused" else self.tr("暂停记忆写入"))
        control = self._control.pause_action
        control.setIcon(icon("resume") if control.isChecked() else icon("pause"))
        if self.label.property("state") != state:
            self.label.setProperty("state", state)
            self.label.style().unpolish(self.label)
            self.label.style().polish(self.label)
