"""What ``--store`` names (``sonetto memory``, ``sonetto history``): a memory store file, or the address of
the memory server the app's settings use.

An address (``postgresql://me:PASSWORD@host/db`` or ``postgres://…``, as the settings' 多设备 page takes it)
is never read as a file path (that mangled it into ``postgresql:/me:PASSWORD@host/db``, printed it in
"does not exist" and, with ``--create``, made a folder ``postgresql:`` for a store). The server the
settings use is opened as the app opens it (its schema, TLS, this computer's copy, journal and imports);
the password the address carries is the one used. Any other address is refused: the local copy and the
imports a server's store keeps on this computer are the settings' server's. Every text that names an
address hides its password (``redaction.scrub``).
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from .aio import run_blocking
from .cli_words import Words
from .config.settings import Settings, load_settings
from .memory.stores.backends import backend_named
from .memory.stores.postgres.location import split_password
from .redaction import scrub

#: A URL's start (``postgresql://``, ``mysql://``…): never a file path.
_URL_START = re.compile(r"^\s*([A-Za-z][A-Za-z0-9+.-]*)://")
_SCHEMES = {"postgresql": "postgresql", "postgres": "postgresql"}


class StoreRefused(Exception):
    """``--store`` names nothing the command line opens: the message says why, in the person's language."""


def is_address(store: str) -> bool:
    """Whether ``--store``'s text is an address (a URL, or libpq's ``key=value`` form with a password),
    not a file path."""
    return bool(_URL_START.match(store)) or bool(split_password(store)[1])


def shown_address(store: str) -> str:
    """The address as it may be shown: its password hidden."""
    return scrub(store.strip())


def _server(url: str) -> str:
    """The server and database an address names, without its password, comparable: ``postgres://`` is
    ``postgresql://``, the scheme's case and a trailing ``/`` do not count."""
    bare = split_password(url)[0].strip().rstrip("/")
    found = _URL_START.match(bare)
    if found is None:
        return bare
    scheme = found.group(1).lower()
    return f"{_SCHEMES.get(scheme, scheme)}://{bare[found.end():]}"


def server_settings(store: str, say: Words) -> Settings:
    """The settings to open the memory server ``store`` (an address) names: the app's own, with the
    password it carries (blocking: reads the settings). :class:`StoreRefused` when the settings keep the
    memories in a file or on another server, or it is no PostgreSQL address."""
    settings = load_settings(with_secret=False)
    scheme = _URL_START.match(store)
    postgres = scheme is None or scheme.group(1).lower() in _SCHEMES
    if (postgres and backend_named(settings.store_backend).on_server
            and _server(store) == _server(settings.postgres_url)):
        password = split_password(store)[1]
        return dataclasses.replace(settings, postgres_password=password) if password else settings
    shown = shown_address(store)
    if not postgres:
        raise StoreRefused(say(
            f"{shown} 不是记忆库：--store 接受记忆库文件（.yaml 或 .db），或设置里“多设备”页的记忆服务器的地址",
            f"{shown} is not a memory store: --store takes a memory store file (.yaml or .db) or the address "
            "of the memory server set on the settings' Devices page"))
    raise StoreRefused(say(
        f"{shown} 不是设置里在用的记忆服务器：--store 接受记忆库文件（.yaml 或 .db），或设置里“多设备”页的记忆服务器"
        "的地址（要用另一台记忆服务器，先在那里换过去）",
        f"{shown} is not the memory server the settings use: --store takes a memory store file (.yaml or .db) "
        "or the address of the memory server set on the settings' Devices page (to use another, switch to it there)"))


async def named_store(store: str | None, say: Words) -> tuple[Path | None, Settings | None]:
    """(the store file, the settings to open with) that ``--store`` names: ``(None, None)`` without it (the
    settings' store), ``(file, None)`` for a file, ``(None, settings)`` for the settings' memory server;
    :class:`StoreRefused` for any other address."""
    if not store:
        return None, None
    if is_address(store):
        return None, await run_blocking(server_settings, store, say)
    return Path(store).expanduser(), None
