"""HistoryImportDialog: File → 导入聊天记录… — bring chats from other apps into the memories (issue 31).

Three steps on one stack:

1. **Source**: pick an export (a zip, its folder, or a file), or paste ChatGPT's saved memories;
   how to get each app's export is said here. The file is read in a worker (取消 leaves it); a file
   that cannot be read says why in place, and nothing is written. An unfinished import of this
   store is offered (继续 / 撤销).
2. **Preview**: the date range (preset to the file's first and last day), the conversations with a
   check box each (``history_preview.ConversationList``), a filter, 全选 / 全不选, and the summary
   line — conversations, turns, characters, estimated tokens and cost — recomputed in a worker a
   moment after each change. Saved memories get their own list (theme and date per entry).
3. **Progress**, then the result with 撤销这次导入 (``history_progress.ImportProgressPanel``). When the
   person changed some of the import's cards since, the undo asks first (``undo_rest.UndoRestDialog``:
   those cards by their text and why, kept as they are, and what undoing the rest does).

The dialog shows and asks; ``HistoryImportActions`` does the work and keeps the import going when
the dialog closes (后台运行).
"""

from __future__ import annotations

import logging
import threading
from datetime import date
from pathlib import Path
from typing import Any

import shiboken6
from PySide6.QtCore import QDate, Qt, QTimer
from PySide6.QtWidgets import (
    QComboBox,
    QDateEdit,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from ..widgets.tasks import task_scope
from ..widgets.elided_label import ElidedLabel
from ..widgets.wrapped_label import WrappedLabel
from sonetto_desktop.aio import start_thread, trim_heap
from sonetto_desktop.history_import.formats import all_formats
from sonetto_desktop.history_import.model import History, HistoryFormatError, Stopped
from sonetto_desktop.history_import.plan import MAX_MESSAGE_CHARS, Plan
from sonetto_desktop.history_import.saved_memories import MAX_TEXT_CHARS as MAX_PASTE_CHARS
from sonetto_desktop.memory.errors import MemoryError_
from sonetto_desktop.memory.undo import NothingToUndo, Touched, UndoConflict, UndoPreview
from sonetto_desktop.ops import Failed
from sonetto_desktop.presentation.errors import error_detail
from sonetto_desktop.presentation.undo_words import effects_text, kept_lines
from sonetto_desktop.presentation.i18n import counted, filled

from ..i18n import ui_language
from ..memory_service import call
from ..widgets.dialogs import Question, execute_dialog
from .history_paste import PasteBox
from .history_preview import ConversationList, SavedMemoryList, summary_text
from .history_progress import KEPT_SHOWN, ImportProgressPanel
from .undo_rest import UndoRestDialog

log = logging.getLogger(__name__)

SUMMARY_DELAY_MS = 250  # the summary is recomputed this long after the last change
BAD_LISTED = 5  # conversations that could not be read, named in the preview
#: Formats that are not an app a person exports from (the 自动识别 line names the apps only).
_NOT_APPS = frozenset({"jsonl", "sonetto", "chatgpt-memories"})
JSONL_EXAMPLE = ('{"conversation": "trip-2023", "title": "京都旅行", "role": "user", '
                 '"content": "下周三我要考日语 N3。", "time": "2023-03-14T21:07:00+08:00"}')


def _say(pair: tuple[str, str]) -> str:
    return pair[1] if ui_language() == "en" else pair[0]


def _qdate(day: date | None) -> QDate:
    return QDate(day.year, day.month, day.day) if day is not None else QDate.currentDate()


def _pydate(value: QDate) -> date:
    return date(value.year(), value.month(), value.day())


def _hbox(*items: Any) -> QHBoxLayout:
    """A row of ``items``: a widget, ``(widget, stretch)``, or None for a stretch."""
    row = QHBoxLayout()
    for item in items:
        if item is None:
            row.addStretch(1)
        elif isinstance(item, tuple):
            row.addWidget(*item)
        else:
            row.addWidget(item)
    return row

class HistoryImportDialog(QDialog):
    def __init__(self, actions: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("HistoryImportDialog")
        self.setWindowTitle(self.tr("导入聊天记录"))
        self.resize(760, 560)
        self.actions = actions
        self._tasks = task_scope(self, "history-import-dialog")
        self.history: History | None = None
        self.plan: Plan | None = None
        self.file_name = ""
        self.import_id: str | None = None
        self._reading: Any = None
        self._planning: Any = None
        self._unticked: set[str] = set()
        self._starting = False  # 开始导入 was clicked and the import has not begun yet
        self.stack = QStackedWidget(self)
        self.source_page = self._build_source()
        self.preview_page = self._build_preview()
        self.saved_page = self._build_saved()
        self.progress = ImportProgressPanel(self)
        for page in (self.source_page, self.preview_page, self.saved_page, self.progress):
            self.stack.addWidget(page)
        layout = QVBoxLayout(self)
        layout.addWidget(self.stack)
        self._summary_timer = QTimer(self)
        self._summary_timer.setSingleShot(True)
        self._summary_timer.setInterval(SUMMARY_DELAY_MS)
        self._summary_timer.timeout.connect(lambda: self._spawn(self.refresh_plan()))
        self._connect_progress()
        self._work_stop = threading.Event()  # set: the worker reading or planning for this dialog stops
        self.finished.connect(lambda _code: self._stop_work())
        self.finished.connect(lambda _code: self._tasks.cancel_all())
        self.finished.connect(self._let_go)
        self.source_state: Any = None  # the import the progress page is about (``_show_source``)
        if actions.running is not None:
            self.import_id = actions.running.id
            self._show_source(actions.running)
            self.stack.setCurrentWidget(self.progress)
            if actions.last_progress is not None:
                self.progress.show_progress(actions.last_progress)
        else:
            self.loading = self._spawn(self.load_last())

    def _let_go(self, _code: int = 0) -> None:
        """The window is closed: the read export and its plan are let go (an import that started keeps
        its own copy), and the freed heap goes back to the system in a worker (issue 37)."""
        self.history = None
        self.plan = None
        start_thread(trim_heap, name="sonetto-trim-heap")

    def _spawn(self, coro: Any) -> Any:
        return self._tasks.spawn(coro, name="history-import-dialog")

    def _source_text(self, state: Any) -> str:
        """``ChatGPT · export.zip · 640 轮``: what an import reads."""
        return self.tr("{0} · {1} · {2} 轮").format(state.label, state.file_name, state.turns)

    def _show_source(self, state: Any) -> None:
        """The progress page is about the import ``state`` (kept: the page's end is shown again in a
        window opened after a language switch, ``show_finished``)."""
        self.source_state = state
        self.progress.set_source(self._source_text(state))

    # ── 1. source ─────────────────────────────────────────────────────

    def _build_source(self) -> QWidget:
        page = QWidget(self)
        intro = QLabel(self.tr("把你在其他应用里的聊天记录交给 Sonetto：它按当时的日期一段段读完，记下关于你的事。"
                               "导入前可以预览和挑选，导入后可以整体撤销。"), page)
        intro.setWordWrap(True)
        self._build_pickers(page)
        howto = self.howto = self._howto(page)
        self.jsonl_help = QPushButton(self.tr("JSON Lines 格式…"), page)
        self.jsonl_help.clicked.connect(self._explain_jsonl)
        paste_label = self._build_paste(page)
        self._build_reading_rows(page)
        close = QPushButton(self.tr("关闭"), page)
        layout = QVBoxLayout(page)
        layout.addWidget(intro)
        layout.addLayout(_hbox(self.pick_file, self.pick_folder, self.format_box, None))
        layout.addWidget(howto)
        layout.addLayout(_hbox(None, self.jsonl_help))
        layout.addSpacing(8)
        layout.addWidget(paste_label)
        layout.addWidget(self.paste_box)
        layout.addLayout(_hbox(None, self.read_paste))
        layout.addLayout(_hbox((self.busy, 1), self.cancel_read))
        layout.addWidget(self.source_error)
        layout.addLayout(_hbox((self.unfinished, 1), self.resume_button, self.undo_unfinished))
        layout.addStretch(1)
        layout.addLayout(_hbox(None, close))
        for button in (self.pick_file, self.pick_folder, self.jsonl_help, self.read_paste, self.cancel_read, self.resume_button,
                       self.undo_unfinished, close):
            button.setAutoDefault(False)
        self.pick_file.clicked.connect(lambda: self._spawn(self._choose(folder=False)))
        self.pick_folder.clicked.connect(lambda: self._spawn(self._choose(folder=True)))
        self.read_paste.clicked.connect(lambda: self._spawn(self.open_pasted(self.paste_box.toPlainText())))
        self.cancel_read.clicked.connect(self._cancel_reading)
        self.resume_button.clicked.connect(lambda: self._spawn(self.resume_unfinished()))
        self.undo_unfinished.clicked.connect(lambda: self._spawn(self.ask_then_undo()))
        close.clicked.connect(self.reject)
        self._set_busy(False)
        self._show_last(None)
        return page

    def _build_pickers(self, page: QWidget) -> None:
        """A file, a folder, and the format (found by itself unless chosen)."""
        self.pick_file = QPushButton(self.tr("选择文件…"), page)
        self.pick_folder = QPushButton(self.tr("选择文件夹…"), page)
        self.format_box = QComboBox(page)
        self.format_box.setAccessibleName(self.tr("格式"))
        self.format_box.addItem(self.tr("自动识别格式"), None)
        for fmt in all_formats():  # the registered formats (history_import/formats.py)
            self.format_box.addItem(_say(fmt.choice), fmt.name)

    def _howto(self, page: QWidget) -> QLabel:
        """How to export from the app chosen in the format box (all of them at once took ten lines: the
        window could not show them on a small screen); with 自动识别, which apps it reads."""
        howto = self.howto = WrappedLabel("", page)
        howto.setObjectName("HintLabel")
        howto.setTextFormat(Qt.TextFormat.RichText)
        self._howtos = {
            "chatgpt": self.tr("<b>ChatGPT</b>：设置 → 数据控制 → 导出数据，邮件里的链接下载 zip，选它即可。"),
            "claude": self.tr("<b>Claude</b>：设置 → 隐私 → 导出数据，邮件里的链接下载 zip，选它即可（格式没有公开说明，尽力而为）。"),
            "deepseek": self.tr("<b>DeepSeek</b>：设置 → 数据管理 → 导出所有历史对话；或用油猴脚本从网页保存的对话 JSON"
                                "（格式没有公开说明，按公开的解析器读取，尽力而为）。"),
            "cherry": self.tr("<b>Cherry Studio</b>：设置 → 数据设置 → 备份，选备份的 zip（含 data.json 的备份）。"),
            "openwebui": self.tr("<b>Open WebUI</b>：设置 → 对话 → 导出对话，选下载的 chat-export-….json（尽力而为）。"),
            "lobechat": self.tr("<b>LobeChat</b>：设置 → 数据存储 → 导出（全部数据），选导出的 .json（尽力而为）。"),
            "chatbox": self.tr("<b>Chatbox</b>：设置 → 常规设置 → 数据备份 → 导出（勾选聊天记录），"
                               "选 chatbox-exported-data-….json（尽力而为）。"),
            "lmstudio": self.tr("<b>LM Studio</b>：对话存在用户目录的 .lmstudio/conversations 文件夹里，选这个文件夹或其中的"
                                " .conversation.json（尽力而为；文件不记录每条消息的时间，按对话开始的时间导入）。"),
            "jsonl": self.tr("<b>Kimi 等其他应用</b>：没有可读的导出，请整理成 JSON Lines（每行一条消息，见下面的“JSON Lines 格式”）。"),
            "sonetto": self.tr("<b>Sonetto</b>：另一台电脑上对话列表里的“导出为 Markdown…”。"),
            "chatgpt-memories": self.tr("<b>ChatGPT 已保存的记忆</b>：复制后粘贴到下面的框里。"),
        }
        self.format_box.currentIndexChanged.connect(self._show_howto)
        self._show_howto()
        return howto

    def _show_howto(self) -> None:
        chosen = self.format_box.currentData()
        text = self._howtos.get(chosen) if chosen else None
        if text is None:  # 自动识别 (or a format registered elsewhere): what it reads
            apps = [fmt.label for fmt in all_formats() if fmt.name in self._howtos and fmt.name not in _NOT_APPS]
            text = filled(self.tr("能读 %1 导出的聊天记录，还有 Sonetto 导出的对话和 JSON Lines。"
                                  "怎么导出：在右边的格式里选你用的应用。"), (", " if ui_language() == "en" else "、").join(apps))
        self.howto.setText(text)

    def _build_paste(self, page: QWidget) -> QLabel:
        """The box for ChatGPT's saved memories, pasted; returns its label."""
        paste_label = QLabel(self.tr("或者粘贴 ChatGPT 的“已保存的记忆”（设置 → 个性化 → 管理记忆，全选复制），每行一条："), page)
        paste_label.setWordWrap(True)
        self.paste_box = PasteBox(MAX_PASTE_CHARS, page)
        self.paste_box.setObjectName("HistoryPasteBox")
        self.paste_box.setAccessibleName(self.tr("粘贴的记忆"))
        self.paste_box.setMaximumHeight(110)
        self.read_paste = QPushButton(self.tr("读取粘贴的记忆"), page)
        self.read_paste.setEnabled(False)
        self.paste_box.textChanged.connect(self._paste_changed)
        self.paste_box.too_long.connect(self._paste_too_long)
        return paste_label

    def _build_reading_rows(self, page: QWidget) -> None:
        """While reading (busy, cancel), what went wrong, and an import left unfinished (resume, undo)."""
        self.busy = QProgressBar(page)
        self.busy.setRange(0, 0)
        self.busy.setAccessibleName(self.tr("正在读取"))
        self.cancel_read = QPushButton(self.tr("取消读取"), page)
        self.source_error = QLabel("", page)
        self.source_error.setObjectName("ImportError")
        self.source_error.setWordWrap(True)
        self.source_error.setTextFormat(Qt.TextFormat.PlainText)
        self.unfinished = QLabel("", page)
        self.unfinished.setWordWrap(True)
        self.unfinished.setTextFormat(Qt.TextFormat.PlainText)
        self.resume_button = QPushButton(self.tr("继续这次导入"), page)
        self.undo_unfinished = QPushButton(self.tr("撤销已导入的部分"), page)

    def _explain_jsonl(self) -> QMessageBox:
        box = QMessageBox(QMessageBox.Icon.Information, self.tr("JSON Lines 格式"), self.tr(
            "每行一个 JSON 对象，即一条消息：\n\n{0}\n\n"
            "conversation：属于哪个对话；role：user 或 assistant（system、tool 会被跳过）；"
            "content：消息文字；time：ISO-8601 时间，带时区（不带则按本机时区）。\n"
            "可选：title（对话标题）、id（消息编号，用来认出重复导入）。行的顺序不限，空行可以有。").format(JSONL_EXAMPLE),
            QMessageBox.StandardButton.Ok, self)
        box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()
        self.jsonl_box = box
        return box

    def _set_busy(self, busy: bool) -> None:
        if busy:  # how far it got is not known until the reader opens a file
            self.busy.setRange(0, 0)
        self.busy.setVisible(busy)
        self.cancel_read.setVisible(busy)
        for button in (self.pick_file, self.pick_folder):
            button.setEnabled(not busy)
        self.read_paste.setEnabled(not busy and self.paste_box.has_text())

    def _paste_changed(self) -> None:
        """Each keystroke in the paste box: a constant-time look at the document, nothing more."""
        self.read_paste.setEnabled(not self.busy.isVisibleTo(self) and self.paste_box.has_text())

    def _paste_too_long(self, characters: int) -> None:
        self.source_error.setText(self.tr(
            "没有粘贴：内容有 {0} 字，ChatGPT 的已保存记忆一般只有几千字（最多 {1} 字）。请只复制“管理记忆”里的列表。").format(
            counted(characters), f"{MAX_PASTE_CHARS:,}"))

    def _show_last(self, state: Any) -> None:
        """The import still to finish (继续 / 撤销已导入的部分), or the last one done (撤销这次导入)."""
        self._last_state = state
        visible = state is not None
        for widget in (self.unfinished, self.resume_button, self.undo_unfinished):
            widget.setVisible(visible)
        if not visible:
            return
        if self.stack.currentWidget() is not self.progress:  # (else the page shows an import of its own)
            self.import_id = state.id
        if state.unfinished:
            self.unfinished.setText(self.tr("有一次没有完成的导入：{0} · {1}，已写入 {2}/{3} 轮").format(
                state.label, state.file_name, state.turns_written, state.turns))
            self.resume_button.setEnabled(self.actions.imports.configured)
            self.undo_unfinished.setText(self.tr("撤销已导入的部分"))
        else:
            self.unfinished.setText(self.tr("上次导入：{0} · {1}，写入 {2} 轮，新记忆 {3} 条，更新 {4} 条").format(
                state.label, state.file_name, state.turns_written, state.memories_created, state.memories_updated))
            self.resume_button.setVisible(False)
            self.undo_unfinished.setText(self.tr("撤销这次导入"))

    async def load_last(self) -> None:
        state = await self.actions.imports.latest()
        if shiboken6.isValid(self):
            self._show_last(state)

    async def _choose(self, *, folder: bool) -> None:
        dialog = QFileDialog(self, self.tr("选择聊天记录"), str(Path.home()))
        if folder:
            dialog.setFileMode(QFileDialog.FileMode.Directory)
            dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
        else:
            dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
            dialog.setNameFilters([self.tr("聊天记录 (*.zip *.json *.jsonl *.md *.txt)"), self.tr("所有文件 (*)")])
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        chosen: list[str] = []
        dialog.fileSelected.connect(chosen.append)
        if await execute_dialog(dialog) != QFileDialog.DialogCode.Accepted or not chosen or not shiboken6.isValid(self):
            return
        await self.open_path(Path(chosen[0]))

    def _cancel_reading(self) -> None:
        self._stop_work()
        if self._reading is not None:
            self._reading.cancel()

    def _stop_work(self) -> threading.Event:
        """Stop the read or first plan still running in a worker (its progress callback raises
        ``Stopped`` there at its next call); the token of the next one."""
        self._work_stop.set()
        self._work_stop = threading.Event()
        return self._work_stop

    async def open_path(self, path: Path, fmt: str | None = None) -> bool:
        """Read ``path`` (in a worker) and show the preview; False (the reason shown) when it cannot be read."""
        fmt = fmt if fmt is not None else self.format_box.currentData()
        progress = self._worker_progress(self._stop_work(), self._say_reading,
                                         lambda name, done, size: (name, done * 1000 // max(size, 1)))
        return await self._read(lambda: self.actions.imports.read(path, fmt, progress), path.name)

    async def open_pasted(self, text: str) -> bool:
        self._stop_work()  # (a file's read or first plan still running is nobody's now)
        return await self._read(lambda: self.actions.imports.read_pasted(text), self.tr("粘贴的记忆"))

    async def _read(self, reader: Any, name: str) -> bool:
        import asyncio

        self.source_error.setText("")
        self._set_busy(True)
        self._reading = self._tasks.spawn(reader(), name="read-history", awaited=True)
        try:
            history = await self._reading
        except (asyncio.CancelledError, Stopped):
            if shiboken6.isValid(self):
                self._set_busy(False)
            if asyncio.current_task() is not None and asyncio.current_task().cancelling():
                raise
            return False
        except HistoryFormatError as exc:
            self._read_failed(exc.say(ui_language()))
            return False
        except OSError as exc:  # (the file is named already: its cause only, in the person's language)
            self._read_failed(self.tr("读不了 {0}：{1}").format(name, error_detail(OSError(exc.errno, exc.strerror))))
            return False
        except Exception:  # whatever went wrong is said in place; the dialog stays usable
            log.exception("history import: reading %s failed", name)  # (its own words, often English, are here)
            self._read_failed(self.tr("读不了 {0}：{1}").format(name, self.tr("出了意外的问题，详情已写入日志。")))
            return False
        finally:
            self._reading = None
        if not shiboken6.isValid(self):
            return False
        self._set_busy(False)
        self.history, self.file_name = history, name
        if history.source == "chatgpt-memories" or (not history.conversations and history.saved_memories):
            self._show_saved(history)
            return True
        try:
            await self._show_preview(history)
        except Exception as exc:  # e.g. the ledger cannot be read: back to the source, said why
            log.exception("history import: planning %s failed", name)
            if shiboken6.isValid(self):
                self.stack.setCurrentWidget(self.source_page)
                self._read_failed(self.tr("读不了 {0}：{1}").format(name, error_detail(exc)))
            return False
        return True

    def chosen(self) -> tuple[QDate, QDate, set[str], str]:
        """The preview's choices (the dates, the unticked conversations, the filter): ``show_read``'s."""
        unticked = self.conversations.unticked() if self.plan is not None else set(self._unticked)
        return self.since.date(), self.until.date(), unticked, self.filter_box.text()

    def show_read(self, history: History, name: str, chosen: tuple[QDate, QDate, set[str], str] | None = None) -> Any:
        """The preview of ``history`` (read already, from ``name``) made anew here, with the choices
        ``chosen`` there (``chosen()``): the language switch's new window shows what its old one had."""
        self.history, self.file_name = history, name
        return self._spawn(self._show_read(history, chosen))

    async def _show_read(self, history: History, chosen: tuple[QDate, QDate, set[str], str] | None) -> None:
        await self._show_preview(history)
        if chosen is None or not shiboken6.isValid(self) or self.plan is None:
            return
        since, until, self._unticked, text = chosen
        for edit, day in ((self.since, since), (self.until, until)):
            edit.blockSignals(True)
            edit.setDate(day)
            edit.blockSignals(False)
        self.filter_box.setText(text)
        await self.refresh_plan()

    def _worker_progress(self, stop: threading.Event, say: Any, step: Any) -> Any:
        """A progress callback for a reading or planning worker: ``Stopped`` there once ``stop`` is
        set; else ``say(*args)`` on the Qt thread (the worker cannot touch widgets) each time
        ``step(*args)`` changes (a tenth of a percent of a file, a percent of a plan)."""
        import asyncio

        loop = asyncio.get_running_loop()
        said: list[Any] = [None]

        def told(*args: Any) -> None:
            if stop.is_set():
                raise Stopped
            key = step(*args)
            if key != said[0]:
                said[0] = key
                loop.call_soon_threadsafe(say, *args)

        return told

    def _say_reading(self, name: str, done: int, size: int) -> None:
        if not shiboken6.isValid(self) or not self.busy.isVisibleTo(self):
            return  # gone, or the read ended first
        self.busy.setRange(0, 1000)
        self.busy.setValue(min(1000, done * 1000 // max(size, 1)))
        self.busy.setFormat(self.tr("正在读取 {0}：%p%").format(name.rsplit("/", 1)[-1]))

    def _read_failed(self, text: str) -> None:
        if shiboken6.isValid(self):
            self._set_busy(False)
            self.source_error.setText(text)

    def _page_buttons(self, page: QWidget, primary: QPushButton) -> QHBoxLayout:
        """返回 (to the source) on the left, ``primary`` and 取消 on the right."""
        back = QPushButton(self.tr("返回"), page)
        cancel = QPushButton(self.tr("取消"), page)
        primary.setObjectName("PrimaryButton")
        row = QHBoxLayout()
        row.addWidget(back)
        row.addStretch(1)
        row.addWidget(primary)
        row.addWidget(cancel)
        for button in (back, primary, cancel):
            button.setAutoDefault(False)
        back.clicked.connect(lambda: self.stack.setCurrentWidget(self.source_page))
        cancel.clicked.connect(self.reject)
        return row

    # ── 2. preview ────────────────────────────────────────────────────

    def _build_preview(self) -> QWidget:
        page = QWidget(self)
        # an export's name may be long (ChatGPT's: two hashes): cut with "…", whole in the tooltip, so the
        # window never grows past the screen and its buttons with it
        self.preview_title = ElidedLabel(page, min_text="ChatGPT · ")
        self.preview_title.setObjectName("HistoryPreviewTitle")
        self.preview_title.setTextFormat(Qt.TextFormat.PlainText)
        self.notes = QLabel("", page)
        self.notes.setObjectName("ImportNote")
        self.notes.setWordWrap(True)
        self.notes.setTextFormat(Qt.TextFormat.PlainText)
        # the memory snapshot a ChatGPT export holds beside its chats: imported on its own page (said by a
        # label that wraps, the button short: a sentence on a button neither wraps nor gives way)
        self.saved_offer_note = WrappedLabel("", page)
        self.saved_offer_note.setTextFormat(Qt.TextFormat.PlainText)
        self.saved_offer = QPushButton(self.tr("导入这些记忆…"), page)
        self.saved_offer.setAutoDefault(False)
        self.saved_offer.clicked.connect(lambda: self.history is not None and self._show_saved(self.history))
        self.since = QDateEdit(page)
        self.until = QDateEdit(page)
        for edit, name in ((self.since, self.tr("从")), (self.until, self.tr("到"))):
            edit.setCalendarPopup(True)
            edit.setDisplayFormat("yyyy-MM-dd")
            edit.setAccessibleName(name)
            edit.dateChanged.connect(lambda _d: self._plan_later())
        self.filter_box = QLineEdit(page)
        self.filter_box.setPlaceholderText(self.tr("按标题筛选"))
        self.filter_box.setClearButtonEnabled(True)
        self.filter_box.setAccessibleName(self.tr("按标题筛选"))
        self.all_button = QPushButton(self.tr("全选"), page)
        self.none_button = QPushButton(self.tr("全不选"), page)
        dates = QHBoxLayout()
        dates.addWidget(QLabel(self.tr("日期从"), page))
        dates.addWidget(self.since)
        dates.addWidget(QLabel(self.tr("到"), page))
        dates.addWidget(self.until)
        dates.addSpacing(16)
        dates.addWidget(self.filter_box, 1)
        dates.addWidget(self.all_button)
        dates.addWidget(self.none_button)
        self.conversations = ConversationList(page)
        self.summary = QLabel("", page)
        self.summary.setObjectName("ImportSummary")
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        self.summary.setWordWrap(True)
        self.skipped = QLabel("", page)
        self.skipped.setObjectName("HintLabel")
        self.skipped.setWordWrap(True)
        self.skipped.setTextFormat(Qt.TextFormat.PlainText)
        self.mode_note = QLabel("", page)
        self.mode_note.setObjectName("ImportNote")
        self.mode_note.setWordWrap(True)
        self.mode_note.setTextFormat(Qt.TextFormat.PlainText)
        self.start_button = QPushButton(self.tr("开始导入"), page)
        buttons = self._page_buttons(page, self.start_button)
        layout = QVBoxLayout(page)
        layout.addWidget(self.preview_title)
        layout.addWidget(self.notes)
        layout.addLayout(_hbox((self.saved_offer_note, 1), self.saved_offer))
        layout.addLayout(dates)
        layout.addWidget(self.conversations, 1)
        layout.addWidget(self.summary)
        layout.addWidget(self.skipped)
        layout.addWidget(self.mode_note)
        layout.addLayout(buttons)
        for button in (self.all_button, self.none_button):
            button.setAutoDefault(False)
        self.start_button.clicked.connect(self._start_clicked)
        self.filter_box.textChanged.connect(self.conversations.filter)
        self.all_button.clicked.connect(lambda: self.conversations.set_all(True))
        self.none_button.clicked.connect(lambda: self.conversations.set_all(False))
        self.conversations.selection_changed.connect(self._plan_later)
        self.conversations.dont_import_requested.connect(lambda title: self._spawn(self._dont_import(title)))
        self.conversations.allow_requested.connect(lambda text: self._spawn(self._allow(text)))
        return page

    async def _show_preview(self, history: History) -> None:
        self.preview_title.setText(f"{history.label} · {self.file_name}")
        notes = [_say(note) for note in history.notes] + self._bad_lines(history)
        self.notes.setText("\n".join(notes))
        self.notes.setVisible(bool(notes))
        self.saved_offer_note.setText(self.tr("另有 {0} 条 ChatGPT 已保存的记忆（不在对话里）。").format(counted(len(history.saved_memories))))
        for widget in (self.saved_offer_note, self.saved_offer):
            widget.setVisible(bool(history.saved_memories))
        self._unticked = set()
        self.plan = None
        self.conversations.clear()
        self.summary.setText(self.tr("正在计算…"))
        self.start_button.setEnabled(False)  # (until this file's plan says there is something to import)
        self._set_mode_note()
        # The file's dates are known as soon as it is read; the choices wait for the first plan (a
        # 2 GB export's takes minutes: its progress is said where the summary goes).
        first_day, last_day = history.conversations.days
        for edit in (self.since, self.until):
            edit.blockSignals(True)
            edit.setDateRange(_qdate(first_day), _qdate(last_day))
        self.since.setDate(_qdate(first_day))
        self.until.setDate(_qdate(last_day))
        for edit in (self.since, self.until):
            edit.blockSignals(False)
        self._set_choosing(False)
        self.stack.setCurrentWidget(self.preview_page)
        stop = self._stop_work()
        try:
            progress = self._worker_progress(stop, self._say_planning, lambda done, total: done * 100 // max(total, 1))
            first = await self.actions.imports.plan(history, progress=progress)
        except Stopped:  # another file was opened, or the dialog closed: that plan is nobody's now
            return
        finally:
            if shiboken6.isValid(self) and not stop.is_set():  # (a newer file's plan decides for itself)
                self._set_choosing(True)
        # A plan past its last progress check comes back even when it was stopped meanwhile (another
        # file opened, the dialog closed): it is nobody's plan then, and never shown over the new file.
        if stop.is_set() or not shiboken6.isValid(self):
            return
        self._show_plan(first)

    def _set_choosing(self, enabled: bool) -> None:
        """The dates, the filter and 全选 / 全不选: off while the first plan is made."""
        for widget in (self.since, self.until, self.filter_box, self.all_button, self.none_button):
            widget.setEnabled(enabled)

    def _say_planning(self, done: int, total: int) -> None:
        if not shiboken6.isValid(self) or self.plan is not None:
            return  # gone, or the plan came first
        numbers = (counted(done), counted(total)) if ui_language() == "en" else (str(done), str(total))
        self.summary.setText(self.tr("正在计算…（已读 {0} / {1} 个对话）").format(*numbers))

    def _bad_lines(self, history: History) -> list[str]:
        """The conversations left out because they could not be read: which, and why (the first few)."""
        if not history.bad:
            return []
        language = ui_language()
        lines = [self.tr("跳过 {0} 个读不了的对话：").format(counted(len(history.bad)))]
        lines += [f"· {bad.say(language)}" for bad in history.bad[:BAD_LISTED]]
        if len(history.bad) > BAD_LISTED:
            lines.append(self.tr("…另有 {0} 个").format(counted(len(history.bad) - BAD_LISTED)))
        return lines

    def _set_mode_note(self) -> None:
        imports = self.actions.imports
        notes = []
        if not imports.configured:
            notes.append(self.tr("还没有配置模型：请先在设置里填写模型，导入要由模型来读。"))
        services = imports.services
        if services.review is not None and services.review.enabled:
            notes.append(self.tr("审核模式已开启：导入的结果会进入审核箱，由你确认后才写入。"))
        self.mode_note.setText("\n".join(notes))
        self.mode_note.setVisible(bool(notes))

    def _choices(self) -> dict[str, Any]:
        since, until = _pydate(self.since.date()), _pydate(self.until.date())
        selected = None
        if self._unticked and self.plan is not None:
            selected = [row.id for row in self.plan.rows if row.id not in self._unticked]
        return {"since": since, "until": until, "selected": selected}

    def _plan_later(self) -> None:
        if self.plan is not None:
            self._unticked = self.conversations.unticked()  # (every row's tick, filtered out or not)
            if not any(r.state in ("new", "partly", "unselected") and r.exchanges > r.already
                       and r.id not in self._unticked for r in self.plan.rows):
                self.start_button.setEnabled(False)  # nothing ticked: at once, not when the new plan comes
            self._summary_timer.start()

    async def refresh_plan(self) -> Plan | None:
        """A new plan for the current dates and ticks (in a worker), shown when it is still current."""
        if self.history is None:
            return None
        choices = self._choices()
        try:
            plan = await self.actions.imports.plan(self.history, **choices)
        except Exception as exc:  # said where the summary goes; the old plan stays
            log.exception("history import: planning failed")
            if shiboken6.isValid(self):
                self.summary.setText(self.tr("没能算出要导入的内容：{0}").format(error_detail(exc)))
                self.start_button.setEnabled(False)
            return None
        if not shiboken6.isValid(self) or choices != self._choices():
            return None  # the person changed something meanwhile: the next plan shows
        self._show_plan(plan)
        return plan

    def _show_plan(self, plan: Plan) -> None:
        self.plan = plan
        scroll = self.conversations.verticalScrollBar().value()
        self.conversations.show_plan(plan, self._unticked)
        self.conversations.filter(self.filter_box.text())
        self.conversations.verticalScrollBar().setValue(scroll)
        self.summary.setText(summary_text(plan, self.actions.imports.model_name))
        skipped = []
        if plan.skipped_already_imported:
            skipped.append(self.tr("已导入过的 {0} 轮").format(plan.skipped_already_imported))
        if plan.skipped_waiting:
            skipped.append(self.tr("未完成的导入里还要写的 {0} 轮（继续那次导入即可）").format(plan.skipped_waiting))
        if plan.skipped_dont_import:
            skipped.append(self.tr("不导入列表里的 {0} 个对话").format(plan.skipped_dont_import))
        if plan.skipped_out_of_range:
            skipped.append(self.tr("日期范围外的 {0} 轮").format(plan.skipped_out_of_range))
        if plan.skipped_duplicates:
            skipped.append(self.tr("文件里重复出现的 {0} 轮（只导入一次）").format(plan.skipped_duplicates))
        left_out = sum(plan.skipped_messages.values())
        if left_out:
            skipped.append(self.tr("系统提示、工具调用、改写前的分支、空白等 {0} 条消息").format(left_out))
        text = self.tr("不导入：{0}").format("；".join(skipped)) if skipped else ""
        if plan.secrets_hidden:
            text += ("\n" if text else "") + self.tr("{0} 处疑似密码、密钥或证件号会在发送给模型前隐去").format(
                plan.secrets_hidden)
        if plan.long_messages:
            text += ("\n" if text else "") + self.tr("{0} 条很长的消息只读开头和结尾（每条约 {1} 字）").format(
                plan.long_messages, MAX_MESSAGE_CHARS)
        self.skipped.setText(text)
        self.start_button.setEnabled(bool(plan.batches) and self.actions.imports.configured
                                     and self.actions.running is None and not self._starting)

    async def _dont_import(self, title: str) -> None:
        saved = await call(self.actions.imports.dont_import.add, title)
        if isinstance(saved, Failed):
            if shiboken6.isValid(self):
                self.summary.setText(self.tr("没有保存：{0}").format(saved.detail))
            return
        await self.refresh_plan()

    async def _allow(self, text: str) -> None:
        dont = self.actions.imports.dont_import

        def remove() -> None:
            for entry in dont.entries():
                if entry.text == text:
                    dont.remove(entry.id)

        removed = await call(remove)
        if isinstance(removed, Failed):
            if shiboken6.isValid(self):
                self.summary.setText(self.tr("没有保存：{0}").format(removed.detail))
            return
        await self.refresh_plan()

    # ── saved memories ────────────────────────────────────────────────

    def _build_saved(self) -> QWidget:
        page = QWidget(self)
        self.saved_title = QLabel(self.tr("ChatGPT 已保存的记忆"), page)
        self.saved_hint = QLabel(self.tr("每条直接成为一条记忆（不经模型），可以改主题或取消勾选。"), page)
        self.saved_hint.setObjectName("HintLabel")
        self.saved_hint.setWordWrap(True)
        self.saved_list = SavedMemoryList(page)
        self.saved_note = QLabel("", page)
        self.saved_note.setObjectName("ImportNote")
        self.saved_note.setWordWrap(True)
        self.saved_button = QPushButton(self.tr("导入"), page)
        buttons = self._page_buttons(page, self.saved_button)
        layout = QVBoxLayout(page)
        layout.addWidget(self.saved_title)
        layout.addWidget(self.saved_hint)
        layout.addWidget(self.saved_list, 1)
        layout.addWidget(self.saved_note)
        layout.addLayout(buttons)
        self.saved_button.clicked.connect(lambda: self._spawn(self.import_saved()))
        self.saved_list.changed.connect(self._saved_count)
        return page

    def _show_saved(self, history: History) -> None:
        self.saved_list.show_entries(history.saved_memories)
        review = self.actions.imports.services.review
        self.saved_note.setText(self.tr("审核模式已开启：它们会进入审核箱，由你确认后才写入。")
                                if review is not None and review.enabled else "")
        self._saved_count()
        self.stack.setCurrentWidget(self.saved_page)

    def _saved_count(self) -> None:
        picked, _themes = self.saved_list.chosen()
        self.saved_button.setText(self.tr("导入 {0} 条记忆").format(counted(len(picked))))
        self.saved_button.setEnabled(bool(picked))

    async def import_saved(self) -> Any:
        picked, themes = self.saved_list.chosen()
        refusal = self.actions.refusal()
        if refusal:  # (the memory server away)
            self.saved_note.setText(self.tr("没有导入：{0}").format(refusal))
            return None
        try:
            result = await self.actions.imports.import_saved(picked, themes)
        except HistoryFormatError as exc:
            self.saved_note.setText(self.tr("没有导入：{0}").format(exc.say(ui_language())))
            return None
        except (OSError, ValueError, MemoryError_) as exc:
            log.warning("history import: saved memories not imported", exc_info=True)
            self.saved_note.setText(self.tr("没有导入：{0}").format(error_detail(exc)))
            return None
        if not shiboken6.isValid(self):
            return result
        self.import_id = result.undo_id
        self.stack.setCurrentWidget(self.progress)
        self.progress.show_saved(len(result.created), result.proposals, len(result.skipped), result.undo_id)
        return result

    # ── 3. progress ───────────────────────────────────────────────────

    def _connect_progress(self) -> None:
        panel = self.progress
        self.actions.progress.connect(self._on_progress)
        self.actions.finished.connect(self._on_finished)
        panel.pause_toggled.connect(self.actions.set_paused)
        panel.background_requested.connect(self.accept)
        panel.stop_requested.connect(lambda: self._spawn(self.stop()))
        panel.retry_requested.connect(lambda: self._spawn(self.actions.retry_failed()))
        panel.undo_requested.connect(self.ask_undo)
        panel.redo_requested.connect(lambda: self._spawn(self.redo_import()))
        panel.by_conversation_requested.connect(self.open_conversation_undo)
        panel.close_requested.connect(self.accept)

    def _on_progress(self, progress: Any) -> None:
        if shiboken6.isValid(self) and progress.import_id == self.import_id and progress.status != "done":
            self.progress.show_progress(progress)

    def _on_finished(self, result: Any) -> None:
        if shiboken6.isValid(self) and result.undo_id == self.import_id:
            review = self.actions.imports.services.review
            self.progress.show_done(result, review=bool(review is not None and review.enabled and result.proposals))

    def show_finished(self, result: Any, state: Any = None) -> None:
        """The end of an import this window's predecessor showed (a language switch made the windows
        anew): what it did, or why it failed, worded now in the UI's language; ``state``: the import."""
        self.import_id = result.undo_id
        if state is not None:
            self._show_source(state)
        self.stack.setCurrentWidget(self.progress)
        self._on_finished(result)

    def _start_clicked(self) -> None:
        self.start_button.setEnabled(False)  # at once: the second click of a double-click starts nothing
        if self.plan is not None and self.history is not None and not self._starting:
            self._say_preparing()
        self._spawn(self.start())

    def _say_preparing(self) -> None:
        """Until the import has begun: its batches are saved one by one first (a large export's take
        minutes, the window shows nothing else meanwhile)."""
        self.summary.setText(self.tr("正在准备导入：要读的对话逐批存好后开始，大的导入可能要几分钟；关闭窗口会取消这次导入。"))

    async def start(self) -> Any:
        if self.plan is None or self.history is None or self._starting:
            return None
        self._starting = True
        self.start_button.setEnabled(False)
        self._say_preparing()
        preparing = self.summary.text()
        try:
            state = await self._begin()
        finally:
            if shiboken6.isValid(self):
                self._starting = False
        if state is None or not shiboken6.isValid(self):
            if shiboken6.isValid(self) and self.plan is not None:
                if self.summary.text() == preparing:  # (not begun: the plan's summary again, unless a reason is said)
                    self.summary.setText(summary_text(self.plan, self.actions.imports.model_name))
                self.start_button.setEnabled(bool(self.plan.batches) and self.actions.imports.configured
                                             and self.actions.running is None)
            return state
        self.import_id = state.id
        self.progress.show_running()
        self._show_source(state)
        self.stack.setCurrentWidget(self.progress)
        if self.actions.last_progress is not None:
            self.progress.show_progress(self.actions.last_progress)
        return state

    async def _begin(self) -> Any:
        """The plan as it is now, begun (None: nothing to import, or it could not begin: said)."""
        choices, history = self._choices(), self.history
        refusal = self.actions.refusal()
        if refusal:  # the memory server went away since the window opened: why, where the summary goes
            self.summary.setText(refusal)
            return None
        try:
            plan = await self.actions.imports.plan(history, **choices)
        except Exception as exc:  # said where the summary goes, as for any plan
            log.exception("history import: planning failed")
            if shiboken6.isValid(self):
                self.summary.setText(self.tr("没能算出要导入的内容：{0}").format(error_detail(exc)))
            return None
        if not plan.batches or not shiboken6.isValid(self):
            return None
        return await self.actions.start(plan, history, file_name=self.file_name, **choices)

    async def resume_unfinished(self) -> Any:
        state = self._last_state
        if state is None or not state.unfinished:
            return None
        resumed = await self.actions.resume(state.id)
        if resumed is None or not shiboken6.isValid(self):
            return resumed
        self.import_id = resumed.id
        self.progress.show_running()
        self._show_source(resumed)
        self.stack.setCurrentWidget(self.progress)
        return resumed

    async def stop(self) -> None:
        """Stop after the batch being written, then ask: keep what was imported, or undo it."""
        self.progress.stop_button.setEnabled(False)
        await self.actions.stop()
        if not shiboken6.isValid(self):
            return
        box = QMessageBox(QMessageBox.Icon.Question, self.tr("导入已停止"),
                          self.tr("已导入的部分要保留吗？保留的话，以后再导入同一个文件会接着导入剩下的。"),
                          QMessageBox.StandardButton.NoButton, self)
        keep = box.addButton(self.tr("保留已导入的部分"), QMessageBox.ButtonRole.AcceptRole)
        undo = box.addButton(self.tr("撤销已导入的部分"), QMessageBox.ButtonRole.DestructiveRole)
        box.setDefaultButton(keep)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        chosen: list[bool] = []  # (the box is deleted by the time it returns: read its answer as it comes)
        undo.clicked.connect(lambda: chosen.append(True))
        self.stop_question = box
        await execute_dialog(box)
        chose_undo = bool(chosen)
        if not shiboken6.isValid(self):
            return
        if chose_undo:
            await self.undo_import()
        else:
            self.progress.show_stopped()

    def _undo_failed(self, text: str) -> None:
        if not shiboken6.isValid(self):
            return
        label = self.source_error if self.stack.currentWidget() is self.source_page else self.progress.note
        label.setText(text)
        label.setVisible(True)

    def ask_undo(self) -> Any:
        """撤销这次导入 (this window's button, or the finished toast's 撤销导入): ``ask_then_undo`` as the
        window's task."""
        return self._spawn(self.ask_then_undo())

    async def ask_then_undo(self) -> Any:
        """The undo buttons: say what the undo will do before it is done (``preview_undo``, read off the
        Qt thread: the numbers the undo then applies), and undo only on the person's word (取消 is the
        default). Cards the person changed since are named in that first question (``UndoRestDialog``:
        kept as they are, and what undoing the rest does); when nothing but such cards is left, it says
        so and asks nothing."""
        import_id = self.import_id
        if import_id is None:
            return None
        try:
            preview = await self.actions.imports.preview_undo(import_id)
        except Exception as exc:  # noqa: BLE001 - said in the dialog; nothing was undone
            self._undo_failed(self.tr("无法撤销：{0}").format(error_detail(exc)))
            return None
        if not shiboken6.isValid(self):
            return None
        if preview.kept:
            if not preview.rest:
                self._all_changed(preview.kept)
                return None
            if not await self._confirm_undo_rest(preview):
                return None
            return await self.undo_import(rest=True)
        effects = dict(preview.effects)
        parts = [self.tr("删除它新建的 {0} 条记忆").format(effects.pop("trashed", 0))]
        if effects.get("reverted"):
            parts.append(self.tr("把它改过的 {0} 条记忆恢复原样").format(effects.pop("reverted")))
        if effects.get("restored"):
            parts.append(self.tr("找回它删掉的 {0} 条记忆").format(counted(effects.pop("restored"))))
        if any(effects.values()):  # (an import neither locks nor pins; its redo's undo may)
            parts.append(effects_text(effects, ui_language()))
        question = Question(self, self.tr("撤销这次导入？"), self.tr("撤销会影响 {0} 条记忆：{1}。撤销之后还可以重做。").format(
            preview.rest, self.tr("，").join(parts)), self.tr("撤销导入"))
        self.undo_confirm, self.undo_question = question.confirm, question.box
        if not await question.answer() or not shiboken6.isValid(self):
            return None
        return await self.undo_import()

    def open_conversation_undo(self) -> Any:
        """按对话撤销…: the import's conversations, one to undo (``ConversationUndoDialog``)."""
        from .history_undo_conversations import ConversationUndoDialog

        if self.import_id is None:
            return None
        dialog = ConversationUndoDialog(self.actions.imports, self.import_id, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.conversation_undo = dialog
        dialog.open()
        return dialog

    async def redo_import(self) -> Any:
        """Take the undo back (the import's memories as it left them); cards changed since the undo
        are asked about first, as for an undo."""
        import_id = self.import_id
        if import_id is None:
            return None
        self.progress.redo_button.setEnabled(False)
        try:
            result = await self.actions.imports.redo(import_id)
        except UndoConflict as exc:
            if not shiboken6.isValid(self):
                return None
            result = None
            if exc.rest:
                question = UndoRestDialog(exc.preview, self.tr("重做这次导入"), self)
                question.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
                self.undo_rest_question = question
                if await execute_dialog(question) == QDialog.DialogCode.Accepted and shiboken6.isValid(self):
                    try:
                        result = await self.actions.imports.redo(import_id, rest=True)
                    except Exception as again:  # noqa: BLE001 - said in the dialog
                        self._undo_failed(self.tr("无法重做：{0}").format(error_detail(again)))
            else:
                self._undo_failed(self.tr("无法重做：撤销之后这些记忆都被改过了"))
        except Exception as exc:  # noqa: BLE001 - said in the dialog; nothing was redone
            result = None
            self._undo_failed(self.tr("无法重做：{0}").format(error_detail(exc)))
        if not shiboken6.isValid(self):
            return result
        if result is None:
            self.progress.redo_button.setEnabled(True)
            return None
        self.progress.show_redone(result.kept)
        return result

    async def undo_import(self, *, rest: bool = False) -> Any:
        """Take the import back (``rest``: the person agreed to keep the cards changed since). When
        cards the person changed since stand in the way, ask first: the confirmation
        (``UndoRestDialog``) lists those cards, kept as they are, and what undoing the rest does;
        nothing changes unless the person says so."""
        import_id = self.import_id
        if import_id is None:
            return None
        if self.actions.running is not None and self.actions.running.id == import_id:
            await self.actions.stop()
        try:
            result = await self.actions.imports.undo(import_id, rest=rest)
        except NothingToUndo as exc:  # nothing written, only changes held for review: withdrawn
            if exc.withdrawn and shiboken6.isValid(self):
                self._show_last(None)
                self.stack.setCurrentWidget(self.progress)
                self.progress.show_undone("", withdrawn=len(exc.withdrawn))
                return exc
            self._undo_failed(self.tr("无法撤销：{0}").format(error_detail(exc)))
            return None
        except UndoConflict as exc:
            if not shiboken6.isValid(self):
                return None
            if not exc.rest:
                self._all_changed(exc.touched)
                return None
            if not await self._confirm_undo_rest(exc.preview):
                return None
            result = await self._undo(import_id, rest=True)
        except Exception as exc:  # noqa: BLE001 - said in the dialog; nothing was undone
            self._undo_failed(self.tr("无法撤销：{0}").format(error_detail(exc)))
            return None
        if result is not None and shiboken6.isValid(self):
            self._show_last(None)
            self.stack.setCurrentWidget(self.progress)
            self.progress.show_undone(result.turn_id, result.kept, withdrawn=len(getattr(result, "withdrawn", ())))
        return result

    def _all_changed(self, touched: list[Touched]) -> None:
        """Nothing is left to undo but cards the person changed since: say so, and which."""
        lines = kept_lines(touched, ui_language())
        shown = lines[:KEPT_SHOWN] + ([self.tr("……还有 {0} 张").format(counted(len(lines) - KEPT_SHOWN))]
                                      if len(lines) > KEPT_SHOWN else [])
        self._undo_failed("\n".join([self.tr("无法撤销：这次导入写下的 {0} 条记忆之后都被改过，撤销会丢掉那些修改。").format(
            len(touched)), *shown]))

    async def _confirm_undo_rest(self, preview: UndoPreview) -> bool:
        """Ask whether to keep the cards changed since and undo the rest (取消 by default)."""
        question = UndoRestDialog(preview, self.tr("撤销这次导入"), self)
        question.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.undo_rest_question = question
        code = await execute_dialog(question)
        return code == QDialog.DialogCode.Accepted and shiboken6.isValid(self)

    async def _undo(self, import_id: str, *, rest: bool) -> Any:
        try:
            return await self.actions.imports.undo(import_id, rest=rest)
        except UndoConflict as exc:  # everything left was changed meanwhile
            self._all_changed(exc.touched)
        except Exception as exc:  # noqa: BLE001 - said in the dialog; nothing was undone
            self._undo_failed(self.tr("无法撤销：{0}").format(error_detail(exc)))
        return None
