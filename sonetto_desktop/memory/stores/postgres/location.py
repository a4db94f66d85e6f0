"""Where a PostgreSQL memory store lives: the server URL, the schema, TLS and the password.

A :class:`PgLocation` names one store (one person's memories) on a server: tables in a schema of
their own, so one database can hold several. The password is kept out of the URL (settings keep it
in the keyring) and out of every text shown or logged (``display``). Importing this module does
not import psycopg.
"""

from __future__ import annotations

import re
import socket
from dataclasses import dataclass, field, replace
from urllib.parse import quote, unquote, urlsplit, urlunsplit

DEFAULT_SCHEMA = "sonetto"
SSL_MODES = ("disable", "prefer", "require", "verify-full")
_SCHEMA_RE = re.compile(r"^[a-z_][a-z0-9_]{0,40}$")
#: How long one connection attempt may take (the app opens read-only from its cache after that).
CONNECT_TIMEOUT = 5


class PgLocationError(ValueError):
    """The URL or schema cannot name a PostgreSQL store (the message says what to fix)."""


def split_password(url: str) -> tuple[str, str]:
    """(URL without its password, the password or "") — a pasted URL may carry one."""
    parts = urlsplit(url.strip())
    if parts.password is None:
        return url.strip(), ""
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = (quote(unquote(parts.username or ""), safe="") + "@" if parts.username else "") + host
    if parts.port:
        netloc += f":{parts.port}"
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment)), unquote(parts.password)


def check_url(url: str) -> str:
    """``url`` stripped, or :class:`PgLocationError` saying what is wrong with it."""
    url = (url or "").strip()
    if not url:
        raise PgLocationError("no PostgreSQL URL is set")
    parts = urlsplit(url)
    if parts.scheme not in ("postgresql", "postgres"):
        raise PgLocationError("a PostgreSQL URL starts with postgresql://")
    if not parts.hostname and "host=" not in parts.query:
        raise PgLocationError("the PostgreSQL URL names no server (postgresql://user@host:5432/database)")
    return url


@dataclass(frozen=True)
class PgLocation:
    """One memory store on a PostgreSQL server. ``str()`` never shows the password."""

    url: str
    schema: str = DEFAULT_SCHEMA
    sslmode: str = ""
    password: str = field(default="", repr=False, compare=False)

    def __post_init__(self) -> None:
        check_url(self.url)
        if not _SCHEMA_RE.match(self.schema):
            raise PgLocationError(f"schema must be lower-case letters, digits and _ (max 41), not {self.schema!r}")
        if self.sslmode and self.sslmode not in SSL_MODES:
            raise PgLocationError(f"TLS mode must be one of {', '.join(SSL_MODES)}, not {self.sslmode!r}")
        bare, embedded = split_password(self.url)
        if embedded:  # keep the password beside the URL, never inside it
            object.__setattr__(self, "url", bare)
            if not self.password:
                object.__setattr__(self, "password", embedded)

    def with_password(self, password: str) -> "PgLocation":
        return replace(self, password=password)

    @property
    def channel(self) -> str:
        """The LISTEN/NOTIFY channel of this store (channels are per database, so per schema)."""
        return f"{self.schema}_changes"

    def connect_kwargs(self) -> dict[str, object]:
        """Keyword arguments for ``psycopg.connect(self.url, **kwargs)``: password, TLS, timeouts
        and TCP keepalives (a cut network is noticed within ~15 s even while idle)."""
        kwargs: dict[str, object] = {
            "connect_timeout": CONNECT_TIMEOUT, "application_name": "sonetto-desktop",
            "keepalives": 1, "keepalives_idle": 5, "keepalives_interval": 2, "keepalives_count": 3,
        }
        if self.password:
            kwargs["password"] = self.password
        if self.sslmode:
            kwargs["sslmode"] = self.sslmode
        return kwargs

    def display(self) -> str:
        """The URL as shown to a person (no password) and the schema."""
        return f"{split_password(self.url)[0]} ({self.schema})"

    __str__ = display


def default_device_name() -> str:
    """This computer's name, as other devices see it on a change."""
    return (socket.gethostname() or "device").split(".")[0][:32]
