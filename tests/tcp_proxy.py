"""A TCP forwarder on the loopback that a test can cut and restore: the network between a device
and its database server going away (every connection dropped, new ones refused) and coming back.
``replies`` counts the server's answers it forwarded: bytes back to the client after the client
last sent some, per connection (an answer that arrives in several bursts is one): a client's round
trips."""

from __future__ import annotations

import socket
import threading


class TcpProxy:
    def __init__(self, target_port: int, host: str = "127.0.0.1") -> None:
        self.host = host
        self.target_port = target_port
        self._listener: socket.socket | None = None
        self._conns: list[socket.socket] = []
        self._lock = threading.Lock()
        self.port = 0
        self.replies = 0
        self.restore()

    def restore(self) -> None:
        """Accept connections again (on the same port)."""
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.host, self.port))
        sock.listen(64)
        self.port = sock.getsockname()[1]
        self._listener = sock
        threading.Thread(target=self._accept, args=(sock,), daemon=True).start()

    def cut(self) -> None:
        """Drop every connection and refuse new ones."""
        with self._lock:
            listener, self._listener = self._listener, None
            conns, self._conns = self._conns, []
        if listener is not None:
            try:  # wakes the thread blocked in accept() (a close alone leaves the port listening)
                listener.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            listener.close()
        for conn in conns:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            conn.close()

    close = cut

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection((self.host, self.target_port), timeout=5)
                upstream.settimeout(None)
            except OSError:
                client.close()
                continue
            with self._lock:
                if self._listener is not listener:
                    client.close()
                    upstream.close()
                    return
                self._conns += [client, upstream]
            turn = [False]  # this connection's last bytes were the server's
            for a, b, replies in ((client, upstream, False), (upstream, client, True)):
                threading.Thread(target=self._pump, args=(a, b, replies, turn), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket, replies: bool, turn: list[bool]) -> None:
        try:
            while data := src.recv(65536):
                with self._lock:
                    if replies and not turn[0]:
                        self.replies += 1
                    turn[0] = replies
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (src, dst):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass


def proxied_url(server, proxy: TcpProxy) -> str:
    """``server.url`` reached through ``proxy`` (a test server object with ``url`` and ``port``)."""
    return server.url.replace(f":{server.port}/", f":{proxy.port}/")
