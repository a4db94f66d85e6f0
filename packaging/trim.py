"""What the bundle leaves out: unused Qt modules, plugins and translations, unused jieba data.

Pure functions over names and PyInstaller TOC entries ``(dest_name, src_path, typecode)`` so the spec
stays short and the rules are unit-tested without running a build.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path, PurePosixPath

# Qt modules the app always needs: qasync wraps QtCore/QtGui/QtWidgets; QtSvg renders the icons
# (importing it also keeps the SVG image-format and icon-engine plugins in the bundle).
QT_ALWAYS = frozenset({"QtCore", "QtGui", "QtWidgets", "QtSvg"})

# Languages the app ships (zh_CN first, English second): Qt's own translations for others are dropped.
LANGUAGES = ("zh_CN", "en")

# Qt plugins kept, by plugin folder; a folder missing here is dropped entirely. ``None`` keeps the
# whole folder. Platforms: xcb and wayland for desktops, offscreen for --self-test / CI, and the
# native ones of Windows and macOS.
QT_PLUGINS_KEPT: dict[str, frozenset[str] | None] = {
    "platforms": frozenset({"qxcb", "qwayland", "qoffscreen", "qwindows", "qcocoa", "qminimal"}),
    # Wayland: the xdg-shell (every desktop compositor) and the client-side decorations; the
    # EGL client integration for OpenGL surfaces. The other shells are for kiosks and embedded.
    "wayland-shell-integration": frozenset({"xdg-shell"}),
    "wayland-decoration-client": None,
    "wayland-graphics-integration-client": frozenset({"qt-plugin-wayland-egl"}),
    # xdg-desktop-portal only: the GTK3 theme plugin would drag GTK's cairo/pango/gdk libraries of the
    # build machine into the bundle, to be mixed with the user's own GTK at run time.
    "platformthemes": frozenset({"qxdgdesktopportal"}),
    "platforminputcontexts": None,  # Chinese input methods (ibus, fcitx) plug in here
    "imageformats": frozenset({"qsvg", "qico", "qjpeg", "qgif", "qicns"}),
    "iconengines": None,
    "styles": None,
    "xcbglintegrations": None,
    # QtNetwork is used for one local socket (ui/single_instance.py): no TLS backends, no network
    # reachability plugins (the folders are dropped: not listed).
    # "generic" (evdev / TUIO input for framebuffer setups) is dropped: it pulls in QtNetwork + Kerberos.
}

# Linux libraries that belong to the user's desktop session and must match it (graphics stack,
# fonts, D-Bus, GLib, Kerberos): taken from the system at run time, never bundled. Same spirit as
# AppImage's exclude list; every desktop distribution ships them.
SYSTEM_LIBS = (
    "libX11.so", "libX11-xcb.so", "libXau.so", "libXdmcp.so", "libXext.so", "libXrender.so",
    "libxcb.so", "libGL.so", "libGLX.so", "libEGL.so", "libOpenGL.so", "libGLdispatch.so",
    "libdrm.so", "libgbm.so", "libwayland-client.so", "libwayland-cursor.so", "libwayland-egl.so",
    "libfontconfig.so", "libfreetype.so", "libexpat.so",
    "libdbus-1.so", "libsystemd.so", "libgcrypt.so", "libgpg-error.so", "libcap.so",
    "libglib-2.0.so", "libgthread-2.0.so", "libgobject-2.0.so", "libgio-2.0.so", "libgmodule-2.0.so",
    "libpcre2-8.so", "libselinux.so", "libmount.so", "libblkid.so",
    "libkrb5.so", "libkrb5support.so", "libgssapi_krb5.so", "libk5crypto.so", "libcom_err.so", "libkeyutils.so",
    "libasound.so", "libpulse.so",
)


def is_system_lib(dest: str) -> bool:
    """A top-level shared library from SYSTEM_LIBS (matched on ``libname.so`` + any version suffix)."""
    name = _parts(dest)[-1]
    return any(name == prefix or name.startswith(prefix + ".") for prefix in SYSTEM_LIBS)


# jieba sub-packages whose data is dropped unless the module graph includes the sub-package.
# ``lac_small`` (paddle mode) is always dropped: it needs paddlepaddle, which the app never installs.
JIEBA_OPTIONAL = ("posseg", "analyse", "lac_small")


def imported_modules(source_root: str | Path) -> set[str]:
    """Every absolute module name imported anywhere under ``source_root`` (``from a.b import c`` gives
    ``a.b`` and ``a.b.c``, since ``c`` may be a submodule)."""
    found: set[str] = set()
    for path in Path(source_root).rglob("*.py"):
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        except (SyntaxError, UnicodeDecodeError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.add(node.module)
                found.update(f"{node.module}.{alias.name}" for alias in node.names if alias.name != "*")
    return found


def qt_modules_used(source_root: str | Path) -> set[str]:
    """Names of the ``PySide6.Qt*`` modules imported anywhere under ``source_root`` (``{"QtCore", ...}``)."""
    used = set()
    for name in imported_modules(source_root):
        parts = name.split(".")
        if len(parts) >= 2 and parts[0] == "PySide6" and parts[1].startswith("Qt"):
            used.add(parts[1])
    return used


# Packages that other libraries import only optionally (guarded or lazily): left out unless the app
# itself imports them. numpy + OpenBLAS alone are ~43 MB; langchain-core, openai, langsmith and
# tiktoken all fall back when it is missing.
OPTIONAL_PACKAGES = ("numpy", "rank_bm25")


def optional_excludes(source_root: str | Path) -> list[str]:
    """The OPTIONAL_PACKAGES the app's own code never imports."""
    tops = {name.split(".")[0] for name in imported_modules(source_root)}
    return [name for name in OPTIONAL_PACKAGES if name not in tops]


def qt_modules_available(pyside_dir: str | Path) -> set[str]:
    """The ``Qt*`` extension modules of an installed PySide6 package (``QtCore.abi3.so`` -> ``QtCore``)."""
    names = set()
    for entry in Path(pyside_dir).iterdir():
        match = re.match(r"^(Qt\w+?)(\.abi3)?\.(so|pyd)$", entry.name) or re.match(r"^(Qt\w+)\.(cpython.*\.so)$", entry.name)
        if match:
            names.add(match.group(1))
    return names


def qt_excludes(used: set[str], available: set[str]) -> list[str]:
    """``PySide6.X`` for every available Qt module the app neither uses nor always needs."""
    keep = QT_ALWAYS | used
    return sorted(f"PySide6.{name}" for name in available - keep)


def _parts(dest: str) -> tuple[str, ...]:
    return PurePosixPath(dest.replace("\\", "/")).parts


def keep_qt_translation(dest: str) -> bool:
    """Keep ``.../translations/qtbase_zh_CN.qm`` and the English ones, drop other languages."""
    name = _parts(dest)[-1]
    match = re.match(r"^[a-z_]+?_([a-z]{2}(?:_[A-Z]{2})?)\.qm$", name)
    if not match:
        return True
    return match.group(1) in LANGUAGES


def keep_qt_plugin(dest: str) -> bool:
    """Plugins under ``PySide6/Qt/plugins/<folder>/<lib>``: kept only if listed in QT_PLUGINS_KEPT."""
    parts = _parts(dest)
    try:
        index = parts.index("plugins")
    except ValueError:
        return True
    if len(parts) < index + 3:
        return True
    folder, filename = parts[index + 1], parts[index + 2]
    if folder not in QT_PLUGINS_KEPT:
        return False
    allowed = QT_PLUGINS_KEPT[folder]
    if allowed is None:
        return True
    stem = filename.split(".")[0]
    stem = stem[3:] if stem.startswith("lib") else stem
    return stem in allowed or stem.rstrip("d") in allowed  # Windows debug builds end in "d"


def keep_jieba_data(dest: str, modules: set[str]) -> bool:
    """jieba data of an optional sub-package is kept only if ``jieba.<sub>`` is in the module graph."""
    parts = _parts(dest)
    if len(parts) < 2 or parts[0] != "jieba":
        return True
    sub = parts[1]
    if sub == "lac_small":
        return False
    if sub in JIEBA_OPTIONAL:
        return f"jieba.{sub}" in modules
    return True


def keep_entry(dest: str, modules: set[str], linux: bool = False) -> bool:
    """One rule for every bundled data file or binary."""
    parts = _parts(dest)
    if linux and is_system_lib(dest):
        return False
    if parts[:2] == ("PySide6", "Qt") or parts[:1] == ("PySide6",):
        if "translations" in parts:
            return keep_qt_translation(dest)
        if "plugins" in parts:
            return keep_qt_plugin(dest)
    return keep_jieba_data(dest, modules)


def filter_toc(toc, modules: set[str], linux: bool = False):
    """The TOC without the entries ``keep_entry`` rejects (same entry type back)."""
    return [entry for entry in toc if keep_entry(entry[0], modules, linux)]


def prune_orphans(binaries, dropped, imports_of):
    """Drop libraries that only dropped entries needed.

    ``binaries`` are the kept TOC entries, ``dropped`` the rejected ones, ``imports_of(src_path)`` the
    names of the shared libraries a binary links to directly (PyInstaller's ``bindepend.get_imports``).
    A kept library that a dropped entry (transitively) pulled in stays only if something else kept
    still needs it.
    """
    by_name = {PurePosixPath(entry[0].replace("\\", "/")).name: entry for entry in binaries}
    dropped_names = {PurePosixPath(entry[0].replace("\\", "/")).name for entry in dropped}

    def closure(starts):
        seen, todo = set(), list(starts)
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            entry = by_name.get(name)
            if entry is None:
                continue
            for dep in imports_of(entry[1]):
                dep_name = PurePosixPath(str(dep).replace("\\", "/")).name
                if dep_name in by_name and dep_name not in seen:
                    todo.append(dep_name)
        return seen

    suspects = set()
    for entry in dropped:
        for dep in imports_of(entry[1]):
            dep_name = PurePosixPath(str(dep).replace("\\", "/")).name
            if dep_name in by_name:
                suspects |= closure([dep_name])
    suspects -= dropped_names
    if not suspects:
        return list(binaries)
    roots = [name for name in by_name if name not in suspects]
    needed = closure(roots)
    return [entry for entry in binaries
            if PurePosixPath(entry[0].replace("\\", "/")).name not in suspects
            or PurePosixPath(entry[0].replace("\\", "/")).name in needed]


def drop_dangling_symlinks(toc, other_toc):
    """PyInstaller records top-level ``SYMLINK`` entries for Qt libraries; once their target is trimmed
    they would dangle. Returns ``toc`` without links whose target is in neither TOC."""
    present = {entry[0].replace("\\", "/") for entry in list(toc) + list(other_toc) if entry[2] != "SYMLINK"}
    return [entry for entry in toc
            if entry[2] != "SYMLINK" or entry[1].replace("\\", "/") in present]
