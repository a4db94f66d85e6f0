"""Awaitable dialogs: ``result = await execute_dialog(dialog)`` opens the dialog window-modal (``open()``,
never a nested ``exec()`` loop under qasync) and resumes the coroutine when it is finished.

A coroutine reads straight through ("ask, then act on the answer") instead of a chain of callbacks,
each guarded against the dialog having been deleted meanwhile.
"""

from __future__ import annotations

import asyncio

from PySide6.QtWidgets import QDialog


async def execute_dialog(dialog: QDialog) -> int:
    """Open ``dialog`` and return its result code once it is finished (``QDialog.Rejected`` if it is
    destroyed first). The dialog is not deleted here; give it ``WA_DeleteOnClose`` if it should be."""
    future: asyncio.Future[int] = asyncio.get_running_loop().create_future()

    def finished(code: int) -> None:
        if not future.done():
            future.set_result(int(code))

    def destroyed(*_: object) -> None:
        if not future.done():
            future.set_result(int(QDialog.DialogCode.Rejected))

    dialog.finished.connect(finished)
    dialog.destroyed.connect(destroyed)
    dialog.open()
    return await future
