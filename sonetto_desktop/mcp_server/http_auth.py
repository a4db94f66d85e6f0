"""The HTTP transport's gate: loopback peers only, and a bearer token from Sonetto's settings.

An ASGI wrapper around the SDK's streamable-HTTP app. The tokens are read for every request (a small
file or the keyring; the person may make a new one in the settings while the server runs: the
new one works at once and the old one stops working at once) and compared in constant time. The
shared token lets a request through as it is (the app is who its handshake says); an app's own
token (``app_tokens``) names that app in the request's scope (``access.APP_SCOPE_KEY``).

A ``GET`` (the standalone event stream a client may open for messages the server starts) is
answered 405, as the MCP specification allows a server that offers none: this one never sends a
notification or a request to a client, and the stream would hold a connection for as long as the
session lasts (``http_limits``).
"""

from __future__ import annotations

import hmac
import ipaddress
import json
from collections.abc import Awaitable, Callable
from typing import Any

from ..aio import run_blocking
from .access import APP_SCOPE_KEY
from .app_tokens import app_of

LOOPBACK_HOST = "127.0.0.1"

Scope = dict[str, Any]
ASGIApp = Callable[[Scope, Callable[[], Awaitable[dict]], Callable[[dict], Awaitable[None]]], Awaitable[None]]


def is_loopback(host: str | None) -> bool:
    try:
        return ipaddress.ip_address(host or "").is_loopback
    except ValueError:
        return False


def _bearer(scope: Scope) -> str:
    for name, value in scope.get("headers") or ():
        if name.lower() == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            return token.strip() if scheme.lower() == "bearer" else ""
    return ""


class BearerGate:
    """``token()``: the current shared token; ``app_tokens()``: ``{app: token}`` (both blocking:
    keyring or file; called in a worker thread)."""

    def __init__(self, app: ASGIApp, token: Callable[[], str],
                 app_tokens: Callable[[], dict[str, str]] = dict) -> None:
        self._app = app
        self._load = token
        self._apps = app_tokens

    async def _matches(self, given: str) -> tuple[bool, str | None]:
        """(accepted, the app an app token names)."""
        if not given:
            return False, None
        current = await run_blocking(self._load)  # read each time: a new token replaces the old one at once
        if current and hmac.compare_digest(given.encode(), current.encode()):
            return True, None
        app = app_of(given, await run_blocking(self._apps))
        return app is not None, app

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":  # starts and stops the SDK's session manager
            await self._app(scope, receive, send)
            return
        if scope["type"] != "http":
            return
        client = scope.get("client")
        if not is_loopback(client[0] if client else None):
            await _refuse(send, 403, "only apps on this computer may connect / 只接受本机连接")
            return
        accepted, app = await self._matches(_bearer(scope))
        if not accepted:
            await _refuse(send, 401, "missing or wrong token: copy it from Sonetto → 设置 → 其他应用 "
                                     "/ 缺少令牌或令牌不对，请从 Sonetto 设置 → 其他应用 复制")
            return
        if scope.get("method") == "GET":
            await _refuse(send, 405, "this server sends no messages of its own: no event stream to open "
                                     "/ 本服务不主动发送消息，没有事件流")
            return
        scope = {key: value for key, value in scope.items() if key != APP_SCOPE_KEY}  # never the request's say
        if app is not None:
            scope[APP_SCOPE_KEY] = app
        await self._app(scope, receive, send)


async def _refuse(send: Any, status: int, message: str) -> None:
    body = json.dumps({"error": message}, ensure_ascii=False).encode("utf-8")
    headers = [(b"content-type", b"application/json; charset=utf-8"), (b"content-length", str(len(body)).encode())]
    if status == 401:
        headers.append((b"www-authenticate", b'Bearer realm="sonetto"'))
    if status == 405:
        headers.append((b"allow", b"POST, DELETE"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
