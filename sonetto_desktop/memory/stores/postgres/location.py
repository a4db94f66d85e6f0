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
from urllib.parse import unquote, urlsplit

from ....redaction import register_secret

DEFAULT_SCHEMA = "sonetto"
SSL_MODES = ("disable", "prefer", "require", "verify-full")
_SCHEMA_RE = re.compile(r"^[a-z_][a-z0-9_]{0,40}$")
#: How long one connection attempt may take (the app opens read-only from its cache after that).
CONNECT_TIMEOUT = 5


class PgLocationError(ValueError):
    """The URL or schema cannot name a PostgreSQL store (the message says what to fix)."""


#: One ``key=value`` pair of libpq's connection string form (a value may be quoted: 'a b', \' and \\ inside).
_PAIR = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*('(?:[^'\\]|\\.)*'|[^\s']*)")
#: A URL (``postgresql://…``); anything else is read as libpq's ``key=value`` form.
_URL_START = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def _conninfo_pairs(text: str) -> list[tuple[str, str, tuple[int, int]]] | None:
    """Every ``(key, value, span)`` of a ``key=value`` connection string; None when it is not one."""
    pairs = []
    pos = 0
    while pos < len(text):
        match = _PAIR.match(text, pos)
        if match is None or match.end() == pos:
            return None if text[pos:].strip() else pairs
        value = match.group(2)
        if value.startswith("'"):
            value = re.sub(r"\\(.)", r"\1", value[1:-1])
        pairs.append((match.group(1), value, match.span()))
        pos = match.end()
    return pairs


def split_password(url: str) -> tuple[str, str]:
    """(the connection string without any password, the password or "").

    A pasted server address may carry the password in any form libpq reads: in the URL's user part
    (``postgresql://me:pw@host/db``), as a URL parameter (``…/db?password=pw&sslmode=require``) or
    as a pair of the ``key=value`` form (``host=db user=me password='p w'``). Every one is taken
    out, the rest is kept as written; when a URL has both, the user part's password wins."""
    text = (url or "").strip()
    if _URL_START.match(text):
        return _split_url(text)
    pairs = _conninfo_pairs(text)
    found = [(value, span) for key, value, span in pairs or () if key.lower() == "password"]
    if not found:
        return text, ""
    kept = text
    for _, (start, end) in reversed(found):
        kept = kept[:start] + kept[end:]
    return kept.strip(), found[-1][0]  # libpq reads the last one


def _split_url(url: str) -> tuple[str, str]:
    scheme, rest = url.split("://", 1)
    cut = min((rest.find(c) for c in "/?#" if c in rest), default=len(rest))
    netloc, tail = rest[:cut], rest[cut:]
    user, colon, after = netloc.partition(":")
    if "@" not in netloc and colon and "@" in tail and "[" not in user and not after.isdigit():
        # a password typed with / ? or # in it (not percent-encoded): the user part runs to the next @
        # (a port is digits; an @ after a port or an IPv6 host is the path's or a parameter's)
        at = rest.index("@", cut) + 1
        cut = at + min((rest.find(c, at) - at for c in "/?#" if c in rest[at:]), default=len(rest) - at)
        netloc, tail = rest[:cut], rest[cut:]
    in_userinfo = ""
    if "@" in netloc:
        userinfo, hosts = netloc.rsplit("@", 1)
        user, has_password, secret = userinfo.partition(":")
        if has_password:
            in_userinfo = unquote(secret)
            netloc = f"{user}@{hosts}" if user else hosts
    path, has_query, query = tail.partition("?")
    in_query = ""
    if has_query:
        query, has_fragment, fragment = query.partition("#")
        kept = []
        for piece in query.split("&"):
            key, _, value = piece.partition("=")
            if unquote(key).strip().lower() == "password":
                in_query = unquote(value)
            elif piece:
                kept.append(piece)
        tail = path + ("?" + "&".join(kept) if kept else "") + ("#" + fragment if has_fragment else "")
    return f"{scheme}://{netloc}{tail}", in_userinfo or in_query


def check_url(url: str) -> str:
    """``url`` stripped, or :class:`PgLocationError` saying what is wrong with it. A URL
    (``postgresql://user@host:5432/database``) or libpq's ``key=value`` form naming a host."""
    url = (url or "").strip()
    if not url:
        raise PgLocationError("no PostgreSQL URL is set")
    if not _URL_START.match(url):
        pairs = _conninfo_pairs(url)
        if pairs and any(key.lower() in ("host", "hostaddr") and value for key, value, _ in pairs):
            return url
        raise PgLocationError("a PostgreSQL URL starts with postgresql://")
    parts = urlsplit(url)
    if parts.scheme not in ("postgresql", "postgres"):
        raise PgLocationError("a PostgreSQL URL starts with postgresql://")
    if not parts.netloc.rpartition("@")[2].strip(",") and "host=" not in parts.query:
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
        if self.password:
            register_secret(self.password)  # a log line quoting a server's error never shows it

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
