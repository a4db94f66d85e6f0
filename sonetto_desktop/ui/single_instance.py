"""One window per profile: a second ``sonetto`` brings the running one to the front and ends.

Double-clicking the app's icon while it runs (or while it sits in the tray) used to open a second
window on the same memories, with its own tray icon and a red "另一个 Sonetto 正在使用这个记忆库" in
the corner. Now the first launch of a profile (its config folder, and the data folder the
environment names, if any) holds ``<name>.lock`` in the config folder (``name``: the profile's, see
``server_name``) for as long as it runs and listens on a local socket of that name only this user can
open. A later launch finds the lock taken, connects,
says ``show``, and ends with exit code 0; the running app raises its window (from the tray too).

The lock, not the socket, decides who runs: the operating system lets go of it when the process ends
in any way (a kill, a crash), so a socket file left behind by a crash never blocks a start (the one
holding the lock removes it before listening). When the lock cannot be taken for another reason (a
read-only config folder, a file system without locks), the app starts as before and says so in the log.

Blocking (a file lock, a local connection of at most ``CONNECT_WAIT`` seconds): called once before the
event loop and the window, by ``app.main``.
"""

from __future__ import annotations

import hashlib
import logging
import os
import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket

log = logging.getLogger(__name__)

#: How long a second launch tries to reach the first (which may still be starting: it takes the lock
#: before it listens), in seconds.
CONNECT_WAIT = 5.0
SHOW = b"show\n"
_MAX_MESSAGE = 64  # what a peer may send; anything longer is not ours


def server_name(config_dir: Path, data_env: str = "") -> str:
    """The local socket's name for a profile: per user, per config folder (and the data folder the
    environment names), short enough for a Unix socket path."""
    user = str(os.getuid()) if hasattr(os, "getuid") else os.environ.get("USERNAME", "")
    key = "\0".join((user, str(Path(config_dir).expanduser().resolve()), data_env))
    return "sonetto-" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:20]


class SingleInstance(QObject):
    """``claim()`` once: True when this process is the profile's running app (it then listens and
    emits ``show_requested`` when a later launch asks), False when another one runs (it was asked to
    show its window)."""

    show_requested = Signal()

    def __init__(self, config_dir: Path, name: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._folder = Path(config_dir)
        self.name = name
        self._lock: Any = None
        self._server: QLocalServer | None = None

    @property
    def lock_path(self) -> Path:
        return self._folder / f"{self.name}.lock"

    def claim(self, *, show: bool = True) -> bool:
        """``show``: ask a running app to show its window (False: a start in the tray, e.g. at login,
        leaves a running app as it is)."""
        import portalocker

        try:
            self._folder.mkdir(parents=True, exist_ok=True)
            handle = open(self.lock_path, "a+b")  # held for the process's life
        except OSError as exc:
            log.warning("cannot keep one window per profile (%s): starting anyway", exc)
            return True
        try:
            portalocker.lock(handle, portalocker.LOCK_EX | portalocker.LOCK_NB)
        except portalocker.exceptions.AlreadyLocked:  # another launch of this profile holds it
            handle.close()
            if not show or self._ask_running():
                return False
            log.warning("another Sonetto holds %s but did not answer: starting anyway", self.lock_path)
            return True
        except (portalocker.exceptions.LockException, OSError) as exc:  # a file system without locks
            handle.close()
            log.warning("cannot keep one window per profile (%s): starting anyway", exc)
            return True
        self._lock = handle
        self._listen()
        return True

    def _listen(self) -> None:
        server = QLocalServer(self)
        server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        QLocalServer.removeServer(self.name)  # a socket a crashed run left: we hold the lock, it is not live
        if not server.listen(self.name):
            log.warning("cannot listen for later launches (%s): they will start windows of their own",
                        server.errorString())
            return
        server.newConnection.connect(self._accept)
        self._server = server

    def _accept(self) -> None:
        while self._server is not None and (peer := self._server.nextPendingConnection()) is not None:
            peer.readyRead.connect(self._read)  # the peer is the server's child: it goes with it
            peer.disconnected.connect(peer.deleteLater)
            if peer.bytesAvailable():
                self._answer(peer)

    def _read(self) -> None:
        peer = self.sender()
        if isinstance(peer, QLocalSocket):
            self._answer(peer)

    def _answer(self, peer: QLocalSocket) -> None:
        data = bytes(peer.read(_MAX_MESSAGE + 1).data())
        peer.disconnectFromServer()
        if data.startswith(SHOW):
            log.info("another launch asked for the window")
            self.show_requested.emit()

    def _ask_running(self) -> bool:
        """Tell the running app to show its window; False when it cannot be reached in time."""
        deadline = time.monotonic() + CONNECT_WAIT
        while True:
            socket = QLocalSocket()
            socket.connectToServer(self.name)
            if socket.waitForConnected(500):
                socket.write(SHOW)
                sent = socket.waitForBytesWritten(1000)
                socket.disconnectFromServer()
                if socket.state() != QLocalSocket.LocalSocketState.UnconnectedState:
                    socket.waitForDisconnected(500)
                return sent
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.1)  # the running app took the lock and is about to listen

    def close(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        if self._lock is not None:
            self._lock.close()  # the lock goes with the file
            self._lock = None
