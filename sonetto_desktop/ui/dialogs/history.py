"""HistoryDialog: every change of one memory, newest first — when, who (你 / Sonetto / 命令行 /
another app), why, the words that caused it (the turn's excerpt), and a before/after diff — with
"恢复为此版本" to bring back any version (recorded as a new change).

Memory text is data: labels show it as plain text, and the diff pane (our own escaped markup)
loads no resources and follows no links.

The dialog reads the memory through :class:`MemoryService` (in a worker) and reloads itself when
the store reports a change to this memory; the selected row stays on the same change (version).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from html import escape
from typing import Any

import shiboken6
from PySide6.QtCore import QCoreApplication, QSize, Qt, Signal
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from sonetto_desktop import ops
from sonetto_desktop.ops import Failed
from sonetto_desktop.memory.errors import MemoryNotFound
from sonetto_desktop.memory.events import MemoryChange
from sonetto_desktop.memory import kinds
from sonetto_desktop.memory.item import MemoryItem, parse_time
from sonetto_desktop.memory.undo import UNDO_PREFIX
from sonetto_desktop.memory.writer.limits import ROLLBACK_PREFIX
from sonetto_desktop.presentation.others import shown_device
from sonetto_desktop.presentation.reasons import render_reason
from sonetto_desktop.presentation.undo_words import card_text, set_apart

from .history_diff import SafeTextBrowser, actor_label, diff_html, diff_stylesheet
from ..i18n import ui_language
from ..memory_service import MemoryService
from ..qt_bridge import disconnect_quietly
from sonetto_desktop.presentation.relative_time import relative_time
from ..widgets.tasks import task_scope
from ..widgets.tooltips import plain_tooltip


@dataclass(frozen=True)
class HistoryRow:
    """One line of the dialog: a change (``entry``), or the first version (``entry`` is None)."""

    entry: dict[str, Any] | None
    version: int | None  # the version this change made (``MemoryItem.entry_versions``, the store's own
    # numbering, which ``revert`` takes); None for a change that made none (a lock, an unlock, an absorbed entry)
    position: int = -1  # the entry's index in the (append-only) history: the row's identity across reloads;
    # -1 for the first version without an entry


def history_rows(item: MemoryItem) -> list[HistoryRow]:
    """Rows newest first; the last row is the memory as first written (version 0): its ``create``
    entry, or (for memories of older files, which have none) a row without an entry."""
    numbers = item.entry_versions()
    rows = [HistoryRow(dict(entry), number, position)
            for position, (entry, number) in enumerate(zip(item.history, numbers, strict=True))]
    rows.reverse()
    if 0 not in numbers:
        rows.append(HistoryRow(None, 0))
    return rows


CURRENT_CHARS = 160


def _merged_ids(entries: list[dict[str, Any]]) -> list[str]:
    """The memories ``entries`` (a memory's own history, or part of it) merged into it, oldest first."""
    return [str(entry["merged_id"]) for entry in entries
            if isinstance(entry, dict) and "from" not in entry and entry.get("action") == kinds.MERGE
            and isinstance(entry.get("merged_id"), str)]


#: Turns the app makes for its own actions (an undo, a failed write taken back): their excerpt is a note
#: the app keeps for itself ("撤销 ui-… 的记忆变化", in Chinese whatever the window's language), not
#: what someone said, and the reason line already says what they were.
APP_TURNS = (UNDO_PREFIX, ROLLBACK_PREFIX)


def prompted_by(entry: dict[str, Any]) -> str:
    """What was said that led to the change (a chat message, an imported conversation), one line; ""
    when there is none or the change was the app's own undo."""
    if str(entry.get("turn_id") or "").startswith(APP_TURNS):
        return ""
    return " ".join(str(entry.get("excerpt") or "").split())


def _format_time(value: Any) -> str:
    when = parse_time(value)
    if when is None:
        return str(value or "")
    return QCoreApplication.translate("HistoryDialog", "{0}（{1}）").format(
        f"{when:%Y-%m-%d %H:%M}", relative_time(when, lang=ui_language())
    )


def _mode(widget: QWidget) -> str:
    """"dark" or "light": the shell's theme (the ``sonetto_theme`` app property), else the palette."""
    app = QApplication.instance()
    mode = app.property("sonetto_theme") if app is not None else None
    if mode in ("light", "dark"):
        return mode
    return "dark" if widget.palette().window().color().lightness() < 128 else "light"


class HistoryDialog(QDialog):
    """Open with ``HistoryDialog(service, memory_id)``; ``load()`` (started automatically) fills it."""

    loaded = Signal()
    chat_requested = Signal(str, str, str)  # session id, turn id, the words: "打开这段对话" on a change a chat turn made

    def __init__(self, service: MemoryService, memory_id: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("HistoryDialog")
        self.setWindowTitle(self.tr("记忆的历史"))
        self.resize(760, 480)
        self._service = service
        self.memory_id = memory_id
        self._item: MemoryItem | None = None
        self._rows: list[HistoryRow] = []

        self.current_label = QLabel(self.tr("加载中…"), self)
        self.current_label.setObjectName("HistoryCurrent")
        self.current_label.setTextFormat(Qt.TextFormat.PlainText)  # memory text is data, never markup
        self.current_label.setWordWrap(True)
        self.list = QListWidget(self)
        self.list.setObjectName("HistoryList")
        self.list.setSpacing(2)
        self.diff = SafeTextBrowser(self)
        self.diff.setObjectName("HistoryDiff")
        self.diff.document().setDefaultStyleSheet(diff_stylesheet(_mode(self)))
        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.addWidget(self.list)
        splitter.addWidget(self.diff)
        splitter.setSizes([340, 420])

        self.reason_edit = QLineEdit(self)
        self.reason_edit.setObjectName("HistoryReason")
        self.reason_edit.setPlaceholderText(self.tr("恢复的原因（可选）"))
        self.revert_button = QPushButton(self.tr("恢复为此版本"), self)
        self.revert_button.setObjectName("HistoryRevert")
        self.revert_button.setEnabled(False)
        self.revert_button.clicked.connect(self.revert_selected)
        self.restore_merged = QCheckBox(self)  # reverting to before a merge: the merged memories too
        self.restore_merged.setObjectName("HistoryRestoreMerged")
        self.restore_merged.setChecked(True)
        self.restore_merged.hide()
        self._in_trash: set[str] = set()  # the memories merged into this one that are in the trash now
        self.open_chat_button = QPushButton(self.tr("打开这段对话"), self)
        self.open_chat_button.setObjectName("HistoryOpenChat")
        self.open_chat_button.setToolTip(self.tr("在对话里找到引起这次改动的那句话"))
        self.open_chat_button.setEnabled(False)
        self.open_chat_button.clicked.connect(self._open_chat)
        revert_row = QHBoxLayout()
        revert_row.addWidget(self.open_chat_button)
        revert_row.addWidget(self.reason_edit, 1)
        revert_row.addWidget(self.revert_button)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addWidget(self.current_label)
        layout.addWidget(splitter, 1)
        layout.addWidget(self.restore_merged)
        layout.addLayout(revert_row)
        layout.addWidget(buttons)

        self.list.currentRowChanged.connect(self._on_row_changed)
        self.reason_edit.textChanged.connect(self._update_revert_button)
        service.memory_changed.connect(self._on_memory_changed)
        self._tasks = task_scope(self, "history-dialog")
        self._load_task: asyncio.Task[None] | None = self._tasks.spawn(self.load())

    # ── loading ───────────────────────────────────────────────────────

    async def load(self) -> None:
        # gone (deleted, merged away) is what the dialog says, not a failure to toast about
        found = await self._service.run(ops.Item(self.memory_id), handled=(MemoryNotFound,))
        if not shiboken6.isValid(self):
            return
        item = found if isinstance(found, MemoryItem) else None
        merged = set(_merged_ids(item.history)) if item is not None else set()
        trash = (await self._service.run(ops.Trash()) or []) if merged else []
        if not shiboken6.isValid(self):
            return
        self._in_trash = {str(row["id"]) for row in trash if row.get("id") in merged}
        self._item = item
        index = self.list.currentRow()
        selected = self._rows[index] if 0 <= index < len(self._rows) else None
        self.list.clear()
        if item is None:
            self._rows = []
            self.current_label.setText(self.tr("这条记忆已不存在（可能被删除或合并）。") if isinstance(found, Failed)
                                       else self.tr("暂时读不到这条记忆的历史。"))  # (the toast says why)
            self.diff.clear()
            self._update_revert_button()
            self.loaded.emit()
            return
        description = card_text(item.description, CURRENT_CHARS)  # (a very long one must not stretch the dialog)
        self.current_label.setText(self.tr("当前：{0}（{1}）").format(description, set_apart(item.theme)))
        self.current_label.setToolTip(plain_tooltip(item.description))
        self._rows = history_rows(item)
        for row in self._rows:
            self.list.addItem(self._list_item(row))
        self.list.setCurrentRow(self._row_of(selected))
        self.loaded.emit()

    def _row_of(self, selected: HistoryRow | None) -> int:
        """Where ``selected`` (a row before a reload) is now: the same change, found by its place in the
        history (rows are newest first, so a new change moves every row down one), never by row number;
        the newest row when it was none or is gone."""
        if selected is not None:
            for index, row in enumerate(self._rows):
                if row.position == selected.position and row.entry == selected.entry:
                    return index
        return 0

    async def wait_loaded(self) -> None:
        while self._load_task is not None and not self._load_task.done():
            await asyncio.shield(self._load_task)

    def _on_memory_changed(self, change: MemoryChange) -> None:
        merged = set(_merged_ids(self._item.history)) if self._item is not None else set()
        if (self.memory_id in change.ids or merged.intersection(change.ids)) and shiboken6.isValid(self):
            self._load_task = self._tasks.spawn(self.load())

    def done(self, result: int) -> None:
        disconnect_quietly(self._service.memory_changed, self._on_memory_changed)
        super().done(result)

    # ── rows ──────────────────────────────────────────────────────────

    def rows(self) -> list[HistoryRow]:
        return list(self._rows)

    def current_version(self) -> int:
        return max((row.version for row in self._rows if row.version is not None), default=0)

    def _actor(self, entry: dict[str, Any]) -> str:
        return actor_label(entry.get("actor"))

    def _device(self, entry: dict[str, Any]) -> str:
        """On which computer the change was made, when the memories are shared ("": not said)."""
        device = shown_device(entry.get("device"))
        return self.tr("在 {0} 上").format(device) if device else ""

    def _action(self, entry: dict[str, Any]) -> str:
        labels = {
            kinds.CREATE: self.tr("创建"),
            kinds.UPDATE: self.tr("修改"),
            kinds.MERGE: self.tr("合并"),
            kinds.REVERT: self.tr("恢复旧版本"),
            kinds.RESTORE: self.tr("从回收站恢复"),
            kinds.LOCK: self.tr("锁定"),
            kinds.UNLOCK: self.tr("解锁"),
            kinds.PIN: self.tr("置顶"),
            kinds.UNPIN: self.tr("取消置顶"),
        }
        action = str(entry.get("action", kinds.UPDATE))
        return labels.get(action, action)

    def _list_item(self, row: HistoryRow) -> QListWidgetItem:
        if row.entry is None:
            text = self.tr("最初的版本")
        else:
            entry = row.entry
            head = f"{_format_time(entry.get('time'))} · {self._actor(entry)} · {self._action(entry)}"
            if "from" in entry:
                head += self.tr(" · 来自被合并的记忆")
            reason = render_reason(str(entry.get("reason") or ""), ui_language())
            reason = reason if len(reason) <= 40 else reason[:39] + "…"  # in full in the diff pane
            reason = " · ".join(part for part in (self._device(entry), reason) if part)  # (the head keeps the action)
            text = f"{head}\n{reason}" if reason else head
        item = QListWidgetItem(text)
        if row.entry is not None and prompted_by(row.entry):
            item.setToolTip(plain_tooltip(self.tr("起因：“{0}”").format(prompted_by(row.entry))))
        lines = text.count("\n") + 1
        item.setSizeHint(QSize(0, lines * self.list.fontMetrics().lineSpacing() + 12))
        item.setData(Qt.ItemDataRole.UserRole, row.version)
        return item

    def _on_row_changed(self, index: int) -> None:
        if not 0 <= index < len(self._rows):
            self.diff.clear()
        else:
            self.diff.setHtml(self._row_html(self._rows[index]))
        self._update_revert_button()
        self.open_chat_button.setEnabled(self._chat_of_selected() is not None)

    def merged_since(self, index: int) -> list[str]:
        """The memories merged into this one after row ``index``'s version that are in the trash now:
        reverting to that version brings them back too, unless the person says not to."""
        if not 0 <= index < len(self._rows) or self._item is None or self._rows[index].version is None:
            return []
        since = self._rows[index].position
        later = _merged_ids(self._item.history[since + 1:])
        return [memory_id for memory_id in dict.fromkeys(later) if memory_id in self._in_trash]

    def _chat_of_selected(self) -> tuple[str, str, str] | None:
        """(session id, turn id, excerpt) of the chat turn behind the selected change, if it came from one."""
        index = self.list.currentRow()
        entry = self._rows[index].entry if 0 <= index < len(self._rows) else None
        if not entry or not entry.get("session_id") or not entry.get("turn_id"):
            return None
        return str(entry["session_id"]), str(entry["turn_id"]), str(entry.get("excerpt") or "")

    def _open_chat(self) -> None:
        """Show the chat: this (window-modal) dialog closes so the chat behind it can be read."""
        chat = self._chat_of_selected()
        if chat is not None:
            self.chat_requested.emit(*chat)
            self.accept()

    def _row_html(self, row: HistoryRow) -> str:
        item = self._item
        if row.entry is None:
            states = item.versions() if item else []
            first = states[0] if states else {"description": "", "theme": ""}
            theme = self.tr("主题：{0}").format(escape(first["theme"]))
            return f"<p>{escape(first['description'])}</p><p class='muted'>{theme}</p>"
        entry = row.entry
        if kinds.flag(entry.get("action")) and "from" not in entry:  # a lock or a pin: no version of its own
            words = (self.tr("置顶或取消置顶不改变内容：这一行没有可恢复的版本。") if entry.get("action") in kinds.PINNING
                     else self.tr("锁定或解锁不改变内容：这一行没有可恢复的版本。"))
            parts = ["<p class='muted'>" + escape(words) + "</p>"]
            if entry.get("reason"):
                reason = render_reason(str(entry["reason"]), ui_language())
                parts.append("<p class='muted'>" + self.tr("原因：{0}").format(escape(reason)) + "</p>")
            return "".join(parts)
        old_d = str(entry.get("old_description") or "")
        new_d = str(entry.get("new_description") or old_d)
        before_after = escape(self.tr("修改前 → 修改后"))
        parts = [f"<p class='muted'>{before_after}</p>", f"<p>{diff_html(old_d, new_d)}</p>"]
        if row.version is not None and row.version != self.current_version() and not self._revertible(row.version):
            parts.append("<p class='muted'>" + escape(self.tr("这个版本和现在的内容一样。")) + "</p>")
        old_t, new_t = entry.get("old_theme"), entry.get("new_theme")
        if old_t and new_t and old_t != new_t:
            parts.append("<p>" + self.tr("主题：{0}").format(diff_html(str(old_t), str(new_t))) + "</p>")
        elif new_t or old_t:
            parts.append("<p class='muted'>" + self.tr("主题：{0}").format(escape(str(new_t or old_t))) + "</p>")
        if entry.get("merged_description"):
            merged = self.tr("并入的记忆：{0}").format(escape(str(entry["merged_description"])))
            parts.append(f"<p class='muted'>{merged}</p>")
        if entry.get("reason"):
            reason = render_reason(str(entry["reason"]), ui_language())
            parts.append("<p class='muted'>" + self.tr("原因：{0}").format(escape(reason)) + "</p>")
        if prompted_by(entry):
            said = self.tr("起因：“{0}”").format(escape(prompted_by(entry)))
            parts.append(f"<p class='muted'>{said}</p>")
        if entry.get("origin"):
            where = self.tr("来自：{0}").format(escape(" ".join(str(entry["origin"]).split())))
            parts.append(f"<p class='muted'>{where}</p>")
        return "".join(parts)

    # ── revert ────────────────────────────────────────────────────────

    def selected_version(self) -> int | None:
        index = self.list.currentRow()
        return self._rows[index].version if 0 <= index < len(self._rows) else None

    def _revertible(self, version: int | None) -> bool:
        """Whether bringing back ``version`` would change the memory: not the newest version, nor
        one whose text and theme the memory has now (after an earlier revert to it): that would only
        add an empty change."""
        item = self._item
        if version is None or item is None or version == self.current_version():
            return False
        states = item.versions()
        if not 0 <= version < len(states):
            return False
        return (states[version]["description"], states[version]["theme"]) != (item.description, item.theme)

    def _update_revert_button(self) -> None:
        revertible = self._revertible(self.selected_version())
        self.revert_button.setEnabled(revertible)
        merged = self.merged_since(self.list.currentRow()) if revertible else []
        self.restore_merged.setText(self.tr("同时从回收站恢复之后并入这条记忆的 %Ln 条记忆", "", len(merged)))
        self.restore_merged.setVisible(bool(merged))

    def revert_selected(self) -> "asyncio.Task[None] | None":
        """Revert to the selected version with the typed reason (optional: the service words one
        when none is given); returns the service task."""
        version = self.selected_version()
        reason = self.reason_edit.text().strip()
        if version is None or not self._revertible(version):
            return None
        restore = self.merged_since(self.list.currentRow()) if self.restore_merged.isChecked() else []
        self.reason_edit.clear()
        task = self._service.submit(ops.RevertMemory(self.memory_id, version, reason, tuple(restore)))
        task.add_done_callback(lambda t: self._give_back_reason(t, reason))
        return task

    def _give_back_reason(self, task: "asyncio.Task[bool | None]", reason: str) -> None:
        """A failed revert (the toast says why) hands the typed reason back."""
        if task.cancelled() or task.result() is not None or not shiboken6.isValid(self):
            return
        if not self.reason_edit.text().strip():
            self.reason_edit.setText(reason)
