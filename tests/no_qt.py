"""For child processes that prove a front end needs no Qt: importing PySide6, shiboken6 or qasync
fails like an uninstalled package once :func:`block` ran."""

from __future__ import annotations

import sys


class _NoQt:
    """A meta path finder that refuses Qt."""

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("PySide6", "shiboken6", "qasync"):
            raise ImportError(f"{name} is blocked in this test")
        return None


def block() -> None:
    sys.meta_path.insert(0, _NoQt())
