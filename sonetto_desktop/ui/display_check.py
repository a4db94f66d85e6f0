"""Before Qt starts: is there a screen to show a window on? Qt aborts (exit 134) with a message about
its xcb plugin when there is none, which sends people looking in the wrong place; this says what is
wrong in one line instead. Linux only (elsewhere the system always has a display)."""

from __future__ import annotations

import ctypes.util
import os
import sys
from collections.abc import Mapping


def display_problem(environ: Mapping[str, str] | None = None, platform: str | None = None) -> str | None:
    """Why no window can be shown here, or ``None`` when Qt should be able to start."""
    env = os.environ if environ is None else environ
    if not (platform or sys.platform).startswith("linux"):
        return None
    qpa = (env.get("QT_QPA_PLATFORM") or "").split(":")[0].strip().lower()
    if qpa and qpa not in ("xcb", "wayland", "wayland-egl"):
        return None  # offscreen, vnc, eglfs…: the person chose; Qt will say if it cannot
    x11, wayland = bool(env.get("DISPLAY")), bool(env.get("WAYLAND_DISPLAY"))
    if qpa == "xcb" and not x11 or qpa.startswith("wayland") and not wayland or not (x11 or wayland):
        return ("no display: DISPLAY / WAYLAND_DISPLAY is not set, so there is no screen to show the window on. "
                "Start Sonetto inside a desktop session; `sonetto memory …` and `sonetto mcp` need no display.")
    uses_xcb = qpa == "xcb" or (not qpa and not wayland)
    if uses_xcb and ctypes.util.find_library("xcb-cursor") is None:
        return ("Qt needs the library libxcb-cursor to open a window on X11, and it is not installed: "
                "on Debian / Ubuntu run `sudo apt install libxcb-cursor0`.")
    return None
