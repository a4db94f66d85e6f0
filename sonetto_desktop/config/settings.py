"""Typed app settings, saved as ``settings.json`` in the user config dir (no Qt).

The API key is a field of :class:`Settings` but is never written to settings.json, never shown by
``repr``/``str`` and never logged: it lives in the OS keyring or a user-only file (see ``secrets``).
Environment variables override the file (:meth:`Settings.with_env`), without being saved back.
"""

from __future__ import annotations

import json
import logging
import os
import re
import time
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import urlsplit

from ..redaction import scrub
from .paths import config_dir, default_data_dir
from .secrets import KEY_FILE, MCP_TOKEN, POSTGRES_PASSWORD, load_api_key, load_secret, store_api_key, store_secret

log = logging.getLogger(__name__)

SETTINGS_FILE = "settings.json"
OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"

RETRIEVAL_MODES = ("llm", "mechanical", "hybrid")
STORE_BACKENDS = ("yaml", "sqlite", "postgres")
#: TLS for the memory server (libpq's sslmode): "prefer" tries TLS, "require" insists on it,
#: "verify-full" also checks the server's certificate and name.
POSTGRES_TLS_MODES = ("disable", "prefer", "require", "verify-full")
THEMES = ("light", "dark", "system")
LANGUAGES = ("zh_CN", "en")
#: Where recall's embeddings model comes from: the one built into the app (offline; where the
#: platform has none, a configured endpoint or words only), an OpenAI-compatible endpoint, or none.
EMBEDDINGS_SOURCES = ("builtin", "endpoint", "off")

# Fields whose value must be one of a fixed set.
_CHOICES: dict[str, tuple[str, ...]] = {
    "retrieval_mode": RETRIEVAL_MODES,
    "store_backend": STORE_BACKENDS,
    "theme": THEMES,
    "language": LANGUAGES,
    "postgres_tls": POSTGRES_TLS_MODES,
    "embeddings_source": EMBEDDINGS_SOURCES,
}
# Numeric fields: inclusive range.
_RANGES: dict[str, tuple[float, float]] = {
    "temperature": (0.0, 2.0),
    "request_timeout": (0.1, 3600.0),
    "recall_timeout": (0.1, 600.0),
    "recall_budget_tokens": (0, 2_000_000),
    "embeddings_dimensions": (0, 8192),  # memory.retrieval.embeddings.MAX_DIMENSIONS: a larger answer is refused
    "embeddings_rpm": (0, 100_000),
    "trash_retention_days": (0.0, 36500.0),
    "first_token_timeout": (1.0, 3600.0),
    "stream_idle_timeout": (1.0, 3600.0),
    "writer_max_tool_calls": (1, 500),
    "writer_max_changed_memories": (1, 10000),
    "mcp_http_port": (1024, 65535),
    "price_input_per_mtok": (0.0, 100000.0),
    "price_output_per_mtok": (0.0, 100000.0),
}
_CONNINFO_HOST = re.compile(r"(?:^|\s)(?:host|hostaddr)\s*=\s*[^\s']")
_SCHEMA_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,40}$")
_SECRET_FIELDS = frozenset({"api_key", "postgres_password", "embeddings_api_key"})
#: Addresses that may carry a password (``me:PASSWORD@host``, ``password=…``): shown with it hidden.
_ADDRESS_FIELDS = frozenset({"postgres_url"})
#: Keys of settings.json older versions wrote that this one reads once and no longer writes.
_RETIRED = frozenset({"embeddings_enabled"})
#: The embeddings model's own API key (keyring name), when its endpoint is not the chat's.
EMBEDDINGS_API_KEY = "embeddings_api_key"
#: The config folder's own files: the settings, the secrets' files (no keyring), the MCP apps' tokens
#: and the list of apps seen, the window's state (and its folder of long chat drafts). By default on Windows and macOS the data folder is
#: the config folder too: a data folder's memories carried elsewhere leave these behind (the copy takes
#: only the stores' files and ``services.DATA_FILES``, none of these).
CONFIG_FILES = frozenset({SETTINGS_FILE, KEY_FILE, POSTGRES_PASSWORD, EMBEDDINGS_API_KEY, MCP_TOKEN,
                          "mcp_app_tokens", "mcp_clients.json", "ui-state.ini", "chat-drafts"})

USER_NAME_MAX = 20


class SettingsUnreadable(ValueError):
    """settings.json exists but cannot be read as it was written (the message says why)."""


def mask_secret(value: str) -> str:
    """A display form of a secret that reveals nothing but whether it is set."""
    return "********" if value else ""


class Problem(NamedTuple):
    """One thing wrong with the settings, for a person (Chinese and English)."""

    field: str
    zh: str
    en: str

    def __str__(self) -> str:
        return f"{self.field}: {self.en}"


@dataclass
class Settings:
    base_url: str = ""
    model: str = ""
    api_key: str = field(default="", repr=False)
    temperature: float = 0.7
    retrieval_mode: str = "hybrid"
    store_backend: str = "yaml"
    data_dir: str = ""
    theme: str = "system"
    language: str = "zh_CN"
    request_timeout: float = 60.0
    recall_timeout: float = 8.0
    #: How many tokens of memories the recall model may read per message (0: automatic, by provider:
    #: large for a cloud model, what the context holds for a local server; memory/retrieval/budget.py).
    recall_budget_tokens: int = 0
    # The embeddings model for recall's shortlist beyond the budget: ``embeddings_source`` (see
    # EMBEDDINGS_SOURCES; built in by default), and for "endpoint" (memory/retrieval/embeddings.py)
    # which preset ("" or "custom": the fields below), where (empty: the chat's base URL, and then its
    # key), the model, its vector size (0: the model's own) and its pace (requests per minute; 0: the
    # preset's, none for a local server). The key is a secret. A settings file of a version before the
    # built-in model (``embeddings_enabled``) keeps its endpoint (``_from_dict``).
    embeddings_source: str = "builtin"
    embeddings_preset: str = ""
    embeddings_base_url: str = ""
    embeddings_model: str = ""
    embeddings_api_key: str = field(default="", repr=False)
    embeddings_dimensions: int = 0
    embeddings_rpm: int = 0
    #: Deleted memories stay in the trash this many days, then are purged at start-up (0: for ever).
    trash_retention_days: float = 30.0
    # A streamed chat reply gives up when the model sends nothing for this long: before its first
    # chunk (a local model that is still loading may need more), and between two chunks.
    first_token_timeout: float = 30.0
    stream_idle_timeout: float = 30.0
    #: How Sonetto should call the user ("你希望 Sonetto 怎么称呼你"); empty: learned from the memories.
    user_name: str = ""
    #: Review mode: Sonetto's changes wait in an inbox for approval (memory/review.py); off: written directly.
    review_mode: bool = False
    #: The background writer's limits per chat turn. A turn whose model makes more tool calls than
    #: ``writer_max_tool_calls`` (a model stuck in a loop), or that would change (edit, merge, delete)
    #: more than ``writer_max_changed_memories`` existing memories (a mass change: "delete everything",
    #: or an instruction hidden in a memory; new memories do not count), is stopped, everything it wrote is undone, and the turn
    #: is held in the failed list: nothing of it is applied until the person retries it (retrying a
    #: held mass change applies it, undoable as one action).
    writer_max_tool_calls: int = 30
    writer_max_changed_memories: int = 15
    #: The model's price per million input / output tokens, in ``price_currency`` (0: not set), for
    #: the cost estimate of a history import (no built-in price list: prices change).
    price_input_per_mtok: float = 0.0
    price_output_per_mtok: float = 0.0
    price_currency: str = "¥"
    # One memory on several computers (store_backend "postgres"): the server's URL without its
    # password (that one lives in the keyring), TLS, the schema holding this person's memories,
    # this computer's name as other devices see it, and whether chat sessions live there too.
    postgres_url: str = ""
    postgres_password: str = field(default="", repr=False)
    postgres_tls: str = "prefer"
    postgres_schema: str = "sonetto"
    postgres_sessions: bool = False
    device_name: str = ""
    # Other AI apps (Claude Desktop, Cursor, Cherry Studio…) using these memories through the local
    # MCP server (``sonetto mcp``): on or off, read-only, which clients (their names from the MCP
    # handshake, one per line or comma-separated; empty: any), and the port of ``sonetto mcp --http``
    # (always on 127.0.0.1; its bearer token is a secret, see ``secrets.mcp_token``). The shared token
    # can be switched off once apps have tokens of their own (``mcp_server.app_tokens``).
    mcp_enabled: bool = True
    mcp_read_only: bool = False
    mcp_allowed_clients: str = ""
    mcp_http_port: int = 8765
    mcp_shared_token: bool = True
    # Values replaced by environment variables, kept so that save() writes the user's own values.
    _env_originals: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    # What settings.json holds that this version does not know (a newer version's settings), written
    # back as it was by save(): going back a version does not wipe them.
    _unknown: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    # Where a damaged settings.json was moved aside when these were loaded ("" when it was not): the
    # app says so once, or the person found every setting back at its default with no word why.
    _set_aside: str = field(default="", repr=False, compare=False)

    def __repr__(self) -> str:
        shown = [
            f"{f.name}={mask_secret(getattr(self, f.name))!r}" if f.name in _SECRET_FIELDS
            else f"{f.name}={scrub(getattr(self, f.name))!r}" if f.name in _ADDRESS_FIELDS
            else f"{f.name}={getattr(self, f.name)!r}"
            for f in fields(self)
            if not f.name.startswith("_")
        ]
        return f"Settings({', '.join(shown)})"

    __str__ = __repr__

    # -- derived ---------------------------------------------------------------------------------
    @property
    def effective_base_url(self) -> str:
        """The endpoint to call: the configured URL, or OpenAI's when only a key is given."""
        url = self.base_url.strip().rstrip("/")
        if url:
            return url
        return OPENAI_DEFAULT_BASE_URL if self.api_key.strip() else ""

    @property
    def is_llm_configured(self) -> bool:
        """A model plus somewhere to send it: a base URL (local servers need no key) or an API key."""
        return bool(self.model.strip() and (self.base_url.strip() or self.api_key.strip()))

    @property
    def effective_embeddings_base_url(self) -> str:
        """Where the embeddings model is: its own base URL, else the chat's."""
        return self.embeddings_base_url.strip().rstrip("/") or self.effective_base_url

    @property
    def effective_embeddings_api_key(self) -> str:
        """The embeddings model's key: its own, else the chat's — only when it is the chat's endpoint
        (the chat key is never sent to another provider)."""
        own = self.embeddings_api_key.strip()
        if own:
            return own
        same = self.effective_embeddings_base_url == self.effective_base_url
        return self.api_key.strip() if same else ""

    @property
    def has_embeddings_endpoint(self) -> bool:
        """An embeddings endpoint is filled in (a model and somewhere to reach it), chosen or not."""
        return bool(self.embeddings_model.strip() and self.effective_embeddings_base_url)

    @property
    def is_embeddings_configured(self) -> bool:
        """The endpoint is the chosen source and is filled in."""
        return self.embeddings_source == "endpoint" and self.has_embeddings_endpoint

    @property
    def set_aside(self) -> str:
        """Where a damaged settings file was moved when these were loaded ("" when it was not)."""
        return self._set_aside

    @property
    def env_overridden(self) -> frozenset[str]:
        """Names of fields whose value currently comes from an environment variable."""
        return frozenset(self._env_originals)

    def resolved_data_dir(self) -> Path:
        return Path(self.data_dir).expanduser() if self.data_dir.strip() else default_data_dir()

    def validate(self) -> list[Problem]:
        problems: list[Problem] = []
        url = self.base_url.strip()
        if url and not url.lower().startswith(("http://", "https://")):
            problems.append(
                Problem("base_url", "接口地址应以 http:// 或 https:// 开头。", "The base URL must start with http:// or https://.")
            )
        has_endpoint = bool(self.base_url.strip() or self.api_key.strip())
        if has_endpoint and not self.model.strip():
            problems.append(Problem("model", "请填写模型名称。", "Please enter a model name."))
        if self.model.strip() and not has_endpoint:
            problems.append(
                Problem("base_url", "请填写接口地址或 API Key。", "Please enter a base URL or an API key.")
            )
        for name, choices in _CHOICES.items():
            if getattr(self, name) not in choices:
                problems.append(
                    Problem(name, f"取值应为 {' / '.join(choices)} 之一。", f"Must be one of {', '.join(choices)}.")
                )
        if len(self.user_name.strip()) > USER_NAME_MAX or any(ch in self.user_name for ch in "\r\n\t"):
            problems.append(Problem("user_name", f"称呼应为一行、不超过 {USER_NAME_MAX} 个字。",
                                    f"The name must be one line of at most {USER_NAME_MAX} characters."))
        if self.store_backend == "postgres":
            problems += _postgres_problems(self)
        if self.embeddings_source == "endpoint":
            problems += _embeddings_problems(self)
        for name, (low, high) in _RANGES.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not low <= value <= high:
                problems.append(Problem(name, f"应为 {low} 到 {high} 之间的数字。", f"Must be a number from {low} to {high}."))
        return problems

    # -- environment -----------------------------------------------------------------------------
    def with_env(self, environ: dict[str, str] | None = None) -> Settings:
        """A copy with environment overrides applied (SONETTO_BASE_URL wins over OPENAI_BASE_URL)."""
        env = os.environ if environ is None else environ

        def get(*names: str) -> str:
            for name in names:
                value = (env.get(name) or "").strip()
                if value:
                    return value
            return ""

        overrides = {
            "base_url": get("SONETTO_BASE_URL", "OPENAI_BASE_URL"),
            "api_key": get("OPENAI_API_KEY"),
            "model": get("SONETTO_MODEL"),
            "data_dir": get("SONETTO_DATA_DIR"),
            "postgres_url": get("SONETTO_POSTGRES_URL"),
        }
        overrides = {k: v for k, v in overrides.items() if v}
        originals = dict(self._env_originals)
        for name in overrides:
            originals.setdefault(name, getattr(self, name))
        return replace(self, **overrides, _env_originals=originals)

    # -- persistence -----------------------------------------------------------------------------
    @classmethod
    def load(cls, path: Path | str | None = None, *, with_secret: bool = True, repair: bool = True) -> Settings:
        """Read settings; never raises for a missing, corrupt or partly wrong file. ``repair``: a
        damaged file is moved aside (``settings.json.corrupt-…``) for the defaults to be saved in its
        place — only the app does that; another program (``sonetto mcp``) leaves it as it is."""
        path = Path(path) if path is not None else config_dir() / SETTINGS_FILE
        data: dict[str, Any] = {}
        aside: Path | str | None = None

        def set_aside() -> Path | str | None:
            return _move_aside(path) if repair else "nowhere (left as it is)"

        try:
            raw = path.read_bytes().decode("utf-8")
        except FileNotFoundError:
            raw = None
        except UnicodeDecodeError as exc:  # not UTF-8: set aside like any other damaged file
            aside = set_aside()
            log.warning("Settings file %s is not UTF-8 text (%s); using defaults, the old file was kept as %s",
                        path, exc.reason, aside)
            raw = None
        except OSError as exc:
            log.warning("Cannot read settings file %s (%s); using defaults", path, type(exc).__name__)
            raw = None
        if raw is not None:
            try:
                parsed = json.loads(raw)
                if not isinstance(parsed, dict):
                    raise ValueError("top level is not an object")
                data = parsed
            except ValueError as exc:
                aside = set_aside()
                log.warning("Settings file %s is corrupt (%s); using defaults, the old file was kept as %s", path, exc, aside)
        settings = cls._from_dict(data)
        if isinstance(aside, Path):
            settings._set_aside = str(aside)
        if with_secret:
            settings.api_key = load_api_key(path.parent)
            settings.postgres_password = load_secret(POSTGRES_PASSWORD, path.parent)
            settings.embeddings_api_key = load_secret(EMBEDDINGS_API_KEY, path.parent)
        return settings

    @classmethod
    def read_exactly(cls, path: Path | str | None = None, *, checked: tuple[str, ...] = ()) -> Settings:
        """The settings as the file says them, or ``SettingsUnreadable``: the file cannot be read
        (a directory, a symlink loop, no permission), is not UTF-8 JSON holding an object, or a field
        of ``checked`` has a value of the wrong type or range. A missing file is the defaults (the
        person chose nothing else). Never moves or changes the file; reads no secret. For rules that
        must fail closed (which other apps may do what) rather than fall back to the defaults."""
        path = Path(path) if path is not None else config_dir() / SETTINGS_FILE
        try:
            data = json.loads(path.read_bytes().decode("utf-8"))
        except FileNotFoundError:
            return cls()
        except (OSError, ValueError) as exc:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
            raise SettingsUnreadable(f"{path.name} cannot be read ({type(exc).__name__}: {exc})") from exc
        if not isinstance(data, dict):
            raise SettingsUnreadable(f"{path.name} does not hold a JSON object")
        defaults = cls()
        for name in checked:
            if name in data and _coerce(name, data[name], getattr(defaults, name)) is _BAD:
                raise SettingsUnreadable(f"{path.name} has a bad value for {name}: {data[name]!r:.40}")
        return cls._from_dict(data)

    @classmethod
    def load_exactly(cls, path: Path | str | None = None) -> Settings:
        """``read_exactly`` plus the secrets (keyring or key files): the settings as saved, or
        ``SettingsUnreadable`` — never the defaults in place of a file that cannot be read. For a
        process following the app's saves (``settings_follow``): a damaged file is not applied."""
        path = Path(path) if path is not None else config_dir() / SETTINGS_FILE
        settings = cls.read_exactly(path)
        settings.api_key = load_api_key(path.parent)
        settings.postgres_password = load_secret(POSTGRES_PASSWORD, path.parent)
        settings.embeddings_api_key = load_secret(EMBEDDINGS_API_KEY, path.parent)
        return settings

    @classmethod
    def _from_dict(cls, data: dict[str, Any]) -> Settings:
        defaults = cls()
        values: dict[str, Any] = {}
        if "embeddings_source" not in data and data.get("embeddings_enabled") is True:
            values["embeddings_source"] = "endpoint"  # written before the built-in model: keep the endpoint
        for f in fields(cls):
            if f.name.startswith("_") or f.name in _SECRET_FIELDS or f.name not in data:
                continue
            value = _coerce(f.name, data[f.name], getattr(defaults, f.name))
            if value is _BAD:
                log.warning("Ignoring a bad value for setting %r; using the default %r", f.name, getattr(defaults, f.name))
                continue
            values[f.name] = value
        names = {f.name for f in fields(cls)}
        unknown = {k: v for k, v in data.items()
                   if k not in names and not k.startswith("_") and k not in _SECRET_FIELDS and k not in _RETIRED}
        return cls(**values, _unknown=unknown)

    def to_dict(self) -> dict[str, Any]:
        """What goes into settings.json: no secrets, no environment overrides; what a newer version
        wrote that this one does not know, as it was."""
        out: dict[str, Any] = dict(self._unknown)
        for f in fields(self):
            if f.name.startswith("_") or f.name in _SECRET_FIELDS:
                continue
            out[f.name] = self._env_originals.get(f.name, getattr(self, f.name))
        return out

    def save(self, path: Path | str | None = None, *, with_secret: bool = True) -> None:
        """Write settings.json atomically and put the API key into secret storage (not the file)."""
        path = Path(path) if path is not None else config_dir() / SETTINGS_FILE
        path.parent.mkdir(parents=True, exist_ok=True)
        payload = json.dumps(self.to_dict(), ensure_ascii=False, indent=2) + "\n"
        from ..memory.files import atomic_write  # the one crash-safe write (a leaf: stdlib only)

        atomic_write(path, payload.encode("utf-8"))
        if with_secret:
            store_api_key(self._env_originals.get("api_key", self.api_key), path.parent)
            store_secret(POSTGRES_PASSWORD, self.postgres_password, path.parent)
            store_secret(EMBEDDINGS_API_KEY, self.embeddings_api_key, path.parent)


_BAD = object()


def load_settings(*, with_secret: bool = True) -> Settings:
    """The saved settings with the environment's overrides: what the app runs with.

    Reads the settings file and (``with_secret``) the keyring: call it off the Qt thread."""
    return Settings.load(with_secret=with_secret).with_env()


def _embeddings_problems(settings: Settings) -> list[Problem]:
    url = settings.embeddings_base_url.strip()
    if url and not url.lower().startswith(("http://", "https://")):
        return [Problem("embeddings_base_url", "向量模型的服务地址应以 http:// 或 https:// 开头。",
                        "The embeddings base URL must start with http:// or https://.")]
    if not settings.embeddings_model.strip():
        return [Problem("embeddings_model", "请填写向量模型的名称，或改用内置模型。",
                        "Please enter the embeddings model's name, or use the built-in model.")]
    if not settings.effective_embeddings_base_url:
        return [Problem("embeddings_base_url", "请填写向量模型的服务地址（或在“模型”页填写对话模型的）。",
                        "Please enter the embeddings base URL (or the chat model's on the Model page).")]
    return []


def _postgres_problems(settings: Settings) -> list[Problem]:
    """The URL and library name must be usable (``memory.pg_location`` checks them again on use)."""
    url = settings.postgres_url.strip()
    if not url:
        return [Problem("postgres_url", "请填写 PostgreSQL 服务器地址（postgresql://用户@主机:5432/数据库）。",
                        "Please enter the PostgreSQL URL (postgresql://user@host:5432/database).")]
    parts = urlsplit(url)
    conninfo = "://" not in url and _CONNINFO_HOST.search(url)  # libpq's key=value form: host=… dbname=…
    if not conninfo and (parts.scheme not in ("postgresql", "postgres")
                         or not (parts.netloc.rpartition("@")[2] or "host=" in parts.query)):
        return [Problem("postgres_url", "PostgreSQL 地址应形如 postgresql://用户@主机:5432/数据库。",
                        "A PostgreSQL URL looks like postgresql://user@host:5432/database.")]
    if not _SCHEMA_NAME.match(settings.postgres_schema or ""):
        return [Problem("postgres_schema", "记忆库名称只能用小写字母、数字和下划线（以字母开头）。",
                        "The library name may use lower-case letters, digits and _ (starting with a letter).")]
    return []


def _coerce(name: str, value: Any, default: Any) -> Any:
    """``value`` converted to the type of ``default`` and checked, or ``_BAD``."""
    if isinstance(default, bool):
        return value if isinstance(value, bool) else _BAD
    if isinstance(default, int) and not isinstance(default, float):
        if isinstance(value, bool) or not isinstance(value, int):
            return _BAD
        low, high = _RANGES.get(name, (float("-inf"), float("inf")))
        return value if low <= value <= high else _BAD
    if isinstance(default, float):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return _BAD
        value = float(value)
        low, high = _RANGES.get(name, (float("-inf"), float("inf")))
        return value if low <= value <= high else _BAD
    if isinstance(default, str):
        if not isinstance(value, str):
            return _BAD
        if name in _CHOICES and value not in _CHOICES[name]:
            return _BAD
        return value
    return _BAD


def _move_aside(path: Path) -> Path | None:
    aside = path.with_name(f"{path.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}")
    n = 1
    while aside.exists():
        aside = path.with_name(f"{path.name}.corrupt-{time.strftime('%Y%m%d-%H%M%S')}-{n}")
        n += 1
    try:
        os.replace(path, aside)
        return aside
    except OSError:
        return None


