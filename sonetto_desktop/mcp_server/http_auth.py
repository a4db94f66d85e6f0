"""The HTTP transport's gate: loopback peers only, and a bearer token from Sonetto's settings.

An ASGI wrapper around the SDK's streamable-HTTP app. The tokens are read for every request (a small
file or the keyring; the person may make a new one in the settings while the server runs: the
new one works at once and the old one stops working at once) and compared in constant time. The
shared token lets a request through as it is (the app is who its handshake says) unless the person
switched it off (``mcp_shared_token``: once apps have tokens of their own); an app's own token
(``app_tokens``) names that app in the request's scope (``access.APP_SCOPE_KEY``). The scope also
says which kind of token it was (``access.CREDENTIAL_SCOPE_KEY``: ``access.caller_of`` takes the
credential, and so the quotas, from it). Apps' tokens that cannot be read are no token (401, saying so).

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
from .access import APP_SCOPE_KEY, CREDENTIAL_SCOPE_KEY
from .app_tokens import AppTokensUnreadable, app_of

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
    """``token()``: the current shared token; ``app_tokens()``: ``{app: token}``; ``shared_allowed()``:
    whether the shared token is on (the settings; all three blocking: keyring or file; called in a
    worker thread)."""

    def __init__(self, app: ASGIApp, token: Callable[[], str],
                 app_tokens: Callable[[], dict[str, str]] = dict,
                 shared_allowed: Callable[[], bool] = lambda: True) -> None:
        self._app = app
        self._load = token
        self._apps = app_tokens
        self._shared_allowed = shared_allowed

    async def _matches(self, given: str) -> tuple[str | None, str | None]:
        """(the credential: ``shared``, ``app``, ``off`` (the shared token, switched off), ``unreadable``
        (not the shared token, and the apps' tokens cannot be read: the second item says why) or None,
        and the app an app token names)."""
        if not given:
            return None, None
        current = await run_blocking(self._load)  # read each time: a new token replaces the old one at once
        if current and hmac.compare_digest(given.encode(), current.encode()):
            return ("shared" if await run_blocking(self._shared_allowed) else "off"), None
        try:
            tokens = await run_blocking(self._apps)
        except (AppTokensUnreadable, OSError) as exc:
            return "unreadable", str(exc)
        app = app_of(given, tokens)
        return ("app" if app is not None else None), app

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
        credential, app = await self._matches(_bearer(scope))
        if credential is None:
            await _refuse(send, 401, "missing or wrong token: copy it from Sonetto → 设置 → 其他应用 "
                                     "/ 缺少令牌或令牌不对，请从 Sonetto 设置 → 其他应用 复制")
            return
        if credential == "unreadable":
            await _refuse(send, 401, "这不是共用令牌，而应用令牌无法读取 / not the shared token, and "
                                     f"the apps' own tokens cannot be read: {app}")
            return
        if credential == "off":
            await _refuse(send, 401, "the shared token is switched off in Sonetto's settings: connect with this "
                                     "app's own token (设置 → 其他应用 → 应用令牌) / 共用令牌已在 Sonetto 设置中关闭，"
                                     "请用这个应用自己的令牌连接")
            return
        if scope.get("method") == "GET":
            await _refuse(send, 405, "this server sends no messages of its own: no event stream to open "
                                     "/ 本服务不主动发送消息，没有事件流")
            return
        # Never the request's say: only the gate names the app and the credential.
        scope = {key: value for key, value in scope.items() if key not in (APP_SCOPE_KEY, CREDENTIAL_SCOPE_KEY)}
        scope[CREDENTIAL_SCOPE_KEY] = credential
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
