"""TransferActions: memory import and export from the window (File menu), in the CLI's formats
(``memory/transfer.py``: .yaml, .json, .md).

Export: a save dialog, then the file is written atomically (temp file, fsync, replace) in a worker,
never on the Qt thread. Import: an open dialog, the file is read and checked in a worker, then
:class:`ImportPreviewDialog` shows what will change; only 导入 writes, through the services' memory
operations as the user (one ``import`` change). Every outcome is said once through ``message``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import shiboken6
from PySide6.QtCore import QCoreApplication, QObject, Qt, Signal
from PySide6.QtWidgets import QFileDialog, QWidget

from sonetto_desktop import ops
from sonetto_desktop.memory.reasons import reason_text
from sonetto_desktop.memory.transfer import ImportFormatError, format_for, marks_beside, read_import, trash_beside
from sonetto_desktop.presentation.errors import error_detail, left_out
from sonetto_desktop.presentation.i18n import Worded

from ..widgets.dialogs import execute_dialog
from ..widgets.file_dialogs import translated
from .import_preview import ImportPreviewDialog
from ..memory_service import MemoryService
from ..widgets.tasks import task_scope

_FILTERS = ("YAML (*.yaml *.yml)", "JSON (*.json)", "Markdown (*.md)")
_SUFFIX = {"YAML": ".yaml", "JSON": ".json", "Markdown": ".md"}


def _match_suffix(dialog: QFileDialog, name_filter: str) -> None:
    """Picking another file type changes the typed name's extension (the format follows the name)."""
    suffix = _SUFFIX.get(name_filter.split()[0] if name_filter else "", "")
    files = dialog.selectedFiles()
    if suffix and files:
        dialog.selectFile(str(Path(files[0]).with_suffix(suffix)))


def _known_type(path: Path) -> bool:
    try:
        format_for(path)
    except ImportFormatError:
        return False
    return True


class TransferActions(QObject):
    message = Signal(object, str)  # text (a ``Worded``: said again on a language switch), kind ("info" | "error")

    def __init__(self, service: MemoryService, parent: QWidget) -> None:
        super().__init__(parent)
        self._service = service
        self._parent = parent
        self._tasks = task_scope(self, "TransferActions")
        self.active_dialog: Any = None

    # ── export ────────────────────────────────────────────────────────

    def export_memories(self) -> "asyncio.Task[Any]":
        return self._tasks.spawn(self._export_flow())

    async def _export_flow(self) -> int | None:
        dialog = translated(QFileDialog(self._parent, self.tr("导出记忆"), str(Path.home() / "sonetto-memories.yaml")))
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setNameFilters(list(_FILTERS))
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.active_dialog = dialog
        dialog.filterSelected.connect(lambda name_filter: _match_suffix(dialog, name_filter))
        chosen: list[tuple[str, str]] = []  # the file and its type, taken before the dialog goes (delete on close)
        dialog.fileSelected.connect(lambda name: chosen.append((name, dialog.selectedNameFilter())))
        if await execute_dialog(dialog) != QFileDialog.DialogCode.Accepted or not chosen:
            return None
        name, name_filter = chosen[0]
        path = Path(name)
        if not _known_type(path):  # no type, or a dot in the name ("记忆备份 2026.12.07"): the chosen one added
            path = path.with_name(path.name + _SUFFIX.get(name_filter.split()[0] if name_filter else "", ".yaml"))
        return await self.export_to(path)

    async def export_to(self, path: Path) -> int | None:
        """Export every memory to ``path`` (format from its extension) off the Qt thread."""
        try:
            fmt = format_for(path)
        except ImportFormatError as exc:
            failure = exc  # (``exc`` is gone after the clause)
            self.message.emit(Worded(lambda: QCoreApplication.translate("TransferActions", "无法导出：{0}").format(error_detail(failure))), "error")
            return None
        count = await self._service.run(ops.ExportTo(path, fmt))  # a failure is reported by the service
        if count is None:
            return None
        side = await self._service.run(ops.Call.of(marks_beside, path, fmt))  # (YAML: the pins beside it)
        trashed = getattr(count, "trashed", 0)
        bin_ = await self._service.run(ops.Call.of(trash_beside, path, fmt)) if trashed else None

        memories = int(count)

        def said() -> str:
            if side is not None:
                text = QCoreApplication.translate("TransferActions", "已导出 %Ln 条记忆到 {0}；置顶标记在旁边的 {1} 里，搬到别处时请一起带上", "",
                                                  memories).format(path.name, side.name)
            else:
                text = QCoreApplication.translate("TransferActions", "已导出 %Ln 条记忆到 {0}", "", memories).format(path.name)
            if bin_ is not None:  # (YAML: the trash beside it)
                text += QCoreApplication.translate("TransferActions", "；回收站里的 %Ln 条在旁边的 {0} 里，导入时会回到回收站", "", trashed).format(bin_.name)
            elif trashed:
                text += QCoreApplication.translate("TransferActions", "；回收站里的 %Ln 条也在里面，导入时会回到回收站", "", trashed)
            return text

        self.message.emit(Worded(said), "info")
        return count

    # ── import ────────────────────────────────────────────────────────

    def import_memories(self) -> "asyncio.Task[Any] | None":
        """File ▸ 导入记忆…: choose a file, preview, import. None when changes are refused now (a memory
        server away or refusing this computer): said before a file is chosen for nothing."""
        refusal = self._service.refusal()
        if refusal is not None:
            self.message.emit(refusal, "error")
            return None
        return self._tasks.spawn(self._import_flow())

    async def _import_flow(self) -> Any:
        dialog = translated(QFileDialog(self._parent, self.tr("导入记忆"), str(Path.home())))
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.setNameFilters([self.tr("记忆导出文件 (*.yaml *.yml *.json *.md)"), *_FILTERS])
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.active_dialog = dialog
        chosen: list[str] = []
        dialog.fileSelected.connect(chosen.append)
        if await execute_dialog(dialog) != QFileDialog.DialogCode.Accepted or not chosen:
            return None
        return await self.import_from(Path(chosen[0]))

    async def import_from(self, path: Path) -> tuple[list[str], list[str]] | None:
        """Read ``path`` (in a worker), preview what it changes, and import only if the person says so."""
        read = await self._service.outcome(ops.Call.of(read_import, path))
        if isinstance(read, ops.Failed):  # a file that is not an export, or cannot be read: said, nothing changed
            self.message.emit(Worded(lambda: QCoreApplication.translate("TransferActions", "无法导入 {0}：{1}").format(path.name, read.detail)), "error")
            return None
        items = read.value
        preview = await self._service.run(ops.PreviewImport(items))
        if preview is None or not shiboken6.isValid(self._parent):
            return None
        note = left_out(items)  # a damaged NAME.trash.yaml or NAME.flags.yaml: left out, said
        dialog = ImportPreviewDialog(preview, path.name, self._parent, note=note)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        self.active_dialog = dialog
        if await execute_dialog(dialog) != ImportPreviewDialog.DialogCode.Accepted:
            return None
        result = await self._service.submit(ops.ImportItems(items, reason_text("import.file", path.name)))
        if result is not None:
            self.message.emit(Worded(lambda: _imported(result, items)), "error" if note else "info")
        return result

    async def close(self) -> None:
        await self._tasks.close()


def _imported(result: Any, items: Any) -> str:
    """What an import from a file did, in the UI's language of now."""
    trashed = len(result.trashed)  # (a plain name: lupdate reads only those as a count)
    text = QCoreApplication.translate("TransferActions", "已导入 {0} 条记忆，跳过 {1} 条重复的").format(
        len(result.added), len(result.skipped))
    if trashed and not result.added:  # (an undo of an import leaves its trash: here it would do nothing)
        text += QCoreApplication.translate(
            "TransferActions", "；%Ln 条删除了的记忆放回了回收站（这次导入没有新增记忆，无从撤销；不需要的可以在回收站里永久删除）", "", trashed)
    elif trashed:
        text += QCoreApplication.translate("TransferActions", "；%Ln 条删除了的记忆放回了回收站（撤销这次导入时它们仍留在回收站）", "", trashed)
    note = left_out(items)
    if note:  # (imported, but a part of the backup is not: said as long as a failure is)
        text = QCoreApplication.translate("TransferActions", "{0}。{1}").format(text, note)
    return text
