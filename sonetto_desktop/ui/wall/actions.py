"""WallActions: what the person can do to cards — edit, add, merge, move, delete (with undo),
history, trash, copy, a theme's colour, and what a drop means. Every change goes through :class:`MemoryService`.

Dialogs open window-modal with ``open()`` (never a nested ``exec()`` loop under qasync) and
delete themselves on close; the last one opened is ``active_dialog``.
"""

from __future__ import annotations

import asyncio
from typing import Any, Callable

import shiboken6

from PySide6.QtCore import QCoreApplication, QObject, Qt, Signal
from PySide6.QtGui import QColor, QGuiApplication
from PySide6.QtWidgets import QColorDialog, QDialog, QInputDialog, QLineEdit, QMenu, QMessageBox, QWidget

from sonetto_desktop.memory.changes import excerpt_of
from sonetto_desktop.memory.errors import ChangedMeanwhile
from sonetto_desktop.memory.item import MAX_THEME_CHARS
from sonetto_desktop.memory.reasons import reason_text
from sonetto_desktop import ops
from sonetto_desktop.ops import Failed

from ..widgets.deferred import alive
from ..widgets.dialogs import Question
from ..widgets.owner import Owner
from ..dialogs.edit import EditDialog
from ..dialogs.history import HistoryDialog
from ..widgets.icons import icon
from sonetto_desktop.presentation.cards import DESCRIPTION, LOCKED, PINNED, THEME
from sonetto_desktop.presentation.i18n import counted
from sonetto_desktop.presentation.others import changed_elsewhere_on
from .memory_model import MemoryCardModel
from ..memory_service import MemoryService
from ..dialogs.merge import MergeDialog
from ..notices.memory_undo import restores
from ..notices.toasts import ToastOverlay
from ..dialogs.trash import TrashDialog
from ..widgets.tasks import task_scope


QUESTION_CHARS = 300  # a memory's text quoted in a question: up to here (the box stays on screen)
_NAMES = {DESCRIPTION: "description", THEME: "theme"}  # a card's fields by the store's names (an edit's ``expect``)
_FIELDS = {name: index for index, name in _NAMES.items()}

Clash = tuple[int, str, str]  # (the card's field, its value now, what the person wrote)


def _preview(text: str, limit: int = 24) -> str:
    return excerpt_of(text, limit)


def theme_name_dialog(parent: QWidget) -> QInputDialog:
    """A question for a theme's name that stops at a theme's length limit, as the edit dialog's theme
    field does (a longer name was refused by the store only after the dialog had closed)."""
    dialog = QInputDialog(parent)
    dialog.setInputMode(QInputDialog.InputMode.TextInput)
    field = dialog.findChild(QLineEdit)
    if field is not None:
        field.setMaxLength(MAX_THEME_CHARS)
    return dialog


class WallActions(QObject):
    _host = Owner()  # the wall, held weakly, so the owner and this part form no reference cycle (widgets/owner.py)
    _reveal = Owner()  # the wall's reveal(), the same
    chat_requested = Signal(str, str, str)  # session id, turn id, excerpt (the history's 打开这段对话)

    def __init__(
        self,
        host: QWidget,
        service: MemoryService,
        model: MemoryCardModel,
        toasts: ToastOverlay,
        reveal: Callable[[str], Any],
    ) -> None:
        super().__init__(host)
        self._host = host
        self._service = service
        self._model = model
        self._toasts = toasts
        self._reveal = reveal
        # Edits, moves and deletes with their follow-ups. Not cancelled with the wall: a delete the
        # person asked for still finishes (its follow-ups check the wall is alive after each await).
        self._tasks = task_scope(self, "wall-actions")
        self.active_dialog: QDialog | None = None
        self.bulk: Any = None  # the wall's WallBulk (several cards, whole themes)
        self.last_question: QMessageBox | None = None  # the last "changed meanwhile" question (tests)

    def _keep(self, coro: Any) -> "asyncio.Task[Any]":
        """Run ``coro`` as a task held until it is done (the loop keeps only weak references)."""
        return self._tasks.spawn(coro, name="wall-action")

    def _open(self, dialog: QDialog) -> QDialog:
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        self.active_dialog = dialog
        dialog.destroyed.connect(self._forget_dialog)
        if isinstance(dialog, (EditDialog, MergeDialog)):  # a save refused while the server is away, said in it
            dialog.set_refused(self._service.changes_refused())
            self._service.changes_refused_changed.connect(dialog.set_refused)
        dialog.open()
        if isinstance(dialog, QInputDialog):  # wide enough for its title and label (a Chinese title was cut)
            metrics = dialog.fontMetrics()
            wanted = max(metrics.horizontalAdvance(dialog.windowTitle()) + 160,
                         metrics.horizontalAdvance(dialog.labelText()) + 40, 360)
            field = dialog.findChild(QLineEdit)
            if field is not None:  # the dialog's size follows its fields (a fixed-size layout)
                field.setMinimumWidth(wanted - 2 * dialog.layout().contentsMargins().left())
            dialog.adjustSize()
        return dialog

    def _forget_dialog(self, *_: object) -> None:
        self.active_dialog = None

    def _parent(self) -> QWidget:
        return self._host.window()

    def refuse_changes(self) -> bool:
        """Whether memories cannot be changed now (a memory server away, or refusing this computer: the
        store is read-only until it answers): then said, up front, before a dialog is filled in for nothing."""
        return self._service.refuse_changes(self._toasts)

    # ── add / edit ────────────────────────────────────────────────────

    def add_card(self, theme: str = "") -> EditDialog | None:
        """The dialog of a new memory (None: changes are refused now, and said)."""
        return None if self.refuse_changes() else self._add_dialog(theme)

    def _add_dialog(self, theme: str = "") -> EditDialog:
        dialog = EditDialog(theme=theme, themes=self._model.themes(), creating=True, parent=self._parent())
        dialog.accepted.connect(lambda: self._after_add(*dialog.values()))
        return self._open(dialog)

    def _after_add(self, description: str, theme: str, reason: str) -> "asyncio.Task[Any]":
        # the write starts now (shutdown drains it); the follow-up waits for it
        return self._keep(self._add(self._service.submit(ops.AddMemory(description, theme, reason)), description, theme, reason))

    async def _add(self, write: "asyncio.Task[str | None]", description: str, theme: str, reason: str) -> str | None:
        memory_id = await write
        if not shiboken6.isValid(self):  # the wall went away meanwhile (store switch, quit)
            return memory_id
        if memory_id:
            await self._model.settle()
            if alive(self):
                self._reveal(memory_id)
        else:  # failed (the toast says why): the person gets their text back
            self._reopen_add(description, theme, reason)
        return memory_id

    def _reopen_add(self, description: str, theme: str, reason: str, hint: str = "") -> EditDialog:
        dialog = self._add_dialog(theme)  # (even offline: what the person wrote is not lost)
        dialog.description_edit.setPlainText(description)
        dialog.reason_edit.setText(reason)
        if hint:
            dialog.hint.setText(hint)
        return dialog

    def edit_card(self, memory_id: str) -> EditDialog | None:
        """The card's edit dialog (None: no such card, or changes are refused now, and said)."""
        return None if self.refuse_changes() else self._edit_dialog(memory_id)

    def _edit_dialog(self, memory_id: str) -> EditDialog | None:
        card = self._model.card(memory_id)
        if card is None:
            return None
        dialog = EditDialog(
            description=card[DESCRIPTION], theme=card[THEME], themes=self._model.themes(), parent=self._parent()
        )
        dialog.accepted.connect(lambda: self._after_edit(memory_id, dialog))
        return self._open(dialog)

    def _after_edit(self, memory_id: str, dialog: EditDialog) -> "asyncio.Task[Any]":
        """Save what the person changed, and only that: a field they left alone is not sent, so a change
        Sonetto made to it while the dialog was open stays. A field they changed that was also changed
        meanwhile is not overwritten unasked (``_ask_overwrite``): the wall's copy of the card tells at
        once when it has the change already; the store's own check, in the write's transaction (the
        edit's ``expect``: the texts the dialog opened with), when it has not (a change made a moment ago,
        or by another process, that the wall has not read yet)."""
        typed = dialog.values()
        description, theme = dialog.changes()
        opened = dialog.original()
        seen: dict[str, str] = {}  # the fields the person changed, as the dialog opened with them
        if description is not None:
            seen["description"] = opened[0]
        if theme is not None:
            seen["theme"] = opened[1]
        card = self._model.card(memory_id)  # the card as the wall has it now (it follows the store's changes)
        clashes: list[Clash] = []
        if card is not None:
            if description is not None and card[DESCRIPTION] not in (opened[0], description):
                clashes.append((DESCRIPTION, card[DESCRIPTION], description))
            if theme is not None and card[THEME] not in (opened[1], theme):
                clashes.append((THEME, card[THEME], theme))
        if clashes:
            return self._keep(self._ask_overwrite(memory_id, description, theme, typed, clashes, seen))
        return self._save_edit(memory_id, description, theme, typed, seen)

    def _save_edit(self, memory_id: str, description: str | None, theme: str | None,
                   typed: tuple[str, str, str], seen: dict[str, str]) -> "asyncio.Task[Any]":
        """Write the edit if the fields it changes still hold ``seen`` (field -> value) in the store."""
        write = self._service.submit(ops.EditMemory(memory_id, description, theme, typed[2], expect=seen or None),
                                     handled=(ChangedMeanwhile,))
        return self._keep(self._edit(write, memory_id, description, theme, typed, seen))

    async def _ask_overwrite(self, memory_id: str, description: str | None, theme: str | None,
                             typed: tuple[str, str, str], clashes: list[Clash], seen: dict[str, str]) -> Any:
        """The memory changed while the person edited it, in a field they changed too: show both texts and
        ask. 覆盖 saves theirs over the texts shown (if it changed yet again, this asks again); 取消 writes
        nothing and opens the edit again with what they typed."""
        fetched = await self._service.run(ops.Fetch((memory_id,)), on_error=lambda _why: None)
        device = changed_elsewhere_on((fetched or {}).get(memory_id), self._service.device)
        if not alive(self):
            return None
        parts = [QCoreApplication.translate("MemoryWall", "你编辑这条记忆的时候，它在 {0} 上被改过了。").format(device) if device
                 else QCoreApplication.translate("MemoryWall", "你编辑这条记忆的时候，它被改过了。")]
        for index, now, mine in clashes:
            if index == DESCRIPTION:
                parts.append(QCoreApplication.translate("MemoryWall", "现在的内容：\n{0}\n\n你写的内容：\n{1}").format(
                    _preview(now, QUESTION_CHARS), _preview(mine, QUESTION_CHARS)))
            else:
                parts.append(QCoreApplication.translate("MemoryWall", "现在的主题：{0}\n你写的主题：{1}").format(now, mine))
        parts.append(QCoreApplication.translate("MemoryWall", "用你写的覆盖现在的吗？"))
        question = Question(self._parent(), QCoreApplication.translate("MemoryWall", "这条记忆刚被改过"), "\n\n".join(parts),
                            QCoreApplication.translate("MemoryWall", "覆盖"), QMessageBox.Icon.Warning)
        self.last_question = question.box
        if await question.answer():
            if shiboken6.isValid(self):  # over what the person was shown
                shown = {**seen, **{_NAMES[index]: now for index, now, _ in clashes}}
                return await self._save_edit(memory_id, description, theme, typed, shown)
            return None
        if alive(self):
            self._reopen_edit(memory_id, typed)
        return None

    async def _edit(self, write: "asyncio.Future[bool | Failed | None]", memory_id: str, description: str | None,
                    theme: str | None, typed: tuple[str, str, str], seen: dict[str, str]) -> bool | None:
        result = await write
        if isinstance(result, Failed):  # the store found the memory changed meanwhile: nothing was written
            if not shiboken6.isValid(self):
                return None
            changed: ChangedMeanwhile = result.error  # type: ignore[assignment]
            mine = {"description": description, "theme": theme}
            clashes = [(_FIELDS[name], now, written) for mid, name, now, _ in changed.clashes
                       if mid == memory_id and name in _FIELDS and (written := mine.get(name)) is not None]
            self._model.refresh([memory_id])  # the wall's copy as the store has it (取消 reopens from it)
            await self._model.settle()
            if not alive(self):
                return None
            return await self._ask_overwrite(memory_id, description, theme, typed, clashes, seen)
        if result is None and shiboken6.isValid(self):  # failed (the toast says why): keep what was written
            await self._model.settle()
            if not alive(self):
                return result
            self._reopen_edit(memory_id, typed)
        elif result and theme is not None and shiboken6.isValid(self):
            # filed under another theme: the card is in another section now (its own may be gone with
            # the focus in it): the wall goes with it, as after an addition
            await self._model.settle()
            if alive(self):
                self._reveal(memory_id)
        return result

    def _reopen_edit(self, memory_id: str, typed: tuple[str, str, str]) -> None:
        """The edit dialog again, from the card as it is now, holding what the person typed; the card
        gone (Sonetto just deleted or merged it): the add dialog with it, to keep as a new memory."""
        dialog = self._edit_dialog(memory_id)
        if dialog is None:
            self._reopen_add(*typed, QCoreApplication.translate(
                "MemoryWall", "这条记忆已经不在了（可能刚被删除或合并）。可以把你写的内容另存为一条新记忆。"))
        else:
            dialog.description_edit.setPlainText(typed[0])
            dialog.theme_edit.setText(typed[1])
            dialog.reason_edit.setText(typed[2])

    # ── merge ─────────────────────────────────────────────────────────

    def merge_cards(self, keep_id: str, gone_id: str | None = None) -> MergeDialog | None:
        """Merge dialog for ``keep_id``; ``gone_id`` preselects the other card (else the person picks)."""
        first = self._model.card(keep_id)
        if first is None or self.refuse_changes():
            return None
        second = self._model.card(gone_id) if gone_id and gone_id != keep_id else None
        candidates = sorted(self._model.cards(), key=lambda c: (c[THEME] != first[THEME], c[THEME], c[DESCRIPTION]))
        dialog = MergeDialog(first, candidates, second=second, themes=self._model.themes(), parent=self._parent())
        dialog.accepted.connect(lambda: self._merge_if_unchanged(dialog))
        return self._open(dialog)

    def _merge_if_unchanged(self, dialog: MergeDialog) -> Any:
        """Merge, unless either memory changed while the dialog was open (the kept one's text or theme,
        the other's text): then nothing is merged and the dialog opens again from the texts as they are
        now (``_refresh_merge``), so a new text never goes to the trash unseen. The wall's copy of the
        cards tells at once when it has the change already; the store's own check, in the merge's
        transaction (its ``expect``: the texts the dialog opened with), when it has not."""
        values = dialog.values()
        keep_id, gone_id = values[0], values[1]
        watched = ((keep_id, (DESCRIPTION, THEME)), (gone_id, (DESCRIPTION,)))
        changed = []
        expect: dict[str, dict[str, str]] = {}
        for memory_id, fields in watched:
            was, now = dialog.opened(memory_id), self._model.card(memory_id)
            if was is not None:
                expect[memory_id] = {_NAMES[f]: was[f] for f in fields}
            if was is not None and now is not None and any(was[f] != now[f] for f in fields):
                changed.append(now)
        opened_keep = dialog.opened(keep_id)
        again = (opened_keep[THEME] if opened_keep is not None else values[3], dialog.own_text())
        if changed:
            return self._refresh_merge(values, again, changed)
        return self._after_merge(*values, expect=expect, again=again)

    def _refresh_merge(self, values: tuple[str, str, str, str, str], again: tuple[str, bool],
                       changed: list[Any]) -> MergeDialog | None:
        """The merge dialog again, from the texts as they are now. ``again``: (the kept memory's theme as
        the dialog opened with it, whether the person wrote the merged text themselves)."""
        keep_id, gone_id, description, theme, reason = values
        opened_theme, own_text = again
        dialog = self.merge_cards(keep_id, gone_id)  # prefilled from the texts as they are now
        if dialog is None:
            return None
        if own_text:  # what the person wrote stays; the labels above it show the new texts
            dialog.description_edit.setPlainText(description)
        if theme != opened_theme:
            dialog.theme_edit.setText(theme)
        dialog.reason_edit.setText(reason)
        lines = [QCoreApplication.translate("MemoryWall", "合并前，这条记忆刚被改过：{0}").format(
            _preview(card[DESCRIPTION], 120)) for card in changed]
        lines.append(QCoreApplication.translate("MemoryWall", "你写的合并内容还在，请对照现在的内容再确认。") if own_text
                     else QCoreApplication.translate("MemoryWall", "已按现在的内容重新填写，请再确认。"))
        dialog.hint.setText("\n".join(lines))
        return dialog

    def _after_merge(self, keep_id: str, gone_id: str, description: str, theme: str, reason: str, *,
                     expect: dict[str, dict[str, str]] | None = None,
                     again: tuple[str, bool] | None = None) -> "asyncio.Task[Any]":
        """Merge if the two memories still hold ``expect`` (memory id -> field -> value) in the store;
        ``again``: as ``_refresh_merge``'s, for when they do not."""
        write = self._service.submit(ops.MergeMemories(keep_id, gone_id, description, theme, reason,
                                                       expect=expect or None), handled=(ChangedMeanwhile,))
        values = (keep_id, gone_id, description, theme, reason)
        return self._keep(self._merge(write, values, again or (theme, True)))

    async def _merge(self, write: "asyncio.Future[bool | Failed | None]", values: tuple[str, str, str, str, str],
                     again: tuple[str, bool]) -> bool:
        keep_id, gone_id, description, theme, reason = values
        result = await write
        if isinstance(result, Failed):  # the store found a memory changed meanwhile: nothing was merged
            if not shiboken6.isValid(self):
                return False
            changed: ChangedMeanwhile = result.error  # type: ignore[assignment]
            self._model.refresh(changed.ids)  # the wall's copy as the store has it: the dialog opens from it
            await self._model.settle()
            if alive(self):
                cards = [card for mid in changed.ids if (card := self._model.card(mid)) is not None]
                if self._refresh_merge(values, again, cards) is None:  # the kept one went meanwhile
                    self._reopen_add(description, theme, reason, self._kept_gone_hint())
            return False
        merged = result is not None
        if not merged and shiboken6.isValid(self):  # failed (the toast says why): give the merged text back
            await self._model.settle()
            if not alive(self):
                return merged
            dialog = self.merge_cards(keep_id, gone_id)
            if dialog is None:
                self._reopen_add(description, theme, reason, self._kept_gone_hint())
            else:
                dialog.description_edit.setPlainText(description)
                dialog.theme_edit.setText(theme)
                dialog.reason_edit.setText(reason)
        return merged

    @staticmethod
    def _kept_gone_hint() -> str:
        return QCoreApplication.translate(
            "MemoryWall", "要保留的那条记忆已经不在了（可能刚被删除或合并），没有合并任何内容。可以把合并后的内容另存为一条新记忆。")

    # ── delete with undo ──────────────────────────────────────────────

    def delete_cards(self, ids: list[str]) -> "asyncio.Task[Any] | None":
        """One card: to the trash with an undo; several: one bulk action (``WallBulk``)."""
        ids = list(dict.fromkeys(ids))
        if self.refuse_changes():
            return None
        if len(ids) > 1 and self.bulk is not None:
            return self.bulk.delete(ids)
        previews = {mid: (card[DESCRIPTION] if (card := self._model.card(mid)) else "") for mid in ids}
        writes = [self._service.submit(ops.DeleteMemory(mid)) for mid in ids]  # started now: done even if the wall goes first
        return self._keep(self._delete(ids, writes, previews))

    async def _delete(self, ids: list[str], writes: list[Any], previews: dict[str, str]) -> list[str]:
        results = await asyncio.gather(*writes)
        deleted = [mid for mid, result in zip(ids, results, strict=True) if result is not None]
        if deleted and alive(self) and alive(self._toasts):  # (the wall may have gone meanwhile)
            if len(deleted) == 1:
                preview = _preview(previews[deleted[0]])
                text = lambda: QCoreApplication.translate("MemoryWall", "已删除：{0}").format(preview)  # noqa: E731
            else:
                text = lambda: QCoreApplication.translate("MemoryWall", "已删除 {0} 条记忆").format(counted(len(deleted)))  # noqa: E731
            self._toasts.show_toast(
                text,
                key="deleted:" + ",".join(deleted),
                action_text=lambda: QCoreApplication.translate("MemoryWall", "撤销"),
                on_action=lambda: self.undo_delete(deleted),
                timeout_ms=6000,
                undone_by=restores(deleted),
            )
        return deleted

    def undo_delete(self, ids: list[str]) -> list["asyncio.Task[Any]"]:
        return [self._service.submit(ops.RestoreMemory(mid, reason=reason_text("undo.toast"))) for mid in ids]

    def pin_cards(self, ids: list[str], pinned: bool) -> list["asyncio.Task[Any]"]:
        """Pin ``ids`` (first in their theme) or unpin them, as one action (one Ctrl+Z takes it back):
        one card by itself; several as one bulk write with a toast and its 撤销 (``WallBulk.pin``)."""
        ids = list(dict.fromkeys(ids))
        if self.refuse_changes():
            return []
        if len(ids) > 1 and self.bulk is not None:
            task = self.bulk.pin(ids, pinned)
            return [task] if task is not None else []
        turn = ops.action_turn()
        return [self._service.submit(ops.SetField(mid, "pinned", pinned, as_turn=turn)) for mid in ids]

    def lock_cards(self, ids: list[str], locked: bool) -> "asyncio.Task[Any] | None":
        """Lock (or unlock) ``ids`` against Sonetto and other apps, as one undoable action."""
        if self.refuse_changes():
            return None
        return self.bulk.lock(list(dict.fromkeys(ids)), locked) if self.bulk is not None else None

    # ── other views ───────────────────────────────────────────────────

    def show_history(self, memory_id: str) -> HistoryDialog:
        dialog = HistoryDialog(self._service, memory_id, self._parent())
        dialog.chat_requested.connect(self.chat_requested)
        return self._open(dialog)

    def show_trash(self) -> TrashDialog:
        return self._open(TrashDialog(self._service, self._parent()))

    def copy_card(self, memory_id: str) -> None:
        card = self._model.card(memory_id)
        if card is not None:
            QGuiApplication.clipboard().setText(card[DESCRIPTION])

    # ── drops ─────────────────────────────────────────────────────────

    def handle_drop(self, ids: list[str], theme: str, target_id: str = "") -> Any:
        """A drop of ``ids`` on ``theme``'s section, or in card ``target_id``'s merge zone: one card in
        another card's merge zone opens the merge dialog (the target is kept); otherwise the cards
        move to ``theme``."""
        ids = [mid for mid in dict.fromkeys(ids) if self._model.card(mid) is not None]
        if not ids or self.refuse_changes():
            return None
        if target_id and target_id not in ids and len(ids) == 1:
            return self.merge_cards(target_id, ids[0])
        if all((card := self._model.card(mid)) is not None and card[THEME] == theme for mid in ids):
            if alive(self._toasts):  # a drop that changes nothing says so, and what would
                self._toasts.show_toast(lambda: QCoreApplication.translate(
                    "MemoryWall", "已经在「{0}」里了。要合并，就把它拖到另一张卡片上。").format(theme),
                    key="drop-nothing", kind="info")
            return []
        return self.move_cards(ids, theme, reason_text("user.drag", theme))

    def move_cards(self, ids: list[str], theme: str, reason: str = "") -> list["asyncio.Task[Any]"]:
        """Move ``ids`` to ``theme`` (as the user, with ``reason``); cards already there stay."""
        theme = (theme or "").strip()
        if not theme or self.refuse_changes():
            return []
        reason = reason or reason_text("user.move", theme)
        ids = list(dict.fromkeys(ids))
        if len(ids) > 1 and self.bulk is not None:  # one action, one toast, one undo
            return [task] if (task := self.bulk.move(ids, theme, reason)) is not None else []
        tasks = []
        for memory_id in dict.fromkeys(ids):
            card = self._model.card(memory_id)
            if card is not None and card[THEME] != theme:
                tasks.append(self._service.submit(ops.MoveMemory(memory_id, theme, reason)))
        return tasks

    def ask_new_theme(self, ids: list[str]) -> QInputDialog:
        """"移动到… → 新主题…": ask for the name, then move ``ids`` there."""
        dialog = theme_name_dialog(self._parent())
        dialog.setObjectName("NewThemeDialog")
        dialog.setWindowTitle(QCoreApplication.translate("MemoryWall", "移动到新主题"))
        dialog.setLabelText(QCoreApplication.translate("MemoryWall", "新主题的名字："))
        dialog.textValueSelected.connect(lambda name: self.move_cards(ids, name))
        return self._open(dialog)

    def _move_menu(self, parent: QMenu, ids: list[str]) -> QMenu:
        menu = parent.addMenu(icon("folder"), QCoreApplication.translate("MemoryWall", "移动到…"))
        menu.setObjectName("MoveMenu")
        current = {card[THEME] for card in map(self._model.card, ids) if card is not None}
        counts = self._model.theme_counts()
        for theme in sorted(counts, key=lambda t: (-counts[t], t)):
            if current == {theme}:
                continue
            action = menu.addAction(QCoreApplication.translate("MemoryWall", "{0}（{1}）").format(theme, counts[theme]))
            action.setData(theme)
            action.triggered.connect(lambda _=False, t=theme: self.move_cards(ids, t))
        menu.addSeparator()
        new = menu.addAction(QCoreApplication.translate("MemoryWall", "新主题…"))
        new.setObjectName("new-theme")
        new.triggered.connect(lambda: self.ask_new_theme(ids))
        return menu

    # ── a theme's header menu ─────────────────────────────────────────

    def theme_menu(self, theme: str, collapsed: bool, wall: Any) -> QMenu:
        """折叠/展开 · 更改颜色… · 恢复默认颜色 for ``theme`` (``wall``: the MemoryWall)."""
        menu = QMenu(self._host)
        menu.setObjectName("ThemeMenu")
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        toggle = menu.addAction(QCoreApplication.translate("MemoryWall", "展开") if collapsed
                                else QCoreApplication.translate("MemoryWall", "折叠"))
        toggle.setObjectName("toggle")
        toggle.triggered.connect(lambda: wall.set_collapsed(theme, not collapsed))
        rename = menu.addAction(icon("rename"), QCoreApplication.translate("MemoryWall", "重命名主题…"))
        rename.setObjectName("rename")
        rename.triggered.connect(lambda: self.refuse_changes() or wall.bulk.ask_rename_theme(theme))
        color = menu.addAction(QCoreApplication.translate("MemoryWall", "更改颜色…"))
        color.setObjectName("color")
        color.triggered.connect(lambda: self.pick_color(theme, wall))
        reset = menu.addAction(QCoreApplication.translate("MemoryWall", "恢复默认颜色"))
        reset.setObjectName("reset-color")
        reset.setEnabled(theme in wall.theme_colors.custom)
        reset.triggered.connect(lambda: wall.set_theme_color(theme, None))
        return menu

    def pick_color(self, theme: str, wall: Any) -> QColorDialog:
        dialog = QColorDialog(QColor(wall.theme_colors.color(theme, "light")), self._parent())
        dialog.setObjectName("ThemeColorDialog")
        dialog.setWindowTitle(QCoreApplication.translate("MemoryWall", "「{0}」的颜色").format(theme))
        dialog.colorSelected.connect(lambda c: wall.set_theme_color(theme, c.name()))
        return self._open(dialog)

    # ── context menu ──────────────────────────────────────────────────

    def context_menu(self, memory_id: str, selected: list[str] | None = None, *, unseen: int = 0) -> QMenu:
        """The card's menu: 编辑 / 历史 / 与…合并 / 移动到… / 锁定 / 置顶 / 删除 / 复制 (move, lock, pin and
        delete act on the whole selection). ``unseen``: how many selected cards are out of sight (a
        collapsed theme, scrolled away): the menu says so first, nothing acts on them unsaid."""
        selected = [mid for mid in (selected or []) if mid] or [memory_id]
        if memory_id not in selected:
            selected = [memory_id]
        menu = QMenu(self._host)
        menu.setObjectName("CardMenu")
        menu.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        if unseen and len(selected) > 1:
            note = menu.addAction(QCoreApplication.translate("MemoryWall", "已选 {0} 条，其中 {1} 条不在视野内").format(
                len(selected), unseen))
            note.setObjectName("unseen")
            note.setEnabled(False)
            menu.addSeparator()
        if len(selected) == 1:
            delete_text = QCoreApplication.translate("MemoryWall", "删除")
        else:
            delete_text = QCoreApplication.translate("MemoryWall", "删除 {0} 条").format(counted(len(selected)))
        cards = [card for card in map(self._model.card, selected) if card is not None]
        lock = bool(cards) and not all(card[LOCKED] for card in cards)  # 锁定 unless all are locked
        if lock:
            lock_text = (QCoreApplication.translate("MemoryWall", "锁定") if len(selected) == 1
                         else QCoreApplication.translate("MemoryWall", "锁定 {0} 条").format(counted(len(selected))))
        else:
            lock_text = (QCoreApplication.translate("MemoryWall", "解锁") if len(selected) == 1
                         else QCoreApplication.translate("MemoryWall", "解锁 {0} 条").format(counted(len(selected))))
        pin = bool(cards) and not all(card[PINNED] for card in cards)  # 置顶 unless all are pinned
        if pin:
            pin_text = (QCoreApplication.translate("MemoryWall", "置顶") if len(selected) == 1
                        else QCoreApplication.translate("MemoryWall", "置顶 {0} 条").format(counted(len(selected))))
        else:
            pin_text = (QCoreApplication.translate("MemoryWall", "取消置顶") if len(selected) == 1
                        else QCoreApplication.translate("MemoryWall", "取消置顶 {0} 条").format(counted(len(selected))))
        if len(selected) == 2:  # the two selected cards, in the merge dialog
            merge = ("merge", "merge", QCoreApplication.translate("MemoryWall", "合并这 2 条"),
                     lambda: self.merge_cards(selected[0], selected[1]))
        else:
            merge = ("merge", "merge", QCoreApplication.translate("MemoryWall", "与…合并"),
                     lambda: self.merge_cards(memory_id))
        entries = [
            ("edit", "edit", QCoreApplication.translate("MemoryWall", "编辑"), lambda: self.edit_card(memory_id)),
            ("history", "history", QCoreApplication.translate("MemoryWall", "历史"),
             lambda: self.show_history(memory_id)),
            merge,
            "move",
            ("lock" if lock else "unlock", "lock" if lock else "unlock", lock_text, lambda: self.lock_cards(selected, lock)),
            ("pin" if pin else "unpin", "pin", pin_text, lambda: self.pin_cards(selected, pin)),
            None,
            ("delete", "trash", delete_text, lambda: self.delete_cards(selected)),
            ("copy", "copy", QCoreApplication.translate("MemoryWall", "复制"), lambda: self.copy_card(memory_id)),
        ]
        for entry in entries:
            if entry is None:
                menu.addSeparator()
                continue
            if entry == "move":
                self._move_menu(menu, selected)
                continue
            name, icon_name, text, slot = entry
            action = menu.addAction(icon(icon_name), text) if icon_name else menu.addAction(text)
            action.setObjectName(name)
            action.triggered.connect(slot)
        return menu
