"""Why a server refused a connection, as its SQLSTATE: the same in every language.

libpq reports a refused connection only as text, and a server writes that text in its own language
(``lc_messages``: "FATAL:  Passwort-Authentifizierung für Benutzer »me« fehlgeschlagen",
"致命错误:  数据库 "x" 不存在"), so the text cannot be read for the reason. The server's ErrorResponse
also carries the SQLSTATE (``28P01``, ``3D000``…), but psycopg leaves it out of a failed connection's
error. libpq's protocol trace shows it (the connection's start is traced by the libpq 18 that
psycopg-binary bundles; an older libpq may leave it out):
:func:`refusal_state` connects once more, as the failed connection did (the same conninfo, TLS,
authentication: libpq's own), with the trace going into a pipe of this process, and reads the code
there. The trace is read here and dropped (it is never logged: a cleartext password message is in it).

Not on Windows: psycopg's trace hands libpq a C ``FILE*`` from its own C runtime, which libpq's may
not be (psycopg's pure-Python implementation traces on Linux only). There, and where the trace has no
code, the answer is ``None`` (the caller then says the failure without a reason, as before).
"""

from __future__ import annotations

import os
import re
import select
import sys
import time
from typing import Any

#: An ErrorResponse in libpq's trace: ``… B 92 ErrorResponse  S "致命错误" V "FATAL" C "3D000" M "…"``.
_STATE = re.compile(rb'\tErrorResponse\t.*? C "([0-9A-Z]{5})"')


def refusal_state(conninfo: str, timeout: float) -> str | None:
    """The SQLSTATE the server refuses a connection to ``conninfo`` with (blocking, up to ``timeout``
    seconds); ``None`` when it does not refuse, cannot be reached, or the code cannot be learnt here."""
    if sys.platform == "win32":
        return None
    try:
        from psycopg import NotSupportedError, pq
    except ImportError:
        return None
    conn = pq.PGconn.connect_start(conninfo.encode())
    read, write = os.pipe()
    os.set_blocking(read, False)
    trace = bytearray()
    try:
        try:
            conn.trace(write)
        except NotSupportedError:  # (psycopg's trace is not on every platform)
            return None
        try:
            _poll(conn, pq, time.monotonic() + timeout, lambda: _drain(read, trace))
        finally:
            conn.untrace()  # (flushes what libpq still buffers into the pipe)
            _drain(read, trace)
    finally:
        conn.finish()
        os.close(read)
        os.close(write)
    found = _STATE.search(bytes(trace))
    return found.group(1).decode() if found else None


def _poll(conn: Any, pq: Any, deadline: float, drain: Any) -> None:
    """Drive libpq's connection start until it is made, fails, or ``deadline`` passes."""
    while conn.status != pq.ConnStatus.BAD:
        status = conn.connect_poll()
        drain()
        if status not in (pq.PollingStatus.READING, pq.PollingStatus.WRITING):
            return
        left = deadline - time.monotonic()
        if left <= 0:
            return
        sockets = [conn.socket]
        if status == pq.PollingStatus.READING:
            select.select(sockets, [], [], left)
        else:
            select.select([], sockets, [], left)


def _drain(read: int, into: bytearray) -> None:
    """What the pipe holds, into ``into`` (libpq would block writing into a full pipe)."""
    while True:
        try:
            chunk = os.read(read, 65536)
        except BlockingIOError:
            return
        if not chunk:
            return
        into += chunk
