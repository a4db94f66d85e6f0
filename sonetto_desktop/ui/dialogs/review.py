"""ReviewDialog: review mode's inbox (issue 12, capability 7) — Sonetto's proposed changes, each with
why and the words that prompted it; approve as proposed, rewrite then approve, or reject; or all.

Every inbox call runs in a worker (the inbox is a file; approving writes the store). Rejecting all
asks first, with 取消 as the default answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import shiboken6
from PySide6.QtCore import QCoreApplication, Qt, Signal
from PySide6.QtWidgets import QDialog, QInputDialog, QListWidgetItem, QMessageBox, QWidget

from sonetto_desktop.memory import kinds
from sonetto_desktop.memory.review import Proposal
from sonetto_desktop.presentation.i18n import counted
from sonetto_desktop import ops

from ..widgets.dialogs import execute_dialog
from ..widgets.list_dialog import ListDialogFrame

_ROLE = Qt.ItemDataRole.UserRole


def proposal_summary(proposal: Proposal) -> str:
    """One line saying what the proposal would do, in the UI's language ("新记住：…", "Remember: …"):
    worded by how its plan's kind counts (``kinds.group``); a kind of its own says the tool's name."""
    group = kinds.group(proposal.kind)
    if group == kinds.ADDED:
        return QCoreApplication.translate("ReviewDialog", "新记住：{0}").format(proposal.description)
    if group == kinds.UPDATED:
        if proposal.description:
            return QCoreApplication.translate("ReviewDialog", "改为：{0}").format(proposal.description)
        return QCoreApplication.translate("ReviewDialog", "移到「{0}」").format(proposal.theme)
    if group == kinds.DELETED:
        return QCoreApplication.translate("ReviewDialog", "删除：{0}").format(
            proposal.before[0] if proposal.before else " ".join(proposal.memory_ids))
    if group == kinds.MERGED:
        return QCoreApplication.translate("ReviewDialog", "合并为：{0}").format(proposal.description)
    return QCoreApplication.translate("ReviewDialog", "其他变化（{0}）：{1}").format(
        proposal.tool or proposal.kind, proposal.description or proposal.theme or " ".join(proposal.memory_ids))


def proposal_text(proposal: Proposal, now: Sequence[str | None] = ()) -> str:
    """The row: what would change, why, and the user's words that prompted it; ``now``: what its
    memories read now (said when it is not what they read when it was proposed)."""
    lines = [proposal_summary(proposal)]
    if proposal.before and kinds.group(proposal.kind) != kinds.DELETED:  # a deletion's summary names it
        lines.append(QCoreApplication.translate("ReviewDialog", "原来：") + " / ".join(proposal.before))
    if proposal.before and len(now) == len(proposal.before) and tuple(now) != proposal.before:  # changed since
        lines.append(QCoreApplication.translate("ReviewDialog", "现在：") + " / ".join(
            text if text is not None else QCoreApplication.translate("ReviewDialog", "（已删除）") for text in now))
    if proposal.reason:
        lines.append(QCoreApplication.translate("ReviewDialog", "理由：") + proposal.reason)
    if proposal.excerpt:
        lines.append(QCoreApplication.translate("ReviewDialog", "来自你说的：") + proposal.excerpt)
    if proposal.origin:  # another app's or an imported conversation: where it came from
        lines.append(QCoreApplication.translate("ReviewDialog", "出处：") + proposal.origin)
    return "\n".join(lines)


class ReviewDialog(QDialog):
    loaded = Signal()
    acted = Signal(str)  # what the last action did, for people (also shown in the dialog)
    _inbox_changed = Signal()  # emitted on whichever thread changed the inbox: queued to this one

    def __init__(self, service: Any, parent: QWidget | None = None) -> None:
        """``service``: the UI's operation runner (``MemoryService`` over the app's services)."""
        super().__init__(parent)
        self.setObjectName("ReviewDialog")
        self.setWindowTitle(self.tr("待审核的记忆变化"))
        self.resize(620, 460)
        self._service = service
        self._services = service.services
        self._proposals: list[Proposal] = []
        self._now: dict[str, str | None] = {}  # what the proposals' memories read when the list was filled
        self._frame = frame = ListDialogFrame(self, scope="review-dialog", heading=self.tr("加载中…"),
                                              list_name="ReviewList", multiline=True, status="ReviewStatus")
        self.summary, self.list, self.status, self._spawn = frame.heading, frame.list, frame.status, frame.spawn
        self.list.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.list.setAccessibleName(self.tr("待审核的提议"))
        self.approve_button = frame.action(self.tr("批准"))
        self.edit_button = frame.action(self.tr("改写后批准…"))
        self.reject_button = frame.action(self.tr("拒绝"))
        self.approve_all_button = frame.action(self.tr("全部批准"), whole_list=True)
        self.reject_all_button = frame.action(self.tr("全部拒绝"), whole_list=True)
        frame.lay_out()

        self.approve_button.clicked.connect(lambda: self._spawn(self.approve_current()))
        self.edit_button.clicked.connect(lambda: self._spawn(self.edit_current()))
        self.reject_button.clicked.connect(lambda: self._spawn(self.reject_current()))
        self.approve_all_button.clicked.connect(lambda: self._spawn(self.approve_all()))
        self.reject_all_button.clicked.connect(lambda: self._spawn(self.reject_all()))
        self.list.currentRowChanged.connect(lambda _row: self._update_buttons())
        # A proposal made while the inbox is open (the writer of a quick-chat turn, an import) is listed
        # at once, as the badge counts it; listened to until the dialog closes.
        self._inbox_changed.connect(lambda: self._spawn(self.load()), Qt.ConnectionType.QueuedConnection)
        inbox = self._inbox
        if inbox is not None:
            changed = self._inbox_changed
            forget = inbox.subscribe(lambda _count: changed.emit() if shiboken6.isValid(self) else None)
            self.finished.connect(lambda _result: forget())
            self.destroyed.connect(lambda *_: forget())
        self.loading = self._spawn(self.load())
        self._update_buttons()

    @property
    def _inbox(self) -> Any:
        return self._services.review

    # ── loading ───────────────────────────────────────────────────────

    async def load(self) -> None:
        inbox, store = self._inbox, self._services.store

        def pending_and_now() -> tuple[list[Proposal], dict[str, str | None]]:
            pending = inbox.pending()
            ids = list(dict.fromkeys(mid for p in pending for mid in p.memory_ids))
            items = store.items_of(ids) if ids and store is not None else {}
            return pending, {mid: (item.description if item is not None else None) for mid, item in items.items()}

        found = await self._service.run(ops.Call.of(pending_and_now), on_error=self._say) if inbox is not None else None
        proposals, now = found or ([], {})
        if not shiboken6.isValid(self):
            return
        current = self.list.currentRow()
        chosen = self._current()  # kept chosen when the list is filled again (a proposal came or went)
        self._proposals, self._now = proposals, now
        self.list.clear()
        for proposal in proposals:
            item = QListWidgetItem(proposal_text(proposal, self._now_of(proposal)))
            item.setData(_ROLE, proposal.id)
            self.list.addItem(item)
        if proposals:
            again = next((n for n, p in enumerate(proposals) if chosen is not None and p.id == chosen.id), None)
            self.list.setCurrentRow(again if again is not None else min(max(current, 0), len(proposals) - 1))
        self.summary.setText(self.tr("Sonetto 想做 %Ln 处记忆变化，等你确认。", "", len(proposals)) if proposals
                             else self.tr("没有待审核的变化。"))
        self._update_buttons()
        self.loaded.emit()

    def _update_buttons(self) -> None:
        has_current = self.list.currentItem() is not None
        for button in (self.approve_button, self.edit_button, self.reject_button):
            button.setEnabled(has_current)
        self.edit_button.setEnabled(has_current and self._current() is not None and self._current().rewordable)
        for button in (self.approve_all_button, self.reject_all_button):
            button.setEnabled(bool(self._proposals))

    def _now_of(self, proposal: Proposal) -> tuple[str | None, ...]:
        """What ``proposal``'s memories read when the list was filled (``()`` when not known)."""
        if not all(mid in self._now for mid in proposal.memory_ids):
            return ()
        return tuple(self._now[mid] for mid in proposal.memory_ids)

    def _current(self) -> Proposal | None:
        item = self.list.currentItem()
        wanted = item.data(_ROLE) if item is not None else None
        return next((p for p in self._proposals if p.id == wanted), None)

    # ── actions ───────────────────────────────────────────────────────

    def _say(self, text: str) -> None:
        if shiboken6.isValid(self):
            self._frame.say(text)
            self.acted.emit(text)

    async def _run(self, action: Any, done: str) -> None:
        failed: list[str] = []  # said in the dialog, worded by the runner; the proposal stays
        await self._service.run(ops.Call(action, writes=True), on_error=failed.append)
        self._say(failed[0] if failed else done)
        if shiboken6.isValid(self):
            await self.load()

    async def approve_current(self, description: str | None = None) -> None:
        proposal = self._current()
        if proposal is None:
            return
        memory = self._services.memory
        shown = self._now_of(proposal)  # the person's words go over what they were shown, never over newer ones
        seen = tuple(text for text in shown if text is not None) if shown and None not in shown else None
        await self._run(lambda: self._inbox.approve(proposal.id, memory, description=description, seen=seen),
                        self.tr("已批准：%1").replace("%1", proposal_summary(proposal)))

    async def edit_current(self) -> None:
        proposal = self._current()
        if proposal is None:
            return
        box = QInputDialog(self)
        box.setWindowTitle(self.tr("改写后批准"))
        box.setLabelText(self.tr("用你的话写这条记忆："))
        box.setOption(QInputDialog.InputDialogOption.UsePlainTextEditForTextInput, True)
        box.setTextValue(proposal.description or "")
        accepted = await execute_dialog(box) == QDialog.DialogCode.Accepted
        text = box.textValue().strip() if shiboken6.isValid(box) else ""
        if shiboken6.isValid(box):
            box.deleteLater()
        if accepted and text and shiboken6.isValid(self):
            await self.approve_current(description=text)

    async def reject_current(self) -> None:
        proposal = self._current()
        if proposal is None:
            return
        await self._run(lambda: self._inbox.reject(proposal.id), self.tr("已拒绝：%1").replace("%1", proposal_summary(proposal)))

    async def approve_all(self) -> None:
        memory = self._services.memory
        outcome: dict[str, Any] = {}
        shown = [p.id for p in self._proposals]  # never one proposed since, unseen

        def apply_all() -> None:
            outcome["changes"], outcome["failed"] = self._inbox.approve_all(memory, shown)

        await self._run(apply_all, "")
        if "changes" in outcome:
            text = self.tr("已批准 %1 处变化。").replace("%1", counted(len(outcome["changes"])))
            if outcome["failed"]:
                text += self.tr("%1 处没能完成，仍在列表里。").replace("%1", counted(len(outcome["failed"])))
            self._say(text)

    async def reject_all(self) -> None:
        shown = [p.id for p in self._proposals]  # the ones the question counts: never one proposed since
        box = QMessageBox(QMessageBox.Icon.Question, self.tr("全部拒绝"),
                          self.tr("拒绝全部 %1 处待审核的变化？它们不会被写入记忆。").replace("%1", counted(len(shown))),
                          QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel, self)
        box.button(QMessageBox.StandardButton.Yes).setText(self.tr("全部拒绝"))  # names the action, not 是 / Yes
        cancel = box.button(QMessageBox.StandardButton.Cancel)
        cancel.setText(QCoreApplication.translate("Dialogs", "取消"))
        box.setDefaultButton(cancel)
        box.setEscapeButton(cancel)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        if await execute_dialog(box) != QMessageBox.StandardButton.Yes or not shiboken6.isValid(self):
            return
        await self._run(lambda: self._inbox.reject_all(shown), self.tr("已全部拒绝。"))
