"""SettingsFollower: a process other than the window (``sonetto mcp``) following the settings the person
saves in the app, without a restart. Qt-free.

The window saves with ``Settings.save`` (settings.json written atomically, then the secrets: keyring or
the key files beside it). The follower looks at the identity of those files (inode, mtime, size: a
``stat`` each, in a worker) every ``interval`` seconds and whenever ``refresh()`` is awaited (the MCP
tools do before each call, so a call made after a save sees it); when one changed it reads the settings
again (``Settings.load_exactly`` through ``load``) and, if they differ from the ones in use, hands them to
``apply`` (the services' ``apply_settings``, the window's path). A keyring secret changes no file: the
settings are read once more ``settle`` seconds after each change (the secrets are stored after the file).

A file that cannot be read, or settings that cannot be applied, are logged and skipped: the previous
settings stay in use, the follower keeps following (a later save is applied), the process keeps serving.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from .aio import run_blocking, spawn
from .config.paths import config_dir
from .config.secrets import KEY_FILE, POSTGRES_PASSWORD
from .config.settings import EMBEDDINGS_API_KEY, SETTINGS_FILE, Settings, SettingsUnreadable

log = logging.getLogger(__name__)

#: Seconds between two looks at the settings files.
DEFAULT_INTERVAL = 1.0
#: Seconds after a change when the settings are read once more (a keyring secret saved after the file).
DEFAULT_SETTLE = 2.0

Identity = tuple[tuple[int, int, int] | None, ...]


def _identity(paths: tuple[Path, ...]) -> Identity:
    out: list[tuple[int, int, int] | None] = []
    for path in paths:
        try:
            st = path.stat()
        except OSError:
            out.append(None)
        else:
            out.append((st.st_ino, st.st_mtime_ns, st.st_size))
    return tuple(out)


def load_saved(path: Path | None = None) -> Settings:
    """The saved settings as the process runs them (the environment's overrides on top); raises
    ``SettingsUnreadable`` for a damaged file (blocking)."""
    return Settings.load_exactly(path).with_env()


class SettingsFollower:
    """See the module docstring. ``current()``: the settings in use; ``apply(new)``: use ``new`` (may
    raise: logged, the previous ones stay); ``load()``: the saved settings (blocking, default
    ``load_saved``); ``path``: settings.json (default: the config dir's)."""

    def __init__(self, current: Callable[[], Settings], apply: Callable[[Settings], Awaitable[None]], *,
                 path: Path | None = None, load: Callable[[], Settings] | None = None,
                 interval: float = DEFAULT_INTERVAL, settle: float = DEFAULT_SETTLE) -> None:
        path = Path(path) if path is not None else config_dir() / SETTINGS_FILE
        self._paths = (path, *(path.parent / name for name in (KEY_FILE, POSTGRES_PASSWORD, EMBEDDINGS_API_KEY)))
        self._current = current
        self._apply = apply
        self._load = load or (lambda: load_saved(path))
        self.interval = interval
        self.settle = settle
        self._seen: Identity | None = None  # None: not looked yet (the first look compares the contents)
        self._again_at: float | None = None  # read once more then (see ``settle``)
        self._lock = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None
        self._last_problem = ""
        #: How many times new settings were applied (for tests and logs).
        self.applied = 0

    def start(self) -> None:
        """Follow in the background on the running loop (no-op when already running)."""
        if self._task is None or self._task.done():
            self._task = spawn(self._run(), name="sonetto-settings-follower")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def refresh(self) -> bool:
        """Apply the saved settings if their files changed since the last look (or the settle time has
        come); True when new settings were applied. Never raises for a bad file or a failed apply."""
        identity = await run_blocking(_identity, self._paths)
        due = self._again_at is not None and time.monotonic() >= self._again_at
        if identity == self._seen and not due:
            if self._lock.locked():  # another look is applying what it saw: a call after a save waits for it
                async with self._lock:
                    pass
            return False
        async with self._lock:
            identity = await run_blocking(_identity, self._paths)
            due = self._again_at is not None and time.monotonic() >= self._again_at
            if identity == self._seen and not due:
                return False  # another call applied it meanwhile
            changed = identity != self._seen and self._seen is not None
            self._seen = identity
            self._again_at = time.monotonic() + self.settle if changed else None
            return await self._read_and_apply()

    async def _read_and_apply(self) -> bool:
        try:
            new = await run_blocking(self._load)
        except (SettingsUnreadable, OSError) as exc:
            self._say(f"the saved settings cannot be read ({exc}); keeping the ones in use")
            return False
        if new == self._current():
            return False
        try:
            await self._apply(new)
        except Exception as exc:  # whatever failed, the process keeps serving
            log.warning("could not apply the settings saved in Sonetto (%s: %s); keeping the previous ones",
                        type(exc).__name__, exc, exc_info=log.isEnabledFor(logging.DEBUG))
            return False
        self._last_problem = ""
        self.applied += 1
        log.info("applied the settings saved in Sonetto")
        return True

    def _say(self, problem: str) -> None:
        if problem != self._last_problem:
            log.warning("%s", problem)
            self._last_problem = problem

    async def _run(self) -> None:
        while True:
            try:
                await self.refresh()
            except asyncio.CancelledError:
                raise
            except Exception:  # never stop following over one bad look
                log.warning("following the settings failed; trying again", exc_info=True)
            await asyncio.sleep(self.interval)
