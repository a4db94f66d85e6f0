"""The progress of a history import, and what it did at the end.

While it runs: a bar (turns written / to write), the memories so far (or the proposals, in review
mode), the time left, the conversation and day being read, why it waits if it does (paused, a chat
being remembered first, the review inbox nearly full), and the batches that failed with 重试. Buttons:
暂停 / 继续, 后台运行 (close the window, the import goes on), 停止 (the dialog asks whether to keep or
undo what was imported). At the end: the summary, the undo id for the command line and
撤销这次导入; after an undo that kept the cards the person had changed since, those cards. The panel
only shows and asks: the dialog does the work.
"""

from __future__ import annotations

from typing import Sequence

from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QVBoxLayout, QWidget

from sonetto_desktop.history_import.ledger import PAUSED
from sonetto_desktop.history_import.runner import ImportProgress, ImportResult
from sonetto_desktop.memory.undo import Touched
from sonetto_desktop.presentation.i18n import counted
from sonetto_desktop.presentation.undo_words import kept_lines

from ..i18n import ui_language

KEPT_SHOWN = 5  # an undo that kept cards the person changed names this many of them here


def time_left(seconds: float | None) -> str:
    if seconds is None:
        return QCoreApplication.translate("HistoryProgress", "剩余时间估算中")
    if seconds < 90:
        return QCoreApplication.translate("HistoryProgress", "剩余不到 2 分钟")
    if seconds < 3600 * 1.5:
        return QCoreApplication.translate("HistoryProgress", "剩余约 {0} 分钟").format(round(seconds / 60))
    return QCoreApplication.translate("HistoryProgress", "剩余约 {0} 小时").format(f"{seconds / 3600:.1f}")


def progress_line(p: ImportProgress) -> str:
    """``已写入 120/1000 轮 · 新记忆 34 · 更新 12 · 剩余约 18 分钟`` (the command line says the same)."""
    if p.proposals and not p.created and not p.updated:  # review mode: everything is proposed
        memories = QCoreApplication.translate("HistoryProgress", "提议 {0} 条").format(p.proposals)
    else:
        memories = QCoreApplication.translate("HistoryProgress", "新记忆 {0} · 更新 {1}").format(p.created, p.updated)
        if p.proposals:  # changes to memories the import did not create wait for the person
            memories += QCoreApplication.translate("HistoryProgress", " · 待你确认 {0}").format(p.proposals)
    if p.status == PAUSED and not p.held:  # stopped (停止): nothing runs, no time is left to say
        return QCoreApplication.translate("HistoryProgress", "已写入 {0}/{1} 轮 · {2}").format(p.turns_done, p.turns, memories)
    if p.retrying and not p.held:  # no time to say while a batch fails: why, and that it is tried again
        return QCoreApplication.translate("HistoryProgress", "已写入 {0}/{1} 轮 · {2} · {3}").format(
            p.turns_done, p.turns, memories, retrying_text(p))
    return QCoreApplication.translate("HistoryProgress", "已写入 {0}/{1} 轮 · {2} · {3}").format(p.turns_done, p.turns, memories, time_left(p.seconds_left))


def retrying_text(p: ImportProgress) -> str:
    """The batch being written failed and is tried again shortly: how often it failed, and why."""
    return QCoreApplication.translate("HistoryProgress", "出错了，稍后自动重试（已失败 {0} 次）：{1}").format(
        p.failed_tries, p.why_retrying(ui_language()))


def held_text(held: tuple[str, ...]) -> str:
    if "person" in held:
        return QCoreApplication.translate("HistoryProgress", "已暂停：点“继续”接着导入")
    if "inbox" in held:
        return QCoreApplication.translate("HistoryProgress", "审核箱快满了，导入已暂停：处理一些提议后会自动继续")
    if "chat" in held:
        return QCoreApplication.translate("HistoryProgress", "先写刚才聊天的记忆，导入稍后继续…")
    return ""


class ImportProgressPanel(QWidget):
    pause_toggled = Signal(bool)  # True: pause
    background_requested = Signal()
    stop_requested = Signal()
    retry_requested = Signal()
    undo_requested = Signal()
    redo_requested = Signal()
    by_conversation_requested = Signal()
    close_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("HistoryProgress")
        self.title = QLabel(QCoreApplication.translate("HistoryProgress", "正在导入…"), self)
        self.title.setObjectName("HistoryProgressTitle")
        self.source = QLabel("", self)
        self.source.setObjectName("HintLabel")
        self.source.setTextFormat(Qt.TextFormat.PlainText)
        self.bar = QProgressBar(self)
        self.bar.setObjectName("HistoryProgressBar")
        self.bar.setAccessibleName(QCoreApplication.translate("HistoryProgress", "导入进度"))
        self.line = QLabel("", self)
        self.line.setObjectName("HistoryProgressLine")
        self.line.setTextFormat(Qt.TextFormat.PlainText)
        self.line.setWordWrap(True)  # a failure's reason, an undo's line: long, and never wider than the window
        self.current = QLabel("", self)
        self.current.setObjectName("HintLabel")
        self.current.setTextFormat(Qt.TextFormat.PlainText)
        self.note = QLabel("", self)
        self.note.setObjectName("ImportNote")
        self.note.setWordWrap(True)
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.failed = QLabel("", self)
        self.failed.setObjectName("ImportError")
        self.failed.setTextFormat(Qt.TextFormat.PlainText)
        self.retry_button = QPushButton(QCoreApplication.translate("HistoryProgress", "重试"), self)
        self.undo_id = QLabel("", self)
        self.undo_id.setObjectName("HintLabel")
        self.undo_id.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.undo_id.setWordWrap(True)
        self.pause_button = QPushButton(QCoreApplication.translate("HistoryProgress", "暂停"), self)
        self.background_button = QPushButton(QCoreApplication.translate("HistoryProgress", "后台运行"), self)
        self.stop_button = QPushButton(QCoreApplication.translate("HistoryProgress", "停止"), self)
        self.undo_button = QPushButton(QCoreApplication.translate("HistoryProgress", "撤销这次导入"), self)
        self.redo_button = QPushButton(QCoreApplication.translate("HistoryProgress", "重做这次导入"), self)
        self.by_conversation_button = QPushButton(QCoreApplication.translate("HistoryProgress", "按对话撤销…"), self)
        self.close_button = QPushButton(QCoreApplication.translate("HistoryProgress", "关闭"), self)
        for button in (self.retry_button, self.pause_button, self.background_button, self.stop_button,
                       self.undo_button, self.redo_button, self.by_conversation_button, self.close_button):
            button.setAutoDefault(False)
        failed_row = QHBoxLayout()
        failed_row.addWidget(self.failed)
        failed_row.addWidget(self.retry_button)
        failed_row.addStretch(1)
        buttons = QHBoxLayout()
        buttons.addWidget(self.pause_button)
        buttons.addWidget(self.background_button)
        buttons.addWidget(self.stop_button)
        buttons.addStretch(1)
        buttons.addWidget(self.by_conversation_button)
        buttons.addWidget(self.undo_button)
        buttons.addWidget(self.redo_button)
        buttons.addWidget(self.close_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(self.source)
        layout.addWidget(self.bar)
        layout.addWidget(self.line)
        layout.addWidget(self.current)
        layout.addWidget(self.note)
        layout.addLayout(failed_row)
        layout.addWidget(self.undo_id)
        layout.addStretch(1)
        layout.addLayout(buttons)
        self._paused = False
        #: the import's end the panel shows (``show_done``), None while it shows anything else: a window
        #: opened again after a language switch shows it again
        self.shown_result: ImportResult | None = None
        self.pause_button.clicked.connect(lambda: self.pause_toggled.emit(not self._paused))
        self.background_button.clicked.connect(self.background_requested)
        self.stop_button.clicked.connect(self.stop_requested)
        self.retry_button.clicked.connect(self.retry_requested)
        self.undo_button.clicked.connect(self.undo_requested)
        self.redo_button.clicked.connect(self.redo_requested)
        self.by_conversation_button.clicked.connect(self.by_conversation_requested)
        self.close_button.clicked.connect(self.close_requested)
        self.show_running()

    @staticmethod
    def _say(label: QLabel, text: str) -> None:
        """A line that takes no room while it has nothing to say."""
        label.setText(text)
        label.setVisible(bool(text))

    def set_source(self, text: str) -> None:
        """What is being imported (the app and the file, the turns)."""
        self._say(self.source, text)

    def show_running(self) -> None:
        for button in (self.pause_button, self.background_button, self.stop_button):
            button.setVisible(True)
            button.setEnabled(True)
        self.undo_button.setVisible(False)
        self.redo_button.setVisible(False)
        self.by_conversation_button.setVisible(False)
        self.close_button.setVisible(False)
        self.bar.setVisible(True)
        for label in (self.current, self.note, self.failed, self.undo_id):
            self._say(label, "")
        self.retry_button.setVisible(False)
        self.shown_result = None

    def show_progress(self, p: ImportProgress) -> None:
        self.bar.setRange(0, max(p.turns, 1))
        self.bar.setValue(p.turns_done)
        self.line.setText(progress_line(p))
        if p.writing and p.title and p.day is not None:
            self._say(self.current, QCoreApplication.translate("HistoryProgress", "正在读：「{0}」· {1}").format(
                p.title, p.day.isoformat()))
        elif p.held:
            self._say(self.current, "")
        self._say(self.note, held_text(p.held))
        self._paused = "person" in p.held
        self.pause_button.setText(QCoreApplication.translate("HistoryProgress", "继续") if self._paused else QCoreApplication.translate("HistoryProgress", "暂停"))
        self._say(self.failed, QCoreApplication.translate("HistoryProgress", "{0} 批没能写入").format(p.failed_batches)
                  if p.failed_batches else "")
        self.retry_button.setVisible(bool(p.failed_batches) and p.status != "done")

    def show_done(self, result: ImportResult, *, review: bool) -> None:
        """What the import did, or why it failed (the writer's reason, in the UI's language now)."""
        if result.failed:  # not one batch could be written: a failure, with the writer's reason
            self.title.setText(QCoreApplication.translate("HistoryProgress", "导入失败"))
            self.bar.setRange(0, 1)
            self.bar.setValue(0)
            self.line.setText(QCoreApplication.translate("HistoryProgress", "{0} 批都没能写入，什么也没有写入：{1}").format(
                result.failed_batches, result.error_in(ui_language()) or QCoreApplication.translate("HistoryProgress", "原因不明")))
            for label in (self.current, self.note, self.failed, self.undo_id):
                self._say(label, "")
            self.retry_button.setVisible(False)
            self._ended(undo=False, result=result)
            return
        self.title.setText(QCoreApplication.translate("HistoryProgress", "导入完成"))
        self.bar.setRange(0, 1)
        self.bar.setValue(1)
        if review:
            text = QCoreApplication.translate("HistoryProgress", "写入 {0} 轮，{1} 条提议已进入审核箱").format(result.turns_written, result.proposals)
        else:
            text = QCoreApplication.translate("HistoryProgress", "写入 {0} 轮：新记忆 {1} 条，更新 {2} 条，删除 {3} 条").format(
                result.turns_written, result.memories_created, result.memories_updated, result.memories_deleted)
        if result.proposals and not review:
            text += QCoreApplication.translate(
                "HistoryProgress", "；{0} 项对你已有记忆的改动在审核箱里等你确认").format(result.proposals)
        if result.failed_turns:
            text += QCoreApplication.translate("HistoryProgress", "；{0} 轮没能写入").format(result.failed_turns)
        self.line.setText(text)
        self._say(self.current, "")
        self._say(self.note, "")
        self._say(self.failed, "")
        self.retry_button.setVisible(False)
        self._say(self.undo_id, QCoreApplication.translate("HistoryProgress", "撤销编号：{0}（命令行：sonetto memory undo {0}）").format(result.undo_id))
        self._ended(undo=True, conversations=True, result=result)

    def show_undone(self, redo_id: str, kept: Sequence[Touched] = (), *, withdrawn: int = 0) -> None:
        """Undone; ``kept``: the cards the person had changed since, left as they are (named here);
        ``withdrawn``: its changes that waited in the review inbox, withdrawn with it; ``redo_id``: the
        undo's own id (empty: nothing but those was undone)."""
        self.title.setText(QCoreApplication.translate("HistoryProgress", "已撤销这次导入"))
        self.bar.setVisible(False)
        if kept:
            self.line.setText(QCoreApplication.translate(
                "HistoryProgress", "其余导入的记忆已放回原样；你之后改过的 {0} 张卡片原样保留；同一个文件以后可以重新导入").format(
                len(kept)))
        else:
            self.line.setText(QCoreApplication.translate("HistoryProgress", "导入的记忆已放回原样；同一个文件以后可以重新导入"))
        if withdrawn:
            self.line.setText(self.line.text() + QCoreApplication.translate(
                "HistoryProgress", "；它在审核箱里等你确认的 {0} 项改动已一并撤回").format(withdrawn))
        lines = kept_lines(kept, ui_language())
        more = len(lines) - KEPT_SHOWN
        shown = lines[:KEPT_SHOWN] + ([QCoreApplication.translate("HistoryProgress", "……还有 {0} 张").format(more)]
                                      if more > 0 else [])
        self._say(self.note, "\n".join(shown))
        self._say(self.undo_id, QCoreApplication.translate("HistoryProgress", "改变主意了？点“重做这次导入”，或在命令行：sonetto memory undo {0}").format(redo_id)
                  if redo_id else "")
        self._ended(undo=False)
        self.redo_button.setVisible(bool(redo_id))
        self.redo_button.setEnabled(bool(redo_id))

    def show_redone(self, kept: Sequence[Touched] = ()) -> None:
        """The undo was taken back: the import's memories are as it left them (``kept``: cards the
        person changed after the undo, left as they are)."""
        self.title.setText(QCoreApplication.translate("HistoryProgress", "已重做这次导入"))
        self.bar.setVisible(False)
        text = QCoreApplication.translate("HistoryProgress", "导入的记忆已恢复成导入后的样子")
        if kept:
            text += QCoreApplication.translate("HistoryProgress", "；你之后改过的 {0} 张卡片原样保留").format(counted(len(kept)))
        self.line.setText(text)
        for label in (self.current, self.note, self.failed, self.undo_id):
            self._say(label, "")
        self._ended(undo=True, conversations=True)

    def show_saved(self, created: int, proposals: int, skipped: int, undo_id: str | None) -> None:
        """ChatGPT's saved memories were imported (no batches, no time)."""
        self.title.setText(QCoreApplication.translate("HistoryProgress", "导入完成"))
        self.bar.setRange(0, 1)
        self.bar.setValue(1)
        text = (QCoreApplication.translate("HistoryProgress", "{0} 条提议已进入审核箱").format(proposals) if proposals
                else QCoreApplication.translate("HistoryProgress", "新记忆 {0} 条").format(created))
        if skipped:
            text += QCoreApplication.translate("HistoryProgress", "；跳过 {0} 条").format(counted(skipped))
        self.line.setText(text)
        self._say(self.undo_id, QCoreApplication.translate("HistoryProgress", "撤销编号：{0}（命令行：sonetto memory undo {0}）").format(undo_id) if undo_id else "")
        self._ended(undo=bool(undo_id) and not proposals)

    def show_stopped(self) -> None:
        self.title.setText(QCoreApplication.translate("HistoryProgress", "导入已停止"))
        self._say(self.current, "")  # (no conversation is being read any more)
        self._say(self.note, QCoreApplication.translate("HistoryProgress", "已导入的部分保留着；再次导入同一个文件会接着导入剩下的"))
        self._ended(undo=True, conversations=True)

    def _ended(self, *, undo: bool, conversations: bool = False, result: ImportResult | None = None) -> None:
        """``undo``: the import can be undone; ``conversations``: one of its conversations too;
        ``result``: the import's end being shown (``shown_result``)."""
        self.shown_result = result
        for button in (self.pause_button, self.background_button, self.stop_button):
            button.setVisible(False)
        self.undo_button.setVisible(undo)
        self.undo_button.setEnabled(undo)
        self.by_conversation_button.setVisible(undo and conversations)
        self.redo_button.setVisible(False)
        self.close_button.setVisible(True)
        self.close_button.setDefault(True)
