"""Who may use the memories through MCP, and as which actor.

The settings are read again on every call (a small file): switching the server off, making it
read-only or removing a client from the allow list in the app takes effect at once, also for a
server that is already running. They are read exactly (``load_access_settings``): a settings file
that cannot be read, or whose MCP rules have a bad value, refuses every call until the app has
repaired it — the rules fail closed, never fall back to the defaults (which allow any app to write),
and the server never moves or rewrites the person's file.

A client is who it says it is in the MCP handshake (``client_of``): a name, not a proof. Over HTTP a
per-app token (``app_tokens``) names the app instead, whatever the handshake says.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ..config.settings import Settings, SettingsUnreadable

#: A client name as the history shows it: ``mcp:`` plus at most this many characters.
MAX_CLIENT_CHARS = 40
UNKNOWN_CLIENT = "unknown"
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
#: The settings that decide what other apps may do: a bad value in any refuses every call.
MCP_FIELDS = ("mcp_enabled", "mcp_read_only", "mcp_allowed_clients", "mcp_http_port")
#: The ASGI scope key under which the HTTP gate names the app a per-app token belongs to.
APP_SCOPE_KEY = "sonetto.app"
UNREADABLE = ("Sonetto 的设置文件无法读取，修复前拒绝其他应用的一切访问；请打开 Sonetto（它会修复设置） / Sonetto's "
              "settings cannot be read: other apps are refused until Sonetto repairs them (open Sonetto)")


def load_access_settings() -> Settings:
    """The saved settings, read exactly (``Settings.read_exactly``) with the environment's overrides:
    ``SettingsUnreadable`` instead of defaults for a damaged file. Blocking."""
    return Settings.read_exactly(checked=MCP_FIELDS).with_env()


class AccessDenied(Exception):
    """The person's settings do not allow this call (the message says which setting, in both languages)."""


def client_label(name: Any) -> str:
    """A client's name from the handshake as shown and matched: one line, printable, bounded."""
    text = " ".join(_UNPRINTABLE.sub(" ", str(name or "")).split())
    return text[:MAX_CLIENT_CHARS] or UNKNOWN_CLIENT


def actor_for(client: str) -> str:
    """The history's actor for a client's changes."""
    return f"mcp:{client_label(client)}"


def allowed_clients(text: str) -> list[str]:
    """The allow list as the settings keep it (one per line or comma-separated) -> names; empty: any."""
    names = (client_label(part) for part in re.split(r"[,\n;，；]", text or "") if part.strip())
    return list(dict.fromkeys(names))


def client_of(context: Any) -> str:
    """The app a call comes from: the app of the per-app HTTP token it was sent with, else the
    name the client gave in the MCP initialize handshake of its connection (what it declares)."""
    try:
        request = context.request_context.request
        app = request.scope.get(APP_SCOPE_KEY) if request is not None else None
    except (AttributeError, LookupError, ValueError):
        app = None
    if isinstance(app, str) and app:
        return client_label(app)
    try:
        params = context.session.client_params
        name = params.client_info.name if params is not None else None
    except (AttributeError, LookupError):
        name = None
    return client_label(name)


class Access:
    """``settings()``: the current settings (blocking; called in a worker thread by the caller;
    default ``load_access_settings``). ``on_client(name)``: told about every client that asks,
    allowed or not (``clients_seen``)."""

    def __init__(self, settings: Callable[[], Settings] = load_access_settings,
                 on_client: Callable[[str], None] | None = None) -> None:
        self._settings = settings
        self._on_client = on_client

    def check(self, client: str, *, write: bool) -> Settings:
        """The settings, if ``client`` may make this call; else ``AccessDenied`` saying why."""
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
        if allowed and client_label(client).casefold() not in {name.casefold() for name in allowed}:
            raise AccessDenied(f"应用「{client}」不在 Sonetto 允许的应用列表中 / the app {client!r} is not on "
                               "Sonetto's list of allowed apps (设置 → 其他应用)")
        if write and settings.mcp_read_only:
            raise AccessDenied("Sonetto 设置为只读：其他应用只能查看记忆，不能修改 / Sonetto is read-only for "
                               "other apps: memories can be searched and listed, not changed")
        return settings
