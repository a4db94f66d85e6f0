"""Who may use the memories through MCP, and as which actor.

The settings are read again on every call (a small file): switching the server off, making it
read-only or removing a client from the allow list in the app takes effect at once, also for a
server that is already running. They are read exactly (``load_access_settings``): a settings file
that cannot be read, or whose MCP rules have a bad value, refuses every call until the app has
repaired it — the rules fail closed, never fall back to the defaults (which allow any app to write),
and the server never moves or rewrites the person's file.

A client is who it says it is in the MCP handshake (``caller_of``): a name, not a proof. Over HTTP a
per-app token (``app_tokens``) names the app instead, whatever the handshake says; and a name that
has a token of its own can then only be had with that token: a client of the shared token or of
stdio declaring it is refused (else it could write as that app), and so is every declared name while
the apps' tokens cannot be read (fail closed: a declared name cannot then be told from an app's).
Quotas go by the credential, never by the declared name (:class:`Caller`: the kind of token the HTTP
gate found, ``CREDENTIAL_SCOPE_KEY``, or stdio).
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..config.settings import Settings, SettingsUnreadable
from ..memory.changes import by_other_app, source_of
from .app_tokens import AppTokensUnreadable, app_tokens
from .names import MAX_CLIENT_CHARS, UNKNOWN_CLIENT, client_label, lookalike_key, name_key

__all__ = ["APP_SCOPE_KEY", "CREDENTIAL_SCOPE_KEY", "MAX_CLIENT_CHARS", "UNKNOWN_CLIENT", "Access", "AccessDenied",
           "Caller", "actor_for", "allowed_clients", "caller_of", "client_label", "load_access_settings",
           "written_by"]

#: The settings that decide what other apps may do: a bad value in any refuses every call.
MCP_FIELDS = ("mcp_enabled", "mcp_read_only", "mcp_allowed_clients", "mcp_http_port", "mcp_shared_token")
#: The ASGI scope key under which the HTTP gate names the app a per-app token belongs to.
APP_SCOPE_KEY = "sonetto.app"
#: The ASGI scope key under which the HTTP gate says which token a request came with: ``shared`` or
#: ``app`` (``caller_of`` takes the credential from it; an HTTP request without it counts as shared).
CREDENTIAL_SCOPE_KEY = "sonetto.credential"
#: Seconds the names of the apps with tokens of their own are kept between reads (the keyring is not
#: asked on every call; a token made in the settings protects its app's name within this time).
TOKEN_NAMES_TTL = 5.0
UNREADABLE = ("Sonetto 的设置文件无法读取，修复前拒绝其他应用的一切访问；请打开 Sonetto（它会修复设置） / Sonetto's "
              "settings cannot be read: other apps are refused until Sonetto repairs them (open Sonetto)")


def load_access_settings() -> Settings:
    """The saved settings, read exactly (``Settings.read_exactly``) with the environment's overrides:
    ``SettingsUnreadable`` instead of defaults for a damaged file. Blocking."""
    return Settings.read_exactly(checked=MCP_FIELDS).with_env()


class AccessDenied(Exception):
    """The person's settings do not allow this call (the message says which setting, in both languages)."""


def actor_for(client: str) -> str:
    """The history's actor for a client's changes."""
    return f"mcp:{client_label(client)}"


def written_by(author: Any) -> str | None:
    """The app a memory is another app's by (its ``author``: ``mcp:<app>`` -> ``<app>``), else None: the
    person's, Sonetto's or imported from the person's chats."""
    if not by_other_app(author):
        return None
    return source_of(author) or author


def allowed_clients(text: str) -> list[str]:
    """The allow list as the settings keep it (one per line or comma-separated) -> names; empty: any."""
    names = (client_label(part) for part in re.split(r"[,\n;，；]", text or "") if part.strip())
    return list(dict.fromkeys(names))


@dataclass(frozen=True)
class Caller:
    """Who makes a call: ``name`` (an app token's app, else the name its handshake declared),
    ``credential`` (``app``: an app's own HTTP token; ``shared``: the shared HTTP token; ``stdio``)
    and ``session`` (its transport session: one HTTP session, or the stdio process's)."""

    name: str
    credential: str = "stdio"
    session: str = ""

    @property
    def declared(self) -> bool:
        """The name is what the client says, not what a token proves."""
        return self.credential != "app"

    def buckets(self) -> tuple[tuple[str, str], ...]:
        """The quota keys (``quota.py``): ``(kind, key)``, kind ``app`` (its token), for the shared token
        ``session`` (its HTTP session) and ``shared`` (every session of it together), ``stdio`` (every
        stdio process together). Never the declared name."""
        if self.credential == "app":
            return (("app", self.name.casefold()),)
        if self.credential == "shared":
            return (("session", self.session), ("shared", ""))
        return (("stdio", ""),)


#: The HTTP header naming a streamable-HTTP session (the MCP specification's).
SESSION_HEADER = "mcp-session-id"


def caller_of(context: Any) -> Caller:
    """The caller of a tool's ``Context`` or of a server middleware's request context. Its credential:
    over HTTP what the gate put in the request's scope (``CREDENTIAL_SCOPE_KEY``; an app's token also
    names the app, ``APP_SCOPE_KEY``), over stdio ``stdio``. Its session: over HTTP the MCP session the
    request belongs to (its ``Mcp-Session-Id``), over stdio the process (one connection per process)."""
    try:
        request_context = context.request_context
    except (AttributeError, LookupError, ValueError):  # the middleware's context is the request context
        request_context = context
    request = getattr(request_context, "request", None)
    scope = getattr(request, "scope", None) or {}
    session = "stdio"
    if request is not None:
        try:
            session = "http:" + (request.headers.get(SESSION_HEADER) or "")
        except AttributeError:
            session = "http:"
    app = scope.get(APP_SCOPE_KEY)
    if scope.get(CREDENTIAL_SCOPE_KEY) == "app" and isinstance(app, str) and app:
        return Caller(client_label(app), "app", session)
    try:
        params = request_context.session.client_params
        name = params.client_info.name if params is not None else None
    except (AttributeError, LookupError):
        name = None
    # Over HTTP anything but an app's token (as the gate said) is the shared token's: its limits.
    return Caller(client_label(name), "shared" if request is not None else "stdio", session)


def _app_token_names() -> list[str]:
    return list(app_tokens())


class Access:
    """``settings()``: the current settings (blocking; called in a worker thread by the caller;
    default ``load_access_settings``). ``on_client(name)``: told about every client that asks,
    allowed or not (``clients_seen``). ``app_names()``: the apps that have their own token
    (blocking: keyring or file; default ``app_tokens``)."""

    def __init__(self, settings: Callable[[], Settings] = load_access_settings,
                 on_client: Callable[[str], None] | None = None,
                 app_names: Callable[[], list[str]] = _app_token_names) -> None:
        self._settings = settings
        self._on_client = on_client
        self._app_names = app_names
        self._names: tuple[float, dict[str, str]] | None = None
        self._names_lock = threading.Lock()

    def check(self, caller: Caller | str, *, write: bool) -> Settings:
        """The settings, if ``caller`` (a name: a declared one) may make this call; else
        ``AccessDenied`` saying why."""
        if isinstance(caller, str):
            caller = Caller(client_label(caller))
        client = caller.name
        if self._on_client is not None:
            self._on_client(client)
        try:
            settings = self._settings()
        except (SettingsUnreadable, OSError) as exc:  # fail closed: never the defaults' "anyone may write"
            raise AccessDenied(UNREADABLE) from exc
        if not settings.mcp_enabled:
            raise AccessDenied("其他应用访问记忆已在 Sonetto 设置中关闭 / access by other apps is switched off "
                               "in Sonetto's settings (其他应用)")
        allowed = allowed_clients(settings.mcp_allowed_clients)
        if allowed and name_key(client) not in {name_key(name) for name in allowed}:
            raise AccessDenied(f"应用「{client}」不在 Sonetto 允许的应用列表中 / the app {client!r} is not on "
                               "Sonetto's list of allowed apps (设置 → 其他应用)")
        if write and settings.mcp_read_only:
            raise AccessDenied("Sonetto 设置为只读：其他应用只能查看记忆，不能修改 / Sonetto is read-only for "
                               "other apps: memories can be searched and listed, not changed")
        if caller.declared:
            reserved = self._token_apps()
            if name_key(client) in {name_key(name) for name in reserved.values()}:
                raise AccessDenied(f"「{client}」有自己的应用令牌，只能用它连接（HTTP，设置 → 其他应用）；用共用令牌或 stdio "
                                   f"时请换一个名字 / {client!r} has a token of its own: only a connection with that "
                                   "token is that app (HTTP, Sonetto → 设置 → 其他应用)")
            like = reserved.get(lookalike_key(client))
            if like is not None:
                raise AccessDenied(f"「{client}」看起来像「{like}」，而「{like}」有自己的应用令牌；请换一个容易区分的名字 / "
                                   f"{client!r} looks like {like!r}, an app with a token of its own: declare a name "
                                   "that cannot be taken for it")
        return settings

    def _token_apps(self) -> dict[str, str]:
        """The apps with tokens of their own, by their look-alike key (``names.lookalike_key``)."""
        with self._names_lock:
            if self._names is not None and time.monotonic() - self._names[0] < TOKEN_NAMES_TTL:
                return self._names[1]
        try:
            names = {lookalike_key(name): client_label(name) for name in self._app_names()}
        except (OSError, AppTokensUnreadable) as exc:  # fail closed: a declared name cannot be told from an app's
            raise AccessDenied(
                "无法读取应用令牌，暂时拒绝按名字连接的应用（用共用令牌或 stdio 的应用）；请在 Sonetto 设置 → 其他应用 重新生成"
                f"应用令牌 / the apps' own tokens cannot be read ({exc}): apps known only by the name they "
                "declare (shared token, stdio) are refused until the tokens are made again in Sonetto → 设置 → "
                "其他应用") from exc
        with self._names_lock:
            self._names = (time.monotonic(), names)
        return names
