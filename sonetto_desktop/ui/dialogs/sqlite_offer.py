"""Offer the SQLite store once a YAML memory file has grown large (issue 14).

A ``memory.yaml`` stays the default (it is SonettoHere's format, readable and diffable), but past
``THRESHOLD`` memories SQLite starts faster and uses less memory. After the wall has loaded, a toast
says so with one button: "换成 SQLite" saves the setting and switches through the same lossless,
crash-safe migration the settings dialog uses. Closing the toast means "not now": the offer comes
back after ``QUIET_DAYS`` days, or sooner once the store has doubled since it was last offered.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from sonetto_desktop.config.settings import Settings
from ... import ops
from ..memory_service import run_op
from ..widgets.owner import Owner

THRESHOLD = 5000
QUIET_DAYS = 30
_KEY = "sqlite_offer/{}"


class SqliteOffer:
    """``await check()`` once the wall has loaded; returns whether the toast was shown."""

    _toasts = Owner()  # the window's overlay, held weakly: its toast's action holds this offer (widgets/owner.py)

    def __init__(self, toasts: Any, services: Any, apply: Callable[[Settings], Awaitable[None]],
                 ui_state: QSettings, spawn: Callable[[Awaitable[None]], Any], *, threshold: int | None = None,
                 save: Callable[[Settings], None] | None = None) -> None:
        self._toasts = toasts
        self._services = services
        self._apply = apply
        self._state = ui_state
        self._threshold = THRESHOLD if threshold is None else threshold
        self._save = save or (lambda settings: settings.save())
        self._spawn = spawn
        self.switching: Any = None

    async def check(self) -> bool:
        settings = self._services.settings
        if settings.store_backend != "yaml" or self._services.store is None:
            return False
        counted = await run_op(ops.Count(), self._services)
        if not counted.ok:  # (logged) a store that cannot be counted now is asked again next start
            return False
        count = counted.value
        if count <= self._threshold or not self._due(count) or self._toasts is None:  # (None: the window went)
            return False
        self._state.setValue(_KEY.format("offered_at"), time.time())
        self._state.setValue(_KEY.format("offered_count"), count)
        text = lambda: QApplication.translate("SqliteOffer", "记忆已有 {0} 条。换成 SQLite 记忆库会启动更快、占用更少内存；"  # noqa: E731
                                                   "所有记忆和历史都会原样迁移，随时可以在设置里换回。").format(f"{count:,}")
        self._toasts.show_toast(text, key="sqlite-offer", kind="info", timeout_ms=0,
                                action_text=lambda: QApplication.translate("SqliteOffer", "换成 SQLite"),
                                on_action=self._accept)
        return True

    def _due(self, count: int) -> bool:
        offered_at = self._state.value(_KEY.format("offered_at"), 0.0, type=float)
        offered_count = self._state.value(_KEY.format("offered_count"), 0, type=int)
        if not offered_at:
            return True
        return time.time() - offered_at > QUIET_DAYS * 86400 or count >= 2 * max(offered_count, 1)

    def _accept(self) -> None:
        self.switching = self._spawn(self._switch())

    async def _switch(self) -> None:
        new = replace(self._services.settings, store_backend="sqlite")
        saved = await run_op(ops.Call.of(self._save, new))
        if isinstance(saved, ops.Failed):
            if self._toasts is not None:
                self._toasts.show_toast(lambda: QApplication.translate("SqliteOffer", "无法保存设置：{0}").format(saved.detail),
                                        key="sqlite-offer-failed", kind="error")
            return
        await self._apply(new)
