"""Checks on a finished one-folder bundle: is everything the app reads at run time really inside?

The self-test exercises the window, the store and the engine, but not every resource (jieba's
dictionary is only read on the first offline recall, translations only for English), so
``build.py`` also checks the bundle's contents against the source tree.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# Modules the import scan cannot see but the app needs in the bundle.
REQUIRED_MODULES = ("tiktoken_ext", "tiktoken_ext.openai_public", "sonetto_desktop.resources",
                    # `sonetto mcp`: the MCP SDK, and what uvicorn loads by name for --http
                    "mcp.server.mcpserver", "mcp.server.stdio", "uvicorn.protocols.http.h11_impl",
                    "uvicorn.lifespan.on",
                    # the PostgreSQL store and its chat sessions (imported where first used)
                    "psycopg", "psycopg_pool", "langgraph.checkpoint.postgres.aio")


def pyz_modules(executable: str | Path) -> set[str]:
    """Names of the Python modules inside a PyInstaller executable's embedded PYZ archive."""
    from PyInstaller.archive.readers import CArchiveReader

    archive = CArchiveReader(str(executable))
    return set(archive.open_embedded_archive("PYZ.pyz").toc)


def source_modules(package_dir: str | Path, package: str = "sonetto_desktop") -> set[str]:
    """Dotted names of every module under a package folder (``pkg/a/b.py`` -> ``pkg.a.b``)."""
    root = Path(package_dir)
    names = set()
    for path in root.rglob("*.py"):
        relative = path.relative_to(root).with_suffix("")
        parts = [package, *relative.parts]
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names.add(".".join(parts))
    return names


def expected_resources(resources_dir: str | Path) -> list[str]:
    """Resource files (not Python) under the repo's ``resources/``, relative, with ``/``."""
    root = Path(resources_dir)
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*")
                  if p.is_file() and "__pycache__" not in p.parts and p.suffix not in (".py", ".pyc"))


def expected_package_data(package_dir: str | Path) -> list[str]:
    """Data files (not Python) inside the ``sonetto_desktop`` package, relative, with ``/`` (the recall
    lexicon's tables: English and category words from CC-CEDICT and WordNet, hand lists)."""
    root = Path(package_dir)
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*")
                  if p.is_file() and "__pycache__" not in p.parts and p.suffix in (".yaml", ".tsv"))


def check_bundle(bundle: str | Path, *, modules: set[str] | None = None, repo: str | Path = REPO,
                 platform: str = sys.platform) -> list[str]:
    """Problems found in a one-folder bundle (empty when it is complete).

    ``modules``: the PYZ's module names (``pyz_modules(executable)``); None skips the module checks.
    """
    bundle, repo = Path(bundle), Path(repo)
    inner = bundle / "_internal"
    problems = []
    if not inner.is_dir():
        return [f"{bundle} is not a one-folder bundle (no _internal/)"]
    for relative in expected_resources(repo / "resources"):
        if not (inner / "sonetto_desktop" / "resources" / relative).is_file():
            problems.append(f"resource missing: sonetto_desktop/resources/{relative}")
    for relative in expected_package_data(repo / "sonetto_desktop"):
        if not (inner / "sonetto_desktop" / relative).is_file():
            problems.append(f"package data missing: sonetto_desktop/{relative}")
    for notice in (inner / "NOTICE.md", bundle / "NOTICE.md"):
        if not notice.is_file():
            problems.append(f"the third-party data licences are missing: {notice.relative_to(bundle).as_posix()}")
    if not (inner / "jieba" / "dict.txt").is_file():
        problems.append("jieba's dictionary (jieba/dict.txt) is missing")
    plugins = inner / "PySide6" / "Qt" / "plugins"
    wanted = {"linux": ("platforms/libqoffscreen.so", "platforms/libqxcb.so", "platforms/libqwayland.so",
                        "imageformats/libqsvg.so", "iconengines/libqsvgicon.so")}.get(platform, ())
    for plugin in wanted:
        if not (plugins / plugin).is_file():
            problems.append(f"Qt plugin missing: {plugin}")
    for link in inner.rglob("*"):
        if link.is_symlink() and not link.exists():
            problems.append(f"dangling link: {link.relative_to(bundle)}")
    if modules is not None:
        for name in REQUIRED_MODULES:
            if name not in modules:
                problems.append(f"module missing: {name}")
        for name in sorted(source_modules(repo / "sonetto_desktop") - modules):
            problems.append(f"app module missing: {name}")
    return problems
