"""From the settings to the memory server: its location, opening the store, testing a connection.

Wiring between ``config`` (URL, TLS, schema, device name; the password from the keyring) and
``memory.postgres_store``; used by ``AppServices`` and the settings page's test button. Importing
it does not import psycopg.
"""

from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .config.secrets import POSTGRES_PASSWORD, load_secret
from .config.settings import Settings
from .memory.stores.postgres.location import PgLocation, PgLocationError, default_device_name, split_password
from .redaction import scrub

log = logging.getLogger(__name__)


def location_of(settings: Settings, *, password: str | None = None) -> PgLocation:
    """The store the settings name. The password: given, else one in an address the environment set
    (``SONETTO_POSTGRES_URL``), else the settings', else the keyring's."""
    if password is None and "postgres_url" in settings.env_overridden:
        password = split_password(settings.postgres_url)[1] or None
    if password is None:
        password = settings.postgres_password or load_secret(POSTGRES_PASSWORD)
    return PgLocation(settings.postgres_url, (settings.postgres_schema or "sonetto").strip(),
                      settings.postgres_tls, password or "")


def keep_password_out_of_settings(path: Path | str | None = None) -> bool:
    """Move a password written into the saved server address (``?password=…``, ``me:pw@host``,
    ``password=…``; an older version kept some forms there) into the keyring, and save the address
    without it. True when the settings file was rewritten. The app calls it at start, before it
    loads its settings; the keyring's password, when one is already set, stays the one used."""
    saved = Settings.load(path)
    bare, password = split_password(saved.postgres_url)
    if not password:
        return False
    saved.postgres_url = bare
    saved.postgres_password = saved.postgres_password or password
    try:
        saved.save(path)
    except OSError as exc:  # the app still runs: the location keeps the password out of every text
        log.warning("could not move the memory server's password out of the settings file (%s)",
                    type(exc).__name__)
        return False
    return True


class SwitchRefused(RuntimeError):
    """This computer's memories were not moved onto the memory server (``where``, as shown to a
    person): it cannot be reached, or the move failed. The switch is not made; the file store stays."""

    def __init__(self, where: str, detail: str) -> None:
        self.where = where
        self.detail = detail
        super().__init__(f"the memories were not moved to the memory server {where}: {detail}")


def check_switch_to_server(store: Any, data_dir: str | Path) -> None:
    """After opening the server's store for a switch from a file backend (blocking): ``SwitchRefused``
    when the server cannot be reached, or holds no memory while this computer's are still in their
    file (the move failed). Using it then would show none of them, and once the server is written to,
    the next start would never move them (a server with memories is not migrated into)."""
    from .memory.stores.backends import file_backends
    from .memory.stores.migrate import make_store
    from .memory.stores.migration_files import store_path

    where = store.location.display()
    if not store.online:
        raise SwitchRefused(where, store.status.detail or "cannot be reached")
    if store.count() or store.list_trash():
        return
    for backend in file_backends():
        path = store_path(data_dir, backend.name)
        if not path.exists():
            continue
        local = make_store(backend.name, path)
        try:
            left = local.count() or local.list_trash()
        finally:
            local.close()
        if left:
            raise SwitchRefused(where, f"the memories in {path.name} could not be moved there (see the log)")


def device_of(settings: Settings) -> str:
    return settings.device_name.strip() or default_device_name()


def open_settings_store(data_dir: str | Path, settings: Settings) -> tuple[Any, Any]:
    """(store, migration report or None): see ``memory.pg_migrate.open_postgres_store``."""
    from .memory.stores.postgres.migrate import open_postgres_store

    return open_postgres_store(data_dir, location_of(settings), device=device_of(settings))


@dataclass(frozen=True)
class ConnectionCheck:
    """What the settings page's test button shows."""

    ok: bool
    zh: str
    en: str
    server_version: str = ""
    millis: float = 0.0
    memories: int | None = None
    tls: bool = False  # the connection was encrypted
    words: tuple[str, ...] = ()  # what failed, as a kind and its values (``failure_words``), for a front end's language
    detail: str = ""  # the exact words of the failure (the library's or the server's), secrets scrubbed


#: What a failed connection's text (libpq's or the server's, English) says, in order: a kind of ``failure_words``.
_FAILURES = (
    ("tls", re.compile(r"\bSSL\b|\bTLS\b|certificate", re.IGNORECASE)),
    ("timeout", re.compile(r"timeout expired|timed out", re.IGNORECASE)),
    ("auth", re.compile(r"password authentication failed|no password supplied|authentication failed|"
                        r"password is required|fe_sendauth", re.IGNORECASE)),
    ("not_allowed", re.compile(r"pg_hba\.conf|not permitted to log in|too many connections", re.IGNORECASE)),
    ("no_database", re.compile(r'database "([^"]*)" does not exist', re.IGNORECASE)),
    ("no_user", re.compile(r'role "([^"]*)" does not exist', re.IGNORECASE)),
    ("no_permission", re.compile(r"permission denied", re.IGNORECASE)),
    ("unreachable", re.compile(r"connection refused|could not translate host name|failed to resolve host|"
                               r"name or service not known|no route to host|network is unreachable|"
                               r"could not connect|host is down|nodename nor servname", re.IGNORECASE)),
)


#: What a server's refusal says by its SQLSTATE (the same in every language): a kind of ``failure_words``.
_REFUSALS = {
    "28P01": "auth",  # invalid_password
    "28000": "not_allowed",  # invalid_authorization_specification: pg_hba.conf, a role that may not log in
    "53300": "not_allowed",  # too_many_connections
    "3D000": "no_database",  # invalid_catalog_name
    "42501": "no_permission",  # insufficient_privilege
}


def failure_words(detail: str, state: str | None = None, database: str = "") -> tuple[str, ...]:
    """Why a connection failed, from its text: ``("tls",)``, ``("timeout",)``, ``("auth",)``,
    ``("not_allowed",)``, ``("no_database", name)``, ``("no_user", name)``, ``("no_permission",)``,
    ``("unreachable",)``; a text that says none of them (a server that answers in its own language),
    from the server's SQLSTATE ``state`` (``database``: the name asked for); else ``("failed",)``
    (the text itself then says why)."""
    for kind, pattern in _FAILURES:
        found = pattern.search(detail)
        if found:
            return (kind, *found.groups())
    kind = _REFUSALS.get(state or "")
    if kind == "no_database":
        return (kind, database)
    return (kind,) if kind else ("failed",)


def _refused_words(exc: Any, detail: str, location: PgLocation) -> tuple[str, ...]:
    """``failure_words`` of a failed connection test (blocking): a failure its text does not explain is
    asked again for the server's SQLSTATE (a refused connection's error has none: ``refusal``)."""
    words = failure_words(detail)
    if words != ("failed",):
        return words
    from psycopg.pq import ConnStatus

    state = getattr(exc, "sqlstate", None)
    pgconn = getattr(exc, "pgconn", None)
    if state is None and pgconn is not None and pgconn.status == ConnStatus.BAD:  # refused while connecting
        from psycopg.conninfo import make_conninfo

        from .memory.stores.postgres.location import CONNECT_TIMEOUT
        from .memory.stores.postgres.refusal import refusal_state

        state = refusal_state(make_conninfo(location.url, **location.connect_kwargs()), CONNECT_TIMEOUT)
    database = bytes(getattr(pgconn, "db", b"") or b"").decode("utf-8", "replace")
    return failure_words(detail, state, database)


def check_connection(settings: Settings, *, password: str | None = None) -> ConnectionCheck:
    """Connect once with these settings (blocking, up to the connect timeout): can this device
    use the server? Says how many memories the store holds already (None: not created yet)."""
    try:
        location = location_of(settings, password=password)
    except PgLocationError as exc:
        return ConnectionCheck(False, f"地址有误：{exc}", f"Bad URL: {exc}", words=("bad_url",), detail=str(exc))
    try:
        import psycopg
    except ImportError:
        return ConnectionCheck(False, "缺少 PostgreSQL 组件：pip install 'sonetto-desktop[postgres]'",
                               "PostgreSQL support is not installed: pip install 'sonetto-desktop[postgres]'",
                               words=("no_driver",))
    started = time.perf_counter()
    try:
        with psycopg.connect(location.url, autocommit=True, **location.connect_kwargs()) as conn:
            version = conn.execute("SHOW server_version").fetchone()[0]
            found = conn.execute("SELECT 1 FROM information_schema.tables WHERE table_schema = %s"
                                 " AND table_name = 'memories'", (location.schema,)).fetchone()
            memories = None
            if found:
                memories = conn.execute(f'SELECT COUNT(*) FROM "{location.schema}".memories').fetchone()[0]
            tls = conn.pgconn.ssl_in_use
    except psycopg.Error as exc:
        detail = scrub(" ".join(str(exc).split()), [location.password])[:300]
        return ConnectionCheck(False, f"连接失败：{detail}", f"Could not connect: {detail}",
                               words=_refused_words(exc, detail, location), detail=detail)
    millis = (time.perf_counter() - started) * 1000
    lock = "（TLS 加密）" if tls else "（未加密）"
    lock_en = " (TLS)" if tls else " (not encrypted)"
    count = f"，已有 {memories} 条记忆" if memories is not None else "，记忆库尚未建立（首次使用时会自动创建）"
    count_en = f", {memories} memories stored" if memories is not None else ", no memories yet (created on first use)"
    return ConnectionCheck(True, f"连接成功：PostgreSQL {version}{lock}{count}，用时 {millis:.0f} 毫秒。",
                           f"Connected: PostgreSQL {version}{lock_en}{count_en}, {millis:.0f} ms.",
                           version, millis, memories, tls=bool(tls))


def chat_session_db(settings: Settings, store: Any, secrets: Any = tuple) -> Any:
    """The chat sessions' database on the memory server when the settings want them there and the
    server answers; None: the local ``sessions.db`` (also the fallback while offline)."""
    if settings.store_backend != "postgres" or not settings.postgres_sessions:
        return None
    if not getattr(store, "online", False):
        return None
    from .agent.pg_sessions import PgSessionDatabase

    return PgSessionDatabase(store.location, secrets=secrets)
