"""Helpers for the shell's UI tests (imported by the test modules; tests/ui/conftest.py belongs to
the wall): a real ChatEngine over a real store and writer, and the whole app on a temp data dir."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any, AsyncIterator

from sonetto_desktop.config.settings import Settings

# Offscreen-platform noise (not our code) for tests that raise windows; a test-level qt_log_ignore
# replaces the conftest's, so it lists both.
OFFSCREEN_RAISE = r"^This plugin does not support raise\(\)$"
OFFSCREEN_SIZE_HINTS = r"^This plugin does not support propagateSizeHints\(\)$"


@contextlib.asynccontextmanager
async def running_engine(data_dir: Path, llm: Any, *, start_writer: bool = False) -> AsyncIterator[tuple]:
    """(store, ltm, engine): a YAML store, its LongTermMemory (recall + writer) and a started
    ChatEngine on ``llm``."""
    from ltm_helpers import make_ltm
    from sonetto_desktop.agent.engine import ChatEngine
    from sonetto_desktop.memory import YamlMemoryManager

    data_dir.mkdir(parents=True, exist_ok=True)
    store = YamlMemoryManager(data_dir / "memory.yaml")
    ltm = make_ltm(store, llm, start=start_writer)
    engine = ChatEngine(ltm, data_dir=data_dir, llm_factory=lambda: llm, retrieval_mode="mechanical")
    await engine.start()
    try:
        yield store, ltm, engine
    finally:
        await engine.close()
        await ltm.writer.stop(2)
        ltm.recall.close()
        store.close()


def app_settings(data_dir: Path, server: Any = None, **changes: Any) -> Settings:
    """Settings for a test app: the data dir, and the scripted server as the model when given."""
    values: dict[str, Any] = {"data_dir": str(data_dir), "retrieval_mode": "mechanical", "theme": "light"}
    if server is not None:
        values.update(base_url=server.base_url, model="test-model", api_key="sk-test", request_timeout=5.0)
    values.update(changes)
    return Settings(**values)


@contextlib.asynccontextmanager
async def running_app(qapp: Any, settings: Settings, **kwargs: Any) -> AsyncIterator[Any]:
    """The composed app (window, wall, tray, quick chat, writer, engine), shut down afterwards."""
    from sonetto_desktop.ui.shell import SonettoApp

    kwargs.setdefault("interactive", False)
    app = SonettoApp(qapp, settings, writer_drain_timeout=2.0, **kwargs)
    try:
        await app.start()
        await app.wait_until_ready()
        yield app
    finally:
        await app.shutdown()




@contextlib.asynccontextmanager
async def app_whose_chat_cannot_start(qapp: Any, data_dir: Path) -> AsyncIterator[Any]:
    """The composed app on ``data_dir`` whose chat cannot start (its session database is a folder), past
    that failure; shut down afterwards."""
    import pytest

    from sonetto_desktop.ui.shell import SonettoApp

    (data_dir / "sessions.db").mkdir(parents=True)
    app = SonettoApp(qapp, app_settings(data_dir), interactive=False, writer_drain_timeout=2.0)
    try:
        await app.start()
        with pytest.raises(Exception):
            await app.wait_until_ready()
        yield app
    finally:
        await app.shutdown()
