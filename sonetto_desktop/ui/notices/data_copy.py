"""DataCopyNotice: the copy into a new data folder (settings → 数据文件夹; ``AppServices.apply_settings``)
told as it goes (``AppFeed.data_copy_progress``), in a toast with 取消: a big store or many chats take a
while, and the settings dialog that started it has closed. A copy over within ``SHOW_AFTER_MS`` shows none. 取消 stops the copy
(``AppServices.cancel_carry``): what it copied is removed, the old folder stays in use; the shell says
so when ``apply_settings`` ends (``cancelled_text``). A copy cut short (the app killed) is made again
after the window shows, told here the same way (``AppServices.open(defer_carry=True)``)."""

from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import QCoreApplication, QObject, QTimer

from ..widgets.deferred import alive

KEY = "data-copy"
CANCELLED_KEY = "data-copy-cancelled"
#: A copy over sooner is not shown (a toast come and gone at once only flickers).
SHOW_AFTER_MS = 400


def size_text(size: int) -> str:
    if size >= 1024 ** 3:
        return f"{size / 1024 ** 3:.1f} GB"
    return f"{size / 1024 ** 2:.1f} MB"


def progress_text(progress: Any) -> str:
    return QCoreApplication.translate("DataCopyNotice", "正在复制到新的数据文件夹：{0} / {1}（{2} / {3} 个文件）").format(
        size_text(progress.bytes_done), size_text(progress.total_bytes), progress.files_done, progress.files)


def cancelled_text(folder: Any) -> str:
    return QCoreApplication.translate("DataCopyNotice", "已取消复制，复制了一部分的文件已删除。仍在使用原来的数据文件夹 {0}。").format(folder)


class DataCopyNotice(QObject):
    """``feed``: the app's ``AppFeed``; ``toasts()``: the window's toast overlay (None: not shown yet);
    ``cancel()``: stop the copy (``AppServices.cancel_carry``)."""

    def __init__(self, feed: Any, *, toasts: Callable[[], Any], cancel: Callable[[], bool],
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._toasts = toasts
        self._cancel = cancel
        self._toast: Any = None
        self._closed_by_person = False  # its × or 取消 clicked: not shown again for this copy
        self._latest: Any = None  # the last progress of the copy under way (None: none is)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(SHOW_AFTER_MS)
        self._timer.timeout.connect(self._show)
        feed.data_copy_progress.connect(self._on_progress)

    def _on_progress(self, progress: Any) -> None:
        if progress.files_done == 0 and progress.bytes_done == 0 and not progress.finished:
            self._closed_by_person = False  # a copy begins
            self._timer.start()
        if progress.finished:
            self._end()
            return
        self._latest = progress
        if self._toast is not None:
            self._show()

    def _show(self) -> None:
        progress = self._latest
        if progress is None or self._closed_by_person:
            return
        toasts = self._toasts()
        if toasts is None:
            return
        # (the same key: the toast shown is refreshed, and the overlay fits it to its new text)
        toast = toasts.show_toast(lambda: progress_text(progress), key=KEY, kind="info", timeout_ms=0, repeat=False,
                                  action_text=lambda: QCoreApplication.translate("DataCopyNotice", "取消"),
                                  on_action=self._on_cancel)
        if toast is not self._toast:
            self._toast = toast
            toast.dismissed.connect(self._on_dismissed)

    def _on_cancel(self) -> None:
        self._cancel()  # (the toast is gone already: ``_on_dismissed``)

    def _on_dismissed(self, toast: Any) -> None:
        if toast is self._toast:  # 取消, or its × (the copy goes on): not shown again for this copy
            self._toast = None
            self._closed_by_person = True

    def _end(self) -> None:
        self._timer.stop()
        self._latest = None
        toast, self._toast = self._toast, None
        if toast is not None and alive(toast):
            toast.dismiss()
