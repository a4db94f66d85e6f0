"""A PostgreSQL server that answers in its own language (``lc_messages`` German here) still gets the
connection test's own explanation: a refused connection is read by its SQLSTATE, not by its words.

Before, a German or Chinese server's "Passwort-Authentifizierung … fehlgeschlagen" or "数据库 … 不存在"
matched none of the English patterns and the person was told only "连接失败（服务器说的原因见提示）"."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

from pg_fixtures import _unavailable
from pg_server import PgServer, bin_dir
from sonetto_desktop.config.settings import Settings
from sonetto_desktop.postgres_setup import check_connection

PASSWORD = "Richtig-Pw-7c1"

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="libpq's trace is not read on Windows")


@pytest.fixture(scope="module")
def german_server():
    """A server whose messages are German, with a role that logs in by password (SCRAM) and one that
    its pg_hba.conf shuts out."""
    pytest.importorskip("psycopg")
    if bin_dir() is None:
        _unavailable("no PostgreSQL server binaries (apt-get install postgresql)")
    import psycopg

    server = PgServer.start(Path(tempfile.mkdtemp(prefix="sonetto-pg-de-")), language="de")
    try:
        with psycopg.connect(server.url, autocommit=True) as conn:
            try:
                conn.execute("SELECT 1/0")
            except psycopg.errors.DivisionByZero as exc:
                if "Division durch Null" not in str(exc):
                    pytest.skip(f"the server's German messages are not installed ({exc})")
        server.ask_password({"mit_passwort": PASSWORD}, rejected=("ausgesperrt",))
        yield server
    finally:
        server.stop()


def _checked(server: PgServer, user: str, database: str = "sonetto_test", password: str = ""):
    parts = urlsplit(server.url)
    url = urlunsplit(parts._replace(netloc=f"{user}@{parts.hostname}:{parts.port}", path=f"/{database}"))
    return check_connection(Settings(store_backend="postgres", postgres_url=url, postgres_tls="disable"),
                            password=password)


def test_a_german_servers_refusals_are_said_by_their_reason(german_server):
    wrong = _checked(german_server, "mit_passwort", password="falsch")
    assert not wrong.ok and "fehlgeschlagen" in wrong.detail, wrong.detail  # (the server's own words: German)
    assert wrong.words == ("auth",), wrong
    missing = _checked(german_server, "mit_passwort", "gibt_es_nicht", password=PASSWORD)
    assert "existiert nicht" in missing.detail and "falsch" not in missing.detail, missing.detail
    assert missing.words == ("no_database", "gibt_es_nicht"), missing
    shut_out = _checked(german_server, "ausgesperrt")
    assert shut_out.words == ("not_allowed",), shut_out
    assert _checked(german_server, "mit_passwort", password=PASSWORD).ok
