"""One window per profile (``ui/single_instance.py``): a second launch brings the running app's window
to the front and ends; a run that was killed never blocks the next start. Real file locks, real local
sockets, and the app's own ``main`` in child processes (offscreen)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

from PySide6.QtNetwork import QLocalSocket

from sonetto_desktop.ui.single_instance import LOCK_NAME, SingleInstance, server_name

ROOT = Path(__file__).resolve().parents[2]


def _name() -> str:
    return f"sonetto-test-{uuid.uuid4().hex[:12]}"


def test_a_second_claim_asks_the_first_to_show_its_window(qapp, qtbot, tmp_path):
    name = _name()
    first = SingleInstance(tmp_path, name)
    try:
        assert first.claim()
        assert (tmp_path / LOCK_NAME).exists()
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
        second = subprocess.run(launch, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
        assert second.returncode == 0 and "already running" in second.stderr, second.stderr[-2000:]
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
