"""A numpy without BLAS for the bundle (Linux): the recall index needs numpy's arrays, not its BLAS.

PyPI's Linux numpy wheels carry OpenBLAS with gfortran and quadmath (28.5 MB, over half of numpy's
share of the bundle), and numpy's core links it, so it cannot simply be left out. The index only
sorts, masks, sums and searches flat integer arrays: numpy built with ``-Dblas=none -Dlapack=none``
(its own small fallbacks) gives the same results for all of that.

``prepare(version)`` builds that numpy once, from PyPI's source release of the *installed* version
(pip + meson: a C compiler and network access, ~5-10 minutes on 2 cores), unpacks it into a cache
folder (``$XDG_CACHE_HOME/sonetto-desktop/packaging/``, reused by later builds) and returns that
folder. ``build.py`` puts it first on PyInstaller's ``PYTHONPATH``, so the bundle takes this numpy
while the development environment keeps PyPI's. ``links_blas`` tells which numpy a bundle holds.
"""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

MESON_ARGS = ("-Csetup-args=-Dblas=none", "-Csetup-args=-Dlapack=none", "-Csetup-args=-Dallow-noblas=true")
BLAS_LIBRARY_MARKS = ("openblas", "libgfortran", "libquadmath")


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "sonetto-desktop" / "packaging"


def folder_for(version: str, root: Path | None = None) -> Path:
    """Where numpy ``version`` without BLAS is unpacked for this Python and machine."""
    tag = f"cp{sys.version_info.major}{sys.version_info.minor}-{sys.platform}-{platform.machine()}"
    return (root or cache_root()) / f"numpy-{version}-noblas-{tag}"


def is_ready(folder: Path) -> bool:
    return (folder / "numpy" / "__init__.py").is_file() and (folder / ".complete").is_file()


def prepare(version: str, *, root: Path | None = None, python: str = sys.executable) -> Path:
    """The folder holding numpy ``version`` built without BLAS, building it first if needed.

    Raises ``RuntimeError`` (with pip's last lines) when the build fails, e.g. without a compiler.
    """
    folder = folder_for(version, root)
    if is_ready(folder):
        return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="numpy-noblas-", dir=folder.parent) as scratch:
        command = [python, "-m", "pip", "wheel", f"numpy=={version}", "--no-binary", "numpy", "--no-deps",
                   "--no-cache-dir", "-w", scratch, *MESON_ARGS]
        print(f"build: building numpy {version} without BLAS for the bundle (once; cached in {folder.parent})")
        done = subprocess.run(command, capture_output=True, text=True)
        wheels = sorted(Path(scratch).glob("numpy-*.whl"))
        if done.returncode != 0 or not wheels:
            tail = "\n".join((done.stdout + done.stderr).splitlines()[-20:])
            raise RuntimeError(f"pip could not build numpy {version} without BLAS:\n{tail}")
        unpacked = Path(scratch) / "unpacked"
        with zipfile.ZipFile(wheels[0]) as wheel:
            wheel.extractall(unpacked)
        if links_blas(unpacked):
            raise RuntimeError(f"numpy {version} was built, but it still carries a BLAS library")
        (unpacked / ".complete").write_text(f"numpy {version} built with {' '.join(MESON_ARGS)}\n")
        shutil.rmtree(folder, ignore_errors=True)
        unpacked.rename(folder)  # same file system: the cache only ever shows a whole build
    return folder


def links_blas(folder: str | Path) -> list[str]:
    """BLAS and Fortran runtime libraries under ``folder`` (a bundle or an unpacked numpy)."""
    return sorted(str(path.relative_to(folder)) for path in Path(folder).rglob("*")
                  if path.is_file() and any(mark in path.name.lower() for mark in BLAS_LIBRARY_MARKS))
