"""A process that stops while it holds a store's lock (memory.yaml.lock, an SQLite store's write lock;
suspended with Ctrl+Z, hung on a network drive): the others wait for it, say so once, and give up after
a limit having changed nothing (before, they waited without a word: a YAML store without an end)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import portalocker
import pytest

from sonetto_desktop.memory import SqliteMemoryManager, YamlMemoryManager
from sonetto_desktop.memory.errors import StoreBusy
from sonetto_desktop.memory.stores import lock_wait
from sonetto_desktop.presentation.errors import describe_error

HOLDER = textwrap.dedent("""
    import sys, time, portalocker
    with portalocker.Lock(sys.argv[1], mode="a", flags=portalocker.LOCK_EX):
        print("held", flush=True)
        if len(sys.argv) > 2:
            time.sleep(float(sys.argv[2]))
        else:
            sys.stdin.read()  # until the test closes it
""")


@contextmanager
def _held(lock: Path, seconds: float | None = None, holder: str = HOLDER) -> Iterator[subprocess.Popen]:
    """Another process holding ``lock`` (``holder``: its script) until the block ends (or for ``seconds``,
    then the block waits for it)."""
    args = [sys.executable, "-c", holder, str(lock)] + ([str(seconds)] if seconds is not None else [])
    with subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) as holder:
        assert holder.stdout.readline().strip() == "held"
        try:
            yield holder
        finally:
            holder.stdin.close()
            holder.wait(timeout=10)


@pytest.fixture
def store(tmp_path):
    mm = YamlMemoryManager(tmp_path / "memory.yaml", flush_delay=None)
    mm.add("用户住在成都", "身份")
    yield mm
    mm.close()


def test_a_held_lock_is_waited_for_said_once_and_given_up_on_with_nothing_changed(store, monkeypatch):
    monkeypatch.setattr(lock_wait, "NOTICE_AFTER", 0.2)
    monkeypatch.setattr(lock_wait, "LIMIT", 1.0)
    heard: list[Path] = []
    forget = lock_wait.on_wait(heard.append)
    try:
        with _held(store.lock_path), pytest.raises(StoreBusy) as refused:
            store.add("用户养了一只猫", "品味")
        assert heard == [store.path]  # said once, naming the store
        assert "超过 1 秒，没有做任何修改" in describe_error(refused.value)
    finally:
        forget()
    assert [i.description for i in store.all_items().values()] == ["用户住在成都"]
    store.add("用户养了一只猫", "品味")  # the holder let go: writes go on
    reopened = YamlMemoryManager(store.path, flush_delay=None)
    try:
        assert sorted(i.description for i in reopened.all_items().values()) == ["用户住在成都", "用户养了一只猫"]
    finally:
        reopened.close()


@pytest.mark.parametrize("kind", ["yaml", "sqlite"])
def test_the_command_line_says_it_waits_and_writes_once_the_lock_is_let_go(tmp_path, kind, english_terminal):
    """For either store: one "waiting…" line naming the store's file, then the write, once the holder lets go."""
    if kind == "yaml":
        mm, hold = YamlMemoryManager(tmp_path / "memory.yaml", flush_delay=None), lambda m: _held(m.lock_path)
    else:
        mm, hold = SqliteMemoryManager(tmp_path / "memory.db"), lambda m: _sqlite_held(m.path)
    mm.add("用户住在成都", "身份")
    mm.close()
    with hold(mm):
        cli = subprocess.Popen([sys.executable, "-m", "sonetto_desktop", "memory", "--store", str(mm.path),
                                "add", "用户养了一只猫", "--theme", "品味"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        said = cli.stderr.readline()  # the holder lets go only once the command says it waits (however slow it starts)
    with cli:
        stderr = said + cli.stderr.read()
        assert cli.wait(timeout=60) == 0, stderr
    assert stderr.count("waiting for another process") == 1 and f"writing {mm.path.name}…" in said
    again = type(mm)(mm.path) if kind == "sqlite" else YamlMemoryManager(mm.path, flush_delay=None)
    try:
        assert sorted(i.description for i in again.all_items().values()) == ["用户住在成都", "用户养了一只猫"]
    finally:
        again.close()


SQLITE_HOLDER = textwrap.dedent("""
    import sqlite3, sys, time
    conn = sqlite3.connect(sys.argv[1], isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    print("held", flush=True)
    if len(sys.argv) > 2:
        time.sleep(float(sys.argv[2]))
    else:
        sys.stdin.read()
    conn.execute("ROLLBACK")
""")


def _sqlite_held(db: Path, seconds: float | None = None):
    return _held(db, seconds, SQLITE_HOLDER)


def test_an_sqlite_store_waits_as_long_says_so_and_gives_up_the_same_way(tmp_path, monkeypatch):
    monkeypatch.setattr(lock_wait, "NOTICE_AFTER", 0.2)
    monkeypatch.setattr(lock_wait, "LIMIT", 1.0)
    db = SqliteMemoryManager(tmp_path / "memory.db")
    heard: list[Path] = []
    forget = lock_wait.on_wait(heard.append)
    try:
        db.add("用户住在成都", "身份")
        with _sqlite_held(db.path), pytest.raises(StoreBusy) as refused:
            db.add("用户养了一只猫", "品味")
        assert heard == [db.path] and "超过 1 秒，没有做任何修改" in describe_error(refused.value)
        assert [i.description for i in db.all_items().values()] == ["用户住在成都"]
        db.add("用户养了一只猫", "品味")
        assert len(db.all_items()) == 2
    finally:
        forget()
        db.close()


def _windows_like_lock(file_obj, flags) -> None:
    """``portalocker.lock`` as it behaves on Windows (``MsvcrtLocker``): a blocking lock is
    ``msvcrt.locking(LK_LOCK)``, which tries a few times a moment apart and then gives up with
    ``AlreadyLocked`` (ten tries a second apart there; three tries 0.1 s apart here)."""
    import fcntl  # (not on Windows: the test runs elsewhere)

    tries = 1 if flags & portalocker.LOCK_NB else 3
    for attempt in range(tries):
        try:
            fcntl.flock(file_obj.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if attempt + 1 < tries:
                time.sleep(0.1)
    raise portalocker.AlreadyLocked(portalocker.LockException.LOCK_FAILED, "EDEADLOCK")


@pytest.mark.skipif(sys.platform == "win32", reason="emulates Windows' locking with flock")
def test_where_a_blocking_lock_gives_up_by_itself_the_wait_still_lasts_until_the_limit(store, monkeypatch):
    """On Windows portalocker's blocking lock gives up after about ten seconds (msvcrt's LK_LOCK): the
    wait goes on until the lock is free or the limit has passed, and ends in ``StoreBusy``, not in
    portalocker's own ``AlreadyLocked`` after ten seconds (which no one handles: the write failed with
    a message that says nothing to the person)."""
    monkeypatch.setattr(portalocker, "lock", _windows_like_lock)
    monkeypatch.setattr(lock_wait, "NOTICE_AFTER", 0.2)
    monkeypatch.setattr(lock_wait, "LIMIT", 5.0)
    with _held(store.lock_path, seconds=1.0):
        store.add("用户养了一只猫", "品味")  # the holder lets go after 1 s: the write goes on then
    assert sorted(i.description for i in store.all_items().values()) == ["用户住在成都", "用户养了一只猫"]
    monkeypatch.setattr(lock_wait, "LIMIT", 1.0)
    with _held(store.lock_path), pytest.raises(StoreBusy):
        store.add("用户会弹吉他", "爱好")


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT is how a terminal's Ctrl+C reaches a process on POSIX")
@pytest.mark.parametrize("command", [("memory", "add", "用户养了一只猫", "--theme", "品味"), ("history", "status")])
def test_ctrl_c_stops_the_command_lines_wait_as_its_line_says(store, command):
    store.close()
    _interrupted(store.path, _held(store.lock_path), command)
    reopened = YamlMemoryManager(store.path, flush_delay=None)
    try:
        assert [i.description for i in reopened.all_items().values()] == ["用户住在成都"]
    finally:
        reopened.close()


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT is how a terminal's Ctrl+C reaches a process on POSIX")
def test_ctrl_c_stops_the_wait_for_an_sqlite_store_too(tmp_path):
    db = SqliteMemoryManager(tmp_path / "memory.db")
    db.add("用户住在成都", "身份")
    db.close()
    _interrupted(db.path, _sqlite_held(db.path), ("memory", "add", "用户养了一只猫", "--theme", "品味"))
    again = SqliteMemoryManager(db.path)
    try:
        assert [i.description for i in again.all_items().values()] == ["用户住在成都"]
    finally:
        again.close()


def _interrupted(path: Path, holding, command: tuple[str, ...]) -> None:
    """The command line says "(Ctrl+C to stop)" while it waits for another process's lock: Ctrl+C ends
    the command then, with nothing changed (before, the wait went on in a worker thread that the
    interpreter waits for on its way out: Ctrl+C did nothing until the minute was up)."""
    import signal

    with holding:
        name, *rest = command
        args = [sys.executable, "-m", "sonetto_desktop", name, "--store", str(path), *rest]
        env = {**os.environ, "LANG": "en_US.UTF-8", "LC_ALL": "", "LC_MESSAGES": ""}
        with subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env) as cli:
            line = cli.stderr.readline()
            assert "waiting for another process" in line and "Ctrl+C" in line, line
            cli.send_signal(signal.SIGINT)
            try:
                cli.communicate(timeout=30)  # (the lock is still held, and would be for a minute)
            except subprocess.TimeoutExpired:
                cli.kill()
                cli.communicate()
                pytest.fail("Ctrl+C did not stop the command while it waited for the lock")
            assert cli.returncode == 130


def test_a_command_run_in_process_leaves_no_listener_behind(store, capsys):
    """``sonetto memory`` / ``sonetto history`` run in-process (``cli.main``, as the tests and a script
    do) take their lock-wait line away when they end: it went on printing for whatever waited later in
    that process (and the window's listener check saw it)."""
    from sonetto_desktop import cli, cli_history

    store.close()
    before = list(lock_wait._listeners)
    assert cli.main(["--store", str(store.path), "list"]) == 0
    assert cli_history.main(["--store", str(store.path), "status"]) == 0
    assert lock_wait._listeners == before


class _Interrupted(Exception):
    """What a signal handler raises into a wait (a terminal's Ctrl+C: ``KeyboardInterrupt``)."""


@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX timer signal interrupts the wait")
def test_a_wait_interrupted_by_an_exception_lets_the_lock_go_once_its_helper_gets_it(store):
    """A wait cut short by an exception raised into it (Ctrl+C's ``KeyboardInterrupt`` on the waiting
    thread, a signal handler's) gives the lock up like a wait given up at the limit: its helper thread,
    still blocked in the system's lock call, lets the lock go as soon as it gets it. Before, the helper
    kept it, taken and never let go: every other process (the window, ``sonetto mcp``, the command
    line) then waited on that store and gave up, for as long as anything kept the exception (its file was
    let go only when the interrupted call's frames were collected)."""
    import signal
    import threading

    def interrupt(signum, frame):
        raise _Interrupted

    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        with _held(store.lock_path, seconds=1.5):
            signal.setitimer(signal.ITIMER_REAL, 0.5)  # while the wait is under way (the holder: 1.5 s)
            with pytest.raises(_Interrupted) as interrupted:  # kept, as a task's result keeps its exception
                with lock_wait.exclusive(store.lock_path, store.path):
                    pytest.fail("the lock was taken while another process held it")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    for helper in [t for t in threading.enumerate() if t.name == "store-lock-wait"]:
        helper.join(timeout=10)  # it got the lock when the holder let go (and let it go, or kept it)
    probe = subprocess.run([sys.executable, "-c", textwrap.dedent("""
        import sys, portalocker
        with open(sys.argv[1], "a") as f:
            try:
                portalocker.lock(f, portalocker.LOCK_EX | portalocker.LOCK_NB)
            except portalocker.AlreadyLocked:
                print("held")
            else:
                print("free")
    """), str(store.lock_path)], capture_output=True, text=True, timeout=30)
    assert probe.stdout.strip() == "free", "the lock stays held by the interrupted wait's helper"
    assert interrupted.type is _Interrupted
    store.add("用户养了一只猫", "品味")
    assert len(store.all_items()) == 2


@pytest.mark.parametrize("kind", ["yaml", "sqlite"])
async def test_quitting_behind_a_stuck_holder_is_prompt_loses_nothing_acknowledged_and_says_what_was_not_saved(
        tmp_path, kind, caplog):
    """Another process holds the store's lock and never lets go (suspended with Ctrl+Z, hung on a network
    drive) while the app quits with a write under way: the quit waited for that write's minute, then the
    background rewrite's and the close's own (three minutes for a YAML store, the window still shown).
    Now it ends within seconds: the write under way is refused (nothing of it written) and said, every
    write acknowledged before is kept (the YAML store's log: memory.yaml catches up at the next opening)."""
    import asyncio
    import logging

    from sonetto_desktop import ops
    from sonetto_desktop.config.settings import Settings
    from sonetto_desktop.services import AppServices

    settings = Settings(data_dir=str(tmp_path / "data"), retrieval_mode="mechanical", store_backend=kind)
    services = await AppServices.open(settings=settings, watch=False)
    store = services.store
    services.memory.add("用户住在成都", "身份")  # acknowledged: must be kept
    hold = _held(store.lock_path) if kind == "yaml" else _sqlite_held(store.path)
    caplog.set_level(logging.WARNING)
    with hold:
        pending = asyncio.ensure_future(services.run(ops.AddMemory("用户养了一只猫", "品味")))
        for _ in range(600):  # (the write waits for the holder, and says so after two seconds)
            if any("waiting for another process" in r.getMessage() for r in caplog.records):
                break
            await asyncio.sleep(0.05)
        else:
            pytest.fail("the write did not wait for the holder")
        try:
            await asyncio.wait_for(services.close(), timeout=30)  # (the holder would hold it for a minute and more)
        except asyncio.TimeoutError:
            pytest.fail("quitting waited for the process that holds the store")
        outcome = await pending
        assert isinstance(outcome, ops.Failed) and "没有做任何修改" in outcome.message
        said = [r.getMessage() for r in caplog.records if r.name == "sonetto_desktop.services"]
        assert any("not saved" in line and "AddMemory" in line for line in said), said
    again = type(store)(store.path)
    try:
        assert [i.description for i in again.all_items().values()] == ["用户住在成都"]
    finally:
        again.close()


def test_an_sqlite_writes_short_waits_never_shorten_another_threads(tmp_path):
    """An SQLite write waits for another process's write lock in steps (``_begin`` sets its connection's
    ``busy_timeout`` to a second at a time, then back to the minute): another thread's statement
    meanwhile waits as long as ever, because every thread has a connection of its own (and the watcher's,
    shared by any thread, is never changed). Checked while the steps are under way."""
    import threading

    db = SqliteMemoryManager(tmp_path / "memory.db")
    db.add("用户住在成都", "身份")
    stepping = threading.Event()
    forget = lock_wait.on_wait(lambda _path: stepping.set())  # said once the write waits in its steps
    outcome: list[object] = []
    try:
        with _sqlite_held(db.path):
            writer = threading.Thread(target=lambda: outcome.append(db.add("用户养了一只猫", "品味")))
            writer.start()
            assert stepping.wait(30)
            mine = db._conn()
            assert mine.execute("PRAGMA busy_timeout").fetchone()[0] == int(lock_wait.LIMIT * 1000)
            with db._watch_lock:
                assert db._watch_conn.execute("PRAGMA busy_timeout").fetchone()[0] == int(lock_wait.LIMIT * 1000)
            assert [i.description for i in db.all_items().values()] == ["用户住在成都"]  # reads go on (WAL)
            assert writer.is_alive()
        writer.join(30)
        assert len(outcome) == 1 and len(db.all_items()) == 2
    finally:
        forget()
        db.close()


async def test_quitting_when_no_loop_runs_any_more_stops_the_waits_at_once(tmp_path):
    """The window system went away while the app quit: the rest of the shutdown ran with no event loop
    running, and ``quitting`` (which sets a timer on the loop) raised "no running event loop", which
    stopped the shutdown halfway and left the process running for ever. Now it stops the waits at once."""
    import threading

    from sonetto_desktop.config.settings import Settings
    from sonetto_desktop.services import AppServices

    services = await AppServices.open(settings=Settings(data_dir=str(tmp_path / "data"), retrieval_mode="mechanical"),
                                      watch=False)
    try:
        failed: list[BaseException] = []

        def quit_outside_the_loop() -> None:
            try:
                services.quitting()
            except BaseException as exc:  # noqa: BLE001 - what the test looks at
                failed.append(exc)

        thread = threading.Thread(target=quit_outside_the_loop)
        thread.start()
        thread.join(10)
        assert failed == []
        with pytest.raises(StoreBusy):  # waits stopped: a held lock is not waited for any more
            with _held(services.store.lock_path):
                services.memory.add("用户养了一只猫", "品味")
    finally:
        await services.close()
