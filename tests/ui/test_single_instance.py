"""One window per profile (``ui/single_instance.py``): a second launch brings the running app's window
to the front and ends; a run that was killed never blocks the next start. Real file locks, real local
sockets, and the app's own ``main`` in child processes (offscreen)."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from PySide6.QtNetwork import QLocalSocket

from shell_fixtures import OFFSCREEN_RAISE, OFFSCREEN_SIZE_HINTS, app_settings
from sonetto_desktop.ui import single_instance
from sonetto_desktop.ui.single_instance import SingleInstance, server_name

ROOT = Path(__file__).resolve().parents[2]


def _name() -> str:
    return f"sonetto-test-{uuid.uuid4().hex[:12]}"


def test_a_second_claim_asks_the_first_to_show_its_window(qapp, qtbot, tmp_path):
    name = _name()
    first = SingleInstance(tmp_path, name)
    try:
        assert first.claim()
        assert first.lock_path.exists() and first.lock_path.parent == tmp_path
        second = SingleInstance(tmp_path, name)
        with qtbot.waitSignal(first.show_requested, timeout=5000):
            assert not second.claim()  # another one runs: it was asked, this launch ends
        second.close()
        shown: list[bool] = []
        first.show_requested.connect(lambda: shown.append(True))
        quiet = SingleInstance(tmp_path, name)  # a start in the tray (at login): the running app stays as it is
        assert not quiet.claim(show=False)
        qtbot.wait(300)
        assert shown == []
    finally:
        first.close()
    again = SingleInstance(tmp_path, name)  # the first has ended: the next launch is the app
    try:
        assert again.claim()
    finally:
        again.close()


def test_a_peer_that_sends_anything_else_shows_nothing(qapp, qtbot, tmp_path):
    name = _name()
    first = SingleInstance(tmp_path, name)
    shown: list[bool] = []
    first.show_requested.connect(lambda: shown.append(True))
    try:
        assert first.claim()
        peer = QLocalSocket()
        peer.connectToServer(name)
        assert peer.waitForConnected(2000)
        peer.write(b"x" * 10_000)
        peer.waitForBytesWritten(2000)
        qtbot.waitUntil(lambda: peer.state() == QLocalSocket.LocalSocketState.UnconnectedState, timeout=5000)
        assert shown == []
    finally:
        first.close()


def test_profiles_are_told_apart_by_their_folders(tmp_path):
    one, other = tmp_path / "a", tmp_path / "b"
    assert server_name(one) != server_name(other)
    assert server_name(one) != server_name(one, "/data/elsewhere")
    assert server_name(one) == server_name(tmp_path / "a" / ".." / "a")
    assert len(server_name(one)) < 40  # a Unix socket path has ~100 bytes


def _listening(name: str, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        probe = QLocalSocket()
        probe.connectToServer(name)
        if probe.waitForConnected(200):
            probe.disconnectFromServer()
            return True
        time.sleep(0.2)
    return False


def test_a_second_sonetto_raises_the_first_and_a_killed_one_blocks_nothing(qapp, tmp_path):
    env = dict(os.environ, SONETTO_DATA_DIR=str(tmp_path / "d"), SONETTO_CONFIG_DIR=str(tmp_path / "c"),
               QT_QPA_PLATFORM="offscreen", PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
               PYTHONPATH=str(ROOT))
    name = server_name(tmp_path / "c", str(tmp_path / "d"))
    launch = [sys.executable, "-m", "sonetto_desktop", "--no-tray", "--verbose"]
    log_path = tmp_path / "first.log"
    with open(log_path, "w") as log_file:
        first = subprocess.Popen(launch, cwd=ROOT, env=env, stdout=log_file, stderr=subprocess.STDOUT, text=True)
    try:
        assert _listening(name, 60), "the first launch never listened"
        second = subprocess.run(launch, cwd=ROOT, env=dict(env, LANG="zh_CN.UTF-8", LC_ALL="", LC_MESSAGES=""),
                                capture_output=True, text=True, timeout=60)
        assert second.returncode == 0, second.stderr[-2000:]
        assert "sonetto：Sonetto 已经在运行，已把它的窗口带到前面。" in second.stderr, second.stderr[-2000:]
        deadline = time.monotonic() + 30
        while "another launch asked for the window" not in log_path.read_text() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert "another launch asked for the window" in log_path.read_text()
        assert first.poll() is None  # the first runs on
        first.send_signal(signal.SIGKILL if hasattr(signal, "SIGKILL") else signal.SIGTERM)  # no goodbye
        first.wait(timeout=30)
        third = subprocess.Popen(launch, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            assert _listening(name, 60), "a killed run's lock or socket blocked the next start"
            assert third.poll() is None
        finally:
            third.terminate()
            third.wait(timeout=60)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()


# ── found by review: a language switch, a launch during start-up, profiles, file systems without locks ──

OFFSCREEN = pytest.mark.qt_log_ignore(OFFSCREEN_RAISE, OFFSCREEN_SIZE_HINTS)


@OFFSCREEN
async def test_a_later_launch_raises_the_window_after_a_language_switch(qapp, tmp_path, monkeypatch, wait):
    """``_run`` connects ``show_requested`` to the window of the first build only; a language switch
    (``language_switch.rebuild_views``) replaces the window, so a later launch shows nothing while it
    prints "its window was brought to the front"."""
    from sonetto_desktop.ui import app as app_module, shell

    created = []

    Recording = _recording(created)
    monkeypatch.setattr(shell, "SonettoApp", Recording)
    monkeypatch.setattr(app_module, "_load_settings", lambda: app_settings(tmp_path / "data"))
    name = f"sonetto-review-{uuid.uuid4().hex[:12]}"
    instance = SingleInstance(tmp_path / "cfg", name)
    assert instance.claim()
    run = asyncio.ensure_future(app_module._run(qapp, argparse.Namespace(hidden=False, no_tray=True), instance))
    try:
        await wait(lambda: created and created[0].window is not None and created[0].window.isVisible(), 20)
        app = created[0]
        await app.wait_until_ready()
        await asyncio.sleep(0.2)  # (``_run`` connects once ``start`` has returned)

        app.window.hide()  # in the tray
        assert not SingleInstance(tmp_path / "cfg", name).claim()  # a later launch: "brought to the front"
        await wait(lambda: app.window.isVisible(), 5)  # before the switch: it is

        await app.apply_settings(dataclasses.replace(app.settings, language="en"))
        await wait(lambda: app.window is not None and app.window.isVisible(), 10)
        app.window.hide()  # the new window, in the tray
        assert not SingleInstance(tmp_path / "cfg", name).claim()
        await wait(lambda: app.window.isVisible(), 5,
                   "a later launch after a language switch did not bring the (new) window to the front")
    finally:
        if created:
            created[0].request_quit()
        await asyncio.wait_for(run, 60)
        instance.close()


def test_a_start_in_the_tray_of_another_data_folder_is_not_swallowed(qapp, tmp_path):
    """A profile is "its config folder, and the data folder the environment names" (the module
    docstring; ``server_name`` hashes both), but the lock is ``instance.lock`` in the config folder
    alone: with app A running on the default data folder, ``SONETTO_DATA_DIR=/elsewhere sonetto
    --hidden`` (a login item of a second profile) finds the lock taken and ends at once — without
    asking anyone and without starting its own app."""
    config = tmp_path / "c"
    first = SingleInstance(config, server_name(config, ""))
    try:
        assert first.claim()
        other = SingleInstance(config, server_name(config, str(tmp_path / "elsewhere")))
        try:
            assert other.claim(show=False), "the second profile's app never starts"
        finally:
            other.close()
    finally:
        first.close()


def test_two_launches_of_a_second_data_folder_both_run(qapp, tmp_path, monkeypatch):
    """The same, launched normally: the second profile waits ``CONNECT_WAIT`` for an answer on its own
    name (nobody listens there: the lock holder is the first profile), then "starts anyway" holding
    neither the lock nor a server; so every further launch of it starts yet another window on the
    same data folder — what the change was meant to stop."""
    monkeypatch.setattr(single_instance, "CONNECT_WAIT", 0.5)
    config = tmp_path / "c"
    data = str(tmp_path / "elsewhere")
    first = SingleInstance(config, server_name(config, ""))
    second = SingleInstance(config, server_name(config, data))
    third = SingleInstance(config, server_name(config, data))
    try:
        assert first.claim()
        assert second.claim()  # (after the wait: "did not answer: starting anyway")
        assert not third.claim(), "a second window on the same data folder started"
    finally:
        for one in (third, second, first):
            one.close()


@OFFSCREEN
async def test_a_launch_while_the_first_is_starting_in_the_tray_is_not_lost(qapp, tmp_path, monkeypatch, wait):
    """The first launch listens from ``claim()`` on, but ``_run`` connects ``show_requested`` only once
    ``app.start()`` has returned (the store opened: seconds at login, longer for a server). A launch
    meanwhile is answered, its "show" emitted to nobody, and it ends saying "its window was brought to
    the front"; a first launch started in the tray (``--hidden``, the login item) then stays hidden."""
    from sonetto_desktop.ui import app as app_module, shell

    name = f"sonetto-review-{uuid.uuid4().hex[:12]}"
    created = []
    later: list[bool] = []

    class Recording(_recording(created)):
        async def start(self):
            later.append(SingleInstance(tmp_path / "cfg", name).claim())  # the icon clicked again meanwhile
            await asyncio.sleep(0.5)  # (the store opening)
            started = await super().start()
            self.window.hide_to_tray = True  # (offscreen has no tray: as on a desktop that has one)
            return started

    monkeypatch.setattr(shell, "SonettoApp", Recording)
    monkeypatch.setattr(app_module, "_load_settings", lambda: app_settings(tmp_path / "data"))
    instance = SingleInstance(tmp_path / "cfg", name)
    assert instance.claim()
    emitted: list[bool] = []
    instance.show_requested.connect(lambda: emitted.append(True))
    run = asyncio.ensure_future(app_module._run(qapp, argparse.Namespace(hidden=True, no_tray=True), instance))
    try:
        await wait(lambda: created and created[0].window is not None, 20)
        await created[0].wait_until_ready()
        assert later == [False]  # the later launch ended: "its window was brought to the front"
        assert emitted == [True]  # its "show" arrived (and went to no window)
        await wait(lambda: created[0].window.isVisible(), 3, "the window stayed in the tray")
    finally:
        if created:
            created[0].request_quit()
        await asyncio.wait_for(run, 60)
        instance.close()


def _no_locks(fd, flags):  # what flock says on a file system without locks (some NFS / SMB / FUSE mounts)
    import errno

    raise OSError(errno.ENOLCK, "No locks available")


def test_a_file_system_without_locks_does_not_stop_a_start_in_the_tray(qapp, tmp_path, monkeypatch):
    """The module docstring: "When the lock cannot be taken for another reason (a read-only config
    folder), the app starts as before and says so in the log", and ``claim`` has an ``except OSError``
    for "a file system without locks". But portalocker wraps every failure of the lock call in
    ``LockException`` (only EACCES / EAGAIN as its subclass ``AlreadyLocked``), which ``claim`` takes
    for "another Sonetto runs": ``sonetto --hidden`` (the login item) ends at once saying "Sonetto is
    already running." when none is."""
    import portalocker.portalocker as implementation

    monkeypatch.setattr(implementation, "LOCKER", _no_locks)
    lone = SingleInstance(tmp_path / "c", f"sonetto-review-{uuid.uuid4().hex[:12]}")
    try:
        assert lone.claim(show=False), "no Sonetto runs, yet this launch ends as if one did"
    finally:
        lone.close()


def test_a_file_system_without_locks_costs_no_wait_and_no_false_log(qapp, tmp_path, monkeypatch, caplog):
    """The same, launched normally: it waits ``CONNECT_WAIT`` (5 s) for an app that does not exist, then
    logs "another Sonetto holds …instance.lock but did not answer" (nobody holds it)."""
    import time as clock

    import portalocker.portalocker as implementation

    monkeypatch.setattr(implementation, "LOCKER", _no_locks)
    lone = SingleInstance(tmp_path / "c", f"sonetto-review-{uuid.uuid4().hex[:12]}")
    began = clock.monotonic()
    try:
        assert lone.claim()
    finally:
        lone.close()
    assert "did not answer" not in caplog.text
    assert clock.monotonic() - began < 2.0


def _recording(created: list):
    """``SonettoApp`` as the tests run it (not interactive, a short writer drain), each app made kept
    in ``created``."""
    from sonetto_desktop.ui import shell

    class Recording(shell.SonettoApp):
        def __init__(self, *args, **kwargs):
            kwargs.setdefault("interactive", False)
            kwargs.setdefault("writer_drain_timeout", 2.0)
            super().__init__(*args, **kwargs)
            created.append(self)

    return Recording
