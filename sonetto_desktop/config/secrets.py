"""Where the API key (and the memory server's password) live: the OS keyring when a usable one
exists, else a user-only file.

A secret is never written to settings.json and never logged. The file fallback is ``api_key`` (the
password: ``postgres_password``) in the config dir, created with mode 0600 (owner read/write only). On Windows the mode bits are ignored; the
file then relies on the per-user ACL of the profile directory it lives in.
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path

from .paths import config_dir as default_config_dir

log = logging.getLogger(__name__)

SERVICE = "sonetto-desktop"
USERNAME = "api_key"
KEY_FILE = "api_key"
#: The memory server's password (``ApiKeyStore(config_dir, POSTGRES_PASSWORD)``).
POSTGRES_PASSWORD = "postgres_password"


def keyring_usable() -> bool:
    """True when the active keyring backend can really store secrets (not the fail/null ones)."""
    try:
        import keyring
        from keyring.backends import fail, null
    except Exception:  # noqa: BLE001 - keyring missing or broken: fall back to the file
        return False
    try:
        backend = keyring.get_keyring()
        if isinstance(backend, (fail.Keyring, null.Keyring)):
            return False
        return float(backend.priority) > 0
    except Exception:  # noqa: BLE001 - a backend that cannot even report its priority is unusable
        return False


class ApiKeyStore:
    """Loads, stores and deletes one secret for one config dir: the API key, or another secret
    named ``name`` (its keyring user name and its fallback file's name)."""

    def __init__(self, config_dir: Path | str | None = None, name: str = USERNAME) -> None:
        if config_dir is None:
            config_dir = default_config_dir()
        self.config_dir = Path(config_dir)
        self.name = name

    @property
    def key_file(self) -> Path:
        return self.config_dir / (KEY_FILE if self.name == USERNAME else self.name)

    @property
    def backend(self) -> str:
        """"keyring" or "file": where :meth:`store` will put the key."""
        return "keyring" if keyring_usable() else "file"

    def load(self) -> str:
        if keyring_usable():
            try:
                import keyring

                value = keyring.get_password(SERVICE, self.name)
                if value:
                    return value
            except Exception as exc:  # noqa: BLE001 - a locked / broken keyring must not stop the app
                log.warning("Could not read the API key from the OS keyring (%s); trying the key file", type(exc).__name__)
        return self._load_file()

    def store(self, key: str) -> str:
        """Store ``key`` (empty deletes it). Returns where it went: "keyring", "file" or "deleted"."""
        key = key.strip()
        if not key:
            self.delete()
            return "deleted"
        if keyring_usable():
            try:
                import keyring

                keyring.set_password(SERVICE, self.name, key)
                self._delete_file()  # no stale copy left on disk
                return "keyring"
            except Exception as exc:  # noqa: BLE001
                log.warning("Could not store the API key in the OS keyring (%s); using the key file", type(exc).__name__)
        self._store_file(key)
        return "file"

    def delete(self) -> None:
        if keyring_usable():
            try:
                import keyring
                from keyring.errors import PasswordDeleteError

                try:
                    keyring.delete_password(SERVICE, self.name)
                except PasswordDeleteError:
                    pass
            except Exception as exc:  # noqa: BLE001
                log.warning("Could not delete the API key from the OS keyring (%s)", type(exc).__name__)
        self._delete_file()

    # -- file fallback ---------------------------------------------------------------------------
    def _load_file(self) -> str:
        try:
            return self.key_file.read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            return ""
        except OSError as exc:
            log.warning("Could not read the API key file (%s)", type(exc).__name__)
            return ""

    def _store_file(self, key: str) -> None:
        from ..memory.files import atomic_write  # the one crash-safe write (a leaf: stdlib only)

        self.config_dir.mkdir(parents=True, exist_ok=True)
        atomic_write(self.key_file, key.encode("utf-8"))  # created 0600 from the first byte
        # Belt and braces for a file that existed before with wider permissions (umask never widens 0600).
        os.chmod(self.key_file, 0o600)

    def _delete_file(self) -> None:
        try:
            self.key_file.unlink()
        except FileNotFoundError:
            pass


def load_api_key(config_dir: Path | str | None = None) -> str:
    return ApiKeyStore(config_dir).load()


def store_api_key(key: str, config_dir: Path | str | None = None) -> str:
    return ApiKeyStore(config_dir).store(key)


def load_secret(name: str, config_dir: Path | str | None = None) -> str:
    return ApiKeyStore(config_dir, name).load()


def store_secret(name: str, value: str, config_dir: Path | str | None = None) -> str:
    return ApiKeyStore(config_dir, name).store(value)


#: The bearer token of ``sonetto mcp --http`` (other AI apps on this computer send it).
MCP_TOKEN = "mcp_token"
_MCP_TOKEN_LOCK = threading.Lock()  # one token made at a time (the page and a button may both ask)


def mcp_token(config_dir: Path | str | None = None, *, create: bool = True) -> str:
    """The local MCP server's bearer token; made (random, 256 bits) and stored on first use
    (``create``). Blocking (keyring or file): call it off the UI thread."""
    with _MCP_TOKEN_LOCK:
        token = load_secret(MCP_TOKEN, config_dir)
        if not token and create:
            token = _make_mcp_token(config_dir)
    return token


def new_mcp_token(config_dir: Path | str | None = None) -> str:
    """Replace the MCP token with a new random one (apps holding the old one are refused from now on)."""
    with _MCP_TOKEN_LOCK:
        return _make_mcp_token(config_dir)


def _make_mcp_token(config_dir: Path | str | None) -> str:
    import base64

    token = base64.urlsafe_b64encode(os.urandom(32)).decode("ascii").rstrip("=")
    store_secret(MCP_TOKEN, token, config_dir)
    return token
