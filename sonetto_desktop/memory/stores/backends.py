"""The store backends, described once (the way ``memory/record.py`` describes a memory's fields).

Everything that opens, names or moves a store derives from the registry: which file of a data dir
holds a backend's store and which files make it up (``migration_files``: a switch sets them aside
and installs them), opening it (``migrate.make_store``, ``open_store_file`` for a file named on the
command line), a switch between file backends (``migrate.open_store``: the other file backend whose
store is there is migrated in), what the command line and the MCP server call it, and for a store on
a server, which settings open it again.

A new backend is one module with its ``BaseMemoryManager`` (run through the store contract tests,
``tests/test_memory_contract.py``) plus one :class:`StoreBackend` in :data:`BUILT_IN` — or
:func:`register` for one defined elsewhere. Managers are named as ``"module:Class"`` and imported
when first opened (a backend costs nothing until used). ``config/settings.py`` lists the names it
accepts itself (config stands alone); a test holds the two lists equal.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["BUILT_IN", "StoreBackend", "all_backends", "backend_named", "file_backend_named", "file_backends", "for_file",
           "label_of", "register", "store_files", "unregister"]


@dataclass(frozen=True)
class StoreBackend:
    """One backend. ``name``: the settings' ``store_backend``; ``label``: how people name it.

    A **file** backend (``file`` set): ``manager(path)`` opens the store in that file; ``companions``
    are the names of the files that make up one store (``{name}``: the main file's name, ``{stem}``: it
    without its suffix; the main file first); ``installs``: those a switch moves in besides the main
    file; ``settle(path)``: folds a staged store into the files that are moved (SQLite's write-ahead
    log); ``suffixes``: a file named on the command line with one of these is opened with it.

    A **server** backend (``file`` None) is opened from the settings by the app's composition
    (``postgres_setup``); a change to one of ``settings_fields`` opens it again."""

    name: str
    label: str
    manager: Any = None  # "module:Class" or the class: Class(path) -> BaseMemoryManager
    file: str | None = None
    companions: tuple[str, ...] = ("{name}",)
    installs: tuple[str, ...] = ()
    settle: Any = None
    suffixes: tuple[str, ...] = ()
    settings_fields: tuple[str, ...] = ()
    choice: tuple[str, str] | None = None  # (zh, en): its line in the settings' store list (a file backend)

    @property
    def on_server(self) -> bool:
        return self.file is None

    def open(self, path: str | Path) -> Any:
        return _resolve(self.manager)(path)

    def settle_staged(self, path: Path) -> None:
        """Make a staged store movable as its files (``settle``; nothing to do without one)."""
        if self.settle is not None:
            _resolve(self.settle)(path)

    def files(self, path: Path) -> list[Path]:
        """Every file of the store whose main file is ``path`` (the main file first)."""
        return [path.with_name(t.format(name=path.name, stem=path.stem)) for t in self.companions]

    def installed_names(self) -> list[str]:
        assert self.file is not None
        return [t.format(name=self.file, stem=Path(self.file).stem) for t in self.installs]


def _resolve(ref: Any) -> Any:
    if not isinstance(ref, str):
        return ref
    module, _, attr = ref.partition(":")
    return getattr(importlib.import_module(module), attr)


_STORES = __name__.rpartition(".")[0]

#: The backends the app ships: the file ones in the order a switch looks for an old store.
BUILT_IN: tuple[StoreBackend, ...] = (
    StoreBackend("yaml", "memory.yaml", f"{_STORES}.yaml.store:YamlMemoryManager", "memory.yaml",
                 ("{name}", "{stem}.trash.yaml", "{name}.log", "{name}.bak", "{name}.cache"),
                 installs=("{stem}.trash.yaml",), suffixes=(".yaml", ".yml"),
                 choice=("YAML 文件（可直接阅读）", "YAML file (human-readable)")),
    StoreBackend("sqlite", "SQLite", f"{_STORES}.sqlite:SqliteMemoryManager", "memory.db",
                 ("{name}", "{name}-wal", "{name}-shm"), settle=f"{_STORES}.migrate:settle_sqlite",
                 suffixes=(".db", ".sqlite", ".sqlite3"),
                 choice=("SQLite 数据库（记忆很多时更快）", "SQLite database (faster with many memories)")),
    StoreBackend("postgres", "PostgreSQL", settings_fields=("postgres_url", "postgres_password", "postgres_tls", "postgres_schema",
                                  "postgres_sessions", "device_name")),
)
#: A file named on the command line whose suffix no backend claims is read as this (the seed's YAML).
DEFAULT_FILE_BACKEND = "yaml"

_REGISTRY: dict[str, StoreBackend] = {b.name: b for b in BUILT_IN}


def register(backend: StoreBackend) -> StoreBackend:
    """Add a backend; ``ValueError`` when its name or its file is taken, or it says neither."""
    if backend.name in _REGISTRY:
        raise ValueError(f"a store backend named {backend.name!r} is registered already")
    if backend.file is not None and backend.manager is None:
        raise ValueError(f"store backend {backend.name!r} names its file but no manager to open it")
    if backend.file is not None and any(b.file == backend.file for b in _REGISTRY.values()):
        raise ValueError(f"{backend.file} is another store backend's file")
    _REGISTRY[backend.name] = backend
    return backend


def unregister(name: str) -> None:
    if any(b.name == name for b in BUILT_IN):
        raise ValueError(f"{name!r} is a built-in store backend")
    _REGISTRY.pop(name, None)


def all_backends() -> tuple[StoreBackend, ...]:
    return tuple(_REGISTRY.values())


def file_backends() -> tuple[StoreBackend, ...]:
    return tuple(b for b in _REGISTRY.values() if not b.on_server)


def backend_named(name: str) -> StoreBackend:
    """The backend called ``name``; ``ValueError`` naming the registered ones otherwise."""
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ValueError(f"store backend must be one of {tuple(_REGISTRY)}, not {name!r}") from None


def file_backend_named(name: str) -> StoreBackend:
    backend = backend_named(name)
    if backend.on_server:
        files = tuple(b.name for b in file_backends())
        raise ValueError(f"store backend must be one of {files}, not {name!r}")
    return backend


def for_file(path: str | Path) -> StoreBackend:
    """The file backend a store file named ``path`` is opened with (by its suffix)."""
    suffix = Path(path).suffix.lower()
    return next((b for b in file_backends() if suffix in b.suffixes), _REGISTRY[DEFAULT_FILE_BACKEND])


def store_files() -> dict[str, str]:
    """File backend -> its main file in a data dir."""
    return {b.name: b.file for b in file_backends() if b.file is not None}


def label_of(name: str) -> str:
    backend = _REGISTRY.get(name)
    return backend.label if backend is not None else name
