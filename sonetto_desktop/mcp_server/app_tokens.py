"""Per-app tokens for ``sonetto mcp --http``: one bearer token per app, so the token says which app
calls, not the name the app declares in its handshake (any app can declare any name).

A call made with an app's token is that app's (``mcp:<app>`` in the history, and the allow list
and the settings' rules judge that name); the shared token (``config.secrets.mcp_token``) keeps
working for apps configured with it, judged by the name they declare. Kept as one secret
(``mcp_app_tokens``: JSON ``{app: token}``) in the OS keyring or an owner-only file, like the shared
token. Blocking (keyring or file): call these off the UI thread. A secret that cannot be read as
written (damaged: not the JSON this module writes) raises :class:`AppTokensUnreadable`: the server then
accepts no app token and refuses every declared name (it cannot tell which names have tokens: fail
closed), until the person makes tokens again (:func:`new_app_token` replaces the damaged secret).
"""

from __future__ import annotations

import base64
import hmac
import json
import logging
import os
import threading
from pathlib import Path

from ..config.secrets import load_secret, store_secret
from .names import client_label, lookalike_key, name_key

log = logging.getLogger(__name__)

SECRET = "mcp_app_tokens"
_LOCK = threading.Lock()  # one change at a time (the settings page's buttons)


def make_token() -> str:
    """A random token (256 bits), URL-safe."""
    return base64.urlsafe_b64encode(os.urandom(32)).decode("ascii").rstrip("=")


class AppTokensUnreadable(ValueError):
    """The per-app tokens are kept but cannot be read (the message says why and what to do)."""


def app_tokens(config_dir: Path | str | None = None) -> dict[str, str]:
    """``{app: token}``, apps in the order their tokens were made; :class:`AppTokensUnreadable` when
    the secret is damaged (``OSError`` when the keyring or file cannot be reached)."""
    return _read(config_dir, strict=True)


def _read(config_dir: Path | str | None, *, strict: bool) -> dict[str, str]:
    raw = load_secret(SECRET, config_dir)
    if not raw:
        return {}
    try:
        data = json.loads(raw)
    except ValueError:
        data = None
    if not isinstance(data, dict) or not all(isinstance(token, str) and token for token in data.values()):
        why = "not a JSON object of app names and tokens"
        if strict:
            raise AppTokensUnreadable(
                f"应用令牌已损坏，无法读取（{why}）；请在 Sonetto 设置 → 其他应用 重新生成 / the apps' own tokens "
                f"cannot be read ({why}); make them again in Sonetto → 设置 → 其他应用")
        log.warning("the per-app MCP tokens cannot be read (%s); the ones that can are kept", why)
        data = data if isinstance(data, dict) else {}
    return {client_label(app): token for app, token in data.items() if isinstance(token, str) and token}


class LookalikeName(ValueError):
    """The name asked for looks like the name of another app that has a token (``names.lookalike_key``)."""


def new_app_token(app: str, config_dir: Path | str | None = None) -> str:
    """A new token for ``app`` (replacing its old one, which stops working at once; the same name in
    other capitals is the same app). ``LookalikeName`` when ``app`` only looks like another app with a
    token (``Сursor`` beside ``Cursor``): the history could not tell them apart."""
    label = client_label(app)
    with _LOCK:
        tokens = _read(config_dir, strict=False)  # a damaged secret is replaced
        for other in list(tokens):
            if name_key(other) == name_key(label):
                del tokens[other]  # the same app: its old token stops working
            elif lookalike_key(other) == lookalike_key(label):
                raise LookalikeName(f"「{label}」看起来像已有令牌的「{other}」，请换一个容易区分的名字 / {label!r} "
                                    f"looks like {other!r}, which has a token already: choose a name that cannot "
                                    "be taken for it")
        tokens[label] = make_token()
        store_secret(SECRET, json.dumps(tokens, ensure_ascii=False), config_dir)
        return tokens[label]


def revoke_app_token(app: str, config_dir: Path | str | None = None) -> bool:
    """``app``'s token stops working; False when it had none."""
    label = client_label(app)
    with _LOCK:
        tokens = _read(config_dir, strict=False)
        same = [other for other in tokens if name_key(other) == name_key(label)]
        if not same:
            return False
        for other in same:
            del tokens[other]
        store_secret(SECRET, json.dumps(tokens, ensure_ascii=False), config_dir)
        return True


def app_of(token: str, tokens: dict[str, str]) -> str | None:
    """The app ``token`` belongs to (compared in constant time with each), else None."""
    found = None
    for app, known in tokens.items():
        if hmac.compare_digest(token.encode(), known.encode()):
            found = app
    return found
