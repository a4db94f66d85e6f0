"""Before Qt starts: is there a screen to show a window on? Qt aborts (exit 134) with a message about
its xcb plugin when there is none, which sends people looking in the wrong place; this says what is
wrong in one line instead, in the terminal's language (``say``: ``cli_words.Words``; English when not
given). Linux only (elsewhere the system always has a display)."""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import re
import sys
from collections.abc import Mapping
from typing import Any

from sonetto_desktop.cli_words import Words

ENGLISH = Words("en")


def display_problem(environ: Mapping[str, str] | None = None, platform: str | None = None,
                    say: Any = ENGLISH) -> str | None:
    """Why no window can be shown here, or ``None`` when Qt should be able to start."""
    env = os.environ if environ is None else environ
    if not (platform or sys.platform).startswith("linux"):
        return None
    qpa = (env.get("QT_QPA_PLATFORM") or "").split(":")[0].strip().lower()
    if qpa and qpa not in ("xcb", "wayland", "wayland-egl"):
        return None  # offscreen, vnc, eglfs…: the person chose; Qt will say if it cannot
    x11, wayland = bool(env.get("DISPLAY")), bool(env.get("WAYLAND_DISPLAY"))
    if qpa == "xcb" and not x11 or qpa.startswith("wayland") and not wayland or not (x11 or wayland):
        return say("没有显示器：没有设置 DISPLAY / WAYLAND_DISPLAY，窗口没有屏幕可以显示。"
                   "请在桌面会话里启动 Sonetto；`sonetto memory …` 和 `sonetto mcp` 不需要显示器。",
                   "no display: DISPLAY / WAYLAND_DISPLAY is not set, so there is no screen to show the window on. "
                   "Start Sonetto inside a desktop session; `sonetto memory …` and `sonetto mcp` need no display.")
    uses_xcb = qpa == "xcb" or (not qpa and not wayland)
    return xcb_problem(say=say) if uses_xcb else None


def debian_package(soname: str) -> str:
    """The Debian / Ubuntu package that ships a library, by Debian's naming rule: ``libxcb-cursor.so.0``
    → ``libxcb-cursor0``, ``libxkbcommon-x11.so.0`` → ``libxkbcommon-x11-0``, ``libEGL.so.1`` → ``libegl1``."""
    base, _, version = soname.partition(".so")
    version = version.lstrip(".").split(".")[0]
    if not version:
        return base.lower()
    return (base + ("-" if base[-1:].isdigit() else "") + version).lower()


def missing_library_problem(error: str, say: Any = ENGLISH) -> str | None:
    """One line for the dynamic loader's ``error`` when a library Qt's X11 plugin needs is missing
    (what to install), or ``None`` when the error is not about a missing library."""
    match = re.search(r"(lib[\w.+-]+?\.so(?:\.\d+)*): cannot open shared object file", error)
    if match is None:
        return None
    soname, package = match.group(1), debian_package(match.group(1))
    return say(f"Qt 在 X11 上打开窗口需要 {soname}，而它没有安装：Debian / Ubuntu 上运行 `sudo apt install {package}`。",
               f"Qt needs the library {soname} to open a window on X11, and it is not installed: "
               f"on Debian / Ubuntu run `sudo apt install {package}`.")


def xcb_plugin() -> str | None:
    """Where Qt's X11 platform plugin is (``None``: not found)."""
    from PySide6.QtCore import QLibraryInfo  # (QtCore only: no application is made here)

    path = os.path.join(QLibraryInfo.path(QLibraryInfo.LibraryPath.PluginsPath), "platforms", "libqxcb.so")
    return path if os.path.isfile(path) else None


def xcb_problem(plugin: str | None = None, say: Any = ENGLISH) -> str | None:
    """Why Qt's X11 plugin cannot load here — the library it misses, said in one line with the package
    to install (Qt ≥ 6.5 needs ``libxcb-cursor0``, which desktops often lack) — or ``None``. The plugin
    is loaded as Qt would load it, so any missing library is named, not only libxcb-cursor."""
    path = plugin or xcb_plugin()
    if path is None:  # (no plugin file where Qt looks: at least the library most often missing)
        if ctypes.util.find_library("xcb-cursor") is None:
            return missing_library_problem("libxcb-cursor.so.0: cannot open shared object file", say)
        return None
    try:
        ctypes.CDLL(path)
    except OSError as exc:
        return missing_library_problem(str(exc), say) or say(f"Qt 的 X11 插件无法加载：{exc}",
                                                             f"Qt's X11 plugin cannot be loaded: {exc}")
    return None
