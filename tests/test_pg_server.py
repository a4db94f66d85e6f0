"""The tests' own PostgreSQL server (``pg_server.py``): a server stopped and started again is back where the
tests know it. ``start_again`` ran ``pg_ctl start`` without the first start's options (``-p``, ``-k``), and the
server came back on port 5432 (or failed to start where another server held it)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from pg_fixtures import _unavailable
from pg_server import PgServer, bin_dir


def test_a_server_stopped_and_started_again_answers_at_its_address_with_its_data():
    psycopg = pytest.importorskip("psycopg")
    if bin_dir() is None:
        _unavailable("no PostgreSQL server binaries (apt-get install postgresql)")
    server = PgServer.start(Path(tempfile.mkdtemp(prefix="sonetto-pg-again-")))
    try:
        with psycopg.connect(server.url, autocommit=True) as conn:
            conn.execute("CREATE TABLE kept (n int)")
            conn.execute("INSERT INTO kept VALUES (7)")
        server.stop_server()
        with pytest.raises(psycopg.OperationalError):
            psycopg.connect(server.url, connect_timeout=3).close()
        server.start_again()
        with psycopg.connect(server.url, autocommit=True, connect_timeout=5) as conn:
            assert conn.execute("SELECT n FROM kept").fetchall() == [(7,)]
            assert conn.execute("SHOW port").fetchone()[0] == str(server.port)
        again = PgServer.attach(server.base)  # (as the script's ``stop`` finds a server a ``start`` left)
        again.stop_server()
        again.start_again()
        with psycopg.connect(server.url, autocommit=True, connect_timeout=5) as conn:
            assert conn.execute("SELECT n FROM kept").fetchall() == [(7,)]
    finally:
        server.stop()
