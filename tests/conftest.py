"""Test-wide setup: offscreen Qt, a qasync loop for UI tests, isolated user dirs."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_API", "pyside6")

import pytest

# Child processes write as Python does by default, whatever the environment says: PYTHONUNBUFFERED=1
# (set for pytest-xdist's workers, and by many container images) makes print() write
# each piece on its own, so a child killed mid-print left half an acknowledgement line, while tests
# that relied on it passed without flushing. Children flush what a test reads (print(..., flush=True)).
os.environ.pop("PYTHONUNBUFFERED", None)

pytest_plugins = ["llm_fixtures", "pg_fixtures"]

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# Which tests run on a qasync (Qt) loop: everything under tests/ui/.
_QT_DIR = str(Path(__file__).resolve().parent / "ui")


# qasync's close() leaves Qt timers behind; a closed loop freed later by the garbage collector on a
# worker thread makes Qt stop timers from the wrong thread (warnings, sometimes a crash). Keep every
# loop alive for the whole run: they are few and small.
_QASYNC_LOOPS: list = []


def _qasync_loop():
    import qasync
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    # as the app sets up its own (ui/app.py): closing the last window quits nothing (else a test that
    # closes its only window stops the loop it awaits on, depending on what ran before it in its worker)
    app.setQuitOnLastWindowClosed(False)
    loop = qasync.QEventLoop(app)
    _QASYNC_LOOPS.append(loop)
    return loop


def pytest_xdist_auto_num_workers(config):
    """``-n auto`` (in addopts): one worker per available core, at most 4 (each runs Qt and may start
    a PostgreSQL server of its own; oversubscribing gains little and puts every timed wait under more
    pressure). ``PYTEST_XDIST_AUTO_NUM_WORKERS`` overrides it; ``-n 0`` runs the suite in this process."""
    given = os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS")
    if given and given.isdigit():
        return int(given)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return min(cores, 4) if cores > 1 else 0  # one core: no worker processes, the suite runs here


def pytest_asyncio_loop_factories(config, item):
    if str(item.path).startswith(_QT_DIR):
        return {"qasync": _qasync_loop}
    return {"asyncio": asyncio.new_event_loop}


@pytest.fixture(autouse=True)
def _isolated_user_dirs(tmp_path_factory, monkeypatch):
    """No test touches the real config / data dirs or picks up a real endpoint from the environment."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("SONETTO_CONFIG_DIR", str(home / "config"))
    monkeypatch.setenv("SONETTO_DATA_DIR", str(home / "data"))
    for var in ("SONETTO_BASE_URL", "OPENAI_BASE_URL", "OPENAI_API_KEY", "SONETTO_MODEL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    yield home


def _terminal(locale: str):
    """A terminal whose locale is ``locale`` (for this process and the children it starts): the command
    lines choose their language from it (``cli_words.cli_language``), whatever the machine's own
    ``LANG`` is. Its own MonkeyPatch: a test's ``monkeypatch.undo()`` leaves the terminal as it is."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LANG", locale)
        for var in ("LC_ALL", "LC_MESSAGES"):
            patch.delenv(var, raising=False)
        yield


@pytest.fixture
def english_terminal():
    """An English terminal (``LANG=en_US.UTF-8``): ``sonetto memory`` / ``sonetto history`` speak English."""
    yield from _terminal("en_US.UTF-8")


@pytest.fixture
def chinese_terminal():
    """A Chinese terminal (``LANG=zh_CN.UTF-8``): the command lines speak Chinese (unless the app is set
    to English)."""
    yield from _terminal("zh_CN.UTF-8")
