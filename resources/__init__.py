"""Bundled resources (SVG icons, QSS templates, translations), read through importlib.resources
so they work from a checkout, an installed wheel and a frozen (PyInstaller) bundle alike."""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable


def resource(relative: str) -> Traversable:
    """The resource at ``relative`` (e.g. ``"icons/app.svg"``) inside this package."""
    node = resources.files(__name__)
    for part in relative.split("/"):
        node = node.joinpath(part)
    return node


def read_text(relative: str) -> str:
    return resource(relative).read_text(encoding="utf-8")


def read_bytes(relative: str) -> bytes:
    return resource(relative).read_bytes()
