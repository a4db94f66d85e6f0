"""PostgreSQL for the tests: the server ``.ci/run`` started (``SONETTO_TEST_PG_URL``), else a
throwaway one started here when the binaries are installed, else a skip — or, under CI
(``CI=true``), a failure: CI must run the PostgreSQL tests.

Each store gets a schema of its own (derived from its test folder, so a second process opening the
same folder opens the same store); it is dropped when the test ends.

Under pytest-xdist every worker but the first starts a throwaway server of its own when the binaries
are installed: tests restart and stop their server, which must not cut another worker's tests off.
With a shared server (a developer's own, no binaries) each worker's schemas carry its name, so a
worker's clean-up never drops another's.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from pg_server import PgServer, bin_dir

URL_ENV = "SONETTO_TEST_PG_URL"
DIR_ENV = "SONETTO_TEST_PG_DIR"  # the folder of a server started by .ci/run (restartable)


def _worker() -> str:
    """The pytest-xdist worker's name ("gw1"), or "" outside xdist (children inherit it)."""
    return os.environ.get("PYTEST_XDIST_WORKER", "")


def _schema_prefix() -> str:
    return f"t_{_worker()}_" if _worker() else "t_"


def schema_for(folder: Path) -> str:
    return _schema_prefix() + hashlib.sha1(str(folder).encode()).hexdigest()[:16]


def drop_schema(url: str, schema: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True, connect_timeout=5) as conn:
        conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


class ExternalServer:
    """A server given only by ``SONETTO_TEST_PG_URL`` (a developer's own): not restartable here."""

    restartable = False

    def __init__(self, url: str) -> None:
        from urllib.parse import urlsplit

        self.url = url
        self.port = urlsplit(url).port or 5432

    def restart(self) -> None:
        pytest.skip("the server given by SONETTO_TEST_PG_URL cannot be restarted by the tests")


def _drop_test_schemas(url: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True, connect_timeout=5) as conn:
        pattern = _schema_prefix().replace("_", "\\_") + "%"
        names = [r[0] for r in conn.execute("SELECT nspname FROM pg_namespace WHERE nspname LIKE %s", (pattern,))]
        for name in names:
            conn.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')


def _unavailable(reason: str) -> None:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"PostgreSQL tests must run under CI: {reason}")
    pytest.skip(reason)


@pytest.fixture
def restartable_pg_server(pg_server):
    """``pg_server`` for a test that restarts it: skipped *before* the test starts anything (a
    thread started first would outlive a skip taken mid-test) when the server cannot be restarted."""
    if not getattr(pg_server, "restartable", True):
        pg_server.restart()  # skips, saying why
    return pg_server


@pytest.fixture(scope="session")
def pg_server():
    """A running PostgreSQL server (:class:`pg_server.PgServer`); ``restart()``-able."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        _unavailable("psycopg is not installed (pip install -e '.[postgres]')")
    own_server = _worker() not in ("", "gw0") and bin_dir() is not None
    if os.environ.get(URL_ENV) and not own_server:
        server = PgServer.attach(Path(os.environ[DIR_ENV])) if os.environ.get(DIR_ENV) else ExternalServer(
            os.environ[URL_ENV])
        yield server
        _drop_test_schemas(os.environ[URL_ENV])
        return
    if bin_dir() is None:
        _unavailable("no PostgreSQL server binaries (apt-get install postgresql) and no SONETTO_TEST_PG_URL")
    try:
        server = _start_throwaway()
    except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
        if not own_server:
            raise
        raise RuntimeError(f"pytest-xdist worker {_worker()} could not start a PostgreSQL server of its own "
                           f"({exc}); run the suite in one process (-n 0) to use {URL_ENV} alone") from exc
    given = {name: os.environ.get(name) for name in (URL_ENV, DIR_ENV)}
    os.environ[URL_ENV] = server.url  # children (and memory_stores) reach the server through it
    os.environ.pop(DIR_ENV, None)
    try:
        yield server
    finally:
        for name, value in given.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        server.stop()


def _start_throwaway() -> PgServer:
    """A new server in a temporary folder; tried again on another port when a port picked free was
    taken in the meantime (workers start theirs at the same moment)."""
    for _ in range(2):
        base = Path(tempfile.mkdtemp(prefix="sonetto-pg-"))
        try:
            return PgServer.start(base)
        except RuntimeError:
            shutil.rmtree(base, ignore_errors=True)
    return PgServer.start(Path(tempfile.mkdtemp(prefix="sonetto-pg-")))  # the third try's error is the one shown


@pytest.fixture
def pg_url(pg_server) -> str:
    return pg_server.url


@pytest.fixture
def pg_schema(pg_url, tmp_path):
    """A fresh schema name for this test (dropped afterwards)."""
    schema = schema_for(tmp_path)
    yield schema
    drop_schema(pg_url, schema)
