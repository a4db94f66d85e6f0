"""The memory writer's state for people: "整理记忆中 (n)", the last error, pause / resume, and
"重试失败的轮次" when turns failed, were held, or wait for their next automatic try.

:class:`WriterControl` adapts the services' background writer (no Qt) for the UI: one checkable
"暂停记忆写入" action shared by the tray menu and the status indicator, a "重试失败的轮次" action
(``MemoryWriter.retry_failed()``, run as a task on the loop: never blocking Qt), and a ``state_changed``
signal raised on every writer event (bridged to the GUI thread). It follows whichever writer the
services run (none before the agents start; a new one after the store is re-opened).
:class:`StatusIndicator` shows it.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, QSize, Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton, QWidget

from sonetto_desktop.presentation.i18n import counted, filled
from ..i18n import ui_language
from ..widgets.focus import enter_clicks
from ..widgets.icons import icon
from ..widgets.tasks import task_scope

ERROR_CHARS = 40


class WriterControl(QObject):
    """``services``: anything with ``writer`` (a ``MemoryWriter`` or None) and
    ``subscribe_writer(callback)`` — the app's ``AppServices``."""

    state_changed = Signal()
    review_requested = Signal()  # the review inbox's badge was clicked
    conflicts_requested = Signal()  # the tidy-up's "矛盾 N" badge was clicked
    vectors_consent_requested = Signal(object)  # the VectorStatus "consent" link was clicked

    def __init__(self, services: Any = None, parent: QObject | None = None, *, feed: Any = None) -> None:
        """``feed``: the app's one ``AppFeed`` (made here over ``services`` when not given): the
        control follows the writer's events, new agents, the review inbox, applied settings and
        memory changes (a merge can settle a flagged contradiction) without anyone calling
        ``refresh`` by hand."""
        super().__init__(parent)
        self._services = services
        self.pause_action = QAction(icon("pause"), "", self)
        self.pause_action.setCheckable(True)
        self.pause_action.toggled.connect(self._on_pause_toggled)
        self.retry_action = QAction(icon("retry"), "", self)
        self.retry_action.triggered.connect(self._on_retry)
        self.review_action = QAction(self)
        self.review_action.triggered.connect(self.review_requested)
        self.conflicts_action = QAction(self)
        self.conflicts_action.triggered.connect(self.conflicts_requested)
        self._set_texts()
        self.index_progress: Any = None  # the recall index's first build while it runs (IndexProgress)
        self.vectors: Any = None  # the embeddings model's vectors (VectorStatus; None: no such model)
        self._tasks = task_scope(self, "writer-control")
        if feed is None and services is not None:
            from ..app_feed import AppFeed

            feed = AppFeed(services, self)
        self._feed = feed
        if feed is not None:
            for signal in self._signals():
                signal.connect(self._on_event)
            feed.index_progress.connect(self._on_index_progress)
            feed.vectors_changed.connect(self._on_vectors)
        self.refresh()

    def _signals(self) -> list:
        feed = self._feed
        return [feed.writer_changed, feed.agents_started, feed.inbox_changed, feed.settings_applied,
                feed.memory_changed]

    def _on_event(self, *_event: Any) -> None:
        self.refresh()

    def _on_index_progress(self, progress: Any) -> None:
        self.index_progress = None if progress.finished else progress
        self.state_changed.emit()

    def _on_vectors(self, status: Any) -> None:
        self.vectors = None if status.state == "stopped" else status
        self.state_changed.emit()

    @property
    def writer(self) -> Any:
        """The writer in use now (``None``: not started)."""
        return getattr(self._services, "writer", None)

    def close(self) -> None:
        if self._feed is None:
            return
        for signal, slot in [(signal, self._on_event) for signal in self._signals()] + [
                (self._feed.index_progress, self._on_index_progress), (self._feed.vectors_changed, self._on_vectors)]:
            try:
                signal.disconnect(slot)
            except (RuntimeError, TypeError):
                pass

    def _set_texts(self) -> None:
        self.pause_action.setText(self.tr("暂停记忆写入"))
        self.retry_action.setText(self.tr("重试失败的轮次"))
        self.review_action.setToolTip(self.tr("Sonetto 想做的记忆变化，等你确认"))
        self.conflicts_action.setToolTip(self.tr("整理记忆时发现的、说法不一致的记忆，等你确认"))

    def retranslate(self) -> None:
        """The UI language changed: the shared actions (tray menu, status bar) say it anew."""
        self._set_texts()
        self.refresh()

    def refresh(self) -> None:
        writer = self.writer
        paused = bool(writer is not None and writer.paused)
        self.pause_action.setEnabled(writer is not None)
        can_retry = bool(writer is not None and writer.status().can_retry)
        self.retry_action.setEnabled(can_retry)
        self.retry_action.setVisible(can_retry)
        review = getattr(self._services, "review", None)
        waiting = review.cached_count if review is not None else 0
        self.review_action.setText(self.tr("待审核 %1").replace("%1", counted(waiting)))
        self.review_action.setVisible(bool(waiting))  # "待审核 0" said nothing (review mode shows in the tip)
        self.review_action.setEnabled(bool(waiting))
        hygiene = getattr(self._services, "hygiene", None)
        flagged = len(hygiene.conflicts()) if hygiene is not None else 0  # held in memory: no file read
        self.conflicts_action.setText(self.tr("矛盾 %1").replace("%1", counted(flagged)))
        self.conflicts_action.setVisible(bool(flagged))
        if self.pause_action.isChecked() != paused:
            self.pause_action.blockSignals(True)
            self.pause_action.setChecked(paused)
            self.pause_action.blockSignals(False)
        # the tray menu shows the action's own text and icon: they say what a click will do
        self.pause_action.setText(self.tr("继续记忆写入") if paused else self.tr("暂停记忆写入"))
        self.pause_action.setIcon(icon("resume") if paused else icon("pause"))
        self.state_changed.emit()

    @property
    def review_mode(self) -> bool:
        review = getattr(self._services, "review", None)
        return bool(review is not None and review.enabled)

    def _on_retry(self) -> None:
        writer = self.writer
        if writer is not None:
            self.retry_action.setEnabled(False)  # until the writer reports again
            self._tasks.spawn(writer.retry_failed(), name="retry-failed-turns")

    def _on_pause_toggled(self, checked: bool) -> None:
        writer = self.writer
        if writer is None:
            return
        if checked:
            writer.pause()
        else:
            writer.resume()
        self.refresh()


class StatusIndicator(QWidget):
    """``state`` property: idle | busy | paused | error | off (styled from the QSS)."""

    def __init__(self, control: WriterControl, *, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("StatusIndicator")
        self._control = control
        self.import_status: Any = None  # the running chat-history import (``set_import_status``)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        self.label = QLabel(self)
        self.label.setObjectName("StatusIndicator")
        self.vectors_label = QLabel(self)  # "向量 8,200/10,000" while the embeddings model's vectors are made
        self.vectors_label.setObjectName("VectorStatus")
        self.vectors_label.linkActivated.connect(
            lambda _link: control.vectors_consent_requested.emit(control.vectors))  # "consent": ask again
        self.pause_button = QToolButton(self)
        self.pause_button.setDefaultAction(control.pause_action)
        self.pause_button.setIconSize(QSize(14, 14))
        self.pause_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonIconOnly)
        self.retry_button = QToolButton(self)
        self.retry_button.setDefaultAction(control.retry_action)
        self.retry_button.setIconSize(QSize(14, 14))
        self.retry_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonIconOnly)
        self.review_button = QToolButton(self)
        self.review_button.setObjectName("ReviewBadge")
        self.review_button.setDefaultAction(control.review_action)
        self.review_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.conflicts_button = QToolButton(self)
        self.conflicts_button.setObjectName("ConflictsBadge")
        self.conflicts_button.setDefaultAction(control.conflicts_action)
        self.conflicts_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        # Groups, each set apart by a line: [the import's progress, its ⏸] | [the vectors' count] |
        # [the badges, the writer's state, its ↻ and ⏸]: a pause button sits with what it pauses.
        self.import_separator = _separator(self)  # shown with the import (set_import_status)
        self.vectors_separator = _separator(self)
        layout.addWidget(self.import_separator)
        layout.addWidget(self.vectors_label)
        layout.addWidget(self.vectors_separator)
        layout.addWidget(self.review_button)
        layout.addWidget(self.conflicts_button)
        layout.addWidget(self.label)
        layout.addWidget(self.retry_button)
        layout.addWidget(self.pause_button)
        for button in self.tab_stops():  # a click must not take the focus (one Space would then pause)
            button.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        enter_clicks(self.review_button, self.conflicts_button)  # (links to their lists: Enter opens them too)
        control.state_changed.connect(self.refresh)
        self.refresh()

    def set_import_status(self, widget: Any) -> None:
        """Show ``widget`` (``ImportStatus``) first in the row, a line after it; while it shows, the chat
        writer's idle state says it is the chat's ("聊天记忆已是最新": the import's own writer is busy)."""
        self.import_status = widget
        self.layout().insertWidget(0, widget)
        widget.shown_changed.connect(lambda _shown: self.refresh())
        self.refresh()

    def _show_vectors(self, status: Any) -> None:
        """The vectors' count while they are made, wait or failed; nothing once all are done."""
        if status is None or (status.state == "idle" and status.complete) or not status.total:
            self.vectors_label.setVisible(False)
            return
        if status.state == "consent":
            self.vectors_label.setTextFormat(Qt.TextFormat.RichText)
            self.vectors_label.setText('<a href="consent">%s</a>' % self.tr("向量模型已更换：等你确认"))
            self.vectors_label.setToolTip(filled(self.tr("回忆改用了向量模型 %1，要为 %2 条记忆重新计算向量；确认之前回忆只按字面找。"),
                status.model, counted(status.total)))
            self.vectors_label.setVisible(True)
            return
        self.vectors_label.setTextFormat(Qt.TextFormat.PlainText)
        if status.query_failed and status.builtin_query:  # the model inside the app did not answer in time
            self.vectors_label.setText(self.tr("内置向量模型正忙：暂时只按字面回忆"))
            self.vectors_label.setToolTip(self.tr("内置向量模型 %1 在本程序里运行，这次正忙，没能及时算出消息的向量："
                                                  "这段时间回忆只按字面找记忆，稍后自动再试，之后照常按意思找。").replace(
                "%1", status.model) + "\n" + self.tr("原因：%1").replace("%1", self._vectors_trouble(status.error)))
            self.vectors_label.setVisible(True)
            return
        if status.query_failed:  # the vectors are there; recall cannot reach the model for the message's
            self.vectors_label.setText(self.tr("向量服务连不上：暂时只按字面回忆"))
            self.vectors_label.setToolTip(self.tr("回忆时连不上向量模型 %1：这段时间回忆只按字面找记忆，稍后自动再试，"
                                                  "连上后照常按意思找。").replace("%1", status.model)
                                          + "\n" + self.tr("原因：%1").replace("%1", self._vectors_trouble(status.error)))
            self.vectors_label.setVisible(True)
            return
        count = filled(self.tr("向量 %1/%2"), counted(status.done), counted(status.total))
        if status.state == "error":
            count = self.tr("%1 出错").replace("%1", count)
        elif status.state == "waiting":
            count = self.tr("%1（稍后继续）").replace("%1", count)
        self.vectors_label.setText(count)
        tip = self.tr("向量模型 %1 在后台为每条记忆计算向量，算好的记忆回忆时也能按意思找到。").replace("%1", status.model)
        if status.words:  # why, as its maker said it (the built-in model that does not run here)
            tip += "\n" + self.tr("内置向量模型在这台电脑上运行不了：%1").replace(
                "%1", status.words[1] if ui_language() == "en" else status.words[0])
        elif status.error:
            tip += "\n" + self._vectors_trouble(status.error)
        self.vectors_label.setToolTip(tip)
        self.vectors_label.setVisible(True)

    def _vectors_trouble(self, error: str) -> str:
        """``VectorStatus.error`` (the client's English sentence) in the window's words: only a status
        code or a host of it kept (the sentence itself is in the log)."""
        from sonetto_desktop.memory.retrieval.vector_status import error_facts

        facts = error_facts(error)
        code = f"HTTP {facts.code}"
        if facts.kind == "http" and facts.code in (401, 403):
            return self.tr("向量服务拒绝了请求（%1）：请检查 API 密钥。").replace("%1", code)
        if facts.kind == "http" and facts.code == 404:
            return self.tr("向量服务找不到这个模型（%1）：请检查服务地址和模型名称。").replace("%1", code)
        if facts.kind == "http" and facts.code == 429:
            return self.tr("向量服务限流了（%1）：稍后自动再试。").replace("%1", code)
        if facts.kind == "http" and facts.code == 400:
            return self.tr("向量服务拒绝了请求（%1）：这个模型可能不是向量模型，或不支持所填的维度。").replace("%1", code)
        if facts.kind == "http":
            return self.tr("向量服务出错了（%1）。").replace("%1", code)
        if facts.kind == "unreachable":
            return self.tr("连不上向量服务 %1。").replace("%1", facts.host)
        if facts.kind == "timeout":
            return self.tr("向量服务 %1 在 %2 秒内没有回应。").replace("%1", facts.host).replace(
                "%2", f"{facts.seconds or 0:.0f}")
        if facts.kind == "unstable":
            return self.tr("向量模型每次给同一段文字算出的向量都不一样：已算好的向量先留着，等它稳定下来。")
        if facts.kind == "answer":
            return self.tr("向量服务的回答不像向量模型给的：请检查模型名称。")
        if facts.kind == "builtin_busy":
            return self.tr("内置向量模型在 %1 秒内没有算完（正忙）。").replace("%1", f"{facts.seconds or 0:g}")
        if facts.kind == "builtin":
            return self.tr("内置向量模型出错了（详情在日志里）。")
        return self.tr("向量计算出错了（详情在日志里）。")

    def tab_stops(self) -> list[QWidget]:
        """The buttons, in the order they are laid out."""
        leading = self.import_status.tab_stops() if self.import_status is not None else []
        return [*leading, self.review_button, self.conflicts_button, self.retry_button, self.pause_button]

    @property
    def state(self) -> str:
        return str(self.label.property("state") or "")

    def refresh(self) -> None:
        ltm = self._control.writer
        building = self._control.index_progress
        if building is not None and (ltm is None or not (ltm.paused or ltm.last_error)):
            state, tip = "busy", self.tr("第一次打开导入的记忆时要建立回忆索引；建好前回忆只用已建好的部分")
            text = self.tr("正在建立回忆索引… %1 / %2").replace("%1", counted(building.done)).replace(
                "%2", counted(building.total))
        elif ltm is None:
            state, text, tip = "off", self.tr("记忆写入未启动"), ""
        else:
            status, language = ltm.status(), ui_language()
            tip = status.en if language == "en" else status.zh
            why = ltm.error_in(language)  # (asked now: after a language switch, in the new language)
            if ltm.paused:
                state, text = "paused", self.tr("记忆写入已暂停 (%1)").replace("%1", counted(ltm.pending))
            elif ltm.pending:
                state, text = "busy", self.tr("整理记忆中 (%1)").replace("%1", counted(ltm.pending))
                if why:
                    state = "error"
            elif why or status.failed:
                short = why or tip
                short = short if len(short) <= ERROR_CHARS else short[: ERROR_CHARS - 1] + "…"
                state, text = "error", self.tr("记忆写入出错：%1").replace("%1", short)
            else:
                state, text = "idle", self.tr("记忆已是最新")
        if self._control.review_mode:  # said here, not by a "待审核 0" badge
            tip = "\n".join(t for t in (tip, self.tr("审核模式：Sonetto 想做的记忆变化会先等你确认")) if t)
        importing = self.import_status is not None and not self.import_status.isHidden()
        if importing and state == "idle":  # "记忆已是最新" said nothing true while the import writes
            text = self.tr("聊天记忆已是最新")
        self.label.setText(text)
        self.label.setToolTip(tip)
        self._show_vectors(self._control.vectors)
        self.import_separator.setVisible(importing)
        self.vectors_separator.setVisible(not self.vectors_label.isHidden())
        self.pause_button.setToolTip(self.tr("继续记忆写入") if state == "paused" else self.tr("暂停记忆写入"))
        self.retry_button.setVisible(self._control.retry_action.isVisible())
        self.review_button.setVisible(self._control.review_action.isVisible())
        self.conflicts_button.setVisible(self._control.conflicts_action.isVisible())
        control = self._control.pause_action
        control.setIcon(icon("resume") if control.isChecked() else icon("pause"))
        if self.label.property("state") != state:
            self.label.setProperty("state", state)
            self.label.style().unpolish(self.label)
            self.label.style().polish(self.label)


def _separator(parent: QWidget) -> QFrame:
    """A thin vertical line between two groups of the row (hidden while either side is)."""
    line = QFrame(parent)
    line.setObjectName("StatusSeparator")
    line.setFrameShape(QFrame.Shape.VLine)
    line.setFixedSize(13, 16)  # the line and room either side (the QSS's margin)
    line.setVisible(False)
    return line
