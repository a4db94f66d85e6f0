"""The HTTP transport's gate: loopback peers only, and the bearer token from Sonetto's settings.

An ASGI wrapper around the SDK's streamable-HTTP app. The token is read for every request (a small
file or the keyring; the person may make a new one in the settings while the server runs: the
new one works at once and the old one stops working at once) and compared in constant time.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
from collections.abc import Awaitable, Callable
from typing import Any

from ..aio import run_blocking

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
    """``token()``: the current token (blocking: keyring or file; called in a worker thread)."""

    def __init__(self, app: ASGIApp, token: Callable[[], str]) -> None:
        self._app = app
        self._load = token

    async def _matches(self, given: str) -> bool:
        if not given:
            return False
        current = await run_blocking(self._load)  # read each time: a new token replaces the old one at once
        return bool(current) and hmac.compare_digest(given.encode(), current.encode())

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
        if not await self._matches(_bearer(scope)):
            await _refuse(send, 401, "missing or wrong token: copy it from Sonetto → 设置 → 其他应用 "
                                     "/ 缺少令牌或令牌不对，请从 Sonetto 设置 → 其他应用 复制")
            return
        await self._app(scope, receive, send)


async def _refuse(send: Any, status: int, message: str) -> None:
    body = json.dumps({"error": message}, ensure_ascii=False).encode("utf-8")
    headers = [(b"content-type", b"application/json; charset=utf-8"), (b"content-length", str(len(body)).encode())]
    if status == 401:
        headers.append((b"www-authenticate", b'Bearer realm="sonetto"'))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
