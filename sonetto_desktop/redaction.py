"""Keeping secrets out of text that leaves the process: error messages, stored errors, log lines.

``scrub(text, secrets)`` replaces every given secret (the configured API key, which a server may
echo in an error body), every bearer token, everything shaped like an API key and the password of
a connection string (``scheme://user:PASSWORD@host``, ``?password=…``, ``password=…``) by ``***``.

:class:`SecretRedactingFilter` does that to every log record. ``install_log_redaction()`` attaches
one to each handler of the root logger (the app calls it right after configuring logging), and
``register_secret(key)`` tells the installed filters about a key as soon as a model is built with
it, so that a debug line repeating an exception's text (qasync logs callbacks with their
arguments) never prints the key. No Qt, and no other module of ours: every layer (the memory domain
included) uses it.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Iterable


_KEYISH = re.compile(r"\b(?:sk|pk|ak|key)-[A-Za-z0-9_*.\-]{4,}", re.IGNORECASE)
_BEARER = re.compile(r"(Bearer\s+)[^\s'\"\\)>,]+", re.IGNORECASE)
#: A URL's password (``postgresql://me:PASSWORD@host``; greedy to the token's last @: a password may hold one).
_URL_PASSWORD = re.compile(r"(://[^\s:/@?#]*:)\S+@")
#: A ``password=`` pair: a URL parameter or libpq's ``key=value`` form (quoted or not).
_PASSWORD_PAIR = re.compile(r"(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s&'\"]+)", re.IGNORECASE)
_MIN_SECRET = 4  # shorter "secrets" (placeholders, typos) would mangle ordinary text


def redact(text: str, secret: str) -> str:
    """``text`` with ``secret`` (an API key a server may echo back) replaced by ``***``."""
    return text.replace(secret, "***") if secret and len(secret) >= _MIN_SECRET else text


def scrub(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with every secret, key-like token, bearer token and connection-string password
    replaced by ``***``."""
    for secret in secrets:
        text = redact(text, secret)
    text = _BEARER.sub(r"\1***", text)
    text = _URL_PASSWORD.sub(r"\1***@", text)
    text = _PASSWORD_PAIR.sub(r"\1***", text)
    return _KEYISH.sub("***", text)


class SecretRedactingFilter(logging.Filter):
    """A handler filter that rewrites each record (message, arguments, traceback, stack) through
    :func:`scrub` with the secrets it knows. It never drops a record."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self._secrets: tuple[str, ...] = ()
        for secret in secrets:
            self.add_secret(secret)

    def add_secret(self, secret: str) -> None:
        secret = (secret or "").strip()
        if len(secret) < _MIN_SECRET:
            return
        with self._lock:
            if secret not in self._secrets:
                # Longest first, so that a key containing another known key is hidden whole.
                self._secrets = tuple(sorted({*self._secrets, secret}, key=len, reverse=True))

    @property
    def secrets(self) -> tuple[str, ...]:
        return self._secrets

    def filter(self, record: logging.LogRecord) -> bool:
        secrets = self._secrets
        try:
            message = record.getMessage()
        except Exception:  # noqa: BLE001 - a broken format string is the handler's to report
            return True
        clean = scrub(message, secrets)
        if clean != message or record.args:
            record.msg, record.args = clean, None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = scrub(record.exc_text, secrets)
        if record.stack_info:
            record.stack_info = scrub(record.stack_info, secrets)
        return True


def install_log_redaction(logger: logging.Logger | None = None) -> SecretRedactingFilter:
    """Put one :class:`SecretRedactingFilter` on every handler of ``logger`` (the root logger by
    default) and return it; calling it again reuses the filter already there."""
    target = logger or logging.getLogger()
    found = _installed(target)
    redactor = found[0] if found else SecretRedactingFilter()
    for handler in target.handlers:
        if redactor not in handler.filters:
            handler.addFilter(redactor)
    return redactor


def register_secret(secret: str, logger: logging.Logger | None = None) -> None:
    """Tell the filters installed on ``logger``'s handlers (root by default) to hide ``secret``."""
    for redactor in _installed(logger or logging.getLogger()):
        redactor.add_secret(secret)


def _installed(logger: logging.Logger) -> list[SecretRedactingFilter]:
    found: list[SecretRedactingFilter] = []
    for handler in logger.handlers:
        for item in handler.filters:
            if isinstance(item, SecretRedactingFilter) and item not in found:
                found.append(item)
    return found
